//! Command wrappers of other modules: `def get_many(self, keys): return
//! self.client.mget(keys)` in `backends/redis.py`, called as `cache.get_many([...])` in
//! another module of the project.
//!
//! A wrapper in the same file is judged at each of its call sites (`wrappers.rs`).
//! Across modules the wrapper's body is not in the caller's syntax tree, so the
//! module's facts carry what the body sends: per multi-key command, the redis-py
//! method, the client (one the wrapper reaches itself, or a parameter the caller
//! fills), and each argument as either a parameter passed on as it is, a key
//! template the wrapper builds from its parameters (`f"{key}_tmp"`), or something
//! else. At a call site of another module whose callee is such a wrapper (a method of
//! an object of the class, a method `self` inherits from an imported base, or an
//! imported function), the command is judged with that site's keys in place of the
//! parameters, and reported at the call.
//!
//! Left out, as the in-file wrappers are: a command under a test of the cluster mode
//! (the wrapper splits the keys itself there), a pipeline's command (that is a
//! transaction's business, `Queued`), script calls (`scriptsites.rs`), and any call
//! site that splats its arguments.

use crate::eval::{ClientKind, Ctx, Elem, Value};
use crate::index::{text, FuncId};
use crate::lower::Recv;
use crate::methods::{self, ClusterBehavior};
use crate::project::{Instance, Param};
use crate::syntax::{Field, NodeExt};
use crate::tpl::Tpl;
use keylint_core::model::{UnitKind, UnitLabel, UnitNote};
use std::collections::HashMap;
use std::rc::Rc;
use tree_sitter::Node;

/// Multi-key commands of one wrapper carried in its module's facts, at most.
const MAX_WRAPPED_CMDS: usize = 8;
/// Elements of a list display read as a wrapped command's argument, at most.
const MAX_LIST: usize = 32;

/// What one function of another module sends with its parameters.
#[derive(Debug)]
pub(crate) struct CmdWrap {
    /// The class and method, or the function, as the note names them.
    pub(crate) name: String,
    /// The parameters after `self`/`cls`.
    pub(crate) params: Vec<Param>,
    /// The `*args` parameter among them, if any.
    pub(crate) rest: Option<usize>,
    /// Called on the class (a module function, a class or static method), not on
    /// an object.
    pub(crate) on_class: bool,
    pub(crate) cmds: Vec<WrappedCmd>,
}

/// One multi-key command of a wrapper.
#[derive(Debug)]
pub(crate) struct WrappedCmd {
    /// The redis-py method (a name of the method table).
    pub(crate) method: String,
    /// Where the client comes from.
    pub(crate) client: WrapClient,
    pub(crate) pos: Vec<CmdArg>,
    pub(crate) kw: Vec<(String, CmdArg)>,
    /// The command's line in its module.
    pub(crate) line: usize,
}

/// The client a wrapped command runs on.
#[derive(Debug, Clone)]
pub(crate) enum WrapClient {
    /// One the wrapper reaches itself: its kind, and the attribute of `self` that
    /// holds it, if it is one.
    Own(ClientKind, Option<String>),
    /// The parameter (after `self`) the caller fills.
    Param(usize),
}

/// One argument of a wrapped command.
#[derive(Debug, Clone)]
pub(crate) enum CmdArg {
    /// A parameter (after `self`) passed on as it is; `rest` for an `*args`
    /// parameter (the caller's positional arguments from there on), `star` when the
    /// command spreads it (`mget(*keys)`).
    Param { idx: usize, rest: bool, star: bool },
    /// A key the wrapper builds, with holes of its parameters (and of the instance)
    /// marked as in other facts.
    Key(Tpl),
    /// A list or tuple display of such arguments (`[src, dst]`).
    List(Vec<CmdArg>),
    /// Anything else: it keeps its place among the arguments and is not judged.
    Other { star: bool },
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The multi-key commands function `m` (of class `c`, if a method) sends over
    /// arguments that include its parameters, on a client it reaches itself or on
    /// one a parameter brings (see the module's documentation).
    pub(crate) fn wrapped_cmds(
        &mut self,
        m: FuncId,
        c: Option<crate::index::ClassId>,
        module_qual: &str,
    ) -> Vec<WrappedCmd> {
        let info = self.ix.funcs[m].clone();
        if info.is_lambda || !info.plainly_called() || info.name == "__init__" {
            return Vec::new();
        }
        if !self.calls_indexed {
            self.index_calls();
        }
        let skip = usize::from(info.self_name().is_some());
        let table = methods::table();
        let calls: Vec<Node<'t>> = self.calls_in.get(&m).cloned().unwrap_or_default();
        // Only calls that name a multi-key method are evaluated.
        let candidates: Vec<(Node<'t>, Node<'t>, Node<'t>, &methods::Method)> = calls
            .into_iter()
            .filter_map(|call| {
                let func = call.field(Field::Function)?;
                if func.kind_name() != "attribute" {
                    return None;
                }
                let attr = func.field(Field::Attribute)?;
                let method = table.method(text(attr, self.src()))?;
                (method.cluster != ClusterBehavior::Script).then_some((
                    call,
                    func.field(Field::Object)?,
                    attr,
                    method,
                ))
            })
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        // Parameters bound to markers, so that what the body builds from them is a
        // template the caller's arguments fill.
        let mut bound = HashMap::new();
        for (i, p) in info.params.iter().skip(skip).enumerate() {
            if !p.star && info.defs.get(&p.name).is_none_or(|d| d.len() <= 1) {
                bound.insert(p.name.clone(), crate::project::placeholder('p', i, &p.name));
            }
        }
        if let (Some(c), Some(first)) = (c.filter(|_| skip == 1), info.params.first()) {
            bound.insert(
                first.name.clone(),
                if info.is_classmethod() {
                    Value::ClsObj(c)
                } else {
                    Value::SelfObj(c)
                },
            );
        }
        let env = Rc::new(crate::eval::Env {
            func: m,
            params: bound,
            tag: format!("cmdwrap:{}@{}", info.name, info.node.start_byte()),
        });
        let inner = Ctx {
            func: Some(m),
            env: Some(env),
            depth: 0,
        };
        let plain = Ctx::at(Some(m));
        let mut out = Vec::new();
        for (call, obj, _attr, method) in candidates {
            if out.len() >= MAX_WRAPPED_CMDS {
                break;
            }
            if self.under_cluster_test(call) {
                continue;
            }
            let client = if let Some(i) = self.wrapper_param(m, obj) {
                match i.checked_sub(skip) {
                    Some(i) => WrapClient::Param(i),
                    None => continue,
                }
            } else {
                match self.receiver(obj, &method.name, &plain) {
                    Some(Recv { client, pipe: None }) => {
                        let attr = (obj.kind_name() == "attribute")
                            .then(|| {
                                let o = obj.field(Field::Object)?;
                                (text(o, self.src()) == info.self_name()?)
                                    .then(|| obj.field(Field::Attribute))
                                    .flatten()
                                    .map(|a| text(a, self.src()).to_string())
                            })
                            .flatten();
                        WrapClient::Own(client, attr)
                    }
                    _ => continue,
                }
            };
            let (pos, kw) = self.call_args(call.field(Field::Arguments), &plain);
            let mut from_params = false;
            let mut arg = |me: &mut Self, e: &Elem<'t>| -> CmdArg {
                if let Some((idx, rest)) = me.passed_param(m, e.node) {
                    if let Some(idx) = idx.checked_sub(skip) {
                        from_params = true;
                        return CmdArg::Param {
                            idx,
                            rest,
                            star: e.star,
                        };
                    }
                }
                if e.star {
                    return CmdArg::Other { star: true };
                }
                if matches!(e.node.kind_name(), "list" | "tuple") {
                    let items: Vec<Node<'t>> = me.ix.nav.named_children(e.node).collect();
                    if items.len() <= MAX_LIST
                        && items
                            .iter()
                            .all(|n| !matches!(n.kind_name(), "list_splat" | "comment"))
                    {
                        let items = items
                            .into_iter()
                            .map(|n| {
                                if let Some(idx) =
                                    me.wrapper_param(m, n).and_then(|i| i.checked_sub(skip))
                                {
                                    from_params = true;
                                    return CmdArg::Param {
                                        idx,
                                        rest: false,
                                        star: false,
                                    };
                                }
                                let (a, built) = me.built_arg(n, &inner, module_qual, c.is_some());
                                from_params |= built;
                                a
                            })
                            .collect();
                        return CmdArg::List(items);
                    }
                }
                let (a, built) = me.built_arg(e.node, &inner, module_qual, c.is_some());
                from_params |= built;
                a
            };
            let pos: Vec<CmdArg> = pos.iter().map(|e| arg(self, e)).collect();
            let kw: Vec<(String, CmdArg)> =
                kw.iter().map(|(k, e)| (k.clone(), arg(self, e))).collect();
            if !from_params {
                continue;
            }
            let line = self.src()[..call.start_byte()].matches('\n').count() + 1;
            out.push(WrappedCmd {
                method: method.name.clone(),
                client,
                pos,
                kw,
                line,
            });
        }
        out
    }

    /// What argument `n` of a wrapped command is when it is no parameter: a key
    /// template (evaluated with the parameters bound to markers, `inner`), made
    /// independent of this module's tree, or something else; and whether it is built
    /// from a parameter.
    fn built_arg(
        &mut self,
        n: Node<'t>,
        inner: &Ctx<'t>,
        module_qual: &str,
        instance: bool,
    ) -> (CmdArg, bool) {
        match self.eval(n, inner) {
            Value::Str(t) => (
                CmdArg::Key(crate::project::sanitize(&t, module_qual, instance)),
                crate::project::has_param_marker(&t),
            ),
            _ => (CmdArg::Other { star: false }, false),
        }
    }

    /// A call of a command wrapper of another module (see the module's
    /// documentation): each command it sends is judged with this call's keys and
    /// reported at the call. `x` is the object the method is called on, when the
    /// class's facts know it (its keys fill the instance's holes). Whether any
    /// command was judged.
    pub(crate) fn ext_cmd_wrapper_call(
        &mut self,
        wrap: &CmdWrap,
        x: Option<&Rc<Instance>>,
        call: Node<'t>,
        anchor: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> bool {
        if ctx.env.is_some() || self.inline.is_some() || self.under_cluster_test(call) {
            return false;
        }
        let args = call.field(Field::Arguments);
        let (spos, skw) = self.call_args(args, ctx);
        if spos.iter().any(|e| e.star) || skw.iter().any(|(_, e)| e.star) {
            return false;
        }
        if spos.len() > wrap.params.len() && wrap.rest.is_none()
            || skw
                .iter()
                .any(|(k, _)| !wrap.params.iter().any(|p| p.name() == k))
        {
            return false;
        }
        // The templates the wrapper builds, with this call's arguments in place of
        // its parameters.
        let needs_bound = wrap.cmds.iter().any(|w| {
            w.pos
                .iter()
                .chain(w.kw.iter().map(|(_, a)| a))
                .any(CmdArg::builds)
        });
        let bound = if needs_bound {
            self.bind_params(&wrap.params, args, ctx)
        } else {
            None
        };
        let site = Site {
            wrap,
            spos: &spos,
            skw: &skw,
            bound: bound.as_ref(),
            x,
            call,
        };
        let site_line = self.src()[..call.start_byte()].matches('\n').count() + 1;
        let mut judged = false;
        for w in &wrap.cmds {
            let Some(method) = methods::table().method(&w.method) else {
                continue;
            };
            let client = match &w.client {
                WrapClient::Own(k, _) => *k,
                WrapClient::Param(i) => {
                    let Some(e) = site.given(*i) else { continue };
                    match self.as_receiver(e.value.clone(), e.node) {
                        Value::Client(k) => self.effective(k),
                        _ => continue,
                    }
                }
            };
            let Some(policy) = self.policy(Recv { client, pipe: None }, method) else {
                continue;
            };
            let mut npos: Vec<Elem<'t>> = Vec::new();
            let mut ok = w.pos.iter().all(|a| site.elems(a, &mut npos, false));
            let mut nkw: Vec<(String, Elem<'t>)> = Vec::new();
            for (k, a) in &w.kw {
                let mut one = Vec::new();
                ok &= site.elems(a, &mut one, true);
                match one.as_slice() {
                    [e] => nkw.push((k.clone(), e.clone())),
                    _ => ok = false,
                }
            }
            if !ok {
                continue;
            }
            let (key_args, _) = self.method_keys(method, &npos, &nkw);
            // Keys the wrapper builds all by itself are judged in its own module; a
            // call is judged when it passes one of the keys as it is.
            if !key_args.iter().any(|e| e.node != call) {
                continue;
            }
            let keys: Vec<usize> = key_args
                .iter()
                .filter_map(|e| self.key_use(e, &method.command, ctx))
                .collect();
            if keys.len() < 2 && !keys.iter().any(|k| self.has_family(*k)) {
                continue;
            }
            let unit = self.push_unit(
                UnitKind::Command,
                &method.command,
                call.byte_range(),
                anchor.byte_range(),
                keys,
                policy,
            );
            self.note_sent_whole(unit, method, policy);
            self.model.unit_labels.push(UnitLabel {
                unit,
                span: anchor.byte_range(),
                label: format!("`{}` sends these keys with `{}`", wrap.name, method.command),
            });
            self.model.unit_notes.push(UnitNote {
                unit,
                note: format!(
                    "`{}` (line {} of its module) sends the keys it is given with `{}`: \
                     judged here with the keys that this call (line {site_line}) passes",
                    wrap.name, w.line, method.command
                ),
            });
            judged = true;
        }
        judged
    }
}

impl CmdArg {
    /// Whether the argument is, or holds, a key the wrapper builds.
    fn builds(&self) -> bool {
        match self {
            CmdArg::Key(_) => true,
            CmdArg::List(items) => items.iter().any(CmdArg::builds),
            _ => false,
        }
    }
}

/// One call site of a command wrapper: what it passes.
struct Site<'a, 't> {
    wrap: &'a CmdWrap,
    spos: &'a [Elem<'t>],
    skw: &'a [(String, Elem<'t>)],
    bound: Option<&'a crate::project::Bound>,
    x: Option<&'a Rc<Instance>>,
    call: Node<'t>,
}

impl<'t> Site<'_, 't> {
    /// What the call passes for parameter `i`.
    fn given(&self, i: usize) -> Option<Elem<'t>> {
        self.spos
            .get(i)
            .or_else(|| {
                let name = self.wrap.params.get(i)?.name();
                self.skw.iter().find(|(k, _)| k == name).map(|(_, e)| e)
            })
            .cloned()
    }

    fn elem(&self, value: Value<'t>, star: bool) -> Elem<'t> {
        Elem {
            value,
            node: self.call,
            star,
            each: Vec::new(),
        }
    }

    /// Adds what argument `a` of the wrapped command is at this call to `out`;
    /// false when it cannot be told.
    fn elems(&self, a: &CmdArg, out: &mut Vec<Elem<'t>>, keyword: bool) -> bool {
        match a {
            CmdArg::Param {
                idx,
                rest: true,
                star,
            } => {
                if keyword {
                    return false;
                }
                let items: Vec<Elem<'t>> =
                    self.spos.get(*idx..).map(<[_]>::to_vec).unwrap_or_default();
                if *star {
                    out.extend(items);
                } else {
                    out.push(self.elem(
                        Value::Seq {
                            items,
                            family: false,
                        },
                        false,
                    ));
                }
            }
            CmdArg::Param {
                idx,
                rest: false,
                star,
            } => match self.given(*idx) {
                Some(g) if !*star => out.push(g),
                Some(g) => match g.value.splat() {
                    Ok(items) => out.extend(items),
                    Err(_) => return false,
                },
                None => return false,
            },
            CmdArg::Key(t) => {
                let value = self
                    .bound
                    .and_then(|b| crate::project::apply_bound(t, b, self.x.map(Rc::as_ref)))
                    .map_or(Value::Unknown, Value::Str);
                out.push(self.elem(value, false));
            }
            CmdArg::Other { star } => out.push(self.elem(Value::Unknown, *star)),
            CmdArg::List(items) => {
                let mut elems = Vec::new();
                for a in items {
                    if matches!(a, CmdArg::List(_) | CmdArg::Param { rest: true, .. })
                        || !self.elems(a, &mut elems, false)
                    {
                        return false;
                    }
                }
                out.push(self.elem(
                    Value::Seq {
                        items: elems,
                        family: false,
                    },
                    false,
                ));
            }
        }
        true
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// Judges `call` when its callee `func` is a command wrapper of another module
    /// of the project; whether it was one.
    pub(crate) fn ext_cmd_wrapper(
        &mut self,
        func: Node<'t>,
        call: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> bool {
        let Some(scope) = self.project else {
            return false;
        };
        if func.kind_name() == "attribute" {
            let (Some(obj), Some(attr)) = (func.field(Field::Object), func.field(Field::Attribute))
            else {
                return false;
            };
            let m = text(attr, self.src());
            let v = self.eval(obj, ctx);
            if let Value::SelfObj(c) = v {
                // A method the class leaves to its subclasses in other modules
                // (`raise NotImplementedError` here, `self.client.mget(keys)` in the
                // Redis backend's class).
                let own = self.defines(c, m);
                if own.is_none_or(|f| self.abstract_body(f)) {
                    let cname = self.ix.classes[c].name.clone();
                    let subs = scope.subclass_cmd_wraps(&cname, m);
                    if let Some(w) = subs.first() {
                        return self.ext_cmd_wrapper_call(w, None, call, attr, ctx);
                    }
                }
                // A method `self` inherits from a base of another module, which no
                // class of this file defines.
                if own.is_some() {
                    return false;
                }
                let Some(w) = self.one_imported_base(c, |cf| cf.cmd_wrap(m)) else {
                    return false;
                };
                // The wrapper's own client, set again here, may be another kind.
                let chain = self.ix.class_chain(c);
                let resets = w.cmds.iter().any(|wc| match &wc.client {
                    WrapClient::Own(_, Some(a)) => chain
                        .iter()
                        .any(|&k| self.ix.classes[k].self_assigns.contains_key(a.as_str())),
                    _ => false,
                });
                if resets {
                    return false;
                }
                return self.ext_cmd_wrapper_call(&w, None, call, attr, ctx);
            }
            if let Some(x) = self.typed_ext(obj, &v, ctx) {
                if let Some(w) = x.cmd_wrap(m) {
                    return self.ext_cmd_wrapper_call(&w, Some(&x), call, attr, ctx);
                }
                // An object declared as an abstract base of another module
                // (`store: KeyValueStore`) whose method a Redis subclass implements
                // (`RedisKeyValueStore.mget` sends `conn.mget(keys)`).
                if !x.leaves(m) {
                    return false;
                }
                let subs = scope.subclass_cmd_wraps(x.class_name(), m);
                return match subs.first() {
                    Some(w) => self.ext_cmd_wrapper_call(w, None, call, attr, ctx),
                    None => false,
                };
            }
        }
        let Value::Symbol(p) = self.eval(func, ctx) else {
            return false;
        };
        match scope.lookup(&p) {
            Some(crate::project::Fact::CmdWrap(w)) if w.on_class => {
                let anchor = func.field(Field::Attribute).unwrap_or(func);
                self.ext_cmd_wrapper_call(&w, None, call, anchor, ctx)
            }
            _ => false,
        }
    }

    /// Whether function `f` does nothing its subclasses would not replace: its body
    /// is a docstring, `pass`, `...` or `raise NotImplementedError`.
    pub(crate) fn abstract_body(&self, f: FuncId) -> bool {
        let Some(body) = self.ix.funcs[f].node.field(Field::Body) else {
            return false;
        };
        let src = self.src();
        // A body of only a docstring has no statements left.
        let stmts = self.ix.nav.statements(body);
        stmts.iter().all(|st| match st.kind_name() {
            "pass_statement" => true,
            "expression_statement" => {
                let t = text(*st, src).trim();
                t == "..." || t.starts_with(['"', '\'']) || t.starts_with("r\"")
            }
            "raise_statement" => text(*st, src)
                .trim_start_matches("raise")
                .trim()
                .starts_with("NotImplementedError"),
            _ => false,
        })
    }
}
