//! A pipeline kept on an attribute and filled by other methods: a unit of work.
//!
//! ```python
//! def begin(self):
//!     self._tx = self.redis.pipeline()
//!
//! @property
//! def tx(self):
//!     return self._tx
//!
//! def add_invite(self, doc_id, invite_id):
//!     self.tx.hset(f"invite:{invite_id}", mapping=...)
//!     self.tx.sadd(f"invites:document:{doc_id}", invite_id)
//!
//! def commit(self):
//!     self._tx.execute()
//! ```
//!
//! The pipeline is made in one method (`begin`, or the constructor), executed in
//! another, and each method in between queues commands on it. Whatever runs before
//! and after, the commands one method queues with no `execute()` between them are in
//! the same batch: one `MULTI`/`EXEC` when the pipeline is a transaction. Each such
//! method is judged as that batch, at its own commands.
//!
//! Followed only when every assignment of the attribute in the class is that one
//! `pipeline()` call or `None`, and, for the method judged: it reads the pipeline
//! only as `self.<attr>` (or through a property of the class that returns it) and
//! only to queue on it, never handing it to another call; it assigns no such
//! attribute; it calls no `execute()`, `reset()`, `discard()` or `watch()` (which
//! puts the pipeline in immediate mode), and no method of the class that executes
//! the pipeline, directly or through its other methods. All of these are allowed
//! before the method's first queued command, outside any loop around its commands:
//! a flush when the batch is full, then the pipeline made lazily (`if self.pipe is
//! None: self.pipe = self.db.pipeline()`, an `if` that holds none of the commands;
//! the method that makes it otherwise is not judged so). An `execute()` (or a call
//! of a method that executes it, `self.flush()`) is also allowed after the last
//! command the method queues, outside any loop around its commands: the method
//! then ends the batch its commands are in, and commands its callers queued before
//! only add keys to it.
//! Another object's attribute (`other._tx`) is another pipeline and is not read so.

use crate::eval::Value;
use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// Marks the pipeline `v` as kept on attribute `attr` of class `c`, when it is
    /// a plain one made by a `pipeline()` call of this file.
    pub(crate) fn mark_held(&mut self, c: ClassId, attr: &str, v: &Value<'t>) {
        let Value::Pipe(p) = v else {
            return;
        };
        let info = &mut self.pipes[*p];
        if info.created.is_none()
            || info.at_block_end
            || info.transaction_call.is_some()
            || info.via.is_some()
            || info.held.is_some()
        {
            return;
        }
        info.held = Some((c, attr.to_string()));
    }

    /// How the methods of class `c` reach the pipeline held in `self.<attr>`:
    /// the names they read it through (the attribute, and the properties of the class
    /// and its bases of the file that return it), and the methods that execute it,
    /// directly (`execs`, the functions with an `execute()` or `reset()` of it) or
    /// through other methods of the class. Computed once per pipeline.
    pub(crate) fn held_reads(&self, c: ClassId, attr: &str, execs: &[FuncId]) -> HeldReads {
        let methods: Vec<FuncId> = self
            .ix
            .class_chain(c)
            .into_iter()
            .flat_map(|k| self.ix.classes[k].methods.values().copied())
            .collect();
        let mut names = vec![attr.to_string()];
        let read = format!("return self.{attr}");
        for &m in &methods {
            let info = &self.ix.funcs[m];
            if info.decorators.iter().any(|d| d == "property")
                && text(info.body, self.src()).contains(&read)
            {
                names.push(info.name.clone());
            }
        }
        let mut executing: Vec<String> = execs
            .iter()
            .map(|&g| self.ix.funcs[g].name.clone())
            .collect();
        loop {
            let before = executing.len();
            for &m in &methods {
                let name = &self.ix.funcs[m].name;
                if executing.contains(name) {
                    continue;
                }
                let mb = text(self.ix.funcs[m].body, self.src());
                if executing.iter().any(|r| mb.contains(&format!("self.{r}("))) {
                    executing.push(name.clone());
                }
            }
            if executing.len() == before {
                break;
            }
        }
        HeldReads { names, executing }
    }

    /// Whether the commands function `f` queues on the held pipeline are one batch
    /// of their own (see the module's documentation); `created` is where it is made.
    pub(crate) fn held_batch(
        &self,
        f: FuncId,
        held: &HeldReads,
        created: usize,
        calls: &[Node<'t>],
    ) -> bool {
        let info = &self.ix.funcs[f];
        let Some(me) = info.self_name() else {
            return false;
        };
        if me != "self" {
            return false;
        }
        let Some(first) = calls.iter().map(|c| c.start_byte()).min() else {
            return false;
        };
        let names = &held.names;
        // Every command is queued on `self.<name>` itself.
        let on_held = |call: &Node<'t>| {
            call.field(Field::Function)
                .and_then(|fun| fun.field(Field::Object))
                .is_some_and(|obj| {
                    let t = text(obj, self.src());
                    t.strip_prefix("self.")
                        .is_some_and(|n| names.iter().any(|x| x == n))
                })
        };
        if !calls.iter().all(on_held) {
            return false;
        }
        // What may end or replace the batch is allowed before the first command the
        // method queues, outside any loop around its commands: a flush when the batch
        // is full, then `if self.pipe is None: self.pipe = db.pipeline()`.
        let before = |at: usize| at < first && !self.loop_around(info.body, at, calls);
        // The method that makes the pipeline: only lazily, under an `if` that holds
        // none of the commands.
        if info.node.byte_range().contains(&created)
            && !(before(created) && self.lazily_made(info.body, created, first))
        {
            return false;
        }
        // An `execute()` after every command the method queues, outside any loop
        // around them, ends the batch they are in (pyredise's `self.flush()` at the
        // end of each query): what callers queued before is in it too, and only adds
        // keys.
        let Some(last) = calls.iter().map(|c| c.end_byte()).max() else {
            return false;
        };
        let after = |at: usize| at >= last && !self.loop_around(info.body, at, calls);
        let start = info.body.start_byte();
        let body = text(info.body, self.src());
        let outside_batch = |pat: &str| {
            body.match_indices(pat)
                .all(|(i, _)| before(start + i) || after(start + i))
        };
        // `watch()` puts the pipeline in immediate mode until `multi()`.
        if ![".execute(", ".reset(", ".discard(", ".watch("]
            .iter()
            .all(|w| outside_batch(w))
        {
            return false;
        }
        // No method that executes the pipeline is called, directly or through other
        // methods of the class.
        if !held
            .executing
            .iter()
            .all(|name| outside_batch(&format!("self.{name}(")))
        {
            return false;
        }
        // `self.<name>` is read only to call a method on it: never assigned, passed
        // on, or kept in a local (a test or an assignment before the commands).
        names.iter().all(|n| {
            let pat = format!("self.{n}");
            body.match_indices(&pat).all(|(i, _)| {
                let after = &body[i + pat.len()..];
                let next = after.chars().next();
                let word = next.is_some_and(|ch| ch.is_alphanumeric() || ch == '_');
                word || after.starts_with('.') && !after.starts_with(". ") || before(start + i)
            })
        })
    }

    /// Whether a loop in `body` holds both `at` and one of `calls`.
    fn loop_around(&self, body: Node<'t>, at: usize, calls: &[Node<'t>]) -> bool {
        let nav = self.ix.nav;
        let mut stack = vec![body];
        while let Some(x) = stack.pop() {
            if !x.byte_range().contains(&at) {
                continue;
            }
            if matches!(x.kind_name(), "for_statement" | "while_statement")
                && calls
                    .iter()
                    .any(|c| x.byte_range().contains(&c.start_byte()))
            {
                return true;
            }
            stack.extend(nav.named_children(x));
        }
        false
    }

    /// Whether `at` lies in the body of an `if` of `body` that ends before `first`.
    fn lazily_made(&self, body: Node<'t>, at: usize, first: usize) -> bool {
        let nav = self.ix.nav;
        let mut stack = vec![body];
        while let Some(x) = stack.pop() {
            if !x.byte_range().contains(&at) {
                continue;
            }
            if x.kind_name() == "if_statement" && x.end_byte() <= first {
                return x
                    .field(Field::Consequence)
                    .is_some_and(|c| c.byte_range().contains(&at));
            }
            stack.extend(nav.named_children(x));
        }
        false
    }
}

/// What [`crate::lower::Analyzer::held_reads`] finds.
pub(crate) struct HeldReads {
    names: Vec<String>,
    executing: Vec<String>,
}
