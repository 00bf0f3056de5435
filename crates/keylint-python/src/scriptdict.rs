//! Scripts looked up by name in a dict of registered scripts.
//!
//! ```python
//! def connect(self):
//!     self._scripts = {"claim": self._client.register_script(CLAIM), …}
//!
//! def _get_script(self, name):
//!     return self._scripts[name]
//!
//! self._get_script("claim")(keys=[…])
//! ```
//!
//! A subscript with a name known at lint time resolves only when the dict's entry for
//! that name is known: the dict is a local, a module global or an attribute of `self`
//! whose every assignment is a dict display with literal keys (or `{}`/`None`, which no
//! lookup succeeds on), the displays that hold the name agree on one registered
//! script, and nothing writes the dict otherwise (no `update`, `setdefault` or `|=` in
//! the function, module or class that holds it, and no subclass of this file assigns
//! the attribute again or writes an entry). An item assignment with a literal name in
//! that function, module or class (`self.lua_scripts["check_fn"] = script`) is one more
//! value of that name's entry; one with a computed name, or an augmented one, leaves
//! every entry unknown. So a dict may keep a script's text under one name and the
//! registered script under another.

use crate::eval::{Ctx, Value};
use crate::index::{text, DefKind};
use crate::lower::Analyzer;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> Analyzer<'t> {
    /// `scripts["claim"]`, `self._scripts[name]` with `name` bound to a literal: the
    /// registered script of that entry.
    pub(crate) fn script_dict_entry(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let src = self.ix.src;
        let parts: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(n)
            .filter(|k| k.kind_name() != "comment")
            .collect();
        let [obj, index] = parts.as_slice() else {
            return None;
        };
        let (obj, index) = (*obj, *index);
        let otext = text(obj, src);
        if !otext.to_ascii_lowercase().contains("script") {
            return None;
        }
        let name = match self.eval(index, &ctx.deeper()) {
            Value::Str(t) => String::from_utf8(t.as_bytes()?).ok()?,
            _ => return None,
        };
        // Every value the dict may hold, with the function it is assigned in, and the
        // code that may write it.
        let mut values: Vec<(Node<'t>, Option<crate::index::FuncId>)> = Vec::new();
        let scope: Node<'t>;
        match obj.kind_name() {
            "identifier" => {
                let defs = match ctx.func {
                    Some(f) if self.ix.funcs[f].defs.contains_key(otext) => {
                        scope = self.ix.funcs[f].body;
                        self.ix.funcs[f].defs.get(otext)?.clone()
                    }
                    Some(f) if self.ix.funcs[f].nonlocal.iter().any(|x| x == otext) => {
                        return None;
                    }
                    _ => {
                        // A name an enclosing function binds is that function's.
                        let mut up = ctx.func.and_then(|f| self.ix.funcs[f].parent);
                        while let Some(p) = up {
                            if self.ix.funcs[p].defs.contains_key(otext) {
                                return None;
                            }
                            up = self.ix.funcs[p].parent;
                        }
                        scope = self.ix.nav.root();
                        self.ix.module_defs.get(otext)?.clone()
                    }
                };
                let func = if scope.id() == self.ix.nav.root().id() {
                    None
                } else {
                    ctx.func
                };
                for d in defs {
                    match d.kind {
                        DefKind::Expr(e) => values.push((e, func)),
                        _ => return None,
                    }
                }
            }
            "attribute" => {
                let f = ctx.func?;
                let fi = &self.ix.funcs[f];
                let recv = obj.field(Field::Object)?;
                if recv.kind_name() != "identifier" || Some(text(recv, src)) != fi.self_name() {
                    return None;
                }
                let attr = text(obj.field(Field::Attribute)?, src);
                let c = fi.class?;
                // A subclass of this file that assigns or writes it.
                let below = (0..self.ix.classes.len()).any(|k| {
                    k != c
                        && self.ix.class_chain(k).contains(&c)
                        && (self.ix.classes[k].defs.contains_key(attr)
                            || self.ix.classes[k].self_assigns.contains_key(attr)
                            || written(text(self.ix.classes[k].node, src), otext))
                });
                if below {
                    return None;
                }
                let chain = self.ix.class_chain(c);
                // The class's own writes are read below; a base's may not be.
                if chain
                    .iter()
                    .any(|&k| k != c && written(text(self.ix.classes[k].node, src), otext))
                {
                    return None;
                }
                scope = self.ix.classes[c].node;
                for k in chain {
                    let ci = &self.ix.classes[k];
                    for d in ci.defs.get(attr).into_iter().flatten() {
                        match d.kind {
                            DefKind::Expr(e) => values.push((e, None)),
                            _ => return None,
                        }
                    }
                    for sa in ci.self_assigns.get(attr).into_iter().flatten() {
                        values.push((sa.value?, Some(sa.func)));
                    }
                }
                // Only classes of this file hold it: a base class elsewhere may write it.
                let foreign_base = self.ix.class_chain(c).iter().any(|&k| {
                    self.ix.classes[k]
                        .bases
                        .iter()
                        .any(|b| b != "object" && !self.ix.class_by_name.contains_key(b.as_str()))
                });
                if foreign_base {
                    return None;
                }
            }
            _ => return None,
        }
        // `self._scripts["claim"] = script` in the methods: the values of that entry,
        // when every write of the dict is such an assignment.
        let mut items: Vec<(Node<'t>, Node<'t>)> = Vec::new();
        if written(text(scope, src), otext) {
            items = self.literal_item_writes(scope, otext)?;
        }
        if values.is_empty() && items.is_empty() {
            return None;
        }
        // The values the entry may hold, each with the function it is evaluated in.
        let mut entries: Vec<(Node<'t>, Option<crate::index::FuncId>)> = Vec::new();
        for (index, v) in items {
            let written_name = match self.eval(index, &ctx.deeper()) {
                Value::Str(t) => t.as_bytes()?,
                _ => return None,
            };
            if written_name == name.as_bytes() {
                entries.push((v, self.ix.enclosing_func(v)));
            }
        }
        for (v, func) in values {
            if v.kind_name() == "none" {
                continue;
            }
            if v.kind_name() != "dictionary" {
                return None;
            }
            for p in self.ix.nav.named_children(v) {
                match p.kind_name() {
                    "comment" => {}
                    "pair" => {
                        let key = p.field(Field::Key)?;
                        if key.kind_name() != "string" {
                            return None;
                        }
                        let k = match self.eval(key, &ctx.deeper()) {
                            Value::Str(t) => t.as_bytes()?,
                            _ => return None,
                        };
                        if k == name.as_bytes() {
                            entries.push((p.field(Field::Value)?, func));
                        }
                    }
                    // A splat: entries not known.
                    _ => return None,
                }
            }
        }
        let mut found: Option<Value<'t>> = None;
        for (entry, func) in entries {
            let vctx = Ctx {
                func,
                env: None,
                depth: ctx.depth + 1,
            };
            match (self.eval(entry, &vctx), &found) {
                (Value::Script(s), None) => found = Some(Value::Script(s)),
                (Value::Script(s), Some(Value::Script(t))) if s == *t => {}
                _ => return None,
            }
        }
        found
    }
}

impl<'t> Analyzer<'t> {
    /// `self._get_script("claim")` of an accessor method whose body is `return
    /// self._scripts[name]`, also inside a `try` whose handlers return nothing (they
    /// raise): the entry for the name the call passes.
    pub(crate) fn script_accessor(
        &mut self,
        id: crate::index::FuncId,
        bound: Option<crate::index::ClassId>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let src = self.ix.src;
        {
            // Cheap tests first: this runs for every call of a method.
            let info = &self.ix.funcs[id];
            if bound.is_none()
                || info.is_lambda
                || !info.decorators.is_empty()
                || info.params.len() != 2
                || info.body.end_byte() - info.body.start_byte() > 2048
                || !text(info.body, src).contains("script")
            {
                return None;
            }
        }
        let info = self.ix.funcs[id].clone();
        let [_, param] = info.params.as_slice() else {
            return None;
        };
        if param.star || info.defs.get(&param.name).is_some_and(|d| d.len() > 1) {
            return None;
        }
        let stmts = |n: Node<'t>| self.ix.nav.statements(n);
        let body = stmts(info.body);
        let [only] = body.as_slice() else {
            return None;
        };
        let ret = match only.kind_name() {
            "return_statement" => *only,
            "try_statement" => {
                let parts: Vec<Node<'t>> = self.ix.nav.named_children(*only).collect();
                let (block, handlers) = parts.split_first()?;
                let inner = stmts(*block);
                let [r] = inner.as_slice() else {
                    return None;
                };
                if r.kind_name() != "return_statement"
                    || handlers.iter().any(|h| {
                        h.kind_name() != "except_clause" || text(*h, src).contains("return")
                    })
                {
                    return None;
                }
                *r
            }
            _ => return None,
        };
        let sub = ret.named_child(0)?;
        if sub.kind_name() != "subscript" {
            return None;
        }
        let parts: Vec<Node<'t>> = self.ix.nav.named_children(sub).collect();
        if parts.len() != 2
            || parts[1].kind_name() != "identifier"
            || text(parts[1], src) != param.name
        {
            return None;
        }
        let arg = crate::eval::arg_nodes(self.ix.nav, args);
        let given = match arg.as_slice() {
            [a] => *a,
            _ => return None,
        };
        let v = self.eval(given, &ctx.deeper());
        let named = matches!(&v, Value::Str(t) if t.as_bytes().is_some());
        let mut params = std::collections::HashMap::new();
        params.insert(param.name.clone(), v);
        let env = std::rc::Rc::new(crate::eval::Env {
            func: id,
            params,
            tag: format!("{}@{}", info.name, given.start_byte()),
        });
        let inner = Ctx {
            func: Some(id),
            env: Some(env),
            depth: ctx.depth + 2,
        };
        let entry = if named {
            self.script_dict_entry(sub, &inner)
        } else {
            None
        };
        entry.or_else(|| self.script_registry_entry(sub, &inner))
    }
}

impl<'t> Analyzer<'t> {
    /// The item assignments of the dict written `obj` in `scope`, each with its index
    /// (a string literal) and its value, when they are the only writes of the dict
    /// other than whole assignments: `None` when one has a computed index, is an
    /// augmented or chained assignment, or the dict is written any other way
    /// (`update`, `del`, …; see [`written`]).
    fn literal_item_writes(&self, scope: Node<'t>, obj: &str) -> Option<Vec<(Node<'t>, Node<'t>)>> {
        let src = self.ix.src;
        let code = text(scope, src);
        if written_by_call(code, obj) {
            return None;
        }
        let mut out = Vec::new();
        let mut stack = vec![scope];
        while let Some(x) = stack.pop() {
            if x.kind_name() == "assignment" {
                let left = x.field(Field::Left);
                if let Some(l) = left.filter(|l| l.kind_name() == "subscript") {
                    let value = l.field(Field::Value)?;
                    if text(value, src) == obj {
                        let index = self.ix.nav.named_children(l).find(|c| *c != value)?;
                        let right = x.field(Field::Right)?;
                        if index.kind_name() != "string" || right.kind_name() == "assignment" {
                            return None;
                        }
                        out.push((index, right));
                    }
                }
            }
            stack.extend(self.ix.nav.named_children(x));
        }
        // Every write the text shows is one of these.
        (item_writes(code, obj) == out.len()).then_some(out)
    }
}

/// Whether `code` writes the dict `obj` through a method or `del`: `update`,
/// `setdefault`, `|=`, `pop`, `popitem`, `clear`.
fn written_by_call(code: &str, obj: &str) -> bool {
    for m in [
        ".update(",
        ".setdefault(",
        " |=",
        ".pop(",
        ".popitem(",
        ".clear(",
    ] {
        if code.contains(&format!("{obj}{m}")) {
            return true;
        }
    }
    code.contains(&format!("del {obj}["))
}

/// How many item writes of the dict `obj` the text `code` holds: `obj[…] = …` and
/// augmented assignments (`obj[…] += …`); `usize::MAX` when a subscript is not closed.
fn item_writes(code: &str, obj: &str) -> usize {
    let pat = format!("{obj}[");
    let mut from = 0;
    let mut count = 0;
    while let Some(at) = code[from..].find(&pat) {
        let start = from + at + pat.len();
        // The matching `]`, then `=` that is not `==`.
        let mut depth = 1;
        let mut end = None;
        for (i, ch) in code[start..].char_indices() {
            match ch {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return usize::MAX;
        };
        let rest = code[end..].trim_start_matches([' ', '\t']);
        if (rest.starts_with('=') && !rest.starts_with("=="))
            || [
                "+=", "-=", "|=", "&=", "*=", "/=", "%=", "^=", ">>=", "<<=", "//=", "**=",
            ]
            .iter()
            .any(|op| rest.starts_with(op))
        {
            count += 1;
        }
        from = end;
    }
    count
}

/// Whether `code` writes the dict `obj` other than by assigning it whole: an item
/// assignment, `update`, `setdefault`, `|=`, `pop`, `del`.
pub(crate) fn written(code: &str, obj: &str) -> bool {
    written_by_call(code, obj) || item_writes(code, obj) > 0
}

#[cfg(test)]
mod tests {
    use super::written;

    #[test]
    fn writes_of_a_dict_are_seen() {
        let d = "self._scripts";
        assert!(!written(
            "x = self._scripts['a']\nif self._scripts['a'] == y: pass",
            d
        ));
        assert!(written("self._scripts['a'] = s", d));
        assert!(written("self._scripts[f(x['k'])] = s", d));
        assert!(written("self._scripts['a'] += s", d));
        assert!(written("self._scripts.update(other)", d));
        assert!(written("self._scripts.setdefault('a', s)", d));
        assert!(written("del self._scripts['a']", d));
        assert!(written("self._scripts |= other", d));
    }
}
