//! Commands chosen by name: `getattr(pipe, kind)(dest, keys)` where `kind` can only
//! be one of a few literal method names.
//!
//! The name is followed through literals, conditional expressions, locals, module
//! names that no function rebinds, subscripts of a module dict (or list) literal whose
//! values are all literals, and `self.attr` assigned only such values in the methods
//! of the class (and its bases of the file). The call is a command of the receiver
//! only when every candidate name passes its keys the same way (`zinterstore` and
//! `zunionstore`, or several one-key commands): which one runs then changes nothing
//! about the keys. A name of any other origin, or candidates whose keys differ, stay
//! unknown.

use crate::eval::arg_nodes;
use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// How deep the name is followed.
const MAX_NAME_DEPTH: u32 = 6;
/// Candidate names kept at most.
const MAX_NAMES: usize = 16;

impl<'t> crate::lower::Analyzer<'t> {
    /// `getattr(obj, name)` (the callee of a call) with `name` one of a few literal
    /// method names that all pass keys alike: the object and the first name.
    pub(crate) fn getattr_method(
        &self,
        callee: Node<'t>,
        func: Option<crate::index::FuncId>,
    ) -> Option<(Node<'t>, &'t str)> {
        if callee.kind_name() != "call" {
            return None;
        }
        let f = callee.field(Field::Function)?;
        if f.kind_name() != "identifier" || text(f, self.src()) != "getattr" {
            return None;
        }
        // `getattr` itself rebound in this module: not the builtin.
        if self.ix.module_defs.contains_key("getattr")
            || self.ix.module_funcs.contains_key("getattr")
        {
            return None;
        }
        let args = arg_nodes(self.ix.nav, callee.field(Field::Arguments));
        let [obj, name] = args.as_slice() else {
            return None;
        };
        if obj.kind_name() == "list_splat" || name.kind_name() == "list_splat" {
            return None;
        }
        let mut names: Vec<&'t str> = Vec::new();
        if !self.literal_names(*name, func, 0, &mut names) || names.is_empty() {
            return None;
        }
        let first = names[0];
        names
            .iter()
            .all(|m| same_key_shape(first, m))
            .then_some((*obj, first))
    }

    /// Adds to `out` every literal `n` may hold; false when some value is not one.
    fn literal_names(
        &self,
        n: Node<'t>,
        func: Option<crate::index::FuncId>,
        depth: u32,
        out: &mut Vec<&'t str>,
    ) -> bool {
        if depth > MAX_NAME_DEPTH || out.len() > MAX_NAMES {
            return false;
        }
        let src = self.src();
        let nav = self.ix.nav;
        match n.kind_name() {
            "string" => {
                let Some(s) = crate::heads::plain_string(nav, n, src) else {
                    return false;
                };
                if s.is_empty() || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    return false;
                }
                if !out.contains(&s) {
                    out.push(s);
                }
                true
            }
            "parenthesized_expression" => match nav.named_children(n).next() {
                Some(e) => self.literal_names(e, func, depth + 1, out),
                None => false,
            },
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = nav.named_children(n).collect();
                let [a, _, b] = kids.as_slice() else {
                    return false;
                };
                self.literal_names(*a, func, depth + 1, out)
                    && self.literal_names(*b, func, depth + 1, out)
            }
            "identifier" => {
                let name = text(n, src);
                // A local: every definition of it in the function.
                if let Some(f) = func {
                    let info = &self.ix.funcs[f];
                    if info.params.iter().any(|p| p.name == name) {
                        return false;
                    }
                    if !info.nonlocal.iter().any(|x| x == name) {
                        if let Some(defs) = info.defs.get(name) {
                            return defs.iter().all(|d| match d.kind {
                                DefKind::Expr(e) => self.literal_names(e, func, depth + 1, out),
                                _ => false,
                            });
                        }
                        if info.parent.is_some() {
                            return false;
                        }
                    }
                }
                self.module_literal_names(name, depth, out)
            }
            "subscript" => {
                let Some(base) = nav.named_children(n).next() else {
                    return false;
                };
                if base.kind_name() != "identifier" {
                    return false;
                }
                let name = text(base, src);
                if func.is_some_and(|f| {
                    let info = &self.ix.funcs[f];
                    info.defs.contains_key(name) || info.params.iter().any(|p| p.name == name)
                }) {
                    return false;
                }
                let Some(value) = self.module_value(name) else {
                    return false;
                };
                let items: Vec<Node<'t>> = match value.kind_name() {
                    "dictionary" => {
                        let mut v = Vec::new();
                        for p in nav.named_children(value) {
                            if p.kind_name() != "pair" {
                                return false;
                            }
                            let Some(x) = p.field(Field::Value) else {
                                return false;
                            };
                            v.push(x);
                        }
                        v
                    }
                    "list" | "tuple" => nav.named_children(value).collect(),
                    _ => return false,
                };
                !items.is_empty()
                    && items.into_iter().all(|x| {
                        x.kind_name() == "string" && self.literal_names(x, None, depth + 1, out)
                    })
            }
            "attribute" => {
                let (Some(obj), Some(attr)) = (n.field(Field::Object), n.field(Field::Attribute))
                else {
                    return false;
                };
                let Some(f) = func else { return false };
                let info = &self.ix.funcs[f];
                let (Some(c), Some(me)) = (info.class, info.self_name()) else {
                    return false;
                };
                if obj.kind_name() != "identifier" || text(obj, src) != me {
                    return false;
                }
                let a = text(attr, src);
                let mut seen = false;
                for cid in self.ix.class_chain(c) {
                    let class = &self.ix.classes[cid];
                    if let Some(defs) = class.defs.get(a) {
                        for d in defs {
                            let DefKind::Expr(e) = d.kind else {
                                return false;
                            };
                            if !self.literal_names(e, None, depth + 1, out) {
                                return false;
                            }
                            seen = true;
                        }
                    }
                    if let Some(assigns) = class.self_assigns.get(a) {
                        for s in assigns {
                            let Some(v) = s.value else { return false };
                            if !self.literal_names(v, Some(s.func), depth + 1, out) {
                                return false;
                            }
                            seen = true;
                        }
                    }
                }
                seen
            }
            _ => false,
        }
    }

    /// A module name bound only to literal names, and rebound by no function.
    fn module_literal_names(&self, name: &str, depth: u32, out: &mut Vec<&'t str>) -> bool {
        if self.ix.declared_in_function(name) {
            return false;
        }
        let Some(defs) = self.ix.module_defs.get(name) else {
            return false;
        };
        !defs.is_empty()
            && defs.iter().all(|d| match d.kind {
                DefKind::Expr(e) => self.literal_names(e, None, depth + 1, out),
                _ => false,
            })
    }

    /// The one value of a module name that no function rebinds.
    fn module_value(&self, name: &str) -> Option<Node<'t>> {
        if self.ix.declared_in_function(name) {
            return None;
        }
        match self.ix.module_defs.get(name)?.as_slice() {
            [d] => match d.kind {
                DefKind::Expr(e) => Some(e),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Whether methods `a` and `b` pass their keys the same way, so that a call through
/// a name bound to either is judged the same: the same method, two multi-key methods
/// of the table with the same key parameters and the same behaviour on a cluster
/// (`zunionstore` and `zinterstore`), or two one-key commands that both take their
/// key first.
pub(crate) fn same_key_shape(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let t = crate::methods::table();
    match (t.method(a), t.method(b)) {
        (Some(x), Some(y)) => {
            x.params == y.params && x.cluster == y.cluster && x.pipeline == y.pipeline
        }
        (None, None) => {
            crate::methods::single_key_command(a).is_some()
                && crate::methods::single_key_command(b).is_some()
                && !t.not_first_key.iter().any(|m| m == a || m == b)
        }
        _ => false,
    }
}
