//! Instance attributes inherited from a base class of another project module.
//!
//! `class SortedFeed(Feed)` where `Feed` is imported from a module of the project
//! and its constructor sets `self.feed_items = 'feed.items:%s' % feed`: a method of
//! the subclass that reads `self.feed_items` reads that attribute. When no class of
//! the file on the way defines the attribute, the imported bases are looked up in
//! the project and the attribute is read from their facts, on `self` taken as an
//! object of that base known only by its type: each constructor parameter is one
//! unknown value, the same in every attribute of the same object, so
//! `feed.items:<feed>` and `feed.publishes:<feed>` are two keys of one feed.

use crate::eval::{ClientKind, Ctx};
use crate::guards::GuardFact;
use crate::index::{text, ClassId};
use crate::project::{ClassFacts, Fact};
use crate::syntax::{Field, NodeExt};
use crate::txwrap::WrapperFact;
use std::sync::Arc;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.attr` in a method of class `c` of this file, read from a base class of
    /// another project module, when exactly one such base is found and it has the
    /// attribute.
    pub(crate) fn imported_base_attr(
        &mut self,
        c: ClassId,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<crate::eval::Value<'t>> {
        self.project?;
        let cf = self.one_imported_base(c, |cf| {
            crate::project::class_has_instance_attr(cf, attr).then(|| cf.clone())
        })?;
        let inst = self.base_self(c, cf.clone(), ctx);
        let v = self.ext_attr(&inst, attr, n, ctx);
        // The base's constructor argument stored as it is (`self.key = key`), read on
        // an object whose arguments the code does not show: the head of the keys the
        // object builds around it (`f"{self.key}:pos"`), as for a class of this file
        // (`heads.rs`), when no construction of the class shows a `{` and the
        // parameter's default has none.
        if let crate::eval::Value::Opaque(h) = &v {
            if let Some(name) = crate::project::ctor_param_as_is(&cf, attr) {
                if self.untagged_constructions(c)
                    && !self.ctor_heads.iter().any(|(b, _)| *b == h.binding)
                {
                    self.ctor_heads.push((
                        h.binding.clone(),
                        format!("the constructor's `{name}` argument stored as it is"),
                    ));
                }
            }
        }
        Some(v)
    }

    /// `self` in a method of class `c` of this file, as an object of its imported base
    /// `cf`: one object whichever class of the chain reads it (a method of a subclass
    /// calling a helper of its base of this file reads the same `self`), with the
    /// arguments the chain's constructors pass the base when the code shows them.
    pub(crate) fn base_self(
        &mut self,
        c: ClassId,
        cf: Arc<ClassFacts>,
        ctx: &Ctx<'t>,
    ) -> std::rc::Rc<crate::project::Instance> {
        let chain = self.ix.class_chain(c);
        let ident = format!("{}.self", cf.qual_name());
        match self.base_ctor_args(&chain, ctx) {
            Some(args) => crate::project::based_instance(cf.clone(), args, ident.clone()),
            None => None,
        }
        .unwrap_or_else(|| crate::project::typed_instance(cf, "self", ident))
    }

    /// `cls.m(…)`, `Cls.m(…)` or `self.m(…)` in class `c` of this file, where no class
    /// of the file on the way defines `m` and one imported base declares what `m`
    /// returns whatever object it is called on: a client (`-> Redis`) or an object of
    /// a project class (`def get_store(cls) -> AbstractStore`).
    pub(crate) fn imported_base_call(
        &mut self,
        c: ClassId,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<crate::eval::Value<'t>> {
        if self.defines(c, m).is_some() {
            return None;
        }
        // A method that registers its argument as a script is called on `self` (its
        // arguments begin after `self`), not as `Cls.m(obj, …)`.
        let on_self = n
            .field(Field::Function)
            .and_then(|f| f.field(Field::Object))
            .is_some_and(|o| text(o, self.src()) == "self");
        let returns = |f: &Fact| {
            matches!(
                f,
                Fact::Returns(_)
                    | Fact::Factory(_)
                    | Fact::PipelineCm(_)
                    | Fact::Builder(_)
                    | Fact::Arms(..)
            ) || (matches!(f, Fact::ScriptParam(..)) && on_self)
        };
        let cf = self.one_imported_base(c, |cf| {
            cf.method(m).is_some_and(returns).then(|| cf.clone())
        })?;
        let fact = cf.method(m)?.clone();
        // `self._namespace(name)`: a key builder of the base, which may read
        // attributes of `self` set by the base's constructor; `self` is then the
        // base's object as `self.attr` reads it (`imported_base_attr`).
        // So is one with a `return` per arm (`if suffix: return …`).
        let instance = match &fact {
            Fact::Builder(b) => b.instance,
            Fact::Arms(bs, _) => bs.iter().all(|b| b.instance),
            _ => false,
        };
        if instance {
            let inst = self.base_self(c, cf, ctx);
            return Some(self.ext_call(&inst, m, args, n, ctx));
        }
        self.call_fact(fact, None, args, n, ctx)
    }

    /// The facts of the bases that class `c` of this file (or a class of its chain)
    /// imports from other modules of the project.
    pub(crate) fn imported_bases(&self, c: ClassId) -> Vec<Arc<ClassFacts>> {
        let mut out = Vec::new();
        for k in self.ix.class_chain(c) {
            for b in &self.ix.classes[k].bases {
                out.extend(self.imported_class(b));
            }
        }
        out
    }

    /// The one imported base of class `c` for which `pick` gives something. A base
    /// one of whose string attributes a class of this file on the way defines again
    /// (`_element_key_template = ":registry:{}"` over the base's `":element:{}"`) is
    /// read as summarised again with that literal (`rebase.rs`), and not at all when
    /// the new value is no literal: its facts were computed with its own value,
    /// which `self` does not have.
    pub(crate) fn one_imported_base<T>(
        &self,
        c: ClassId,
        pick: impl Fn(&Arc<ClassFacts>) -> Option<T>,
    ) -> Option<T> {
        let mut found = None;
        for cf in self.imported_bases(c) {
            let cf = self.as_seen_by(c, cf)?;
            if let Some(t) = pick(&cf) {
                if found.is_some() {
                    return None;
                }
                found = Some(t);
            }
        }
        found
    }

    /// The guard helper `m` (`self._same_kind(other, Base)`) of a base class of
    /// another module, for a class `c` of this file whose classes do not define `m`.
    pub(crate) fn imported_guard(&self, c: ClassId, m: &str) -> Option<GuardFact> {
        self.one_imported_base(c, |cf| cf.guard(m).cloned())
    }

    /// The transaction wrapper `m` (`self._transaction(fn, *keys)`) of a base class
    /// of another module, for a class `c` of this file whose classes do not define
    /// `m`.
    pub(crate) fn imported_wrapper(&self, c: ClassId, m: &str) -> Option<WrapperFact> {
        self.one_imported_base(c, |cf| cf.tx_wrapper(m).cloned())
    }

    /// The facts of base `b` as a class's bases name it (`Base`, `mod.Base`,
    /// `Base[T]`), when it is imported from a module of the project and no class of
    /// this file has its name.
    pub(crate) fn imported_class(&self, b: &str) -> Option<Arc<ClassFacts>> {
        let project = self.project?;
        let simple = b.rsplit('.').next().unwrap_or(b);
        let simple = simple.split('[').next().unwrap_or(simple);
        let first = b.split(['.', '[']).next().unwrap_or(b);
        // A bare name of a class of this file is that class; a dotted one
        // (`class Backend(base.Backend)`) names the module's, even when this file's
        // class (the subclass itself) has the same name.
        if first == simple && self.ix.class_named(simple).is_some() {
            return None;
        }
        let p = self.ix.imports.get(first)?;
        let path = format!("{p}{}", &b[first.len()..]);
        let path = path.split('[').next().unwrap_or(&path).to_string();
        match project.lookup(&path) {
            Some(Fact::Class(cf)) => Some(cf),
            _ => None,
        }
    }

    /// The imported base whose constructor the constructor of class `c` (or of a
    /// class of its chain) calls with arguments that bind every parameter of it: the
    /// base's attributes are then built from this constructor's own parameters, the
    /// same values as the attributes the class builds itself.
    pub(crate) fn bound_imported_base(&mut self, c: ClassId) -> Option<Arc<ClassFacts>> {
        let chain = self.ix.class_chain(c);
        let (target, args) = self.base_ctor_call(&chain, &Ctx::at(None))?;
        let base = self.imported_class(&target)?;
        crate::project::based_instance(base.clone(), args, String::new())?;
        Some(base)
    }

    /// Attribute `attr` of class `c`, which no code of this file writes, as a
    /// registry of scripts that exactly one imported base fills: the client kind of
    /// its scripts.
    pub(crate) fn imported_base_registry(&self, c: ClassId, attr: &str) -> Option<ClientKind> {
        self.one_imported_base(c, |cf| crate::project::class_script_registry(cf, attr))
    }

    /// The arguments the constructor of a class of `chain` passes to its imported
    /// base's constructor, all positional: `Base.__init__(self, a, b)` or
    /// `super().__init__(a, b)` (also `super(Cls, self)`), evaluated in that
    /// constructor, so that an attribute of the base built from `b` and one of the
    /// subclass built from its own parameter are seen as built from the same value.
    fn base_ctor_args(
        &mut self,
        chain: &[ClassId],
        ctx: &Ctx<'t>,
    ) -> Option<Vec<(crate::tpl::Tpl, String)>> {
        self.base_ctor_call(chain, ctx).map(|(_, args)| args)
    }

    /// The base whose constructor the constructor of a class of `chain` calls (as
    /// written among the class's bases: `super()` reaches the first), and the
    /// arguments of that call (see `base_ctor_args`).
    fn base_ctor_call(
        &mut self,
        chain: &[ClassId],
        ctx: &Ctx<'t>,
    ) -> Option<(String, Vec<(crate::tpl::Tpl, String)>)> {
        let (owner, init) = chain
            .iter()
            .find_map(|&k| self.ix.classes[k].methods.get("__init__").map(|&m| (k, m)))?;
        // `super()` reaches the imported base only when the class names no base of
        // this file.
        let super_reaches = self.ix.classes[owner].bases.iter().all(|b| {
            self.ix
                .class_named(b.rsplit('.').next().unwrap_or(b))
                .is_none()
        });
        let body = self.ix.funcs[init].body;
        let mut found = None;
        for st in self.ix.nav.statements(body) {
            if st.kind_name() != "expression_statement" {
                continue;
            }
            let Some(call) = st.named_child(0).filter(|c| c.kind_name() == "call") else {
                continue;
            };
            let Some(func) = call.field(Field::Function) else {
                continue;
            };
            if func.kind_name() != "attribute" {
                continue;
            }
            let Some(attr) = func.field(Field::Attribute) else {
                continue;
            };
            if text(attr, self.src()) != "__init__" {
                continue;
            }
            let Some(obj) = func.field(Field::Object) else {
                continue;
            };
            let is_super = obj.kind_name() == "call"
                && obj
                    .field(Field::Function)
                    .is_some_and(|f| text(f, self.src()) == "super");
            let Some(args) = call.field(Field::Arguments) else {
                continue;
            };
            let mut list: Vec<Node<'t>> = self.ix.nav.named_children(args).collect();
            if is_super && !super_reaches {
                continue;
            }
            if !is_super {
                // `Base.__init__(self, …)`: a base that the file does not define.
                let base = text(obj, self.src());
                let simple = base.rsplit('.').next().unwrap_or(base);
                if self.ix.class_named(simple).is_some() || obj.kind_name() == "call" {
                    continue;
                }
                if list.first().map(|a| text(*a, self.src())) != Some("self") {
                    continue;
                }
                list.remove(0);
            }
            let target = if is_super {
                self.ix.classes[owner].bases.first()?.clone()
            } else {
                text(obj, self.src()).to_string()
            };
            if found.is_some() {
                return None;
            }
            found = Some((target, list));
        }
        let (target, list) = found?;
        let ictx = Ctx {
            func: Some(init),
            env: None,
            depth: ctx.depth + 1,
        };
        let mut out = Vec::new();
        for a in list {
            if !matches!(a.kind_name(), "identifier" | "string" | "attribute") {
                return None;
            }
            let v = self.eval(a, &ictx);
            let id = crate::eval::fingerprint(&v);
            let t = match v {
                crate::eval::Value::Str(t) => t,
                crate::eval::Value::Opaque(h) => crate::tpl::Tpl::hole(h),
                _ => return None,
            };
            out.push((t, id));
        }
        Some((target, out))
    }
}
