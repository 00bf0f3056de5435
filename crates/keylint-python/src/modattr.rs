//! A client stored as an attribute of a module-level object: `app = Flask(__name__)`
//! then `app._db = redis.Redis()` at module level (a framework's application object
//! carrying the connection), read as `app._db` anywhere in the module, or through a
//! proxy (`db = LocalProxy(lambda: app._db)`) from another module.
//!
//! Only when the attribute is written once in the whole file, by a statement at
//! module level, to a value shown to be a client; a name bound in the function that
//! reads it is not the module's object. A module-level object's attribute written
//! anywhere else (another assignment, an augmented one, a `setattr`) stays unknown.

use crate::eval::{Ctx, Value};
use crate::index::text;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `obj.attr` where `obj` names a module-level object whose `attr` the module
    /// sets once to a client.
    pub(crate) fn module_attr_client(
        &mut self,
        obj: Node<'t>,
        attr: &str,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if obj.kind_name() != "identifier" || ctx.depth > 12 {
            return None;
        }
        let name = text(obj, self.src());
        if self.ix.module_defs.get(name).map(Vec::len) != Some(1)
            || self.ix.rebound_in_function(name)
        {
            return None;
        }
        let mut func = ctx.func;
        while let Some(f) = func {
            let info = &self.ix.funcs[f];
            if info.defs.contains_key(name) {
                return None;
            }
            func = info.parent;
        }
        // Written once in the file: `name.attr` followed by `=` (not `==`) or an
        // augmented assignment appears once.
        let target = format!("{name}.{attr}");
        let src = self.src();
        let mut writes = 0;
        for (i, _) in src.match_indices(target.as_str()) {
            let before = src[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let rest = src[i + target.len()..].trim_start_matches([' ', '\t']);
            let Some(c) = rest.chars().next() else {
                continue;
            };
            if c.is_alphanumeric() || c == '_' {
                continue;
            }
            let assigns = (rest.starts_with('=') && !rest.starts_with("=="))
                || ["+=", "-=", "|=", "*=", "/=", ":"]
                    .iter()
                    .any(|op| rest.starts_with(op));
            if assigns {
                writes += 1;
            }
        }
        if writes != 1 || src.contains("setattr(") {
            return None;
        }
        let root = self.ix.nav.root();
        let mut value = None;
        for stmt in self.ix.nav.statements(root) {
            if stmt.kind_name() != "expression_statement" {
                continue;
            }
            let Some(mut a) = stmt.named_child(0) else {
                continue;
            };
            // `app.db = db = LocalProxy(…)`: every target of the chain.
            while a.kind_name() == "assignment" {
                let (Some(left), Some(right)) = (a.field(Field::Left), a.field(Field::Right))
                else {
                    break;
                };
                if left.kind_name() == "attribute" && text(left, src) == target {
                    let mut v = right;
                    while v.kind_name() == "assignment" {
                        match v.field(Field::Right) {
                            Some(r) => v = r,
                            None => break,
                        }
                    }
                    value = Some(v);
                }
                a = right;
            }
        }
        let value = value?;
        let mctx = Ctx {
            func: None,
            env: None,
            depth: ctx.depth + 1,
        };
        match self.eval(value, &mctx) {
            v @ Value::Client(_) => Some(v),
            _ => None,
        }
    }
}
