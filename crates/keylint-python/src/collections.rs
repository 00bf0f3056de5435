//! Collections of keys built over key builders: a dict filled key by key in a loop
//! (`accum = {}; for k, v in items: accum[self.make_key(k)] = v`), and `map(builder,
//! xs)` (`list(map(self.word_key, words))`). Each stands for a family of the keys the
//! builder makes, like a comprehension over the same builder.

use crate::eval::{each_marker, Ctx, Elem, Value};
use crate::index::{text, Def};
use crate::syntax::{Field, NodeExt};
use crate::tpl::HoleInfo;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `name = {}` followed by `name[k] = v` statements before the use: a dict whose
    /// keys are the assigned ones, those assigned in a loop standing for one key per
    /// pass. `None` when the name is used in any other way before the use, or an
    /// assignment is under a condition or in a loop that also runs the use.
    pub(crate) fn dict_with_sets(
        &mut self,
        name: &str,
        def: Def<'t>,
        dict: Node<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let src = self.src();
        // Only an empty literal: its keys are all the assigned ones.
        if nav.named_children(dict).any(|c| c.kind_name() != "comment") {
            return None;
        }
        let scope = match ctx.func {
            Some(f) => self.ix.funcs[f].body,
            None => nav.root(),
        };
        let (from, to) = (def.stmt.end_byte(), use_node.start_byte());
        if to <= from {
            return None;
        }
        let block = self.ix.enclosing_block(def.stmt)?;
        // (assignment statement, key expression)
        let mut sets: Vec<(Node<'t>, Node<'t>)> = Vec::new();
        let mut stack = vec![scope];
        while let Some(x) = stack.pop() {
            if x.end_byte() <= from || x.start_byte() >= to {
                continue;
            }
            if x.kind_name() == "identifier" && text(x, src) == name {
                if !names_variable(nav, x) {
                    continue;
                }
                // `name[k] = v`, as a statement of its own.
                let sub = nav
                    .parent(x)
                    .filter(|s| s.kind_name() == "subscript" && s.field(Field::Value) == Some(x))?;
                let assign = nav.parent(sub).filter(|a| {
                    a.kind_name() == "assignment"
                        && a.field(Field::Left) == Some(sub)
                        && a.field(Field::Type).is_none()
                })?;
                let stmt = nav
                    .parent(assign)
                    .filter(|s| s.kind_name() == "expression_statement")?;
                let idx: Vec<Node<'t>> = nav
                    .named_children(sub)
                    .filter(|c| *c != x && c.kind_name() != "comment")
                    .collect();
                let [key] = idx.as_slice() else {
                    return None;
                };
                if key.kind_name() == "slice" {
                    return None;
                }
                sets.push((stmt, *key));
                // The value may use the name too (`d[k] = d.get(k)`): not followed.
                if let Some(r) = assign.field(Field::Right) {
                    stack.push(r);
                }
                continue;
            }
            stack.extend(nav.children(x));
        }
        if sets.is_empty() {
            return None;
        }
        sets.sort_by_key(|(s, _)| s.start_byte());
        let mut items: Vec<Elem<'t>> = Vec::new();
        for (stmt, key) in sets {
            let each = loops_to_block(
                nav,
                stmt,
                block,
                use_node,
                &["block", "with_statement", "with_clause", "with_item"],
            )?;
            let value = self.eval(key, &ctx.deeper());
            // A key set once per pass: the family, then an unknown count.
            let star = !each.is_empty();
            items.push(Elem {
                value,
                node: key,
                star,
                each,
            });
        }
        Some(Value::Dict(items))
    }

    /// `map(f, xs)` with `f` a key builder of this file: one key per element of `xs`,
    /// a family like `[f(x) for x in xs]`.
    pub(crate) fn map_family(
        &mut self,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let args = args.filter(|a| a.kind_name() == "argument_list")?;
        let a: Vec<Node<'t>> = nav
            .named_children(args)
            .filter(|c| c.kind_name() != "comment")
            .collect();
        let [f, xs] = a.as_slice() else {
            return None;
        };
        if matches!(
            xs.kind_name(),
            "list_splat" | "dictionary_splat" | "keyword_argument"
        ) || matches!(f.kind_name(), "list_splat" | "keyword_argument")
        {
            return None;
        }
        let Value::Func { id, bound } = self.eval(*f, &ctx.deeper()) else {
            return None;
        };
        // The element is named after the builder's parameter that receives it.
        let info = &self.ix.funcs[id];
        let skip = usize::from(bound.is_some() || info.is_classmethod());
        let label = info.params.get(skip)?.name.clone();
        let binding = format!(
            "{}:map:{}{}",
            self.scope_tag(ctx),
            text(*xs, self.src()),
            each_marker(n.start_byte())
        );
        let elem = Value::Opaque(HoleInfo {
            keylike: crate::tpl::is_keylike_label(&label),
            label,
            binding,
            span: Some(xs.byte_range()),
        });
        let arg = Elem {
            value: elem,
            node: *xs,
            star: false,
            each: Vec::new(),
        };
        let v = self.call_builder(id, bound, vec![arg], Vec::new(), ctx)?;
        match v {
            Value::Str(_) | Value::Opaque(_) => Some(Value::Seq {
                items: vec![Elem {
                    value: v,
                    node: n,
                    star: false,
                    each: vec![n.start_byte()],
                }],
                family: true,
            }),
            _ => None,
        }
    }
}

/// The loops between `node` and its enclosing `block` (their start offsets, innermost
/// first), so that `node` runs once per pass of each; `None` when anything else than a
/// loop or one of `through` stands in between (something conditional), when `node` is
/// not inside `block`, or when one of the loops also runs `use_node`.
pub(crate) fn loops_to_block<'t>(
    nav: &crate::syntax::Nav<'t>,
    node: Node<'t>,
    block: Node<'t>,
    use_node: Node<'t>,
    through: &[&str],
) -> Option<Vec<usize>> {
    let mut each = Vec::new();
    let mut cur = nav.parent(node);
    while let Some(p) = cur {
        if p == block {
            return Some(each);
        }
        match p.kind_name() {
            "for_statement" | "while_statement" => {
                if p.start_byte() <= use_node.start_byte() && use_node.end_byte() <= p.end_byte() {
                    return None;
                }
                each.push(p.start_byte());
            }
            k if through.contains(&k) => {}
            _ => return None,
        }
        cur = nav.parent(p);
    }
    None
}

/// Whether the identifier `x` names a variable: not the attribute of `obj.x`, nor the
/// keyword of `f(x=…)`.
pub(crate) fn names_variable<'t>(nav: &crate::syntax::Nav<'t>, x: Node<'t>) -> bool {
    !nav.parent(x).is_some_and(|p| {
        (p.kind_name() == "attribute" && p.field(Field::Attribute) == Some(x))
            || (p.kind_name() == "keyword_argument" && p.field(Field::Name) == Some(x))
    })
}
