//! `super().m(…)` and `super(Cls, self).m(…)` in a method of a class of the file:
//! the method of a base class of the file that the call reaches, bound to the
//! instance `self` is. A transaction then continues in it as in any method of
//! `self` (`super().make_uid(data, client=pipe)`).
//!
//! Only bases the file defines are looked at: when a class on the way (the
//! method's class or one of its bases) names a base the file does not define,
//! that base may define the method first, and the call stays unknown.

use crate::eval::{Ctx, Value};
use crate::index::{text, ClassId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Bases that define no method a project calls through `super()`.
const NEUTRAL_BASES: &[&str] = &["object", "ABC", "abc.ABC"];

impl<'t> crate::lower::Analyzer<'t> {
    /// The method `m` that `sup.m` reaches, where `sup` is a `super()` call in a
    /// method of the file. `None` when `sup` is no such call or the method is not
    /// known.
    pub(crate) fn super_method(
        &mut self,
        sup: Node<'t>,
        m: &str,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (here, self_name) = self.plain_super(sup, ctx)?;
        let owner = self.next_definer(here, m)?;
        let id = self.ix.classes[owner].methods[m];
        // The instance `self` is: the class a followed call bound, or the method's.
        let bound = match self.eval_self(&self_name, ctx) {
            Some(Value::SelfObj(c)) | Some(Value::ClsObj(c)) => c,
            _ => here,
        };
        if self.ix.funcs[id].is_property() {
            return None;
        }
        let decos = &self.ix.funcs[id].decorators;
        let bound = (!decos.iter().any(|d| d == "staticmethod")).then_some(bound);
        Some(Value::Func { id, bound })
    }

    /// The value of `sup.p`, where `sup` is a `super()` call in a method of the file
    /// and `p` a property of a base class: the base's property computed for the same
    /// object (`f"{super()._lua_prelude} …"`), read from the base's facts when the
    /// base is imported from another module of the project and no class of the file
    /// on the way defines `p`.
    pub(crate) fn super_property(
        &mut self,
        sup: Node<'t>,
        p: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (here, self_name) = self.plain_super(sup, ctx)?;
        match self.next_definer(here, p) {
            Some(owner) => {
                let id = self.ix.classes[owner].methods[p];
                if !self.ix.funcs[id].is_property() {
                    return None;
                }
                let bound = match self.eval_self(&self_name, ctx) {
                    Some(Value::SelfObj(c)) => c,
                    _ => here,
                };
                self.call_builder(id, Some(bound), Vec::new(), Vec::new(), ctx)
            }
            None => {
                // No class of the file above `here` defines it, and `here`'s bases
                // are not all of the file: one imported base may.
                let chain = self.ix.class_chain(here);
                if chain.iter().skip(1).any(|&k| {
                    let cls = &self.ix.classes[k];
                    cls.methods.contains_key(p)
                        || cls.self_assigns.contains_key(p)
                        || cls.defs.contains_key(p)
                }) {
                    return None;
                }
                self.imported_base_attr(here, p, n, ctx)
            }
        }
    }

    /// `super()` or `super(Cls, self)` in a method of a class of the file: the class
    /// and the name of the method's `self` parameter.
    fn plain_super(&self, sup: Node<'t>, ctx: &Ctx<'t>) -> Option<(ClassId, String)> {
        let (here, self_name) = self.builtin_super(sup, ctx)?;
        let self_name = self_name.to_string();
        let args: Vec<Node<'t>> = sup
            .field(Field::Arguments)
            .map(|a| {
                self.ix
                    .nav
                    .named_children(a)
                    .filter(|k| k.kind_name() != "comment")
                    .collect()
            })
            .unwrap_or_default();
        match args.as_slice() {
            [] => {}
            [cls, obj] => {
                let src = self.src();
                if cls.kind_name() != "identifier"
                    || text(*cls, src) != self.ix.classes[here].name
                    || obj.kind_name() != "identifier"
                    || text(*obj, src) != self_name
                {
                    return None;
                }
            }
            _ => return None,
        }
        Some((here, self_name))
    }

    /// When `sup` is a call of the builtin `super` in a method of a class of the file:
    /// the class and the method's `self` parameter.
    fn builtin_super(&self, sup: Node<'t>, ctx: &Ctx<'t>) -> Option<(ClassId, &str)> {
        if sup.kind_name() != "call" {
            return None;
        }
        let f = sup.field(Field::Function)?;
        if f.kind_name() != "identifier" || text(f, self.src()) != "super" {
            return None;
        }
        let info = &self.ix.funcs[ctx.func?];
        let here = info.class?;
        let self_name = info.self_name()?;
        // `super` must be the builtin.
        if info.defs.contains_key("super")
            || self.ix.module_defs.contains_key("super")
            || self.ix.imports.contains_key("super")
        {
            return None;
        }
        Some((here, self_name))
    }

    /// `super().__call__` in a method of a subclass of redis-py's script class
    /// (`class MoveScript(AsyncScript)` with a method that sends `super().__call__(
    /// keys=[src, dst])`): the object's own script, whose body the class does not
    /// show (redis-py's constructor takes it). One script per class.
    pub(crate) fn super_script(&mut self, sup: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let (here, _) = self.builtin_super(sup, ctx)?;
        if sup
            .field(Field::Arguments)
            .is_some_and(|a| self.ix.nav.named_children(a).next().is_some())
            || self.ix.funcs[ctx.func?].is_staticmethod()
        {
            return None;
        }
        // The class's one base is redis-py's script class.
        let class = &self.ix.classes[here];
        let [base] = class.bases.as_slice() else {
            return None;
        };
        let first = base.split('.').next().unwrap_or(base);
        let path = format!("{}{}", self.ix.imports.get(first)?, &base[first.len()..]);
        if !crate::eval::is_script_class(&path) {
            return None;
        }
        let node = class.node;
        Some(Value::Script(self.script_of_no_body(node)))
    }

    /// The first base class of `c` (after `c` itself, in the order the file's
    /// classes are searched) that defines `m`, when every base on the way is a
    /// class of the file.
    fn next_definer(&self, c: ClassId, m: &str) -> Option<ClassId> {
        let ix = &self.ix;
        let chain = ix.class_chain(c);
        for &k in &chain {
            let resolved = ix.classes[k]
                .bases
                .iter()
                .all(|b| NEUTRAL_BASES.contains(&b.as_str()) || ix.class_named(b).is_some());
            if !resolved {
                return None;
            }
        }
        chain
            .into_iter()
            .skip(1)
            .find(|&k| ix.classes[k].methods.contains_key(m))
    }

    /// The value of the `self` parameter in `ctx`.
    fn eval_self(&self, name: &str, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let env = ctx.env.as_ref()?;
        if Some(env.func) != ctx.func {
            return None;
        }
        env.params.get(name).cloned()
    }
}
