//! A function of the file that makes a pipeline, queues commands on it and hands it
//! back un-executed (`pipeline = self.add_object_to_stores(obj, stores,
//! execute=False)`, then `pipeline.incr(…)` and `pipeline.execute()` in the caller).
//!
//! The call is a new pipeline at each call site, as any pipeline a function makes
//! and returns; the commands the function queued on it before returning are the
//! first commands of that pipeline, where the function is called. Two shapes are
//! read, for one call:
//!
//! - the body ends with `return p`, and `p` is returned nowhere else;
//! - a top-level `if` whose test the call decides to be true (`if not execute:`
//!   with `execute=False` written at the call, or a parameter left to its literal
//!   default) ends with `return p`, and every other `return` comes after it: what
//!   follows the `if` (its `p.execute()`) does not run.
//!
//! `p` is a local assigned once, from an expression that is a pipeline made inside
//! the function. Anything else (`p` returned under a test the call does not decide,
//! a return before the `if`, a decorator other than `staticmethod`/`classmethod`)
//! is not read, and the call stays what it was.

use crate::eval::{Ctx, Value};
use crate::index::{text, DefKind, FuncId};
use crate::syntax::{Field, NodeExt};
use std::collections::HashMap;
use tree_sitter::Node;

/// How a function hands its pipeline back for one call.
pub(crate) struct Handback<'t> {
    /// The local that holds the pipeline.
    name: String,
    /// The pipeline the function makes (its own, lowered on its own).
    made: crate::eval::PipeId,
    /// Calls from here on do not run for this call.
    until: Option<usize>,
    /// The parameters bound for the call.
    params: HashMap<String, Value<'t>>,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The shape in which function `id` returns an un-executed pipeline for `call`.
    fn handback(
        &mut self,
        id: FuncId,
        bound: Option<crate::index::ClassId>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Handback<'t>> {
        if !self.resolve_names {
            return None;
        }
        let info = self.ix.funcs[id].clone();
        if info.is_lambda || !info.plainly_called() {
            return None;
        }
        let nav = self.ix.nav;
        let src = self.src();
        let stmts = nav.statements(info.body);
        let mut rets = Vec::new();
        collect_returns(nav, info.body, &mut rets);
        // The returned local: the last statement, or the end of a top-level `if`.
        let returned = |r: Node<'t>| -> Option<&'t str> {
            let e = r.named_child(0)?;
            (e.kind_name() == "identifier").then(|| text(e, src))
        };
        let last = *stmts.last()?;
        let (name, ret, gate) = if let Some(n) =
            returned(last).filter(|_| last.kind_name() == "return_statement")
        {
            (n, last, None)
        } else {
            let (gate, r) = stmts.iter().find_map(|s| {
                if s.kind_name() != "if_statement"
                    || nav
                        .named_children(*s)
                        .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
                {
                    return None;
                }
                let r = *nav.statements(s.field(Field::Consequence)?).last()?;
                (r.kind_name() == "return_statement" && returned(r).is_some()).then_some((*s, r))
            })?;
            (returned(r)?, r, Some(gate))
        };
        let name = name.to_string();
        // Every other return comes after the `if` that returns the pipeline.
        let end = gate.map_or(ret.end_byte(), |g| g.end_byte());
        if rets
            .iter()
            .any(|r| *r != ret && (gate.is_none() || r.start_byte() < end))
        {
            return None;
        }
        let defs = info.defs.get(&name)?;
        let [d] = defs.as_slice() else { return None };
        let DefKind::Expr(e) = d.kind else {
            return None;
        };
        if info.params.iter().any(|p| p.name == name) || d.stmt.start_byte() >= ret.start_byte() {
            return None;
        }
        let self_name = info.self_name().is_some();
        let (pos, kw) = self.call_args(args, ctx);
        if pos.iter().any(|x| x.star) || kw.iter().any(|(_, x)| x.star) {
            return None;
        }
        let params = self.helper_params(&info, bound, self_name, (&pos, &kw), ctx)?;
        if let Some(g) = gate {
            if literal_truth(nav, src, g.field(Field::Condition)?, &info, args) != Some(true) {
                return None;
            }
        }
        let env = std::rc::Rc::new(crate::eval::Env {
            func: id,
            params: params.clone(),
            tag: format!("{}@{}<handback", info.name, call.start_byte()),
        });
        let inner = Ctx {
            func: Some(id),
            env: Some(env),
            depth: ctx.depth + 1,
        };
        let Value::Pipe(made) = self.eval(e, &inner) else {
            return None;
        };
        let inside = info.node.byte_range();
        let created = self.pipes[made].created.clone()?;
        if created.start < inside.start || created.end > inside.end {
            return None;
        }
        Some(Handback {
            name,
            made,
            until: gate.map(|g| g.end_byte()),
            params,
        })
    }

    /// The pipeline a call of function `id` hands back un-executed: one per call
    /// site, of the kind the function makes.
    pub(crate) fn handed_back(
        &mut self,
        id: FuncId,
        bound: Option<crate::index::ClassId>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if let Some(&q) = self.pipe_by_node.get(&call.id()) {
            return Some(Value::Pipe(q));
        }
        let h = self.handback(id, bound, call, args, ctx)?;
        Some(Value::Pipe(self.site_pipe(h.made, call)))
    }

    /// The caller's own pipeline again, from a helper that queues on its pipeline
    /// parameter and returns it (`pipe = self._unlink_pipe(pipe=pipe, …)` with
    /// `return pipe`, or `pipe, intent = self._new_page(pipe=pipe, …)` with `return
    /// pipe, {…}`): see [`passes_back`]. The commands it queued join the caller's
    /// batch as any helper's do (the call is followed where it is lowered).
    pub(crate) fn passed_back(
        &mut self,
        id: FuncId,
        bound: Option<crate::index::ClassId>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if !self.resolve_names {
            return None;
        }
        let info = self.ix.funcs[id].clone();
        let (name, len) = passes_back(&self.ix, self.src(), id, PASS_BACK_DEPTH)?;
        let skip = usize::from(info.self_name().is_some() && bound.is_some());
        let at = info.params.iter().position(|p| p.name == name)?;
        if at < skip {
            return None;
        }
        let (pos, kw) = self.call_args(args, ctx);
        if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
            return None;
        }
        let arg = kw
            .into_iter()
            .find(|(k, _)| k == name)
            .map(|(_, e)| e)
            .or_else(|| pos.into_iter().nth(at - skip))?;
        let v = self.as_receiver(arg.value, arg.node);
        if !matches!(v, Value::Pipe(_)) {
            return None;
        }
        let Some(len) = len else {
            return Some(v);
        };
        let elem = |value| crate::eval::Elem {
            value,
            node: arg.node,
            star: false,
            each: Vec::new(),
        };
        let mut items = vec![elem(v)];
        items.extend((1..len).map(|_| elem(Value::Unknown)));
        Some(Value::Seq {
            items,
            family: false,
        })
    }

    /// Lowers, for `call`, the commands function `id` queues on the pipeline it hands
    /// back: they join that pipeline's batch at the call. Whether it did.
    pub(crate) fn follow_handback(
        &mut self,
        id: FuncId,
        bound: Option<crate::index::ClassId>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> bool {
        if self.inline.is_some() {
            return false;
        }
        let Some(mut h) = self.handback(id, bound, call, args, ctx) else {
            return false;
        };
        let q = self.site_pipe(h.made, call);
        h.params.insert(h.name.clone(), Value::Pipe(q));
        self.follow_body(id, call, vec![q], h.params, h.until, ctx);
        true
    }

    /// The pipeline of call site `call`, a copy of `made`.
    fn site_pipe(&mut self, made: crate::eval::PipeId, call: Node<'t>) -> crate::eval::PipeId {
        if let Some(&q) = self.pipe_by_node.get(&call.id()) {
            return q;
        }
        let q = self.pipes.len();
        let info = self.pipes[made].clone();
        self.pipes.push(info);
        self.pipe_by_node.insert(call.id(), q);
        q
    }
}

/// The return statements of a function body, not of functions nested in it.
pub(crate) fn collect_returns<'t>(
    nav: &crate::syntax::Nav<'t>,
    n: Node<'t>,
    out: &mut Vec<Node<'t>>,
) {
    for c in nav.named_children(n) {
        match c.kind_name() {
            "return_statement" => out.push(c),
            "function_definition" | "lambda" | "class_definition" => {}
            _ => collect_returns(nav, c, out),
        }
    }
}

/// The truth of `cond` for `call` when it tests one parameter of `info` (`flag` or
/// `not flag`) that the call passes as a literal `True`/`False` (or leaves to such a
/// default).
fn literal_truth<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &str,
    cond: Node<'t>,
    info: &crate::index::FuncInfo<'t>,
    args: Option<Node<'t>>,
) -> Option<bool> {
    match cond.kind_name() {
        "parenthesized_expression" => literal_truth(nav, src, cond.named_child(0)?, info, args),
        "not_operator" => literal_truth(nav, src, cond.named_child(0)?, info, args).map(|b| !b),
        "identifier" => {
            let name = text(cond, src);
            let skip = usize::from(info.self_name().is_some());
            let at = info.params.iter().position(|p| p.name == name)?;
            let p = &info.params[at];
            if p.star || info.defs.get(name).is_some_and(|d| d.len() > 1) {
                return None;
            }
            let mut value = None;
            let mut i = 0;
            if let Some(a) = args {
                for k in nav.named_children(a) {
                    match k.kind_name() {
                        "comment" => {}
                        "keyword_argument" => {
                            if k.field(Field::Name).is_some_and(|n| text(n, src) == name) {
                                value = k.field(Field::Value);
                            }
                        }
                        "list_splat" | "dictionary_splat" => return None,
                        _ => {
                            if i + skip == at {
                                value = Some(k);
                            }
                            i += 1;
                        }
                    }
                }
            }
            match value.or(p.default)?.kind_name() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// How deep [`passes_back`] follows helpers that hand the parameter on to helpers.
const PASS_BACK_DEPTH: usize = 3;

/// Whether function `id` hands back its parameter: every `return` gives that
/// parameter (alone, or first of tuples of one length: the length), the body ends
/// with a `return`, the parameter is no `*args` and comes after no star, and it is
/// bound again only by calls of methods of the same class that pass it on and hand
/// it back the same way (`pipe, intent = self._new_page(pipe=pipe, …)`, up to
/// `depth` deep). The parameter's name and the tuples' length.
fn passes_back<'t>(
    ix: &crate::index::Index<'t>,
    src: &'t str,
    id: FuncId,
    depth: usize,
) -> Option<(&'t str, Option<usize>)> {
    let info = &ix.funcs[id];
    if depth == 0 || info.is_lambda || !info.plainly_called() {
        return None;
    }
    let nav = ix.nav;
    if nav.statements(info.body).last()?.kind_name() != "return_statement" {
        return None;
    }
    let mut rets = Vec::new();
    collect_returns(nav, info.body, &mut rets);
    let mut shape: Option<(&'t str, Option<usize>)> = None;
    for r in rets {
        let e = r.named_child(0)?;
        let (first, len) = match e.kind_name() {
            "identifier" => (e, None),
            "expression_list" | "tuple" => (e.named_child(0)?, Some(e.named_child_count())),
            _ => return None,
        };
        if first.kind_name() != "identifier" {
            return None;
        }
        let this = (text(first, src), len);
        if shape.is_some_and(|s| s != this) {
            return None;
        }
        shape = Some(this);
    }
    let (name, len) = shape?;
    let at = info.params.iter().position(|p| p.name == name)?;
    if info.params[..=at].iter().any(|p| p.star) {
        return None;
    }
    let rebinds_ok = info.defs.get(name).is_none_or(|defs| {
        defs.iter().all(|d| match d.kind {
            DefKind::Param(_) => true,
            _ => hands_on(ix, src, info, d.stmt, name, depth),
        })
    });
    rebinds_ok.then_some((name, len))
}

/// Whether every definition of parameter `name` of `info` other than the parameter
/// itself binds it to what a method of the same class hands back when given it
/// (`pipe, intent = self._new_page(pipe=pipe, …)`): the name holds the object the
/// caller passed throughout.
pub(crate) fn rebound_to_itself<'t>(
    ix: &crate::index::Index<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
    name: &str,
) -> bool {
    info.defs.get(name).is_some_and(|defs| {
        defs.iter().all(|d| match d.kind {
            DefKind::Param(_) => true,
            _ => hands_on(ix, src, info, d.stmt, name, PASS_BACK_DEPTH),
        })
    })
}

/// Whether assignment `stmt` of `info` binds `name` to what a method of the same
/// class hands back when given `name` (`pipe = self._step(pipe=pipe)`, `pipe, x =
/// self._step(pipe, …)`): the same object again, by [`passes_back`].
fn hands_on<'t>(
    ix: &crate::index::Index<'t>,
    src: &'t str,
    info: &crate::index::FuncInfo<'t>,
    stmt: Node<'t>,
    name: &str,
    depth: usize,
) -> bool {
    let call = || -> Option<bool> {
        if stmt.kind_name() != "assignment" {
            return None;
        }
        let left = stmt.field(Field::Left)?;
        let first = match left.kind_name() {
            "identifier" => left,
            "pattern_list" | "tuple_pattern" => left.named_child(0)?,
            _ => return None,
        };
        if text(first, src) != name {
            return None;
        }
        let call = stmt
            .field(Field::Right)
            .filter(|r| r.kind_name() == "call")?;
        let f = call
            .field(Field::Function)
            .filter(|f| f.kind_name() == "attribute")?;
        let recv = f.field(Field::Object)?;
        if Some(text(recv, src)) != info.self_name() || recv.kind_name() != "identifier" {
            return None;
        }
        let m = text(f.field(Field::Attribute)?, src);
        let callee = *ix.classes[info.class?].methods.get(m)?;
        let (inner, inner_len) = passes_back(ix, src, callee, depth - 1)?;
        let outer_len = match left.kind_name() {
            "identifier" => None,
            _ => Some(left.named_child_count()),
        };
        if inner_len != outer_len {
            return None;
        }
        // The name goes in where the callee takes the parameter it hands back.
        let cinfo = &ix.funcs[callee];
        let at = cinfo.params.iter().position(|p| p.name == inner)?;
        let args = call.field(Field::Arguments)?;
        let passed = ix
            .nav
            .named_children(args)
            .enumerate()
            .any(|(i, a)| match a.kind_name() {
                "keyword_argument" => {
                    a.field(Field::Name).is_some_and(|k| text(k, src) == inner)
                        && a.field(Field::Value)
                            .is_some_and(|v| v.kind_name() == "identifier" && text(v, src) == name)
                }
                "identifier" => i + 1 == at && text(a, src) == name,
                _ => false,
            });
        Some(passed)
    };
    call().unwrap_or(false)
}

impl<'t> crate::lower::Analyzer<'t> {
    /// A function whose every `return` makes a new pipeline of a client, with the
    /// same arguments, and that cannot end without one (`if self._redis: return
    /// self._redis.pipeline()` / `elif self._cluster: return self._cluster.pipeline()`
    /// / `else: raise …`): its call is a new pipeline at the call site, of the kinds
    /// of those clients together. One `return` is read as any builder is; this reads
    /// two or more (up to eight).
    pub(crate) fn fresh_pipeline_call(
        &mut self,
        id: FuncId,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if ctx.depth > crate::eval::MAX_DEPTH / 2 {
            return None;
        }
        // The function's shape is read once; its calls are many.
        let calls = match self.fresh_pipes_seen.get(&id) {
            Some(c) => c.clone()?,
            None => {
                let c = self.fresh_pipeline_returns(id);
                self.fresh_pipes_seen.insert(id, c.clone());
                c?
            }
        };
        let inner = Ctx::at(Some(id));
        let mut kind: Option<crate::eval::ClientKind> = None;
        for (func, _) in &calls {
            let recv = func.field(Field::Object)?;
            let Value::Client(k) = self.eval(recv, &inner) else {
                return None;
            };
            kind = Some(kind.map_or(k, |x| x.merge(k)));
        }
        let (func, args) = calls[0];
        let attr = func.field(Field::Attribute)?;
        Some(self.client_method(kind?, "pipeline", attr, args, n, ctx))
    }

    /// The `<client>.pipeline(…)` of each `return` of function `id` (the attribute and
    /// the arguments), when every one of its two to eight returns is one, with the same
    /// arguments, and the body yields nothing and cannot end without a return or a
    /// raise ([`Self::fresh_pipeline_call`]).
    fn fresh_pipeline_returns(&self, id: FuncId) -> Option<FreshReturns<'t>> {
        let info = &self.ix.funcs[id];
        if info.is_lambda || !info.plainly_called() {
            return None;
        }
        let nav = self.ix.nav;
        let mut rets = Vec::new();
        collect_returns(nav, info.body, &mut rets);
        let mut yields = Vec::new();
        crate::eval::collect_yields(nav, info.body, &mut yields);
        if !(2..=8).contains(&rets.len()) || !yields.is_empty() || !exits(nav, info.body) {
            return None;
        }
        let src = self.src();
        let mut calls = Vec::new();
        let mut first_args: Option<String> = None;
        for r in &rets {
            let call = r.named_child(0).filter(|c| c.kind_name() == "call")?;
            let func = call.field(Field::Function)?;
            if func.kind_name() != "attribute"
                || text(func.field(Field::Attribute)?, src) != "pipeline"
            {
                return None;
            }
            let args: String = call
                .field(Field::Arguments)
                .map_or("()", |a| text(a, src))
                .split_whitespace()
                .collect();
            if first_args.get_or_insert_with(|| args.clone()) != &args {
                return None;
            }
            calls.push((func, call.field(Field::Arguments)));
        }
        Some(calls)
    }
}

/// The `pipeline` attribute and the arguments of each `return` of a function whose
/// returns all make a new pipeline ([`crate::lower::Analyzer::fresh_pipeline_returns`]).
pub(crate) type FreshReturns<'t> = Vec<(Node<'t>, Option<Node<'t>>)>;

/// Whether a block cannot end without a `return` or a `raise`: its last statement is
/// one, or an `if` with an `else` whose every branch cannot.
fn exits<'t>(nav: &crate::syntax::Nav<'t>, block: Node<'t>) -> bool {
    let Some(last) = nav.statements(block).last().copied() else {
        return false;
    };
    match last.kind_name() {
        "return_statement" | "raise_statement" => true,
        "if_statement" => {
            let mut has_else = false;
            let mut all = last
                .field(Field::Consequence)
                .is_some_and(|b| exits(nav, b));
            for c in nav.named_children(last) {
                match c.kind_name() {
                    "elif_clause" => {
                        all &= c.field(Field::Consequence).is_some_and(|b| exits(nav, b));
                    }
                    "else_clause" => {
                        has_else = true;
                        all &= c.field(Field::Body).is_some_and(|b| exits(nav, b));
                    }
                    _ => {}
                }
            }
            all && has_else
        }
        _ => false,
    }
}
