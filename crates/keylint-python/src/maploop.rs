//! A key builder that maps its `*parts` one by one into a list before joining it:
//!
//! ```python
//! def make_key(*criteria):
//!     parts = []
//!     for criterion in criteria:
//!         if criterion is None:
//!             continue
//!         criterion = str(criterion)
//!         criterion = criterion.replace(":", "#")
//!         parts.append(criterion)
//!     return ":".join(parts)
//! ```
//!
//! The loop is read only in that shape: the list is made empty by the statement
//! just before the loop, the loop walks a parameter of the builder, its body is an
//! optional `if x is None: continue` first, then assignments that rebind the loop
//! variable, then one `parts.append(e)`, and the loop has no `else`. The list is
//! then each element of the parameter passed through those steps, in order, with
//! the elements known to be `None` left out. An element that may be `None` but is
//! not known to be one stays in, as the unknown text it is anyway.

use crate::index::{text, FuncInfo};
use crate::syntax::{Field, Nav, NodeExt};
use tree_sitter::Node;

/// A map loop of a builder's body ([`map_loop`]).
pub(crate) struct MapLoop<'t> {
    /// The list the loop appends to.
    pub acc: &'t str,
    /// The parameter the loop walks.
    pub over: &'t str,
    /// The loop variable.
    pub var: &'t str,
    /// Whether `if var is None: continue` leaves `None` out.
    pub skips_none: bool,
    /// The right sides of `var = e`, in order.
    pub steps: Vec<Node<'t>>,
    /// The argument of `acc.append(…)`.
    pub push: Node<'t>,
}

/// Steps of a map loop, at most.
const MAX_STEPS: usize = 4;

/// The map loop `stmt`, a statement of the body of the builder `info`, is.
pub(crate) fn loop_at<'t>(
    nav: &Nav<'t>,
    src: &'t str,
    info: &FuncInfo<'t>,
    stmt: Node<'t>,
) -> Option<MapLoop<'t>> {
    let stmts: Vec<Node<'t>> = nav
        .named_children(info.body)
        .filter(|s| s.kind_name() != "comment")
        .collect();
    let i = stmts.iter().position(|s| *s == stmt)?;
    map_loop(nav, src, info, i.checked_sub(1).map(|j| stmts[j]), stmt)
}

/// The map loop `stmt` is, when `prev` (the statement before it) is `acc = []`.
pub(crate) fn map_loop<'t>(
    nav: &Nav<'t>,
    src: &'t str,
    info: &FuncInfo<'t>,
    prev: Option<Node<'t>>,
    stmt: Node<'t>,
) -> Option<MapLoop<'t>> {
    if stmt.kind_name() != "for_statement"
        || nav
            .named_children(stmt)
            .any(|c| c.kind_name() == "else_clause")
    {
        return None;
    }
    let left = stmt.field(Field::Left)?;
    let right = stmt.field(Field::Right)?;
    if left.kind_name() != "identifier" || right.kind_name() != "identifier" {
        return None;
    }
    let var = text(left, src);
    let over = text(right, src);
    let is_param = |name: &str| info.params.iter().any(|p| p.name == name);
    if !is_param(over) || is_param(var) {
        return None;
    }
    // `acc = []` just before.
    let init = prev?;
    let e = init.named_child(0)?;
    if init.kind_name() != "expression_statement" || e.kind_name() != "assignment" {
        return None;
    }
    let (l, r) = (e.field(Field::Left)?, e.field(Field::Right)?);
    if l.kind_name() != "identifier" || r.kind_name() != "list" || r.named_child_count() != 0 {
        return None;
    }
    let acc = text(l, src);
    if is_param(acc) || acc == var {
        return None;
    }
    let body: Vec<Node<'t>> = nav
        .named_children(stmt.field(Field::Body)?)
        .filter(|c| c.kind_name() != "comment")
        .collect();
    let (last, mut rest) = body.split_last()?;
    let mut skips_none = false;
    if let Some((first, tail)) = rest.split_first() {
        if is_none_skip(nav, src, var, *first) {
            skips_none = true;
            rest = tail;
        }
    }
    if rest.len() > MAX_STEPS {
        return None;
    }
    let mut steps = Vec::new();
    for s in rest {
        let e = s.named_child(0)?;
        if s.kind_name() != "expression_statement" || e.kind_name() != "assignment" {
            return None;
        }
        let l = e.field(Field::Left)?;
        if l.kind_name() != "identifier" || text(l, src) != var {
            return None;
        }
        steps.push(e.field(Field::Right)?);
    }
    // `acc.append(e)`.
    let call = last.named_child(0)?;
    if last.kind_name() != "expression_statement" || call.kind_name() != "call" {
        return None;
    }
    let f = call.field(Field::Function)?;
    if f.kind_name() != "attribute"
        || text(f.field(Field::Object)?, src) != acc
        || text(f.field(Field::Attribute)?, src) != "append"
    {
        return None;
    }
    let args: Vec<Node<'t>> = nav
        .named_children(call.field(Field::Arguments)?)
        .filter(|c| c.kind_name() != "comment")
        .collect();
    let [push] = args.as_slice() else {
        return None;
    };
    if !matches!(
        push.kind_name(),
        "identifier" | "call" | "attribute" | "string" | "binary_operator"
    ) || mentions(nav, src, *push, acc)
        || steps.iter().any(|s| mentions(nav, src, *s, acc))
    {
        return None;
    }
    Some(MapLoop {
        acc,
        over,
        var,
        skips_none,
        steps,
        push: *push,
    })
}

/// `if var is None: continue`, with no other arm.
fn is_none_skip<'t>(nav: &Nav<'t>, src: &str, var: &str, s: Node<'t>) -> bool {
    if s.kind_name() != "if_statement"
        || nav
            .named_children(s)
            .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
    {
        return false;
    }
    let (Some(cond), Some(body)) = (s.field(Field::Condition), s.field(Field::Consequence)) else {
        return false;
    };
    let cond_ok = cond.kind_name() == "comparison_operator"
        && text(cond, src).split_whitespace().collect::<Vec<_>>() == [var, "is", "None"];
    let body: Vec<Node<'t>> = nav
        .named_children(body)
        .filter(|c| c.kind_name() != "comment")
        .collect();
    cond_ok && matches!(body.as_slice(), [c] if c.kind_name() == "continue_statement")
}

/// Whether `n` mentions the name `name` (also when `n` is too big to read whole).
pub(crate) fn mentions<'t>(nav: &Nav<'t>, src: &str, n: Node<'t>, name: &str) -> bool {
    uses_of(nav, src, n, name).is_none_or(|v| !v.is_empty())
}

/// Most nodes [`uses_of`] reads.
const MAX_READ: usize = 4096;

/// The identifiers named `name` in `n`, in source order; `None` when `n` is too big
/// to read whole.
pub(crate) fn uses_of<'t>(
    nav: &Nav<'t>,
    src: &str,
    n: Node<'t>,
    name: &str,
) -> Option<Vec<Node<'t>>> {
    let mut stack = vec![n];
    let mut seen = 0usize;
    let mut out = Vec::new();
    while let Some(x) = stack.pop() {
        seen += 1;
        if seen > MAX_READ {
            return None;
        }
        if x.kind_name() == "identifier" && text(x, src) == name {
            out.push(x);
        }
        stack.extend(nav.named_children(x));
    }
    out.sort_by_key(|x| x.start_byte());
    Some(out)
}
