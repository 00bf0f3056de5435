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

use crate::eval::{Ctx, Elem, Value};
use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `keys["name"]` (`sub` a subscript) of such a table: the entry's value.
    pub(crate) fn local_dict_entry(&mut self, sub: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let value = sub.field(Field::Value)?;
        let index = self.ix.nav.named_children(sub).find(|c| *c != value)?;
        if index.kind_name() != "string" {
            return None;
        }
        let dict = self.local_table(value, ctx)?;
        let all_strings = self
            .ix
            .nav
            .named_children(dict)
            .filter(|p| p.kind_name() != "comment")
            .all(|p| {
                p.field(Field::Key)
                    .is_some_and(|key| key.kind_name() == "string")
            });
        if !all_strings {
            return None;
        }
        let Value::Str(t) = self.eval(index, &ctx.deeper()) else {
            return None;
        };
        let want = String::from_utf8(t.as_bytes()?).ok()?;
        let (_, entry) = self
            .dict_entries(dict)
            .into_iter()
            .find(|(k, _)| *k == want)?;
        match self.eval(entry, &ctx.deeper()) {
            v @ Value::Str(_) => Some(v),
            _ => None,
        }
    }

    /// `keys.values()` (`call`, with `recv` = `keys`) of such a table: its values,
    /// element by element.
    pub(crate) fn local_dict_values(
        &mut self,
        call: Node<'t>,
        recv: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let args = call.field(Field::Arguments)?;
        if self.ix.nav.named_children(args).next().is_some() {
            return None;
        }
        let dict = self.local_table(recv, ctx)?;
        let entries: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(dict)
            .filter_map(|p| p.field(Field::Value))
            .collect();
        if entries.is_empty() {
            return None;
        }
        let mut items = Vec::with_capacity(entries.len());
        for v in entries {
            let value = self.eval(v, &ctx.deeper());
            if !matches!(value, Value::Str(_)) {
                return None;
            }
            items.push(Elem {
                value,
                node: v,
                star: false,
                each: Vec::new(),
            });
        }
        Some(Value::Seq {
            items,
            family: false,
        })
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
        let entries_only = self
            .ix
            .nav
            .named_children(dict)
            .filter(|p| p.kind_name() != "comment")
            .all(|p| p.kind_name() == "pair");
        (entries_only && self.locally_only_read(info.body, id)).then_some(dict)
    }

    /// Whether every mention of `name` in `body`, besides one plain assignment, only
    /// reads it as a dict.
    fn locally_only_read(&self, body: Node<'t>, name: &str) -> bool {
        let nav = self.ix.nav;
        let src = self.src();
        let Some(uses) = crate::maploop::uses_of(nav, src, body, name) else {
            return false;
        };
        let mut assignments = 0;
        for x in uses {
            let Some(p) = nav.parent(x) else {
                return false;
            };
            let ok = match p.kind_name() {
                // `obj.keys`: an attribute of that name, not the local.
                "attribute" if p.field(Field::Attribute) == Some(x) => true,
                "subscript" if p.field(Field::Value) == Some(x) => {
                    !crate::optdict::is_write_target(nav, p)
                }
                "attribute" if p.field(Field::Object) == Some(x) => {
                    p.field(Field::Attribute)
                        .is_some_and(|m| crate::globals::DICT_READS.contains(&text(m, src)))
                        && nav.parent(p).is_some_and(|c| c.kind_name() == "call")
                }
                "assignment" if p.field(Field::Left) == Some(x) => {
                    assignments += 1;
                    assignments == 1
                }
                "for_statement" | "for_in_clause" => p.field(Field::Right) == Some(x),
                "comparison_operator" => true,
                "argument_list" => nav
                    .parent(p)
                    .and_then(|c| c.field(Field::Function))
                    .is_some_and(|f| text(f, src) == "len"),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}
