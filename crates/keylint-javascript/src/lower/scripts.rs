//! Script calls (`eval`, `evalsha`, `defineCommand`, `defineScript`) and their
//! links to Lua bodies.

use super::*;

impl<'t> Analyzer<'t> {
    /// `client.defineCommand(name, { numberOfKeys, lua })` on an ioredis client.
    pub(super) fn define_command(&mut self, call: Node<'t>) {
        self.define_script(call);
        self.script_load(call);
        self.node_client_scripts(call);
        let Some((recv, m, _)) = self.method_call(call) else {
            return;
        };
        if m != "defineCommand" {
            return;
        }
        let Value::Client(c) = self.eval(recv) else {
            return;
        };
        if c.lib != Lib::IoRedis {
            return;
        }
        let args = self.args(call);
        let (Some(&name), Some(&def)) = (args.first(), args.get(1)) else {
            return;
        };
        let Value::Str(t) = self.eval(name) else {
            return;
        };
        let Some(name) = t.as_bytes().and_then(|b| String::from_utf8(b).ok()) else {
            return;
        };
        let Value::Object(props) = self.eval(def) else {
            return;
        };
        let numkeys = props
            .iter()
            .find(|(k, _)| k == "numberOfKeys")
            .and_then(|(_, e)| match e.value {
                Value::Num(n) => usize::try_from(n).ok(),
                _ => None,
            });
        let body = props.iter().find(|(k, _)| k == "lua").map(|(_, e)| e.node);
        self.registered.extend(body);
        let d = Defined {
            numkeys,
            body: body.map(Body::Expr),
        };
        if self.defined.insert(name.clone(), d).is_some() {
            // Defined twice: which one a call runs is not known.
            self.defined.insert(
                name,
                Defined {
                    numkeys: None,
                    body: None,
                },
            );
        }
    }

    /// node-redis `defineScript({ NUMBER_OF_KEYS, SCRIPT, … })`: the body is linted
    /// where it is written. (Its calls pass keys through the script's own
    /// `transformArguments`/`parseCommand`, which are not read.)
    pub(super) fn define_script(&mut self, call: Node<'t>) {
        let Some(f) = call.child_by_field_name("function") else {
            return;
        };
        let name = match f.kind() {
            "identifier" => text(f, self.src),
            "member_expression" => f
                .child_by_field_name("property")
                .map_or("", |p| text(p, self.src)),
            _ => return,
        };
        let imported = self.imports.node_script
            || (f.kind() == "member_expression"
                && f.child_by_field_name("object")
                    .is_some_and(|o| self.imports.node_ns.contains(text(o, self.src))));
        if name != "defineScript" || !imported {
            return;
        }
        let Some(&def) = self.args(call).first() else {
            return;
        };
        let Value::Object(props) = self.eval(def) else {
            return;
        };
        if let Some((_, e)) = props.iter().find(|(k, _)| k == "SCRIPT") {
            self.registered.push(e.node);
        }
    }

    /// A call of a command defined with `defineCommand`.
    pub(super) fn defined_call(
        &mut self,
        c: Client,
        call: Node<'t>,
        f: Node<'t>,
        args: &[Node<'t>],
        d: Defined<'t>,
        in_batch: bool,
    ) -> Vec<usize> {
        let Some(n) = d.numkeys else {
            return Vec::new();
        };
        let flat = self.flatten(args);
        let known = leading_known(&flat);
        let exact = known.len() == flat.len();
        if known.len() < n && !exact {
            return Vec::new();
        }
        let key_nodes: Vec<Node<'t>> = known.iter().take(n).copied().collect();
        let passed = exact.then(|| (key_nodes.len(), call.byte_range()));
        self.script_unit(c, call, f, key_nodes, passed, None, d.body, in_batch)
    }

    /// `eval`/`evalsha` (and `_ro`) on a client.
    pub(super) fn eval_call(
        &mut self,
        call: Node<'t>,
        f: Node<'t>,
        m: &str,
        args: &[Node<'t>],
        c: Client,
        in_batch: bool,
    ) -> Vec<usize> {
        let lower = m.to_ascii_lowercase();
        let lower = lower.trim_end_matches("buffer");
        let is_sha = lower.starts_with("evalsha");
        if !matches!(
            lower,
            "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "evalro" | "evalsharo"
        ) {
            return Vec::new();
        }
        let body = if is_sha {
            args.first()
                .and_then(|&sha| self.sha_body(sha))
                .map(Body::Expr)
        } else {
            args.first().map(|&b| Body::Expr(b))
        };
        // ioredis and node-redis 3 take numkeys and the keys as arguments; node-redis 4
        // and later an object (a number there is node-redis 3 code).
        let flat_form = c.lib == Lib::IoRedis
            || self.node_redis_3()
            || args
                .get(1)
                .is_some_and(|&a| matches!(self.eval(a), Value::Num(_)));
        match if flat_form {
            Lib::IoRedis
        } else {
            Lib::NodeRedis
        } {
            Lib::IoRedis => {
                // The script (or sha), then numkeys, then keys and arguments.
                if args.is_empty() {
                    return Vec::new();
                }
                let flat = self.flatten(&args[1..]);
                let Some(Flat::One(nk)) = flat.first() else {
                    return Vec::new();
                };
                let nk = *nk;
                let rest = &flat[1..];
                let exact = rest.iter().all(|x| matches!(x, Flat::One(_)));
                let n = match self.eval(nk) {
                    Value::Num(n) => n,
                    _ => match negative(nk, self.src) {
                        Some(n) => n,
                        None => return Vec::new(),
                    },
                };
                let Ok(n) = usize::try_from(n) else {
                    let fact = exact.then(|| {
                        (
                            Numkeys::Refused {
                                why: BadNumkeys::Negative,
                                shown: text(nk, self.src).to_string(),
                            },
                            nk.byte_range(),
                        )
                    });
                    return self.script_unit(c, call, f, Vec::new(), None, fact, None, in_batch);
                };
                let known = leading_known(rest);
                if known.len() < n && !exact {
                    return Vec::new();
                }
                let fact = exact.then(|| {
                    (
                        Numkeys::Count {
                            n,
                            after: rest.len(),
                        },
                        nk.byte_range(),
                    )
                });
                let key_nodes: Vec<Node<'t>> = known.iter().take(n).copied().collect();
                let passed = (exact && n <= rest.len()).then(|| (n, nk.byte_range()));
                self.script_unit(c, call, f, key_nodes, passed, fact, body, in_batch)
            }
            Lib::NodeRedis => {
                // `eval(script, { keys: […], arguments: […] })`.
                let Some(&opts) = args.get(1) else {
                    return self.script_unit(c, call, f, Vec::new(), None, None, body, in_batch);
                };
                let Value::Object(props) = self.eval(opts) else {
                    return Vec::new();
                };
                let Some((_, keys)) = props.iter().find(|(k, _)| k == "keys") else {
                    return self.script_unit(
                        c,
                        call,
                        f,
                        Vec::new(),
                        Some((0, opts.byte_range())),
                        None,
                        body,
                        in_batch,
                    );
                };
                let Value::Array(items, exact) = &keys.value else {
                    return Vec::new();
                };
                let key_nodes: Vec<Node<'t>> = items
                    .iter()
                    .take_while(|e| !e.spread)
                    .map(|e| e.node)
                    .collect();
                let passed = exact.then(|| (key_nodes.len(), keys.node.byte_range()));
                self.script_unit(c, call, f, key_nodes, passed, None, body, in_batch)
            }
        }
    }

    /// `client.script('load', BODY, (err, sha) => …)`: the body is linted where it is
    /// written (whether or not it is called), and the SHA is remembered where the
    /// code keeps it: a callback parameter, or a property of `this` the callback
    /// assigns it to (`this.popMessage_sha1 = sha`).
    pub(super) fn script_load(&mut self, call: Node<'t>) {
        let Some(body) = self.loaded_body(call) else {
            return;
        };
        self.registered.push(body);
        let args = self.args(call);
        let Some(cb) = args.get(2).map(|&a| unwrap_expr(a)) else {
            return;
        };
        if !is_function(cb.kind()) {
            return;
        }
        let Some(params) = cb.child_by_field_name("parameters") else {
            return;
        };
        let ps: Vec<Node<'t>> = named_kids(params);
        let Some(sha) = ps.get(1).and_then(|&p| match p.kind() {
            "identifier" => Some(p),
            _ => p
                .child_by_field_name("pattern")
                .filter(|x| x.kind() == "identifier"),
        }) else {
            return;
        };
        self.sha_params.insert(sha.id(), body);
        let name = text(sha, self.src).to_string();
        let Some(cb_body) = cb.child_by_field_name("body") else {
            return;
        };
        let mut stack = vec![cb_body];
        while let Some(x) = stack.pop() {
            let mut w = x.walk();
            for ch in x.named_children(&mut w) {
                stack.push(ch);
            }
            if x.kind() != "assignment_expression" {
                continue;
            }
            let (Some(l), Some(r)) = (
                x.child_by_field_name("left"),
                x.child_by_field_name("right"),
            ) else {
                continue;
            };
            if unwrap_expr(r).kind() != "identifier" || text(unwrap_expr(r), self.src) != name {
                continue;
            }
            self.keep_sha_field(l, body);
        }
    }

    /// A property of `this` assigned a loaded script's SHA.
    fn keep_sha_field(&mut self, left: Node<'t>, body: Node<'t>) {
        if left.kind() != "member_expression"
            || left
                .child_by_field_name("object")
                .is_none_or(|o| o.kind() != "this")
        {
            return;
        }
        let Some(p) = left.child_by_field_name("property") else {
            return;
        };
        let field = text(p, self.src).to_string();
        let e = self.sha_fields.entry(field).or_insert((Some(body), 0));
        if e.0.is_some_and(|b| b.id() != body.id()) {
            e.0 = None;
        }
        e.1 += 1;
    }

    /// The body of `client.script('load', BODY, …)` on a client (or a receiver named
    /// like one, in a project on one client library).
    fn loaded_body(&mut self, call: Node<'t>) -> Option<Node<'t>> {
        let (recv, m, _) = self.method_call(call)?;
        if m != "script" {
            return None;
        }
        let args = self.args(call);
        let sub = string_value(unwrap_expr(*args.first()?), self.src)?;
        if !sub.eq_ignore_ascii_case("load") {
            return None;
        }
        let body = *args.get(1)?;
        match self.eval(recv) {
            Value::Client(_) => Some(body),
            Value::Unknown
                if self.by_use_client().is_some()
                    && self.plain_receiver(recv)
                    && super::scriptdir::client_like(recv, self.src) =>
            {
                Some(body)
            }
            _ => None,
        }
    }

    /// The body of the script whose SHA `sha` is: a callback parameter or a property
    /// of `this` that receives a `SCRIPT LOAD` reply, or a name bound to an awaited
    /// `client.script('load', BODY)`.
    fn sha_body(&mut self, sha: Node<'t>) -> Option<Node<'t>> {
        let sha = unwrap_expr(sha);
        match sha.kind() {
            "member_expression" => {
                let obj = sha.child_by_field_name("object")?;
                if obj.kind() != "this" {
                    return None;
                }
                let p = sha.child_by_field_name("property")?;
                let field = text(p, self.src);
                let (body, kept) = *self.sha_fields.get(field)?;
                // Every assignment of the property in the file keeps that SHA.
                (self.this_assignments(field) == kept)
                    .then_some(body)
                    .flatten()
            }
            "identifier" => match self.lookup(text(sha, self.src), sha) {
                Decl::Param(p) => {
                    let id = match p.kind() {
                        "identifier" => p.id(),
                        _ => p.child_by_field_name("pattern")?.id(),
                    };
                    self.sha_params.get(&id).copied()
                }
                Decl::Value(v) => {
                    let v = unwrap_expr(v);
                    (v.kind() == "call_expression")
                        .then(|| self.loaded_body(v))
                        .flatten()
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// How many assignments the file makes to `this.<field>` (or to `<field>` of
    /// any object).
    fn this_assignments(&self, field: &str) -> usize {
        let mut n = 0;
        let mut stack = vec![self.root];
        while let Some(x) = stack.pop() {
            let mut w = x.walk();
            for ch in x.named_children(&mut w) {
                stack.push(ch);
            }
            if !matches!(
                x.kind(),
                "assignment_expression" | "augmented_assignment_expression"
            ) {
                continue;
            }
            let Some(l) = x.child_by_field_name("left") else {
                continue;
            };
            if l.kind() == "member_expression"
                && l.child_by_field_name("property")
                    .is_some_and(|p| text(p, self.src) == field)
            {
                n += 1;
            }
        }
        n
    }

    /// The unit of a script call with the keys it passes, and its link to the body.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn script_unit(
        &mut self,
        c: Client,
        call: Node<'t>,
        f: Node<'t>,
        key_nodes: Vec<Node<'t>>,
        passed: Option<(usize, Span)>,
        numkeys: Option<(Numkeys, Span)>,
        body: Option<Body<'t>>,
        in_batch: bool,
    ) -> Vec<usize> {
        let mut keys = Vec::new();
        for &k in &key_nodes {
            let t = self.tpl(k);
            keys.push(self.key_use(t, k, "EVALSHA", c));
        }
        if in_batch {
            return keys;
        }
        self.push_unit(Unit {
            kind: UnitKind::Script,
            name: "script".into(),
            span: call.byte_range(),
            anchor: f.byte_range(),
            keys: keys.clone(),
            policy: CrossSlotPolicy::Refused,
        });
        let unit = self.model.units.len() - 1;
        self.links.push(Link {
            unit,
            body,
            call,
            keys: keys.iter().copied().map(Some).collect(),
            key_spans: key_nodes.iter().map(|n| n.byte_range()).collect(),
            passed,
            numkeys,
        });
        keys
    }

    /// Links every script call with its body; a body written in this file is
    /// lowered by the Lua frontend and merged with its spans in the string.
    pub(super) fn link_scripts(&mut self) {
        let links = std::mem::take(&mut self.links);
        let registered = std::mem::take(&mut self.registered);
        let mut lowered: Vec<LinkedBody> = Vec::new();
        let mut by_body: HashMap<(String, Option<usize>), usize> = HashMap::new();
        let mut merged_bytes: HashSet<usize> = HashSet::new();
        // Bodies of defined scripts are linted where they are written, called or not.
        let sources: Vec<Option<Body<'t>>> = registered
            .iter()
            .map(|&b| Some(Body::Expr(b)))
            .chain(links.iter().map(|l| l.body.clone()))
            .collect();
        let mut body_index = Vec::new();
        for source in sources {
            let body = source.as_ref().and_then(|b| self.body_of(b));
            let bi = body.map(|(text, offs, node, file)| {
                let key = (
                    file.clone().unwrap_or_else(|| text.clone()),
                    offs.as_ref().and_then(|o| o.first().copied()),
                );
                if let Some(&i) = by_body.get(&key) {
                    return i;
                }
                let lua = match (&file, self.loader) {
                    (Some(path), Some(loader)) => {
                        let includes = super::scriptdir::Includes {
                            files: loader,
                            dir: super::scriptdir::dir_of(path),
                        };
                        keylint_lua::lower_with(&text, Some(&includes))
                    }
                    _ => keylint_lua::lower(&text),
                };
                let fresh = offs
                    .as_ref()
                    .is_some_and(|o| !o.iter().any(|x| merged_bytes.contains(x)));
                let merged_keys = match (&offs, fresh, node) {
                    (Some(o), true, Some(node)) => {
                        merged_bytes.extend(o.iter().copied());
                        let m = Mapper {
                            offs: o,
                            fallback: node.byte_range(),
                        };
                        Some(script_link::merge(&mut self.model, &lua, &m))
                    }
                    _ => None,
                };
                lowered.push(LinkedBody { lua, merged_keys });
                by_body.insert(key, lowered.len() - 1);
                lowered.len() - 1
            });
            body_index.push(bi);
        }
        for (link, bi) in links
            .iter()
            .zip(body_index.into_iter().skip(registered.len()))
        {
            let call = ScriptCall {
                argv_keys: Vec::new(),
                anchor: self.model.units[link.unit].anchor.clone(),
                span: link.call.byte_range(),
                keys: link.keys.clone(),
                key_spans: link.key_spans.clone(),
                passed: link.passed.clone(),
                numkeys: link.numkeys.clone(),
            };
            script_link::link_call(&mut self.model, &call, bi.map(|i| &lowered[i]));
        }
    }

    /// A script body known at lint time: its text, the source offset of each byte
    /// when it is written in this file, the expression, and the script file it was
    /// read from when a loader reads it.
    #[allow(clippy::type_complexity)]
    pub(super) fn body_of(
        &mut self,
        b: &Body<'t>,
    ) -> Option<(String, Option<Vec<usize>>, Option<Node<'t>>, Option<String>)> {
        let n = match b {
            Body::Expr(n) => *n,
            Body::File(path) => {
                let text = self.loader?.load(path, true)?;
                return Some((text, None, None, Some(path.clone())));
            }
        };
        match self.eval(n) {
            Value::FileText(t) => Some((t, None, Some(n), None)),
            Value::Str(t) => {
                let (text, offs) = t.text_with_offsets()?;
                Some((text, offs, Some(n), None))
            }
            _ => None,
        }
    }
}
