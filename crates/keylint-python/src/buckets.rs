//! Keys grouped into buckets: `groups = defaultdict(list)`, `groups[k].append(key)`
//! in a loop, then `for name, keys in groups.items():` (or `for keys in
//! groups.values():`). Each bucket holds members of the one family the appends make,
//! so `r.pfcount(*keys)` over a bucket is a command over that family.
//!
//! Followed only when the name is assigned once, to `defaultdict(list)` (or `set`),
//! and every other use of it in the function appends (adds, extends) members of one
//! family varying with a loop to a bucket, lists its items, values or keys, or tests
//! it; anything else (a bucket read and kept, the dict handed to a call) leaves the
//! loop variable to what it was.

use crate::collections::{contains_name, names_variable};
use crate::eval::{arg_nodes, Ctx, Value};
use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The variable `name` of `for k, keys in groups.items():` or `for keys in
    /// groups.values():` (the `for` statement `stmt`): a bucket of the family.
    pub(crate) fn bucket_loop_var(
        &mut self,
        name: &str,
        stmt: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let f = ctx.func?;
        let src = self.src();
        let nav = self.ix.nav;
        let left = stmt.field(Field::Left)?;
        let right = stmt.field(Field::Right)?;
        if right.kind_name() != "call"
            || right
                .field(Field::Arguments)
                .is_some_and(|a| nav.named_children(a).next().is_some())
        {
            return None;
        }
        let callee = right.field(Field::Function)?;
        if callee.kind_name() != "attribute" {
            return None;
        }
        let dict = callee.field(Field::Object)?;
        let method = text(callee.field(Field::Attribute)?, src);
        let target = match (method, left.kind_name()) {
            ("values", "identifier") => left,
            ("items", "pattern_list" | "tuple_pattern") => {
                let parts: Vec<Node<'t>> = nav.named_children(left).collect();
                let [_, v] = parts.as_slice() else {
                    return None;
                };
                *v
            }
            _ => return None,
        };
        if target.kind_name() != "identifier"
            || text(target, src) != name
            || dict.kind_name() != "identifier"
        {
            return None;
        }
        let dname = text(dict, src);
        let defs = self.ix.funcs[f].defs.get(dname)?.clone();
        let [d] = defs.as_slice() else {
            return None;
        };
        let DefKind::Expr(e) = d.kind else {
            return None;
        };
        if !is_defaultdict_of_lists(nav, src, e) {
            return None;
        }
        let def_target = d.stmt.field(Field::Left)?;
        if d.stmt.kind_name() != "assignment" || def_target.kind_name() != "identifier" {
            return None;
        }
        let added = bucket_additions(nav, src, self.ix.funcs[f].body, dname, def_target.id())?;
        let (t, node) = self.buffer_member(added, ctx)?;
        let each = crate::collections::marked_loops(&t);
        if each.is_empty() {
            return None;
        }
        Some(Value::family(Value::Str(t), node, each))
    }
}

/// `defaultdict(list)`, `collections.defaultdict(set)`.
fn is_defaultdict_of_lists(nav: &crate::syntax::Nav<'_>, src: &str, e: Node<'_>) -> bool {
    if e.kind_name() != "call" {
        return false;
    }
    let Some(callee) = e.field(Field::Function) else {
        return false;
    };
    if !matches!(text(callee, src), "defaultdict" | "collections.defaultdict") {
        return false;
    }
    let args = arg_nodes(nav, e.field(Field::Arguments));
    matches!(args.as_slice(), [a] if a.kind_name() == "identifier" && matches!(text(*a, src), "list" | "set"))
}

/// What every use of the dict `name` in `body` adds to a bucket, or `None` when a
/// use is not one that keeps the buckets to those additions.
fn bucket_additions<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &str,
    body: Node<'t>,
    name: &str,
    def_target: usize,
) -> Option<Vec<Node<'t>>> {
    let mut added = Vec::new();
    let mut stack = vec![body];
    while let Some(x) = stack.pop() {
        if matches!(
            x.kind_name(),
            "function_definition" | "class_definition" | "lambda"
        ) && x.id() != body.id()
        {
            if contains_name(nav, x, name, src) {
                return None;
            }
            continue;
        }
        if x.kind_name() == "identifier" && text(x, src) == name {
            if !names_variable(nav, x) || x.id() == def_target {
                continue;
            }
            let parent = nav.parent(x)?;
            match parent.kind_name() {
                // `groups.items()`, `groups.values()`, `groups.keys()`.
                "attribute" if parent.field(Field::Object) == Some(x) => {
                    let m = parent.field(Field::Attribute).map(|a| text(a, src));
                    let call = nav.parent(parent)?;
                    if call.kind_name() != "call"
                        || call.field(Field::Function) != Some(parent)
                        || !matches!(m, Some("items" | "values" | "keys"))
                    {
                        return None;
                    }
                }
                // `groups[k].append(key)`.
                "subscript" if parent.field(Field::Value) == Some(x) => {
                    let attr = nav.parent(parent)?;
                    if attr.kind_name() != "attribute" || attr.field(Field::Object) != Some(parent)
                    {
                        return None;
                    }
                    let m = attr.field(Field::Attribute).map(|a| text(a, src))?;
                    let call = nav.parent(attr)?;
                    if call.kind_name() != "call" || call.field(Field::Function) != Some(attr) {
                        return None;
                    }
                    if !matches!(m, "append" | "add" | "extend") {
                        return None;
                    }
                    let args = call.field(Field::Arguments)?;
                    if args.kind_name() == "generator_expression" {
                        if m != "extend" {
                            return None;
                        }
                        added.push(args);
                    } else {
                        match arg_nodes(nav, Some(args)).as_slice() {
                            [a] if a.kind_name() != "keyword_argument" => added.push(*a),
                            _ => return None,
                        }
                    }
                }
                "if_statement" | "elif_clause" | "while_statement"
                    if parent.field(Field::Condition) == Some(x) => {}
                "not_operator" => {}
                "argument_list" => {
                    let call = nav.parent(parent)?;
                    let callee = call.field(Field::Function)?;
                    if !(callee.kind_name() == "identifier"
                        && matches!(text(callee, src), "len" | "bool"))
                    {
                        return None;
                    }
                }
                _ => return None,
            }
            continue;
        }
        stack.extend(nav.children(x));
    }
    Some(added)
}
