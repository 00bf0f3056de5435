//! A nested function that makes a pipeline, queues commands on it and returns it
//! un-executed to the call it is handed to (`async def _pipe_builder(r): pipe =
//! r.pipeline(); …; return pipe`, then `await redis_helper.execute(client,
//! _pipe_builder)`): whoever calls it gets the pipeline to execute, and the only
//! thing one can do with a filled pipeline is to execute it. The commands queued
//! before the `return` are then one batch, as they are before an `execute()` (the
//! receiver may queue more: a batch that is already cross-slot stays so).
//!
//! Read only for a function defined inside another function (no module can import
//! it), with no decorator, that its enclosing function never calls: every mention
//! of its name there is an argument of a call (by position or by keyword), or one of
//! its definitions (two closures of one name in the arms of an `if`). A function
//! called in view hands its pipeline back to that caller instead (`retpipe.rs`),
//! where it is judged. The pipeline must be made in the function itself.

use crate::eval::{Ctx, Value};
use crate::index::{text, FuncId};
use crate::syntax::NodeExt;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// Marks the `return` of each handed-out pipeline as the end of its batch.
    pub(crate) fn handed_out_pipelines(&mut self) {
        if !self.resolve_names || self.pipes.is_empty() {
            return;
        }
        let nav = self.ix.nav;
        for id in 0..self.ix.funcs.len() {
            let f = &self.ix.funcs[id];
            let Some(parent) = f.parent else { continue };
            if f.is_lambda || f.class.is_some() || !f.decorators.is_empty() {
                continue;
            }
            let (body, range) = (f.body, f.node.byte_range());
            let mut rets = Vec::new();
            crate::retpipe::collect_returns(nav, body, &mut rets);
            let mut out: Vec<(crate::eval::PipeId, Node<'t>)> = Vec::new();
            for r in rets {
                let Some(e) = r.named_child(0).filter(|e| e.kind_name() == "identifier") else {
                    continue;
                };
                let Value::Pipe(p) = self.eval(e, &Ctx::at(Some(id))) else {
                    continue;
                };
                let made_here = self.pipes[p]
                    .created
                    .as_ref()
                    .is_some_and(|c| range.start <= c.start && c.end <= range.end);
                if made_here {
                    out.push((p, r));
                }
            }
            if out.is_empty() || !self.only_handed_out(id, parent) {
                continue;
            }
            for (p, r) in out {
                self.handed_out.push(r.id());
                self.push_execute(p, r);
            }
        }
    }

    /// Whether every mention of function `id`'s name in the body of its enclosing
    /// function `parent` (its definitions aside) is an argument of a call, by
    /// position or by keyword, and there is at least one.
    fn only_handed_out(&self, id: FuncId, parent: FuncId) -> bool {
        let nav = self.ix.nav;
        let src = self.src();
        let f = &self.ix.funcs[id];
        let name = f.name.as_str();
        let mut passed = 0usize;
        let mut stack = vec![self.ix.funcs[parent].body];
        let mut seen = 0usize;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 200_000 {
                return false;
            }
            if n.kind_name() == "identifier" && text(n, src) == name {
                let Some(up) = nav.parent(n) else {
                    return false;
                };
                match up.kind_name() {
                    // Its definition, or another one of the same name (two
                    // closures of one name in the arms of an `if`).
                    "function_definition"
                        if up.field(crate::syntax::Field::Name).map(|x| x.id()) == Some(n.id()) => {
                    }
                    "argument_list" => passed += 1,
                    // `execute(client, build=_build)`.
                    "keyword_argument"
                        if up.field(crate::syntax::Field::Value).map(|x| x.id())
                            == Some(n.id()) =>
                    {
                        passed += 1
                    }
                    _ => return false,
                }
                continue;
            }
            stack.extend(nav.named_children(n));
        }
        passed > 0
    }
}
