//! Methods that run their caller's callable in redis-py's `transaction()`.
//!
//! A class often wraps the optimistic-locking loop once:
//!
//! ```python
//! def _transaction(self, fn, *extra_keys):
//!     results = []
//!     def trans(pipe):
//!         results.append(fn(pipe))
//!     self.redis.transaction(trans, self.key, *extra_keys)
//!     return results[0]
//! ```
//!
//! and each operation hands it a closure and the other keys it watches:
//! `self._transaction(eq_trans, other.key)`. Such a method of the file (a method of
//! the caller's class or of a base of the file, reached through `self`) is a
//! transaction entry point: its callable parameter is passed to `transaction()` (or
//! called, with the pipeline, by a function nested in it that is passed there), and
//! its `*args` parameter is splatted among the watched keys. At each call, the
//! caller's callback receives the transaction's pipeline, and the keys watched are
//! the method's own (`self.key`) with the caller's extra arguments in place of the
//! splat: one unit per call, as for `client.transaction(fn, *watches)` written there.
//! A `transaction` method of another kind of object (no client receiver), a method
//! that does something else with its callable, or a splat of anything but its `*args`
//! is not such an entry point.
//!
//! A method that makes a pipeline itself, calls `pipe.multi()`, hands the pipeline
//! to its callable parameter and executes it (`self.transaction_pipe(pipe_func)`) is
//! such an entry point too, with no keys of its own: its caller's callback is the
//! transaction. So is one whose pipeline is a transaction by itself, with no
//! `multi()` (`async with self.redis_client.pipeline() as pipe: builder(pipe); await
//! pipe.execute()`): a default `pipeline()` (judged as any default pipeline of its
//! client: on a client whose kind the code does not show, the finding says what a
//! cluster does with it) or `pipeline(transaction=True)`. Such a method of another
//! module's class is reached through an attribute of `self` the class declares an
//! instance of it (`self.redis = redis_service`, annotated `RedisService`).
//!
//! A wrapper of a base class of another module travels in that class's facts
//! ([`WrapperFact`]) when each key it watches itself is an attribute of `self`
//! (`self.key`): at a call in a subclass, that attribute is read on the caller's
//! `self`, as the subclass sees it.

use crate::eval::ClientKind;
use crate::eval::{arg_nodes, Ctx, Value};
use crate::index::{text, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// A watched key of the wrapper's `transaction()` call.
#[derive(Clone)]
pub(crate) enum Watch<'t> {
    /// An expression of the wrapper (`self.key`).
    Own(Node<'t>),
    /// An attribute of `self`, read on the caller's object (a wrapper of another
    /// module).
    SelfAttr(String),
    /// The wrapper's `*args`: the caller's arguments after the callable.
    Forwarded,
}

/// A transaction wrapper of a class, as its module's facts keep it.
#[derive(Debug, Clone)]
pub(crate) struct WrapperFact {
    callable: usize,
    rest: Option<usize>,
    client: ClientKind,
    own: Option<OwnPipe>,
    /// The watched keys, in order: an attribute of `self`, or `None` for the
    /// forwarded `*args`.
    watches: Vec<Option<String>>,
}

/// A method that runs its callable parameter in `client.transaction()`.
#[derive(Clone)]
pub(crate) struct TxWrapper<'t> {
    /// The method, when it is of this file.
    pub func: Option<FuncId>,
    /// Index of the callable among the arguments a caller writes (after `self`).
    pub callable: usize,
    /// Index of the `*args` parameter among them (none for a method that makes its
    /// own pipeline).
    pub rest: Option<usize>,
    /// The client's kind.
    pub client: ClientKind,
    /// A method that makes its own default pipeline and never calls `multi()`:
    /// how that pipeline decided it is a transaction. `None`: `transaction()`, or
    /// `multi()` before the callable runs (always a transaction).
    pub own: Option<OwnPipe>,
    /// The watched keys, in order.
    pub watches: Vec<Watch<'t>>,
}

impl WrapperFact {
    /// The wrapper called on an object of another module, whose own attributes are
    /// not known where it is called: only one that watches nothing but the keys its
    /// caller passes.
    fn on_another_object<'t>(self) -> Option<TxWrapper<'t>> {
        if self.watches.iter().any(Option::is_some) {
            return None;
        }
        Some(TxWrapper {
            func: None,
            callable: self.callable,
            rest: self.rest,
            client: self.client,
            own: self.own,
            watches: vec![Watch::Forwarded; self.watches.len()],
        })
    }
}

/// How the pipeline a wrapper makes itself, with no `multi()`, is a transaction:
/// `pipeline()` on a standalone client by its default, `pipeline(transaction=True)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OwnPipe {
    pub tx: crate::eval::Tx,
    pub origin: crate::eval::TxOrigin,
    pub kind_by_profile: bool,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The wrapper a call such as `self._transaction(cb, other.key)` calls, if any.
    pub(crate) fn tx_wrapper_call(
        &mut self,
        call: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<TxWrapper<'t>> {
        let func = call.field(Field::Function)?;
        if func.kind_name() != "attribute" {
            return None;
        }
        let obj = func.field(Field::Object)?;
        let m = text(func.field(Field::Attribute)?, self.src());
        // A module's object of a client class of the project (`cache =
        // RedisClient()`), of this module or imported from another.
        if let Some(c) = self.own_client_object(obj, m) {
            let id = self.defines(c, m)?;
            return self.file_wrapper(id);
        }
        // An object of another module's class: only the keys the caller passes, its
        // own attributes are not known here.
        if let Some(w) = self.imported_object_wrapper(obj, m) {
            return w.on_another_object();
        }
        if let Some(w) = self.typed_attr_wrapper(obj, m, ctx) {
            return w.on_another_object();
        }
        let Value::SelfObj(c) = self.eval(obj, &ctx.deeper()) else {
            // Through an object of a class of this file (`Series(r).transaction_pipe(cb)`).
            let c = match obj.kind_name() {
                "call" => self.constructed_class(obj)?,
                _ => self.instance_class(obj, None, ctx)?.0,
            };
            let id = self.defines(c, m)?;
            return self.file_wrapper(id);
        };
        let Value::Func { id, bound: Some(_) } = self.eval(func, &ctx.deeper()) else {
            // A method no class of the file defines: one of an imported base.
            let defined = self
                .ix
                .class_chain(c)
                .iter()
                .any(|&k| self.ix.classes[k].defs.contains_key(m));
            if defined {
                return None;
            }
            let w = self.imported_wrapper(c, m)?;
            return Some(TxWrapper {
                func: None,
                callable: w.callable,
                rest: w.rest,
                client: w.client,
                own: w.own,
                watches: w
                    .watches
                    .into_iter()
                    .map(|a| a.map_or(Watch::Forwarded, Watch::SelfAttr))
                    .collect(),
            });
        };
        self.file_wrapper(id)
    }

    /// The transaction wrapper `m` of the class of `self.<attr>` (`obj`), an
    /// attribute the class declares an instance of a class of another module
    /// (`self.redis = redis_service` from a parameter annotated `RedisService`).
    fn typed_attr_wrapper(&mut self, obj: Node<'t>, m: &str, ctx: &Ctx<'t>) -> Option<WrapperFact> {
        if obj.kind_name() != "attribute" {
            return None;
        }
        let owner = obj.field(Field::Object)?;
        if owner.kind_name() != "identifier" {
            return None;
        }
        let (c, me) = self.ix.method_self(ctx.func?)?;
        if text(owner, self.src()) != me {
            return None;
        }
        let attr = text(obj.field(Field::Attribute)?, self.src());
        self.self_attr_typed(c, attr)?.tx_wrapper(m).cloned()
    }

    /// The transaction wrapper `m` of the class of `obj`, a name imported from
    /// another module of the project that binds it to an object of a client class of
    /// its own (`from core.redis import cache`, `cache = RedisClient()`).
    fn imported_object_wrapper(&self, obj: Node<'t>, m: &str) -> Option<WrapperFact> {
        if obj.kind_name() != "identifier" {
            return None;
        }
        let name = text(obj, self.src());
        if self.ix.module_defs.get(name).map(Vec::len) != Some(1) {
            return None;
        }
        let path = self.ix.imports.get(name)?;
        match self.project?.lookup(&format!("{path}.__class__")) {
            Some(crate::project::Fact::Class(cf)) => cf.tx_wrapper(m).cloned(),
            _ => None,
        }
    }

    /// Method `id` of this file as a transaction wrapper (computed once).
    fn file_wrapper(&mut self, id: FuncId) -> Option<TxWrapper<'t>> {
        if let Some(w) = self.tx_wrappers.get(&id) {
            return w.clone();
        }
        // Not in progress twice (a wrapper that calls itself).
        self.tx_wrappers.insert(id, None);
        let w = self.tx_wrapper(id);
        self.tx_wrappers.insert(id, w.clone());
        w
    }

    /// Method `m` as its module's facts keep a transaction wrapper: each key it
    /// watches itself must be an attribute of `self`.
    pub(crate) fn wrapper_fact(&mut self, m: FuncId) -> Option<WrapperFact> {
        if !self.calls_indexed {
            self.index_calls();
        }
        let w = self.tx_wrapper(m)?;
        let self_name = self.ix.funcs[m].self_name()?.to_string();
        let mut watches = Vec::new();
        for watch in &w.watches {
            watches.push(match watch {
                Watch::Forwarded => None,
                Watch::SelfAttr(a) => Some(a.clone()),
                Watch::Own(n) => {
                    let obj = n.field(Field::Object)?;
                    if n.kind_name() != "attribute"
                        || obj.kind_name() != "identifier"
                        || text(obj, self.src()) != self_name
                    {
                        return None;
                    }
                    Some(text(n.field(Field::Attribute)?, self.src()).to_string())
                }
            });
        }
        Some(WrapperFact {
            callable: w.callable,
            rest: w.rest,
            client: w.client,
            own: w.own,
            watches,
        })
    }

    /// Whether method `m` is a transaction wrapper, and how.
    fn tx_wrapper(&mut self, m: FuncId) -> Option<TxWrapper<'t>> {
        let info = self.ix.funcs[m].clone();
        info.self_name()?;
        if !info.plainly_called() || info.is_classmethod() {
            return None;
        }
        let params = &info.params[1..];
        let nav = self.ix.nav;
        let rest = params.iter().position(|p| {
            p.star
                && nav
                    .parent(p.node)
                    .is_some_and(|s| s.kind_name() == "list_splat_pattern")
        });
        // The callable: a plain parameter before `*args`.
        let mut found = None;
        for call in self.calls_in.get(&m).cloned().unwrap_or_default() {
            let Some(f) = call.field(Field::Function) else {
                continue;
            };
            if f.kind_name() != "attribute"
                || f.field(Field::Attribute)
                    .is_none_or(|a| text(a, self.src()) != "transaction")
            {
                continue;
            }
            if found.is_some() {
                return None;
            }
            found = Some(call);
        }
        let Some(call) = found else {
            return self.own_pipe_wrapper(m);
        };
        let rest = rest?;
        let rest_name = params[rest].name.clone();
        let obj = call.field(Field::Function)?.field(Field::Object)?;
        let recv = self.receiver(obj, "transaction", &Ctx::at(Some(m)))?;
        if recv.pipe.is_some() {
            return None;
        }
        let args = self.all_args(call);
        let (first, watched) = args.split_first()?;
        let callable = self.forwarded_callable(*first, m, params)?;
        if params[callable].star || callable > rest {
            return None;
        }
        let mut watches = Vec::new();
        for &w in watched {
            match w.kind_name() {
                "list_splat" => {
                    let inner = w.named_child(0)?;
                    if inner.kind_name() != "identifier" || text(inner, self.src()) != rest_name {
                        return None;
                    }
                    watches.push(Watch::Forwarded);
                }
                "keyword_argument" | "dictionary_splat" => return None,
                _ => watches.push(Watch::Own(w)),
            }
        }
        if !watches.iter().any(|w| matches!(w, Watch::Forwarded)) {
            return None;
        }
        Some(TxWrapper {
            func: Some(m),
            callable,
            rest: Some(rest),
            client: recv.client,
            own: None,
            watches,
        })
    }

    /// A method that makes a pipeline, starts its transaction and hands it to its
    /// callable parameter before executing it:
    ///
    /// ```python
    /// def transaction_pipe(self, pipe_func, watch_keys=None):
    ///     with self._pipe_acquire() as pipe:
    ///         for key in watch_keys or ():
    ///             pipe.watch(key)
    ///         pipe.multi()
    ///         pipe_func(pipe)
    ///         return pipe.execute()
    /// ```
    ///
    /// The callable is called once, with the pipeline first; `pipe.multi()` comes
    /// before that call and `pipe.execute()` after it, in the method's own body.
    /// What the method watches is not carried, except `pipe.watch(*watches)` of its
    /// `*watches` parameter (`protected_handler(func, *watches)`): the caller's
    /// arguments after the callable are watched, and with them the caller's callback
    /// is the transaction.
    fn own_pipe_wrapper(&mut self, m: FuncId) -> Option<TxWrapper<'t>> {
        let info = self.ix.funcs[m].clone();
        let params = &info.params[1..];
        let src = self.src();
        let calls = self.calls_in.get(&m).cloned().unwrap_or_default();
        let mut found = None;
        for call in &calls {
            let Some(f) = call.field(Field::Function) else {
                continue;
            };
            if f.kind_name() != "identifier" {
                continue;
            }
            let name = text(f, src);
            let Some(i) = params.iter().position(|p| p.name == name && !p.star) else {
                continue;
            };
            if found.is_some() || info.defs.get(name).is_none_or(|d| d.len() != 1) {
                return None;
            }
            found = Some((*call, i));
        }
        let (cb_call, callable) = found?;
        let first = *arg_nodes(self.ix.nav, cb_call.field(Field::Arguments)).first()?;
        if first.kind_name() != "identifier" {
            return None;
        }
        let pipe = text(first, src);
        // `pipe.multi()` before the call, `pipe.execute()` after it.
        let on_pipe = |c: &Node<'t>, method: &str| {
            c.field(Field::Function).is_some_and(|f| {
                f.kind_name() == "attribute"
                    && f.field(Field::Object)
                        .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == pipe)
                    && f.field(Field::Attribute)
                        .is_some_and(|a| text(a, src) == method)
            })
        };
        let multi = calls
            .iter()
            .any(|c| on_pipe(c, "multi") && c.end_byte() <= cb_call.start_byte());
        let execute = calls
            .iter()
            .any(|c| on_pipe(c, "execute") && c.start_byte() >= cb_call.end_byte());
        if !execute {
            return None;
        }
        let recv = self.receiver(first, "multi", &Ctx::at(Some(m)))?;
        let pid = recv.pipe?;
        // With no `multi()`, the pipeline the method makes is a transaction by
        // itself (`pipeline()` on a standalone client, `transaction=True`), made
        // here (`async with self.redis.pipeline() as pipe: builder(pipe); await
        // pipe.execute()`).
        let own = if multi {
            None
        } else {
            let p = &self.pipes[pid];
            let made_here = p
                .created
                .as_ref()
                .is_some_and(|r| info.node.byte_range().contains(&r.start));
            // A default `pipeline()` on a client whose kind the code does not show
            // is a transaction on a standalone server whatever the profile says.
            let default =
                p.tx == crate::eval::Tx::Yes || p.origin == crate::eval::TxOrigin::ProfileDefault;
            if !default
                || !made_here
                || p.via.is_some()
                || p.held.is_some()
                || p.transaction_call.is_some()
            {
                return None;
            }
            Some(OwnPipe {
                tx: p.tx,
                origin: p.origin,
                kind_by_profile: p.kind_by_profile,
            })
        };
        // `pipe.watch(*watches)` of the method's `*args`, before `pipe.multi()`: the
        // caller's arguments after the callable are watched.
        let rest = params.iter().position(|p| {
            p.star
                && self
                    .ix
                    .nav
                    .parent(p.node)
                    .is_some_and(|s| s.kind_name() == "list_splat_pattern")
        });
        let watches_rest = rest.filter(|&r| {
            r > callable
                && calls.iter().any(|c| {
                    on_pipe(c, "watch")
                        && c.end_byte() <= cb_call.start_byte()
                        && matches!(self.all_args(*c).as_slice(), [a]
                        if a.kind_name() == "list_splat"
                            && a.named_child(0).is_some_and(|x| {
                                x.kind_name() == "identifier" && text(x, src) == params[r].name
                            }))
                })
        });
        Some(TxWrapper {
            func: Some(m),
            callable,
            rest: watches_rest,
            client: recv.client,
            own,
            watches: watches_rest.map(|_| Watch::Forwarded).into_iter().collect(),
        })
    }

    /// Every argument of a call as written, splats and keywords included.
    fn all_args(&self, call: Node<'t>) -> Vec<Node<'t>> {
        match call.field(Field::Arguments) {
            Some(a) if a.kind_name() == "argument_list" => self
                .ix
                .nav
                .named_children(a)
                .filter(|k| k.kind_name() != "comment")
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The index (after `self`) of the parameter of `m` that `first`, the callback
    /// passed to `transaction()`, runs: that parameter itself, or a function nested
    /// in `m` whose body calls it with its own first parameter (`fn(pipe)`).
    fn forwarded_callable(
        &self,
        first: Node<'t>,
        m: FuncId,
        params: &[crate::index::ParamInfo<'t>],
    ) -> Option<usize> {
        if first.kind_name() != "identifier" {
            return None;
        }
        let name = text(first, self.src());
        let is_param = |n: &str| params.iter().position(|p| p.name == n && !p.star);
        if let Some(i) = is_param(name) {
            // Not rebound in the method.
            return (self.ix.funcs[m].defs.get(name)?.len() == 1).then_some(i);
        }
        let cb = self.callback_func(first, Some(m))?;
        let pipe = self.ix.funcs[cb].params.first()?.name.clone();
        let mut runs = None;
        for call in self.calls_in.get(&cb).cloned().unwrap_or_default() {
            let Some(f) = call.field(Field::Function) else {
                continue;
            };
            if f.kind_name() != "identifier" {
                continue;
            }
            let Some(i) = is_param(text(f, self.src())) else {
                continue;
            };
            let args = arg_nodes(self.ix.nav, call.field(Field::Arguments));
            let passes_pipe = matches!(args.as_slice(),
                [a] if a.kind_name() == "identifier" && text(*a, self.src()) == pipe);
            if !passes_pipe || runs.is_some_and(|r| r != i) {
                return None;
            }
            runs = Some(i);
        }
        runs
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// At a call of a transaction wrapper: the caller's callback receives the
    /// transaction's pipeline, as with `client.transaction(cb, …)` written here.
    pub(crate) fn prepare_wrapped_transaction(
        &mut self,
        call: Node<'t>,
        attr: Node<'t>,
        ctx: &Ctx<'t>,
    ) {
        let Some(obj) = call
            .field(Field::Function)
            .and_then(|f| f.field(Field::Object))
        else {
            return;
        };
        // `self.m(…)` in a method, or a method of a class of this file called
        // through another object.
        let is_self = ctx
            .func
            .and_then(|f| self.ix.method_self(f))
            .is_some_and(|(_, s)| obj.kind_name() == "identifier" && text(obj, self.src()) == s);
        // Not evaluated before it names a wrapper of the file: a receiver read now
        // (a callback's parameter) is not yet what a transaction makes it.
        if !is_self {
            let m = text(attr, self.src());
            let methods: Vec<FuncId> = self
                .ix
                .classes
                .iter()
                .filter_map(|c| c.methods.get(m).copied())
                .collect();
            if self.imported_object_wrapper(obj, m).is_none()
                && self.typed_attr_wrapper(obj, m, ctx).is_none()
                && !methods.into_iter().any(|f| self.file_wrapper(f).is_some())
            {
                return;
            }
        }
        let Some(w) = self.tx_wrapper_call(call, ctx) else {
            return;
        };
        let args = self.all_args(call);
        // Positional arguments up to the callable.
        if args.len() <= w.callable
            || args[..=w.callable].iter().any(|a| {
                matches!(
                    a.kind_name(),
                    "list_splat" | "dictionary_splat" | "keyword_argument"
                )
            })
        {
            return;
        }
        let cb = args[w.callable];
        let target = if cb.kind_name() == "lambda" {
            self.ix.func_by_node.get(&cb.id()).copied()
        } else {
            match self.eval(cb, ctx) {
                Value::Func { id, bound: None } => Some(id),
                _ => None,
            }
        };
        // The pipeline's parameter of the callback; a callback the code does not
        // pin down (chosen in several arms) still runs after the WATCH of the
        // wrapper's keys, which is one unit on its own.
        let param = match target {
            Some(target) => {
                let Some(param) = self.ix.funcs[target].params.first() else {
                    return;
                };
                if param.star {
                    return;
                }
                Some((target, param.node.start_byte()))
            }
            None => None,
        };
        let pid = self.pipe_for(
            call,
            w.client,
            w.own.map_or(crate::eval::Tx::Yes, |o| o.tx),
            Some(attr.byte_range()),
        );
        self.pipes[pid].transaction_call = Some(call.byte_range());
        if let Some(own) = w.own {
            self.pipes[pid].origin = own.origin;
            self.pipes[pid].kind_by_profile = own.kind_by_profile;
        }
        if let Some(param) = param {
            self.param_override.entry(param).or_insert(Value::Pipe(pid));
        }
        self.tx_wrapped.insert(call.id(), (w, pid));
    }

    /// The keys a call of a transaction wrapper watches: the wrapper's own, with
    /// the caller's arguments after the callable in place of its `*args`.
    pub(crate) fn wrapped_transaction_watches(&mut self, call: Node<'t>, ctx: &Ctx<'t>) {
        let Some((w, pid)) = self.tx_wrapped.get(&call.id()).cloned() else {
            return;
        };
        // Keywords (`pre_func=…`) fill no place of the watched `*args`.
        let (pos, _) = self.call_args(call.field(Field::Arguments), ctx);
        let mut keys = Vec::new();
        let own = Ctx::at(w.func);
        for watch in &w.watches {
            match watch {
                Watch::Own(n) => {
                    let n = *n;
                    let value = self.eval(n, &own);
                    let e = crate::eval::Elem {
                        value,
                        node: n,
                        star: false,
                        each: Vec::new(),
                    };
                    if let Some(k) = self.key_use(&e, "WATCH", &own) {
                        keys.push(k);
                    }
                }
                Watch::SelfAttr(attr) => {
                    // `self.key` of the caller's object, as its class reads it.
                    let Some(c) = ctx.func.and_then(|f| self.ix.method_class(f)) else {
                        continue;
                    };
                    let Some(obj) = call
                        .field(Field::Function)
                        .and_then(|f| f.field(Field::Object))
                    else {
                        continue;
                    };
                    let value = self.instance_attr(c, attr, obj, ctx, true);
                    let value = crate::configured::relabel_fresh_default(
                        value,
                        &format!("{}.{attr}", text(obj, self.src())),
                    );
                    let e = crate::eval::Elem {
                        value,
                        node: obj,
                        star: false,
                        each: Vec::new(),
                    };
                    if let Some(k) = self.key_use(&e, "WATCH", ctx) {
                        keys.push(k);
                    }
                }
                Watch::Forwarded => {
                    // `*watches`, a local list that holds one key or none.
                    let Some(rest) = w.rest else {
                        continue;
                    };
                    if let Some(e) = self.one_or_none(rest, call, ctx) {
                        if let Some(k) = self.key_use(&e, "WATCH", ctx) {
                            keys.push(k);
                        }
                        continue;
                    }
                    self.watched_keys(pos.get(rest..).unwrap_or_default(), ctx, &mut keys);
                }
            }
        }
        if !keys.is_empty() {
            self.keys_event(pid, call, keys);
        }
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The one key a `*watches` argument may hold, when it is the only argument after
    /// the callable and `watches` a local list of the caller's function made once
    /// before the call, either `[x] if test else []` (or the other way round), or
    /// `[]` with one `watches.append(x)` and no other use: the run that holds `x`
    /// watches it with the others.
    fn one_or_none(
        &mut self,
        rest: usize,
        call: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<crate::eval::Elem<'t>> {
        let args = self.all_args(call);
        let [splat] = args.get(rest..)? else {
            return None;
        };
        let ident = splat.named_child(0)?;
        if splat.kind_name() != "list_splat" || ident.kind_name() != "identifier" {
            return None;
        }
        let name = text(ident, self.src());
        let f = ctx.func?;
        let defs = self.ix.funcs[f].defs.get(name)?;
        let [d] = defs.as_slice() else {
            return None;
        };
        let crate::index::DefKind::Expr(v) = d.kind else {
            return None;
        };
        if v.end_byte() >= call.start_byte() {
            return None;
        }
        let nav = self.ix.nav;
        let one_elem = |l: Node<'t>| -> Option<Option<Node<'t>>> {
            if l.kind_name() != "list" {
                return None;
            }
            let items: Vec<Node<'t>> = nav
                .named_children(l)
                .filter(|k| k.kind_name() != "comment")
                .collect();
            match items.as_slice() {
                [] => Some(None),
                [x] if x.kind_name() != "list_splat" => Some(Some(*x)),
                _ => None,
            }
        };
        // Every use of the name in the function: the definition, the splat, and
        // for `[]` one `append`.
        let uses = self.name_uses(f, name);
        let x = match v.kind_name() {
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = nav
                    .named_children(v)
                    .filter(|k| k.kind_name() != "comment")
                    .collect();
                let [a, _, b] = kids.as_slice() else {
                    return None;
                };
                if uses != 2 {
                    return None;
                }
                match (one_elem(*a)?, one_elem(*b)?) {
                    (Some(x), None) | (None, Some(x)) => x,
                    _ => return None,
                }
            }
            "list" if one_elem(v)?.is_none() => {
                if uses != 3 {
                    return None;
                }
                let calls = self.calls_in.get(&f).cloned().unwrap_or_default();
                let mut found = None;
                for c in calls {
                    let Some(func) = c.field(Field::Function) else {
                        continue;
                    };
                    if func.kind_name() != "attribute" {
                        continue;
                    }
                    let (Some(o), Some(m)) =
                        (func.field(Field::Object), func.field(Field::Attribute))
                    else {
                        continue;
                    };
                    if o.kind_name() != "identifier" || text(o, self.src()) != name {
                        continue;
                    }
                    if text(m, self.src()) != "append" || found.is_some() {
                        return None;
                    }
                    let args = arg_nodes(nav, c.field(Field::Arguments));
                    let [a] = args.as_slice() else {
                        return None;
                    };
                    if c.start_byte() < v.end_byte() || c.end_byte() > call.start_byte() {
                        return None;
                    }
                    found = Some(*a);
                }
                found?
            }
            _ => return None,
        };
        let value = self.eval(x, ctx);
        Some(crate::eval::Elem {
            value,
            node: x,
            star: false,
            each: Vec::new(),
        })
    }

    /// How many times `name` is read or written in the body of `f` (nested scopes
    /// included).
    fn name_uses(&self, f: FuncId, name: &str) -> usize {
        let mut count = 0;
        let mut stack = vec![self.ix.funcs[f].body];
        while let Some(x) = stack.pop() {
            if x.kind_name() == "identifier" && text(x, self.src()) == name {
                count += 1;
                continue;
            }
            stack.extend(self.ix.nav.children(x));
        }
        count
    }
}
