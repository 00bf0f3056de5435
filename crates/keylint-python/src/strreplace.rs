//! `s.replace(old, new)` on a key's text, with `old` one character and neither
//! `old` nor `new` a brace (`criterion.replace(":", "#")`).
//!
//! Known text is replaced. A character cannot match across the edge of an unknown
//! part, so an unknown part becomes another unknown part, named after the one it
//! comes from and the replacement: two keys that replace the same value share it.
//! Braces are neither made nor removed, so a part known to hold no brace still holds
//! none. While a module is summarised, the replacement is kept on a parameter's
//! placeholder and done on the argument when the summary is applied to a call.

use keylint_core::template_builder::{HoleInfo, TPart, Tpl};

/// Delimits the replacement kept at the end of a hole's binding.
const REPLACED: char = '\u{4}';

/// `old` and `new` when `.replace(old, new)` is read: `old` one ASCII character,
/// neither a brace, `new` ASCII with no brace.
pub(crate) fn accepted(old: &[u8], new: &[u8]) -> Option<(u8, Vec<u8>)> {
    let ok = |b: &u8| b.is_ascii() && !matches!(*b, b'{' | b'}') && *b as char != REPLACED;
    match old {
        [o] if ok(o) && new.iter().all(ok) => Some((*o, new.to_vec())),
        _ => None,
    }
}

/// `t` with every `old` replaced by `new`; `None` when an unknown part already went
/// through a replacement (one is kept per part).
pub(crate) fn replace_tpl(t: &Tpl, old: u8, new: &[u8]) -> Option<Tpl> {
    let mut out = Tpl::default();
    for p in &t.parts {
        match p {
            TPart::Lit { bytes, offs } => {
                let mut b2 = Vec::new();
                let mut o2 = Vec::new();
                for (b, o) in bytes.iter().zip(offs) {
                    if *b == old {
                        b2.extend_from_slice(new);
                        o2.extend(std::iter::repeat_n(*o, new.len()));
                    } else {
                        b2.push(*b);
                        o2.push(*o);
                    }
                }
                if !b2.is_empty() {
                    out.push(Tpl::lit(b2, o2));
                }
            }
            TPart::Hole(h) => {
                if h.binding.contains(REPLACED) {
                    return None;
                }
                out.push(Tpl::hole(HoleInfo {
                    binding: format!(
                        "{}{REPLACED}{}{}{REPLACED}",
                        h.binding,
                        old as char,
                        String::from_utf8_lossy(new)
                    ),
                    ..h.clone()
                }));
            }
        }
    }
    Some(out)
}

/// A binding made by [`replace_tpl`]: the binding before, and the replacement.
pub(crate) fn split_replaced(binding: &str) -> Option<(&str, u8, Vec<u8>)> {
    let (base, rest) = binding.split_once(REPLACED)?;
    let rest = rest.strip_suffix(REPLACED)?;
    let (&old, new) = rest.as_bytes().split_first()?;
    Some((base, old, new.to_vec()))
}
