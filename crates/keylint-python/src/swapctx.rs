//! Objects that swap their client for a pipeline inside a context manager.
//!
//! A class may batch its own methods by replacing the client it keeps in an attribute
//! with a pipeline of that client for the length of a `with` block:
//!
//! ```python
//! @contextmanager
//! def pipeline(self):
//!     self.redis, self._saved = self.redis.pipeline(), self.redis
//!     try:
//!         yield
//!     finally:
//!         _, self.redis = self.redis.execute(), self._saved
//! ```
//!
//! Inside the body of `with self.pipeline():` (in a method of the class), `self.redis`
//! is then that pipeline: the commands the body sends on it are queued and run by the
//! `execute()` at the end of the block, one batch per `with` (a transaction when the
//! client's `pipeline()` is one). The context manager must be a `@contextmanager`
//! method of the class (or of its bases in the file) with one `yield`, assign
//! `self.<attr>` from `self.<attr>.pipeline(…)` and call `self.<attr>.execute()`.
//! Commands sent by other methods the body calls are not followed (which only hides
//! findings), nor are such blocks entered through another object.

use crate::eval::{ClientKind, Ctx, Value};
use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.<attr>` (`n`) of an instance of class `c` read inside the body of a
    /// `with self.m():` that swaps it for a pipeline: that pipeline, one per `with`.
    pub(crate) fn swapped_pipe(
        &mut self,
        c: ClassId,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let func = ctx.func?;
        let self_name = self.ix.funcs[func].self_name()?.to_string();
        let obj = n.field(Field::Object)?;
        if obj.kind_name() != "identifier" || text(obj, self.src()) != self_name {
            return None;
        }
        let nav = self.ix.nav;
        let mut child = n;
        let mut cur = nav.parent(n);
        while let Some(p) = cur {
            if p.is_scope_kind() {
                break;
            }
            if p.kind_name() == "with_statement"
                && p.field(Field::Body).is_some_and(|b| b.id() == child.id())
            {
                if let Some(v) = self.swap_item(c, attr, &self_name, p, ctx) {
                    return Some(v);
                }
            }
            child = p;
            cur = nav.parent(p);
        }
        None
    }

    /// The pipeline of a `with` statement one of whose items is `self.m()`, a
    /// context manager of class `c` that swaps `self.<attr>` for a pipeline.
    fn swap_item(
        &mut self,
        c: ClassId,
        attr: &str,
        self_name: &str,
        stmt: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let clause = nav
            .named_children(stmt)
            .find(|x| x.kind_name() == "with_clause")?;
        let items: Vec<Node<'t>> = nav.named_children(clause).collect();
        for item in items {
            let Some(call) = item.field(Field::Value) else {
                continue;
            };
            if call.kind_name() != "call" {
                continue;
            }
            let Some(f) = call.field(Field::Function) else {
                continue;
            };
            let (Some(o), Some(m)) = (f.field(Field::Object), f.field(Field::Attribute)) else {
                continue;
            };
            if o.kind_name() != "identifier" || text(o, self.src()) != self_name {
                continue;
            }
            let Some(cm) = self.defines(c, text(m, self.src())) else {
                continue;
            };
            let Some(pcall) = self.swap_of(cm, attr) else {
                continue;
            };

            let written = self.client_beside_swap(c, attr, cm, ctx)?;
            // The pipeline the swap's `pipeline(…)` makes, as that call on the client
            // makes it (its transaction, or an aioredis 1.x batch), anchored here.
            let args = pcall.field(Field::Arguments);
            let Value::Pipe(id) = self.client_method(written, "pipeline", m, args, call, ctx)
            else {
                return None;
            };
            // The batch runs when the block ends: every command queued in it counts.
            self.pipes[id].transaction_call = Some(stmt.byte_range());
            self.pipes[id].at_block_end = true;
            return Some(Value::Pipe(id));
        }
        None
    }

    /// The client that `self.<attr>` holds outside the context manager `cm`: every
    /// assignment of the class (and its bases in the file) but those of `cm` gives a
    /// client or a value of no known kind, and one at least gives a client (the rule
    /// of an attribute assigned in several places).
    fn client_beside_swap(
        &mut self,
        c: ClassId,
        attr: &str,
        cm: FuncId,
        ctx: &Ctx<'t>,
    ) -> Option<ClientKind> {
        let chain = self.ix.class_chain(c);
        let mut assigns = Vec::new();
        for k in chain {
            if let Some(a) = self.ix.classes[k].self_assigns.get(attr) {
                assigns.extend(a.iter().filter(|a| a.func != cm).copied());
            }
        }
        if assigns.is_empty() {
            return None;
        }
        let values = self.self_assign_values(&assigns, ctx);
        crate::eval::merge_clients(&values)
    }

    /// The `self.<attr>.pipeline(…)` call that a `@contextmanager` method assigns to
    /// `self.<attr>`, when it has one `yield` and executes `self.<attr>`.
    fn swap_of(&self, cm: FuncId, attr: &str) -> Option<Node<'t>> {
        let info = &self.ix.funcs[cm];
        if !info.decorators.iter().any(|d| d == "contextmanager") {
            return None;
        }
        let self_name = info.self_name()?;
        let src = self.src();
        let is_self_attr = |n: Node<'t>| {
            n.kind_name() == "attribute"
                && n.field(Field::Object)
                    .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == self_name)
                && n.field(Field::Attribute)
                    .is_some_and(|a| text(a, src) == attr)
        };
        // `self.<attr>.<method>(…)`
        let is_method_of_attr = |n: Node<'t>, method: &str| {
            n.kind_name() == "call"
                && n.field(Field::Function).is_some_and(|f| {
                    f.kind_name() == "attribute"
                        && f.field(Field::Attribute)
                            .is_some_and(|a| text(a, src) == method)
                        && f.field(Field::Object).is_some_and(is_self_attr)
                })
        };
        let nav = self.ix.nav;
        let mut yields = 0;
        let mut executes = false;
        let mut made = None;
        let mut stack = vec![info.body];
        while let Some(n) = stack.pop() {
            match n.kind_name() {
                "function_definition" | "lambda" | "class_definition" => continue,
                "yield" => yields += 1,
                "call" if is_method_of_attr(n, "execute") => executes = true,
                "assignment" => {
                    let (Some(l), Some(r)) = (n.field(Field::Left), n.field(Field::Right)) else {
                        continue;
                    };
                    let pairs: Vec<(Node<'t>, Node<'t>)> = if is_self_attr(l) {
                        vec![(l, r)]
                    } else if matches!(l.kind_name(), "pattern_list" | "tuple_pattern")
                        && matches!(r.kind_name(), "expression_list" | "tuple")
                    {
                        let ls: Vec<Node<'t>> = nav.named_children(l).collect();
                        let rs: Vec<Node<'t>> = nav.named_children(r).collect();
                        if ls.len() != rs.len() {
                            continue;
                        }
                        ls.into_iter().zip(rs).collect()
                    } else {
                        Vec::new()
                    };
                    for (a, b) in pairs {
                        if !is_self_attr(a) {
                            continue;
                        }
                        if is_method_of_attr(b, "pipeline") {
                            if made.is_some() {
                                return None;
                            }
                            made = Some(b);
                        }
                    }
                }
                _ => {}
            }
            stack.extend(nav.named_children(n));
        }
        (yields == 1 && executes).then_some(made).flatten()
    }
}
