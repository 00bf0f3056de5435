//! Values the code declares to be strings.
//!
//! `self.prefix + name` joins two values the analysis cannot see, which in Python may
//! as well be numbers or lists. When the code says one of them is a string (a
//! parameter annotated `str`: `def of(self, name: str)`), or that the sum is (the
//! function is annotated `-> str` and returns it), the sum is a string: the two values
//! one after the other, each a hole of the key.

use crate::eval::Ctx;
use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Whether an annotation's text declares a string.
fn is_str_annotation(t: &str) -> bool {
    matches!(
        t.trim().trim_matches(|c| c == '"' || c == '\''),
        "str" | "Optional[str]" | "str | None" | "typing.Optional[str]"
    )
}

impl<'t> crate::lower::Analyzer<'t> {
    /// Whether the code declares `n` a string: a parameter of the function around it
    /// annotated `str` (never reassigned), or `n` is the value the function returns
    /// under a `-> str` annotation.
    pub(crate) fn declared_str(&self, n: Node<'t>, ctx: &Ctx<'t>) -> bool {
        let Some(f) = ctx.func else {
            return false;
        };
        let info = &self.ix.funcs[f];
        if n.kind_name() == "identifier" {
            if let Some(defs) = info.defs.get(text(n, self.src())) {
                if let [d] = defs.as_slice() {
                    if matches!(d.kind, DefKind::Param(_))
                        && d.annotation
                            .is_some_and(|a| is_str_annotation(text(a, self.src())))
                    {
                        return true;
                    }
                }
            }
        }
        // `return a + b` in a function annotated `-> str`.
        let returned = self
            .ix
            .nav
            .parent(n)
            .is_some_and(|p| p.kind_name() == "return_statement");
        returned
            && info
                .node
                .field(Field::ReturnType)
                .is_some_and(|r| is_str_annotation(text(r, self.src())))
    }
}

#[cfg(test)]
mod tests {
    use super::is_str_annotation;

    #[test]
    fn string_annotations() {
        assert!(is_str_annotation("str"));
        assert!(is_str_annotation("'str'"));
        assert!(is_str_annotation("Optional[str]"));
        assert!(!is_str_annotation("int"));
        assert!(!is_str_annotation("list[str]"));
    }
}
