//! Script calls (`eval`, `evalsha`, `defineCommand`, `defineScript`) and their
//! links to Lua bodies.

use super::*;

impl<'t> Analyzer<'t> {
    /// `client.defineCommand(name, { numberOfKeys, lua })` on an ioredis client.
    pub(super) fn define_command(&mut self, call: Node<'t>) {
        self.define_script(call);
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
        let d = Defined { numkeys, body };
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
        let body = if is_sha { None } else { args.first().copied() };
        match c.lib {
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
        body: Option<Node<'t>>,
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
        let sources: Vec<Option<Node<'t>>> = registered
            .iter()
            .map(|&b| Some(b))
            .chain(links.iter().map(|l| l.body))
            .collect();
        let mut body_index = Vec::new();
        for source in sources {
            let body = source.and_then(|b| self.body_of(b));
            let bi = body.map(|(text, offs, node)| {
                let key = (text.clone(), offs.as_ref().and_then(|o| o.first().copied()));
                if let Some(&i) = by_body.get(&key) {
                    return i;
                }
                let lua = keylint_lua::lower(&text);
                let fresh = offs
                    .as_ref()
                    .is_some_and(|o| !o.iter().any(|x| merged_bytes.contains(x)));
                let merged_keys = match (&offs, fresh) {
                    (Some(o), true) => {
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
    /// when it is written in this file, and the expression.
    pub(super) fn body_of(
        &mut self,
        n: Node<'t>,
    ) -> Option<(String, Option<Vec<usize>>, Node<'t>)> {
        match self.eval(n) {
            Value::FileText(t) => Some((t, None, n)),
            Value::Str(t) => {
                let (text, offs) = t.text_with_offsets()?;
                Some((text, offs, n))
            }
            _ => None,
        }
    }
}
