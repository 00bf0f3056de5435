//! Key templates while an expression is evaluated (the core's builder,
//! [`keylint_core::template_builder`]), how a JavaScript identifier reads as a key or a
//! prefix, and JavaScript string literals decoded to bytes with the source offset of
//! each byte.

use keylint_core::template_builder::{is_keylike_word, words};
pub(crate) use keylint_core::template_builder::{HoleInfo, TPart, Tpl};

/// Whether a label (`this.keyPrefix`, `opts.prefix`, `queueKey`) reads like a whole
/// key or a prefix.
pub(crate) fn is_keylike_label(label: &str) -> bool {
    let last = label
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .find(|s| !s.is_empty())
        .unwrap_or(label);
    // Split camelCase and snake_case into words.
    words(last, |c| c == '_' || c == '$')
        .iter()
        .any(|w| is_keylike_word(w))
}

/// Decodes the body of a JavaScript string or template chunk (`src[from..to]`, quotes
/// excluded) to bytes with the source offset of each; `None` for an escape whose
/// value is not a byte sequence the linter can know (a lone surrogate).
pub(crate) fn decode(src: &str, from: usize, to: usize) -> Option<(Vec<u8>, Vec<Option<usize>>)> {
    let b = src.as_bytes();
    let mut bytes = Vec::with_capacity(to.saturating_sub(from));
    let mut offs = Vec::with_capacity(to.saturating_sub(from));
    let mut i = from;
    let push_char = |c: char, at: usize, bytes: &mut Vec<u8>, offs: &mut Vec<Option<usize>>| {
        let mut buf = [0u8; 4];
        for x in c.encode_utf8(&mut buf).bytes() {
            bytes.push(x);
            offs.push(Some(at));
        }
    };
    while i < to {
        if b[i] != b'\\' {
            bytes.push(b[i]);
            offs.push(Some(i));
            i += 1;
            continue;
        }
        let at = i;
        let &e = b.get(i + 1)?;
        i += 2;
        let simple = match e {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'v' => Some(11),
            b'0' if !b.get(i).is_some_and(u8::is_ascii_digit) => Some(0),
            _ => None,
        };
        if let Some(x) = simple {
            bytes.push(x);
            offs.push(Some(at));
            continue;
        }
        match e {
            b'\n' => {}
            b'\r' => {
                if b.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'x' => {
                let h = src.get(i..i + 2)?;
                let v = u32::from_str_radix(h, 16).ok()?;
                push_char(char::from_u32(v)?, at, &mut bytes, &mut offs);
                i += 2;
            }
            b'u' => {
                let (v, len) = if b.get(i) == Some(&b'{') {
                    let close = src.get(i..to)?.find('}')?;
                    (
                        u32::from_str_radix(src.get(i + 1..i + close)?, 16).ok()?,
                        close + 1,
                    )
                } else {
                    (u32::from_str_radix(src.get(i..i + 4)?, 16).ok()?, 4)
                };
                push_char(char::from_u32(v)?, at, &mut bytes, &mut offs);
                i += len;
            }
            b'0'..=b'9' => return None,
            _ => {
                // Any other escaped character stands for itself.
                let c = src.get(i - 1..)?.chars().next()?;
                push_char(c, at, &mut bytes, &mut offs);
                i += c.len_utf8() - 1;
            }
        }
    }
    Some((bytes, offs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keylike() {
        for l in [
            "key",
            "this.keyPrefix",
            "prefix",
            "queueKey",
            "opts.ns",
            "KEY",
        ] {
            assert!(is_keylike_label(l), "{l}");
        }
        for l in ["uid", "job.id", "name", "userId", "kind"] {
            assert!(!is_keylike_label(l), "{l}");
        }
    }

    #[test]
    fn decodes_escapes() {
        let s = r#"a\n\x41\u0042\u{43}\'z"#;
        let (b, o) = decode(s, 0, s.len()).unwrap();
        assert_eq!(b, b"a\nABC'z");
        assert_eq!(o[0], Some(0));
        assert_eq!(o[1], Some(1));
        assert_eq!(o[2], Some(3));
        assert!(decode(r"\u{D800}", 0, 8).is_none());
    }
}
