//! A module global made once by the function that returns it, the lazy client of a
//! module: `global POOL` / `if not POOL: POOL = redis.Redis(…)` / `return POOL` (also
//! `if POOL is None:`). Every call returns what the first one stored, so the call is
//! read as that value, like the memoising accessor of an attribute
//! (`builders::memo_return`). Any other statement in the body, an `else` arm, or a
//! test that reads anything but the global leaves the function unread.

use crate::index::text;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// The value a lazy module-global accessor stores and returns, as a one-element
/// list of returned expressions; `None` for any other body.
pub(crate) fn memo_global_return<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
) -> Option<Vec<Node<'t>>> {
    if info.is_lambda || !info.params.is_empty() {
        return None;
    }
    let stmts = nav.statements(info.body);
    let [decl, test, ret] = stmts.as_slice() else {
        return None;
    };
    if decl.kind_name() != "global_statement"
        || test.kind_name() != "if_statement"
        || ret.kind_name() != "return_statement"
    {
        return None;
    }
    let returned = ret.named_child(0)?;
    if returned.kind_name() != "identifier" {
        return None;
    }
    let name = text(returned, src);
    if !nav
        .named_children(*decl)
        .any(|c| c.kind_name() == "identifier" && text(c, src) == name)
    {
        return None;
    }
    if nav
        .named_children(*test)
        .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
    {
        return None;
    }
    // `not POOL`, `POOL is None`, `POOL == None`.
    let cond = test.field(Field::Condition)?;
    let cond_text: String = text(cond, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if ![
        format!("not {name}"),
        format!("{name} is None"),
        format!("{name} == None"),
    ]
    .contains(&cond_text)
    {
        return None;
    }
    let body = nav.statements(test.field(Field::Consequence)?);
    let [set] = body.as_slice() else {
        return None;
    };
    let asg = set.named_child(0)?;
    if set.kind_name() != "expression_statement" || asg.kind_name() != "assignment" {
        return None;
    }
    let left = asg.field(Field::Left)?;
    if left.kind_name() != "identifier" || text(left, src) != name {
        return None;
    }
    Some(vec![asg.field(Field::Right)?])
}
