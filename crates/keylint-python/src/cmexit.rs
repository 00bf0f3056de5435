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
//!
//! A class of this file may do the same:
//!
//! ```python
//! class PipelineWrapper:
//!     def __init__(self):
//!         self.pipe = redis_client.pipeline()
//!
//!     def __enter__(self):
//!         return self.pipe
//!
//!     def __exit__(self, exc_type, exc_value, tb):
//!         if exc_type:
//!             logging.error(…)
//!         self.pipe.execute()
//! ```
//!
//! `with PipelineWrapper() as pipe:` makes an object, and with it a pipeline of its
//! own, and hands the block that pipeline; `__exit__` executes it when the block ends.
//! The pipeline must be made in `__init__`, `__enter__` must return it as `self.<attr>`
//! and `__exit__` (or `__aexit__`) must call `self.<attr>.execute()` at its top level
//! (or under `if exc_type is None:` / `if not exc_type:`), not in a loop, an `if` on
//! anything else or a `try`.

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
        if !self.pipe_made_in(q, cm) || self.pipes[q].transaction_call.is_some() {
            return;
        }
        let info = self.ix.funcs[cm].clone();
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
                && execute_receiver(c, src)
                    .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == name)
                && runs_on_exit(c)
        });
        if !executes {
            return;
        }
        self.execute_at_block_end(q, stmt, site);
    }

    /// Pipeline `q`, entered by the `with` statement `stmt` through the call `site`,
    /// runs what the block queues as one batch when the block ends.
    fn execute_at_block_end(&mut self, q: crate::eval::PipeId, stmt: Node<'t>, site: Node<'t>) {
        let p = &mut self.pipes[q];
        p.transaction_call = Some(stmt.byte_range());
        p.at_block_end = true;
        p.anchor = site.field(Field::Function).map(|f| match f.kind_name() {
            "attribute" => f.field(Field::Attribute).unwrap_or(f).byte_range(),
            _ => f.byte_range(),
        });
    }

    /// The pipeline `v` that `__enter__` (`enter`) of class `c` returns, entered by
    /// the construction `site` (`with PipelineWrapper() as pipe:`): when the class's
    /// `__init__` makes it, a pipeline of that construction alone, which the class's
    /// `__exit__` executes when the block ends if it does so (see the module's
    /// documentation).
    pub(crate) fn object_pipe_at_site(
        &mut self,
        v: Value<'t>,
        c: crate::index::ClassId,
        enter: FuncId,
        site: Node<'t>,
    ) -> Value<'t> {
        let Value::Pipe(p) = v else { return v };
        let Some(init) = self.defines(c, "__init__") else {
            return v;
        };
        if self.pipes[p].transaction_call.is_some() {
            return v;
        }
        let Some((q, fresh)) = self.pipe_made_in_for(p, init, site) else {
            return v;
        };
        if !fresh {
            return Value::Pipe(q);
        }
        let exit = self
            .defines(c, "__exit__")
            .or_else(|| self.defines(c, "__aexit__"));
        let stmt = self.with_item_statement(site);
        if let (Some(attr), Some(exit), Some(stmt)) = (self.returned_self_attr(enter), exit, stmt) {
            if self.exit_executes(exit, &attr) {
                self.execute_at_block_end(q, stmt, site);
            }
        }
        Value::Pipe(q)
    }

    /// `attr` when the one return of method `f` is `self.attr`.
    fn returned_self_attr(&self, f: FuncId) -> Option<String> {
        let info = &self.ix.funcs[f];
        let me = info.self_name()?;
        let src = self.src();
        let [r] = crate::eval::builder_returns(self.ix.nav, src, info)?[..] else {
            return None;
        };
        let obj = r.field(Field::Object)?;
        (r.kind_name() == "attribute" && obj.kind_name() == "identifier" && text(obj, src) == me)
            .then(|| r.field(Field::Attribute).map(|a| text(a, src).to_string()))
            .flatten()
    }

    /// Whether `__exit__` (`exit`) calls `self.<attr>.execute()` whenever the block
    /// ends without an exception: at its body's top level, or under `if exc_type is
    /// None:` / `if not exc_type:` of its first parameter after `self`.
    fn exit_executes(&self, exit: FuncId, attr: &str) -> bool {
        let nav = self.ix.nav;
        let src = self.src();
        let info = &self.ix.funcs[exit];
        let Some(me) = info.self_name() else {
            return false;
        };
        let exc = info.params.get(1).map(|p| p.name.as_str());
        let no_exception = |cond: Node<'t>| -> bool {
            let t: String = text(cond, src)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            exc.is_some_and(|e| t == format!("{e} is None") || t == format!("not {e}"))
        };
        let executes = |stmt: Node<'t>| -> bool {
            let Some(mut e) = stmt
                .named_child(0)
                .filter(|_| stmt.kind_name() == "expression_statement")
            else {
                return false;
            };
            if e.kind_name() == "await" {
                let Some(inner) = e.named_child(0) else {
                    return false;
                };
                e = inner;
            }
            execute_receiver(e, src).is_some_and(|o| {
                o.kind_name() == "attribute"
                    && o.field(Field::Attribute)
                        .is_some_and(|a| text(a, src) == attr)
                    && o.field(Field::Object)
                        .is_some_and(|x| x.kind_name() == "identifier" && text(x, src) == me)
            })
        };
        nav.named_children(info.body).any(|s| {
            if executes(s) {
                return true;
            }
            if s.kind_name() != "if_statement"
                || nav
                    .named_children(s)
                    .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
                || !s.field(Field::Condition).is_some_and(no_exception)
            {
                return false;
            }
            s.field(Field::Consequence)
                .is_some_and(|b| nav.named_children(b).any(executes))
        })
    }
}

/// The receiver `x` of a call `x.execute()`.
fn execute_receiver<'t>(call: Node<'t>, src: &str) -> Option<Node<'t>> {
    let f = call
        .field(Field::Function)
        .filter(|_| call.kind_name() == "call")?;
    (f.kind_name() == "attribute"
        && f.field(Field::Attribute)
            .is_some_and(|a| text(a, src) == "execute"))
    .then(|| f.field(Field::Object))
    .flatten()
}
