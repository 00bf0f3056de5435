//! Key templates while a frontend evaluates an expression, before they become
//! [`KeyTemplate`]s.
//!
//! While an expression is evaluated, a hole does not know yet whether it will begin a
//! key or follow literal text inside one (a key-builder function's `f"{ns}:{uid}"` may
//! be called with a literal namespace). Holes therefore carry only facts about the
//! value here; [`Tpl::to_key_template`] decides each hole's [`HoleKind`] once the key
//! is complete. Literal bytes keep the source offset each one came from, so the
//! hash-tag rules can point at a single brace.
//!
//! Frontends share this builder and keep only what depends on their syntax: how a
//! string literal decodes to bytes and how an identifier splits into words (see
//! [`is_keylike_word`]).

use crate::template::{Hole, HoleKind, KeyTemplate, Lit, Part, SourceMap};
use crate::Span;

/// A value the linter cannot know, with what identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoleInfo {
    /// How the user wrote it (`uid`, `job.id`).
    pub label: String,
    /// Identity of the runtime value (see [`Hole::binding`]).
    pub binding: String,
    /// Where it is in the source.
    pub span: Option<Span>,
    /// The value may be a whole key or a prefix that carries its own hash tag
    /// (`key`, `prefix`, `namespace`, …), so it is opaque wherever it appears.
    pub keylike: bool,
}

/// One part of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TPart {
    /// Known bytes, each with the source offset it came from, if known.
    Lit {
        /// The bytes.
        bytes: Vec<u8>,
        /// `offs[i]` is the source offset of `bytes[i]`.
        offs: Vec<Option<usize>>,
    },
    /// An unknown value.
    Hole(HoleInfo),
}

/// What a string expression may evaluate to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tpl {
    /// The parts, in order.
    pub parts: Vec<TPart>,
}

/// Identifier words that say a value is a key, a prefix or a namespace rather than a
/// piece of a name.
const KEYLIKE_WORDS: &[&str] = &[
    "key",
    "keys",
    "prefix",
    "namespace",
    "ns",
    "pfx",
    "root",
    "base",
];

/// Whether one lower-case word of an identifier (`key`, `cachekey`, `prefix`) says the
/// value is a whole key or a prefix. Each frontend splits its identifiers into words
/// its own way (`snake_case`, `camelCase`).
pub fn is_keylike_word(w: &str) -> bool {
    KEYLIKE_WORDS.contains(&w) || w.ends_with("key") || w.ends_with("prefix")
}

/// The lower-case words of a name: split at each character `is_separator` accepts and
/// at camelCase boundaries (`tenantId` is `tenant`, `id`; `ARGV[1]` with a separator of
/// anything not alphanumeric is `argv`, `1`).
pub fn words(s: &str, is_separator: impl Fn(char) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if is_separator(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl Tpl {
    /// A template of known bytes.
    pub fn lit(bytes: Vec<u8>, offs: Vec<Option<usize>>) -> Tpl {
        debug_assert_eq!(bytes.len(), offs.len());
        Tpl {
            parts: vec![TPart::Lit { bytes, offs }],
        }
    }

    /// Known bytes with no source position.
    pub fn text(s: &[u8]) -> Tpl {
        Tpl::lit(s.to_vec(), vec![None; s.len()])
    }

    /// A single hole.
    pub fn hole(h: HoleInfo) -> Tpl {
        Tpl {
            parts: vec![TPart::Hole(h)],
        }
    }

    /// Appends another template.
    pub fn push(&mut self, other: Tpl) {
        for p in other.parts {
            match (self.parts.last_mut(), p) {
                (
                    Some(TPart::Lit { bytes, offs }),
                    TPart::Lit {
                        bytes: b2,
                        offs: o2,
                    },
                ) => {
                    bytes.extend(b2);
                    offs.extend(o2);
                }
                (_, p) => self.parts.push(p),
            }
        }
    }

    /// Appends one known byte: the same as pushing `Tpl::lit(vec![b], vec![off])`.
    pub fn push_byte(&mut self, b: u8, off: Option<usize>) {
        match self.parts.last_mut() {
            Some(TPart::Lit { bytes, offs }) => {
                bytes.push(b);
                offs.push(off);
            }
            _ => self.parts.push(TPart::Lit {
                bytes: vec![b],
                offs: vec![off],
            }),
        }
    }

    /// The template's bytes when it has no holes.
    pub fn as_bytes(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        for p in &self.parts {
            match p {
                TPart::Lit { bytes, .. } => out.extend_from_slice(bytes),
                TPart::Hole(_) => return None,
            }
        }
        Some(out)
    }

    /// The template as text when it has no holes and is valid UTF-8, with the source
    /// offset of every byte when all of them are known (a script body written in the
    /// file being linted).
    pub fn text_with_offsets(&self) -> Option<(String, Option<Vec<usize>>)> {
        let mut bytes = Vec::new();
        let mut offs = Vec::new();
        let mut all_known = true;
        for p in &self.parts {
            match p {
                TPart::Lit { bytes: b, offs: o } => {
                    bytes.extend_from_slice(b);
                    for x in o {
                        match x {
                            Some(x) => offs.push(*x),
                            None => all_known = false,
                        }
                    }
                }
                TPart::Hole(_) => return None,
            }
        }
        let text = String::from_utf8(bytes).ok()?;
        Some((text, all_known.then_some(offs)))
    }

    /// The template as the core's [`KeyTemplate`] of a key written at `use_span`.
    ///
    /// A hole is [`HoleKind::Opaque`] when no literal byte precedes it (it begins the
    /// key, so it may be a prefix with its own tag) or when it reads like a key or a
    /// prefix; otherwise, and always for a fresh value
    /// ([`crate::template::fresh_binding`]) or a brace-free one
    /// ([`crate::template::brace_free_binding`]), it is a [`HoleKind::Fragment`]. Literal
    /// bytes keep their source offsets only when they lie inside `use_span`: bytes
    /// from a constant defined elsewhere are reported at the key itself.
    pub fn to_key_template(&self, use_span: &Span) -> KeyTemplate {
        let mut parts: Vec<Part> = Vec::new();
        let mut seen_lit = false;
        for p in &self.parts {
            match p {
                TPart::Lit { bytes, offs } => {
                    if bytes.is_empty() {
                        continue;
                    }
                    seen_lit = true;
                    push_lit(&mut parts, bytes, offs, use_span);
                }
                TPart::Hole(h) => {
                    // A fresh value (a uuid) or a brace-free one (a class name)
                    // holds no brace wherever it is.
                    let kind = if crate::template::is_fresh_binding(&h.binding)
                        || crate::template::is_brace_free_binding(&h.binding)
                    {
                        HoleKind::Fragment
                    } else if !seen_lit || h.keylike {
                        HoleKind::Opaque
                    } else {
                        HoleKind::Fragment
                    };
                    parts.push(Part::Hole(Hole {
                        label: h.label.clone(),
                        binding: h.binding.clone(),
                        kind,
                        span: h.span.clone(),
                    }));
                }
            }
        }
        if parts.is_empty() {
            parts.push(Part::Lit(Lit {
                bytes: Vec::new(),
                map: SourceMap::None,
            }));
        }
        KeyTemplate { parts }
    }
}

/// Splits literal bytes into runs that are inside `use_span` with known offsets and
/// runs that are not, and pushes each run with the best source map it allows.
fn push_lit(parts: &mut Vec<Part>, bytes: &[u8], offs: &[Option<usize>], use_span: &Span) {
    let inside = |o: &Option<usize>| o.is_some_and(|o| use_span.contains(&o));
    let mut i = 0;
    while i < bytes.len() {
        let mapped = inside(&offs[i]);
        let mut j = i + 1;
        while j < bytes.len() && inside(&offs[j]) == mapped {
            j += 1;
        }
        let map = if mapped {
            let o: Vec<usize> = offs[i..j].iter().map(|o| o.unwrap_or(0)).collect();
            if o.windows(2).all(|w| w[1] == w[0] + 1) {
                SourceMap::Contiguous(o[0])
            } else {
                let mut v = o.clone();
                v.push(o[o.len() - 1] + 1);
                SourceMap::PerByte(v)
            }
        } else {
            SourceMap::None
        };
        parts.push(Part::Lit(Lit {
            bytes: bytes[i..j].to_vec(),
            map,
        }));
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hole(label: &str) -> HoleInfo {
        HoleInfo {
            label: label.into(),
            binding: label.into(),
            span: None,
            keylike: is_keylike_word(label),
        }
    }

    #[test]
    fn keylike_words() {
        let cases = [
            ("key", true),
            ("keys", true),
            ("cachekey", true),
            ("keyprefix", true),
            ("ns", true),
            ("basekey", true),
            ("uid", false),
            ("name", false),
            ("keyid", false),
        ];
        for (w, want) in cases {
            assert_eq!(is_keylike_word(w), want, "{w}");
        }
    }

    #[test]
    fn hole_kinds_follow_position() {
        let mut t = Tpl::hole(hole("ns"));
        t.push(Tpl::text(b":"));
        t.push(Tpl::hole(hole("uid")));
        let k = t.to_key_template(&(0..0));
        let kinds: Vec<_> = k
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Hole(h) => Some(h.kind),
                _ => None,
            })
            .collect();
        assert_eq!(kinds, [HoleKind::Opaque, HoleKind::Fragment]);
    }

    #[test]
    fn a_brace_free_value_is_a_fragment_even_first() {
        let mut name = hole("model.__name__");
        name.binding = crate::template::brace_free_binding("obj(model).__name__");
        let mut t = Tpl::hole(name);
        t.push(Tpl::text(b"__index"));
        let k = t.to_key_template(&(0..0));
        assert!(matches!(&k.parts[0], Part::Hole(h) if h.kind == HoleKind::Fragment));
    }

    #[test]
    fn push_byte_extends_the_last_literal() {
        let mut a = Tpl::text(b"a");
        a.push_byte(b'b', Some(3));
        let mut b = Tpl::text(b"a");
        b.push(Tpl::lit(vec![b'b'], vec![Some(3)]));
        assert_eq!(a, b);
        assert_eq!(a.parts.len(), 1);
    }

    #[test]
    fn text_with_offsets() {
        let mut t = Tpl::lit(b"ab".to_vec(), vec![Some(4), Some(5)]);
        assert_eq!(
            t.text_with_offsets(),
            Some(("ab".to_string(), Some(vec![4, 5])))
        );
        t.push(Tpl::text(b"c"));
        assert_eq!(t.text_with_offsets(), Some(("abc".to_string(), None)));
        t.push(Tpl::hole(hole("uid")));
        assert_eq!(t.text_with_offsets(), None);
        assert_eq!(Tpl::text(&[0xff]).text_with_offsets(), None);
    }

    #[test]
    fn offsets_outside_the_use_are_dropped() {
        let t = Tpl::lit(b"ab".to_vec(), vec![Some(10), Some(11)]);
        let k = t.to_key_template(&(10..12));
        assert!(matches!(
            &k.parts[0],
            Part::Lit(Lit {
                map: SourceMap::Contiguous(10),
                ..
            })
        ));
        let k = t.to_key_template(&(0..5));
        assert!(matches!(
            &k.parts[0],
            Part::Lit(Lit {
                map: SourceMap::None,
                ..
            })
        ));
        let t = Tpl::lit(b"ab".to_vec(), vec![Some(10), Some(13)]);
        let k = t.to_key_template(&(0..20));
        assert!(
            matches!(&k.parts[0], Part::Lit(Lit { map: SourceMap::PerByte(v), .. }) if v == &[10, 13, 14])
        );
    }
}
