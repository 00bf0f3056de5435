//! Types of expressions from what the code declares, for objects of classes of other
//! modules of the project: `worker.connection` where `worker: "BaseWorker"`,
//! `self.tiger.connection` where `__init__` stored `self.tiger = tiger` from a
//! parameter annotated `"TaskTiger"`, `self.channel.unacked_key` where the attribute
//! is constructed from such a class. The instance found is read through the class's
//! facts (see `project.rs`): its attributes that hold clients, its key attributes
//! and properties, its key-builder methods and the commands its methods queue on a
//! pipeline they receive.
//!
//! A type is taken from a declaration (an annotation, or a constructor call of the
//! class), or, for a parameter with no annotation, from its name and use
//! (`ducktype.rs`: `tiger` used only for what the imported `Tiger` has): a name or
//! attribute whose declarations disagree, or that is also assigned something else,
//! has no type, and what it reaches stays unknown.

use crate::eval::{AnnotatedAs, ClientKind, Ctx, Value};
use crate::index::{text, DefKind, FuncId};
use crate::project::{typed_instance, Instance};
use crate::syntax::{Field, NodeExt};
use std::rc::Rc;
use tree_sitter::Node;

/// Attributes of `self` whose type is looked up, at most, per file (each is
/// summarised once and remembered).
const MAX_TYPED_ATTRS: usize = 4096;

impl<'t> crate::lower::Analyzer<'t> {
    /// The instance of a class of another project module that `obj` (evaluated to
    /// `v`) holds: an instance made here, a parameter annotated with the class, or an
    /// attribute of `self` that every assignment gives an instance of the class.
    pub(crate) fn typed_ext(
        &mut self,
        obj: Node<'t>,
        v: &Value<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Rc<Instance>> {
        match v {
            Value::Ext(x) => return Some(x.clone()),
            Value::Opaque(_) | Value::Unknown | Value::Foreign => {}
            _ => return None,
        }
        self.project?;
        match obj.kind_name() {
            "identifier" => self
                .annotated_ext(obj, v, ctx)
                .or_else(|| self.alias_ext(obj, ctx)),
            "attribute" => self.self_attr_ext(obj, ctx),
            _ => None,
        }
    }

    /// A local name assigned once from a typed `self.x` (`tiger = self.tiger`).
    fn alias_ext(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<Rc<Instance>> {
        let f = ctx.func?;
        let defs = self.ix.funcs[f].defs.get(text(obj, self.src()))?;
        let [d] = defs.as_slice() else { return None };
        let DefKind::Expr(e) = d.kind else {
            return None;
        };
        if e.kind_name() != "attribute" || ctx.depth > 8 {
            return None;
        }
        self.self_attr_ext(e, &Ctx::at(Some(f)))
    }

    /// `self.x` where every assignment of `self.x` in the class (and its bases in
    /// this file) is a parameter annotated with one class of another module, an
    /// instance of it made by a constructor call, or is annotated with it
    /// (`self.x: Job = …`). The instance is the same wherever `self.x` is read.
    fn self_attr_ext(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<Rc<Instance>> {
        let owner = obj.field(Field::Object)?;
        let attr = text(obj.field(Field::Attribute)?, self.src());
        if owner.kind_name() != "identifier" {
            return None;
        }
        let Value::SelfObj(c) = self.eval(owner, &ctx.deeper()) else {
            return None;
        };
        let key = (c, attr.to_string());
        if let Some(x) = self.typed_attrs.get(&key) {
            return x.clone();
        }
        if self.typed_attrs.len() >= MAX_TYPED_ATTRS {
            return None;
        }
        // Guards a cycle through the assignments' evaluation.
        self.typed_attrs.insert(key.clone(), None);
        let x = self.self_attr_ext_inner(c, attr, ctx);
        self.typed_attrs.insert(key, x.clone());
        x
    }

    /// `self.x` of class `c` when the class declares it an instance of another
    /// module's class (see [`Self::typed_ext`]), while the class is summarised.
    pub(crate) fn self_attr_typed(
        &mut self,
        c: crate::index::ClassId,
        attr: &str,
    ) -> Option<Rc<Instance>> {
        self.project?;
        let key = (c, attr.to_string());
        if let Some(x) = self.typed_attrs.get(&key) {
            return x.clone();
        }
        self.typed_attrs.insert(key.clone(), None);
        let x = self.self_attr_ext_inner(c, attr, &Ctx::at(None));
        self.typed_attrs.insert(key, x.clone());
        x
    }

    fn self_attr_ext_inner(
        &mut self,
        c: crate::index::ClassId,
        attr: &str,
        ctx: &Ctx<'t>,
    ) -> Option<Rc<Instance>> {
        let chain = self.ix.class_chain(c);
        // An attribute a subclass of this file assigns its own way is not known.
        let assigns = chain
            .iter()
            .find_map(|&k| self.ix.classes[k].self_assigns.get(attr).cloned())?;
        let mut made: Option<Rc<Instance>> = None;
        let mut qual: Option<String> = None;
        let mut constructed = 0usize;
        for a in &assigns {
            let actx = Ctx {
                func: Some(a.func),
                env: None,
                depth: ctx.depth + 1,
            };
            let class = match (a.value, a.annotation) {
                (_, Some(ann)) => self.annotated_project_class(ann),
                (Some(v), None) => match v.kind_name() {
                    "identifier" => {
                        let name = text(v, self.src());
                        match self.param_annotation(a.func, name) {
                            Some(ann) => self.annotated_project_class(ann),
                            None => self.ctor_flow_class(a.func, name),
                        }
                    }
                    "call" => match self.eval(v, &actx) {
                        Value::Ext(x) => {
                            constructed += 1;
                            let q = x.qual().to_string();
                            made = Some(x);
                            if qual.as_ref().is_some_and(|p| *p != q) {
                                return None;
                            }
                            qual = Some(q);
                            continue;
                        }
                        _ => None,
                    },
                    _ => None,
                },
                (None, None) => None,
            };
            // `self.x = None` until a method assigns the object.
            if class.is_none() && a.value.is_some_and(|v| v.kind_name() == "none") {
                continue;
            }
            let x = typed_instance(class?, &format!("self.{attr}"), String::new());
            let q = x.qual().to_string();
            if qual.as_ref().is_some_and(|p| *p != q) {
                return None;
            }
            qual = Some(q);
            made = Some(x);
        }
        let x = made?;
        // One constructor call and nothing else: that instance, with its arguments.
        if constructed == 1 && assigns.len() == 1 {
            return Some(x);
        }
        let cname = self.ix.classes[c].name.clone();
        let ident = format!("{}(self:{cname}.{attr})", qual?);
        Some(x.retyped(&format!("self.{attr}"), ident))
    }

    /// `self.m(…)` where the one assignment of `self.m` in class `c` (with its bases
    /// of this file) is a method of an object of another module's class known by its
    /// type (`self._key = tiger._key` of a parameter `tiger: "TaskTiger"`): that
    /// object and method. A class that defines `m`, or a subclass of this file that
    /// assigns or defines it, is not followed.
    pub(crate) fn bound_ext_method(
        &mut self,
        c: crate::index::ClassId,
        m: &str,
        ctx: &Ctx<'t>,
    ) -> Option<(Rc<Instance>, String)> {
        self.project?;
        if ctx.depth > 8 || self.defines(c, m).is_some() {
            return None;
        }
        let chain = self.ix.class_chain(c);
        let assigns = chain
            .iter()
            .find_map(|&k| self.ix.classes[k].self_assigns.get(m).cloned())?;
        let [a] = assigns.as_slice() else { return None };
        if self.overridden_below(c, m) {
            return None;
        }
        let v = a.value.filter(|_| a.annotation.is_none())?;
        if v.kind_name() != "attribute" {
            return None;
        }
        let obj = v.field(Field::Object)?;
        let meth = text(v.field(Field::Attribute)?, self.src()).to_string();
        let actx = Ctx {
            func: Some(a.func),
            env: None,
            depth: ctx.depth + 1,
        };
        let ov = self.eval(obj, &actx);
        let x = self.typed_ext(obj, &ov, &actx)?;
        x.has_method(&meth).then_some((x, meth))
    }

    /// What a call `n` of function `f` of this file returns when its return
    /// annotation names a class of another project module: an instance known only by
    /// its type, the same for calls written the same way.
    pub(crate) fn returned_ext(
        &mut self,
        f: FuncId,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        self.project?;
        let ret = self.ix.funcs[f].node.field(Field::ReturnType)?;
        let c = self.annotated_project_class(ret)?;
        let Value::Opaque(h) = self.opaque(n, ctx) else {
            return None;
        };
        let x = typed_instance(c, &h.label, String::new());
        let ident = format!("{}(ret:{})", x.qual(), h.binding);
        Some(Value::Ext(x.retyped(&h.label, ident)))
    }

    /// The class of an unannotated parameter `name` of the constructor `f` of a
    /// module-level class, from the constructor calls of the project (see
    /// `ctorflow.rs`).
    pub(crate) fn ctor_flow_class(
        &self,
        f: FuncId,
        name: &str,
    ) -> Option<std::sync::Arc<crate::project::ClassFacts>> {
        let scope = self.project?;
        // Cost: only a parameter whose object is used here (`driver.connection`,
        // `self.driver.connection`) is worth the reverse index.
        if !self.src().contains(&format!("{name}.")) {
            return None;
        }
        let info = &self.ix.funcs[f];
        let c = info.class?;
        if info.name != "__init__" || info.self_name().is_none() || info.parent.is_some() {
            return None;
        }
        let defs = info.defs.get(name)?;
        let [d] = defs.as_slice() else { return None };
        if !matches!(d.kind, DefKind::Param(_)) || d.annotation.is_some() {
            return None;
        }
        let index = info.params.iter().skip(1).position(|p| p.name == name)?;
        if info.params.iter().take(index + 2).any(|p| p.star) {
            return None;
        }
        let class = &self.ix.classes[c];
        if self.ix.module_defs.get(&class.name).map(Vec::len) != Some(1)
            || self.ix.class_by_name.get(&class.name) != Some(&c)
        {
            return None;
        }
        scope.ctor_arg_class(&class.name, index, name)
    }

    /// The annotation of parameter `name` of function `f`, when `name` is a
    /// parameter that the function never assigns again.
    pub(crate) fn param_annotation(&self, f: FuncId, name: &str) -> Option<Node<'t>> {
        let defs = self.ix.funcs[f].defs.get(name)?;
        let [d] = defs.as_slice() else { return None };
        match d.kind {
            DefKind::Param(_) => d.annotation,
            _ => None,
        }
    }

    /// The client type that a parameter declares for a name of function `f`, also
    /// where the body assigns the name again (`connection = self._prepare(connection)`):
    /// an annotated parameter's type holds for every value of the name. A union with
    /// a pipeline type (`Redis | Pipeline`) says nothing.
    pub(crate) fn declared_client(&self, f: FuncId, name: &str) -> Option<ClientKind> {
        let defs = self.ix.funcs[f].defs.get(name)?;
        let ann = defs.iter().find_map(|d| match d.kind {
            DefKind::Param(_) => d.annotation,
            _ => None,
        })?;
        if text(ann, self.src()).contains("Pipeline") {
            return None;
        }
        match self.annotation(ann)? {
            AnnotatedAs::Client(k) => Some(k),
            AnnotatedAs::Pipeline(_) => None,
        }
    }
}
