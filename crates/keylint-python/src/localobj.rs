//! Key objects of a class defined in the file that uses them.
//!
//! A class whose methods build keys on its own attributes (`def of(self, name: str)
//! -> str: return self.prefix + name`) is read through its facts, as the class of
//! another module is (`project.rs`), when it is defined at the top level of this
//! file (decorated or not): a parameter annotated with it (`ns: Prefix`), an object
//! made by calling it (`Prefix(name)`), a class method that makes a new one
//! (`Prefix.concat(ns, ":x")`, `remake.rs`). An object made here of a class that
//! holds what its constructor is given (a `@dataclass`'s fields, `self.main = main`)
//! is read so too, with the arguments of its call. A class that does neither stays
//! what it was: an object the analysis does not follow.

use crate::eval::{Ctx, Value};
use crate::index::ClassId;
use crate::project::{ClassFacts, Fact, Instance};
use crate::syntax::NodeExt;
use std::sync::Arc;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The facts of the key-object class `name` defined once, at the top level of
    /// this file, and not imported.
    pub(crate) fn own_key_class(&self, name: &str) -> Option<Arc<ClassFacts>> {
        self.own_class_facts(name)
            .filter(|c| Instance::is_key_object(c))
    }

    /// [`Self::own_key_class`], or a class of this file whose objects hold what
    /// their constructor is given ([`Instance::holds_args`]): an object made here is
    /// read with the arguments of its call.
    fn own_object_class(&self, name: &str) -> Option<Arc<ClassFacts>> {
        self.own_class_facts(name)
            .filter(|c| Instance::is_key_object(c) || Instance::holds_args(c))
    }

    /// The facts of the class `name` defined once, at the top level of this file,
    /// and not imported.
    fn own_class_facts(&self, name: &str) -> Option<Arc<ClassFacts>> {
        let scope = self.project?;
        if self.ix.imports.contains_key(name) {
            return None;
        }
        let mut same = self.ix.classes.iter().filter(|c| c.name == name);
        let (Some(c), None) = (same.next(), same.next()) else {
            return None;
        };
        // At the top level, decorated or not (`@dataclass`).
        let mut at = self.ix.nav.parent(c.node)?;
        if at.kind_name() == "decorated_definition" {
            at = self.ix.nav.parent(at)?;
        }
        if at.kind_name() != "module" {
            return None;
        }
        scope.own_class(name)
    }

    /// `Prefix(…)` of a key-object class of this file: the object, with its
    /// constructor's arguments. An object of a class that only holds its arguments
    /// is read so when every argument of the call is a string the code shows (or a
    /// number, or `None`): an object given a client or another object stays one the
    /// analysis follows through the class's methods (`with Locked(conn) as c:`).
    pub(crate) fn own_key_object(
        &mut self,
        c: ClassId,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let name = self.ix.classes[c].name.clone();
        let facts = self.own_object_class(&name)?;
        if !Instance::is_key_object(&facts) {
            let (pos, kw) = self.call_args(args, ctx);
            let plain = |e: &crate::eval::Elem<'t>| {
                !e.star && matches!(e.value, Value::Str(_) | Value::Int(_) | Value::Null)
            };
            if !pos.iter().all(plain) || !kw.iter().all(|(_, e)| plain(e)) {
                return None;
            }
        }
        self.call_fact(Fact::Class(facts), None, args, n, ctx)
    }

    /// `Prefix.concat(…)` of a key-object class of this file, when the method makes
    /// a new object of the class.
    pub(crate) fn own_key_remake(
        &mut self,
        c: ClassId,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let name = self.ix.classes[c].name.clone();
        let facts = self.own_object_class(&name)?;
        let fact @ Fact::Remake(_) = Instance::class_method(&facts, m)? else {
            return None;
        };
        self.call_fact(fact, None, args, n, ctx)
    }
}
