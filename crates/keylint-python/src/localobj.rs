//! Key objects of a class defined in the file that uses them.
//!
//! A class whose methods build keys on its own attributes (`def of(self, name: str)
//! -> str: return self.prefix + name`) is read through its facts, as the class of
//! another module is (`project.rs`), when it is defined at the top level of this
//! file: a parameter annotated with it (`ns: Prefix`), an object made by calling it
//! (`Prefix(name)`), a class method that makes a new one (`Prefix.concat(ns, ":x")`,
//! `remake.rs`). A class that builds no key on its instance stays what it was: an
//! object the analysis does not follow.

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
        let scope = self.project?;
        if self.ix.imports.contains_key(name) {
            return None;
        }
        let mut same = self.ix.classes.iter().filter(|c| c.name == name);
        let (Some(c), None) = (same.next(), same.next()) else {
            return None;
        };
        if self.ix.nav.parent(c.node).map(|p| p.kind_name()) != Some("module") {
            return None;
        }
        scope.own_class(name).filter(|c| Instance::is_key_object(c))
    }

    /// `Prefix(…)` of a key-object class of this file: the object, with its
    /// constructor's arguments.
    pub(crate) fn own_key_object(
        &mut self,
        c: ClassId,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let name = self.ix.classes[c].name.clone();
        let facts = self.own_key_class(&name)?;
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
        let facts = self.own_key_class(&name)?;
        let fact @ Fact::Remake(_) = Instance::class_method(&facts, m)? else {
            return None;
        };
        self.call_fact(fact, None, args, n, ctx)
    }
}
