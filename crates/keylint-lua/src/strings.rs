//! Lua string literals as Redis reads them: Lua 5.1 escapes and long brackets, with
//! the source offset of every byte so that diagnostics can point at a brace inside a
//! literal.
//!
//! Redis embeds Lua 5.1, whose lexer differs from later versions and from the
//! tree-sitter grammar in ways that change key bytes: `\x41`, `\z` and `\u{41}` are not
//! escapes in 5.1 (the backslash is dropped, so `'\x41'` is the three bytes `x41`),
//! decimal escapes `\ddd` are, and a long bracket skips one newline right after its
//! opening and turns every line break into `\n`. Anything the 5.1 lexer would reject
//! (`\300`, a nested `[[` inside a level-0 long string) decodes to `None`: the linter
//! then knows nothing about the literal rather than something wrong.

use keylint_core::template::SourceMap;

/// A decoded string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The bytes Lua produces.
    pub bytes: Vec<u8>,
    /// Where each byte comes from in the source.
    pub map: SourceMap,
}

/// Decodes the body of a quoted string (`'…'` or `"…"`), given the source text between
/// the quotes and its offset in the file.
pub(crate) fn decode_quoted(body: &[u8], start: usize) -> Option<Decoded> {
    let mut bytes = Vec::with_capacity(body.len());
    let mut offsets = Vec::with_capacity(body.len() + 1);
    let mut plain = true;
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' {
            if c == b'\n' || c == b'\r' {
                // An unescaped line break ends a quoted string in Lua: not a valid literal.
                return None;
            }
            bytes.push(c);
            offsets.push(start + i);
            i += 1;
            continue;
        }
        plain = false;
        let at = start + i;
        let &e = body.get(i + 1)?;
        let simple = match e {
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            _ => None,
        };
        if let Some(b) = simple {
            bytes.push(b);
            offsets.push(at);
            i += 2;
        } else if e == b'\n' || e == b'\r' {
            // A backslash before a line break is a `\n`; `\r\n` and `\n\r` count once.
            bytes.push(b'\n');
            offsets.push(at);
            i += 2;
            if let Some(&n) = body.get(i) {
                if (n == b'\n' || n == b'\r') && n != e {
                    i += 1;
                }
            }
        } else if e.is_ascii_digit() {
            let mut value: u32 = 0;
            let mut j = i + 1;
            while j < body.len() && j < i + 4 && body[j].is_ascii_digit() {
                value = value * 10 + u32::from(body[j] - b'0');
                j += 1;
            }
            let b = u8::try_from(value).ok()?;
            bytes.push(b);
            offsets.push(at);
            i = j;
        } else {
            // Lua 5.1 keeps the character and drops the backslash (`\\`, `\"`, `\'`, and
            // also `\x`, `\z`, `\u`, which are escapes only in later Lua versions).
            bytes.push(e);
            offsets.push(at);
            i += 2;
        }
    }
    Some(decoded(bytes, offsets, plain, start, body.len()))
}

/// The decoded bytes with their source map: one offset per byte plus the end, unless
/// the bytes are the source text itself (`plain`), which starts at `start`.
fn decoded(
    bytes: Vec<u8>,
    mut offsets: Vec<usize>,
    plain: bool,
    start: usize,
    len: usize,
) -> Decoded {
    offsets.push(start + len);
    let map = if plain {
        SourceMap::Contiguous(start)
    } else {
        SourceMap::PerByte(offsets)
    };
    Decoded { bytes, map }
}

/// Decodes the body of a long-bracket string (`[[…]]`, `[==[…]==]`): the source text
/// between the opening and the closing bracket, its offset, and the bracket's level
/// (the number of `=`).
pub(crate) fn decode_long(body: &[u8], start: usize, level: usize) -> Option<Decoded> {
    if level == 0 && body.windows(2).any(|w| w == b"[[") {
        // Lua 5.1: "nesting of [[...]] is deprecated" is a syntax error.
        return None;
    }
    let mut i = 0;
    // One line break right after the opening bracket is skipped.
    if let Some(&c) = body.first() {
        if c == b'\n' || c == b'\r' {
            i = 1;
            if let Some(&n) = body.get(1) {
                if (n == b'\n' || n == b'\r') && n != c {
                    i = 2;
                }
            }
        }
    }
    let mut bytes = Vec::with_capacity(body.len());
    let mut offsets = Vec::with_capacity(body.len() + 1);
    let mut plain = i == 0;
    while i < body.len() {
        let c = body[i];
        if c == b'\n' || c == b'\r' {
            bytes.push(b'\n');
            offsets.push(start + i);
            i += 1;
            if let Some(&n) = body.get(i) {
                if (n == b'\n' || n == b'\r') && n != c {
                    i += 1;
                    plain = false;
                }
            }
            if c == b'\r' {
                plain = false;
            }
            continue;
        }
        bytes.push(c);
        offsets.push(start + i);
        i += 1;
    }
    Some(decoded(bytes, offsets, plain, start, body.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Option<Vec<u8>> {
        decode_quoted(s.as_bytes(), 0).map(|d| d.bytes)
    }

    #[test]
    fn lua_5_1_escapes() {
        assert_eq!(q(r"a\nb").unwrap(), b"a\nb");
        assert_eq!(q(r"\123x\125").unwrap(), b"{x}");
        assert_eq!(q(r"\0491").unwrap(), b"11");
        // Not escapes in Lua 5.1: the backslash is dropped.
        assert_eq!(q(r"\x41|\z  b|\u{41}|\q").unwrap(), b"x41|z  b|u{41}|q");
        assert_eq!(q(r#"\"\'\\"#).unwrap(), b"\"'\\");
        assert_eq!(q("a\\\r\nb").unwrap(), b"a\nb");
        assert_eq!(q(r"\256"), None);
        assert_eq!(q("a\nb"), None);
        assert_eq!(q("x\\"), None);
    }

    #[test]
    fn escapes_map_to_their_backslash() {
        let d = decode_quoted(br"a\123b", 10).unwrap();
        assert_eq!(d.bytes, b"a{b");
        assert_eq!(d.map, SourceMap::PerByte(vec![10, 11, 15, 16]));
        let d = decode_quoted(b"ab", 3).unwrap();
        assert_eq!(d.map, SourceMap::Contiguous(3));
    }

    #[test]
    fn long_brackets() {
        let d = decode_long(b"\nx{y}", 4, 0).unwrap();
        assert_eq!(d.bytes, b"x{y}");
        assert_eq!(d.map, SourceMap::PerByte(vec![5, 6, 7, 8, 9]));
        let d = decode_long(b"\r\na\r\nb", 0, 2).unwrap();
        assert_eq!(d.bytes, b"a\nb");
        let d = decode_long(b"a]]b", 0, 1).unwrap();
        assert_eq!(d.bytes, b"a]]b");
        assert_eq!(d.map, SourceMap::Contiguous(0));
        assert_eq!(decode_long(b"a[[b", 0, 0), None);
        assert!(decode_long(b"a[[b", 0, 1).is_some());
    }
}
