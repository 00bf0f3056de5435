//! A module constant that is one of several strings: `if settings.TEST: BASE =
//! "app.test.%s"` / `else: BASE = "app.%s"` at module level, then `KEY = BASE +
//! ".p.%s"` and `KEY % (name, word)` in functions. Which assignment holds is decided
//! once, at import, so every key built on the constant in a run takes the same one.
//!
//! The value is the strings' common beginning, one brace-free part for where they
//! differ ([`keylint_core::template::brace_free_binding`]: one value in a run, shared
//! by every key that holds it, with no `{` or `}` of its own) and their common end.
//! The `%s` or `{}` placeholders stay in the literal text around the part, so the
//! constant can still be formatted. Read only when every assignment of the name at
//! module level is a plain `NAME = "…"` of a string known whole (at most
//! [`MAX_ALTERNATIVES`] distinct ones), and where the strings differ holds no brace,
//! no `%` and no part of a placeholder. A use at module level sees the assignments
//! written above it; a use in a function, any of them.

use crate::eval::{Ctx, Value};
use crate::index::{Def, DefKind};
use crate::lower::Analyzer;
use crate::tpl::{HoleInfo, Tpl};
use keylint_core::template::brace_free_binding;
use tree_sitter::Node;

/// What the binding of the part where the strings differ begins with.
const ONE_OF: &str = "module-one-of:";

/// Most distinct strings one constant is read as one of.
const MAX_ALTERNATIVES: usize = 6;

impl<'t> Analyzer<'t> {
    /// The value of module name `name` whose module-level assignments `defs` gave
    /// `vals` (in order), at a use `n` in `ctx`: one of those strings, or `None`.
    pub(crate) fn module_one_of(
        &self,
        name: &str,
        defs: &[Def<'t>],
        vals: &[Value<'t>],
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let mut texts: Vec<(Vec<u8>, &Tpl)> = Vec::new();
        for (d, v) in defs.iter().zip(vals) {
            if !matches!(d.kind, DefKind::Expr(_)) {
                return None;
            }
            // At module level, only what is written above the use has run.
            if ctx.func.is_none() && d.stmt.end_byte() > n.start_byte() {
                continue;
            }
            let Value::Str(t) = v else { return None };
            let bytes = t.as_bytes()?;
            if !texts.iter().any(|(b, _)| *b == bytes) {
                texts.push((bytes, t));
            }
        }
        if texts.len() < 2 || texts.len() > MAX_ALTERNATIVES {
            return None;
        }
        let (first, first_tpl) = &texts[0];
        let mut pre = first.len();
        let mut suf = first.len();
        for (b, _) in &texts[1..] {
            pre = pre.min(first.iter().zip(b).take_while(|(x, y)| x == y).count());
            suf = suf.min(
                first
                    .iter()
                    .rev()
                    .zip(b.iter().rev())
                    .take_while(|(x, y)| x == y)
                    .count(),
            );
        }
        let shortest = texts.iter().map(|(b, _)| b.len()).min()?;
        suf = suf.min(shortest - pre);
        let mut ends = Vec::with_capacity(texts.len());
        for (b, _) in &texts {
            let (a, z) = (pre, b.len() - suf);
            if !clear_of_placeholders(b, a, z) {
                return None;
            }
            ends.push(String::from_utf8_lossy(&b[a..z]).into_owned());
        }
        let (_, offs) = first_tpl.text_with_offsets()?;
        let off = |i: usize| offs.as_ref().and_then(|o| o.get(i).copied());
        let lit = |from: usize, to: usize| {
            Tpl::lit(first[from..to].to_vec(), (from..to).map(off).collect())
        };
        let mut out = lit(0, pre);
        out.push(Tpl::hole(HoleInfo {
            label: format!("{name}(…)"),
            binding: brace_free_binding(&format!("{ONE_OF}{name}:[{}]", ends.join("|"))),
            span: Some(n.byte_range()),
            keylike: false,
        }));
        out.push(lit(first.len() - suf, first.len()));
        Some(Value::Str(out))
    }
}

/// Whether bytes `a..z` of `s` hold no brace and no `%`, and neither end of that
/// range falls inside a `%` or `{}` placeholder of `s`.
fn clear_of_placeholders(s: &[u8], a: usize, z: usize) -> bool {
    if s[a..z].iter().any(|c| matches!(c, b'{' | b'}' | b'%')) {
        return false;
    }
    placeholders(s).iter().all(|&(x, y)| {
        let inside = |p: usize| x < p && p < y;
        let overlaps = a < z && a < y && x < z;
        !inside(a) && !inside(z) && !overlaps
    })
}

/// The byte ranges of the `%` specifications and `{…}` fields of `s` (a lone brace
/// is a range of its own).
fn placeholders(s: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                let mut j = i + 1;
                if s.get(j) == Some(&b'(') {
                    j = s[j..]
                        .iter()
                        .position(|&c| c == b')')
                        .map_or(s.len(), |p| j + p + 1);
                }
                while j < s.len() && b"#0- +*.123456789hlL".contains(&s[j]) {
                    j += 1;
                }
                let end = (j + 1).min(s.len());
                out.push((i, end));
                i = end;
            }
            b'{' => {
                let end = s[i..]
                    .iter()
                    .position(|&c| c == b'}')
                    .map_or(s.len(), |p| i + p + 1);
                out.push((i, end));
                i = end;
            }
            b'}' => {
                out.push((i, i + 1));
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_bound_the_part() {
        // "app.test.%s" / "app.%s": the part is "test." or "", before the `%s`.
        assert!(clear_of_placeholders(b"app.test.%s", 4, 9));
        assert!(clear_of_placeholders(b"app.%s", 4, 4));
        // "x%s" / "x%d": the part would split the placeholder.
        assert!(!clear_of_placeholders(b"x%s", 2, 3));
        assert!(!clear_of_placeholders(b"%(name)s", 3, 4));
        assert!(!clear_of_placeholders(b"a{x}b", 2, 3));
        assert!(!clear_of_placeholders(b"a{b", 1, 2));
    }
}
