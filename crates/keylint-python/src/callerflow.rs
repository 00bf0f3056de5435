//! Clients passed in by the calls of other modules.
//!
//! `def make(cls, rds, key): … rds.rename(tmp_key, key)` in `deploy/helper.py`, called
//! as `Helper.make(get_redis_connection(), key)` in two other modules: nothing in the
//! helper's own file says what `rds` is. When every call of the project that reaches
//! the function passes a client for the parameter (the calls of its own file, read as
//! before, and those of the other files that mention its name), the parameter is a
//! client of unknown kind.
//!
//! Only a class or static method of a module-level class, or such a class's
//! constructor, is followed (the project's reverse index knows the files that mention
//! a class's name; module functions are not followed into other files), and only for
//! a parameter the function uses as a client (it calls a Redis command on it): the
//! files that mention the class are parsed, and their calls of the function are found
//! by what they resolve to through their imports (`Helper.make` of `from
//! apps.deploy.helper import Helper`).
//! A call whose callee cannot be told, that splats its arguments, or that passes
//! anything not known as a client (or `None`), leaves the parameter unknown. The
//! calls are read one level deep: the files read for them do not, in turn, follow
//! their own parameters into other files.

use crate::eval::{ClientKind, Ctx, Value};
use crate::index::text;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// A function as the calls of other modules reach it.
#[derive(Debug, Clone)]
pub(crate) struct CallTarget {
    /// The names that reach it from its module: `["f"]`, `["Cls"]` for the
    /// constructor, `["Cls", "m"]` for a class or static method.
    pub names: Vec<String>,
    /// The parameter's position after `self`/`cls`.
    pub index: usize,
    /// The parameter's name, for keyword arguments.
    pub param: String,
}

/// What the calls of other modules pass for a parameter: how many calls reach the
/// function, the common kind of the clients they pass (`None` when they all pass
/// `None`), and whether one leaves the parameter to its default.
#[derive(Debug, Clone, Default)]
pub(crate) struct Passed {
    pub sites: usize,
    pub kind: Option<ClientKind>,
    pub defaulted: bool,
}

/// What one call passes.
pub(crate) enum SiteArg {
    /// A call of something else with the same name.
    Other,
    /// A call that cannot be told, or that passes something not known as a client.
    Unknown,
    Client(ClientKind),
    Null,
    /// The parameter is left to its default.
    Default,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// What `call` (in function `func` of this file) passes for the parameter of
    /// `target`, a function of module `file`.
    pub(crate) fn call_passes(
        &mut self,
        call: Node<'t>,
        func: Option<crate::index::FuncId>,
        file: &str,
        target: &CallTarget,
    ) -> SiteArg {
        let Some(scope) = self.project else {
            return SiteArg::Unknown;
        };
        let ctx = Ctx::at(func);
        let Some(callee) = call.field(Field::Function) else {
            return SiteArg::Unknown;
        };
        match self.eval(callee, &ctx) {
            Value::Symbol(p) => match scope.locate(&p) {
                Some((f, names)) if f == file && names == target.names => {}
                _ => return SiteArg::Other,
            },
            Value::Unknown | Value::Opaque(_) => return SiteArg::Unknown,
            _ => return SiteArg::Other,
        }
        let (pos, kw) = self.call_args(call.field(Field::Arguments), &ctx);
        if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
            return SiteArg::Unknown;
        }
        let given = pos
            .get(target.index)
            .or_else(|| kw.iter().find(|(k, _)| *k == target.param).map(|(_, e)| e));
        let Some(e) = given else {
            return SiteArg::Default;
        };
        match self.as_receiver(e.value.clone(), e.node) {
            Value::Client(k) => SiteArg::Client(k),
            Value::Null => SiteArg::Null,
            _ => SiteArg::Unknown,
        }
    }

    /// How the calls of other modules reach function `f` (`info`), for its parameter
    /// at `index` after `self`/`cls`: a class or static method of a module-level
    /// class, or such a class's constructor.
    pub(crate) fn call_target(
        &self,
        info: &crate::index::FuncInfo<'t>,
        index: usize,
        param: &str,
    ) -> Option<CallTarget> {
        if info.parent.is_some() || info.is_lambda {
            return None;
        }
        let names = match info.class {
            None => return None,
            Some(c) => {
                let cname = self.ix.classes[c].name.clone();
                if self.ix.class_by_name.get(&cname) != Some(&c) {
                    return None;
                }
                if info.name == "__init__" {
                    vec![cname]
                } else if info
                    .decorators
                    .iter()
                    .any(|d| d == "classmethod" || d == "staticmethod")
                {
                    vec![cname, info.name.clone()]
                } else {
                    return None;
                }
            }
        };
        Some(CallTarget {
            names,
            index,
            param: param.to_string(),
        })
    }

    /// Whether function `f` calls a Redis command on its parameter `name` (that
    /// nothing else in it assigns), or, for a constructor, on the attribute of `self`
    /// it stores the parameter in (`self.conn = conn`, then `self.conn.rename(…)` in a
    /// method of the class).
    pub(crate) fn receives_commands(&self, f: crate::index::FuncId, name: &str) -> bool {
        let info = &self.ix.funcs[f];
        if info.defs.get(name).is_some_and(|d| d.len() > 1) {
            return false;
        }
        if self.commands_on(info.body, |o| o == name) {
            return true;
        }
        let Some(c) = info.class.filter(|_| info.name == "__init__") else {
            return false;
        };
        let src = self.src();
        let stored: Vec<String> = self.ix.classes[c]
            .self_assigns
            .iter()
            .filter(|(_, assigns)| {
                assigns.iter().any(|a| {
                    a.func == f
                        && a.value
                            .is_some_and(|v| v.kind_name() == "identifier" && text(v, src) == name)
                })
            })
            .map(|(attr, _)| attr.clone())
            .collect();
        if stored.is_empty() {
            return false;
        }
        self.ix.classes[c].methods.values().any(|&m| {
            let Some(me) = self.ix.funcs[m].self_name() else {
                return false;
            };
            self.commands_on(self.ix.funcs[m].body, |o| {
                o.split_once('.')
                    .is_some_and(|(s, a)| s == me && stored.iter().any(|x| x == a))
            })
        })
    }

    /// Whether the code under `body` (not in nested functions or classes) calls a
    /// Redis command on a receiver whose text `recv` accepts.
    fn commands_on(&self, body: Node<'t>, recv: impl Fn(&str) -> bool) -> bool {
        let src = self.src();
        let nav = self.ix.nav;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            match n.kind_name() {
                "function_definition" | "lambda" | "class_definition" => continue,
                "call" => {
                    let hit = n.field(Field::Function).is_some_and(|c| {
                        c.kind_name() == "attribute"
                            && c.field(Field::Object).is_some_and(|o| {
                                matches!(o.kind_name(), "identifier" | "attribute")
                                    && recv(text(o, src))
                            })
                            && c.field(Field::Attribute).is_some_and(|a| {
                                let m = text(a, src);
                                crate::byuse::is_command(m) || m == "pipeline"
                            })
                    });
                    if hit {
                        return true;
                    }
                }
                _ => {}
            }
            stack.extend(nav.named_children(n));
        }
        false
    }
}
