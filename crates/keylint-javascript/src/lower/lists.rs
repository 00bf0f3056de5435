//! Literal lists mapped where they are written: `['wait', 'paused'].map(n =>
//! toKey(n))` and lodash's `_.map([…], n => …)` give one key per element.

use super::*;

/// Elements of a mapped list, at most (a longer list stays a family).
const MAX_MAPPED: usize = 64;

impl<'t> Analyzer<'t> {
    /// `[a, b].map(x => expr)` or `_.map([a, b], x => expr)` (lodash or underscore,
    /// required by that name): the value of `expr` for each element, when the list
    /// is written in the call without a spread and every element gives a string or
    /// a number. Each element's node then stands for its mapped value.
    pub(super) fn mapped_list(&mut self, call: Node<'t>) -> Option<Vec<Elem<'t>>> {
        let call = unwrap_expr(call);
        if call.kind() != "call_expression" {
            return None;
        }
        let (recv, m, _) = self.method_call(call)?;
        if m != "map" {
            return None;
        }
        let args = self.args(call);
        let (list, f) = match args[..] {
            [f] => (unwrap_expr(recv), f),
            [list, f] if self.is_lodash(unwrap_expr(recv)) => (unwrap_expr(list), f),
            _ => return None,
        };
        if list.kind() != "array" || f.kind() != "arrow_function" {
            return None;
        }
        let (param, _) = sole_plain_param(f)?;
        let body = lone_statement(f.child_by_field_name("body")?, "return_statement")?;
        let elems: Vec<Node<'t>> = named_kids(list);
        if elems.is_empty()
            || elems.len() > MAX_MAPPED
            || elems.iter().any(|e| e.kind() == "spread_element")
        {
            return None;
        }
        let mut out = Vec::with_capacity(elems.len());
        for e in elems {
            let e = unwrap_expr(e);
            // The element's own value (not what an earlier reading mapped it to).
            let before = self.mapped.remove(&e.id());
            let raw = match self.eval(e) {
                Value::Unknown => Value::Str(self.hole(e)),
                v => v,
            };
            let old = self.env.insert(param.id(), raw);
            let v = self.eval(body);
            match old {
                Some(o) => self.env.insert(param.id(), o),
                None => self.env.remove(&param.id()),
            };
            if !matches!(v, Value::Str(_) | Value::Num(_)) {
                if let Some(b) = before {
                    self.mapped.insert(e.id(), b);
                }
                return None;
            }
            out.push((e, v));
        }
        Some(
            out.into_iter()
                .map(|(e, v)| {
                    self.mapped.insert(e.id(), v.clone());
                    Elem {
                        value: v,
                        node: e,
                        spread: false,
                    }
                })
                .collect(),
        )
    }

    /// `_` (or another name) bound once to `require('lodash')` or
    /// `require('underscore')`.
    fn is_lodash(&mut self, n: Node<'t>) -> bool {
        if n.kind() != "identifier" {
            return false;
        }
        let Decl::Value(v) = self.lookup(text(n, self.src), n) else {
            return false;
        };
        let v = unwrap_expr(v);
        if v.kind() != "call_expression" {
            return false;
        }
        let Some(f) = v.child_by_field_name("function") else {
            return false;
        };
        if text(f, self.src) != "require" || !matches!(self.lookup("require", f), Decl::Free) {
            return false;
        }
        let args = self.args(v);
        let [a] = args[..] else { return false };
        a.kind() == "string"
            && matches!(
                &text(a, self.src)[1..text(a, self.src).len().saturating_sub(1)],
                "lodash" | "underscore"
            )
    }
}

impl<'t> Analyzer<'t> {
    /// An array literal bound to `name` and then filled by index in the same block
    /// (`keys[3] = keys[1] + '@' + token;`), as it is where `at` reads it: the
    /// literal's elements with each `name[N] = value` before the statement of `at`
    /// applied in order (`N` a number literal no greater than the length so far).
    /// Any other statement that mentions the name before that one, or a read from
    /// a nested function, leaves it unknown.
    pub(super) fn filled_array(
        &mut self,
        name: &str,
        init: Node<'t>,
        at: Node<'t>,
    ) -> Option<Value<'t>> {
        let init = unwrap_expr(init);
        let Value::Array(mut items, true) = self.eval(init) else {
            return None;
        };
        let decl = self.statement_of(init)?;
        let block = self.parent(decl)?;
        let read = self.block_statement(block, at)?;
        let mut c = block.walk();
        let stmts: Vec<Node<'t>> = block.named_children(&mut c).collect();
        let from = stmts.iter().position(|s| *s == decl)?;
        let to = stmts.iter().position(|s| *s == read)?;
        if to <= from {
            return None;
        }
        for &s in &stmts[from + 1..to] {
            if !self.mentions(s, name) {
                continue;
            }
            let (i, value) = self.index_fill(s, name)?;
            let elem = Elem {
                value: self.eval(value),
                node: value,
                spread: false,
            };
            match i.cmp(&items.len()) {
                std::cmp::Ordering::Less => items[i] = elem,
                std::cmp::Ordering::Equal => items.push(elem),
                std::cmp::Ordering::Greater => return None,
            }
        }
        Some(Value::Array(items, true))
    }

    /// `name[N] = value;`: the index and the value.
    fn index_fill(&self, s: Node<'t>, name: &str) -> Option<(usize, Node<'t>)> {
        if s.kind() != "expression_statement" {
            return None;
        }
        let a = unwrap_expr(s.named_child(0)?);
        if a.kind() != "assignment_expression" {
            return None;
        }
        let left = a.child_by_field_name("left")?;
        let right = a.child_by_field_name("right")?;
        if left.kind() != "subscript_expression" {
            return None;
        }
        let obj = unwrap_expr(left.child_by_field_name("object")?);
        if obj.kind() != "identifier" || text(obj, self.src) != name {
            return None;
        }
        let index = unwrap_expr(left.child_by_field_name("index")?);
        if index.kind() != "number" {
            return None;
        }
        let i: usize = text(index, self.src).parse().ok()?;
        Some((i, right))
    }
}

impl<'t> Analyzer<'t> {
    /// `let name = [a, b];` then `name = name.concat(args);` in the same block: at
    /// `at`, the literal's elements, followed (once a `concat` has run before the
    /// statement of `at`) by values of unknown number. Every assignment of the name
    /// must be such a `concat` of that block; a read from a nested function is not
    /// known.
    pub(super) fn concat_grown(
        &mut self,
        name: &str,
        decl: Node<'t>,
        init: Node<'t>,
        at: Node<'t>,
    ) -> Option<Value<'t>> {
        let init = unwrap_expr(init);
        if init.kind() != "array" {
            return None;
        }
        let Value::Array(mut items, true) = self.eval(init) else {
            return None;
        };
        let stmt = self.statement_of(init)?;
        let block = self.parent(stmt)?;
        let read = self.block_statement(block, at)?;
        let mut c = block.walk();
        let stmts: Vec<Node<'t>> = block.named_children(&mut c).collect();
        let to = stmts.iter().position(|s| *s == read)?;
        let from = stmts.iter().position(|s| *s == stmt)?;
        // Between the declaration and the read, the name is only grown.
        for &s in stmts.get(from + 1..to)? {
            if self.mentions(s, name) && !self.is_concat_of(s, name) {
                return None;
            }
        }
        let targets = self.assignments.get(name).cloned().unwrap_or_default();
        let mut grown = None;
        for (target, right) in targets {
            match self.lookup(name, target) {
                Decl::Assigned(d, _) if d == decl => {}
                _ => continue,
            }
            let right = unwrap_expr(right?);
            if right.kind() != "call_expression" {
                return None;
            }
            let (recv, m, _) = self.method_call(right)?;
            let recv = unwrap_expr(recv);
            if m != "concat" || recv.kind() != "identifier" || text(recv, self.src) != name {
                return None;
            }
            let s = self.block_statement(block, target)?;
            let i = stmts.iter().position(|x| *x == s)?;
            if i < to {
                grown = Some(right);
            }
        }
        if let Some(g) = grown {
            items.push(Elem {
                value: Value::Unknown,
                node: g,
                spread: true,
            });
            return Some(Value::Array(items, false));
        }
        Some(Value::Array(items, true))
    }

    /// `name = name.concat(…);`
    fn is_concat_of(&self, s: Node<'t>, name: &str) -> bool {
        let Some(a) = s
            .named_child(0)
            .filter(|_| s.kind() == "expression_statement")
        else {
            return false;
        };
        let a = unwrap_expr(a);
        let is_name = |n: Option<Node<'t>>| {
            n.map(unwrap_expr)
                .is_some_and(|n| n.kind() == "identifier" && text(n, self.src) == name)
        };
        if a.kind() != "assignment_expression" || !is_name(a.child_by_field_name("left")) {
            return false;
        }
        let Some(r) = a.child_by_field_name("right").map(unwrap_expr) else {
            return false;
        };
        r.kind() == "call_expression"
            && self
                .method_call(r)
                .is_some_and(|(o, m, _)| m == "concat" && is_name(Some(o)))
    }

    /// The statement of `block` that holds `n`, when no function lies between them.
    fn block_statement(&self, block: Node<'t>, n: Node<'t>) -> Option<Node<'t>> {
        for (cur, p) in self.ancestry(n) {
            if is_function(p.kind()) {
                return None;
            }
            if p == block {
                return Some(cur);
            }
        }
        None
    }
}
