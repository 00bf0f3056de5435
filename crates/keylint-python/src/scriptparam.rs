//! Caching helpers that register the script their caller passes.
//!
//! ```python
//! def lua_script_storage(client, script):
//!     client_id = id(client)
//!     if STORAGE.get(client_id) is None:
//!         STORAGE[client_id] = {}
//!     if STORAGE[client_id].get(script) is None:
//!         STORAGE[client_id][script] = client.register_script(script)
//!     return STORAGE[client_id][script]
//!
//! script = lua_script_storage(client, PURGE_BY_PREFIX)
//! script(args=[prefix])
//! ```
//!
//! What such a call gives is a script whose body is the caller's argument. A module
//! function is taken for such a helper only when it registers exactly one script, with
//! one of its own parameters as the body (a parameter the function never binds
//! again), and every `return` gives that registration: the call itself, a local
//! assigned only that call, or the cache entry it is stored in, when that entry's
//! subscript names the parameter (a cache keyed by the client alone would hand back
//! the first script registered on it, whatever the caller passes).

use crate::eval::{ClientKind, Ctx, ScriptId, ScriptInfo, Value};
use crate::index::{text, FuncId};
use crate::lower::Analyzer;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Decorators that keep the result of a call: the helper stays one.
const CACHING: &[&str] = &["lru_cache", "cache", "memoize", "cached"];

impl<'t> Analyzer<'t> {
    /// The position and name of the parameter whose argument function `id` (a module
    /// function, or a method called on an object) registers as a script and returns
    /// (computed once per function). For a method, the position counts the
    /// arguments after `self`.
    pub(crate) fn script_param(&mut self, id: FuncId) -> Option<(usize, String)> {
        if let Some(s) = self.script_params_seen.get(&id) {
            return s.clone();
        }
        let s = self.find_script_param(id);
        self.script_params_seen.insert(id, s.clone());
        s
    }

    fn find_script_param(&self, id: FuncId) -> Option<(usize, String)> {
        let src = self.ix.src;
        let info = &self.ix.funcs[id];
        // A method (`def register_script(self, script): return
        // self.conn.register_script(script)`) is called on an object: its caller's
        // arguments begin after `self`. Static and class methods carry a decorator
        // that is no caching one, and are left out below.
        let method = info.class.is_some();
        if info.is_lambda
            || info.parent.is_some()
            || info
                .decorators
                .iter()
                .any(|d| !CACHING.contains(&d.as_str()))
            || !text(info.body, src).contains("register_script")
        {
            return None;
        }
        let mut regs = Vec::new();
        let mut asgs = Vec::new();
        walk(self, info.body, &mut regs, &mut asgs);
        let [reg] = regs.as_slice() else {
            return None;
        };
        let args = reg.field(Field::Arguments)?;
        let given: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(args)
            .filter(|k| k.kind_name() != "comment")
            .collect();
        let [body] = given.as_slice() else {
            return None;
        };
        if body.kind_name() != "identifier" {
            return None;
        }
        let pname = text(*body, src);
        let pos = info.params.iter().position(|p| p.name == pname)?;
        if (method && pos == 0)
            || info.params[..=pos].iter().any(|p| p.star)
            || info.defs.get(pname).is_some_and(|d| d.len() > 1)
            || info.nonlocal.iter().any(|n| n == pname)
        {
            return None;
        }
        // Where the registration is stored: a local assigned only it, or a cache
        // entry keyed by the parameter.
        let mut stores: Vec<String> = Vec::new();
        for asg in &asgs {
            let (Some(left), Some(right)) = (asg.field(Field::Left), asg.field(Field::Right))
            else {
                continue;
            };
            if right.id() != reg.id() {
                continue;
            }
            let ok = match left.kind_name() {
                "identifier" => info.defs.get(text(left, src)).is_some_and(|d| d.len() == 1),
                "subscript" => keyed_by(self, left, pname),
                _ => false,
            };
            if !ok {
                return None;
            }
            stores.push(text(left, src).to_string());
        }
        // Nothing else is stored there.
        for asg in &asgs {
            let (Some(left), Some(right)) = (asg.field(Field::Left), asg.field(Field::Right))
            else {
                continue;
            };
            if right.id() != reg.id() && stores.iter().any(|s| s == text(left, src)) {
                return None;
            }
        }
        let mut returns = Vec::new();
        crate::project::collect_returns(&self.ix, info.body, &mut returns);
        if returns.is_empty() || returns.len() > 8 {
            return None;
        }
        for r in returns {
            let e = r.named_child(0)?;
            if e.id() != reg.id() && !stores.iter().any(|s| s == text(e, src)) {
                return None;
            }
        }
        Some((if method { pos - 1 } else { pos }, pname.to_string()))
    }

    /// `helper(client, BODY)` of such a helper: a script whose body is `BODY`, in
    /// the caller's function.
    pub(crate) fn param_script_at(
        &mut self,
        (pos, name): (usize, String),
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<ScriptId> {
        if let Some(&id) = self.script_by_node.get(&call.id()) {
            return Some(id);
        }
        let body = script_arg(self, args?, pos, &name)?;
        let id = self.scripts.len();
        self.scripts.push(ScriptInfo {
            body: Some(body),
            func: ctx.func,
            client: ClientKind::Unknown,
            ext: None,
            wrapper: None,
            preamble: None,
        });
        self.script_by_node.insert(call.id(), id);
        Some(id)
    }

    /// A call of a module function of this file that is such a helper.
    pub(crate) fn param_script_call(
        &mut self,
        id: FuncId,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let sig = self.script_param(id)?;
        self.param_script_at(sig, call, args, ctx)
            .map(Value::Script)
    }
}

impl<'t> Analyzer<'t> {
    /// A module function that caches one script on an attribute of its client
    /// parameter (python-redis-cache's `if not hasattr(client, '_lua_fn'):
    /// client._lua_fn = client.register_script(LUA)` then `return client._lua_fn`):
    /// that script. The function registers exactly one script, stores it in that
    /// attribute, returns the attribute on every path, and nothing else in this file
    /// assigns an attribute of that name.
    pub(crate) fn attr_memo_script(&mut self, id: FuncId, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let src = self.ix.src;
        {
            let info = &self.ix.funcs[id];
            if info.is_lambda
                || info.class.is_some()
                || info.parent.is_some()
                || ctx.depth > 16
                || info
                    .decorators
                    .iter()
                    .any(|d| !CACHING.contains(&d.as_str()))
                || !text(info.body, src).contains("register_script")
            {
                return None;
            }
        }
        let info = self.ix.funcs[id].clone();
        let mut regs = Vec::new();
        let mut asgs = Vec::new();
        walk(self, info.body, &mut regs, &mut asgs);
        let [reg] = regs.as_slice() else {
            return None;
        };
        let store = asgs.iter().find_map(|a| {
            let right = a.field(Field::Right)?;
            (right.id() == reg.id())
                .then(|| a.field(Field::Left))
                .flatten()
        })?;
        if store.kind_name() != "attribute" {
            return None;
        }
        let obj = store.field(Field::Object)?;
        let attr = text(store.field(Field::Attribute)?, src);
        let pname = text(obj, src);
        if obj.kind_name() != "identifier"
            || !info.params.iter().any(|p| p.name == pname && !p.star)
            || info.defs.get(pname).is_some_and(|d| d.len() > 1)
        {
            return None;
        }
        // Nothing else stores an attribute of that name in this file (`setattr` with
        // its name quoted may).
        let stores =
            src.matches(&format!(".{attr} =")).count() + src.matches(&format!(".{attr}=")).count();
        let quoted = src.contains(&format!("'{attr}'")) || src.contains(&format!("\"{attr}\""));
        if stores != 1 || (quoted && src.contains("setattr(")) {
            return None;
        }
        let stext = text(store, src);
        let mut returns = Vec::new();
        crate::project::collect_returns(&self.ix, info.body, &mut returns);
        if returns.is_empty()
            || returns
                .iter()
                .any(|r| r.named_child(0).is_none_or(|e| text(e, src) != stext))
        {
            return None;
        }
        let fctx = Ctx {
            func: Some(id),
            env: None,
            depth: ctx.depth + 2,
        };
        match self.eval(*reg, &fctx) {
            v @ Value::Script(_) => Some(v),
            _ => None,
        }
    }
}

/// The argument a call passes for parameter `name` at position `pos`: by keyword, or
/// by position when no splat comes before it.
fn script_arg<'t>(a: &Analyzer<'t>, args: Node<'t>, pos: usize, name: &str) -> Option<Node<'t>> {
    let src = a.ix.src;
    let mut i = 0;
    for k in a.ix.nav.named_children(args) {
        match k.kind_name() {
            "comment" => {}
            "keyword_argument" => {
                if k.field(Field::Name).is_some_and(|n| text(n, src) == name) {
                    return k.field(Field::Value);
                }
            }
            "list_splat" | "dictionary_splat" => return None,
            _ => {
                if i == pos {
                    return Some(k);
                }
                i += 1;
            }
        }
    }
    None
}

/// Whether a subscript (`CACHE[a][name]`) has `name` as one of its indices.
fn keyed_by(a: &Analyzer<'_>, n: Node<'_>, name: &str) -> bool {
    let mut cur = n;
    while cur.kind_name() == "subscript" {
        let parts: Vec<Node<'_>> =
            a.ix.nav
                .named_children(cur)
                .filter(|k| k.kind_name() != "comment")
                .collect();
        let [value, index @ ..] = parts.as_slice() else {
            return false;
        };
        if index
            .iter()
            .any(|s| s.kind_name() == "identifier" && text(*s, a.ix.src) == name)
        {
            return true;
        }
        cur = *value;
    }
    false
}

/// The `register_script` calls and the assignments of a function body, not of
/// functions nested in it.
fn walk<'t>(a: &Analyzer<'t>, n: Node<'t>, regs: &mut Vec<Node<'t>>, asgs: &mut Vec<Node<'t>>) {
    for c in a.ix.nav.named_children(n) {
        match c.kind_name() {
            k if crate::index::is_scope(k) => continue,
            "decorated_definition" => continue,
            "call" => {
                let m = c
                    .field(Field::Function)
                    .filter(|f| f.kind_name() == "attribute")
                    .and_then(|f| f.field(Field::Attribute));
                if m.is_some_and(|m| text(m, a.ix.src) == "register_script") {
                    regs.push(c);
                }
            }
            "assignment" => asgs.push(c),
            _ => {}
        }
        walk(a, c, regs, asgs);
    }
}
