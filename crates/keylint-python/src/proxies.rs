//! Clients behind a proxy or a framework extension object.
//!
//! `redis_store = FlaskRedis()` (flask_redis) forwards every attribute to the
//! redis-py client it makes in `init_app`: a client of unknown kind.
//! `db = LocalProxy(lambda: app._db)` (werkzeug) forwards to whatever the callable
//! returns: a client when, and only when, the lambda's body (or the module function's
//! return) is shown to be one; a proxy of anything else stays unknown.

use crate::eval::{arg_nodes, ClientKind, Ctx, Value};
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
}
