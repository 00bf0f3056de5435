//! Parameters typed by their name and their use.
//!
//! ```python
//! class Rwlock:
//!     def __init__(self, name, mode): ...
//!     def rsrc_key(self): return 'rsrc:' + self.name
//!
//! class RwlockClient:
//!     def unlock(self, rwlock):
//!         self.redis.eval(UNLOCK, 2, rwlock.rsrc_key(), rwlock.lock_key())
//! ```
//!
//! A parameter with no annotation is taken for an object of a class of this file
//! when its name is the class's name in snake case (`rwlock` for `Rwlock`,
//! `queue_item` for `QueueItem`) and everything the function reads on it
//! (`rwlock.rsrc_key()`, `rwlock.name`) is a method, property or attribute that the
//! class or one of its bases in this file defines, at least one of them a method.
//! A class of another project module imported here under that name is taken the
//! same way when its facts know every member read, one of them a method. A
//! parameter with a default other than `None`, a `*args` or `**kwargs`, one
//! assigned again in the function, `self`/`cls`, a dunder member, or a class of this
//! file with a base of another module (whose members are not all seen) is not
//! taken. The object is then read as an annotated one is (`objtype.rs`). The name
//! and the members must agree, so an object of another class that happens to have
//! the same members, passed under another name, is not mistaken for one; one with
//! the class's very name and members is taken (a limit the docs state).

use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};

/// `QueueItem` → `queue_item`, `Rwlock` → `rwlock`, `HTTPJob` → `http_job`.
pub(crate) fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_ascii_uppercase())) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The members function `f` reads on its parameter `name` (`rwlock.rsrc_key()`,
    /// `rwlock.name`), when the parameter may be typed by its name: no annotation,
    /// no default but `None`, not starred, not `self`/`cls`, bound once; `None` when
    /// it may not or a dunder member is read.
    fn duck_uses(&self, f: FuncId, name: &str) -> Option<Vec<String>> {
        let src = self.src();
        let info = &self.ix.funcs[f];
        let pos = info.params.iter().position(|p| p.name == name)?;
        let p = &info.params[pos];
        if p.star || p.annotation.is_some() || (pos == 0 && info.class.is_some()) {
            return None;
        }
        if p.default.is_some_and(|d| d.kind_name() != "none") {
            return None;
        }
        if info.defs.get(name).is_none_or(|d| d.len() != 1) {
            return None;
        }
        let mut uses = Vec::new();
        let mut stack = vec![info.body];
        while let Some(n) = stack.pop() {
            if n.kind_name() == "attribute" {
                if let (Some(obj), Some(attr)) = (n.field(Field::Object), n.field(Field::Attribute))
                {
                    if obj.kind_name() == "identifier" && text(obj, src) == name {
                        let m = text(attr, src);
                        if m.starts_with("__") {
                            return None;
                        }
                        uses.push(m.to_string());
                    }
                }
            }
            // A nested function or class binds its own names.
            if n.id() != info.body.id()
                && matches!(
                    n.kind_name(),
                    "function_definition" | "class_definition" | "lambda"
                )
            {
                continue;
            }
            stack.extend(self.ix.nav.named_children(n));
        }
        (!uses.is_empty()).then_some(uses)
    }

    /// The class of this file that parameter `name` of function `f` is an object of,
    /// by its name and its use (see the module doc).
    pub(crate) fn duck_class(&self, f: FuncId, name: &str) -> Option<ClassId> {
        let c = (0..self.ix.classes.len()).find(|&k| snake(&self.ix.classes[k].name) == name)?;
        let uses = self.duck_uses(f, name)?;
        let chain = self.ix.class_chain(c);
        // Every base must be a class of this file: the members of another module's
        // base are not all seen here.
        for &k in &chain {
            if self.ix.classes[k].bases.iter().any(|b| {
                let simple = b.rsplit('.').next().unwrap_or(b);
                simple != "object" && self.ix.class_named(simple).is_none()
            }) {
                return None;
            }
        }
        // Whether the chain defines `m`, and as a method.
        let has = |m: &str| -> Option<bool> {
            chain.iter().find_map(|&k| {
                let cls = &self.ix.classes[k];
                if cls.methods.contains_key(m) {
                    Some(true)
                } else if cls.defs.contains_key(m) || cls.self_assigns.contains_key(m) {
                    Some(false)
                } else {
                    None
                }
            })
        };
        let mut method = false;
        for m in &uses {
            method |= has(m)?;
        }
        method.then_some(c)
    }

    /// The class of another project module, imported here under the name that
    /// parameter `name` of function `f` has in snake case, whose facts know every
    /// member the function reads on the parameter, one of them a method.
    pub(crate) fn duck_ext(
        &self,
        f: FuncId,
        name: &str,
    ) -> Option<std::sync::Arc<crate::project::ClassFacts>> {
        let scope = self.project?;
        let (_, path) = self.ix.imports.iter().find(|(local, _)| {
            local.starts_with(|c: char| c.is_ascii_uppercase()) && snake(local) == name
        })?;
        let uses = self.duck_uses(f, name)?;
        let Some(crate::project::Fact::Class(c)) = scope.lookup(path) else {
            return None;
        };
        if c.is_client() {
            return None;
        }
        let mut method = false;
        for m in &uses {
            if c.has_method(m) {
                method = true;
            } else if !c.has_data(m) {
                return None;
            }
        }
        method.then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::snake;

    #[test]
    fn class_names_in_snake_case() {
        assert_eq!(snake("Rwlock"), "rwlock");
        assert_eq!(snake("QueueItem"), "queue_item");
        assert_eq!(snake("HTTPJob"), "http_job");
        assert_eq!(snake("Job2Queue"), "job2_queue");
        assert_eq!(snake("job"), "job");
    }
}
