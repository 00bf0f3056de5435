//! What expressions evaluate to: strings (key templates), numbers, arrays, objects,
//! key-builder calls, `join`, files read at lint time.

use super::*;

impl<'t> Analyzer<'t> {
    pub(super) fn hole(&mut self, n: Node<'t>) -> Tpl {
        // A name bound once stands for the expression it is bound to, so that
        // `const a = id` and `id` are one value.
        let written = unwrap_expr(n).byte_range();
        let mut n = unwrap_expr(n);
        for _ in 0..8 {
            if n.kind() != "identifier" {
                break;
            }
            let name = text(n, self.src).to_string();
            match self.lookup(&name, n) {
                Decl::Value(v) => n = unwrap_expr(v),
                _ => break,
            }
        }
        let raw = text(n, self.src);
        let label: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        let label = if label.len() > 60 {
            let mut cut = 57;
            while !label.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}...", &label[..cut])
        } else {
            label
        };
        // The same expression in one function holds the same value; a property of
        // `this` is the same in every method of one object.
        let scope = match self.this_owner(n) {
            Some(o) if raw.starts_with("this.") || raw.starts_with("this[") => self.owner_id(o),
            _ => self
                .function_of(n)
                .map_or(0, |f| f.start_byte())
                .to_string(),
        };
        Tpl::hole(HoleInfo {
            binding: format!("{label}@{scope}"),
            keylike: is_keylike_label(&label),
            label,
            span: Some(written),
        })
    }

    pub(super) fn function_of(&self, n: Node<'t>) -> Option<Node<'t>> {
        self.ancestry(n)
            .map(|(_, p)| p)
            .find(|p| is_function(p.kind()))
    }

    /// A string template for `n`: its value when it is a string, else a hole.
    pub(super) fn tpl(&mut self, n: Node<'t>) -> Tpl {
        match self.eval(n) {
            Value::Str(t) => t,
            Value::Num(i) => Tpl::text(i.to_string().as_bytes()),
            _ => self.hole(unwrap_expr(n)),
        }
    }

    pub(super) fn eval(&mut self, n: Node<'t>) -> Value<'t> {
        if self.depth >= MAX_DEPTH || self.steps >= MAX_STEPS {
            return Value::Unknown;
        }
        self.steps += 1;
        self.depth += 1;
        let v = self.eval_inner(n);
        self.depth -= 1;
        v
    }

    pub(super) fn eval_inner(&mut self, n: Node<'t>) -> Value<'t> {
        let n = unwrap_expr(n);
        if let Some(v) = self.mapped.get(&n.id()) {
            return v.clone();
        }
        match n.kind() {
            "string" => {
                match decode(self.src, n.start_byte() + 1, n.end_byte().saturating_sub(1)) {
                    Some((b, o)) if n.end_byte() >= n.start_byte() + 2 => {
                        Value::Str(Tpl::lit(b, o))
                    }
                    _ => Value::Unknown,
                }
            }
            "template_string" => self.template(n),
            "number" => js_integer(text(n, self.src)).map_or(Value::Unknown, Value::Num),
            "null" | "undefined" => Value::Null,
            "binary_expression" => self.binary(n),
            "array" => {
                let mut c = n.walk();
                let mut items = Vec::new();
                let mut exact = true;
                let children: Vec<Node<'t>> = n.named_children(&mut c).collect();
                for e in children {
                    if e.kind() == "comment" {
                        continue;
                    }
                    if e.kind() == "spread_element" {
                        exact = false;
                        items.push(Elem {
                            value: Value::Unknown,
                            node: e,
                            spread: true,
                        });
                        continue;
                    }
                    let value = self.eval(e);
                    items.push(Elem {
                        value,
                        node: e,
                        spread: false,
                    });
                }
                Value::Array(items, exact)
            }
            "object" => self.object(n),
            "identifier" => self.identifier(n),
            "member_expression" => self.member(n),
            "subscript_expression" => self.subscript(n),
            "new_expression" => self.new_client(n),
            "call_expression" => match self.mapped_list(n) {
                Some(items) => Value::Array(items, true),
                None => self.call_value(n),
            },
            _ => Value::Unknown,
        }
    }

    pub(super) fn template(&mut self, n: Node<'t>) -> Value<'t> {
        let mut t = Tpl::default();
        let mut pos = n.start_byte() + 1;
        let end = n.end_byte().saturating_sub(1);
        let mut c = n.walk();
        let subs: Vec<Node<'t>> = n
            .named_children(&mut c)
            .filter(|s| s.kind() == "template_substitution")
            .collect();
        for s in subs {
            let Some((b, o)) = decode(self.src, pos, s.start_byte()) else {
                return Value::Unknown;
            };
            t.push(Tpl::lit(b, o));
            match s.named_child(0) {
                Some(e) => {
                    let part = self.tpl(e);
                    t.push(part);
                }
                None => return Value::Unknown,
            }
            pos = s.end_byte();
        }
        if pos > end {
            return Value::Unknown;
        }
        let Some((b, o)) = decode(self.src, pos, end) else {
            return Value::Unknown;
        };
        t.push(Tpl::lit(b, o));
        Value::Str(t)
    }

    pub(super) fn binary(&mut self, n: Node<'t>) -> Value<'t> {
        let op = n
            .child_by_field_name("operator")
            .map(|o| text(o, self.src))
            .unwrap_or("");
        let (Some(l), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return Value::Unknown;
        };
        if op != "+" {
            return Value::Unknown;
        }
        let lv = self.eval(l);
        let rv = self.eval(r);
        match (&lv, &rv) {
            (Value::Num(a), Value::Num(b)) => a.checked_add(*b).map_or(Value::Unknown, Value::Num),
            (Value::Str(_), _) | (_, Value::Str(_)) => {
                let mut t = self.as_tpl(lv, l);
                let rt = self.as_tpl(rv, r);
                t.push(rt);
                Value::Str(t)
            }
            _ => Value::Unknown,
        }
    }

    pub(super) fn as_tpl(&mut self, v: Value<'t>, n: Node<'t>) -> Tpl {
        match v {
            Value::Str(t) => t,
            Value::Num(i) => Tpl::text(i.to_string().as_bytes()),
            _ => self.hole(unwrap_expr(n)),
        }
    }

    pub(super) fn object(&mut self, n: Node<'t>) -> Value<'t> {
        let mut c = n.walk();
        let mut props = Vec::new();
        let children: Vec<Node<'t>> = n.named_children(&mut c).collect();
        for p in children {
            match p.kind() {
                "pair" => {
                    let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let key = match k.kind() {
                        "property_identifier" => text(k, self.src).to_string(),
                        "string" => match string_value(k, self.src) {
                            Some(s) => s,
                            None => return Value::Unknown,
                        },
                        _ => return Value::Unknown,
                    };
                    let value = self.eval(v);
                    props.push((
                        key,
                        Elem {
                            value,
                            node: v,
                            spread: false,
                        },
                    ));
                }
                "shorthand_property_identifier" => {
                    let key = text(p, self.src).to_string();
                    let value = match self.lookup(&key, p) {
                        Decl::Value(v) => self.eval(v),
                        // A parameter whose declared type is an object of keys.
                        Decl::Param(_) => match self.identifier(p) {
                            v @ Value::Object(_) => v,
                            _ => Value::Unknown,
                        },
                        _ => Value::Unknown,
                    };
                    props.push((
                        key,
                        Elem {
                            value,
                            node: p,
                            spread: false,
                        },
                    ));
                }
                "comment" | "method_definition" => {}
                _ => return Value::Unknown,
            }
        }
        Value::Object(props)
    }

    pub(super) fn identifier(&mut self, n: Node<'t>) -> Value<'t> {
        let name = text(n, self.src).to_string();
        match self.lookup(&name, n) {
            Decl::Value(v)
                if unwrap_expr(v).kind() == "object" && self.mutated_names.contains(&name) =>
            {
                self.filled_object(&name, v).unwrap_or(Value::Unknown)
            }
            Decl::Value(v)
                if unwrap_expr(v).kind() == "array" && self.mutated_names.contains(&name) =>
            {
                self.filled_array(&name, v, n).unwrap_or(Value::Unknown)
            }
            Decl::Value(v) => self.eval(v),
            Decl::Param(p) => match self.env.get(&p.id()) {
                Some(v) => v.clone(),
                // An object known by its type, unless the file sets its properties.
                None => match self.typed(p) {
                    Value::Object(_)
                        if self.mutated_names.contains(&name) && self.param_mutated(p, &name) =>
                    {
                        Value::Unknown
                    }
                    v => v,
                },
            },
            Decl::Assigned(decl, Some(init)) if unwrap_expr(init).kind() == "array" => self
                .concat_grown(&name, decl, init, n)
                .unwrap_or(Value::Unknown),
            // `let multi = client.multi();` given another batch only after this read:
            // the first batch (the caller reads it in the declaration's block).
            Decl::Assigned(decl, Some(init)) if self.assigned_only_after(&name, decl, n) => {
                match self.eval(init) {
                    b @ Value::Batch(..) => b,
                    _ => self.assigned_client(&name, decl, Some(init)),
                }
            }
            Decl::Assigned(decl, init) => self.assigned_client(&name, decl, init),
            Decl::Free => self.imported(&name, n).unwrap_or(Value::Unknown),
            Decl::Func(_) | Decl::Other => Value::Unknown,
        }
    }

    /// A call of a key-builder function of the file (`function jobKey(id) { return
    /// `job:${id}`; }`, `const jobKey = (id) => …`): its one returned expression,
    /// with the parameters bound to the call's arguments.
    pub(super) fn builder(&mut self, func: Node<'t>, call: Node<'t>) -> Value<'t> {
        let Some(body) = func.child_by_field_name("body") else {
            return Value::Unknown;
        };
        let expr = if body.kind() == "statement_block" {
            let stmts: Vec<Node<'t>> = named_kids(body);
            match stmts[..] {
                [ret] if ret.kind() == "return_statement" => match ret.named_child(0) {
                    Some(e) => e,
                    None => return Value::Unknown,
                },
                _ => return Value::Unknown,
            }
        } else {
            body
        };
        let params: Vec<Node<'t>> = match func.child_by_field_name("parameter") {
            Some(p) => vec![p],
            None => match func.child_by_field_name("parameters") {
                Some(ps) => {
                    let mut c = ps.walk();
                    ps.named_children(&mut c)
                        .filter(|p| p.kind() != "comment")
                        .collect()
                }
                None => return Value::Unknown,
            },
        };
        let simple = params.iter().all(|p| match p.kind() {
            "identifier" => true,
            "required_parameter" => p
                .child_by_field_name("pattern")
                .is_some_and(|x| x.kind() == "identifier"),
            _ => false,
        });
        let args = self.args(call);
        if !simple
            || args.len() != params.len()
            || args.iter().any(|a| a.kind() == "spread_element")
        {
            return Value::Unknown;
        }
        // The arguments' values, in the caller's scope.
        let values: Vec<Value<'t>> = args
            .iter()
            .map(|&a| match self.eval(a) {
                Value::Unknown => Value::Str(self.hole(a)),
                v => v,
            })
            .collect();
        let mut saved = Vec::new();
        for (p, v) in params.iter().zip(values) {
            saved.push((p.id(), self.env.insert(p.id(), v)));
        }
        let out = match self.eval(expr) {
            v @ (Value::Str(_) | Value::Num(_)) => v,
            _ => Value::Unknown,
        };
        for (id, old) in saved {
            match old {
                Some(v) => self.env.insert(id, v),
                None => self.env.remove(&id),
            };
        }
        out
    }

    pub(super) fn call_value(&mut self, n: Node<'t>) -> Value<'t> {
        let Some(f) = n.child_by_field_name("function") else {
            return Value::Unknown;
        };
        let is_ctor = match f.kind() {
            "identifier" => self.imports.node_fns.contains_key(text(f, self.src)),
            "member_expression" => f
                .child_by_field_name("property")
                .is_some_and(|p| matches!(text(p, self.src), "createClient" | "createCluster")),
            _ => false,
        };
        let prefix = if is_ctor {
            self.ctor_prefix(n, Lib::NodeRedis)
        } else {
            Prefix::Unknown
        };
        let node = |kind| {
            Value::Client(Client {
                lib: Lib::NodeRedis,
                kind,
                prefix,
            })
        };
        match f.kind() {
            "identifier" => {
                let name = text(f, self.src);
                if let Some(&k) = self.imports.node_fns.get(name) {
                    if matches!(self.lookup(name, f), Decl::Free) {
                        return node(k);
                    }
                }
                match self.lookup(name, f) {
                    Decl::Free if name == "require" => match self.required_path(n) {
                        Some((spec, None)) => {
                            self.imported_module(&spec, n).unwrap_or(Value::Unknown)
                        }
                        _ => Value::Unknown,
                    },
                    Decl::Free => match self.imported_fact(name) {
                        Some(fact) => self.foreign_call(&fact, None, n),
                        None => Value::Unknown,
                    },
                    Decl::Func(d) => self.builder(d, n),
                    Decl::Value(v)
                        if matches!(
                            unwrap_expr(v).kind(),
                            "arrow_function" | "function_expression" | "function"
                        ) =>
                    {
                        self.builder(unwrap_expr(v), n)
                    }
                    _ => Value::Unknown,
                }
            }
            "member_expression" => {
                let (Some(obj), Some(prop)) = (
                    f.child_by_field_name("object"),
                    f.child_by_field_name("property"),
                ) else {
                    return Value::Unknown;
                };
                let method = text(prop, self.src);
                let obj_name = text(obj, self.src);
                if obj.kind() == "identifier"
                    && self.imports.node_ns.contains(obj_name)
                    && matches!(self.lookup(obj_name, obj), Decl::Free)
                {
                    return match method {
                        "createClient" => node(Kind::Standalone),
                        "createCluster" => node(Kind::Cluster),
                        _ => Value::Unknown,
                    };
                }
                if method == "readFileSync" {
                    return self.read_file(n);
                }
                if obj.kind() == "this" {
                    // `this.toKey('wait')`: a key-builder method of the same object.
                    return match self.this_method(n, method) {
                        Some(func) => self.builder(func, n),
                        None => Value::Unknown,
                    };
                }
                match (method, self.eval(obj)) {
                    ("duplicate", Value::Client(c)) => Value::Client(c),
                    ("connect", Value::Client(c)) if c.lib == Lib::NodeRedis => Value::Client(c),
                    ("multi", Value::Client(c)) => Value::Batch(c, Batch::Multi),
                    ("pipeline", Value::Client(c)) if c.lib == Lib::IoRedis => {
                        Value::Batch(c, Batch::Pipeline)
                    }
                    ("batch", Value::Client(c)) if c.lib == Lib::NodeRedis => {
                        Value::Batch(c, Batch::Grouped)
                    }
                    // A command queued on a batch returns the batch.
                    (m, Value::Batch(c, b)) if m != "exec" && m != "execAsPipeline" => {
                        Value::Batch(c, b)
                    }
                    ("join", Value::Array(items, true)) => self.join(n, items),
                    (m, Value::Foreign(fact)) => self.foreign_call(&fact, Some(m), n),
                    _ => Value::Unknown,
                }
            }
            _ => Value::Unknown,
        }
    }

    /// `[a, b].join(sep)` with every element a string.
    pub(super) fn join(&mut self, call: Node<'t>, items: Vec<Elem<'t>>) -> Value<'t> {
        let args = call.child_by_field_name("arguments");
        let sep = match args.and_then(|a| a.named_child(0)) {
            None => Tpl::text(b","),
            Some(s) => match self.eval(s) {
                Value::Str(t) if t.as_bytes().is_some() => t,
                _ => return Value::Unknown,
            },
        };
        let mut out = Tpl::default();
        for (i, e) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(sep.clone());
            }
            match e.value {
                Value::Str(t) => out.push(t),
                Value::Num(x) => out.push(Tpl::text(x.to_string().as_bytes())),
                Value::Unknown => out.push(self.hole(e.node)),
                _ => return Value::Unknown,
            }
        }
        Value::Str(out)
    }

    /// `fs.readFileSync(path.join(__dirname, 'x.lua'), 'utf8')`: the file's text.
    pub(super) fn read_file(&mut self, call: Node<'t>) -> Value<'t> {
        let Some(loader) = self.loader else {
            return Value::Unknown;
        };
        let Some(arg) = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            return Value::Unknown;
        };
        let Some(rel) = self.module_path(arg) else {
            return Value::Unknown;
        };
        if !rel.ends_with(".lua") {
            return Value::Unknown;
        }
        loader
            .load(&rel, true)
            .map_or(Value::Unknown, Value::FileText)
    }

    /// A path relative to the module's directory: `path.join(__dirname, 'a', 'x.lua')`,
    /// `path.resolve(__dirname, …)`, `` `${__dirname}/x.lua` ``, `__dirname + '/x.lua'`.
    pub(super) fn module_path(&mut self, n: Node<'t>) -> Option<String> {
        let n = unwrap_expr(n);
        match n.kind() {
            "call_expression" => {
                let f = n.child_by_field_name("function")?;
                let name = text(f, self.src);
                let last = name.rsplit('.').next().unwrap_or(name);
                if !matches!(last, "join" | "resolve") {
                    return None;
                }
                let args = n.child_by_field_name("arguments")?;
                let mut c = args.walk();
                let items: Vec<Node<'t>> = args.named_children(&mut c).collect();
                let (first, rest) = items.split_first()?;
                if text(*first, self.src) != "__dirname" {
                    return None;
                }
                let mut parts = Vec::new();
                for r in rest {
                    let Value::Str(t) = self.eval(*r) else {
                        return None;
                    };
                    parts.push(String::from_utf8(t.as_bytes()?).ok()?);
                }
                let joined = parts.join("/");
                Some(joined.trim_start_matches("./").to_string())
            }
            "template_string" | "binary_expression" => {
                let Value::Str(t) = self.eval(n) else {
                    return None;
                };
                let (first, rest) = t.parts.split_first()?;
                let TPart::Hole(h) = first else { return None };
                if h.label != "__dirname" {
                    return None;
                }
                let mut s = Vec::new();
                for p in rest {
                    match p {
                        TPart::Lit { bytes, .. } => s.extend_from_slice(bytes),
                        TPart::Hole(_) => return None,
                    }
                }
                let s = String::from_utf8(s).ok()?;
                Some(
                    s.trim_start_matches('/')
                        .trim_start_matches("./")
                        .to_string(),
                )
            }
            _ => None,
        }
    }
}

/// A decimal integer literal that JavaScript prints back as written: no leading zero
/// (`010` is 8 in sloppy mode), no separators, exponents or fractions, and below
/// 2^53 (larger ones print rounded).
fn js_integer(t: &str) -> Option<i64> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || (t.len() > 1 && t.starts_with('0'))
    {
        return None;
    }
    t.parse::<i64>().ok().filter(|n| *n < (1 << 53))
}
