//! `multi()`, `pipeline()` and node-redis 3 `batch()` batches up to `exec()` / `execAsPipeline()`.

use super::*;

impl<'t> Analyzer<'t> {
    /// A batch ended by `exec()` / `execAsPipeline()` at `call`, whose receiver
    /// `recv` evaluates to the batch.
    pub(super) fn batch(
        &mut self,
        call: Node<'t>,
        recv: Node<'t>,
        c: Client,
        b: Batch,
        as_pipeline: bool,
    ) {
        let Some((start, queued)) = self.queued(recv) else {
            return;
        };
        let mode = Some((b, as_pipeline));
        let mut keys = Vec::new();
        // `multi([['zrem', k, id], ['hdel', k2, id]])`: the commands given first.
        for items in self.array_commands(start, c) {
            keys.extend(self.array_command(&items, c, mode));
        }
        for q in queued {
            keys.extend(self.command(q, c, mode));
        }
        if keys.len() < 2 {
            return;
        }
        // What a cluster does with the batch as a whole: a transaction is refused when
        // its keys span slots (node-redis sends it to one node, ioredis checks it
        // first); a pipeline works while its slots share a node.
        let pipeline = b != Batch::Multi || as_pipeline;
        let (name, policy) = match (b, as_pipeline) {
            (Batch::Multi, false) => ("MULTI", CrossSlotPolicy::Refused),
            (Batch::Multi, true) => ("execAsPipeline", CrossSlotPolicy::SameNode),
            (Batch::Pipeline, _) => ("pipeline", CrossSlotPolicy::SameNode),
            (Batch::Grouped, _) => ("batch", CrossSlotPolicy::SameNode),
        };
        self.push_unit(Unit {
            kind: UnitKind::Transaction,
            name: name.into(),
            span: start.start_byte()..call.end_byte(),
            anchor: start.byte_range(),
            keys,
            policy,
        });
        let note = match (c.lib, pipeline) {
            _ if b == Batch::Grouped => {
                "node-redis 3 has no cluster client: `batch()` is sent to the node the client \
                 is connected to, where a command for another node's slot fails with `MOVED` \
                 while the others run, leaving a partial write"
            }
            (Lib::IoRedis, false) => {
                "ioredis checks a transaction before sending it: keys on two nodes are \
                 rejected by the client (`All keys in the pipeline should belong to the same \
                 slots allocation group`), nothing written; keys in two slots of one node get \
                 `CROSSSLOT` at `EXEC`"
            }
            (Lib::NodeRedis, false) if self.node_redis_3() => {
                "node-redis 3 has no cluster client: the transaction goes to the one node it \
                 is connected to, where keys of another slot get `CROSSSLOT` and keys of \
                 another node `MOVED`, and the transaction is discarded"
            }
            (Lib::NodeRedis, false) => {
                "node-redis sends the transaction to the first key's node: another slot of \
                 that node gets `CROSSSLOT`, another node ends in `Too many Cluster \
                 redirections` (node-redis 6), with nothing written"
            }
            (Lib::IoRedis, true) => {
                "ioredis checks a pipeline before sending it: commands whose keys are on two \
                 nodes are rejected by the client (`All keys in the pipeline should belong to \
                 the same slots allocation group`), nothing written; on one node it runs, \
                 not atomically"
            }
            (Lib::NodeRedis, true) => {
                "node-redis sends `execAsPipeline()` to the first key's node: a command for \
                 another node fails with `MOVED` after the commands before it have run, \
                 leaving a partial write"
            }
        };
        self.model.unit_notes.push(UnitNote {
            unit: self.model.units.len() - 1,
            note: note.to_string(),
        });
    }

    /// The calls queued on a batch, in order, and the call that started it: the chain
    /// down to `multi()`, through a `const` holding the batch and the statements
    /// that queue on it in the same block before the end.
    pub(super) fn queued(&mut self, recv: Node<'t>) -> Option<(Node<'t>, Vec<Node<'t>>)> {
        let mut chain = Vec::new();
        let mut cur = unwrap_expr(recv);
        loop {
            match cur.kind() {
                "call_expression" => {
                    let (obj, m, _) = self.method_call(cur)?;
                    if matches!(m, "multi" | "pipeline" | "batch") && self.starts_batch(obj, m) {
                        chain.reverse();
                        return Some((cur, chain));
                    }
                    chain.push(cur);
                    cur = unwrap_expr(obj);
                }
                "identifier" => {
                    let name = text(cur, self.src).to_string();
                    let v = match self.lookup(&name, cur) {
                        Decl::Value(v) => v,
                        // `let multi = …;` assigned again only after this read (a new
                        // batch made in the callback of `exec()`): its first value.
                        Decl::Assigned(decl, Some(init))
                            if self.assigned_only_after(&name, decl, cur) =>
                        {
                            init
                        }
                        _ => return None,
                    };
                    let (start, mut before) = self.queued(v)?;
                    // Statements `name.cmd(…)…;` between the declaration and the end.
                    let decl_stmt = self.statement_of(v)?;
                    let end_stmt = self.statement_of(recv)?;
                    let block = self.parent(decl_stmt)?;
                    if self.parent(end_stmt) != Some(block) {
                        return None;
                    }
                    let mut c = block.walk();
                    let stmts: Vec<Node<'t>> = block.named_children(&mut c).collect();
                    let mut inside = false;
                    for s in stmts {
                        if s == decl_stmt {
                            inside = true;
                            continue;
                        }
                        if s == end_stmt {
                            break;
                        }
                        if !inside {
                            continue;
                        }
                        if s.kind() != "expression_statement" {
                            // Queued under an `if`, a `switch` or in a loop: which of
                            // those commands meet in the batch is not known, but the
                            // others still do. Sent, dropped or handed on there: not
                            // known at all.
                            if self.mentions(s, &name) && !self.only_queues_on(s, &name) {
                                return None;
                            }
                            continue;
                        }
                        let Some(e) = s.named_child(0) else { continue };
                        let mut calls = Vec::new();
                        if self.chain_on(unwrap_expr(e), &name, &mut calls) {
                            calls.reverse();
                            // A batch sent (or dropped) before the end starts afresh.
                            let sent = calls.iter().rposition(|&c| {
                                self.method_call(c).is_some_and(|(_, m, _)| {
                                    matches!(m, "exec" | "execAsPipeline" | "discard")
                                })
                            });
                            match sent {
                                Some(i) => {
                                    before.clear();
                                    before.extend(calls.into_iter().skip(i + 1));
                                }
                                None => before.extend(calls),
                            }
                        } else if self.mentions(s, &name) {
                            // The batch is used in a way not followed (passed to a
                            // function, sent in a callback): what it holds is not known.
                            return None;
                        }
                    }
                    chain.reverse();
                    before.extend(chain);
                    return Some((start, before));
                }
                _ => return None,
            }
        }
    }

    /// The commands given to `multi(…)` / `batch(…)` as an array of arrays (ioredis,
    /// node-redis 3): the elements of each command written as an array literal, in
    /// order. An array in a `const` counts when the function only `push`es onto it
    /// besides (a command pushed under a condition is left out); any other use of it
    /// (passed on, spliced, emptied) leaves its commands unknown.
    pub(super) fn array_commands(&mut self, start: Node<'t>, c: Client) -> Vec<Vec<Node<'t>>> {
        if c.lib == Lib::NodeRedis && self.options.node_redis_major.is_some_and(|v| v >= 4) {
            // node-redis 4 and later take no commands there.
            return Vec::new();
        }
        let args = self.args(start);
        let [arg] = args[..] else {
            return Vec::new();
        };
        let arg = unwrap_expr(arg);
        let array = match arg.kind() {
            "array" => arg,
            "identifier" => {
                let name = text(arg, self.src).to_string();
                let Decl::Value(v) = self.lookup(&name, arg) else {
                    return Vec::new();
                };
                let v = unwrap_expr(v);
                if v.kind() != "array" || !self.only_pushed(&name, v, arg) {
                    return Vec::new();
                }
                v
            }
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        let mut cur = array.walk();
        for e in array.named_children(&mut cur) {
            let e = unwrap_expr(e);
            if e.kind() != "array" {
                continue;
            }
            let items: Vec<Node<'t>> = named_kids(e);
            if items.is_empty() || items.iter().any(|x| x.kind() == "spread_element") {
                continue;
            }
            out.push(items);
        }
        out
    }

    /// Whether the array `name`, declared with the value `value`, is used in its
    /// function only as `name.push(…)` and at `used` (the call that sends it).
    fn only_pushed(&self, name: &str, value: Node<'t>, used: Node<'t>) -> bool {
        let scope = self.function_of(value).unwrap_or(self.root);
        let mut stack = vec![scope];
        let mut cur = scope.walk();
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" && text(x, self.src) == name && x != used {
                let p = self.parent(x);
                let declared = p.is_some_and(|p| {
                    p.kind() == "variable_declarator"
                        && p.child_by_field_name("name") == Some(x)
                        && p.child_by_field_name("value") == Some(value)
                });
                let pushed = p.is_some_and(|p| {
                    p.kind() == "member_expression"
                        && p.child_by_field_name("object") == Some(x)
                        && p.child_by_field_name("property")
                            .is_some_and(|m| text(m, self.src) == "push")
                        && self
                            .parent(p)
                            .is_some_and(|call| call.kind() == "call_expression")
                });
                if !declared && !pushed {
                    return false;
                }
            }
            stack.extend(x.named_children(&mut cur));
        }
        true
    }

    /// Whether `recv.m()` (`m` is `multi`, `pipeline` or `batch`) starts a batch:
    /// `recv` is a client (a node-redis one for `batch`), or, while a receiver known
    /// by use is read, `m` is `multi` on a receiver the code does not resolve.
    fn starts_batch(&mut self, recv: Node<'t>, m: &str) -> bool {
        match self.eval(recv) {
            Value::Client(c) => m != "batch" || c.lib == Lib::NodeRedis,
            Value::Unknown => {
                self.by_use.is_some() && m == "multi" && !pipeline_like(recv, self.src)
            }
            _ => false,
        }
    }

    /// `exec()` on a value the code does not resolve: a transaction of a client known
    /// by use when the project depends on one client library
    /// ([`Options::library`]) and the chain from an unresolved receiver's `multi()`
    /// queues at least one command that only Redis clients have
    /// ([`keylint_core::evidence::ONLY_REDIS`]: `llen`, `hset`, `zadd`, …). The
    /// client's kind and prefix are unknown.
    pub(super) fn batch_by_use(&mut self, call: Node<'t>, recv: Node<'t>) {
        let Some(c) = self.by_use_client() else {
            return;
        };
        self.by_use = Some(c);
        let queued = self.queued(recv).map(|(_, q)| q).unwrap_or_default();
        let evidence = queued.iter().any(|&q| {
            self.method_call(q)
                .is_some_and(|(_, m, _)| keylint_core::evidence::only_redis(m))
        });
        if evidence {
            self.queued_by_use.extend(queued.iter().map(|q| q.id()));
            self.batch(call, recv, c, Batch::Multi, false);
        }
        self.by_use = None;
    }

    /// The client a receiver known by use is taken for: of the project's one library
    /// ([`Options::library`]), of unknown kind and prefix.
    pub(super) fn by_use_client(&self) -> Option<Client> {
        let lib = match self.options.library? {
            crate::Library::IoRedis => Lib::IoRedis,
            crate::Library::NodeRedis => Lib::NodeRedis,
        };
        Some(Client {
            lib,
            kind: Kind::Unknown,
            prefix: Prefix::Unknown,
        })
    }

    /// Whether every mention of `name` in `n` is the receiver of a command queued on
    /// it (`name.hset(…)`, `name.zadd(…).publish(…)`): not sent, dropped, watched,
    /// reassigned or handed to anything.
    fn only_queues_on(&self, n: Node<'t>, name: &str) -> bool {
        let mut stack = vec![n];
        let mut c = n.walk();
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" && text(x, self.src) == name {
                let Some(m) = self.parent(x) else {
                    return false;
                };
                let queued = m.kind() == "member_expression"
                    && m.child_by_field_name("object") == Some(x)
                    && m.child_by_field_name("property").is_some_and(|p| {
                        !matches!(
                            text(p, self.src),
                            "exec"
                                | "execAsPipeline"
                                | "discard"
                                | "watch"
                                | "unwatch"
                                | "multi"
                                | "pipeline"
                                | "then"
                        )
                    })
                    && self
                        .parent(m)
                        .is_some_and(|call| call.kind() == "call_expression");
                if !queued {
                    return false;
                }
            }
            // A function in the branch may run later, or never.
            if x != n && is_function(x.kind()) && self.mentions(x, name) {
                return false;
            }
            stack.extend(x.named_children(&mut c));
        }
        true
    }

    /// One command of `multi([…])` given as an array (`['zrem', key, id]`).
    fn array_command(
        &mut self,
        items: &[Node<'t>],
        c: Client,
        mode: Option<(Batch, bool)>,
    ) -> Vec<usize> {
        let Some((command, keys, cluster)) = self.raw_command(items) else {
            return Vec::new();
        };
        // node-redis 3 splits nothing.
        let cluster = if c.lib == Lib::NodeRedis {
            Cluster::Routed
        } else {
            cluster
        };
        let (first, last) = (items[0], items[items.len() - 1]);
        self.emit_command(
            first.start_byte()..last.end_byte(),
            first.byte_range(),
            command,
            &keys,
            cluster,
            c,
            mode,
        )
    }

    /// Whether the identifier `name` appears in `n`.
    pub(super) fn mentions(&self, n: Node<'t>, name: &str) -> bool {
        let mut stack = vec![n];
        let mut c = n.walk();
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" && text(x, self.src) == name {
                return true;
            }
            stack.extend(x.named_children(&mut c));
        }
        false
    }

    /// Whether `e` is a chain of calls on the identifier `name` (`tx.set(…).get(…)`);
    /// collects the calls, outermost first.
    pub(super) fn chain_on(&self, e: Node<'t>, name: &str, out: &mut Vec<Node<'t>>) -> bool {
        let mut cur = e;
        loop {
            match cur.kind() {
                "call_expression" => {
                    let Some((obj, _, _)) = self.method_call(cur) else {
                        return false;
                    };
                    out.push(cur);
                    cur = unwrap_expr(obj);
                }
                "identifier" => return text(cur, self.src) == name,
                _ => return false,
            }
        }
    }

    /// Whether every assignment of the `let` declared at `decl` comes after the read
    /// `at` in the source, none in a function declaration (which is hoisted, and could
    /// run before the read), and the read is not in a function nested in the
    /// declaration's scope. The read and the declaration are checked to be in one
    /// block by the caller, so nothing between them assigns it.
    pub(super) fn assigned_only_after(&mut self, name: &str, decl: Node<'t>, at: Node<'t>) -> bool {
        let is_let = self
            .ancestry(decl)
            .map(|(_, p)| p)
            .find(|p| matches!(p.kind(), "lexical_declaration" | "variable_declaration"))
            .and_then(|d| d.child(0))
            .is_some_and(|k| text(k, self.src) == "let");
        // Read in a function nested in the declaration's scope (a callback), it may
        // run after the assignments.
        let deferred = self
            .ancestry(at)
            .any(|(_, p)| is_function(p.kind()) && p.start_byte() > decl.start_byte());
        if !is_let || deferred {
            return false;
        }
        let targets = self.assignments.get(name).cloned().unwrap_or_default();
        for (target, _) in targets {
            if !matches!(self.lookup(name, target), Decl::Assigned(d, _) if d == decl) {
                continue;
            }
            // A function declared inside the declaration's scope, not around it.
            let hoisted = self.ancestry(target).any(|(_, p)| {
                matches!(
                    p.kind(),
                    "function_declaration" | "generator_function_declaration"
                ) && p.start_byte() > decl.start_byte()
            });
            if target.start_byte() < at.end_byte() || hoisted {
                return false;
            }
        }
        true
    }

    /// The statement that contains `n`.
    pub(super) fn statement_of(&self, n: Node<'t>) -> Option<Node<'t>> {
        self.ancestry(n)
            .find(|(_, p)| matches!(p.kind(), "statement_block" | "program" | "switch_case"))
            .map(|(statement, _)| statement)
    }
}

/// Whether `c.m(…)` is a `watch` the client does not have: node-redis's cluster client
/// (checked live with node-redis 6) has no `watch`/`WATCH` method, so the call fails
/// before any key is sent and its keys are no finding's business.
pub(super) fn no_watch(c: Client, m: &str) -> bool {
    c.lib == Lib::NodeRedis
        && c.kind == Kind::Cluster
        && matches!(m.to_ascii_lowercase().as_str(), "watch" | "unwatch")
}

/// A receiver named like a batch or a cache (`pipe`, `tx`, `this.cache`): never taken
/// for a client by use.
pub(super) fn pipeline_like(recv: Node<'_>, src: &str) -> bool {
    let t = text(recv, src);
    let last = t
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .find(|s| !s.is_empty())
        .unwrap_or(t)
        .to_ascii_lowercase();
    matches!(
        last.as_str(),
        "pipe" | "pipeline" | "p" | "tx" | "multi" | "batch" | "transaction" | "cache" | "_cache"
    ) || last.ends_with("cache")
}
