//! Another name for a function or class of a module: `scope_b = scope_name`, or
//! `scope_a = scope_b = scope_name`, bound once at module level. Callers of another
//! module that use the new name (`utils.scope_b(queue, project)`) get the facts of
//! the function it names.

use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};

/// The module-level function or class `name` is another name for, when its one
/// definition is an assignment of that name (through a chain of assignments).
pub(crate) fn module_alias(a: &crate::lower::Analyzer<'_>, name: &str) -> Option<String> {
    let defs = a.ix.module_defs.get(name)?;
    let [d] = defs.as_slice() else {
        return None;
    };
    let DefKind::Expr(mut e) = d.kind else {
        return None;
    };
    while e.kind_name() == "assignment" {
        e = e.field(Field::Right)?;
    }
    if e.kind_name() != "identifier" {
        return None;
    }
    // A name a function rebinds (`global scope_b`) is not one function.
    if a.ix.declared_in_function(name) {
        return None;
    }
    let target = text(e, a.ix.src);
    let known = a.ix.module_funcs.contains_key(target) || a.ix.class_by_name.contains_key(target);
    (target != name && known && a.ix.module_defs.get(target)?.len() == 1)
        .then(|| target.to_string())
}
