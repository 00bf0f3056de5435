//! Chunking helpers and generators of keys.
//!
//! A helper that cuts a sequence into pieces (`chunks(seq, size)`, `batchify(it,
//! size)`) hands back pieces of what it was given: every piece of a family of keys is
//! members of that family, so `for chunk in chunks(keys, 100): r.mget(chunk)` is a
//! multi-key command over the family. A helper is such a chunker when every value it
//! gives is a slice of one parameter (`seq[pos : pos + size]` in the one returned
//! comprehension, or yielded) or a list of `islice(it, n)` over that parameter or an
//! `iter()` of it, and that parameter is never assigned again.
//!
//! A generator whose every `yield` gives a member of one family varying with its loop
//! (`for key in self.r.scan_iter(match=p): yield key.decode()`) gives that family.
//!
//! The keys of a dict of keys (`d.keys()`, `list(d)`) are its keys, and a builder of
//! another module that returns a comprehension of keys is summarised as the family of
//! its member (`Shape`, `family_at`).

use crate::eval::Ctx;
use crate::eval::{Elem, Value};
use crate::index::{DefKind, FuncInfo};
use crate::syntax::{Field, Nav, NodeExt};
use tree_sitter::Node;

/// The position (among the parameters the caller fills) of the sequence a chunking
/// helper cuts, or `None` when the function is not one. `skip`: the parameters the
/// caller does not fill (`self`).
pub(crate) fn chunked_param(
    nav: &Nav<'_>,
    src: &str,
    info: &FuncInfo<'_>,
    skip: usize,
) -> Option<usize> {
    if info.is_lambda || !info.decorators.is_empty() {
        return None;
    }
    let mut yields = Vec::new();
    let mut returns = Vec::new();
    gather(nav, info.body, &mut yields, &mut returns);
    let pieces: Vec<Node<'_>> = if yields.is_empty() {
        // `return (seq[i : i + n] for i in range(0, len(seq), n))`.
        let [r] = returns.as_slice() else {
            return None;
        };
        let e = r.named_child(0)?;
        if !matches!(e.kind_name(), "generator_expression" | "list_comprehension") {
            return None;
        }
        vec![e.field(Field::Body)?]
    } else {
        // A bare `return` ends the generator; a returned value is something else.
        if returns.iter().any(|r| r.named_child(0).is_some()) {
            return None;
        }
        let mut out = Vec::new();
        for y in yields {
            if crate::index::text(y, src).starts_with("yield from") {
                return None;
            }
            out.push(y.named_child(0)?);
        }
        out
    };
    let mut param: Option<String> = None;
    for p in pieces {
        let name = piece_of(info, src, p)?;
        if param.as_ref().is_some_and(|q| *q != name) {
            return None;
        }
        param = Some(name);
    }
    let name = param?;
    // The parameter keeps the caller's value.
    let defs = info.defs.get(&name)?;
    if defs.iter().any(|d| !matches!(d.kind, DefKind::Param(_))) {
        return None;
    }
    let i = info.params.iter().position(|p| p.name == name && !p.star)?;
    i.checked_sub(skip)
}

/// The `yield` expressions and `return` statements of a body, not of the functions
/// nested in it.
fn gather<'t>(nav: &Nav<'t>, n: Node<'t>, yields: &mut Vec<Node<'t>>, returns: &mut Vec<Node<'t>>) {
    for c in nav.named_children(n) {
        match c.kind_name() {
            "yield" => yields.push(c),
            "return_statement" => returns.push(c),
            "function_definition" | "lambda" | "class_definition" => {}
            _ => gather(nav, c, yields, returns),
        }
    }
}

/// The parameter a piece is cut from: `p[a:b]`, or a local assigned only
/// `list(islice(it, n))` (also `tuple`, `itertools.islice`) where `it` is `p` or a
/// local assigned only `iter(p)`.
fn piece_of(info: &FuncInfo<'_>, src: &str, e: Node<'_>) -> Option<String> {
    let text = |n: Node<'_>| crate::index::text(n, src).to_string();
    match e.kind_name() {
        "subscript" => {
            let v = e.field(Field::Value)?;
            let s = e.named_child(1)?;
            (v.kind_name() == "identifier"
                && s.kind_name() == "slice"
                && e.named_child_count() == 2)
                .then(|| text(v))
                .filter(|n| is_param(info, n))
        }
        "identifier" => {
            let defs = info.defs.get(crate::index::text(e, src))?;
            let mut from: Option<String> = None;
            for d in defs {
                let DefKind::Expr(x) = d.kind else {
                    return None;
                };
                let it = call_arg(x, src, &["list", "tuple"])?;
                let it = call_arg_first(it, src, &["islice", "itertools.islice"])?;
                if it.kind_name() != "identifier" {
                    return None;
                }
                let name = text(it);
                let name = if is_param(info, &name) {
                    name
                } else {
                    let idefs = info.defs.get(&name)?;
                    let mut p: Option<String> = None;
                    for d in idefs {
                        let DefKind::Expr(y) = d.kind else {
                            return None;
                        };
                        let a = call_arg(y, src, &["iter"])?;
                        if a.kind_name() != "identifier" || !is_param(info, &text(a)) {
                            return None;
                        }
                        p = Some(text(a));
                    }
                    p?
                };
                if from.as_ref().is_some_and(|f| *f != name) {
                    return None;
                }
                from = Some(name);
            }
            from
        }
        _ => None,
    }
}

fn is_param(info: &FuncInfo<'_>, name: &str) -> bool {
    info.params.iter().any(|p| p.name == name && !p.star)
}

/// The one argument of a call of one of `names`.
fn call_arg<'t>(x: Node<'t>, src: &str, names: &[&str]) -> Option<Node<'t>> {
    let args = called(x, src, names)?;
    (args.named_child_count() == 1)
        .then(|| args.named_child(0))
        .flatten()
        .filter(|a| a.kind_name() != "keyword_argument" && !a.kind_name().ends_with("splat"))
}

/// The first of the two arguments of a call of one of `names`.
fn call_arg_first<'t>(x: Node<'t>, src: &str, names: &[&str]) -> Option<Node<'t>> {
    let args = called(x, src, names)?;
    (args.named_child_count() == 2)
        .then(|| args.named_child(0))
        .flatten()
        .filter(|a| a.kind_name() != "keyword_argument" && !a.kind_name().ends_with("splat"))
}

fn called<'t>(x: Node<'t>, src: &str, names: &[&str]) -> Option<Node<'t>> {
    if x.kind_name() != "call" {
        return None;
    }
    let f = x.field(Field::Function)?;
    if !names.contains(&crate::index::text(f, src)) {
        return None;
    }
    x.field(Field::Arguments)
        .filter(|a| a.kind_name() == "argument_list")
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `chunker(keys, n)`: the pieces of a family, each a family of its own members.
    /// `arg`: the value passed as the sequence.
    pub(crate) fn chunks_of(&self, arg: Value<'t>, n: Node<'t>) -> Option<Value<'t>> {
        let Value::Seq {
            items,
            family: true,
        } = &arg
        else {
            return None;
        };
        let [Elem {
            value: Value::Str(_),
            each,
            ..
        }] = items.as_slice()
        else {
            return None;
        };
        let each = each.clone();
        Some(Value::family(arg, n, each))
    }

    /// The value of a call of a chunking helper of this file, when it is one and its
    /// sequence is a family of keys.
    pub(crate) fn local_chunks(
        &mut self,
        id: crate::index::FuncId,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let info = self.ix.funcs[id].clone();
        if info.class.is_some() || info.parent.is_some() {
            return None;
        }
        let pos = chunked_param(self.ix.nav, self.src(), &info, 0)?;
        self.chunks_at(pos, args, n, ctx)
    }

    /// The chunks of the family passed at position `pos` of a call.
    pub(crate) fn chunks_at(
        &mut self,
        pos: usize,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (p, kw) = self.call_args(args, ctx);
        if p.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
            return None;
        }
        let arg = p.get(pos)?.value.clone();
        self.chunks_of(arg, n)
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// A generator of the file whose every `yield` gives a member of one family of
    /// keys that varies with a loop around it (`for key in self.r.scan_iter(match=p):
    /// yield key.decode()`, or a filter over such a loop), called with these
    /// arguments: that family. The body is read with its parameters bound to the
    /// call's arguments, so a tag the caller writes in a pattern (`scan_keys(
    /// f"auth:{{{uid}}}:*")`) is the tag of every key found; when it cannot be read
    /// so, in its own scope, and then only when no parameter shapes the family.
    pub(crate) fn call_generator(
        &mut self,
        id: crate::index::FuncId,
        bound: Option<crate::index::ClassId>,
        pos: Vec<crate::eval::Elem<'t>>,
        kw: Vec<(String, crate::eval::Elem<'t>)>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let info = self.ix.funcs[id].clone();
        if info.is_lambda || !crate::eval::plain_decorators(&info) {
            return None;
        }
        let mut yields = Vec::new();
        crate::eval::collect_yields(self.ix.nav, info.body, &mut yields);
        if yields.is_empty() || yields.len() > 8 {
            return None;
        }
        // A generator that reaches itself is left unknown.
        let guard = (4u8, id, 0);
        if !self.in_progress.insert(guard) {
            return None;
        }
        let v = self
            .bind_call(id, bound, pos, kw, ctx)
            .and_then(|inner| self.yields_in(&yields, &inner))
            .or_else(|| {
                // Read in its own scope, its parameters unbound: only a family that
                // none of them shapes.
                let v = self.yields_in(&yields, &Ctx::at(Some(id)))?;
                let (t, _) = family_member(&v)?;
                // Its own parameters, not the receiver (`self`).
                let receiver = info.self_name().map(str::to_string);
                let param = |label: &str| {
                    info.params.iter().any(|p| {
                        Some(&p.name) != receiver.as_ref()
                            && (label == p.name
                                || label.strip_prefix(p.name.as_str()).is_some_and(|r| {
                                    r.starts_with('.') || r.starts_with('[') || r.starts_with('(')
                                }))
                    })
                };
                let shaped = t.parts.iter().any(|p| match p {
                    crate::tpl::TPart::Hole(h) => param(&h.label),
                    crate::tpl::TPart::Lit { .. } => false,
                });
                (!shaped).then_some(v)
            });
        self.in_progress.remove(&guard);
        v
    }

    /// The family of what the `yield`s give, read in `inner`.
    fn yields_in(&mut self, yields: &[Node<'t>], inner: &Ctx<'t>) -> Option<Value<'t>> {
        let mut member: Option<(crate::tpl::Tpl, Node<'t>)> = None;
        for &y in yields {
            if crate::index::text(y, self.src()).starts_with("yield from") {
                return None;
            }
            let e = y.named_child(0)?;
            let Value::Str(t) = self.eval(e, inner) else {
                return None;
            };
            if crate::collections::marked_loops(&t).is_empty() {
                return None;
            }
            match &member {
                Some((m, _)) if *m != t => return None,
                Some(_) => {}
                None => member = Some((t, e)),
            }
        }
        let (t, node) = member?;
        let each = crate::collections::marked_loops(&t);
        Some(Value::family(Value::Str(t), node, each))
    }
}

/// The keys of a dict as a sequence: the family of a dict comprehension (or of a dict
/// filled key by key in a loop), else its keys one by one (a `**splat` an unknown
/// count of unknown keys).
pub(crate) fn dict_keys(mut items: Vec<Elem<'_>>) -> Value<'_> {
    if items.iter().any(|e| !e.each.is_empty()) {
        if items.len() != 1 {
            return Value::Unknown;
        }
        let mut e = items.remove(0);
        e.star = false;
        return Value::Seq {
            items: vec![e],
            family: true,
        };
    }
    Value::Seq {
        items,
        family: false,
    }
}

/// Whether a family of keys came as a list (or generator) or as a dict's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Seq,
    Dict,
}

/// The one member of a comprehension of keys, which varies with that comprehension
/// (its holes carry the comprehension's marker).
pub(crate) fn family_member(v: &Value<'_>) -> Option<(crate::tpl::Tpl, Shape)> {
    let (items, shape) = match v {
        Value::Seq {
            items,
            family: true,
        } => (items, Shape::Seq),
        Value::Dict(items, _) => (items, Shape::Dict),
        _ => return None,
    };
    let [Elem {
        value: Value::Str(t),
        each,
        ..
    }] = items.as_slice()
    else {
        return None;
    };
    let marked = crate::collections::marked_loops(t);
    (!each.is_empty() && each.iter().all(|e| marked.contains(e))).then(|| (t.clone(), shape))
}

/// A family builder of another module applied at call `n`: the member `t` (the
/// builder's template `ret` with the call's values), its comprehension's marker
/// replaced by the call's own, so that it names no loop of this file.
pub(crate) fn family_at<'t>(
    ret: &crate::tpl::Tpl,
    mut t: crate::tpl::Tpl,
    shape: Shape,
    n: Node<'t>,
) -> Value<'t> {
    let id = n.start_byte();
    let mine = crate::eval::each_marker(id);
    let theirs: Vec<String> = crate::collections::marked_loops(ret)
        .into_iter()
        .map(crate::eval::each_marker)
        .collect();
    for p in &mut t.parts {
        if let crate::tpl::TPart::Hole(h) = p {
            for m in &theirs {
                h.binding = h.binding.replace(m.as_str(), &mine);
            }
        }
    }
    let e = Elem {
        value: Value::Str(t),
        node: n,
        star: shape == Shape::Dict,
        each: vec![id],
    };
    match shape {
        Shape::Seq => Value::Seq {
            items: vec![e],
            family: true,
        },
        Shape::Dict => Value::Dict(vec![e], None),
    }
}
