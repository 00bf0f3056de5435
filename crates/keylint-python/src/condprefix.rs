//! A value changed under a condition with no `else`: `key = 'q:{}'.format(queue)`
//! then `if prefix: key = prefix + ':' + key`, then `return key` (a key builder that
//! adds a configured prefix only when one is set).
//!
//! At the use the name is the changed value or the one before, and which is decided
//! as a conditional expression is ([`Analyzer::pick_arm`]); when the condition cannot
//! be decided, the two are one of several keys ([`Analyzer::one_of`]), compared over
//! both. Followed only when the `if` holds nothing but that one assignment, the value
//! before it is one plain assignment that reaches the `if`, and nothing else assigns
//! the name between the `if` and the use.

use crate::eval::Ctx;
use crate::eval::Value;
use crate::index::{Def, DefKind, FuncInfo};
use crate::lower::Analyzer;
use crate::syntax::{Field, Nav, NodeExt};
use tree_sitter::Node;

/// Whether `stmt`, an `if` of a key builder's body with no other arm, holds nothing
/// but assignments to plain names that are not the builder's parameters (a
/// parameter is read as the caller's argument wherever the builder reads it).
/// The memo of a lazy accessor may follow them: `g._redis = client` (an attribute
/// given a name the arm assigned before) stores the value and changes no local.
pub(crate) fn assigns_locals<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &FuncInfo<'t>,
    stmt: Node<'t>,
) -> bool {
    let Some(body) = stmt.field(Field::Consequence) else {
        return false;
    };
    let mut assigned: Vec<&str> = Vec::new();
    for s in nav.named_children(body) {
        match s.kind_name() {
            "comment" => continue,
            "expression_statement" => {}
            _ => return false,
        }
        let Some(e) = s.named_child(0) else {
            return false;
        };
        let Some(left) = e.field(Field::Left) else {
            return false;
        };
        if e.kind_name() != "assignment" {
            return false;
        }
        let right = e.field(Field::Right);
        match left.kind_name() {
            "identifier" => {}
            // `g._redis = client`: stores a local of the arm, named alone.
            "attribute"
                if right.is_some_and(|r| {
                    r.kind_name() == "identifier" && assigned.contains(&crate::index::text(r, src))
                }) =>
            {
                continue;
            }
            _ => return false,
        }
        let name = crate::index::text(left, src);
        if info.params.iter().any(|p| p.name == name) {
            return false;
        }
        assigned.push(name);
    }
    !assigned.is_empty()
}

/// The parameter that `stmt`, an `if` of a key builder's body, rebinds: the body of
/// each of its arms is nothing but one assignment `p = e` to the same plain parameter
/// (not `*args`, `**kwargs` or the receiver). With no `else`, the parameter keeps the
/// caller's value on the path that skips the `if`.
pub(crate) fn rebinds_param<'t>(
    nav: &Nav<'t>,
    src: &'t str,
    info: &FuncInfo<'t>,
    stmt: Node<'t>,
) -> Option<&'t str> {
    param_arms(nav, src, info, stmt).map(|(name, _)| name)
}

/// One arm of an `if` that rebinds a parameter: the condition that selects it
/// (`None` for the `else`) and the value it assigns.
pub(crate) type ParamArm<'t> = (Option<Node<'t>>, Node<'t>);

/// [`rebinds_param`]'s parameter and the arms that assign it, in order.
pub(crate) fn param_arms<'t>(
    nav: &Nav<'t>,
    src: &'t str,
    info: &FuncInfo<'t>,
    stmt: Node<'t>,
) -> Option<(&'t str, Vec<ParamArm<'t>>)> {
    if stmt.kind_name() != "if_statement" {
        return None;
    }
    let one = |block: Node<'t>| -> Option<(&'t str, Node<'t>)> {
        let body: Vec<Node<'t>> = nav
            .named_children(block)
            .filter(|c| c.kind_name() != "comment")
            .collect();
        let [s] = body.as_slice() else {
            return None;
        };
        let e = s.named_child(0)?;
        if s.kind_name() != "expression_statement" || e.kind_name() != "assignment" {
            return None;
        }
        let left = e.field(Field::Left)?;
        let right = e.field(Field::Right)?;
        if left.kind_name() != "identifier" || e.field(Field::Type).is_some() {
            return None;
        }
        Some((crate::index::text(left, src), right))
    };
    let (name, first) = one(stmt.field(Field::Consequence)?)?;
    let mut arms = vec![(Some(stmt.field(Field::Condition)?), first)];
    for c in nav.named_children(stmt) {
        let (cond, body) = match c.kind_name() {
            "elif_clause" => (
                Some(c.field(Field::Condition)?),
                c.field(Field::Consequence)?,
            ),
            "else_clause" => (None, c.field(Field::Body)?),
            _ => continue,
        };
        let (n, right) = one(body)?;
        if n != name {
            return None;
        }
        arms.push((cond, right));
    }
    let idx = info.params.iter().position(|p| p.name == name)?;
    let receiver = idx == 0 && (info.class.is_some() || info.self_name() == Some(name));
    (!info.params[idx].star && !receiver).then_some((name, arms))
}

impl<'t> Analyzer<'t> {
    /// The value of `name` at `at` when its reaching definitions are one plain
    /// assignment in the only arm of an `if` before the use and the one assignment
    /// that reaches that `if`; `None` for any other shape.
    pub(crate) fn if_no_else(
        &mut self,
        name: &str,
        defs: &[Def<'t>],
        use_node: Node<'t>,
        at: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let plain = |d: &Def<'t>| -> Option<Node<'t>> {
            let DefKind::Expr(e) = d.kind else {
                return None;
            };
            let left = d.stmt.field(Field::Left)?;
            (d.stmt.kind_name() == "assignment"
                && left.kind_name() == "identifier"
                && d.stmt.field(Field::Right) == Some(e))
            .then_some(e)
        };
        // A parameter is read as the caller's argument by a followed builder.
        if defs.iter().any(|d| matches!(d.kind, DefKind::Param(..))) {
            return None;
        }
        let last = defs.iter().filter(|d| d.pos < at).max_by_key(|d| d.pos)?;
        let changed = plain(last)?;
        // `if isinstance(key, bytes): key = key.decode()`: the same text either way.
        let same_text = crate::passthru::is_item_as_text(changed, self.src(), name);
        let arm = self.ix.enclosing_block(last.stmt)?;
        let stmt = nav.parent(arm)?;
        if stmt.kind_name() != "if_statement"
            || stmt.field(Field::Consequence) != Some(arm)
            || stmt.end_byte() > at
            || nav
                .named_children(stmt)
                .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
        {
            return None;
        }
        // The arm is that one assignment (an expression statement) and nothing else.
        let body: Vec<Node<'t>> = nav
            .named_children(arm)
            .filter(|s| s.kind_name() != "comment")
            .collect();
        if body.len() != 1 || nav.parent(last.stmt) != Some(body[0]) {
            return None;
        }
        let inside = |n: Node<'t>, pos: usize| n.start_byte() <= pos && pos < n.end_byte();
        // The `if` dominates the use, and no definition comes between them or after
        // the use in a loop around both.
        let outer = self.ix.enclosing_block(stmt)?;
        if !inside(outer, at)
            || defs.iter().any(|d| d.pos >= stmt.end_byte() && d.pos < at)
            || self.ix.any_enclosing_loop(use_node, |l| {
                !inside(l, stmt.start_byte())
                    && defs.iter().any(|d| d.pos >= at && inside(l, d.pos))
            })
        {
            return None;
        }
        // The value before the `if`: one plain assignment that reaches it (any
        // definition, a loop's target too, when the arm only converts the text).
        let (before, version) = self.ix.reaching_def(defs, stmt, stmt.start_byte()).ok()?;
        if same_text {
            return Some(self.eval_def(name, before, version, use_node, ctx));
        }
        let earlier = plain(&before)?;
        let cond = stmt.field(Field::Condition)?;
        match self.pick_arm(cond, changed, earlier, ctx) {
            Ok(v) => Some(v),
            Err(both) => {
                let (a, b) = *both;
                self.one_of(name, vec![b, a])
            }
        }
    }
}
