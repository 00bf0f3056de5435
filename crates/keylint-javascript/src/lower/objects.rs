//! Objects whose properties are known: object literals, objects of keys filled by a
//! loop over names (`[…].forEach(k => { keys[k] = this.toKey(k); })`), and such an
//! object kept on `this` (`this.keys = keys`), read as `o.p` or `o['p']`.

use super::this::Owner;
use super::*;

impl<'t> Analyzer<'t> {
    /// `o.p` or `o['p']` where `o` is an object whose properties are known: the
    /// property's value; `None` when it is not known.
    pub(super) fn property(&mut self, obj: Node<'t>, name: &str) -> Option<Value<'t>> {
        let obj = unwrap_expr(obj);
        let ok = match obj.kind() {
            // A name whose properties are assigned somewhere else is known only when
            // its declaration and the loop that fills it are all there is.
            "identifier" => true,
            "member_expression" => match obj.child_by_field_name("object").map(unwrap_expr) {
                Some(o) if o.kind() == "this" => true,
                // `this.queue.keys`: an object of `this` (read as above) holding an
                // object whose own properties the file assigns nowhere.
                Some(o) if o.kind() == "member_expression" => {
                    o.child_by_field_name("object")
                        .is_some_and(|t| t.kind() == "this")
                        && obj.child_by_field_name("property").is_some_and(|p| {
                            let p = text(p, self.src);
                            !self.mutated_fields.contains(p)
                                && !self.mutated_fields.contains("*")
                                && !self.assigned_fields.contains(p)
                        })
                }
                _ => false,
            },
            _ => false,
        };
        if !ok {
            return None;
        }
        let props = match self.eval(obj) {
            Value::Object(props) => props,
            Value::Foreign(f) => return self.foreign_member(&f, name, obj),
            _ => return None,
        };
        props
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, e)| e.value)
    }

    /// `o['p']`: the name and the object.
    pub(super) fn subscript(&mut self, n: Node<'t>) -> Value<'t> {
        let (Some(obj), Some(index)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("index"),
        ) else {
            return Value::Unknown;
        };
        let index = unwrap_expr(index);
        // `keys[1]` of an array written in the file (or filled by index): that
        // element, when nothing of unknown length comes before it.
        if index.kind() == "number" && matches!(unwrap_expr(obj).kind(), "identifier" | "array") {
            let Ok(i) = text(index, self.src).parse::<usize>() else {
                return Value::Unknown;
            };
            return match self.eval(obj) {
                Value::Array(items, _)
                    if i < items.len() && items[..=i].iter().all(|e| !e.spread) =>
                {
                    items[i].value.clone()
                }
                _ => Value::Unknown,
            };
        }
        let Some(name) = string_value(index, self.src) else {
            return Value::Unknown;
        };
        self.property(obj, &name).unwrap_or(Value::Unknown)
    }

    /// The value of `const name = {}` at `init`, with the properties that the
    /// statements after it in its block give it: loops over an array of names
    /// (`names.forEach(k => { name[k] = expr; })`, `_.each(names, k => …)`,
    /// `for (const k of names) { name[k] = expr; }`). Any other statement that
    /// mentions the name, other than `this.x = name;` and `return name;`, leaves it
    /// unknown.
    pub(super) fn filled_object(&mut self, name: &str, init: Node<'t>) -> Option<Value<'t>> {
        let init = unwrap_expr(init);
        if init.kind() != "object" || init.named_child_count() != 0 {
            return None;
        }
        let decl = self.statement_of(init)?;
        let block = self.parent(decl)?;
        let mut c = block.walk();
        let stmts: Vec<Node<'t>> = block.named_children(&mut c).collect();
        let at = stmts.iter().position(|s| *s == decl)?;
        let mut props: Vec<(String, Elem<'t>)> = Vec::new();
        for &s in &stmts[at + 1..] {
            if !self.mentions(s, name) {
                continue;
            }
            if self.hands_over(s, name) {
                continue;
            }
            let (names, param, expr) = self.fill_loop(s, name)?;
            for n in names {
                let saved = self
                    .env
                    .insert(param.id(), Value::Str(Tpl::text(n.as_bytes())));
                let value = self.eval(expr);
                match saved {
                    Some(v) => self.env.insert(param.id(), v),
                    None => self.env.remove(&param.id()),
                };
                props.retain(|(k, _)| *k != n);
                props.push((
                    n,
                    Elem {
                        value,
                        node: expr,
                        spread: false,
                    },
                ));
            }
        }
        Some(Value::Object(props))
    }

    /// `this.x = name;` or `return name;`.
    fn hands_over(&self, s: Node<'t>, name: &str) -> bool {
        let is_name = |n: Option<Node<'t>>| {
            n.is_some_and(|n| {
                let n = unwrap_expr(n);
                n.kind() == "identifier" && text(n, self.src) == name
            })
        };
        match s.kind() {
            "return_statement" => is_name(s.named_child(0)),
            "expression_statement" => s.named_child(0).is_some_and(|a| {
                a.kind() == "assignment_expression"
                    && is_name(a.child_by_field_name("right"))
                    && a.child_by_field_name("left").is_some_and(|l| {
                        l.kind() == "member_expression"
                            && l.child_by_field_name("object")
                                .is_some_and(|o| o.kind() == "this")
                    })
            }),
            _ => false,
        }
    }

    /// A statement that fills `name` over an array of names: the names, the loop
    /// variable (the node a parameter lookup finds) and the value each gets.
    fn fill_loop(&mut self, s: Node<'t>, name: &str) -> Option<(Vec<String>, Node<'t>, Node<'t>)> {
        let (array, func) = match s.kind() {
            "expression_statement" => {
                let call = unwrap_expr(s.named_child(0)?);
                if call.kind() != "call_expression" {
                    return None;
                }
                let (recv, m, _) = self.method_call(call)?;
                let args = self.args(call);
                match (m, &args[..]) {
                    ("forEach", [f]) => (recv, *f),
                    ("each" | "forEach", [a, f])
                        if matches!(text(recv, self.src), "_" | "lodash") =>
                    {
                        (*a, *f)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        if self.mentions(array, name) {
            return None;
        }
        let Value::Array(items, true) = self.eval(array) else {
            return None;
        };
        let mut names = Vec::new();
        for e in items {
            let Value::Str(t) = e.value else { return None };
            names.push(String::from_utf8(t.as_bytes()?).ok()?);
        }
        let func = unwrap_expr(func);
        if !matches!(
            func.kind(),
            "arrow_function" | "function_expression" | "function"
        ) {
            return None;
        }
        let param = match func.child_by_field_name("parameter") {
            Some(p) => p,
            None => {
                let ps = func.child_by_field_name("parameters")?;
                let list: Vec<Node<'t>> = named_kids(ps);
                let [p] = list[..] else { return None };
                p
            }
        };
        let pname = match param.kind() {
            "identifier" => text(param, self.src),
            "required_parameter" => {
                let pat = param.child_by_field_name("pattern")?;
                (pat.kind() == "identifier").then(|| text(pat, self.src))?
            }
            _ => return None,
        };
        // The body is one assignment `name[param] = expr`.
        let assign = unwrap_expr(lone_statement(
            func.child_by_field_name("body")?,
            "expression_statement",
        )?);
        if assign.kind() != "assignment_expression" {
            return None;
        }
        let left = assign.child_by_field_name("left")?;
        let right = assign.child_by_field_name("right")?;
        if left.kind() != "subscript_expression" {
            return None;
        }
        let (o, i) = (
            left.child_by_field_name("object")?,
            left.child_by_field_name("index")?,
        );
        if text(o, self.src) != name || text(unwrap_expr(i), self.src) != pname {
            return None;
        }
        if self.mentions(right, name) {
            return None;
        }
        Some((names, param, right))
    }

    /// `this.name` as an object of known properties: the one value the object's code
    /// gives it (`this.keys = keys` in the constructor), when the file neither
    /// assigns a property of any `….name` nor assigns `….name` on another object.
    pub(super) fn this_object(&mut self, at: Node<'t>, name: &str) -> Option<Value<'t>> {
        if self.mutated_fields.contains(name)
            || self.mutated_fields.contains("*")
            || self.assigned_fields.contains(name)
        {
            return None;
        }
        let owner = self.this_owner(at)?;
        let key = (self.owner_id(owner), name.to_string());
        if let Some(v) = self.object_cache.get(&key) {
            return v.clone();
        }
        self.object_cache.insert(key.clone(), None);
        let mut roots: Vec<Node<'t>> = Vec::new();
        match owner {
            Owner::Class(c) => roots.extend(c.child_by_field_name("body")),
            Owner::Proto(_) => {
                // The constructor and the prototype methods are statements of the
                // module; only assignments whose `this` is the owner count.
                let mut c = self.root.walk();
                roots.extend(self.root.named_children(&mut c));
            }
        }
        let mut values = Vec::new();
        let mut cursor = self.root.walk();
        for root in roots {
            let mut stack = vec![root];
            while let Some(n) = stack.pop() {
                if n.kind() == "assignment_expression" {
                    let is_this = self.is_this_member(n.child_by_field_name("left"), name);
                    if is_this && self.this_owner(n) == Some(owner) {
                        values.push(n.child_by_field_name("right"));
                    }
                }
                stack.extend(n.named_children(&mut cursor));
            }
        }
        let v = match values[..] {
            [Some(r)] => match self.eval(r) {
                v @ Value::Object(_) => Some(v),
                _ => None,
            },
            _ => None,
        };
        self.object_cache.insert(key, v.clone());
        v
    }
}
