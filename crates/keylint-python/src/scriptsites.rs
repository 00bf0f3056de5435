//! Scripts through wrapper parameters: `def zpoppush(self, source, destination):
//! return self._zpoppush(keys=[source, destination])`. Inside the wrapper the keys are
//! parameters, whose slots nobody can know; at each call site of the wrapper in this
//! file they are the arguments that site passes. The script is judged once more per
//! call site, with that site's keys in the places of `KEYS[i]` (and linked to its
//! body with them), and reported at the call site, with a label on the script call
//! inside the wrapper. A `keys` parameter passed whole (`self._s(keys=keys)`) takes
//! the list the site passes.

use crate::eval::{Ctx, Elem, ScriptId, Value};
use crate::syntax::{Field, NodeExt};
use keylint_core::model::{CrossSlotPolicy, UnitKind, UnitLabel, UnitNote};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// A script call in a wrapper whose keys include the wrapper's parameters: one
    /// more script unit per call site of the wrapper in this file.
    pub(crate) fn script_wrapper_sites(
        &mut self,
        id: ScriptId,
        call: Node<'t>,
        (keys_arg, key_args): (Option<&Elem<'t>>, &[Elem<'t>]),
        client_arg: Option<&Elem<'t>>,
        ctx: &Ctx<'t>,
    ) {
        let Some(f) = ctx.func else { return };
        if ctx.env.is_some() || self.inline.is_some() {
            return;
        }
        let Some(keys_arg) = keys_arg else { return };
        // The keys as the wrapper writes them: a list of its parameters and other
        // values, or one parameter that brings the whole list.
        let pattern: Vec<Elem<'t>> = match self.wrapper_param(f, keys_arg.node) {
            Some(_) => vec![Elem {
                star: true,
                ..keys_arg.clone()
            }],
            None if keys_arg.node.kind_name() == "list" => {
                if !key_args
                    .iter()
                    .any(|e| self.wrapper_param(f, e.node).is_some())
                {
                    return;
                }
                key_args.to_vec()
            }
            None => return,
        };
        let Some((info, sites, skip_self)) = self.wrapper_sites(f) else {
            return;
        };
        let guard = (7u8, f, call.start_byte());
        if !self.in_progress.insert(guard) {
            return;
        }
        // A client or pipeline the site passes through a parameter
        // (`client=client`): what runs the script is the site's, not judged here.
        let client_param = client_arg
            .and_then(|c| self.wrapper_param(f, c.node))
            .map(|i| (i.checked_sub(skip_self), info.params[i].name.clone()));
        let wrapper = info.node.byte_range();
        let line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
        // The site must call this very function, through an instance when it is a
        // method (`self.m(…)`, or `obj.m(…)` on an instance of its class the code
        // shows).
        for crate::wrappers::WrapperCall {
            site,
            callee,
            ctx: sctx,
            ..
        } in self.wrapper_calls(sites, f, skip_self, true, false)
        {
            let (spos, skw) = self.call_args(site.field(Field::Arguments), &sctx);
            if spos.iter().any(|e| e.star) || skw.iter().any(|(_, e)| e.star) {
                continue;
            }
            if let Some((at, name)) = &client_param {
                let given = at
                    .and_then(|i| spos.get(i))
                    .or_else(|| skw.iter().find(|(k, _)| k == name).map(|(_, e)| e));
                if given.is_some_and(|e| !matches!(e.value, Value::Null)) {
                    continue;
                }
            }
            let Some((npos, _)) =
                self.site_args(f, &info, skip_self, (&pattern, &[]), (&spos, &skw))
            else {
                continue;
            };
            let Some((unit, aligned)) = self.push_script_site(
                (call, site, callee),
                (&info.name, line),
                wrapper.clone(),
                (&npos, "EVALSHA", false),
                &sctx,
            ) else {
                continue;
            };
            let (body, func) = (self.scripts[id].body, self.scripts[id].func);
            self.link(unit, body, func, &npos, aligned, None, None, site, None);
            if let Some(l) = self.script_links.last_mut() {
                l.ext = self.scripts[id].ext.clone();
            }
        }
        self.in_progress.remove(&guard);
    }

    /// The script unit of one call site of a wrapper, reported at the site and
    /// labelled at the script call inside the wrapper: the keys among `npos` that the
    /// site writes (a key the wrapper builds itself would be evaluated in the site's
    /// scope, so it stays unknown), elements that stand for a family among them when
    /// `families`. `None` when fewer than two keys and no family come from the site.
    /// Also what each of `npos` is as a key, for linking the body.
    #[allow(clippy::type_complexity)]
    fn push_script_site(
        &mut self,
        (call, site, callee): (Node<'t>, Node<'t>, Node<'t>),
        (name, line): (&str, usize),
        wrapper: std::ops::Range<usize>,
        (npos, command, families): (&[Elem<'t>], &str, bool),
        sctx: &Ctx<'t>,
    ) -> Option<(usize, Vec<Option<usize>>)> {
        let from_site =
            |e: &Elem<'t>| e.node.start_byte() < wrapper.start || e.node.end_byte() > wrapper.end;
        let aligned: Vec<Option<usize>> = npos
            .iter()
            .map(|e| {
                if from_site(e) && (families || !e.star) {
                    self.key_use(e, command, sctx)
                } else {
                    None
                }
            })
            .collect();
        let keys: Vec<usize> = aligned.iter().flatten().copied().collect();
        if keys.len() < 2 && !keys.iter().any(|k| self.has_family(*k)) {
            return None;
        }
        let anchor = callee
            .field(Field::Attribute)
            .unwrap_or(callee)
            .byte_range();
        let unit = self.push_unit(
            UnitKind::Script,
            "script",
            site.byte_range(),
            anchor.clone(),
            keys,
            CrossSlotPolicy::Refused,
        );
        self.label_script_site(unit, call, anchor, (name, line), site);
        Some((unit, aligned))
    }

    /// Labels a call site's script unit at the script call inside the wrapper and at
    /// the site, with a note naming both lines.
    fn label_script_site(
        &mut self,
        unit: usize,
        call: Node<'t>,
        anchor: std::ops::Range<usize>,
        (name, line): (&str, usize),
        site: Node<'t>,
    ) {
        let site_line = self.ix.src[..site.start_byte()].matches('\n').count() + 1;
        self.model.unit_labels.push(UnitLabel {
            unit,
            span: call.byte_range(),
            label: "the script runs them here".to_string(),
        });
        self.model.unit_labels.push(UnitLabel {
            unit,
            span: anchor,
            label: "called here with these keys".to_string(),
        });
        self.model.unit_notes.push(UnitNote {
            unit,
            note: format!(
                "`{name}` runs a script over the keys it is given (line {line}): judged \
                 here with the keys that this call (line {site_line}) passes"
            ),
        });
    }
}

/// A script a method runs with keys among its parameters, as a fact of its class that
/// other modules apply at their calls of the method (`self.scripts.zpoppush(src, dst)`
/// on an object of the class): the body's text, and per `KEYS[i]` the parameter
/// (after `self`) that brings it, if any.
#[derive(Debug)]
pub(crate) struct WrappedScript {
    /// The body's text, when it is known.
    pub(crate) text: Option<std::sync::Arc<str>>,
    pub(crate) keys: Vec<Option<WrapKey>>,
    /// The parameter that may bring another client or pipeline (`client=client`).
    pub(crate) client_param: Option<usize>,
    /// The line of the script call in the method's module.
    pub(crate) line: usize,
    /// The keys are the list this parameter (after `self`) brings, as it is
    /// (`return self._scripts[name](keys, args)`); `keys` is then empty.
    pub(crate) whole: Option<usize>,
    /// The script's body is the text this parameter (after `self`) brings, as it is
    /// (`client.eval(script, len(keys), *keys, *args)`); `text` is then `None`.
    pub(crate) body_param: Option<usize>,
    /// The script runs on the object this parameter (after `self`) brings
    /// (`redis.eval(…)` of a parameter `redis` that nothing in the wrapper's module
    /// shows to be a client): a call site is judged only when what it passes there
    /// is a client.
    pub(crate) runs_on: Option<usize>,
}

/// Where a wrapped script's key comes from.
#[derive(Debug, Clone)]
pub(crate) enum WrapKey {
    /// The parameter (after `self`) as it is.
    Param(usize),
    /// The key the callable parameter `func` builds from these arguments
    /// (`key_func("task", id)`, a builder the caller passes).
    Built { func: usize, args: Vec<WrapArg> },
}

/// An argument of a key builder a wrapper calls through its parameter.
#[derive(Debug, Clone)]
pub(crate) enum WrapArg {
    Param(usize),
    /// Literal text (a string or a constant of the module).
    Text(Vec<u8>),
}

/// The scripts one method runs over keys its caller passes.
#[derive(Debug)]
pub(crate) struct ScriptWrap {
    /// The class and method, as the note names them.
    pub(crate) name: String,
    /// The parameters after `self` (all of a static method's).
    pub(crate) params: Vec<String>,
    pub(crate) calls: Vec<WrappedScript>,
    /// A static method: called on its class too (`RedisScripts.execute(…)`).
    pub(crate) on_class: bool,
}

/// A script call of a method over keys its caller passes: the script, per `KEYS[i]`
/// where it comes from, the client parameter, the line, and whether more keys may
/// follow those (a local list the method adds to: `keys.append(extra)`).
pub(crate) type WrappedCall = (ScriptId, Vec<Option<WrapKey>>, Option<usize>, usize, bool);

/// Script calls of one method read for its class's facts, at most.
const MAX_WRAPPED_CALLS: usize = 16;

impl<'t> crate::lower::Analyzer<'t> {
    /// The registered scripts method `m` calls with a list of keys that holds its
    /// parameters (nothing else assigns them): the script, per key the parameter
    /// (after `self`), the client parameter and the line. A call that splats, passes
    /// the keys whole or runs on a client of its own choosing is left out.
    pub(crate) fn wrapped_scripts(&mut self, m: crate::index::FuncId) -> Vec<WrappedCall> {
        let info = self.ix.funcs[m].clone();
        if info.is_lambda
            || !info.plainly_called()
            || info.name == "__init__"
            || info.is_classmethod()
            || info.self_name().is_none()
            || info.params.iter().any(|p| p.star)
        {
            return Vec::new();
        }
        if !self.calls_indexed {
            self.index_calls();
        }
        let calls = self.calls_in.get(&m).cloned().unwrap_or_default();
        let ctx = Ctx::at(Some(m));
        let mut out = Vec::new();
        for call in calls {
            if out.len() >= MAX_WRAPPED_CALLS {
                break;
            }
            let Some(func) = call.field(Field::Function) else {
                continue;
            };
            if func.kind_name() != "attribute" || !self.passes_key_list(call) {
                continue;
            }
            let Value::Script(id) = self.eval(func, &ctx) else {
                continue;
            };
            if self.scripts[id].wrapper.is_some() {
                continue;
            }
            let (pos, kw) = self.call_args(call.field(Field::Arguments), &ctx);
            if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
                continue;
            }
            let arg = |at: usize, name: &str| {
                pos.get(at)
                    .or_else(|| kw.iter().find(|(k, _)| k == name).map(|(_, e)| e))
                    .cloned()
            };
            let Some(keys_arg) = arg(0, "keys") else {
                continue;
            };
            // A list display, or a local list of them that later statements only
            // add to (`keys = [a, b]`, `if c: keys.append(c)`): its first keys are
            // sent, which is enough for a verdict of different slots.
            let (list, open) = match keys_arg.node.kind_name() {
                "list" => (keys_arg.node, false),
                "identifier" => match self.appended_list(m, keys_arg.node) {
                    Some(l) => (l, true),
                    None => continue,
                },
                _ => continue,
            };
            let items: Vec<Node<'t>> = self.ix.nav.named_children(list).collect();
            if items
                .iter()
                .any(|n| matches!(n.kind_name(), "list_splat" | "comment"))
            {
                continue;
            }
            let keys: Vec<Option<WrapKey>> =
                items.iter().map(|n| self.wrap_key(m, *n, &ctx)).collect();
            if keys.iter().flatten().count() < 2 {
                continue;
            }
            let Some(client_param) = self.passed_client_param(m, arg(2, "client"), 1) else {
                continue;
            };
            let line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
            out.push((id, keys, client_param, line, open));
        }
        out
    }

    /// The calls of method or module function `m` when it may forward its caller's
    /// keys to a script, with how many leading parameters (`self`) its callers do not
    /// pass: `None` for a nested function, a lambda, `__init__`, a class method, a
    /// function with `*args`/`**kwargs`, or one whose calls may not reach its body as
    /// written.
    fn forwarding_calls(&mut self, m: crate::index::FuncId) -> Option<(usize, Vec<Node<'t>>)> {
        let info = &self.ix.funcs[m];
        // A method's parameters are counted after `self`; a module function's all.
        let skip = match (info.class, info.self_name()) {
            (None, _) if info.parent.is_none() => 0,
            (Some(_), Some(_)) => 1,
            // A static method's parameters are all its caller's.
            (Some(_), None) if info.is_staticmethod() => 0,
            _ => return None,
        };
        if info.is_lambda
            || !info.plainly_called()
            || info.name == "__init__"
            || info.is_classmethod()
            || info.params.iter().any(|p| p.star)
        {
            return None;
        }
        if !self.calls_indexed {
            self.index_calls();
        }
        Some((skip, self.calls_in.get(&m).cloned().unwrap_or_default()))
    }

    /// The script calls of method or module function `m` whose keys are a
    /// parameter's list as the caller passes it: `def run_script(self, name,
    /// keys=None, args=None): return self._scripts[name](keys, args)`, `def
    /// call(client, keys, args): return client.register_script(LUA)(keys=keys,
    /// args=args)`. Each with the parameter (after `self`) that brings the keys, the
    /// client parameter, and the line.
    pub(crate) fn forwarded_scripts(
        &mut self,
        m: crate::index::FuncId,
    ) -> Vec<(ScriptId, usize, Option<usize>, usize)> {
        let Some((skip, calls)) = self.forwarding_calls(m) else {
            return Vec::new();
        };
        let ctx = Ctx::at(Some(m));
        let mut out = Vec::new();
        for call in calls {
            if out.len() >= MAX_WRAPPED_CALLS {
                break;
            }
            let Some(func) = call.field(Field::Function) else {
                continue;
            };
            if !matches!(
                func.kind_name(),
                "attribute" | "subscript" | "identifier" | "call"
            ) {
                continue;
            }
            // Read before anything is evaluated: the first argument, or `keys=`, is
            // a name.
            let Some(args) = call.field(Field::Arguments) else {
                continue;
            };
            let src = self.ix.src;
            // `keys`, or `keys or []`: the caller's list whenever it holds anything.
            let list_name = |v: Node<'t>| match v.kind_name() {
                "identifier" => Some(v),
                "boolean_operator" => {
                    let (l, r) = (v.field(Field::Left)?, v.field(Field::Right)?);
                    let or = v
                        .field(Field::Operator)
                        .is_some_and(|o| crate::index::text(o, src) == "or");
                    let empty = matches!(r.kind_name(), "list" | "tuple")
                        && self.ix.nav.named_children(r).next().is_none();
                    (or && empty && l.kind_name() == "identifier").then_some(l)
                }
                _ => None,
            };
            let named = self
                .ix
                .nav
                .named_children(args)
                .enumerate()
                .find_map(|(i, a)| match a.kind_name() {
                    "keyword_argument" => a
                        .field(Field::Name)
                        .filter(|n| crate::index::text(*n, src) == "keys")
                        .and_then(|_| a.field(Field::Value))
                        .and_then(list_name),
                    _ if i == 0 => list_name(a),
                    _ => None,
                });
            let Some(keys_node) = named else {
                continue;
            };
            let Some(idx) = self.wrapper_param(m, keys_node) else {
                continue;
            };
            let id = match self.eval(func, &ctx) {
                Value::Script(id) => id,
                _ => match self.script_of_mapping(func, m) {
                    Some(Value::Script(id)) => id,
                    _ => continue,
                },
            };
            if self.scripts[id].wrapper.is_some() {
                continue;
            }
            let (pos, kw) = self.call_args(Some(args), &ctx);
            if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
                continue;
            }
            let client = pos
                .get(2)
                .or_else(|| kw.iter().find(|(k, _)| k == "client").map(|(_, e)| e))
                .cloned();
            let Some(client_param) = self.passed_client_param(m, client, skip) else {
                continue;
            };
            let line = src[..call.start_byte()].matches('\n').count() + 1;
            if idx < skip {
                continue;
            }
            out.push((id, idx - skip, client_param, line));
        }
        out
    }

    /// The `EVAL`/`EVALSHA` calls of method or module function `m` that run on a
    /// client it reaches itself over the key list a parameter brings, spread whole
    /// after its own count: `def eval_script(self, script, keys, args): return await
    /// self.redis_client.eval(script, len(keys), *keys, *args)`. Each with the keys
    /// parameter, the body parameter (for `EVAL` with a parameter as its body) and
    /// the line; parameters counted after `self`.
    pub(crate) fn evaled_scripts(
        &mut self,
        m: crate::index::FuncId,
    ) -> Vec<(usize, Option<usize>, usize, Option<usize>)> {
        let Some((skip, calls)) = self.forwarding_calls(m) else {
            return Vec::new();
        };
        let ctx = Ctx::at(Some(m));
        let src = self.ix.src;
        let mut out = Vec::new();
        for call in calls {
            if out.len() >= MAX_WRAPPED_CALLS {
                break;
            }
            let Some(func) = call.field(Field::Function) else {
                continue;
            };
            let Some(attr) = func.field(Field::Attribute) else {
                continue;
            };
            let eval = match crate::index::text(attr, src) {
                "eval" => true,
                "evalsha" => false,
                _ => continue,
            };
            let Some(arg_list) = call.field(Field::Arguments) else {
                continue;
            };
            let args: Vec<Node<'t>> = self
                .ix
                .nav
                .named_children(arg_list)
                .filter(|c| c.kind_name() != "comment")
                .collect();
            let [body, count, spread, ..] = args.as_slice() else {
                continue;
            };
            if spread.kind_name() != "list_splat" {
                continue;
            }
            let Some(inner) = self.ix.nav.named_children(*spread).next() else {
                continue;
            };
            if crate::eval::len_of(*count, src) != Some(crate::index::text(inner, src)) {
                continue;
            }
            let Some(keys) = self.wrapper_param(m, inner) else {
                continue;
            };
            let body = self.wrapper_param(m, *body).filter(|_| eval);
            if keys < skip || body.is_some_and(|b| b < skip) {
                continue;
            }
            let Some(obj) = func.field(Field::Object) else {
                continue;
            };
            // A client, or a parameter the caller fills with one (of a module
            // function or a static method: a method's own calls in its file are
            // judged there, `eval_wrapper_sites`).
            let runs_on = match self.eval(obj, &ctx) {
                Value::Client(_) => None,
                _ if obj.kind_name() == "identifier" && skip == 0 => {
                    match self.wrapper_param(m, obj) {
                        Some(i) if i >= skip && i != keys && Some(i) != body => Some(i - skip),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let line = src[..call.start_byte()].matches('\n').count() + 1;
            out.push((keys - skip, body.map(|b| b - skip), line, runs_on));
        }
        out
    }

    /// The client a script call of `m` passes (its third argument, or `client=`), as
    /// a parameter of `m` counted after the first `skip` (`self`): `Some(None)` when
    /// it passes none (or `None`), `None` when it passes anything but a parameter.
    fn passed_client_param(
        &self,
        m: crate::index::FuncId,
        client: Option<crate::eval::Elem<'t>>,
        skip: usize,
    ) -> Option<Option<usize>> {
        match client {
            None => Some(None),
            Some(e) if matches!(e.value, Value::Null) => Some(None),
            Some(e) => match self.wrapper_param(m, e.node) {
                Some(i) if i >= skip => Some(Some(i - skip)),
                _ => None,
            },
        }
    }

    /// The list display that local `n` of method `m` is bound to, when its only
    /// binding is `n = [...]` and every other mention of the name before `n` adds
    /// to its end (`n.append(x)`, `n.extend(xs)`).
    fn appended_list(&self, m: crate::index::FuncId, n: Node<'t>) -> Option<Node<'t>> {
        let src = self.ix.src;
        let name = crate::index::text(n, src);
        let info = &self.ix.funcs[m];
        let [d] = info.defs.get(name)?.as_slice() else {
            return None;
        };
        let crate::index::DefKind::Expr(list) = d.kind else {
            return None;
        };
        let assign = self.ix.nav.parent(list)?;
        if list.kind_name() != "list" || assign.kind_name() != "assignment" {
            return None;
        }
        let left = assign.field(Field::Left)?;
        for u in crate::maploop::uses_of(self.ix.nav, src, info.body, name)? {
            // The name of a keyword argument (`keys=keys`) is no mention.
            let keyword = self.ix.nav.parent(u).is_some_and(|k| {
                k.kind_name() == "keyword_argument"
                    && k.field(Field::Name).map(|x| x.id()) == Some(u.id())
            });
            if u.id() == n.id() || u.id() == left.id() || keyword {
                continue;
            }
            if u.start_byte() > n.start_byte() {
                break;
            }
            let added = self.ix.nav.parent(u).is_some_and(|a| {
                a.kind_name() == "attribute"
                    && a.field(Field::Object).map(|o| o.id()) == Some(u.id())
                    && self
                        .ix
                        .nav
                        .parent(a)
                        .and_then(|c| crate::eval::list_added_to(src, c))
                        == Some(name)
            });
            if !added {
                return None;
            }
        }
        Some(list)
    }

    /// Whether a call passes a list display first or as `keys=` (or a local named so
    /// as `keys=`), as a script call over keys would (read before anything is
    /// evaluated).
    pub(crate) fn passes_key_list(&self, call: Node<'t>) -> bool {
        let Some(args) = call.field(Field::Arguments) else {
            return false;
        };
        let src = self.ix.src;
        self.ix
            .nav
            .named_children(args)
            .enumerate()
            .any(|(i, a)| match a.kind_name() {
                "list" => i == 0,
                "keyword_argument" => {
                    a.field(Field::Name)
                        .is_some_and(|n| crate::index::text(n, src) == "keys")
                        && a.field(Field::Value)
                            .is_some_and(|v| matches!(v.kind_name(), "list" | "identifier"))
                }
                _ => false,
            })
    }

    /// What key `n` (an element of a wrapped script's keys in method `m`) is: a
    /// parameter, or a key built by a callable parameter from parameters and literal
    /// text, directly or through a local assigned once.
    fn wrap_key(&mut self, m: crate::index::FuncId, n: Node<'t>, ctx: &Ctx<'t>) -> Option<WrapKey> {
        if let Some(i) = self.wrapper_param(m, n) {
            return Some(WrapKey::Param(i - 1));
        }
        let call = match n.kind_name() {
            "call" => n,
            "identifier" => {
                let defs = self.ix.funcs[m]
                    .defs
                    .get(crate::index::text(n, self.ix.src))?;
                let [d] = defs.as_slice() else { return None };
                let crate::index::DefKind::Expr(e) = d.kind else {
                    return None;
                };
                e
            }
            _ => return None,
        };
        if call.kind_name() != "call" {
            return None;
        }
        let func = self.wrapper_param(m, call.field(Field::Function)?)? - 1;
        let (pos, kw) = self.call_args(call.field(Field::Arguments), ctx);
        if !kw.is_empty() || pos.iter().any(|e| e.star) {
            return None;
        }
        let mut args = Vec::new();
        for e in &pos {
            if let Some(i) = self.wrapper_param(m, e.node) {
                args.push(WrapArg::Param(i - 1));
                continue;
            }
            match &e.value {
                Value::Str(t) => {
                    let mut bytes = Vec::new();
                    for p in &t.parts {
                        match p {
                            crate::tpl::TPart::Lit { bytes: b, .. } => bytes.extend_from_slice(b),
                            crate::tpl::TPart::Hole(_) => return None,
                        }
                    }
                    args.push(WrapArg::Text(bytes));
                }
                _ => return None,
            }
        }
        Some(WrapKey::Built { func, args })
    }

    /// A call of a method of an object of another module's class that runs scripts
    /// over keys its caller passes (`self.scripts.zpoppush(self._key(Q, q),
    /// self._key(A, q))`): each script is judged here with this call's keys in the
    /// places of `KEYS[i]` and reported at the call. A call that splats, or passes a
    /// client or pipeline of its own where the method takes one, is not judged.
    /// The key the builder a call passes (`key_func=self.tiger._key`, a key-builder
    /// method of another module's object) makes from `args`.
    fn built_by_arg<'a>(
        &mut self,
        f: &Elem<'t>,
        args: &[WrapArg],
        given: &dyn Fn(usize) -> Option<&'a Elem<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Elem<'t>>
    where
        't: 'a,
    {
        if f.node.kind_name() != "attribute" {
            return None;
        }
        let obj = f.node.field(Field::Object)?;
        let m = crate::index::text(f.node.field(Field::Attribute)?, self.ix.src);
        let v = self.eval(obj, ctx);
        let x = self.typed_ext(obj, &v, ctx)?;
        let mut tpls = Vec::new();
        for a in args {
            tpls.push(match a {
                WrapArg::Text(b) => crate::tpl::Tpl::text(b),
                WrapArg::Param(i) => {
                    let e = given(*i)?;
                    match &e.value {
                        Value::Str(_) | Value::Opaque(_) | Value::Unknown => {}
                        _ => return None,
                    }
                    self.to_tpl(&e.value, e.node, ctx)
                }
            });
        }
        let t = self.ext_builder_apply(&x, m, tpls)?;
        Some(Elem {
            value: Value::Str(t),
            node: f.node,
            star: false,
            each: Vec::new(),
        })
    }

    /// The scripts method `m` of `x` runs over the keys its caller passes: its
    /// class's own, or, when the class leaves `m` to its subclasses (an abstract
    /// base), the first of those that other modules derive from it.
    pub(crate) fn ext_script_wrap(
        &self,
        x: &crate::project::Instance,
        m: &str,
    ) -> Option<std::sync::Arc<ScriptWrap>> {
        if let Some(w) = x.script_wrap(m) {
            return Some(w);
        }
        if !x.leaves(m) {
            return None;
        }
        self.project?
            .subclass_script_wraps(x.class_name(), m)
            .into_iter()
            .next()
    }

    pub(crate) fn ext_script_wrapper_call(
        &mut self,
        wrap: &ScriptWrap,
        call: Node<'t>,
        attr: Node<'t>,
        ctx: &Ctx<'t>,
    ) {
        if ctx.env.is_some() || self.inline.is_some() {
            return;
        }
        let (spos, skw) = self.call_args(call.field(Field::Arguments), ctx);
        if spos.iter().any(|e| e.star) || skw.iter().any(|(_, e)| e.star) {
            return;
        }
        if spos.len() > wrap.params.len() || skw.iter().any(|(k, _)| !wrap.params.contains(k)) {
            return;
        }
        let given = |i: usize| -> Option<&Elem<'t>> {
            spos.get(i).or_else(|| {
                skw.iter()
                    .find(|(k, _)| *k == wrap.params[i])
                    .map(|(_, e)| e)
            })
        };
        let site_line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
        let lines: Vec<String> = wrap.calls.iter().map(|w| w.line.to_string()).collect();
        let note = format!(
            "`{}` runs {} over the keys it is given ({} {} of its module): judged here \
             with the keys that this call (line {site_line}) passes",
            wrap.name,
            if lines.len() == 1 {
                "a script"
            } else {
                "scripts"
            },
            if lines.len() == 1 { "line" } else { "lines" },
            lines.join(", "),
        );
        for w in &wrap.calls {
            if w.client_param
                .and_then(given)
                .is_some_and(|e| !matches!(e.value, Value::Null))
            {
                continue;
            }
            // What the script runs on is what this call passes: a client, or no
            // verdict.
            if let Some(i) = w.runs_on {
                let Some(e) = given(i).cloned() else { continue };
                if !matches!(self.as_receiver(e.value, e.node), Value::Client(_)) {
                    continue;
                }
            }
            if let Some(i) = w.whole {
                let list = given(i).cloned();
                let body = w.body_param.and_then(given).cloned();
                self.forwarded_wrapper_call(w, (list, body), call, attr, &note, ctx);
                continue;
            }
            let elems: Vec<Option<Elem<'t>>> = w
                .keys
                .iter()
                .map(|k| match k {
                    Some(WrapKey::Param(i)) => given(*i).cloned(),
                    Some(WrapKey::Built { func, args }) => {
                        self.built_by_arg(given(*func)?, args, &given, ctx)
                    }
                    None => None,
                })
                .collect();
            let aligned: Vec<Option<usize>> = elems
                .iter()
                .map(|e| e.as_ref().and_then(|e| self.key_use(e, "EVALSHA", ctx)))
                .collect();
            let keys: Vec<usize> = aligned.iter().flatten().copied().collect();
            if keys.len() < 2 && !keys.iter().any(|k| self.has_family(*k)) {
                continue;
            }
            let unit = self.push_unit(
                UnitKind::Script,
                "script",
                call.byte_range(),
                attr.byte_range(),
                keys,
                CrossSlotPolicy::Refused,
            );
            self.model.unit_notes.push(UnitNote {
                unit,
                note: note.clone(),
            });
            // Each `KEYS[i]` the call does not bring is shown at the call.
            let key_args: Vec<Elem<'t>> = elems
                .iter()
                .map(|e| {
                    e.clone().unwrap_or(Elem {
                        value: Value::Unknown,
                        node: call,
                        star: false,
                        each: Vec::new(),
                    })
                })
                .collect();
            if let Some(text) = &w.text {
                self.link(unit, None, None, &key_args, aligned, None, None, call, None);
                if let Some(l) = self.script_links.last_mut() {
                    l.ext = Some(text.clone());
                }
            }
        }
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// A script call of another module's method whose keys are the list that this
    /// call passes for the parameter (`db.run_script("lock", keys=[a, b])`): the
    /// list's keys (`list`), each `KEYS[i]` in order when the body is known; a family's
    /// members as some of its keys.
    fn forwarded_wrapper_call(
        &mut self,
        w: &WrappedScript,
        (list, body): (Option<Elem<'t>>, Option<Elem<'t>>),
        call: Node<'t>,
        attr: Node<'t>,
        note: &str,
        ctx: &Ctx<'t>,
    ) {
        let Some(list) = list else {
            return;
        };
        let (key_args, _) = crate::lower::passed_script_keys(Some(&list));
        let family = crate::lower::family_script_keys(Some(&list));
        let aligned: Vec<Option<usize>> = key_args
            .iter()
            .map(|e| self.key_use(e, "EVALSHA", ctx))
            .collect();
        let fam: Vec<usize> = family
            .iter()
            .filter_map(|e| self.key_use(e, "EVALSHA", ctx))
            .collect();
        let keys: Vec<usize> = aligned.iter().flatten().copied().chain(fam).collect();
        // One key is judged too when the body is known: what the script derives from
        // it is the body's business (`undeclared-script-key`).
        let body_known = w.text.is_some() || body.is_some();
        if keys.is_empty()
            || keys.len() < 2 && !keys.iter().any(|k| self.has_family(*k)) && !body_known
        {
            return;
        }
        let unit = self.push_unit(
            UnitKind::Script,
            "script",
            call.byte_range(),
            attr.byte_range(),
            keys,
            CrossSlotPolicy::Refused,
        );
        self.model.unit_notes.push(UnitNote {
            unit,
            note: note.to_string(),
        });
        if !family.is_empty() {
            return;
        }
        if let Some(text) = &w.text {
            self.link(unit, None, None, &key_args, aligned, None, None, call, None);
            if let Some(l) = self.script_links.last_mut() {
                l.ext = Some(text.clone());
            }
        } else if let Some(body) = body {
            // The body this call passes (`eval_script(LUA, keys=[a, b], args=[…])`).
            self.link(
                unit,
                Some(body.node),
                ctx.func,
                &key_args,
                aligned,
                None,
                None,
                call,
                None,
            );
        }
    }

    /// `EVAL`/`EVALSHA` in a function whose keys are its parameters: `def
    /// _eval_script(client, script, keys, args): return client.eval(script, len(keys),
    /// *keys, *args)`, or `client.eval(SCRIPT, 2, src, dst)`. At each call site of the
    /// function in this file the script is judged once more with the keys that site
    /// passes (and the body it passes, when the body is a parameter too), and reported
    /// at the site, as a registered script's wrapper is.
    pub(crate) fn eval_wrapper_sites(
        &mut self,
        method: &crate::methods::Method,
        call: Node<'t>,
        pos: &[Elem<'t>],
        ctx: &Ctx<'t>,
    ) {
        use crate::methods::ParamKind;
        let Some(f) = ctx.func else { return };
        if ctx.env.is_some() || self.inline.is_some() {
            return;
        }
        let index_of = |kind: ParamKind| {
            method
                .params
                .iter()
                .find(|p| p.kind == kind)
                .map(|p| p.index)
        };
        let (Some(nk), Some(first_key)) =
            (index_of(ParamKind::NumKeys), index_of(ParamKind::NumKeyed))
        else {
            return;
        };
        // Everything up to the keys is written plainly (no splat before them).
        if pos.iter().take(first_key).any(|e| e.star) || pos.len() <= first_key {
            return;
        }
        let Some(numkeys) = pos.get(nk) else { return };
        // `client.evalsha(sha, num_keys, *args)` with both the count and `*args` the
        // function's parameters: each site's count says how many of its arguments are keys.
        if self.counted_varargs_sites(method, call, f, numkeys, &pos[first_key..]) {
            return;
        }
        // The keys as the function writes them: `len(keys), *keys` (the whole list a
        // site passes), or a literal count of arguments among which are parameters.
        let pattern: Vec<Elem<'t>> = match &numkeys.value {
            Value::Int(n) if *n >= 1 => {
                let n = *n as usize;
                let keys: Vec<Elem<'t>> = pos.iter().skip(first_key).take(n).cloned().collect();
                if keys.len() < n
                    || keys.iter().any(|e| e.star)
                    || !keys.iter().any(|e| self.wrapper_param(f, e.node).is_some())
                {
                    return;
                }
                keys
            }
            _ => {
                let Some(counted) = crate::eval::len_of(numkeys.node, self.ix.src) else {
                    return;
                };
                let spread = &pos[first_key];
                if !spread.star
                    || spread.node.kind_name() != "identifier"
                    || crate::index::text(spread.node, self.ix.src) != counted
                    || self.wrapper_param(f, spread.node).is_none()
                {
                    return;
                }
                vec![spread.clone()]
            }
        };
        if self.under_cluster_test(call) {
            return;
        }
        let body = index_of(ParamKind::Body).and_then(|i| pos.get(i)).cloned();
        let body_param = body
            .as_ref()
            .is_some_and(|b| self.wrapper_param(f, b.node).is_some());
        let Some((info, sites, skip_self)) = self.wrapper_sites(f) else {
            return;
        };
        let guard = (8u8, f, call.start_byte());
        if !self.in_progress.insert(guard) {
            return;
        }
        let wrapper = info.node.byte_range();
        let line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
        let mut with_body = pattern.clone();
        if let (Some(b), true) = (&body, body_param) {
            with_body.insert(0, b.clone());
        }
        for crate::wrappers::WrapperCall {
            site,
            callee,
            func: site_func,
            ctx: sctx,
        } in self.wrapper_calls(sites, f, skip_self, true, true)
        {
            let (spos, skw) = self.call_args(site.field(Field::Arguments), &sctx);
            if spos.iter().any(|e| e.star) || skw.iter().any(|(_, e)| e.star) {
                continue;
            }
            let Some((mut npos, _)) =
                self.site_args(f, &info, skip_self, (&with_body, &[]), (&spos, &skw))
            else {
                continue;
            };
            // The body: the one the site passes, or the function's own.
            let (body_node, body_func) = if body_param {
                let b = npos.remove(0);
                (Some(b.node), site_func)
            } else {
                (body.as_ref().map(|b| b.node), Some(f))
            };
            // A list the site passes whole must have been spread into known keys.
            if npos.iter().any(|e| e.star && e.each.is_empty()) {
                continue;
            }
            let Some((unit, aligned)) = self.push_script_site(
                (call, site, callee),
                (&info.name, line),
                wrapper.clone(),
                (&npos, &method.command, true),
                &sctx,
            ) else {
                continue;
            };
            self.link(
                unit, body_node, body_func, &npos, aligned, None, None, site, None,
            );
        }
        self.in_progress.remove(&guard);
    }

    /// `def run(self, sha_attr, num_keys, *args): … client.evalsha(sha, num_keys, *args)`:
    /// the count and the keys are the function's parameter and its `*args`, passed on
    /// as they are (the rest of the call written plainly). At each call site of the
    /// function in this file that writes the count as an integer and enough arguments
    /// after it, those first arguments are the keys, judged as a script call there.
    /// Whether it was this shape (its sites then judged); `false` leaves the call to the
    /// other shapes.
    fn counted_varargs_sites(
        &mut self,
        method: &crate::methods::Method,
        call: Node<'t>,
        f: crate::index::FuncId,
        numkeys: &Elem<'t>,
        rest: &[Elem<'t>],
    ) -> bool {
        let [spread] = rest else { return false };
        let Some(count_param) = self.wrapper_param(f, numkeys.node) else {
            return false;
        };
        if !spread.star || spread.node.kind_name() != "identifier" {
            return false;
        }
        let params = &self.ix.funcs[f];
        let name = crate::index::text(spread.node, self.ix.src);
        let Some(star_param) = params.params.iter().position(|p| {
            p.name == name
                && p.star
                && self
                    .ix
                    .nav
                    .parent(p.node)
                    .is_some_and(|x| x.kind_name() == "list_splat_pattern")
        }) else {
            return false;
        };
        // The `*args` parameter bound once, as the parameter (not rebound in the body).
        if !matches!(params.defs.get(name).map(Vec::as_slice),
            Some([d]) if matches!(d.kind, crate::index::DefKind::Param(_)))
        {
            return false;
        }
        if count_param > star_param || self.under_cluster_test(call) {
            return true;
        }
        let Some((info, sites, skip_self)) = self.wrapper_sites(f) else {
            return true;
        };
        // Where the sites write the count and the first key.
        let (Some(ci), Some(si)) = (
            count_param.checked_sub(skip_self),
            star_param.checked_sub(skip_self),
        ) else {
            return true;
        };
        let guard = (9u8, f, call.start_byte());
        if !self.in_progress.insert(guard) {
            return true;
        }
        let wrapper = info.node.byte_range();
        let line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
        for crate::wrappers::WrapperCall {
            site,
            callee,
            func: _,
            ctx: sctx,
        } in self.wrapper_calls(sites, f, skip_self, true, true)
        {
            let (spos, skw) = self.call_args(site.field(Field::Arguments), &sctx);
            if spos.iter().any(|e| e.star) || skw.iter().any(|(_, e)| e.star) {
                continue;
            }
            let n = match spos.get(ci).map(|e| &e.value) {
                Some(Value::Int(n)) if *n >= 1 => *n as usize,
                _ => continue,
            };
            let keys: Vec<Elem<'t>> = spos.iter().skip(si).take(n).cloned().collect();
            if keys.len() < n {
                continue;
            }
            self.push_script_site(
                (call, site, callee),
                (&info.name, line),
                wrapper.clone(),
                (&keys, &method.command, true),
                &sctx,
            );
        }
        self.in_progress.remove(&guard);
        true
    }
}
