//! Python string literals, decoded byte for byte.
//!
//! Keys are bytes, and a hash tag is found by byte position, so a literal must decode
//! exactly as Python decodes it: escapes (`\x7b` is a `{`), raw strings, bytes
//! literals (`b"\xff"` is one byte, `"\xff"` is two in UTF-8), and in f-strings `{{`
//! and `}}` are literal braces while `{x}` is a value. Every decoded byte remembers
//! the source offset it came from.

use crate::syntax::{Field, Nav, NodeExt};
use tree_sitter::Node;

/// One piece of a string literal.
#[derive(Debug, Clone)]
pub(crate) enum Piece<'t> {
    /// Decoded bytes and the source offset of each.
    Bytes(Vec<u8>, Vec<usize>),
    /// An f-string replacement field.
    Field {
        /// The expression inside the braces.
        expr: Node<'t>,
        /// `!r`, `!s`, `!a`, if any.
        conversion: Option<String>,
        /// The text after `:`, if any (it may itself contain fields).
        spec: Option<String>,
    },
}

/// A decoded string literal.
#[derive(Debug, Clone)]
pub(crate) struct StrLit<'t> {
    /// Its pieces, in order.
    pub pieces: Vec<Piece<'t>>,
}

/// Decodes a `string` node. `None` when the literal uses something this decoder does
/// not model (`\N{…}`, a t-string), in which case the caller treats it as unknown.
pub(crate) fn decode<'t>(nav: &Nav<'t>, node: Node<'t>, src: &str) -> Option<StrLit<'t>> {
    let mut pieces = Vec::new();
    let mut children = nav.children(node);
    let first = children.next();
    let last = children.last().or(first);
    let start = first.filter(|c| c.kind_name() == "string_start");
    // The prefix letters, in lower case.
    let prefix = start.map_or(&b""[..], |s| {
        let text = src[s.byte_range()].as_bytes();
        let n = text.iter().take_while(|c| c.is_ascii_alphabetic()).count();
        &text[..n]
    });
    let has = |c: u8| prefix.iter().any(|p| p.to_ascii_lowercase() == c);
    let raw = has(b'r');
    let bytes = has(b'b');
    let fstring = has(b'f');
    if has(b't') {
        return None;
    }
    // Content lies between string_start and string_end; string_content nodes cover
    // the literal text, interpolation nodes the fields. Text between children that
    // no node covers (tree-sitter leaves some characters bare) is literal too.
    let content_start = start.map_or(node.start_byte(), |c| c.end_byte());
    let content_end = last
        .filter(|c| c.kind_name() == "string_end")
        .map_or(node.end_byte(), |c| c.start_byte());
    let mut pos = content_start;
    for child in nav.children(node) {
        match child.kind_name() {
            "interpolation" => {
                if child.start_byte() > pos {
                    decode_text(
                        src,
                        pos,
                        child.start_byte(),
                        raw,
                        bytes,
                        fstring,
                        &mut pieces,
                    )?;
                }
                pieces.push(field(nav, child, src)?);
                pos = child.end_byte();
            }
            "string_content" | "escape_sequence" | "escape_interpolation" => {}
            _ => {}
        }
    }
    if content_end > pos {
        decode_text(src, pos, content_end, raw, bytes, fstring, &mut pieces)?;
    }
    Some(StrLit { pieces })
}

fn field<'t>(nav: &Nav<'t>, node: Node<'t>, src: &str) -> Option<Piece<'t>> {
    let expr = node.field(Field::Expression)?;
    let conversion = node
        .field(Field::TypeConversion)
        .map(|c| src[c.byte_range()].to_string());
    let spec = node.field(Field::FormatSpecifier).map(|c| {
        let t = &src[c.byte_range()];
        t.strip_prefix(':').unwrap_or(t).to_string()
    });
    // `f"{x=}"` prints the expression text too: not modelled.
    if nav.children(node).any(|ch| ch.kind_name() == "=") {
        return None;
    }
    Some(Piece::Field {
        expr,
        conversion,
        spec,
    })
}

fn push(pieces: &mut Vec<Piece<'_>>, b: &[u8], off: usize) {
    if let Some(Piece::Bytes(v, o)) = pieces.last_mut() {
        v.extend_from_slice(b);
        o.extend(std::iter::repeat_n(off, b.len()));
    } else {
        pieces.push(Piece::Bytes(b.to_vec(), vec![off; b.len()]));
    }
}

/// Pushes bytes that come from consecutive source offsets, from `off` on.
fn push_run(pieces: &mut Vec<Piece<'_>>, b: &[u8], off: usize) {
    if let Some(Piece::Bytes(v, o)) = pieces.last_mut() {
        v.extend_from_slice(b);
        o.extend(off..off + b.len());
    } else {
        pieces.push(Piece::Bytes(b.to_vec(), (off..off + b.len()).collect()));
    }
}

fn push_char(pieces: &mut Vec<Piece<'_>>, c: char, off: usize) {
    let mut buf = [0u8; 4];
    push(pieces, c.encode_utf8(&mut buf).as_bytes(), off);
}

/// The byte that a backslash followed by `e` stands for (`n`: a newline), when that
/// is one character.
fn simple_escape(e: u8) -> Option<u8> {
    match e {
        b'\\' => Some(b'\\'),
        b'\'' => Some(b'\''),
        b'"' => Some(b'"'),
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        _ => None,
    }
}

/// Decodes literal text `src[from..to]`.
fn decode_text(
    src: &str,
    from: usize,
    to: usize,
    raw: bool,
    bytes: bool,
    fstring: bool,
    pieces: &mut Vec<Piece<'_>>,
) -> Option<()> {
    let text = &src[from..to];
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let off = from + i;
        let c = b[i];
        if fstring && (c == b'{' || c == b'}') {
            // `{{` / `}}`: one literal brace, at the first of the two.
            if b.get(i + 1) == Some(&c) {
                push(pieces, &[c], off);
                i += 2;
                continue;
            }
            return None;
        }
        if c != b'\\' || raw {
            // Plain text up to the next escape (or brace): each byte at its own
            // offset. What stops the run is ASCII, so it never splits a character.
            let run = b[i..]
                .iter()
                .position(|&x| (x == b'\\' && !raw) || (fstring && (x == b'{' || x == b'}')))
                .map_or(b.len(), |p| i + p)
                .max(i + 1);
            push_run(pieces, &b[i..run], off);
            i = run;
            continue;
        }
        // An escape sequence.
        let Some(&e) = b.get(i + 1) else {
            push(pieces, b"\\", off);
            i += 1;
            continue;
        };
        if let Some(v) = simple_escape(e) {
            push(pieces, &[v], off);
            i += 2;
            continue;
        }
        match e {
            b'\n' => {
                i += 2;
            }
            b'\r' => {
                i += if b.get(i + 2) == Some(&b'\n') { 3 } else { 2 };
            }
            b'0'..=b'7' => {
                let mut n = 0u32;
                let mut k = i + 1;
                while k < b.len() && k < i + 4 && (b'0'..=b'7').contains(&b[k]) {
                    n = n * 8 + u32::from(b[k] - b'0');
                    k += 1;
                }
                if bytes {
                    push(pieces, &[(n & 0xff) as u8], off);
                } else {
                    push_char(pieces, char::from_u32(n)?, off);
                }
                i = k;
            }
            b'x' => {
                let h = text.get(i + 2..i + 4)?;
                let n = u32::from_str_radix(h, 16).ok()?;
                if bytes {
                    push(pieces, &[n as u8], off);
                } else {
                    push_char(pieces, char::from_u32(n)?, off);
                }
                i += 4;
            }
            b'u' | b'U' if !bytes => {
                let len = if e == b'u' { 4 } else { 8 };
                let h = text.get(i + 2..i + 2 + len)?;
                let n = u32::from_str_radix(h, 16).ok()?;
                push_char(pieces, char::from_u32(n)?, off);
                i += 2 + len;
            }
            b'N' if !bytes => return None,
            _ => {
                // Unknown escapes keep their backslash.
                push(pieces, b"\\", off);
                i += 1;
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::tests::parse;

    fn first_string(n: Node<'_>) -> Option<Node<'_>> {
        if n.kind_name() == "string" {
            return Some(n);
        }
        let mut c = n.walk();
        let children: Vec<_> = n.children(&mut c).collect();
        children.into_iter().find_map(first_string)
    }

    fn lit(src: &str) -> (Vec<u8>, Vec<usize>) {
        let t = parse(src);
        let s = first_string(t.root_node()).unwrap();
        let nav = Nav::build(t.root_node());
        let d = decode(&nav, s, src).unwrap();
        let mut bytes = Vec::new();
        let mut offs = Vec::new();
        for p in d.pieces {
            match p {
                Piece::Bytes(b, o) => {
                    bytes.extend(b);
                    offs.extend(o);
                }
                Piece::Field { .. } => bytes.push(b'?'),
            }
        }
        (bytes, offs)
    }

    #[test]
    fn escapes() {
        assert_eq!(lit(r#"x = "a\x7bb\}""#).0, b"a{b\\}");
        assert_eq!(lit(r#"x = "\xff""#).0, "\u{ff}".as_bytes());
        assert_eq!(lit(r#"x = b"\xff\101""#).0, b"\xffA");
        assert_eq!(lit(r#"x = r"\x7b""#).0, b"\\x7b");
        assert_eq!(lit(r#"x = "\u00e9\t""#).0, "é\t".as_bytes());
        assert_eq!(lit("x = 'a\\\nb'").0, b"ab");
        assert_eq!(lit("x = '''a\nb'''").0, b"a\nb");
    }

    #[test]
    fn fstrings() {
        let (b, o) = lit(r#"x = f"{{user:{uid}}}:cart""#);
        assert_eq!(b, b"{user:?}:cart");
        assert_eq!(o[0], 6); // the first `{` of `{{`
        assert_eq!(lit(r#"x = f"{a!r:>5}-{{}}""#).0, b"?-{}");
        assert_eq!(lit(r#"x = rf"\{{x}}""#).0, b"\\{x}");
    }

    #[test]
    fn unsupported() {
        let src = r#"x = "\N{BULLET}""#;
        let t = parse(src);
        let nav = Nav::build(t.root_node());
        assert!(decode(&nav, first_string(t.root_node()).unwrap(), src).is_none());
    }

    #[test]
    fn non_ascii_offsets() {
        let (b, o) = lit("x = 'é{'");
        assert_eq!(b, "é{".as_bytes());
        assert_eq!(o, [5, 6, 7]);
    }
}
