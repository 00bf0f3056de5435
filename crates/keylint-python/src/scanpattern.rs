//! Keys found by a pattern the code does not show whole: `r.scan_iter(match=pattern)`
//! where `pattern` is a parameter, a setting or a value built where the wildcard is
//! not literal (`keys_pattern = "{0}.{1}.deleted".format(res, parent)`). Such a
//! pattern is read as keys on one unknown head: every key found begins with what the
//! pattern fixes, which the code does not show (and which may carry a hash tag), and
//! differs after it in what the wildcards match. Only a value named like a pattern
//! (`pattern`, `keys_pattern`, `self.glob`, `match`) is read so, alone or as the one
//! value of a pattern built around it (`f"i:{pattern}"`, `"i:" + pattern`): any other
//! unknown value may be one key, with no wildcard at all.

use crate::eval::{Ctx, Value};
use crate::index::text;
use crate::syntax::NodeExt;
use crate::tpl::{HoleInfo, TPart, Tpl};
use tree_sitter::Node;

/// The words that name a glob pattern.
const PATTERN_WORDS: &[&str] = &["pattern", "pat", "glob", "match"];

/// Whether the literal bytes of a pattern hold an unescaped wildcard (`*`, `?`, `[`).
pub(crate) fn has_literal_wildcard(t: &Tpl) -> bool {
    t.parts.iter().any(|p| match p {
        TPart::Lit { bytes, .. } => {
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'*' | b'?' | b'[' => return true,
                    _ => i += 1,
                }
            }
            false
        }
        TPart::Hole(_) => false,
    })
}

/// Whether the last name of `label` (`self.key_pattern` → `key_pattern`) holds a word
/// that names a glob pattern.
pub(crate) fn is_pattern_label(label: &str) -> bool {
    let last = label
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|s| !s.is_empty())
        .unwrap_or(label)
        .to_ascii_lowercase();
    last.split('_')
        .any(|w| PATTERN_WORDS.contains(&w) || w.ends_with("pattern"))
}

impl<'t> crate::lower::Analyzer<'t> {
    /// What a pattern the code does not show fixes of every key it matches: one
    /// opaque head, the pattern itself, the same for every key found. `None` unless
    /// the pattern is a name or an attribute named like a pattern, and its value does
    /// not change from pass to pass of a loop.
    pub(crate) fn unshown_pattern_head(
        &self,
        value: &Value<'t>,
        node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Tpl, String)> {
        let label = text(node, self.src());
        if !matches!(node.kind_name(), "identifier" | "attribute") {
            // A pattern built around one (`f"i:{pattern}"`, `"i:" + pattern`).
            let Value::Str(t) = value else {
                return None;
            };
            let holes: Vec<&HoleInfo> = t
                .parts
                .iter()
                .filter_map(|p| match p {
                    TPart::Hole(h) => Some(h),
                    TPart::Lit { .. } => None,
                })
                .collect();
            let around = matches!(holes.as_slice(), [h]
                if is_pattern_label(&h.label) && !h.binding.contains("@each"));
            if !around || has_literal_wildcard(t) {
                return None;
            }
            let binding = format!("{}:pattern@{}", self.scope_tag(ctx), node.start_byte());
            let head = Tpl::hole(HoleInfo {
                label: label.to_string(),
                binding,
                span: Some(node.byte_range()),
                keylike: true,
            });
            return Some((head, "*".to_string()));
        }
        if !is_pattern_label(label) {
            return None;
        }
        let binding = match value {
            Value::Opaque(h) => h.binding.clone(),
            Value::Str(t) => {
                let varies = t
                    .parts
                    .iter()
                    .any(|p| matches!(p, TPart::Hole(h) if h.binding.contains("@each")));
                if varies {
                    return None;
                }
                format!("{}:pattern@{}", self.scope_tag(ctx), node.start_byte())
            }
            Value::Unknown => format!("{}:pattern@{}", self.scope_tag(ctx), node.start_byte()),
            _ => return None,
        };
        if binding.contains("@each") {
            return None;
        }
        let head = Tpl::hole(HoleInfo {
            label: label.to_string(),
            binding,
            span: Some(node.byte_range()),
            // The pattern may fix a hash tag of its own.
            keylike: true,
        });
        Some((head, "*".to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_labels() {
        for l in [
            "pattern",
            "keys_pattern",
            "self.glob",
            "match",
            "cache_pattern",
            "pat",
        ] {
            assert!(is_pattern_label(l), "{l}");
        }
        for l in ["key", "name", "self.prefix", "matches", "patron"] {
            assert!(!is_pattern_label(l), "{l}");
        }
    }

    #[test]
    fn literal_wildcards() {
        assert!(has_literal_wildcard(&Tpl::text(b"*flavors")));
        assert!(has_literal_wildcard(&Tpl::text(b"a:[ab]")));
        assert!(!has_literal_wildcard(&Tpl::text(b"a\\*b")));
        assert!(!has_literal_wildcard(&Tpl::text(b"plain")));
    }
}
