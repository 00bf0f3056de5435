//! Argument splitting exactly as redis-cli does it.
//!
//! Arguments are separated by blanks. A `"` starts a double-quoted run with
//! backslash escapes (`\xHH`, `\n`, `\r`, `\t`, `\b`, `\a`, `\<any>`); a `'` starts a
//! single-quoted run where only `\'` is an escape. A quote may start in the middle of
//! an argument (`ab"c d"` is `abc d`), and a closing quote must be followed by a blank
//! or the end of the line, or redis-cli rejects the line.

use keylint_core::template::SourceMap;
use keylint_core::Span;
use std::fmt;

/// One argument with its bytes and where each byte came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The argument after unquoting and unescaping.
    pub bytes: Vec<u8>,
    /// The argument in the source, quotes included.
    pub span: Span,
    /// Source offset of each byte.
    pub map: SourceMap,
}

/// Why redis-cli would reject a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitError {
    /// A quote is never closed.
    UnterminatedQuote {
        /// Offset of the opening quote.
        at: usize,
    },
    /// A closing quote is followed by something other than a blank.
    TextAfterQuote {
        /// Offset of the closing quote.
        at: usize,
    },
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SplitError::UnterminatedQuote { .. } => f.write_str("unterminated quote"),
            SplitError::TextAfterQuote { .. } => {
                f.write_str("closing quote must be followed by a space")
            }
        }
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0b | 0x0c | 0)
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The escape at `line[i]` inside double quotes: its byte and its length.
fn double_quoted_escape(line: &[u8], i: usize) -> Option<(u8, usize)> {
    let n = line.len();
    if line[i] != b'\\' || i + 1 >= n {
        return None;
    }
    if i + 3 < n && line[i + 1] == b'x' {
        if let (Some(h), Some(l)) = (hex(line[i + 2]), hex(line[i + 3])) {
            return Some((h * 16 + l, 4));
        }
    }
    let e = match line[i + 1] {
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'b' => 0x08,
        b'a' => 0x07,
        other => other,
    };
    Some((e, 2))
}

/// The escape at `line[i]` inside single quotes (only `\'`): its byte and its length.
fn single_quoted_escape(line: &[u8], i: usize) -> Option<(u8, usize)> {
    (line[i] == b'\\' && line.get(i + 1) == Some(&b'\'')).then_some((b'\'', 2))
}

/// Reads the quoted run that opens at `line[open]` (a `"` or a `'`) into `bytes` and
/// `offs`; returns the index after the closing quote.
fn quoted(
    line: &[u8],
    open: usize,
    base: usize,
    bytes: &mut Vec<u8>,
    offs: &mut Vec<usize>,
) -> Result<usize, SplitError> {
    let quote = line[open];
    let escape = if quote == b'"' {
        double_quoted_escape
    } else {
        single_quoted_escape
    };
    let n = line.len();
    let mut i = open + 1;
    loop {
        if i >= n {
            return Err(SplitError::UnterminatedQuote { at: base + open });
        }
        if let Some((b, len)) = escape(line, i) {
            bytes.push(b);
            offs.push(base + i);
            i += len;
            continue;
        }
        let c = line[i];
        if c == quote {
            if i + 1 < n && !is_blank(line[i + 1]) {
                return Err(SplitError::TextAfterQuote { at: base + i });
            }
            return Ok(i + 1);
        }
        bytes.push(c);
        offs.push(base + i);
        i += 1;
    }
}

/// Splits one line into arguments; `base` is the line's offset in the file.
pub fn split_args(line: &[u8], base: usize) -> Result<Vec<Arg>, SplitError> {
    let mut args = Vec::new();
    let mut i = 0;
    let n = line.len();
    loop {
        while i < n && is_blank(line[i]) {
            i += 1;
        }
        if i >= n {
            return Ok(args);
        }
        let start = i;
        let mut bytes = Vec::new();
        let mut offs = Vec::new();
        let mut contiguous = true;
        loop {
            if i >= n || is_blank(line[i]) {
                break;
            }
            match line[i] {
                b'"' | b'\'' => {
                    contiguous = false;
                    // A closing quote ends the argument.
                    i = quoted(line, i, base, &mut bytes, &mut offs)?;
                    break;
                }
                c => {
                    bytes.push(c);
                    offs.push(base + i);
                    i += 1;
                }
            }
        }
        let span = base + start..base + i;
        let map = if contiguous {
            SourceMap::Contiguous(span.start)
        } else {
            offs.push(span.end);
            SourceMap::PerByte(offs)
        };
        args.push(Arg { bytes, span, map });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<u8>> {
        split_args(line.as_bytes(), 0)
            .unwrap()
            .into_iter()
            .map(|a| a.bytes)
            .collect()
    }

    #[test]
    fn splitting_like_redis_cli() {
        assert_eq!(
            words("SET a b"),
            [b"SET".to_vec(), b"a".to_vec(), b"b".to_vec()]
        );
        assert_eq!(
            words("  GET   \"x y\"  "),
            [b"GET".to_vec(), b"x y".to_vec()]
        );
        assert_eq!(
            words(r#"GET "a\x41\n\"""#),
            [b"GET".to_vec(), b"aA\n\"".to_vec()]
        );
        assert_eq!(
            words(r"GET 'it\'s \n'"),
            [b"GET".to_vec(), b"it's \\n".to_vec()]
        );
        assert_eq!(
            words(r#"GET ab"c d""#),
            [b"GET".to_vec(), b"abc d".to_vec()]
        );
        assert_eq!(words(r#"GET "\xZZ""#), [b"GET".to_vec(), b"xZZ".to_vec()]);
        assert_eq!(words("GET \"\""), [b"GET".to_vec(), b"".to_vec()]);
        assert_eq!(
            words("GET caf\u{e9}"),
            [b"GET".to_vec(), "caf\u{e9}".as_bytes().to_vec()]
        );
    }

    #[test]
    fn rejects_what_redis_cli_rejects() {
        assert!(matches!(
            split_args(b"GET \"abc", 0),
            Err(SplitError::UnterminatedQuote { at: 4 })
        ));
        assert!(matches!(
            split_args(b"GET \"abc\"def", 0),
            Err(SplitError::TextAfterQuote { .. })
        ));
        assert!(split_args(b"GET 'abc", 0).is_err());
    }

    #[test]
    fn byte_offsets_map_to_source() {
        let args = split_args(br#"MGET "{a}\x41" b"#, 10).unwrap();
        let SourceMap::PerByte(offs) = &args[1].map else {
            panic!("quoted arg has a per-byte map")
        };
        assert_eq!(args[1].bytes, b"{a}A");
        assert_eq!(offs, &[16, 17, 18, 19, 24]);
        assert_eq!(args[2].map, SourceMap::Contiguous(25));
    }

    #[test]
    fn never_panics_on_odd_input() {
        for line in [
            &b"\"\\"[..],
            b"'\\",
            b"\"\\x",
            b"\"\\x4",
            b"\xff\"\xfe\"",
            b"\\",
        ] {
            let _ = split_args(line, 0);
        }
    }
}
