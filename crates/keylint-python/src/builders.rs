//! Key builders with a return per branch: `if self.is_tasks: return A + q` / `else:
//! return B + q` (also `elif` arms), read as a builder of several shapes.

use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// The returned expressions of an `if` statement each of whose arms (an `else` among
/// them) is one `return x` alone; `None` for any other shape.
pub(crate) fn arm_returns<'t>(
    nav: &crate::syntax::Nav<'t>,
    stmt: Node<'t>,
) -> Option<Vec<Node<'t>>> {
    let one_return = |block: Node<'t>| -> Option<Node<'t>> {
        let body: Vec<Node<'t>> = nav
            .named_children(block)
            .filter(|x| x.kind_name() != "comment")
            .collect();
        match body.as_slice() {
            [r] if r.kind_name() == "return_statement" => r.named_child(0),
            _ => None,
        }
    };
    let mut out = vec![one_return(stmt.field(Field::Consequence)?)?];
    let mut has_else = false;
    for c in nav.named_children(stmt) {
        match c.kind_name() {
            "elif_clause" => out.push(one_return(c.field(Field::Consequence)?)?),
            "else_clause" => {
                out.push(one_return(c.field(Field::Body)?)?);
                has_else = true;
            }
            _ => {}
        }
    }
    has_else.then_some(out)
}
