//! Clients known by the transaction callbacks they run.
//!
//! `client.transaction(func, *watches)` is redis-py's optimistic-locking loop: it
//! makes `pipeline(True)` (on `Redis` and on `RedisCluster` alike), `WATCH`es the
//! keys, calls `func(pipe)` and executes the pipeline. A receiver whose kind the code
//! does not show is a client of unknown kind (the profile decides, as for any client
//! known by use) when it runs, with `transaction`, a function of the file whose first
//! parameter is used as that pipeline: it receives `multi()` (or `watch()`) and a
//! Redis command. A `transaction(…)` of another library with another first argument
//! (a list of compares, nothing at all), or a callback that never starts a
//! transaction on its parameter, is no evidence.

use crate::byuse::{is_command, RecvKey};
use crate::index::{text, FuncId};
use crate::syntax::{Field, NodeExt};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The function of the file that `arg`, the first argument of a call in `at`
    /// (a function or the module), names: a lambda, or a `def` of that name nested in
    /// `at` (or, at module level, a module function). `None` when no single one is.
    pub(crate) fn callback_func(&self, arg: Node<'t>, at: Option<FuncId>) -> Option<FuncId> {
        if arg.kind_name() == "lambda" {
            return self.ix.func_by_node.get(&arg.id()).copied();
        }
        if arg.kind_name() != "identifier" {
            return None;
        }
        let name = text(arg, self.src());
        let mut found = None;
        for (id, f) in self.ix.funcs.iter().enumerate() {
            if f.name != name || f.is_lambda || f.parent != at || f.class.is_some() {
                continue;
            }
            if found.is_some() {
                return None;
            }
            found = Some(id);
        }
        found
    }

    /// The receivers of `transaction(callback, …)` calls whose callback uses its
    /// first parameter as a transaction: `called` holds the methods called on each
    /// receiver of the file.
    pub(crate) fn transaction_evidence(
        &self,
        transactions: &[(RecvKey, Node<'t>)],
        called: &HashMap<RecvKey, HashSet<&'t str>>,
    ) -> Vec<RecvKey> {
        let mut out = Vec::new();
        for (recv, call) in transactions {
            let Some(args) = call.field(Field::Arguments) else {
                continue;
            };
            let Some(first) = self.ix.nav.named_children(args).next() else {
                continue;
            };
            let at = self.ix.enclosing_func(*call);
            let Some(cb) = self.callback_func(first, at) else {
                continue;
            };
            let Some(param) = self.ix.funcs[cb].params.first() else {
                continue;
            };
            if param.star {
                continue;
            }
            let key = (crate::byuse::Scope::Func(cb), param.name.clone());
            let Some(ms) = called.get(&key) else {
                continue;
            };
            if ms.iter().any(|m| matches!(*m, "multi" | "watch"))
                && ms.iter().any(|m| is_command(m))
            {
                out.push(recv.clone());
            }
        }
        out
    }
}
