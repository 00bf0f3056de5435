//! The redis-cli frontend as the engine sees it: `.redis` files, whole-line `#`
//! comments, keys printed as redis-cli arguments.

use keylint_core::frontend::{Comments, Frontend, Input, Lang, Lowered, Options, Piece};
use keylint_core::template::{each_byte, escape, escaped, hex_byte, KeyTemplate};
use std::fmt::Write as _;

/// The redis-cli frontend.
#[derive(Debug)]
pub struct RedisCli;

/// The redis-cli frontend, for the registry.
pub static FRONTEND: RedisCli = RedisCli;

/// The redis-cli language: the handle of [`FRONTEND`].
pub const LANG: Lang = Lang::new(&FRONTEND);

impl Frontend for RedisCli {
    fn name(&self) -> &'static str {
        "redis-cli"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["redis"]
    }

    fn comments(&self) -> Comments {
        // Only whole-line comments: a `#` inside a command line is an argument.
        Comments::WholeLine("#")
    }

    fn print_key(&self, pieces: &[Piece<'_>]) -> String {
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Bytes(b) => out.push_str(&escape(b, '"')),
                Piece::Hole(l) => {
                    let _ = write!(out, "<{l}>");
                }
            }
        }
        out
    }

    /// A symbolic hash input reads best as a concatenation: Lua's.
    fn print_hash_input(&self, pieces: &[Piece<'_>]) -> String {
        keylint_lua::LANG.print_key(pieces)
    }

    /// Only a literal key can be written as an argument.
    fn print_replacement(&self, template: &KeyTemplate) -> Option<String> {
        template.as_literal().map(|b| quote_redis_cli(&b))
    }

    /// Every command file talks to Redis.
    fn may_use_redis(&self, _: &[u8], _: &Options) -> bool {
        true
    }

    fn lower(&self, input: &Input<'_>) -> Lowered {
        crate::lower(input.source.as_bytes()).into()
    }
}

/// A redis-cli argument that splits back to exactly `bytes`: bare when that is
/// unambiguous, else double-quoted with escapes.
pub fn quote_redis_cli(bytes: &[u8]) -> String {
    let bare = !bytes.is_empty()
        && std::str::from_utf8(bytes).is_ok_and(|s| {
            s.chars()
                .all(|c| !c.is_whitespace() && !c.is_control() && !matches!(c, '"' | '\'' | '\\'))
        });
    if bare {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let body = escaped(
        bytes,
        |out, c| {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                    each_byte(out, c, hex_byte)
                }
                _ => return false,
            }
            true
        },
        hex_byte,
    );
    format!("\"{body}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_cli_arguments_are_quoted_only_when_needed() {
        assert_eq!(quote_redis_cli(b"user:1"), "user:1");
        assert_eq!(quote_redis_cli(b""), "\"\"");
        assert_eq!(
            quote_redis_cli(b"a b\"\\\n\xff"),
            "\"a b\\\"\\\\\\x0a\\xff\""
        );
    }

    #[test]
    fn keys_print_as_arguments_and_hash_inputs_as_concatenations() {
        let pieces = [Piece::Bytes(b"user:"), Piece::Hole("id")];
        assert_eq!(LANG.print_key(&pieces), "user:<id>");
        assert_eq!(LANG.print_hash_input(&pieces), "\"user:\" .. id");
    }
}
