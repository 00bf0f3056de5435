//! Key builders of another module that take `*parts`.
//!
//! `def _key(self, *parts): return ":".join([self.config["PREFIX"]] + list(parts))`
//! builds a key from however many arguments its caller passes, so its summary cannot
//! be one template with one hole per parameter. It is summarised once per count of
//! arguments the star takes (0 to [`MAX_STAR`]): the parameters before the star and
//! each argument of the star are placeholders in order, so the template of a count
//! is bound at a call site exactly like a builder without a star. A call that splats
//! its arguments, or passes more than [`MAX_STAR`] to the star, stays unknown.

use crate::eval::{Elem, Value};
use crate::index::FuncId;
use crate::lower::Analyzer;
use crate::syntax::NodeExt;
use tree_sitter::Node;

/// Arguments a `*parts` builder is summarised for, at most (a prefix, a family name,
/// a few ids and a field: five or six arguments are common).
pub(crate) const MAX_STAR: usize = 6;

/// What the builder `fid` returns for each count of arguments its last parameter,
/// `*parts`, takes (index `k`: `k` arguments), with the `skip` first parameters
/// (the receiver) left out and `bound` the class of `self`. `None` unless the star
/// is a list splat, last, and every count evaluates.
pub(crate) fn star_variants<'t>(
    a: &mut Analyzer<'t>,
    fid: FuncId,
    bound: Option<crate::index::ClassId>,
    skip: usize,
) -> Option<Vec<Value<'t>>> {
    let info = a.ix.funcs[fid].clone();
    let params: Vec<_> = info.params.iter().skip(skip).collect();
    let (star, fixed) = params.split_last()?;
    if !star.star || fixed.iter().any(|p| p.star) {
        return None;
    }
    let is_list =
        a.ix.nav
            .parent(star.node)
            .is_some_and(|x| x.kind_name() == "list_splat_pattern");
    if !is_list {
        return None;
    }
    let mut out = Vec::new();
    for k in 0..=MAX_STAR {
        let mut pos: Vec<Elem<'t>> = fixed
            .iter()
            .enumerate()
            .map(|(i, p)| elem(crate::project::placeholder('p', i, &p.name), p.node))
            .collect();
        for j in 0..k {
            let label = format!("{}[{j}]", star.name);
            let v = crate::project::placeholder('p', fixed.len() + j, &label);
            pos.push(elem(v, star.node));
        }
        match a.call_builder(fid, bound, pos, Vec::new(), &crate::eval::Ctx::at(None))? {
            v @ Value::Str(_) => out.push(v),
            _ => return None,
        }
    }
    Some(out)
}

fn elem<'t>(value: Value<'t>, node: Node<'t>) -> Elem<'t> {
    Elem {
        value,
        node,
        star: false,
        each: Vec::new(),
    }
}

/// The number of positional arguments of a call, when none is a splat.
pub(crate) fn positional_count(args: Option<Node<'_>>) -> Option<usize> {
    let Some(args) = args else { return Some(0) };
    if args.kind_name() != "argument_list" {
        return None;
    }
    let mut cursor = args.walk();
    let mut n = 0;
    for a in args.named_children(&mut cursor) {
        match a.kind_name() {
            "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => return None,
            "keyword_argument" | "comment" => {}
            _ => n += 1,
        }
    }
    Some(n)
}
