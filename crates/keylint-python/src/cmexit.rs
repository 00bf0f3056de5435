//! Context managers that execute the pipeline they yield.
//!
//! ```python
//! @contextmanager
//! def redis_pipeline(client, execute=True):
//!     with client.pipeline() as pipe:
//!         yield pipe
//!         if execute:
//!             pipe.execute()
//! ```
//!
//! `with redis_pipeline(r) as pipe:` hands the block a pipeline made for it, which the
//! context manager executes when the block ends: every command the block queues on it
//! is one batch (a transaction when the pipeline is one), although the block never
//! calls `execute()`. The `execute()` must come after the `yield`, on the name the
//! `yield` gives, and run whenever the block ends without an exception: not under an
//! `if` other than one on a parameter defaulting to `True` that the call leaves to
//! its default, not in a loop or an `except` clause. A block that executes or resets
//! the pipeline itself is judged by its own `execute()` calls.

use crate::eval::{Elem, Value};
use crate::index::{text, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// Marks the pipeline `v` that the context manager `cm`, entered by the call
    /// `site` with arguments `args`, yields, when `cm` executes it after its `yield`.
    pub(crate) fn executed_on_exit(
        &mut self,
        v: &Value<'t>,
        cm: FuncId,
        site: Node<'t>,
        args: (&[Elem<'t>], &[(String, Elem<'t>)]),
    ) {
        let Value::Pipe(q) = *v else { return };
        let info = self.ix.funcs[cm].clone();
        let inside = info.node.byte_range();
        let made_inside = self.pipes[q]
            .created
            .as_ref()
            .is_some_and(|c| inside.start <= c.start && c.end <= inside.end);
        if !made_inside || self.pipes[q].transaction_call.is_some() {
            return;
        }
        let nav = self.ix.nav;
        // The `with` statement the call is an item of.
        let Some(stmt) = self.with_item_statement(site) else {
            return;
        };
        // The one `yield` of a name, and the `execute()` of that name after it.
        let src = self.src();
        let mut yields = Vec::new();
        let mut calls = Vec::new();
        let mut stack = vec![info.body];
        while let Some(n) = stack.pop() {
            match n.kind_name() {
                "function_definition" | "lambda" | "class_definition" => continue,
                "yield" => yields.push(n),
                "call" => calls.push(n),
                _ => {}
            }
            stack.extend(nav.named_children(n));
        }
        let [y] = yields.as_slice() else { return };
        let Some(name) = y
            .named_child(0)
            .filter(|e| e.kind_name() == "identifier")
            .map(|e| text(e, src))
        else {
            return;
        };
        let params: Vec<&crate::index::ParamInfo<'t>> = info
            .params
            .iter()
            .skip(usize::from(info.self_name().is_some()))
            .collect();
        let (pos, kw) = args;
        // A parameter defaulting to `True` that the call leaves to its default.
        let true_by_default = |cond: Node<'t>| -> bool {
            if cond.kind_name() != "identifier" {
                return false;
            }
            let n = text(cond, src);
            let Some(i) = params.iter().position(|p| p.name == n) else {
                return false;
            };
            params[i].default.is_some_and(|d| d.kind_name() == "true")
                && pos.len() <= i
                && !kw.iter().any(|(k, _)| k == n)
                && info.defs.get(n).is_none_or(|d| d.len() <= 1)
        };
        let runs_on_exit = |call: Node<'t>| -> bool {
            let mut cur = nav.parent(call);
            while let Some(p) = cur {
                if p.id() == info.body.id() {
                    return true;
                }
                match p.kind_name() {
                    "for_statement" | "while_statement" | "except_clause" | "else_clause"
                    | "elif_clause" => return false,
                    "if_statement" if !p.field(Field::Condition).is_some_and(true_by_default) => {
                        return false
                    }
                    _ => {}
                }
                cur = nav.parent(p);
            }
            false
        };
        let executes = calls.iter().any(|&c| {
            c.start_byte() >= y.end_byte()
                && c.field(Field::Function).is_some_and(|f| {
                    f.kind_name() == "attribute"
                        && f.field(Field::Attribute)
                            .is_some_and(|a| text(a, src) == "execute")
                        && f.field(Field::Object)
                            .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == name)
                })
                && runs_on_exit(c)
        });
        if !executes {
            return;
        }
        let p = &mut self.pipes[q];
        p.transaction_call = Some(stmt.byte_range());
        p.at_block_end = true;
        p.anchor = site.field(Field::Function).map(|f| match f.kind_name() {
            "attribute" => f.field(Field::Attribute).unwrap_or(f).byte_range(),
            _ => f.byte_range(),
        });
    }
}
