//! Key names kept in a local dict: a table a function writes once and only reads.
//!
//! ```python
//! def record(self, ip, rid, ts):
//!     keys = {
//!         "requests": f"ip:{ip}:requests",
//!         "paths": f"ip:{ip}:paths",
//!     }
//!     pipe = self._redis.pipeline()
//!     pipe.zadd(keys["requests"], {rid: ts})
//!     pipe.zadd(keys["paths"], {rid: ts})
//!     for key in keys.values():
//!         pipe.expire(key, 60)
//! ```
//!
//! `keys["requests"]` is that entry's value and `keys.values()` the dict's values, one
//! by one, when the name is bound exactly once in the function, to a dict display of
//! entries only (no `**` splat; an entry is looked up only when every key is a string
//! literal), is no parameter nor `global`/`nonlocal`, and every other mention of the
//! name in the function only reads it: `keys[k]` that is no assignment target nor
//! `del`, `keys.get(…)`, `.items()`, `.keys()`, `.values()`, `.copy()`, `len(keys)`,
//! `k in keys` or the iterable of a `for`. Any other mention (an argument of a call,
//! `.update`, an alias, a closure's parameter of that name) may change it, and then
//! the dict is read as before. Values must be strings (a list or dict value could be
//! changed through its entry).

use crate::eval::{Ctx, Value};
use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `keys["name"]` (`sub` a subscript) of such a table: the entry's value.
    pub(crate) fn local_dict_entry(&mut self, sub: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let (value, index) = crate::attrdict::string_subscript(self.ix.nav, sub)?;
        let dict = self.local_table(value, ctx)?;
        self.dict_string_entry(dict, index, ctx, &ctx.deeper())
    }

    /// `keys.values()` (`call`, with `recv` = `keys`) of such a table: its values,
    /// element by element.
    pub(crate) fn local_dict_values(
        &mut self,
        call: Node<'t>,
        recv: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if !crate::attrdict::no_arguments(self.ix.nav, call) {
            return None;
        }
        let dict = self.local_table(recv, ctx)?;
        self.dict_string_values(dict, &ctx.deeper())
    }

    /// The dict display that local name `name` (an identifier read in `ctx.func`)
    /// holds, when it is such a table and its one binding comes before the read.
    fn local_table(&self, name: Node<'t>, ctx: &Ctx<'t>) -> Option<Node<'t>> {
        if name.kind_name() != "identifier" {
            return None;
        }
        let f = ctx.func?;
        let info = &self.ix.funcs[f];
        let id = text(name, self.src());
        if info.params.iter().any(|p| p.name == id) || info.nonlocal.iter().any(|n| n == id) {
            return None;
        }
        let [def] = info.defs.get(id)?.as_slice() else {
            return None;
        };
        let DefKind::Expr(dict) = def.kind else {
            return None;
        };
        if dict.kind_name() != "dictionary" || def.pos >= name.start_byte() {
            return None;
        }
        (crate::attrdict::entries_only(self.ix.nav, dict) && self.locally_only_read(info.body, id))
            .then_some(dict)
    }

    /// Whether every mention of `name` in `body`, besides one plain assignment, only
    /// reads it as a dict (`obj.name`, an attribute of that name, is no mention).
    fn locally_only_read(&self, body: Node<'t>, name: &str) -> bool {
        let nav = self.ix.nav;
        let src = self.src();
        let Some(uses) = crate::maploop::uses_of(nav, src, body, name) else {
            return false;
        };
        let mut assignments = 0;
        uses.into_iter().all(|x| {
            let attribute = nav.parent(x).is_some_and(|p| {
                p.kind_name() == "attribute" && p.field(Field::Attribute) == Some(x)
            });
            attribute || crate::attrdict::reads_as_dict(nav, src, x, &mut assignments)
        })
    }
}
