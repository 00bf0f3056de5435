//! One line of a keyspace dump: a key as `redis-cli --scan` prints it, and optionally
//! `<TAB>bytes` after it.
//!
//! `redis-cli --scan` prints a key in one of two forms:
//!
//! - **raw** (the default when standard output is not a terminal, and with `--raw`):
//!   the key's bytes up to its first NUL, then `\n`. A key holding `\n` is split over
//!   two lines and a key holding NUL is cut: this form is not exact.
//! - **quoted** (on a terminal, and with `--no-raw`): the key in double quotes, with
//!   `\\`, `\"`, `\n`, `\r`, `\t`, `\a`, `\b` escaped and every other byte that is not
//!   printable ASCII written as `\xHH` (two lowercase hex digits). This form is exact,
//!   and it is also the form `redis-cli` reads back from standard input.

/// How the key of a line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyForm {
    /// Quoted when the line starts with `"` and is a well-formed quoted key, raw otherwise.
    Auto,
    /// Always the quoted form (`redis-cli --no-raw --scan`): a line that is not
    /// well-formed is rejected.
    Quoted,
    /// Always the raw form: the bytes of the line are the key.
    Raw,
}

/// A parsed line.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// An empty line: skipped.
    Empty,
    /// A key, with its memory in bytes when the line had a `<TAB>bytes` column.
    Key {
        /// The key's bytes.
        key: &'a [u8],
        /// The bytes column (`MEMORY USAGE`); `None` when absent or empty (the key was
        /// gone when `MEMORY USAGE` ran).
        bytes: Option<u64>,
    },
    /// A line that is not a key in the requested form.
    Malformed,
}

/// Parses one line (without its `\n`). `scratch` holds the decoded key of a quoted line.
pub fn parse_line<'a>(line: &'a [u8], form: KeyForm, scratch: &'a mut Vec<u8>) -> Line<'a> {
    if line.is_empty() {
        return Line::Empty;
    }
    let quoted = match form {
        KeyForm::Raw => false,
        KeyForm::Quoted => true,
        KeyForm::Auto => line[0] == b'"',
    };
    if quoted {
        let mut body = line;
        if let Some(stripped) = body.strip_suffix(b"\r") {
            body = stripped;
        }
        // Most keys need no decoding: the closing quote comes before any backslash,
        // and the key is borrowed from the line as it is.
        if body.first() == Some(&b'"') {
            if let Some(p) = memchr::memchr2(b'"', b'\\', &body[1..]) {
                if body[1 + p] == b'"' {
                    match bytes_column(&body[2 + p..]) {
                        Some(bytes) => {
                            return Line::Key {
                                key: &body[1..1 + p],
                                bytes,
                            }
                        }
                        None if form == KeyForm::Quoted => return Line::Malformed,
                        None => return raw_line(line),
                    }
                }
            }
        }
        scratch.clear();
        match unquote(body, scratch) {
            Some(rest) => match bytes_column(rest) {
                Some(bytes) => {
                    return Line::Key {
                        key: scratch,
                        bytes,
                    }
                }
                None if form == KeyForm::Quoted => return Line::Malformed,
                None => {}
            },
            None if form == KeyForm::Quoted => return Line::Malformed,
            None => {}
        }
    }
    raw_line(line)
}

/// A raw line: the key, then an optional trailing `\t<digits>` (or `\t` alone) column.
fn raw_line(line: &[u8]) -> Line<'_> {
    if let Some(tab) = memchr::memrchr(b'\t', line) {
        if let Some(bytes) = bytes_column(&line[tab..]) {
            return Line::Key {
                key: &line[..tab],
                bytes,
            };
        }
    }
    Line::Key {
        key: line,
        bytes: None,
    }
}

/// `""` (end of line) → no column; `"\t123"` → 123; `"\t"` → no value. `None`: not a
/// bytes column.
pub(crate) fn bytes_column(rest: &[u8]) -> Option<Option<u64>> {
    if rest.is_empty() {
        return Some(None);
    }
    let digits = rest.strip_prefix(b"\t")?;
    let digits = digits.strip_suffix(b"\r").unwrap_or(digits);
    if digits.is_empty() {
        return Some(None);
    }
    if digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(Some(
        digits
            .iter()
            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
    ))
}

/// Decodes a quoted key at the start of `line` into `out`; returns what follows the
/// closing quote, or `None` when the line does not start with a well-formed quoted key.
pub fn unquote<'a>(line: &'a [u8], out: &mut Vec<u8>) -> Option<&'a [u8]> {
    let mut i = 1;
    if line.first() != Some(&b'"') {
        return None;
    }
    while i < line.len() {
        // Copy the run up to the next quote or backslash in one go.
        let run = memchr::memchr2(b'"', b'\\', &line[i..]).unwrap_or(line.len() - i);
        out.extend_from_slice(&line[i..i + run]);
        i += run;
        if i >= line.len() {
            break;
        }
        match line[i] {
            b'"' => return Some(&line[i + 1..]),
            b'\\' => {
                let c = *line.get(i + 1)?;
                let b = match c {
                    b'\\' => b'\\',
                    b'"' => b'"',
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'a' => 7,
                    b'b' => 8,
                    b'x' => {
                        let h = hex(*line.get(i + 2)?)?;
                        let l = hex(*line.get(i + 3)?)?;
                        i += 2;
                        h << 4 | l
                    }
                    _ => return None,
                };
                out.push(b);
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Writes `key` the way `redis-cli --no-raw` prints it (the inverse of [`unquote`]).
pub fn quote(key: &[u8], out: &mut String) {
    out.push('"');
    for &b in key {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                use std::fmt::Write;
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(line: &[u8], form: KeyForm) -> (Vec<u8>, Option<u64>) {
        let mut s = Vec::new();
        match parse_line(line, form, &mut s) {
            Line::Key { key, bytes } => (key.to_vec(), bytes),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn quoted_forms_as_redis_cli_prints_them() {
        // Lines captured from `redis-cli --no-raw --scan` (7.0).
        assert_eq!(key(br#""a b'c""#, KeyForm::Auto).0, b"a b'c");
        assert_eq!(key(br#""x\ny\x00z""#, KeyForm::Auto).0, b"x\ny\0z");
        assert_eq!(key(br#""a\tb\"c\\d""#, KeyForm::Auto).0, b"a\tb\"c\\d");
        assert_eq!(
            key(br#""\xc3\xa9\xff\x01""#, KeyForm::Auto).0,
            b"\xc3\xa9\xff\x01"
        );
        assert_eq!(
            key(b"\"a\\tb\"\t72", KeyForm::Auto),
            (b"a\tb".to_vec(), Some(72))
        );
        assert_eq!(key(b"\"gone\"\t", KeyForm::Auto), (b"gone".to_vec(), None));
    }

    #[test]
    fn raw_lines_and_fallbacks() {
        assert_eq!(
            key(b"user:1\t64", KeyForm::Auto),
            (b"user:1".to_vec(), Some(64))
        );
        assert_eq!(key(b"a\tb", KeyForm::Auto), (b"a\tb".to_vec(), None));
        assert_eq!(key(b"\"half", KeyForm::Auto).0, b"\"half");
        assert_eq!(key(br#""q""#, KeyForm::Raw).0, br#""q""#);
        let mut s = Vec::new();
        assert_eq!(
            parse_line(b"plain", KeyForm::Quoted, &mut s),
            Line::Malformed
        );
        assert_eq!(parse_line(b"", KeyForm::Auto, &mut s), Line::Empty);
    }

    #[test]
    fn quote_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255u8).collect();
        let mut q = String::new();
        quote(&all, &mut q);
        let mut out = Vec::new();
        assert_eq!(unquote(q.as_bytes(), &mut out), Some(&b""[..]));
        assert_eq!(out, all);
    }
}
