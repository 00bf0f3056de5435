//! node-redis scripts: `createClient({ scripts: { name: defineScript({ NUMBER_OF_KEYS,
//! SCRIPT, parseCommand(parser, …) { parser.pushKey(k); … } }) } })` and the later
//! `client.name(…)` calls.
//!
//! The keys of such a call are what the script's own `parseCommand` pushes with
//! `parser.pushKey(param)` before it pushes anything else (node-redis 5 and 6: the
//! command's `KEYS` are the first arguments pushed, and the first `pushKey` routes
//! it; a key pushed after an argument is not read), or the first `NUMBER_OF_KEYS`
//! elements of the array its `transformArguments(…)` returns (node-redis 4): each a
//! parameter, so a call's argument at that position. A `parseCommand` that pushes a
//! key under a condition, in a loop or from anything but a parameter, or a
//! `transformArguments` that returns anything but an array of parameters first, is not
//! read; when both are written and disagree, neither is. A name defined twice in the
//! file is not linked.

use super::*;

/// A script of a node-redis client's `scripts` option.
#[derive(Debug, Clone)]
pub(super) struct NodeScript<'t> {
    /// The call arguments that are its keys, in `KEYS` order.
    keys: Vec<usize>,
    body: Option<Node<'t>>,
}

impl<'t> Analyzer<'t> {
    /// The scripts of a node-redis `createClient`/`createCluster` call's options.
    pub(super) fn node_client_scripts(&mut self, call: Node<'t>) {
        let Some(f) = call.child_by_field_name("function") else {
            return;
        };
        let last = text(f, self.src).rsplit('.').next().unwrap_or("");
        if !matches!(last, "createClient" | "createCluster") {
            return;
        }
        if !matches!(self.eval(call), Value::Client(c) if c.lib == Lib::NodeRedis) {
            return;
        }
        let Some(&opts) = self.args(call).first() else {
            return;
        };
        let Some(opts) = self.object_node(opts) else {
            return;
        };
        let Some(scripts) = self
            .pair_value(opts, "scripts")
            .and_then(|v| self.object_node(v))
        else {
            return;
        };
        let mut c = scripts.walk();
        let entries: Vec<Node<'t>> = scripts.named_children(&mut c).collect();
        for e in entries {
            let (name, value) = match e.kind() {
                "pair" => {
                    let (Some(k), Some(v)) =
                        (e.child_by_field_name("key"), e.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let name = match k.kind() {
                        "property_identifier" => text(k, self.src).to_string(),
                        "string" => match string_value(k, self.src) {
                            Some(s) => s,
                            None => continue,
                        },
                        _ => continue,
                    };
                    (name, v)
                }
                "shorthand_property_identifier" => (text(e, self.src).to_string(), e),
                _ => continue,
            };
            let script = self.node_script(value);
            match self.node_scripts.get(&name) {
                Some(_) => {
                    self.node_scripts.insert(name, None);
                }
                None => {
                    self.node_scripts.insert(name, script);
                }
            }
        }
    }

    /// An object literal that `n` is or names (a `const` bound to one).
    fn object_node(&mut self, n: Node<'t>) -> Option<Node<'t>> {
        let n = unwrap_expr(n);
        match n.kind() {
            "object" => Some(n),
            "identifier" | "shorthand_property_identifier" => {
                match self.lookup(text(n, self.src), n) {
                    Decl::Value(v) if unwrap_expr(v).kind() == "object" => Some(unwrap_expr(v)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The value of property `name` of an object literal (`name: v`, `name`, or a
    /// method `name(…) { … }`, given as the method).
    fn pair_value(&self, obj: Node<'t>, name: &str) -> Option<Node<'t>> {
        let mut c = obj.walk();
        let mut found = None;
        for e in obj.named_children(&mut c) {
            let hit = match e.kind() {
                "pair" => e
                    .child_by_field_name("key")
                    .filter(|k| {
                        text(*k, self.src) == name
                            || string_value(*k, self.src).as_deref() == Some(name)
                    })
                    .and_then(|_| e.child_by_field_name("value")),
                "shorthand_property_identifier" if text(e, self.src) == name => Some(e),
                "method_definition"
                    if e.child_by_field_name("name")
                        .is_some_and(|k| text(k, self.src) == name) =>
                {
                    Some(e)
                }
                "spread_element" => return None,
                _ => None,
            };
            if let Some(h) = hit {
                if found.is_some() {
                    return None;
                }
                found = Some(h);
            }
        }
        found
    }

    /// The script a `defineScript({ … })` call (or its object) defines.
    fn node_script(&mut self, value: Node<'t>) -> Option<NodeScript<'t>> {
        let v = unwrap_expr(value);
        let v = match v.kind() {
            "identifier" | "shorthand_property_identifier" => {
                match self.lookup(text(v, self.src), v) {
                    Decl::Value(x) => unwrap_expr(x),
                    _ => return None,
                }
            }
            _ => v,
        };
        let def = if v.kind() == "call_expression" {
            let f = v.child_by_field_name("function")?;
            if text(f, self.src).rsplit('.').next() != Some("defineScript") {
                return None;
            }
            *self.args(v).first()?
        } else {
            v
        };
        let def = self.object_node(def)?;
        let n = match self.pair_value(def, "NUMBER_OF_KEYS") {
            Some(x) => match self.eval(x) {
                Value::Num(n) => Some(usize::try_from(n).ok()?),
                _ => return None,
            },
            None => None,
        };
        let body = self.pair_value(def, "SCRIPT");
        let parsed = self
            .pair_value(def, "parseCommand")
            .and_then(|m| self.function_node(m))
            .map(|m| self.pushed_keys(m));
        let transformed = match (n, self.pair_value(def, "transformArguments")) {
            (Some(n), Some(m)) => self.function_node(m).map(|m| self.returned_keys(m, n)),
            _ => None,
        };
        let keys = match (parsed, transformed) {
            (Some(a), Some(b)) if a != b => return None,
            (Some(Some(a)), _) | (None, Some(Some(a))) => a,
            _ => return None,
        };
        if n.is_some_and(|n| n != keys.len()) {
            return None;
        }
        Some(NodeScript { keys, body })
    }

    /// A function that an object property is: the method, or a function value.
    fn function_node(&self, n: Node<'t>) -> Option<Node<'t>> {
        let n = unwrap_expr(n);
        is_function(n.kind()).then_some(n)
    }

    /// The simple parameter names of a function.
    fn simple_params(&self, func: Node<'t>) -> Option<Vec<&'t str>> {
        let ps = func.child_by_field_name("parameters")?;
        let mut c = ps.walk();
        ps.named_children(&mut c)
            .filter(|p| p.kind() != "comment")
            .map(|p| {
                let id = match p.kind() {
                    "identifier" => Some(p),
                    "required_parameter" | "optional_parameter" => p
                        .child_by_field_name("pattern")
                        .filter(|x| x.kind() == "identifier"),
                    _ => None,
                };
                id.map(|x| text(x, self.src))
            })
            .collect()
    }

    /// `parseCommand(parser, a, b) { parser.pushKey(a); parser.push(b); }`: the call
    /// positions of the pushed keys (`[0]`), when every `pushKey` is a statement of
    /// the body itself with a parameter.
    fn pushed_keys(&self, func: Node<'t>) -> Option<Vec<usize>> {
        let params = self.simple_params(func)?;
        let (parser, rest) = params.split_first()?;
        let body = func.child_by_field_name("body")?;
        if body.kind() != "statement_block" {
            return None;
        }
        let mut keys = Vec::new();
        let mut pushed_other = false;
        let mut c = body.walk();
        for st in body.named_children(&mut c) {
            if st.kind() == "comment" {
                continue;
            }
            let t = text(st, self.src);
            if !t.contains("pushKey") {
                pushed_other |= t.contains(".push");
                continue;
            }
            // The script's `KEYS` are the first arguments pushed, whatever pushes
            // them: a key pushed after another argument is not `KEYS[i]` of its rank.
            if pushed_other {
                return None;
            }
            // `parser.pushKey(param);` and nothing else.
            let call = (st.kind() == "expression_statement")
                .then(|| st.named_child(0))
                .flatten()
                .filter(|x| x.kind() == "call_expression")?;
            let (recv, m, _) = self.method_call(call)?;
            if m != "pushKey" || text(recv, self.src) != *parser {
                return None;
            }
            let args = self.args(call);
            let [a] = args.as_slice() else { return None };
            let a = unwrap_expr(*a);
            if a.kind() != "identifier" {
                return None;
            }
            keys.push(rest.iter().position(|p| *p == text(a, self.src))?);
        }
        Some(keys)
    }

    /// `transformArguments(a, b) { return [a, b.toString()]; }`: the call positions
    /// of the first `n` returned elements, each a parameter.
    fn returned_keys(&self, func: Node<'t>, n: usize) -> Option<Vec<usize>> {
        let params = self.simple_params(func)?;
        let ret = lone_statement(func.child_by_field_name("body")?, "return_statement")?;
        let ret = unwrap_expr(ret);
        if ret.kind() != "array" {
            return None;
        }
        let elems: Vec<Node<'t>> = named_kids(ret);
        let mut keys = Vec::new();
        for e in elems.iter().take(n) {
            let e = unwrap_expr(*e);
            if e.kind() != "identifier" {
                return None;
            }
            keys.push(params.iter().position(|p| *p == text(e, self.src))?);
        }
        (keys.len() == n).then_some(keys)
    }

    /// `client.name(…)` of a script in a node-redis client's `scripts` option.
    pub(super) fn node_script_call(
        &mut self,
        c: Client,
        call: Node<'t>,
        f: Node<'t>,
        args: &[Node<'t>],
        s: NodeScript<'t>,
        in_batch: bool,
    ) -> Vec<usize> {
        let last = s.keys.iter().copied().max().map_or(0, |m| m + 1);
        if args
            .iter()
            .take(last)
            .any(|a| unwrap_expr(*a).kind() == "spread_element")
        {
            return Vec::new();
        }
        let Some(key_nodes) = s
            .keys
            .iter()
            .map(|&i| args.get(i).copied())
            .collect::<Option<Vec<Node<'t>>>>()
        else {
            return Vec::new();
        };
        let passed = Some((key_nodes.len(), call.byte_range()));
        self.script_unit(
            c,
            call,
            f,
            key_nodes,
            passed,
            None,
            s.body.map(Body::Expr),
            in_batch,
        )
    }
}
