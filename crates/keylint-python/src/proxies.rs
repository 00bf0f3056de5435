//! Clients behind a proxy or a framework extension object.
//!
//! `redis_store = FlaskRedis()` (flask_redis) forwards every attribute to the
//! redis-py client it makes in `init_app`: a client of unknown kind.
//! `db = LocalProxy(lambda: app._db)` (werkzeug) forwards to whatever the callable
//! returns: a client when, and only when, the lambda's body (or the module function's
//! return) is shown to be one; a proxy of anything else stays unknown.
//! `DB = RedisProxy()` of a class of this file whose `__getattr__` is only
//! `return getattr(self.instance, name)`, with `self.instance` assigned nothing but
//! redis-py clients (`connect()` sets it later): the client it forwards to, when the
//! class itself defines no name a client has.

use crate::eval::{arg_nodes, ClientKind, Ctx, Value};
use crate::index::{text, ClassId, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The client a call of the proxy or extension constructor at `path` stands for.
    pub(crate) fn proxy_client(
        &mut self,
        path: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        match path {
            "flask_redis.FlaskRedis" | "flask_redis.client.FlaskRedis" => {
                Some(Value::Client(ClientKind::Unknown))
            }
            "werkzeug.local.LocalProxy" | "werkzeug.LocalProxy" => {
                if ctx.depth > 8 {
                    return None;
                }
                let targets = arg_nodes(self.ix.nav, args);
                let [target] = targets.as_slice() else {
                    return None;
                };
                let target = *target;
                let v = if target.kind_name() == "lambda" {
                    if target.field(Field::Parameters).is_some() {
                        return None;
                    }
                    self.eval(target.field(Field::Body)?, &ctx.deeper())
                } else {
                    let callee = self.eval(target, &ctx.deeper());
                    if !matches!(callee, Value::Func { bound: None, .. }) {
                        return None;
                    }
                    self.call_value(callee, target, None, n, &ctx.deeper())
                };
                match v {
                    Value::Client(k) => Some(Value::Client(k)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The client an instance of class `c` of this file forwards every attribute to:
    /// a class of no base but `object` whose `__getattr__(self, name)` is only
    /// `return getattr(self.attr, name)`, where every assignment of `self.attr` (in
    /// any method) is a redis-py client and its class-level default, if any, is
    /// `None`. `None` when the class defines a method or attribute that a client also
    /// has (a command, `pipeline`, `register_script`…): a call of it would not reach
    /// the client.
    pub(crate) fn forwarding_proxy(&mut self, c: ClassId, ctx: &Ctx<'t>) -> Option<ClientKind> {
        if ctx.depth > 8 {
            return None;
        }
        let cls = &self.ix.classes[c];
        if !cls.bases.iter().all(|b| b == "object") {
            return None;
        }
        let getattr = *cls.methods.get("__getattr__")?;
        if cls.methods.contains_key("__getattribute__") {
            return None;
        }
        let names: Vec<String> = cls.methods.keys().chain(cls.defs.keys()).cloned().collect();
        if names.iter().any(|m| client_name(m)) {
            return None;
        }
        let attr = self.forwarded_attr(getattr)?;
        let cls = &self.ix.classes[c];
        // A class-level default other than `None`: the proxy may forward to it.
        if let Some(defs) = cls.defs.get(&attr) {
            if !defs.iter().all(|d| match d.kind {
                DefKind::Expr(e) => e.kind_name() == "none",
                _ => false,
            }) {
                return None;
            }
        }
        let assigns = cls.self_assigns.get(&attr)?.clone();
        if assigns.is_empty() || assigns.iter().any(|a| a.value.is_none()) {
            return None;
        }
        let values = self.self_assign_values(&assigns, &ctx.deeper());
        let mut kind: Option<ClientKind> = None;
        for v in values {
            let Value::Client(k) = v else {
                return None;
            };
            kind = Some(match kind {
                Some(prev) if prev != k => ClientKind::Unknown,
                _ => k,
            });
        }
        kind
    }

    /// `attr` when method `f` is `def __getattr__(self, name): return
    /// getattr(self.attr, name)` (a docstring aside), as the builtin `getattr`.
    fn forwarded_attr(&self, f: crate::index::FuncId) -> Option<String> {
        let src = self.src();
        let info = &self.ix.funcs[f];
        if !info.plainly_called() || info.params.len() != 2 {
            return None;
        }
        let me = info.self_name()?;
        let name = info.params[1].name.as_str();
        if self.ix.module_defs.contains_key("getattr")
            || self.ix.module_funcs.contains_key("getattr")
        {
            return None;
        }
        let stmts = self.ix.nav.statements(info.body);
        let [ret] = stmts.as_slice() else {
            return None;
        };
        if ret.kind_name() != "return_statement" {
            return None;
        }
        let call = ret.named_child(0)?;
        if call.kind_name() != "call" {
            return None;
        }
        let callee = call.field(Field::Function)?;
        if callee.kind_name() != "identifier" || text(callee, src) != "getattr" {
            return None;
        }
        let args: Vec<_> = self
            .ix
            .nav
            .named_children(call.field(Field::Arguments)?)
            .filter(|a| a.kind_name() != "comment")
            .collect();
        let [obj, key] = args.as_slice() else {
            return None;
        };
        if key.kind_name() != "identifier" || text(*key, src) != name {
            return None;
        }
        if obj.kind_name() != "attribute" {
            return None;
        }
        let base = obj.field(Field::Object)?;
        if base.kind_name() != "identifier" || text(base, src) != me {
            return None;
        }
        Some(text(obj.field(Field::Attribute)?, src).to_string())
    }
}

/// Whether a redis-py client has an attribute called `name` that a proxy class
/// could shadow: a command method or one of the client's own helpers.
pub(crate) fn client_name(name: &str) -> bool {
    if name.starts_with("__") && name.ends_with("__") {
        return false;
    }
    const OWN: &[&str] = &[
        "pipeline",
        "register_script",
        "eval",
        "evalsha",
        "eval_ro",
        "evalsha_ro",
        "fcall",
        "fcall_ro",
        "transaction",
        "execute_command",
        "lock",
        "pubsub",
        "scan_iter",
        "sscan_iter",
        "hscan_iter",
        "zscan_iter",
        "monitor",
        "client",
    ];
    OWN.contains(&name)
        || crate::methods::table().method(name).is_some()
        || crate::methods::single_key_command(name).is_some()
}
