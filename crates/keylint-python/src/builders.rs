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

/// The value a memoising accessor returns: `if not hasattr(self, name):
/// setattr(self, name, value)` then `return getattr(self, name)` (the same `name`,
/// a parameter or a literal): `value`, which the first call stores and every call
/// returns. `None` for any other body.
pub(crate) fn memo_return<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
) -> Option<Vec<Node<'t>>> {
    use crate::index::text;
    let stmts: Vec<Node<'t>> = nav
        .named_children(info.body)
        .filter(|s| s.kind_name() != "comment")
        .filter(|s| {
            // A docstring.
            !(s.kind_name() == "expression_statement"
                && s.named_child(0).is_some_and(|e| e.kind_name() == "string"))
        })
        .collect();
    let [test, ret] = stmts.as_slice() else {
        return None;
    };
    let receiver = info.self_name()?;
    // `f(receiver, name, …)` with `f` a builtin: its other arguments.
    let builtin_call = |e: Node<'t>, f: &str, n: usize| -> Option<Vec<Node<'t>>> {
        if e.kind_name() != "call" {
            return None;
        }
        let callee = e.field(Field::Function)?;
        if callee.kind_name() != "identifier" || text(callee, src) != f {
            return None;
        }
        let args: Vec<Node<'t>> = nav
            .named_children(e.field(Field::Arguments)?)
            .filter(|a| a.kind_name() != "comment")
            .collect();
        if args.len() != n
            || args[0].kind_name() != "identifier"
            || text(args[0], src) != receiver
            || !matches!(args[1].kind_name(), "identifier" | "string")
        {
            return None;
        }
        Some(args[1..].to_vec())
    };
    if test.kind_name() != "if_statement"
        || nav
            .named_children(*test)
            .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
    {
        return None;
    }
    let cond = test.field(Field::Condition)?;
    if cond.kind_name() != "not_operator" {
        return None;
    }
    let has = builtin_call(nav.named_children(cond).next()?, "hasattr", 2)?;
    let body: Vec<Node<'t>> = nav
        .named_children(test.field(Field::Consequence)?)
        .filter(|x| x.kind_name() != "comment")
        .collect();
    let [set] = body.as_slice() else { return None };
    if set.kind_name() != "expression_statement" {
        return None;
    }
    let set = builtin_call(set.named_child(0)?, "setattr", 3)?;
    if ret.kind_name() != "return_statement" {
        return None;
    }
    let get = builtin_call(ret.named_child(0)?, "getattr", 2)?;
    let name = text(has[0], src);
    (text(set[0], src) == name && text(get[0], src) == name).then(|| vec![set[1]])
}
