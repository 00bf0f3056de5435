//! The Lua frontend as the engine sees it: `.lua` files, `--` comments, keys printed
//! as Lua concatenations, and the index of the scripts of a directory.

use crate::{IncludeLoader, IndexCache};
use keylint_core::frontend::{
    Comments, FileLoader, Frontend, Index, Input, Lang, Lowered, ModuleLoader, Options, Piece,
};
use keylint_core::template::{backslash_escape, dec_byte, each_byte, escaped};
use std::sync::Arc;

/// The Lua frontend.
#[derive(Debug)]
pub struct Lua;

/// The Lua frontend, for the registry.
pub static FRONTEND: Lua = Lua;

/// The Lua language: the handle of [`FRONTEND`].
pub const LANG: Lang = Lang::new(&FRONTEND);

impl Index for IndexCache {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Frontend for Lua {
    fn name(&self) -> &'static str {
        "lua"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["lua"]
    }

    fn shebangs(&self) -> &'static [&'static str] {
        &["lua"]
    }

    fn comments(&self) -> Comments {
        Comments::Trailing("--")
    }

    fn print_key(&self, pieces: &[Piece<'_>]) -> String {
        if pieces.is_empty() {
            return "\"\"".into();
        }
        let shown: Vec<String> = pieces
            .iter()
            .map(|p| match p {
                Piece::Bytes(b) => format!("\"{}\"", escape_lua(b)),
                Piece::Hole(l) => l.to_string(),
            })
            .collect();
        shown.join(" .. ")
    }

    fn reads_files(&self) -> bool {
        true
    }

    fn index(&self, _: Arc<dyn ModuleLoader>, _: &Options) -> Option<Arc<dyn Index>> {
        Some(Arc::new(IndexCache::default()))
    }

    fn lower(&self, input: &Input<'_>) -> Lowered {
        // `--- @include "name"` lines read files beside the script, through the
        // binary's loader.
        let includes = input.loader.map(|files| Includes {
            files,
            cache: input
                .index
                .and_then(|i| i.as_any().downcast_ref::<IndexCache>()),
        });
        crate::lower_with(
            input.source,
            includes.as_ref().map(|l| l as &dyn IncludeLoader),
        )
        .into()
    }
}

/// The include loader over the binary's file loader: include paths are relative to
/// the script's directory.
struct Includes<'a> {
    files: &'a dyn FileLoader,
    cache: Option<&'a IndexCache>,
}

impl IncludeLoader for Includes<'_> {
    fn load(&self, path: &str) -> Option<String> {
        self.files.load(path, true)
    }

    fn siblings(&self) -> Vec<String> {
        let mut names = self.files.list("");
        names.retain(|n| n.ends_with(".lua"));
        names
    }

    fn index_cache(&self) -> Option<&IndexCache> {
        self.cache
    }
}

/// A Lua string body for `bytes`: Lua 5.1 (the one Redis embeds) has no `\\x`
/// escape, so other bytes are written as decimal `\\ddd`.
pub fn escape_lua(bytes: &[u8]) -> String {
    escaped(
        bytes,
        |out, c| {
            match c {
                _ if backslash_escape(out, c) => {}
                '"' => out.push_str("\\\""),
                c if c.is_control() => each_byte(out, c, dec_byte),
                _ => return false,
            }
            true
        },
        dec_byte,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lua_strings_use_decimal_escapes() {
        assert_eq!(escape_lua(b"a\"b\xff\x00\\"), "a\\\"b\\255\\000\\\\");
        assert_eq!(escape_lua("\n\t\r\u{85}".as_bytes()), "\\n\\t\\r\\194\\133");
    }
}
