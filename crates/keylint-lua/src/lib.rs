//! Lua frontend of redis-keylint (stub: filled in by the Lua work).

use keylint_core::{FileModel, Lang};

/// Lowers a Lua script to the neutral model.
pub fn lower(source: &str) -> FileModel {
    let _ = source;
    FileModel::new(Lang::Lua)
}

#[cfg(test)]
mod tests {
    #[test]
    fn grammar_loads() {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_lua::LANGUAGE.into()).unwrap();
        let t = p.parse("return redis.call('GET', KEYS[1])", None).unwrap();
        assert!(!t.root_node().has_error());
    }
}
