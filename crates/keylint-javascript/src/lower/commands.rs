//! Commands on a client: their keys by the method tables, their units and policies,
//! `.map()` families.

use super::*;

/// The binding of an ioredis client's `keyPrefix` that the code does not show.
const IO_KEY_PREFIX: &str = "keyPrefix@ioredis";

/// The binding of a node-redis client's prefix that the code does not show.
const NODE_KEY_PREFIX: &str = "keyPrefix@node-redis";

impl<'t> Analyzer<'t> {
    /// The method name and receiver of a call `recv.method(…)`.
    pub(super) fn method_call(&self, call: Node<'t>) -> Option<(Node<'t>, &'t str, Node<'t>)> {
        let f = call.child_by_field_name("function")?;
        if f.kind() != "member_expression" {
            return None;
        }
        let obj = f.child_by_field_name("object")?;
        let prop = f.child_by_field_name("property")?;
        Some((obj, text(prop, self.src), f))
    }

    pub(super) fn args(&self, call: Node<'t>) -> Vec<Node<'t>> {
        let Some(a) = call.child_by_field_name("arguments") else {
            return Vec::new();
        };
        let mut c = a.walk();
        a.named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect()
    }

    /// Whether a method name may be a command, a batch end or a script call, before
    /// the receiver is evaluated.
    pub(super) fn interesting(&self, m: &str) -> bool {
        matches!(
            m,
            "exec" | "execAsPipeline" | "call" | "sendCommand" | "send_command"
        ) || m.starts_with("eval")
            || m.starts_with("EVAL")
            || methods::ioredis(m).is_some()
            || methods::node_redis(m).is_some()
            || methods::single_key(m).is_some()
            || self.defined.contains_key(m.trim_end_matches("Buffer"))
            || self.node_scripts.contains_key(m)
    }

    pub(super) fn lower_call(&mut self, call: Node<'t>) {
        if self.wrapper_call(call) {
            return;
        }
        let Some((recv, m, _)) = self.method_call(call) else {
            return;
        };
        if !self.interesting(m) {
            return;
        }
        let rv = self.eval(recv);
        match (m, rv) {
            ("exec" | "execAsPipeline", Value::Batch(c, b)) => {
                self.batch(call, recv, c, b, m == "execAsPipeline");
            }
            (_, Value::Client(c)) => {
                self.command(call, c, None);
            }
            ("exec", Value::Unknown) => self.batch_by_use(call, recv),
            (m, Value::Unknown)
                if keylint_core::evidence::only_redis(m)
                    || self.defined.contains_key(m.trim_end_matches("Buffer")) =>
            {
                self.by_use_calls.push(call);
            }
            _ => {}
        }
    }

    /// A command on client `c` (inside a batch when `batch` says which): its key uses,
    /// and its unit when it takes several keys. Returns the key uses.
    pub(super) fn command(
        &mut self,
        call: Node<'t>,
        c: Client,
        batch: Option<(Batch, bool)>,
    ) -> Vec<usize> {
        let Some((_, m, f)) = self.method_call(call) else {
            return Vec::new();
        };
        let mut args = self.args(call);
        // A callback last (`client.mget(a, b, (err, r) => …)`, node-redis 3 and
        // ioredis) is no argument of the command.
        if args.last().is_some_and(|a| {
            matches!(
                unwrap_expr(*a).kind(),
                "arrow_function" | "function_expression" | "function"
            )
        }) {
            args.pop();
        }
        if let Some(d) = self.defined.get(m.trim_end_matches("Buffer")).cloned() {
            if c.lib == Lib::IoRedis {
                return self.defined_call(c, call, f, &args, d, batch.is_some());
            }
        }
        if c.lib == Lib::NodeRedis {
            if let Some(Some(s)) = self.node_scripts.get(m).cloned() {
                return self.node_script_call(c, call, f, &args, s, batch.is_some());
            }
        }
        if super::batches::no_watch(c, m) {
            return Vec::new();
        }
        if m.to_ascii_lowercase().starts_with("eval") {
            return self.eval_call(call, f, m, &args, c, batch.is_some());
        }
        let Some((command, keys, cluster)) = self.command_keys(c.lib, m, &args) else {
            return Vec::new();
        };
        self.emit_command(
            call.byte_range(),
            f.byte_range(),
            command,
            &keys,
            cluster,
            c,
            batch,
        )
    }

    /// Whether a node-redis method is written as node-redis 3 writes it when the
    /// project's major is not known: a lower-case name that node-redis 4 and later do
    /// not have (`sinterstore`, `send_command`: they write `sInterStore`,
    /// `sendCommand`).
    fn legacy_spelling(&self, lib: Lib, m: &str) -> bool {
        lib == Lib::NodeRedis
            && self.options.node_redis_major.is_none()
            && !m.is_empty()
            && m == m.to_ascii_lowercase()
            && methods::node_redis(m).is_none()
            && (methods::ioredis(m).is_some() || m == "send_command")
    }

    /// The key uses of a command whose keys are known, and its unit when it takes
    /// several keys (`span`: the whole call, `anchor`: where to point).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit_command(
        &mut self,
        span: Span,
        anchor: Span,
        command: &'static str,
        keys: &[Node<'t>],
        cluster: Cluster,
        c: Client,
        batch: Option<(Batch, bool)>,
    ) -> Vec<usize> {
        let mut uses = Vec::new();
        for k in keys {
            if let Some((body, varying)) = self.map_family(*k) {
                let t = self.tpl(body);
                let u = self.key_use(t, body, command, c);
                self.family_of.insert(u, varying);
                uses.push(u);
                continue;
            }
            let t = self.tpl(*k);
            uses.push(self.key_use(t, *k, command, c));
        }
        let multi = methods::single_key(&command.to_ascii_lowercase()) != Some(command);
        if multi && !uses.is_empty() {
            let policy = self.policy(c, cluster, batch);
            self.push_unit(Unit {
                kind: UnitKind::Command,
                name: command.to_string(),
                span,
                anchor,
                keys: uses.clone(),
                policy,
            });
            if c.lib == Lib::NodeRedis
                && cluster == Cluster::Split
                && policy == CrossSlotPolicy::Refused
                && batch.is_none()
            {
                let note = match self.options.node_redis_major {
                    Some(m @ (4 | 5)) => format!(
                        "node-redis {m} (the project's package.json) sends it whole to the \
                         first key's node; node-redis 6 splits it by slot"
                    ),
                    _ => "a standalone node-redis client sends it whole; node-redis 6's \
                          cluster client splits it by slot"
                        .to_string(),
                };
                self.model.unit_notes.push(UnitNote {
                    unit: self.model.units.len() - 1,
                    note,
                });
            }
        }
        uses
    }

    /// Whether the project's node-redis is version 3 or older.
    pub(super) fn node_redis_3(&self) -> bool {
        self.options.node_redis_major.is_some_and(|m| m <= 3)
    }

    /// Commands that only Redis clients have, on receivers the code does not resolve
    /// (`this.bclient.brpoplpush(…)`), once every batch is read: a command of a client
    /// known by use when the project depends on one client library, unless a batch
    /// known by use queued it.
    pub(super) fn commands_by_use(&mut self) {
        let Some(c) = self.by_use_client() else {
            return;
        };
        for call in std::mem::take(&mut self.by_use_calls) {
            if self.queued_by_use.contains(&call.id()) {
                continue;
            }
            let Some((recv, m, _)) = self.method_call(call) else {
                continue;
            };
            if !self.plain_receiver(recv) {
                continue;
            }
            // A script command's name is the project's own: only a receiver named
            // like a client is taken for one.
            if !keylint_core::evidence::only_redis(m)
                && !super::scriptdir::client_like(recv, self.src)
            {
                continue;
            }
            self.command(call, c, None);
        }
    }

    /// A receiver that may be a client: a name or a chain of properties (not a call),
    /// not named like a batch or a cache, and not a name bound to a call.
    pub(super) fn plain_receiver(&mut self, recv: Node<'t>) -> bool {
        let r = unwrap_expr(recv);
        let chain_ok = {
            let mut cur = r;
            loop {
                match cur.kind() {
                    "identifier" | "this" => break true,
                    "member_expression" => match cur.child_by_field_name("object") {
                        Some(o) => cur = o,
                        None => break false,
                    },
                    _ => break false,
                }
            }
        };
        if !chain_ok || super::batches::pipeline_like(r, self.src) {
            return false;
        }
        if r.kind() == "identifier" {
            let name = text(r, self.src).to_string();
            if let Decl::Value(v) = self.lookup(&name, r) {
                if unwrap_expr(v).kind() == "call_expression" {
                    return false;
                }
            }
        }
        true
    }

    /// Records a binding of a prefix every key that begins with it shares (see
    /// `FileModel::client_prefixes`).
    pub(super) fn share_prefix(&mut self, binding: &str) {
        if !self.model.client_prefixes.iter().any(|b| b == binding) {
            self.model.client_prefixes.push(binding.to_string());
        }
    }

    /// The command a method call sends, its key arguments and what a cluster client
    /// of the library does with keys in several slots; `None` when they cannot be told.
    fn command_keys(
        &mut self,
        lib: Lib,
        m: &str,
        args: &[Node<'t>],
    ) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        // node-redis 3 reads its arguments as ioredis does (flat, lowercase names)
        // and has no cluster client: nothing is split.
        if lib == Lib::IoRedis || self.node_redis_3() || self.legacy_spelling(lib, m) {
            let (command, keys, cluster) = if matches!(m, "call" | "send_command") {
                self.raw_command(args)?
            } else {
                self.io_keys(m, args)?
            };
            let cluster = if lib == Lib::NodeRedis {
                Cluster::Routed
            } else {
                cluster
            };
            return Some((command, keys, cluster));
        }
        match lib {
            Lib::NodeRedis | Lib::IoRedis if m == "sendCommand" => {
                // `client.sendCommand([…])`, `cluster.sendCommand(key, ro, […])`.
                let argv = args
                    .iter()
                    .rev()
                    .find(|a| unwrap_expr(**a).kind() == "array")
                    .copied()?;
                let Value::Array(items, exact) = self.eval(argv) else {
                    return None;
                };
                let nodes: Vec<Node<'t>> = items.iter().map(|e| e.node).collect();
                if !exact {
                    return None;
                }
                self.raw_command(&nodes)
            }
            Lib::NodeRedis | Lib::IoRedis => self.node_keys(m, args),
        }
    }

    /// Adds a unit, with the families its keys stand for.
    pub(super) fn push_unit(&mut self, unit: Unit) {
        let ui = self.model.units.len();
        for &k in &unit.keys {
            if let Some(v) = self.family_of.get(&k) {
                self.model.families.push(KeyFamily {
                    unit: ui,
                    key: k,
                    varying: vec![v.clone()],
                    source: "the results of a `map`".into(),
                });
            }
        }
        self.model.units.push(unit);
    }

    /// `xs.map(x => expr)` or `xs.map((x) => { return expr; })`: the expression that
    /// gives each element and the binding of the parameter, which differs from element
    /// to element. A literal list mapped where it is written gives its keys one by
    /// one instead (see `mapped_list`).
    pub(super) fn map_family(&mut self, n: Node<'t>) -> Option<(Node<'t>, String)> {
        let n = unwrap_expr(n);
        if n.kind() != "call_expression" {
            return None;
        }
        if self.mapped_list(n).is_some() {
            return None;
        }
        let (_, m, _) = self.method_call(n)?;
        if m != "map" {
            return None;
        }
        let args = self.args(n);
        let [f] = args[..] else { return None };
        if f.kind() != "arrow_function" {
            return None;
        }
        let param = match f.child_by_field_name("parameter") {
            Some(p) => p,
            None => {
                let params = f.child_by_field_name("parameters")?;
                let mut c = params.walk();
                let ps: Vec<Node<'t>> = params.named_children(&mut c).collect();
                let [p] = ps[..] else { return None };
                match p.kind() {
                    "identifier" => p,
                    "required_parameter" => p
                        .child_by_field_name("pattern")
                        .filter(|x| x.kind() == "identifier")?,
                    _ => return None,
                }
            }
        };
        let expr = lone_statement(f.child_by_field_name("body")?, "return_statement")?;
        let binding = format!("{}@{}", text(param, self.src), f.start_byte());
        Some((expr, binding))
    }

    /// What a cluster does with a command whose keys span slots.
    pub(super) fn policy(
        &self,
        c: Client,
        cluster: Cluster,
        batch: Option<(Batch, bool)>,
    ) -> CrossSlotPolicy {
        if c.lib == Lib::IoRedis || cluster == Cluster::Routed {
            return CrossSlotPolicy::Refused;
        }
        // node-redis 3 has no cluster client: nothing is split.
        if self.options.node_redis_major.is_some_and(|v| v <= 3) {
            return CrossSlotPolicy::Refused;
        }
        match batch {
            // A transaction is sent whole to one node.
            Some((Batch::Multi, false)) => CrossSlotPolicy::Refused,
            Some(_) => CrossSlotPolicy::Split,
            None => match (c.kind, self.options.node_redis_major) {
                (Kind::Standalone, _) => CrossSlotPolicy::Refused,
                (_, Some(4 | 5)) => CrossSlotPolicy::Refused,
                // node-redis 6 splits it by slot; an unknown major may too.
                _ => CrossSlotPolicy::Split,
            },
        }
    }

    pub(super) fn key_use(&mut self, t: Tpl, n: Node<'t>, command: &str, c: Client) -> usize {
        // A key that begins with a prefix kept on its object (`this.keyPrefix + …`),
        // whose value the code does not show: like a client's `keyPrefix`, one value
        // for every key of a unit.
        let own = match t
            .parts
            .iter()
            .find(|p| !matches!(p, TPart::Lit { bytes, .. } if bytes.is_empty()))
        {
            Some(TPart::Hole(h))
                if this::is_prefix_label(&h.label)
                    || h.binding.starts_with(crate::modules::PREFIX) =>
            {
                Some(h.clone())
            }
            _ => None,
        };
        let shared = |lib: Lib| match lib {
            Lib::IoRedis => IO_KEY_PREFIX,
            Lib::NodeRedis => NODE_KEY_PREFIX,
        };
        let t = match (c.prefix, own) {
            (Prefix::None, Some(h)) => {
                self.share_prefix(&h.binding);
                t
            }
            (Prefix::Unknown, Some(h)) => {
                // The client's unknown prefix, then the object's: one unknown value.
                let binding = format!("{}+{}", shared(c.lib), h.binding);
                self.share_prefix(&binding);
                let mut p = Tpl::hole(HoleInfo {
                    label: format!("keyPrefix + {}", h.label),
                    binding,
                    span: None,
                    keylike: true,
                });
                let mut rest = t
                    .parts
                    .into_iter()
                    .skip_while(|p| !matches!(p, TPart::Hole(_)));
                rest.next();
                p.push(Tpl {
                    parts: rest.collect(),
                });
                p
            }
            (Prefix::None, None) => t,
            (Prefix::Lit(i), _) => {
                let mut p = self.prefixes[i].clone();
                p.push(t);
                p
            }
            (Prefix::Unknown | Prefix::Opaque, _) => {
                // ioredis prepends its `keyPrefix` to every key it sends (script keys
                // and batched commands included), and node-redis 3 its `prefix` (by
                // each command's key positions): one value for every key of a unit.
                // node-redis 6's `keyPrefix` is left unknown.
                let (binding, label) = if c.prefix != Prefix::Unknown {
                    ("keyPrefix", "keyPrefix")
                } else if c.lib == Lib::IoRedis {
                    (IO_KEY_PREFIX, "keyPrefix")
                } else if self.node_redis_3() {
                    (NODE_KEY_PREFIX, "prefix")
                } else {
                    ("keyPrefix", "keyPrefix")
                };
                if binding != "keyPrefix" {
                    self.share_prefix(binding);
                }
                let mut p = Tpl::hole(HoleInfo {
                    label: label.into(),
                    binding: binding.into(),
                    span: None,
                    keylike: true,
                });
                p.push(t);
                p
            }
        };
        let span = n.byte_range();
        self.model.keys.push(KeyUse {
            template: t.to_key_template(&span),
            span,
            command: command.to_string(),
            origin: KeyOrigin::Direct,
            via: None,
        });
        self.model.keys.len() - 1
    }

    /// ioredis arguments flattened one level: each element with whether its position
    /// is known (no array of unknown length before it).
    pub(super) fn flatten(&mut self, args: &[Node<'t>]) -> Vec<Flat<'t>> {
        let mut out = Vec::new();
        for &a in args {
            let u = unwrap_expr(a);
            let inner = if u.kind() == "spread_element" {
                u.named_child(0).map(unwrap_expr)
            } else {
                Some(u)
            };
            if let Some(m) = inner.filter(|m| self.map_family(*m).is_some()) {
                out.push(Flat::Family(m));
                continue;
            }
            // `keys.concat(args)`: the receiver's elements, then each argument's (an
            // array's elements, or the value itself).
            if u.kind() != "spread_element" {
                if let Some(parts) = inner.and_then(|i| self.concat_parts(i)) {
                    let mut c = Vec::with_capacity(parts.len());
                    for p in parts {
                        c.extend(self.flatten(&[p]));
                    }
                    out.extend(c);
                    continue;
                }
            }
            // An array (written here, or a constant one, or spread) is flattened one
            // level, as ioredis does.
            let array = match inner {
                Some(i) if i.kind() == "call_expression" => self.mapped_list(i),
                Some(i) if i.kind() == "array" || i.kind() == "identifier" => match self.eval(i) {
                    // A name's array may end in values of unknown number (`keys =
                    // keys.concat(args)`): its leading elements are still known.
                    Value::Array(items, _) => Some(items),
                    _ => None,
                },
                _ => None,
            };
            // A named array may have grown since it was written (`keys.push(k)`).
            let named = inner.is_some_and(|i| i.kind() == "identifier");
            if u.kind() == "spread_element" && array.is_none() {
                out.push(Flat::Many);
                continue;
            }
            if let Some(items) = array {
                for e in items {
                    if e.spread || matches!(e.value, Value::Array(..) | Value::Object(_)) {
                        out.push(Flat::Many);
                    } else {
                        out.push(Flat::One(e.node));
                    }
                }
                if named {
                    out.push(Flat::Many);
                }
                continue;
            }
            match u.kind() {
                "string" | "template_string" | "number" | "binary_expression"
                | "unary_expression" => out.push(Flat::One(u)),
                _ => match self.eval(u) {
                    Value::Str(_) | Value::Num(_) => out.push(Flat::One(u)),
                    _ => out.push(Flat::Many),
                },
            }
        }
        out
    }

    /// `r.concat(a, b)`: the receiver and the arguments, when the receiver is an
    /// array literal or a name bound to one (what `concat` gives is then their
    /// elements in order, an array argument's one level down, as `flatten` reads
    /// each of them).
    fn concat_parts(&mut self, n: Node<'t>) -> Option<Vec<Node<'t>>> {
        if n.kind() != "call_expression" {
            return None;
        }
        let (recv, m, _) = self.method_call(n)?;
        if m != "concat" {
            return None;
        }
        let r = unwrap_expr(recv);
        if !matches!(r.kind(), "array" | "identifier") {
            return None;
        }
        if !matches!(self.eval(r), Value::Array(..)) {
            return None;
        }
        let mut parts = vec![r];
        parts.extend(self.args(n));
        Some(parts)
    }

    /// The keys of an ioredis multi-key or single-key method.
    pub(super) fn io_keys(
        &mut self,
        m: &str,
        args: &[Node<'t>],
    ) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        if let Some(im) = methods::ioredis(m) {
            let IoKeys::Range { first, last, step } = im.keys else {
                return None;
            };
            let flat = self.flatten(args);
            return Some((
                im.command,
                range_keys(&flat, first, last, step)?,
                im.cluster,
            ));
        }
        let cmd = methods::single_key(m)?;
        if m != m.to_ascii_lowercase() {
            return None;
        }
        let first = unwrap_expr(*args.first()?);
        if matches!(first.kind(), "array" | "spread_element") {
            return None;
        }
        Some((cmd, vec![first], Cluster::Routed))
    }

    /// `call('MGET', a, b)` / `sendCommand(['MGET', a, b])`: the command's keys by the
    /// ioredis table's positions (the server's key specs), or its one key.
    pub(super) fn raw_command(
        &mut self,
        args: &[Node<'t>],
    ) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        let (name, rest) = args.split_first()?;
        let Value::Str(t) = self.eval(*name) else {
            return None;
        };
        let name = String::from_utf8(t.as_bytes()?).ok()?.to_ascii_lowercase();
        let cluster =
            methods::node_redis(&name.to_ascii_uppercase()).map_or(Cluster::Routed, |n| n.cluster);
        if let Some(im) = methods::ioredis(&name) {
            let IoKeys::Range { first, last, step } = im.keys else {
                return None;
            };
            let flat = self.flatten(rest);
            return Some((im.command, range_keys(&flat, first, last, step)?, cluster));
        }
        let cmd = methods::single_key(&name)?;
        let first = unwrap_expr(*rest.first()?);
        if matches!(first.kind(), "array" | "spread_element") {
            return None;
        }
        Some((cmd, vec![first], cluster))
    }

    /// The keys of a node-redis method, from the parameters its table row names.
    pub(super) fn node_keys(
        &mut self,
        m: &str,
        args: &[Node<'t>],
    ) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        let Some(nm) = methods::node_redis(m) else {
            let cmd = methods::single_key(m)?;
            let first = unwrap_expr(*args.first()?);
            if first.kind() == "spread_element" {
                return None;
            }
            return Some((cmd, vec![first], Cluster::Routed));
        };
        let mut keys = Vec::new();
        for p in &nm.params {
            let Some(&a) = args.get(p.index) else {
                continue;
            };
            if args[..p.index.min(args.len())]
                .iter()
                .any(|x| x.kind() == "spread_element")
            {
                return None;
            }
            let a = unwrap_expr(a);
            match p.kind {
                ParamKind::Key => keys.push(a),
                ParamKind::Keys if self.map_family(a).is_some() => keys.push(a),
                ParamKind::Keys => match self.eval(a) {
                    Value::Array(items, _) => {
                        keys.extend(items.iter().filter(|e| !e.spread).map(|e| e.node))
                    }
                    Value::Str(_) => keys.push(a),
                    _ => {}
                },
                ParamKind::Pairs => match self.eval(a) {
                    Value::Array(items, exact) => {
                        if items
                            .iter()
                            .all(|e| matches!(e.value, Value::Array(..)) && !e.spread)
                        {
                            for e in &items {
                                if let Value::Array(kv, _) = &e.value {
                                    if let Some(k) = kv.first().filter(|k| !k.spread) {
                                        keys.push(k.node);
                                    }
                                }
                            }
                        } else if exact
                            && items
                                .iter()
                                .all(|e| matches!(e.value, Value::Str(_) | Value::Num(_)))
                        {
                            keys.extend(items.iter().step_by(2).map(|e| e.node));
                        }
                    }
                    // `{ k: v }`: property names are keys.
                    Value::Object(_) if a.kind() == "object" => {
                        let mut c = a.walk();
                        for p in a.named_children(&mut c) {
                            if p.kind() == "pair" {
                                if let Some(k) = p.child_by_field_name("key") {
                                    if k.kind() == "string" {
                                        keys.push(k);
                                    }
                                }
                            }
                        }
                    }
                    _ => {}
                },
                ParamKind::Streams | ParamKind::OptionsKeys => {}
            }
        }
        Some((nm.command, keys, nm.cluster))
    }
}
