//! Objects that are context managers of clients.
//!
//! A class of the project whose `__enter__` (or `__aenter__`) hands out clients:
//!
//! ```python
//! class SyncRedis:
//!     def __call__(self):
//!         return self
//!
//!     def __enter__(self) -> Tuple[Redis, Redis]:
//!         ...
//!         return self.reader, self.writer
//!
//! sync_redis = SyncRedis()          # another module imports it
//!
//! with sync_redis() as (reader, writer):
//!     writer.eval(LUA, 5, ...)
//! ```
//!
//! What entering an object of the class gives is read from the declared return
//! type of `__enter__` (a client, or a tuple whose members are clients, each at
//! its place), or, without one, from what its body returns when that is a client
//! or a tuple of clients. The object is entered as it is (`with sync_redis as c`),
//! as its class makes it (`with SyncRedis() as c`), or called when its class's
//! `__call__` only returns `self` (`with sync_redis() as c`). A tuple target takes
//! the member at its place; a member the class does not declare as a client stays
//! unknown. A class whose `__enter__` says nothing of clients gives nothing.

use crate::eval::ClientKind;
use crate::eval::{AnnotatedAs, Ctx, Value};
use crate::index::{text, ClassId};
use crate::syntax::NodeExt;
use tree_sitter::Node;

/// What entering an object gives: clients at the places they are declared.
#[derive(Debug, Clone)]
pub(crate) struct Entered {
    /// The members of the tuple `__enter__` returns, or its one value.
    pub(crate) clients: Vec<Option<ClientKind>>,
    /// Whether `__enter__` returns a tuple (a target must unpack it).
    pub(crate) tuple: bool,
}

impl Entered {
    /// The client entering gives, when it is no tuple.
    pub(crate) fn one(&self) -> Option<ClientKind> {
        match self.clients.as_slice() {
            [k] if !self.tuple => *k,
            _ => None,
        }
    }

    /// The client at place `at` of a tuple target of `n` names.
    pub(crate) fn member(&self, at: usize, n: usize) -> Option<ClientKind> {
        if !self.tuple || self.clients.len() != n {
            return None;
        }
        self.clients.get(at).copied().flatten()
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// What entering an object of class `c` of this file gives.
    pub(crate) fn class_entered(&mut self, c: ClassId) -> Option<Entered> {
        let enter = self
            .defines(c, "__enter__")
            .or_else(|| self.defines(c, "__aenter__"))?;
        if let Some(ret) = self.ix.funcs[enter]
            .node
            .field(crate::syntax::Field::ReturnType)
        {
            if let Some(items) = self.tuple_annotation(ret) {
                return Some(Entered {
                    clients: items,
                    tuple: true,
                })
                .filter(|e| e.clients.iter().any(Option::is_some));
            }
            if let Some(AnnotatedAs::Client(k)) = self.annotation(ret) {
                return Some(Entered {
                    clients: vec![Some(k)],
                    tuple: false,
                });
            }
        }
        // No declared type: what its body returns, when that is a client or a tuple
        // of clients.
        match self.call_builder(enter, Some(c), Vec::new(), Vec::new(), &Ctx::at(None))? {
            Value::Client(k) => Some(Entered {
                clients: vec![Some(k)],
                tuple: false,
            }),
            Value::Seq {
                items,
                family: false,
            } if items.len() >= 2 && items.iter().all(|e| !e.star && e.each.is_empty()) => {
                let clients: Vec<Option<ClientKind>> = items
                    .iter()
                    .map(|e| match e.value {
                        Value::Client(k) => Some(k),
                        _ => None,
                    })
                    .collect();
                clients.iter().any(Option::is_some).then_some(Entered {
                    clients,
                    tuple: true,
                })
            }
            _ => None,
        }
    }

    /// `Tuple[Redis, Redis]` / `tuple[Redis, "Redis"]`: each member as a client, or
    /// `None` where it is no client. `None` for any other annotation.
    fn tuple_annotation(&self, ann: Node<'t>) -> Option<Vec<Option<ClientKind>>> {
        let src = self.src();
        let mut n = ann;
        while n.kind_name() == "type" {
            n = n.named_child(0)?;
        }
        let (head, members): (Node<'t>, Vec<Node<'t>>) = match n.kind_name() {
            "generic_type" => {
                let head = n.named_child(0)?;
                let params = self
                    .ix
                    .nav
                    .named_children(n)
                    .find(|c| c.kind_name() == "type_parameter")?;
                (head, self.ix.nav.named_children(params).collect())
            }
            "subscript" => {
                let head = n.field(crate::syntax::Field::Value)?;
                let members = self
                    .ix
                    .nav
                    .named_children(n)
                    .skip(1)
                    .flat_map(|c| {
                        if c.kind_name() == "tuple" {
                            self.ix.nav.named_children(c).collect::<Vec<_>>()
                        } else {
                            vec![c]
                        }
                    })
                    .collect();
                (head, members)
            }
            _ => return None,
        };
        let name = text(head, src);
        let last = name.rsplit('.').next().unwrap_or(name);
        if !matches!(last, "Tuple" | "tuple") || members.len() < 2 {
            return None;
        }
        if members.iter().any(|m| text(*m, src).contains("...")) {
            return None;
        }
        Some(
            members
                .into_iter()
                .map(|m| match self.annotation(m) {
                    Some(AnnotatedAs::Client(k)) => Some(k),
                    _ => None,
                })
                .collect(),
        )
    }

    /// Whether the `__call__` of class `c` only returns the object itself.
    pub(crate) fn call_returns_self(&self, c: ClassId) -> bool {
        let Some(call) = self.defines(c, "__call__") else {
            return false;
        };
        let info = &self.ix.funcs[call];
        let Some(me) = info.self_name() else {
            return false;
        };
        // The whole body is `return self` (a docstring aside).
        match self.ix.nav.statements(info.body)[..] {
            [ret] => {
                ret.kind_name() == "return_statement"
                    && ret
                        .named_child(0)
                        .is_some_and(|r| text(r, self.src()) == me)
            }
            _ => false,
        }
    }

    /// What entering the `with` item expression `e` gives, when it enters an object
    /// of a class of the project that hands out clients: an object of a class of
    /// another module (`sync_redis`, or `sync_redis()` when its `__call__` returns
    /// itself), a module global of this file bound to an object of a class of this
    /// file, or a class of this file called (`SyncRedis()`).
    pub(crate) fn entered_object(&mut self, e: Node<'t>, ctx: &Ctx<'t>) -> Option<Entered> {
        let (obj, called) = match e.kind_name() {
            "call" => {
                let args = e.field(crate::syntax::Field::Arguments)?;
                let func = e.field(crate::syntax::Field::Function)?;
                if let Value::Class(c) = self.eval(func, &ctx.deeper()) {
                    return self.class_entered(c);
                }
                if args.named_child_count() > 0 {
                    return None;
                }
                (func, true)
            }
            "identifier" | "attribute" => (e, false),
            _ => return None,
        };
        if obj.kind_name() == "identifier" {
            let name = text(obj, self.src()).to_string();
            let local = ctx
                .func
                .is_some_and(|f| self.ix.funcs[f].defs.contains_key(&name));
            if !local {
                if let Some(cname) = crate::project::module_object_class(self, &name) {
                    let c = *self.ix.class_by_name.get(&cname)?;
                    if called && !self.call_returns_self(c) {
                        return None;
                    }
                    return self.class_entered(c);
                }
            }
        }
        match self.eval(obj, &ctx.deeper()) {
            Value::Ext(x) if !called || x.call_returns_self() => x.entered(),
            _ => None,
        }
    }
}
