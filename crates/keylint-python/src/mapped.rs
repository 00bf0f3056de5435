//! A comprehension over a list a followed key builder knows element by element.
//!
//! `def key(self, *args): return ':'.join(['build', self.build_id] + [str(i) for i in
//! args])`: at a call `self.key('queue')` the builder's `args` is the list of the
//! call's arguments, so `[str(i) for i in args]` is that list with each element passed
//! through the body, not a family of unknown members. Only inside a followed builder
//! (where the list is the call's own arguments), or over a list or tuple written in
//! the clause itself (`tuple(":".join(["tagpools", pool, s]) for s in ("free:set",
//! "inuse:set"))`), with one `for` clause over a plain name and no `if` clause;
//! anything else stays the comprehension's family.

use crate::eval::{fingerprint, Ctx, Elem, Env, Value};
use crate::lower::Analyzer;
use crate::syntax::{Field, NodeExt};
use std::rc::Rc;
use tree_sitter::Node;

/// Elements a mapped comprehension takes, at most.
const MAX_ITEMS: usize = 8;

impl<'t> Analyzer<'t> {
    /// The list `[body for name in xs]` makes when `xs` is a list of known elements
    /// of a followed builder's call, or a list or tuple written in the clause; `None`
    /// for any other comprehension.
    pub(crate) fn mapped_comprehension(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let mut clauses = nav.named_children(n).filter(|c| c.kind_name() != "comment");
        let body = n.field(Field::Body)?;
        let _ = clauses.next()?; // the body
        let clause = clauses.next()?;
        if clause.kind_name() != "for_in_clause" || clauses.next().is_some() {
            return None;
        }
        let target = clause.field(Field::Left)?;
        if target.kind_name() != "identifier" {
            return None;
        }
        // Outside a followed builder: over a list or tuple written in the clause
        // (`for state in ("free", "inuse")`), with the loop name alone bound.
        let own = ctx.env.clone().filter(|e| Some(e.func) == ctx.func);
        let written = own.is_none();
        let env = match own {
            Some(e) => e,
            None if matches!(clause.field(Field::Right)?.kind_name(), "list" | "tuple") => {
                Rc::new(Env {
                    func: ctx.func?,
                    params: Default::default(),
                    tag: String::new(),
                })
            }
            None => return None,
        };
        let name = crate::index::text(target, self.src()).to_string();
        let items = match self.eval(clause.field(Field::Right)?, &ctx.deeper()) {
            Value::Seq {
                items,
                family: false,
            } if items.len() <= MAX_ITEMS && items.iter().all(|e| !e.star && e.each.is_empty()) => {
                items
            }
            _ => return None,
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let mut params = env.params.clone();
            // Over a written list, the function's own values are the same in every
            // element (no tag: `scope_tag` leaves them as they are outside).
            let tag = if written {
                String::new()
            } else {
                format!("{}[{name}#{i}={}]", env.tag, fingerprint(&item.value))
            };
            params.insert(name.clone(), item.value);
            let inner = Ctx {
                func: ctx.func,
                env: Some(Rc::new(Env {
                    func: env.func,
                    params,
                    tag,
                })),
                depth: ctx.depth + 1,
            };
            let value = self.eval(body, &inner);
            out.push(Elem {
                value,
                node: item.node,
                star: false,
                each: Vec::new(),
            });
        }
        Some(Value::Seq {
            items: out,
            family: false,
        })
    }
}
