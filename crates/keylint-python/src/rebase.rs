//! A base class of another module, read as an object of a subclass that gives some
//! of its string attributes values of its own.
//!
//! ```python
//! # base.py
//! class BaseModel:
//!     _element_key_template = ":element:{}"
//!     @property
//!     def _key(self): return self._element_key_template.format(self.name)
//! # registries.py
//! class QueuedJobRegistry(BaseModel):
//!     _element_key_template = ":registry:{}:queued_jobs"
//! ```
//!
//! The facts of `BaseModel` were computed with its own template; an object of
//! `QueuedJobRegistry` has another. When every attribute the subclass redefines is a
//! plain string literal, the base's module is summarised again for that class with
//! `self._element_key_template` read as the subclass's literal (`Scope::rebased`):
//! `_key` is then `:registry:<name>:queued_jobs`. Any other redefinition (a value
//! computed at run time, a method) leaves the base unread, as before.

use crate::eval::Value;
use crate::index::ClassId;
use crate::project::ClassFacts;
use crate::syntax::{Field, NodeExt};
use crate::tpl::Tpl;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a class of this file does to the string attributes of an imported base.
pub(crate) enum Redefined {
    /// Nothing: the base's facts hold as they are.
    Nothing,
    /// Literal values of its own, by attribute.
    Literals(Vec<(String, String)>),
    /// Something the base's facts cannot be recomputed with.
    Unknown,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.attr` (or `cls.attr`) of the class this module is summarised again
    /// for, or of a base of this file it inherits from, when the subclass that asked
    /// gives `attr` a literal of its own.
    pub(crate) fn rebased_attr(&self, c: ClassId, attr: &str) -> Option<Value<'t>> {
        if self.exact_class {
            return None;
        }
        let (target, values) = self.rebase.as_ref()?;
        // A method of a base of this file reads `self` (or `cls`) as its own class:
        // while the module is summarised again, that is the subclass's object.
        if *target != c && !self.ix.class_chain(*target).contains(&c) {
            return None;
        }
        values
            .get(attr)
            .map(|v| Value::Str(Tpl::text(v.as_bytes())))
    }

    /// The string attributes of the imported base `cf` that the classes of the
    /// chain of class `c` (this file) define again.
    pub(crate) fn redefined(&self, c: ClassId, cf: &ClassFacts) -> Redefined {
        let chain = self.ix.class_chain(c);
        let mut out: BTreeMap<String, String> = BTreeMap::new();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        // The values this module is summarised again with win over its own text.
        let given = self
            .rebase
            .as_ref()
            .filter(|(t, _)| chain.contains(t))
            .map(|(_, v)| v);
        if let Some(g) = given {
            for (name, v) in g {
                if crate::project::class_str_data(cf, name).is_some() {
                    out.insert(name.clone(), v.clone());
                }
            }
        }
        for &k in &chain {
            let cls = &self.ix.classes[k];
            let values = cls
                .defs
                .iter()
                .flat_map(|(name, defs)| {
                    defs.iter().map(move |d| (name, d.stmt.field(Field::Right)))
                })
                .chain(
                    cls.self_assigns
                        .iter()
                        .flat_map(|(name, a)| a.iter().map(move |x| (name, x.value))),
                );
            for (name, value) in values {
                let (Some(value), Some(base)) = (value, crate::project::class_str_data(cf, name))
                else {
                    continue;
                };
                if given.is_some_and(|g| g.contains_key(name)) {
                    continue;
                }
                // `self.key = self.get_key()` as the base's constructor writes it.
                if cf.attr_text(name).is_some()
                    && ctor_assign_text(self, k, name, true).as_deref() == cf.attr_text(name)
                {
                    continue;
                }
                let Some(lit) = crate::subclasses::plain_literal(value, self.src()) else {
                    return Redefined::Unknown;
                };
                // A class nearer `c` in the chain wins; the same literal again
                // (`_DEFAULT_NAME = 'default'`) changes nothing.
                if !seen.insert(name.clone()) {
                    continue;
                }
                if base.as_bytes().is_none_or(|b| b != lit.as_bytes()) {
                    out.insert(name.clone(), lit);
                }
            }
        }
        if out.is_empty() {
            Redefined::Nothing
        } else {
            Redefined::Literals(out.into_iter().collect())
        }
    }

    /// The facts of the imported base `cf` as an object of class `c` sees them:
    /// as they are, summarised again with the literals `c`'s chain gives its
    /// string attributes, or none.
    pub(crate) fn as_seen_by(&self, c: ClassId, cf: Arc<ClassFacts>) -> Option<Arc<ClassFacts>> {
        match self.redefined(c, &cf) {
            Redefined::Nothing => Some(cf),
            Redefined::Literals(values) => self.project?.rebased(&cf, values),
            Redefined::Unknown => None,
        }
    }
}

/// The text (without white space) of the one assignment of `self.<name>` in class
/// `c`, when it is in the constructor and its value is a parameter of the
/// constructor (with its default, if any) or a call without arguments of a method of
/// `self`. With `inherited`, the method must be one that no class of `c`'s chain in
/// this module defines (for a subclass of another module's class: the base's own).
/// Two classes that assign the same such text give the attribute the same value on
/// the same object.
pub(crate) fn ctor_assign_text(
    a: &crate::lower::Analyzer<'_>,
    c: ClassId,
    name: &str,
    inherited: bool,
) -> Option<String> {
    use crate::index::text;
    let src = a.src();
    let squeeze = |t: &str| -> String { t.chars().filter(|ch| !ch.is_whitespace()).collect() };
    let assigns = a.ix.classes[c].self_assigns.get(name)?;
    let [one] = assigns.as_slice() else {
        return None;
    };
    let f = &a.ix.funcs[one.func];
    if f.name != "__init__" || a.ix.method_class(one.func) != Some(c) {
        return None;
    }
    let value = one.value?;
    match value.kind_name() {
        "identifier" => {
            let id = text(value, src);
            let p = f.params.iter().skip(1).find(|p| p.name == id && !p.star)?;
            // A parameter bound again in the constructor is no longer the argument.
            if f.defs.get(id).is_some_and(|d| d.len() > 1) {
                return None;
            }
            Some(match p.default {
                Some(d) => format!("{id}={}", squeeze(text(d, src))),
                None => id.to_string(),
            })
        }
        "call" => {
            let callee = value.field(Field::Function)?;
            let args = value.field(Field::Arguments)?;
            if callee.kind_name() != "attribute"
                || a.ix
                    .nav
                    .named_children(args)
                    .any(|x| x.kind_name() != "comment")
            {
                return None;
            }
            let obj = callee.field(Field::Object)?;
            if f.self_name() != Some(text(obj, src)) {
                return None;
            }
            let m = text(callee.field(Field::Attribute)?, src);
            if inherited
                && a.ix
                    .class_chain(c)
                    .iter()
                    .any(|&k| a.ix.classes[k].methods.contains_key(m))
            {
                return None;
            }
            Some(squeeze(text(value, src)))
        }
        _ => None,
    }
}
