//! The registry of frontends: every language the linter reads, one line each.
//!
//! Everything else asks a language through [`keylint_core::frontend::Frontend`]:
//! which files are its own, which can be skipped unparsed, how it writes comments
//! and keys, and its index and lower phases. Adding a language is a crate that
//! implements the trait plus one line here (see CONTRIBUTING.md).

use keylint_core::frontend::Lang;
use std::path::Path;

/// Every frontend. The position of each is part of the cache key of its files:
/// append, never reorder.
pub static FRONTENDS: &[Lang] = &[
    keylint_rediscli::LANG,
    keylint_lua::LANG,
    keylint_python::LANG,
    keylint_javascript::LANG,
];

/// The language of a path, by extension.
pub fn by_path(path: &Path) -> Option<Lang> {
    let ext = path.extension()?.to_str()?;
    FRONTENDS
        .iter()
        .copied()
        .find(|l| l.extensions().contains(&ext))
}

/// The language a `#!` first line names (`#!/usr/bin/env python3`, `#!lua
/// name=lib`): the interpreter is the first word after `#!`, or the word after
/// `env`, without its directory.
pub fn by_shebang(first_line: &str) -> Option<Lang> {
    let rest = first_line.strip_prefix("#!")?;
    let mut words = rest.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    FRONTENDS
        .iter()
        .copied()
        .find(|l| l.shebangs().contains(&program))
}

/// The position of `lang` in the registry (for cache keys).
pub fn id(lang: Lang) -> u8 {
    FRONTENDS
        .iter()
        .position(|l| *l == lang)
        .unwrap_or(usize::MAX) as u8
}

/// The extensions `check` lints, for messages: "`.redis`, `.lua` or `.py`".
pub fn known_extensions() -> String {
    let all: Vec<String> = FRONTENDS
        .iter()
        .flat_map(|l| l.extensions())
        .map(|e| format!("`.{e}`"))
        .collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The stack a worker thread needs for every frontend to lower on it.
pub fn stack_size() -> usize {
    FRONTENDS.iter().map(|l| l.stack_size()).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension_and_shebang() {
        assert_eq!(by_path(Path::new("a/b.py")), Some(keylint_python::LANG));
        assert_eq!(by_path(Path::new("x.lua")), Some(keylint_lua::LANG));
        assert_eq!(by_path(Path::new("x.redis")), Some(keylint_rediscli::LANG));
        assert_eq!(by_path(Path::new("x.tsx")), Some(keylint_javascript::LANG));
        assert_eq!(by_path(Path::new("x.txt")), None);
        assert_eq!(by_path(Path::new("py")), None);
        assert_eq!(
            by_shebang("#!/usr/bin/env python3"),
            Some(keylint_python::LANG)
        );
        assert_eq!(by_shebang("#!/usr/bin/python"), Some(keylint_python::LANG));
        assert_eq!(by_shebang("#!lua name=mylib"), Some(keylint_lua::LANG));
        assert_eq!(by_shebang("#!/bin/sh"), None);
        assert_eq!(by_shebang("import redis"), None);
    }

    /// Each frontend prints a key in its own language: a template with a hole in it, a
    /// key whose bytes need escaping, and the empty key.
    #[test]
    fn keys_print_in_the_language_of_the_file() {
        use keylint_core::frontend::Piece;
        let template = [
            Piece::Bytes(b"{user:"),
            Piece::Hole("uid"),
            Piece::Bytes(b"}:${cart}"),
        ];
        let quoted = [Piece::Bytes(b"a\"b")];
        let table: [(Lang, [&str; 3]); 4] = [
            (
                keylint_rediscli::LANG,
                ["{user:<uid>}:${cart}", "a\\\"b", ""],
            ),
            (
                keylint_lua::LANG,
                ["\"{user:\" .. uid .. \"}:${cart}\"", "\"a\\\"b\"", "\"\""],
            ),
            (
                keylint_python::LANG,
                ["f\"{{user:{uid}}}:${{cart}}\"", "\"a\\\"b\"", "\"\""],
            ),
            (
                keylint_javascript::LANG,
                ["`{user:${uid}}:\\${cart}`", "\"a\\\"b\"", "\"\""],
            ),
        ];
        for (lang, [with_hole, escaped, empty]) in table {
            let got = [
                lang.print_key(&template),
                lang.print_key(&quoted),
                lang.print_key(&[]),
            ];
            assert_eq!(got, [with_hole, escaped, empty], "{}", lang.name());
        }
    }

    /// What the engine relies on from every frontend: a model in its own language
    /// for any text (empty, broken, binary-looking), and keys printable from any
    /// pieces, without a panic.
    #[test]
    fn every_frontend_keeps_the_contract() {
        use keylint_core::frontend::{Input, Options, Piece};
        let options = Options::default();
        for &lang in FRONTENDS {
            assert!(!lang.extensions().is_empty(), "{}", lang.name());
            for source in [
                "",
                "redis\n",
                "redis ((( [[ \"\u{0}\n",
                "\u{feff}redis.call(",
            ] {
                let lowered = lang.lower(&Input {
                    source,
                    file_name: None,
                    options: &options,
                    loader: None,
                    index: None,
                    module: None,
                    big_stack: false,
                    reached: false,
                });
                assert_eq!(lowered.model.lang, lang, "{source:?}");
                let _ = lang.may_use_redis(source.as_bytes(), &options);
                let _ = keylint_core::suppress::parse(source, lang);
            }
            for pieces in [
                &[][..],
                &[Piece::Bytes(b"\xff{\"\\\n}")],
                &[Piece::Hole("x"), Piece::Bytes(b"")],
            ] {
                assert!(!lang.print_key(pieces).is_empty() || pieces.is_empty());
                let _ = lang.print_hash_input(pieces);
            }
        }
    }

    #[test]
    fn names_extensions_and_ids_are_unique() {
        let (mut names, mut extensions) = (Vec::new(), Vec::new());
        for l in FRONTENDS {
            assert!(!names.contains(&l.name()), "{}", l.name());
            names.push(l.name());
            for e in l.extensions() {
                assert!(!extensions.contains(e), "{e}");
                extensions.push(e);
            }
        }
        assert_eq!(
            known_extensions(),
            "`.redis`, `.lua`, `.py`, `.js`, `.mjs`, `.cjs`, `.jsx`, `.ts`, `.mts`, `.cts` or `.tsx`"
        );
        // Cache keys of the first three stay what they were.
        assert_eq!(id(keylint_rediscli::LANG), 0);
        assert_eq!(id(keylint_lua::LANG), 1);
        assert_eq!(id(keylint_python::LANG), 2);
        assert_eq!(id(keylint_javascript::LANG), 3);
    }
}
