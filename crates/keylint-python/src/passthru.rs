//! Helpers that hand back their list argument item by item.
//!
//! Key builders often normalise their parts first (`ensure_str(parts)`: a new list
//! that gets each part as it is, or decoded when it is bytes). Such a helper gives
//! the same texts in the same order, so a key built from its result is built from
//! the parts themselves:
//!
//! ```python
//! def ensure_str(vals):
//!     out = []
//!     for v in vals:
//!         if isinstance(v, bytes):
//!             out.append(v.decode())
//!         else:
//!             out.append(v)
//!     return out
//! ```
//!
//! Only that shape is read: one parameter, an empty list, one loop over the
//! parameter whose every path appends exactly once the loop's item (as it is,
//! `item.decode()` or `str(item)`), and the list returned. A path that skips an
//! item or appends anything else, a second statement in the loop, or any other use
//! of the list leaves the helper unknown.

use crate::index::{text, FuncInfo};
use crate::syntax::{Field, Nav, NodeExt};
use tree_sitter::Node;

/// Whether `info` is a helper that returns a copy of its one parameter's items, each
/// unchanged as text.
pub(crate) fn copies_items<'t>(nav: &Nav<'t>, src: &str, info: &FuncInfo<'t>) -> bool {
    if info.is_lambda || info.class.is_some() {
        return false;
    }
    let [param] = info.params.as_slice() else {
        return false;
    };
    if param.star || param.default.is_some() {
        return false;
    }
    let stmts: Vec<Node<'t>> = nav
        .named_children(info.body)
        .filter(|s| s.kind_name() != "comment")
        .collect();
    // A docstring first.
    let stmts: &[Node<'t>] = match stmts.split_first() {
        Some((first, rest)) if is_docstring(*first) => rest,
        _ => &stmts,
    };
    let [init, each, ret] = stmts else {
        return false;
    };
    // `out = []`
    let Some(out) = empty_list_target(*init, src) else {
        return false;
    };
    if out == param.name {
        return false;
    }
    // `return out`
    if ret.kind_name() != "return_statement"
        || !ret
            .named_child(0)
            .is_some_and(|r| r.kind_name() == "identifier" && text(r, src) == out)
    {
        return false;
    }
    // `for v in param:` with no `else`.
    if each.kind_name() != "for_statement"
        || nav
            .named_children(*each)
            .any(|c| c.kind_name() == "else_clause")
    {
        return false;
    }
    let (Some(var), Some(over), Some(body)) = (
        each.field(Field::Left),
        each.field(Field::Right),
        each.field(Field::Body),
    ) else {
        return false;
    };
    if var.kind_name() != "identifier"
        || over.kind_name() != "identifier"
        || text(over, src) != param.name
    {
        return false;
    }
    let var = text(var, src);
    if var == out || var == param.name {
        return false;
    }
    appends_once(nav, src, body, out, var, 0)
}

fn is_docstring(s: Node<'_>) -> bool {
    s.kind_name() == "expression_statement"
        && s.named_child(0).is_some_and(|e| e.kind_name() == "string")
}

/// `name = []` as a statement: the name.
fn empty_list_target<'a>(s: Node<'_>, src: &'a str) -> Option<&'a str> {
    if s.kind_name() != "expression_statement" {
        return None;
    }
    let a = s.named_child(0)?;
    if a.kind_name() != "assignment" || a.field(Field::Type).is_some() {
        return None;
    }
    let (l, r) = (a.field(Field::Left)?, a.field(Field::Right)?);
    (l.kind_name() == "identifier" && r.kind_name() == "list" && r.named_child_count() == 0)
        .then(|| text(l, src))
}

/// Whether every path through `block` appends the item `var` (unchanged as text) to
/// `out` exactly once and does nothing else.
fn appends_once<'t>(
    nav: &Nav<'t>,
    src: &str,
    block: Node<'t>,
    out: &str,
    var: &str,
    depth: usize,
) -> bool {
    if depth > 4 {
        return false;
    }
    let stmts: Vec<Node<'t>> = nav
        .named_children(block)
        .filter(|s| s.kind_name() != "comment")
        .collect();
    let [s] = stmts.as_slice() else {
        return false;
    };
    match s.kind_name() {
        "expression_statement" => s
            .named_child(0)
            .is_some_and(|c| is_append_of(c, src, out, var)),
        "if_statement" => {
            // Its condition only reads; every arm appends once, and an `else` exists.
            let Some(cons) = s.field(Field::Consequence) else {
                return false;
            };
            if !appends_once(nav, src, cons, out, var, depth + 1) {
                return false;
            }
            let mut has_else = false;
            for c in nav.named_children(*s) {
                match c.kind_name() {
                    "elif_clause" => match c.field(Field::Consequence) {
                        Some(b) if appends_once(nav, src, b, out, var, depth + 1) => {}
                        _ => return false,
                    },
                    "else_clause" => match c.field(Field::Body) {
                        Some(b) if appends_once(nav, src, b, out, var, depth + 1) => {
                            has_else = true;
                        }
                        _ => return false,
                    },
                    _ => {}
                }
            }
            has_else
                && s.field(Field::Condition)
                    .is_some_and(|c| !text(c, src).contains(out) && !has_walrus(nav, c))
        }
        _ => false,
    }
}

fn has_walrus<'t>(nav: &Nav<'t>, n: Node<'t>) -> bool {
    n.kind_name() == "named_expression" || nav.named_children(n).any(|c| has_walrus(nav, c))
}

/// `out.append(var)`, `out.append(var.decode())`, `out.append(var.decode("utf-8"))`,
/// `out.append(str(var))`.
fn is_append_of(c: Node<'_>, src: &str, out: &str, var: &str) -> bool {
    if c.kind_name() != "call" {
        return false;
    }
    let Some(f) = c.field(Field::Function) else {
        return false;
    };
    let receiver_is_out = f
        .field(Field::Object)
        .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == out);
    let appends = f
        .field(Field::Attribute)
        .is_some_and(|a| text(a, src) == "append");
    if f.kind_name() != "attribute" || !receiver_is_out || !appends {
        return false;
    }
    let Some(args) = c.field(Field::Arguments) else {
        return false;
    };
    let items: Vec<Node<'_>> = {
        let mut cur = args.walk();
        args.named_children(&mut cur)
            .filter(|x| x.kind_name() != "comment")
            .collect()
    };
    let [arg] = items.as_slice() else {
        return false;
    };
    is_item_as_text(*arg, src, var)
}

/// `var`, `var.decode()` (UTF-8), `str(var)`.
pub(crate) fn is_item_as_text(a: Node<'_>, src: &str, var: &str) -> bool {
    match a.kind_name() {
        "identifier" => text(a, src) == var,
        "call" => {
            let (Some(f), Some(args)) = (a.field(Field::Function), a.field(Field::Arguments))
            else {
                return false;
            };
            let t: String = text(args, src)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            match f.kind_name() {
                "attribute" => {
                    f.field(Field::Object)
                        .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == var)
                        && f.field(Field::Attribute)
                            .is_some_and(|m| matches!(text(m, src), "decode" | "encode"))
                        && matches!(
                            t.to_ascii_lowercase().as_str(),
                            "()" | "(\"utf-8\")" | "('utf-8')" | "(\"utf8\")" | "('utf8')"
                        )
                }
                "identifier" => text(f, src) == "str" && t == format!("({var})"),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether `info` hands back its first parameter as text, converted at most:
/// `def to_unicode(obj, encoding="utf-8"): if isinstance(obj, bytes): obj =
/// obj.decode(encoding); return obj`. Every `return` gives the parameter's name,
/// and every statement that binds it again converts it and nothing more (`p =
/// unicode(p, enc)`, `p = p.decode("utf-8")`: [`converts`]). A module function (or a
/// static method) whose other parameters all have defaults, with no `yield`.
pub(crate) fn returns_param_as_text<'t>(nav: &Nav<'t>, src: &str, info: &FuncInfo<'t>) -> bool {
    if info.is_lambda || info.parent.is_some() || !info.plainly_called() {
        return false;
    }
    if info.class.is_some() && !info.is_staticmethod() {
        return false;
    }
    let Some((first, rest)) = info.params.split_first() else {
        return false;
    };
    if first.star || rest.iter().any(|p| !p.star && p.default.is_none()) {
        return false;
    }
    let p = first.name.as_str();
    let mut returns = 0usize;
    let mut stack = vec![info.body];
    while let Some(n) = stack.pop() {
        match n.kind_name() {
            "function_definition" | "class_definition" | "lambda" | "decorated_definition" => {
                continue
            }
            "yield" => return false,
            "return_statement" => {
                let value = nav.named_children(n).find(|c| c.kind_name() != "comment");
                if !value.is_some_and(|v| v.kind_name() == "identifier" && text(v, src) == p) {
                    return false;
                }
                returns += 1;
                continue;
            }
            _ => {}
        }
        stack.extend(nav.named_children(n));
    }
    if returns == 0 {
        return false;
    }
    let Some(defs) = info.defs.get(p) else {
        return false;
    };
    defs.iter().all(|d| match d.kind {
        crate::index::DefKind::Param(_) => true,
        crate::index::DefKind::Expr(e) => converts(e, p, src),
        _ => false,
    })
}

/// A call that gives `p`'s text again, as text or bytes: `p.decode(…)`,
/// `p.encode(…)`, `str(p)`, `unicode(p, …)`, `bytes(p, …)`, `codecs.decode(p, …)`,
/// `codecs.encode(p, …)`, `six.text_type(p, …)`, `six.ensure_str(p, …)`,
/// `six.ensure_text(p, …)`. Any other call (a builder of the project, `p.strip()`)
/// may change the text.
fn converts(e: Node<'_>, p: &str, src: &str) -> bool {
    if e.kind_name() != "call" {
        return false;
    }
    let Some(func) = e.field(Field::Function) else {
        return false;
    };
    let is_p = |n: Node<'_>| n.kind_name() == "identifier" && text(n, src) == p;
    if func.kind_name() == "attribute" {
        if let (Some(o), Some(m)) = (func.field(Field::Object), func.field(Field::Attribute)) {
            if is_p(o) {
                return matches!(text(m, src), "decode" | "encode");
            }
        }
    }
    let known = matches!(
        text(func, src),
        "str"
            | "unicode"
            | "bytes"
            | "codecs.decode"
            | "codecs.encode"
            | "six.text_type"
            | "six.ensure_str"
            | "six.ensure_text"
    );
    if !known {
        return false;
    }
    let Some(args) = e.field(Field::Arguments) else {
        return false;
    };
    let mut cursor = args.walk();
    let first = args
        .named_children(&mut cursor)
        .find(|c| c.kind_name() != "comment");
    first.is_some_and(is_p)
}
