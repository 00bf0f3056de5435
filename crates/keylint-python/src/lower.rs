//! Call sites to the model: every redis-py call on a known client or pipeline becomes
//! key uses and an atomic unit; transactional pipelines and `transaction(func, …)`
//! become transaction units.
//!
//! What a unit does across slots follows the client the code uses (design §1): the
//! cluster client refuses most multi-key calls before sending, splits `delete`,
//! `exists`, `touch`, `unlink` and the `*_nonatomic` helpers, and its pipelines block
//! some commands outright; the standalone client sends everything and the server
//! refuses. When the client is not known, a verdict is only made where every client
//! agrees.

use crate::eval::{
    arg_nodes, ClientKind, Ctx, Elem, PipeId, PipeInfo, ScriptId, ScriptInfo, Tx, TxOrigin, Value,
};
use crate::index::{text, FuncId, Index};
use crate::methods::{self, ClusterBehavior, Method, ParamKind, PipelineBehavior};
use crate::syntax::{Field, IdMap, IdSet, Nav, NodeExt};
use crate::tpl::{TPart, Tpl};
use crate::{FileLoader, Options};
use keylint_core::model::{
    BadNumkeys, CrossSlotPolicy, FileModel, KeyFamily, KeyOrigin, KeyUse, Numkeys, Unit, UnitKind,
    UnitNote,
};
use keylint_core::Span;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// What happened to a pipeline at one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EvKind {
    /// Keys were queued (or watched).
    Keys,
    /// `execute()`.
    Execute,
    /// `reset()` / `discard()`.
    Reset,
    /// `multi()`.
    Multi,
}

#[derive(Debug, Clone)]
struct PipeEvent<'t> {
    pipe: PipeId,
    kind: EvKind,
    node: Node<'t>,
    keys: Vec<usize>,
    /// For a command of a helper followed from `node` (a call that passes the
    /// pipeline), the calls inside each followed helper down to the command.
    inner: Vec<Node<'t>>,
    /// For a command queued by a method of another module, where it sits in that
    /// method (and in the helpers it followed), after `inner`.
    ext: Vec<Level>,
}

/// A helper followed for the pipeline its caller passes (see
/// [`Analyzer::follow_helper`]).
#[derive(Debug, Clone)]
pub(crate) struct Inline<'t> {
    /// The call in the caller's function, then the call inside each helper that
    /// leads to the next one.
    chain: Vec<Node<'t>>,
    /// The caller's pipelines that the helpers received.
    pipes: Vec<PipeId>,
    /// The helpers being followed (no helper is followed inside itself).
    funcs: Vec<FuncId>,
    /// Identity of the arguments at every level, for the values made inside.
    tag: String,
}

/// Helpers followed inside each other for one call, at most.
const MAX_INLINE_DEPTH: usize = 4;
/// Calls of followed helpers lowered per file, at most: past it, helpers are not
/// followed (their commands are left out of their callers' transactions).
const INLINE_BUDGET: usize = 20_000;

/// The state of one file's lowering.
pub(crate) struct Analyzer<'t> {
    pub ix: Index<'t>,
    pub opts: &'t Options,
    pub loader: Option<&'t dyn FileLoader>,
    pub pipes: Vec<PipeInfo>,
    pub pipe_by_node: IdMap<usize, PipeId>,
    pub scripts: Vec<ScriptInfo<'t>>,
    pub script_by_node: IdMap<usize, ScriptId>,
    /// Parameters bound by the caller: `transaction(func)` passes a pipeline.
    pub param_override: IdMap<(FuncId, usize), Value<'t>>,
    /// Fields of a record class bound to its constructor's arguments while its facts
    /// are read (`records.rs`).
    pub field_override: HashMap<(crate::index::ClassId, String), Value<'t>>,
    pub mentions_redis: bool,
    pub model: FileModel,
    /// Resolved names (by node and function), when no key builder's parameters are
    /// bound.
    pub memo_name: IdMap<(usize, Option<FuncId>), Value<'t>>,
    /// Calls on a pipeline that return the pipeline (`pipe.set(…)` in a chain), so
    /// that each link of `pipe.set(…).set(…)…` is evaluated once, not once per later
    /// link (and not through a recursion as deep as the chain).
    pub memo_chain: IdMap<usize, Value<'t>>,
    /// Resolved attributes of classes.
    pub memo_attr: HashMap<(crate::index::ClassId, String, bool), Value<'t>>,
    /// The instance of another module's class that `self.x` holds (`objtype.rs`).
    pub typed_attrs:
        HashMap<(crate::index::ClassId, String), Option<std::rc::Rc<crate::project::Instance>>>,
    /// Definitions and attributes being evaluated (cycles are not followed).
    pub in_progress: IdSet<(u8, usize, usize)>,
    /// Expressions evaluated so far.
    pub steps: usize,
    /// The function of every call.
    func_of: IdMap<usize, Option<FuncId>>,
    /// The next attribute lookup is through a class's own name (`Cls.X`), not `self`.
    pub exact_class: bool,
    /// The module is summarised for another module (its facts), not linted: a
    /// subclass of that module is then `self`'s own class, and the overrides of
    /// other subclasses say nothing of it (see `subclasses.rs`).
    pub summarising: bool,
    /// The module is summarised again for one of its classes as a subclass of
    /// another module sees it: that class, and the string attributes the subclass
    /// gives its own literal values (`_element_key_template = ":registry:{}"`),
    /// which `self` reads in place of the class's own (`rebase.rs`).
    pub rebase: Option<(crate::index::ClassId, HashMap<String, String>)>,
    /// Type aliases being read inside each other (`A = B | C`), to cut cycles.
    pub alias_depth: std::cell::Cell<u8>,
    /// False when only part of the file was parsed: names are then never resolved.
    pub resolve_names: bool,
    events: Vec<PipeEvent<'t>>,
    /// The `return` statements that hand a pipeline out un-executed (`handout.rs`).
    pub handed_out: Vec<usize>,
    /// Every call of the file with its function, by the last name of the callee
    /// (`f` for `f(…)`, `m` for `obj.m(…)`), for the flow from call sites to parameters.
    pub calls_by_name: HashMap<&'t str, Vec<(Node<'t>, Option<FuncId>)>>,
    /// (helper, pipeline) → the one call that passes the pipeline to the helper.
    pub helper_site: HashMap<(FuncId, PipeId), Node<'t>>,
    /// Key uses that stand for many keys: key → the loops and comprehensions over
    /// whose passes it varies.
    key_each: HashMap<usize, Vec<usize>>,
    /// Families of keys listed by a pattern (`scan_iter`, `keys`), by the call's
    /// start offset: what to call their members in messages.
    pub(crate) scan_sources: HashMap<usize, &'static str>,
    /// Script units to link with their bodies: (unit index, script body node, ctx func).
    pub script_links: Vec<crate::script::Link<'t>>,
    /// Project analysis: how this module reaches the others.
    pub project: Option<&'t crate::project::Scope<'t>>,
    /// Whether the file is written for aioredis 1.x ([`Analyzer::aioredis1`]), found
    /// on first use.
    aioredis1: std::cell::OnceCell<bool>,
    /// The calls of each function (not of the functions nested in it), in order.
    pub(crate) calls_in: HashMap<FuncId, Vec<Node<'t>>>,
    /// Methods of the file read as transaction wrappers (`None`: not one).
    pub(crate) tx_wrappers: HashMap<FuncId, Option<crate::txwrap::TxWrapper<'t>>>,
    /// Calls of transaction wrappers, by call node, with the wrapper and its pipeline.
    pub(crate) tx_wrapped: IdMap<usize, (crate::txwrap::TxWrapper<'t>, PipeId)>,
    /// The helper being followed for its caller's pipeline, if any.
    pub(crate) inline: Option<Inline<'t>>,
    /// Calls of followed helpers that may still be lowered.
    inline_budget: usize,
    /// While a method is summarised: calls not followed because they reach a helper
    /// already being followed (a recursion), and whether a followed helper handed
    /// the pipeline to a call of which nothing is seen (see [`Analyzer::queued_on`]).
    recursions: usize,
    unseen_handoff: bool,
    /// While a method is summarised for the pipeline it receives: the calls of
    /// its helpers that hand the pipeline to a method of an object one of its
    /// parameters brings (see [`crate::project::QueuedVia`]).
    via_sink: Option<Vec<crate::project::QueuedVia>>,
    /// The pipelines that stand for a caller's while a method of the project is
    /// summarised ([`Analyzer::queued_on`]), and the keys of commands queued on them
    /// that only a transaction keeps (`DEL` joins a batch only as part of `MULTI`):
    /// the caller decides with its own pipeline ([`Analyzer::follow_ext`]).
    placeholder_pipes: Vec<PipeId>,
    tx_only_keys: HashSet<usize>,
    /// [`Analyzer::memo_chain`] for calls evaluated with bound parameters, by the
    /// binding's tag.
    pub memo_chain_env: HashMap<(usize, String), Value<'t>>,
    /// While a method is summarised for another module: the template of each key
    /// use (see [`Analyzer::queued_on`]).
    capture: Option<HashMap<usize, Tpl>>,
    /// `calls_in` and `func_of` are filled.
    pub(crate) calls_indexed: bool,
    /// Module dicts of clients read by subscript (`globals.rs`): the clients' kind,
    /// `None` for a dict that is no such registry.
    pub(crate) client_registries: HashMap<String, Option<ClientKind>>,
    /// Script constants written as `string.Template` text (`"$pending_key"`): their
    /// placeholders are read as unknown values (node ids of the string literals).
    pub(crate) dollar_bodies: HashSet<usize>,
    /// The receivers that the file's uses show to be clients (`byuse.rs`), read on
    /// first need.
    pub(crate) by_use: std::cell::OnceCell<crate::byuse::ByUse>,
    /// The scripts kept as attributes of objects (`scriptattr.rs`), read on first
    /// need.
    pub(crate) attr_scripts: Option<crate::scriptattr::AttrScripts>,
    /// Bindings of parameters' values: what the caller of a function passes in (see
    /// [`FileModel::caller_values`]).
    pub(crate) caller_values: HashSet<String>,
    /// Bindings of attributes read on the caller's values (`model._namespace` of a
    /// parameter `model` the function never rebinds): one value for every key of the
    /// function that begins with it (see `heads.rs`).
    pub(crate) caller_attrs: HashSet<String>,
    /// The attributes each function writes, as written (`req.event.source`): see
    /// `writes_attr_in`.
    pub(crate) written_attrs: HashMap<crate::index::FuncId, HashSet<String>>,
    /// Items read with a literal key from a value the caller passes in
    /// (`data["doc_id"]` of a parameter `data`): heads like `caller_attrs`.
    pub(crate) caller_items: HashSet<String>,
    /// The caller's values that keys hold, in the functions that take them.
    given: HashSet<String>,
    /// Constructor arguments stored on `self` that keys may share as their head, by
    /// binding, with what each is as findings name it (see `heads.rs`).
    pub(crate) ctor_heads: Vec<(String, String)>,
    /// Classes whose constructions, as the project shows them, pass no value with a
    /// `{` (see `heads.rs`).
    pub(crate) untagged_ctors: HashMap<crate::index::ClassId, bool>,
    /// Whether every construction of a class of another module (by qualified name)
    /// leaves a constructor parameter (by index) to its default (`project.rs`
    /// `kept_default`).
    pub(crate) kept_defaults: HashMap<(String, usize), bool>,
    /// Where the file writes each attribute name (see `heads.rs`), read on first need.
    pub(crate) attr_writes: std::cell::OnceCell<HashMap<String, Vec<(usize, bool)>>>,
    /// The ends of the one-of parts that builders with a return per arm give
    /// (`keyoptions.rs`).
    pub(crate) choices: crate::keyoptions::Choices,
    /// The whole texts a one-of part of a class attribute stands for, by the part's
    /// binding, for `.format` (`subclassopts.rs`).
    pub(crate) attr_options: HashMap<String, (Tpl, Vec<Tpl>)>,
    /// What the file writes through `globals()` (`globals.rs`), read on first need.
    pub(crate) globals_rewrite: std::cell::OnceCell<crate::globals::Rewrite>,
    /// Module functions by id: whether each returns a copy of its list argument's
    /// items (`passthru.rs`).
    pub(crate) copies_items_seen: HashMap<FuncId, bool>,
    /// Functions that hand back their first parameter as text (`passthru.rs`).
    pub(crate) param_as_text_seen: HashMap<FuncId, bool>,
    /// Functions by id: the `pipeline()` calls they return, when every return makes
    /// a new pipeline (`retpipe.rs`).
    pub(crate) fresh_pipes_seen: HashMap<FuncId, Option<crate::retpipe::FreshReturns<'t>>>,
    /// Module dicts by name: whether nothing in the file writes them.
    pub(crate) frozen_dicts: HashMap<String, bool>,
    /// Module functions by id: the script objects they return when they wrap
    /// `EVAL`/`EVALSHA` themselves (`wrapscript.rs`).
    pub(crate) wrappers_seen: HashMap<FuncId, Option<crate::wrapscript::WrapperSig>>,
    /// Helpers that register the script their caller passes (`scriptparam.rs`).
    pub(crate) script_params_seen: HashMap<FuncId, Option<(usize, String)>>,
    /// Dicts of registered scripts by name (`class.attr`, a global, `func:local`): the
    /// script object an entry is (`scriptreg.rs`).
    pub(crate) registries: HashMap<String, Option<ScriptId>>,
}

impl std::fmt::Debug for Analyzer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer").finish_non_exhaustive()
    }
}

/// A call's receiver.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recv {
    pub(crate) client: ClientKind,
    pub(crate) pipe: Option<PipeId>,
}

impl<'t> Analyzer<'t> {
    pub fn new(
        nav: &'t Nav<'t>,
        src: &'t str,
        opts: &'t Options,
        loader: Option<&'t dyn FileLoader>,
    ) -> Analyzer<'t> {
        Analyzer {
            ix: Index::build(nav, src),
            opts,
            loader,
            pipes: Vec::new(),
            pipe_by_node: IdMap::default(),
            scripts: Vec::new(),
            script_by_node: IdMap::default(),
            param_override: IdMap::default(),
            field_override: HashMap::new(),
            mentions_redis: keylint_core::prefilter::mentions_redis(src.as_bytes()),
            model: FileModel::new(crate::LANG),
            memo_name: IdMap::default(),
            memo_chain: IdMap::default(),
            memo_attr: HashMap::new(),
            typed_attrs: HashMap::new(),
            in_progress: IdSet::default(),
            steps: 0,
            func_of: IdMap::default(),
            exact_class: false,
            summarising: false,
            rebase: None,
            alias_depth: std::cell::Cell::new(0),
            resolve_names: true,
            events: Vec::new(),
            handed_out: Vec::new(),
            key_each: HashMap::new(),
            scan_sources: HashMap::new(),
            calls_by_name: HashMap::new(),
            helper_site: HashMap::new(),
            script_links: Vec::new(),
            project: None,
            aioredis1: std::cell::OnceCell::new(),
            calls_in: HashMap::new(),
            tx_wrappers: HashMap::new(),
            tx_wrapped: IdMap::default(),
            inline: None,
            recursions: 0,
            unseen_handoff: false,
            via_sink: None,
            placeholder_pipes: Vec::new(),
            tx_only_keys: HashSet::new(),
            inline_budget: INLINE_BUDGET,
            memo_chain_env: HashMap::new(),
            capture: None,
            calls_indexed: false,
            client_registries: HashMap::new(),
            dollar_bodies: HashSet::new(),
            by_use: std::cell::OnceCell::new(),
            attr_scripts: None,
            caller_values: HashSet::new(),
            caller_attrs: HashSet::new(),
            written_attrs: HashMap::new(),
            caller_items: HashSet::new(),
            given: HashSet::new(),
            ctor_heads: Vec::new(),
            untagged_ctors: HashMap::new(),
            kept_defaults: HashMap::new(),
            attr_writes: std::cell::OnceCell::new(),
            choices: Default::default(),
            attr_options: HashMap::new(),
            globals_rewrite: std::cell::OnceCell::new(),
            copies_items_seen: HashMap::new(),
            param_as_text_seen: HashMap::new(),
            fresh_pipes_seen: HashMap::new(),
            frozen_dicts: HashMap::new(),
            wrappers_seen: HashMap::new(),
            script_params_seen: HashMap::new(),
            registries: HashMap::new(),
        }
    }

    /// Whether the file is written for aioredis 1.x, whose clients answer to
    /// redis-py's method names but make pipelines differently: `pipeline()` is a
    /// plain batch (never MULTI/EXEC) and `multi_exec()` the transaction. It is when
    /// the file imports no redis-py module and either holds `multi_exec` itself (a
    /// name only aioredis 1.x has; aioredis 2.x is redis-py's asyncio client under
    /// another name), or another Python file of its project does and none imports
    /// redis-py (a project that uses both leaves a file that shows neither as it was).
    pub(crate) fn aioredis1(&self) -> bool {
        *self.aioredis1.get_or_init(|| {
            let redis_py = self.ix.imports.values().any(|p| {
                ["redis", "valkey"].iter().any(|m| {
                    p.strip_prefix(m)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                })
            });
            if redis_py {
                return false;
            }
            if holds_word(self.src(), "multi_exec") {
                return true;
            }
            self.project.is_some_and(|s| {
                s.project_mentions("multi_exec")
                    && !s.project_mentions(keylint_core::frontend::IMPORTS_REDIS_PY)
            })
        })
    }

    /// Whether an expression's last name is one of the configured receiver names.
    pub(crate) fn is_receiver_name(&self, n: Node<'t>) -> bool {
        let last = match n.kind_name() {
            "identifier" => n,
            "attribute" => match n.field(Field::Attribute) {
                Some(a) => a,
                None => return false,
            },
            _ => return false,
        };
        let name = text(last, self.src()).trim_start_matches('_');
        if self.opts.configured_receivers.iter().any(|r| r == name) {
            return true;
        }
        self.mentions_redis
            && (self.opts.receiver_names.iter().any(|r| r == name) || name.ends_with("_redis"))
    }

    /// Runs the lowering.
    pub fn run(mut self) -> FileModel {
        if self.ix.too_deep {
            self.resolve_names = false;
        }
        self.bind_star_imports();
        let calls = self.index_calls();
        // `transaction(func, …)` first: it tells what `func`'s parameter is.
        for &(call, func) in &calls {
            self.prepare_transaction(call, Ctx::at(func));
        }
        for &(call, func) in &calls {
            self.process_call(call, Ctx::at(func));
        }
        self.handed_out_pipelines();
        self.build_transactions();
        crate::script::docstring_scripts(&mut self);
        crate::script::script_constants(&mut self);
        crate::script::unrun_script_globals(&mut self);
        crate::script::link_scripts(&mut self);
        self.finish()
    }

    /// Every call with its enclosing function, in order; fills `calls_in`,
    /// `func_of` and `calls_by_name`.
    pub(crate) fn index_calls(&mut self) -> Vec<(Node<'t>, Option<FuncId>)> {
        let mut calls = self
            .ix
            .nav
            .calls(|f| self.ix.func_by_node.get(&f.id()).copied());
        calls.sort_by_key(|(c, _)| (c.end_byte(), std::cmp::Reverse(c.start_byte())));
        self.calls_indexed = true;
        for &(call, func) in &calls {
            self.func_of.insert(call.id(), func);
            if let Some(f) = func {
                self.calls_in.entry(f).or_default().push(call);
            }
            let callee = call
                .field(Field::Function)
                .and_then(|f| match f.kind_name() {
                    "identifier" => Some(f),
                    "attribute" => f.field(Field::Attribute),
                    _ => None,
                });
            if let Some(c) = callee {
                self.calls_by_name
                    .entry(text(c, self.ix.src))
                    .or_default()
                    .push((call, func));
            }
        }
        calls
    }

    fn finish(mut self) -> FileModel {
        self.model.configured_defaults = crate::configured::configured_defaults(&self.model.keys);
        self.label_script_calls();
        // Keys in source order; units inner before outer.
        let remap = reorder(&mut self.model.keys, |i, k| (k.span.start, k.span.end, i));
        for u in &mut self.model.units {
            for k in &mut u.keys {
                *k = remap[*k];
            }
        }
        let uremap = reorder(&mut self.model.units, |i, u| {
            (u.span.end, u.kind != UnitKind::Command, u.span.start, i)
        });
        for o in &mut self.model.key_options {
            o.key = remap[o.key];
            for k in &mut o.options {
                *k = remap[*k];
            }
        }
        for f in &mut self.model.families {
            f.key = remap[f.key];
            f.unit = uremap[f.unit];
        }
        for n in &mut self.model.unit_notes {
            n.unit = uremap[n.unit];
        }
        for l in &mut self.model.unit_labels {
            l.unit = uremap[l.unit];
        }
        // The caller's values that some key holds.
        let mut given: Vec<String> = std::mem::take(&mut self.given).into_iter().collect();
        given.sort();
        self.model.caller_values = given;
        // Unknown heads the keys share: configured values and the caller's values.
        let heads = crate::heads::heads_of(
            &self.model.keys,
            &self.caller_values,
            (&self.caller_attrs, &self.caller_items),
            &self.ctor_heads,
        );
        for (binding, origin) in heads {
            if self.ctor_heads.iter().any(|(b, _)| *b == binding)
                && !self.model.lead_prefixes.contains(&binding)
            {
                self.model.lead_prefixes.push(binding.clone());
            }
            if !self.model.client_prefixes.contains(&binding) {
                self.model.client_prefixes.push(binding.clone());
                self.model.prefix_origins.push((binding, origin));
            }
        }
        for s in &mut self.model.scripts {
            for k in &mut s.keys {
                *k = remap[*k];
            }
            for u in &mut s.units {
                *u = uremap[*u];
            }
        }
        self.model
    }

    /// A script call whose keys begin on a later line than the call (`await
    /// script(` then `keys=[…]` below) is labelled where it is called, so that the
    /// finding shows which script it is about.
    fn label_script_calls(&mut self) {
        let src = self.ix.src;
        for (i, u) in self.model.units.iter().enumerate() {
            if u.kind != UnitKind::Script
                || u.anchor.is_empty()
                || self.model.unit_labels.iter().any(|l| l.unit == i)
            {
                continue;
            }
            let Some(first) = u.keys.iter().map(|&k| self.model.keys[k].span.start).min() else {
                continue;
            };
            if first > u.anchor.end
                && src
                    .get(u.anchor.end..first)
                    .is_some_and(|t| t.contains('\n'))
            {
                self.model.unit_labels.push(keylint_core::model::UnitLabel {
                    unit: i,
                    span: u.anchor.clone(),
                    label: "the script is run here".to_string(),
                });
            }
        }
    }

    /// The function a call is in (calls only).
    fn func_of_call(&self, n: Node<'t>) -> Option<FuncId> {
        match self.func_of.get(&n.id()) {
            Some(f) => *f,
            None => self.ix.enclosing_func(n),
        }
    }

    pub(crate) fn receiver(&mut self, obj: Node<'t>, m: &str, ctx: &Ctx<'t>) -> Option<Recv> {
        let v = self.eval(obj, ctx);
        if let Value::SelfObj(c) = v {
            // `self.mget(…)` in a class derived from a redis-py client.
            if self.defines(c, m).is_none() {
                if let Some(client) = self.client_class(c) {
                    return Some(Recv {
                        client: self.effective(client),
                        pipe: None,
                    });
                }
            }
            return None;
        }
        // An object of another module's class whose method `m` passes its
        // arguments on to the same method of a client.
        if let Value::Ext(inst) = &v {
            if let Some(crate::project::Fact::Forward(client)) = inst.methods_fact(m) {
                return Some(Recv {
                    client: self.effective(*client),
                    pipe: None,
                });
            }
        }
        match self.as_receiver(v, obj) {
            Value::Client(client) => Some(Recv {
                client: self.effective(client),
                pipe: None,
            }),
            Value::Pipe(id) => Some(Recv {
                client: self.pipes[id].client,
                pipe: Some(id),
            }),
            _ => None,
        }
    }

    /// The client whose connection `obj` is, written `client.connection` (redis-py's
    /// client keeps its connection there when it holds one): not a pipeline's.
    fn connection_owner(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<Recv> {
        if obj.kind_name() != "attribute"
            || text(obj.field(Field::Attribute)?, self.src()) != "connection"
        {
            return None;
        }
        self.receiver(obj.field(Field::Object)?, "execute_command", ctx)
            .filter(|r| r.pipe.is_none())
    }

    fn prepare_transaction(&mut self, call: Node<'t>, ctx: Ctx<'t>) {
        let Some(func) = call.field(Field::Function) else {
            return;
        };
        if func.kind_name() != "attribute" {
            return;
        }
        let (Some(obj), Some(attr)) = (func.field(Field::Object), func.field(Field::Attribute))
        else {
            return;
        };
        if text(attr, self.src()) != "transaction" {
            // `self._transaction(cb, other.key)`: a method that runs `cb` in one.
            if self.inline.is_none() {
                self.prepare_wrapped_transaction(call, attr, &ctx);
            }
            return;
        }
        let Some(recv) = self.receiver(obj, "transaction", &ctx) else {
            return;
        };
        if recv.pipe.is_some() {
            return;
        }
        let args = call.field(Field::Arguments);
        let Some(&fnode) = arg_nodes(self.ix.nav, args).first() else {
            return;
        };
        let target = if fnode.kind_name() == "lambda" {
            self.ix.func_by_node.get(&fnode.id()).copied()
        } else {
            match self.eval(fnode, &ctx) {
                Value::Func { id, bound: None } => Some(id),
                _ => None,
            }
        };
        let Some(target) = target else { return };
        let Some(param) = self.ix.funcs[target]
            .params
            .first()
            .map(|p| p.node.start_byte())
        else {
            return;
        };
        let pid = self.pipe_for(call, recv.client, Tx::Yes, Some(attr.byte_range()));
        self.pipes[pid].transaction_call = Some(call.byte_range());
        self.param_override
            .entry((target, param))
            .or_insert(Value::Pipe(pid));
    }

    fn process_call(&mut self, call: Node<'t>, ctx: Ctx<'t>) {
        let Some(func) = call.field(Field::Function) else {
            return;
        };
        if self.inline.is_none() && self.tx_wrapped.contains_key(&call.id()) {
            return self.wrapped_transaction_watches(call, &ctx);
        }
        let args = call.field(Field::Arguments);
        if func.kind_name() == "attribute" {
            if let (Some(obj), Some(attr)) =
                (func.field(Field::Object), func.field(Field::Attribute))
            {
                let m = text(attr, self.src());
                // `client.connection.send_command("BRPOP", *keys)`: a command sent
                // whole on the client's connection, as `execute_command` sends it.
                if m == "send_command" && self.inline.is_none() {
                    if let Some(recv) = self.connection_owner(obj, &ctx) {
                        return self.execute_command(recv, attr, call, args, &ctx);
                    }
                }
                // `queue.run_pull(keys=…)`: a script kept as an attribute of the
                // client (`scriptattr.rs`), not a command.
                if crate::methods::table().method(m).is_none() {
                    if let Some(Value::Script(id)) = self.attr_script(obj, m, func) {
                        return self.script_object_call(id, call, func, args, &ctx);
                    }
                }
                // `self.redis.eval_script(LUA, keys=[…])` on an attribute named as
                // clients are named but declared an object of another module's class
                // whose method runs a script over the keys it is given: that
                // method, not a client's (which has no such method).
                if self.project.is_some()
                    && self.inline.is_none()
                    && crate::methods::table().method(m).is_none()
                {
                    let v = self.eval(obj, &ctx);
                    if let Some(w) = self
                        .typed_ext(obj, &v, &ctx)
                        .and_then(|x| self.ext_script_wrap(&x, m))
                    {
                        return self.ext_script_wrapper_call(&w, call, attr, &ctx);
                    }
                }
                if let Some(recv) = self.receiver(obj, m, &ctx) {
                    // A followed helper contributes only the commands it queues on
                    // its caller's pipeline; the rest is lowered with the helper.
                    if self.inline.is_none() || recv.pipe.is_some_and(|p| self.followed(p)) {
                        self.client_call(recv, m, attr, call, args, &ctx);
                    }
                    return;
                }
            }
        }
        if func.kind_name() == "identifier" {
            // `push = pipe.lpush if at_front else pipe.rpush; push(key, id)`.
            if let Some((obj, m)) = self.method_alias(func, &ctx) {
                if let Some(recv) = self.receiver(obj, m, &ctx) {
                    if self.inline.is_none() || recv.pipe.is_some_and(|p| self.followed(p)) {
                        self.client_call(recv, m, func, call, args, &ctx);
                    }
                    return;
                }
            }
        }
        // `getattr(pipe, kind)(dest, keys)` with `kind` one of a few literal names.
        if func.kind_name() == "call" {
            if let Some((obj, m)) = self.getattr_method(func, ctx.func) {
                if let Some(recv) = self.receiver(obj, m, &ctx) {
                    if self.inline.is_none() || recv.pipe.is_some_and(|p| self.followed(p)) {
                        self.client_call(recv, m, func, call, args, &ctx);
                    }
                    return;
                }
            }
        }
        // A method of an object of a class of another module of the project.
        if func.kind_name() == "attribute" && self.project.is_some() && self.passes_pipe(args, &ctx)
        {
            if let (Some(obj), Some(attr)) =
                (func.field(Field::Object), func.field(Field::Attribute))
            {
                let v = self.eval(obj, &ctx);
                let x = self
                    .typed_ext(obj, &v, &ctx)
                    .or_else(|| self.inherited_ext_method(func, &ctx));
                if let Some(x) = x {
                    let m = text(attr, self.src());
                    if x.has_queue(m) {
                        self.follow_ext(ExtTarget::Method(&x, m), call, args, &ctx);
                        return;
                    }
                }
            }
        }
        // A method of an object of a class of another module that runs scripts over
        // keys this call passes.
        if func.kind_name() == "attribute" && self.project.is_some() && self.inline.is_none() {
            if let (Some(obj), Some(attr)) =
                (func.field(Field::Object), func.field(Field::Attribute))
            {
                let v = self.eval(obj, &ctx);
                if let Some(w) = self
                    .typed_ext(obj, &v, &ctx)
                    .and_then(|x| self.ext_script_wrap(&x, text(attr, self.src())))
                {
                    self.ext_script_wrapper_call(&w, call, attr, &ctx);
                    return;
                }
            }
        }
        // A function of another module that runs a script over the key list this
        // call passes (`call(self._client, keys=[a, b], args=[…])`).
        if matches!(func.kind_name(), "identifier" | "attribute")
            && self.project.is_some()
            && self.inline.is_none()
            && ctx.env.is_none()
        {
            if let Value::Symbol(p) = self.eval(func, &ctx) {
                if let Some(crate::project::Fact::ScriptWrap(w)) =
                    self.project.and_then(|s| s.lookup(&p))
                {
                    let at = func.field(Field::Attribute).unwrap_or(func);
                    self.ext_script_wrapper_call(&w, call, at, &ctx);
                    return;
                }
            }
        }
        // A command wrapper of another module of the project, called on an object of
        // its class, inherited by `self`, or imported (`cmdwrap.rs`).
        if matches!(func.kind_name(), "identifier" | "attribute")
            && self.project.is_some()
            && self.inline.is_none()
            && ctx.env.is_none()
            && self.ext_cmd_wrapper(func, call, &ctx)
        {
            return;
        }
        // A function of another module of the project
        // (`worker_registration.register(self, pipeline)`).
        if matches!(func.kind_name(), "identifier" | "attribute")
            && self.project.is_some()
            && self.passes_pipe(args, &ctx)
        {
            if let Value::Symbol(p) = self.eval(func, &ctx) {
                if let Some(q) = self.project_queues(&p) {
                    self.follow_ext(ExtTarget::Function(q), call, args, &ctx);
                    return;
                }
            }
        }
        if matches!(
            func.kind_name(),
            "identifier" | "attribute" | "call" | "subscript"
        ) {
            match self.eval(func, &ctx) {
                Value::Script(id) => self.script_object_call(id, call, func, args, &ctx),
                Value::Func { id, bound } => self.follow_helper(id, bound, call, args, &ctx),
                // A method of another object of a class of this file.
                Value::Opaque(_) | Value::Unknown | Value::Foreign if args.is_some() => {
                    if let Some((id, c)) = self.instance_method(func, &ctx) {
                        self.follow_helper(id, Some(c), call, args, &ctx);
                    } else if let Some((id, c)) = self.agreeing_override(func, &ctx) {
                        // `self._get_len(pipe, key)`, overridden below the same way.
                        self.follow_helper(id, Some(c), call, args, &ctx);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether `p` is a pipeline of the caller whose helper is being followed.
    fn followed(&self, p: PipeId) -> bool {
        self.inline.as_ref().is_some_and(|i| i.pipes.contains(&p))
    }

    /// A call of a function of this file that passes it a pipeline
    /// (`self._persist_job(job, pipeline=pipe)`, `_zadd(pipe, key, data)`): the
    /// helper's body is lowered for this call, its parameters bound to this call's
    /// arguments, and the commands it queues on the pipeline join the caller's
    /// transaction where the helper is called. Each call is followed on its own, so
    /// every caller's transaction has its own keys; helpers it calls with the
    /// pipeline are followed in turn, up to [`MAX_INLINE_DEPTH`] deep and never
    /// inside themselves.
    fn follow_helper(
        &mut self,
        id: FuncId,
        bound: Option<crate::index::ClassId>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) {
        if self.inline_budget == 0 || !self.resolve_names {
            return;
        }
        // `pipe = self.make_batch(…, execute=False)`: what it queued first.
        if self.follow_handback(id, bound, call, args, ctx) {
            return;
        }
        let depth = self.inline.as_ref().map_or(0, |i| i.funcs.len());
        if self.inline.as_ref().is_some_and(|i| i.funcs.contains(&id)) {
            // A helper that calls back into one being followed queues what that one
            // does, which is being seen: it hands the pipeline to nothing unknown.
            self.recursions += 1;
            return;
        }
        if depth >= MAX_INLINE_DEPTH {
            return;
        }
        let (is_lambda, has_params, plain, self_name) = {
            let info = &self.ix.funcs[id];
            (
                info.is_lambda,
                !info.params.is_empty(),
                // Other decorators may change what a call does.
                info.plainly_called(),
                info.self_name().is_some(),
            )
        };
        if is_lambda
            || !has_params
            || !plain
            || args.is_none_or(|a| self.ix.nav.named_children(a).next().is_none())
        {
            return;
        }
        let (pos, kw) = self.call_args(args, ctx);
        if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
            return;
        }
        let mut pipes: Vec<PipeId> = Vec::new();
        for e in pos.iter().chain(kw.iter().map(|(_, e)| e)) {
            if let Value::Pipe(p) = self.as_receiver(e.value.clone(), e.node) {
                if self.inline.is_none() || self.followed(p) {
                    pipes.push(p);
                }
            }
        }
        if pipes.is_empty() {
            // A function making a transaction over keys from its parameters.
            self.follow_tx_maker(id, bound, call, (&pos, &kw), ctx);
            return;
        }
        let info = self.ix.funcs[id].clone();
        let Some(params) = self.helper_params(&info, bound, self_name, (&pos, &kw), ctx) else {
            return;
        };
        self.follow_body(id, call, pipes, params, None, ctx);
    }

    /// Lowers the calls of helper `id` for its caller's `call`, with its parameters
    /// (and any local the caller decides) bound to `params`: the commands it queues
    /// on `pipes` join the caller's batch where it calls the helper. Calls that start
    /// at or after `until` are not lowered (the helper has returned before them).
    pub(crate) fn follow_body(
        &mut self,
        id: FuncId,
        call: Node<'t>,
        pipes: Vec<PipeId>,
        params: HashMap<String, Value<'t>>,
        until: Option<usize>,
        ctx: &Ctx<'t>,
    ) {
        let info = self.ix.funcs[id].clone();
        let prev = self.inline.take();
        let mut frame = prev.clone().unwrap_or(Inline {
            chain: Vec::new(),
            pipes,
            funcs: Vec::new(),
            tag: String::new(),
        });
        frame.chain.push(call);
        frame.funcs.push(id);
        frame.tag = format!("{}@{}<{}", info.name, call.start_byte(), frame.tag);
        let env = std::rc::Rc::new(crate::eval::Env {
            func: id,
            params,
            tag: frame.tag.clone(),
        });
        self.inline = Some(frame);
        let inner = Ctx {
            func: Some(id),
            env: Some(env),
            depth: ctx.depth + 1,
        };
        let calls = self.calls_in.get(&id).cloned().unwrap_or_default();
        for c in calls {
            if self.inline_budget == 0 {
                break;
            }
            self.inline_budget -= 1;
            if until.is_some_and(|u| c.start_byte() >= u) || self.dead_in(c, &inner) {
                continue;
            }
            // Summarising a method: a call of the helper that takes the pipeline and
            // shows nothing done with it.
            let before = (self.events.len(), self.recursions);
            let passes = self.capture.is_some()
                && !is_inert_builtin(c, self.src())
                && self.passes_pipe(c.field(Field::Arguments), &inner);
            if self.via_sink.is_some() && !is_inert_builtin(c, self.src()) {
                let pid = self.inline.as_ref().and_then(|i| i.pipes.first().copied());
                let mut memo = PathMemo::default();
                match pid.and_then(|p| self.record_via(c, p, &inner, &mut memo)) {
                    Some(true) => continue,
                    Some(false) => {
                        self.unseen_handoff = true;
                        continue;
                    }
                    None => {}
                }
            }
            self.process_call(c, inner.clone());
            if passes && (self.events.len(), self.recursions) == before {
                self.unseen_handoff = true;
            }
        }
        self.inline = prev;
    }

    /// The parameters of a followed helper bound to the arguments of its call: `self`
    /// (or `cls`) to the class it is bound to, the others to the arguments or their
    /// defaults, except those the body assigns again. `None` when an argument cannot
    /// be bound.
    pub(crate) fn helper_params(
        &mut self,
        info: &crate::index::FuncInfo<'t>,
        bound: Option<crate::index::ClassId>,
        self_name: bool,
        (pos, kw): (&[Elem<'t>], &[(String, Elem<'t>)]),
        ctx: &Ctx<'t>,
    ) -> Option<HashMap<String, Value<'t>>> {
        let mut params: HashMap<String, Value<'t>> = HashMap::new();
        let mut plist = info.params.iter();
        if self_name {
            let (Some(c), Some(p)) = (bound, plist.next()) else {
                return None;
            };
            params.insert(
                p.name.clone(),
                if info.is_classmethod() {
                    Value::ClsObj(c)
                } else {
                    Value::SelfObj(c)
                },
            );
        }
        let plist: Vec<_> = plist.collect();
        if pos.len() > plist.iter().take_while(|p| !p.star).count() {
            return None;
        }
        let mut reassigned: Vec<(String, Value<'t>)> = Vec::new();
        for (i, p) in plist.iter().enumerate() {
            if p.star {
                continue;
            }
            let v = self.arg_or_default(info.parent, i, p, (pos, kw), ctx)?;
            // A parameter the body assigns again is not fixed, unless only to what
            // helpers hand back when given it (`pipe, x = self._step(pipe=pipe)`).
            if info.defs.get(&p.name).is_none_or(|d| d.len() <= 1)
                || (matches!(v, Value::Pipe(_))
                    && crate::retpipe::rebound_to_itself(&self.ix, self.src(), info, &p.name))
            {
                params.insert(p.name.clone(), v);
            } else {
                reassigned.push((p.name.clone(), v));
            }
        }
        // Unless every assignment is in an arm that cannot run for this call: `if
        // pipe is None: pipe = r.pipeline()` when the caller passes its pipeline.
        for (name, v) in reassigned {
            if !matches!(v, Value::Pipe(_) | Value::Client(_) | Value::Null) {
                continue;
            }
            if self.redefs_dead(info, &name, &v, &params, ctx) {
                params.insert(name, v);
            }
        }
        Some(params)
    }

    /// Whether a call passes a pipeline that its commands may join: one of the
    /// caller's (or, in a followed helper, one its caller passed).
    fn passes_pipe(&mut self, args: Option<Node<'t>>, ctx: &Ctx<'t>) -> bool {
        self.passes_pipe_ext(args, ctx, true)
    }

    /// [`Self::passes_pipe`]; without `queue_kw`, a pipeline passed under a keyword
    /// named like one (`pipeline=pipe`) does not count: a callee that declares such a
    /// parameter queues its commands there, as the batch's owner executes it.
    fn passes_pipe_ext(&mut self, args: Option<Node<'t>>, ctx: &Ctx<'t>, queue_kw: bool) -> bool {
        let Some(a) = args else { return false };
        let src = self.src();
        // Only names are evaluated: a pipeline is passed by name (`pipeline=pipe`).
        let names: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(a)
            .filter_map(|k| match k.kind_name() {
                "identifier" => Some(k),
                "keyword_argument"
                    if queue_kw
                        || !k
                            .field(Field::Name)
                            .is_some_and(|n| crate::project::pipe_param_name(text(n, src))) =>
                {
                    k.field(Field::Value)
                        .filter(|v| v.kind_name() == "identifier")
                }
                _ => None,
            })
            .collect();
        // Only a pipeline counts: `as_receiver` would only ever make a client of a
        // name, so the value is read as evaluated.
        names.into_iter().any(|n| {
            matches!(self.eval(n, ctx),
                Value::Pipe(p) if self.inline.is_none() || self.followed(p))
        })
    }

    /// A call of a method of an object of another module's class, or of a function
    /// of another module, that passes it the pipeline (`job.save(pipeline=pipe)` on
    /// a `Job` of `app/models.py`, `registration.register(worker, pipe)`): the
    /// commands its summary says it queues on that parameter join the caller's
    /// transaction where the method is called, with the method's parameters bound
    /// to the call's arguments and its `self` to the object.
    fn follow_ext(
        &mut self,
        target: ExtTarget<'_>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) {
        if self.inline_budget == 0 || !self.resolve_names {
            return;
        }
        let queued = match target {
            ExtTarget::Method(x, m) => self.ext_queued(x, m, args, ctx),
            ExtTarget::Function(q) => self.queued_by(&q, None, args, ctx),
        };
        let Some((pipe, cmds, ends)) = queued else {
            return;
        };
        if self.inline.is_some() && !self.followed(pipe) {
            return;
        }
        if ends {
            // Keys queued before the call are never paired with keys after it.
            self.event(pipe, EvKind::Reset, call, Vec::new());
            return;
        }
        let span = call.byte_range();
        let tx = self.runs_as_transaction(pipe);
        for cmd in cmds {
            if self.inline_budget == 0 {
                return;
            }
            if cmd.tx_only && !tx {
                continue;
            }
            self.inline_budget -= 1;
            let mut keys = Vec::new();
            for (command, t) in &cmd.keys {
                self.model.keys.push(KeyUse {
                    template: t.to_key_template(&span),
                    span: span.clone(),
                    command: command.clone(),
                    origin: KeyOrigin::Direct,
                    via: None,
                });
                let k = self.model.keys.len() - 1;
                // Summarised in turn (a method of this module that passes its
                // pipeline on), the keys are its own.
                if let Some(cap) = &mut self.capture {
                    cap.insert(k, t.clone());
                }
                keys.push(k);
            }
            if !keys.is_empty() {
                self.event_ext(pipe, EvKind::Keys, call, keys, cmd.levels.clone());
            }
        }
    }

    /// The commands that method `m` of class `c` (or, with no class, function `m`)
    /// queues on its parameter `pipe`, with the other parameters bound to `params`:
    /// their keys' templates and where each sits in the method; and whether the method may end or reset the batch
    /// (`execute()`, `multi()`…), which the caller's transaction must see (its
    /// commands are then left out).
    pub(crate) fn queued_on(
        &mut self,
        m: FuncId,
        c: Option<crate::index::ClassId>,
        pipe: &str,
        mut params: HashMap<String, Value<'t>>,
    ) -> Option<(
        Vec<crate::project::QueuedCmd>,
        bool,
        Vec<crate::project::QueuedVia>,
    )> {
        if !self.calls_indexed {
            self.index_calls();
        }
        let info = self.ix.funcs[m].clone();
        let self_name = match c {
            Some(c) => Some((info.params.first()?.name.clone(), c)),
            None => None,
        };
        let pid = self.pipes.len();
        self.pipes.push(crate::eval::PipeInfo {
            client: ClientKind::Unknown,
            tx: Tx::Unknown,
            created: None,
            anchor: None,
            transaction_call: None,
            origin: crate::eval::TxOrigin::Other,
            at_block_end: false,
            kind_by_profile: false,
            via: None,
            held: None,
        });
        if let Some((name, c)) = self_name {
            params.insert(name, Value::SelfObj(c));
        }
        params.insert(pipe.to_string(), Value::Pipe(pid));
        self.placeholder_pipes.push(pid);
        let tag = format!("ext:{}@{}", info.name, info.node.start_byte());
        let env = std::rc::Rc::new(crate::eval::Env {
            func: m,
            params,
            tag: tag.clone(),
        });
        let prev_inline = self.inline.replace(Inline {
            chain: vec![info.node],
            pipes: vec![pid],
            funcs: vec![m],
            tag,
        });
        let prev_capture = self.capture.replace(HashMap::new());
        let first_event = self.events.len();
        let inner = Ctx {
            func: Some(m),
            env: Some(env),
            depth: 0,
        };
        let calls = self.calls_in.get(&m).cloned().unwrap_or_default();
        let mut complete = true;
        // The pipeline handed to a call that is not followed (nothing it does is
        // seen): it may execute it, so the method is not followed either. Not when
        // it is passed as `pipeline=pipe`: that callee queues on it.
        let mut handed_out = false;
        let mut memo = PathMemo::default();
        let prev_sink = self.via_sink.replace(Vec::new());
        for call in calls {
            if self.inline_budget == 0 {
                complete = false;
                break;
            }
            self.inline_budget -= 1;
            if self.dead_in(call, &inner) {
                continue;
            }
            match self.record_via(call, pid, &inner, &mut memo) {
                Some(true) => continue,
                Some(false) => {
                    handed_out = true;
                    continue;
                }
                None => {}
            }
            let before = self.events.len();
            let passes = !is_inert_builtin(call, self.src())
                && self.passes_pipe_ext(call.field(Field::Arguments), &inner, false);
            let (recursions, unseen) = (self.recursions, std::mem::take(&mut self.unseen_handoff));
            self.process_call(call, inner.clone());
            // Nothing seen done with the pipeline, unless all the call did was reach
            // back into the method or a helper being followed (`insert(pipe, …)` →
            // `_nested(pipe, …)` → `insert(pipe, …)`), with nothing unknown on the way.
            let only_recursion = self.recursions > recursions && !self.unseen_handoff;
            if passes && self.events.len() == before && !only_recursion {
                // An accessor that gives the pipeline back (`self.get_redis(pipeline)`,
                // `return pipeline or self.redis`) does nothing with it: the commands
                // queued on its value are seen where they are called.
                let back = matches!(self.eval(call, &inner), Value::Pipe(p) if p == pid)
                    && self.events.len() == before;
                handed_out |= !back;
            }
            self.unseen_handoff = unseen;
        }
        self.inline = prev_inline;
        let vias = std::mem::replace(&mut self.via_sink, prev_sink).unwrap_or_default();
        self.placeholder_pipes.retain(|&p| p != pid);
        let captured = std::mem::replace(&mut self.capture, prev_capture).unwrap_or_default();
        let events: Vec<PipeEvent<'t>> = self.events.drain(first_event..).collect();
        // Not followed, as before: what it queues is left out, and nothing is cut.
        if !complete || handed_out {
            return None;
        }
        let (cmds, ends) = self.queued_commands(events, pid, &captured, m);
        Some((cmds, ends, vias))
    }

    /// The tests of parameters of `m` (after `self`, for a method) that `node` runs
    /// under: `if queue:` (`(i, true)`), `if not queue:` or the `else` of `if queue:`
    /// (`(i, false)`), for a parameter the method never assigns. Other tests say
    /// nothing (the command may run).
    fn param_guards(&self, m: FuncId, node: Node<'t>) -> Vec<(usize, bool)> {
        let info = &self.ix.funcs[m];
        let skip = usize::from(info.class.is_some());
        let src = self.src();
        let param = |n: Node<'t>| -> Option<usize> {
            if n.kind_name() != "identifier" {
                return None;
            }
            let name = text(n, src);
            let i = info
                .params
                .iter()
                .skip(skip)
                .position(|p| !p.star && p.name == name)?;
            info.defs
                .get(name)
                .is_none_or(|d| d.len() <= 1)
                .then_some(i)
        };
        let mut out = Vec::new();
        let mut child = node;
        while let Some(parent) = child.parent() {
            if parent.id() == info.node.id() || parent.is_func_kind() {
                break;
            }
            if parent.kind_name() == "if_statement" {
                let arm = if parent.field(Field::Consequence).map(|c| c.id()) == Some(child.id()) {
                    Some(true)
                } else if child.kind_name() == "else_clause"
                    && !self
                        .ix
                        .nav
                        .named_children(parent)
                        .any(|k| k.kind_name() == "elif_clause")
                {
                    Some(false)
                } else {
                    None
                };
                if let (Some(arm), Some(cond)) = (arm, parent.field(Field::Condition)) {
                    let test = match cond.kind_name() {
                        "not_operator" => self
                            .ix
                            .nav
                            .named_children(cond)
                            .next()
                            .and_then(param)
                            .map(|i| (i, false)),
                        _ => param(cond).map(|i| (i, true)),
                    };
                    if let Some((i, want)) = test {
                        out.push((i, want == arm));
                    }
                }
            }
            child = parent;
        }
        out
    }

    /// [`Self::queued_via`] for a call that hands on the pipeline `pid` (also as
    /// `pipeline=`), kept in [`Analyzer::via_sink`]: `Some(true)` when recorded,
    /// `Some(false)` when the summary cannot say what the call passes, `None` when it
    /// is no such call.
    fn record_via(
        &mut self,
        call: Node<'t>,
        pid: PipeId,
        inner: &Ctx<'t>,
        memo: &mut PathMemo<'t>,
    ) -> Option<bool> {
        if !self.passes_pipe_ext(call.field(Field::Arguments), inner, true) {
            return None;
        }
        let v = self.queued_via(call, pid, inner, memo)?;
        let recorded = v.is_some();
        if let (Some(v), Some(sink)) = (v, &mut self.via_sink) {
            sink.push(v);
        }
        Some(recorded)
    }

    /// A call, in a method summarised for the pipeline `pid` it receives, of a method
    /// of the object one of its other parameters brings, handing it the pipeline
    /// (`rctrl.task_save(self, pipeline=pipeline)`; see
    /// [`crate::project::QueuedVia`]): `Some(Some(_))`. `Some(None)` when such a call
    /// passes what the summary cannot say (a splat); `None` when the call is not
    /// on such an object.
    fn queued_via(
        &mut self,
        call: Node<'t>,
        pid: PipeId,
        inner: &Ctx<'t>,
        memo: &mut PathMemo<'t>,
    ) -> Option<Option<crate::project::QueuedVia>> {
        use crate::project::Passes;
        let func = call.field(Field::Function)?;
        if func.kind_name() != "attribute" {
            return None;
        }
        let obj = func.field(Field::Object)?;
        if obj.kind_name() != "identifier" {
            return None;
        }
        let v = self.eval(obj, inner);
        let Value::Opaque(h) = &v else {
            return None;
        };
        let ('p', at) = crate::project::marker_of(&h.binding)? else {
            return None;
        };
        // An object whose class the method's module knows (`job: Job`) is followed
        // there.
        if self.typed_ext(obj, &v, inner).is_some() {
            return None;
        }
        let method = text(func.field(Field::Attribute)?, self.src()).to_string();
        let mut pos = Vec::new();
        let mut kw = Vec::new();
        let mut optional = false;
        for a in self.ix.nav.named_children(call.field(Field::Arguments)?) {
            let (name, node) = match a.kind_name() {
                "comment" => continue,
                "list_splat" | "dictionary_splat" | "parenthesized_list_splat" => {
                    return Some(None)
                }
                "keyword_argument" => (
                    Some(text(a.field(Field::Name)?, self.src()).to_string()),
                    a.field(Field::Value)?,
                ),
                _ => (None, a),
            };
            let v = self.eval(node, inner);
            let passes = match self.as_receiver(v, node) {
                Value::Pipe(p) if p == pid => Passes::Pipe,
                Value::Pipe(_) => return Some(None),
                Value::SelfObj(_) => Passes::OwnSelf,
                Value::Opaque(h) => match crate::project::marker_of(&h.binding) {
                    Some(('p', i)) if node.kind_name() == "identifier" => Passes::Param(i),
                    _ => Passes::Other(None),
                },
                Value::Str(t) => Passes::Text(t),
                _ => Passes::Other(crate::project::literal_truth(node, self.src())),
            };
            match name {
                Some(n) => {
                    optional |=
                        matches!(passes, Passes::Pipe) && crate::project::pipe_param_name(&n);
                    kw.push((n, passes));
                }
                None if kw.is_empty() => pos.push(passes),
                None => return Some(None),
            }
        }
        // Where the call sits: in the method, or in the helpers of its class it
        // follows (`self.save(ctrl, pipeline=pipeline)`), each call on the way.
        let (m, mut nodes) = match &self.inline {
            Some(i) => (*i.funcs.first()?, i.chain[1..].to_vec()),
            None => (inner.func?, Vec::new()),
        };
        nodes.push(call);
        let guards = self.param_guards(m, nodes[0]);
        let (levels, in_loop) = self.levels_of(&nodes, memo);
        Some(Some(crate::project::QueuedVia {
            obj: at,
            method,
            pos,
            kw,
            levels,
            in_loop,
            guards,
            optional,
        }))
    }

    /// Where each of `nodes` sits (a call in a method, then in each helper it
    /// follows), and whether any of them is in a loop.
    fn levels_of(&self, nodes: &[Node<'t>], memo: &mut PathMemo<'t>) -> (Vec<Level>, bool) {
        let mut levels = Vec::new();
        let mut in_loop = false;
        for &n in nodes {
            let q = Path::of(self.ix.nav, n, memo);
            in_loop |= !q.loops.is_empty();
            levels.push(Level {
                id: n.id(),
                arms: q.arms,
                exits: q.exits,
                pos: q.pos,
            });
        }
        (levels, in_loop)
    }

    /// The commands method `m`, followed, queued on its pipeline `pid` (its `events`,
    /// the templates of its keys `captured`), and whether it ends or resets the batch.
    fn queued_commands(
        &self,
        events: Vec<PipeEvent<'t>>,
        pid: PipeId,
        captured: &HashMap<usize, Tpl>,
        m: FuncId,
    ) -> (Vec<crate::project::QueuedCmd>, bool) {
        let mut out = Vec::new();
        let mut memo = PathMemo::default();
        for e in events {
            if e.pipe != pid {
                continue;
            }
            if e.kind != EvKind::Keys {
                // It ends or resets the batch: what it queued is not followed, and
                // the caller's batch is cut where it calls the method.
                return (Vec::new(), true);
            }
            let (mut levels, in_loop) = self.levels_of(&e.inner, &mut memo);
            levels.extend(e.ext.iter().cloned());
            let mut keys = Vec::new();
            let tx_only = e.keys.iter().any(|k| self.tx_only_keys.contains(k));
            for k in e.keys {
                if self.key_each.contains_key(&k) {
                    continue;
                }
                let Some(t) = captured.get(&k) else { continue };
                // A command queued once per pass of a loop of the method may be many
                // keys: kept only when its key is the same on every pass
                // (`pipe.hdel("active_orders", id)`, `pipe.zrem(book_key, entry)` of a
                // key built before the loop). Left out otherwise, which only hides
                // findings.
                if in_loop && !(e.inner.len() == 1 && self.same_every_pass(m, k)) {
                    continue;
                }
                keys.push((self.model.keys[k].command.clone(), t.clone()));
            }
            if !keys.is_empty() {
                let at = e.inner.first().copied().unwrap_or(e.node);
                out.push(crate::project::QueuedCmd {
                    keys,
                    levels,
                    tx_only,
                    guards: self.param_guards(m, at),
                });
            }
        }
        (out, false)
    }

    /// Keys watched (or queued) on `pipe` at `node`.
    pub(crate) fn keys_event(&mut self, pipe: PipeId, node: Node<'t>, keys: Vec<usize>) {
        self.event(pipe, EvKind::Keys, node, keys);
    }

    /// An end of `pipe`'s batch at `node` that is no `execute()` call: the `return`
    /// that hands it out un-executed (`handout.rs`).
    pub(crate) fn push_execute(&mut self, pipe: PipeId, node: Node<'t>) {
        self.event(pipe, EvKind::Execute, node, Vec::new());
    }

    fn event(&mut self, pipe: PipeId, kind: EvKind, node: Node<'t>, keys: Vec<usize>) {
        self.event_ext(pipe, kind, node, keys, Vec::new());
    }

    fn event_ext(
        &mut self,
        pipe: PipeId,
        kind: EvKind,
        node: Node<'t>,
        keys: Vec<usize>,
        ext: Vec<Level>,
    ) {
        // A command of a followed helper happens, for its caller's pipeline, where the
        // helper is called.
        let (node, inner) = match &self.inline {
            Some(i) => {
                let mut inner = i.chain[1..].to_vec();
                inner.push(node);
                (i.chain[0], inner)
            }
            None => (node, Vec::new()),
        };
        // A function whose one caller passes it this pipeline is followed from that
        // call (`follow_helper`), with its parameters bound: not on its own.
        if let Some(f) = self.func_of_call(node) {
            if self.helper_site.contains_key(&(f, pipe)) {
                return;
            }
        }
        self.events.push(PipeEvent {
            pipe,
            kind,
            node,
            keys,
            inner,
            ext,
        });
    }

    /// A key use for an argument, when its value is a string template.
    pub(crate) fn key_use(&mut self, e: &Elem<'t>, command: &str, ctx: &Ctx<'t>) -> Option<usize> {
        let int_tpl: Tpl;
        let tpl: &Tpl = match &e.value {
            Value::Str(t) => t,
            Value::Int(_) => {
                int_tpl = self.to_tpl(&e.value, e.node, ctx);
                &int_tpl
            }
            // A parameter of this function passed through as the key: the caller's
            // value, which keys built around it are compared with (it may carry any
            // tag of its own).
            Value::Opaque(h) if self.own_caller_value(&h.binding, ctx) => {
                int_tpl = Tpl::hole(h.clone());
                &int_tpl
            }
            // A constructor's argument stored on `self` as it is (`self._name = name`),
            // the head of the keys the object builds around it (see `heads.rs`).
            Value::Opaque(h) if self.ctor_heads.iter().any(|(b, _)| *b == h.binding) => {
                int_tpl = Tpl::hole(h.clone());
                &int_tpl
            }
            // A fresh random value as the whole key (`str(uuid4())` kept in a name).
            Value::Opaque(h) if keylint_core::template::is_fresh_binding(&h.binding) => {
                int_tpl = Tpl::hole(h.clone());
                &int_tpl
            }
            // An id taken from a collection named like ids, one per pass
            // (`for mid in message_ids: pipe.hgetall(mid)`): brace-free, hashed whole.
            // A number a client replied (`uid = r.incr("next_id")`), hashed as it is.
            Value::Opaque(h)
                if keylint_core::template::is_brace_free_binding(&h.binding)
                    && (h.binding.contains("@each")
                        || h.binding.ends_with(crate::eval::NUMBER_MARK)) =>
            {
                int_tpl = Tpl::hole(h.clone());
                &int_tpl
            }
            _ => return None,
        };
        for p in &tpl.parts {
            if let crate::tpl::TPart::Hole(h) = p {
                if self.own_caller_value(&h.binding, ctx) {
                    self.given.insert(h.binding.clone());
                }
            }
        }
        let span = e.node.byte_range();
        let template = tpl.to_key_template(&span);
        self.model.keys.push(KeyUse {
            template,
            span: span.clone(),
            command: command.to_string(),
            origin: KeyOrigin::Direct,
            via: None,
        });
        let k = self.model.keys.len() - 1;
        if !e.each.is_empty() {
            self.key_each.insert(k, e.each.clone());
        }
        if let Some(cap) = &mut self.capture {
            cap.insert(k, tpl.clone());
        } else if e.each.is_empty() {
            self.add_options(k, tpl, &span, command);
        }
        Some(k)
    }

    /// Key `k` (template `tpl`) is one of several keys: a key use for each, in no
    /// unit, and the fact that `k` stands for them (see `keyoptions.rs`). Options
    /// with a brace are not made: the brace rules read every key use.
    fn add_options(&mut self, k: usize, tpl: &Tpl, span: &Span, command: &str) {
        let Some(options) = self.choices.options(tpl) else {
            return;
        };
        let braced = |t: &Tpl| {
            t.parts.iter().any(
                |p| matches!(p, TPart::Lit { bytes, .. } if bytes.contains(&b'{') || bytes.contains(&b'}')),
            )
        };
        if options.iter().any(braced) {
            return;
        }
        let mut idx = Vec::with_capacity(options.len());
        for o in options {
            self.model.keys.push(KeyUse {
                template: o.to_key_template(span),
                span: span.clone(),
                command: command.to_string(),
                origin: KeyOrigin::Direct,
                via: None,
            });
            idx.push(self.model.keys.len() - 1);
        }
        self.model
            .key_options
            .push(keylint_core::model::KeyOptions {
                key: k,
                options: idx,
            });
    }

    /// Whether `binding` is the value of a parameter of the function the use is in,
    /// read there: what this call's caller passes in. A parameter of a constructor read
    /// through `self.x` in a method is the object's configuration, not the call's.
    fn own_caller_value(&self, binding: &str, ctx: &Ctx<'t>) -> bool {
        let Some(f) = ctx.func else {
            return false;
        };
        // An element of a list the caller passes in is the caller's value too.
        let binding = binding.strip_suffix(ELEMENT_OF).unwrap_or(binding);
        // An attribute read on it (`lock_request.key` of a parameter `lock_request`)
        // is the caller's value as much.
        if !(self.caller_values.contains(binding) || self.caller_attrs.contains(binding)) {
            return false;
        }
        let Some((at, _)) = binding.strip_prefix('f').and_then(|b| b.split_once(':')) else {
            return false;
        };
        // The function itself, or one it is nested in (a callback reading its
        // enclosing function's parameter).
        let mut cur = Some(f);
        while let Some(g) = cur {
            if at == self.ix.funcs[g].node.start_byte().to_string() {
                return true;
            }
            cur = self.ix.funcs[g].parent;
        }
        false
    }

    /// Whether key `k` stands for many keys (an element of a comprehension, a key
    /// appended in a loop).
    pub(crate) fn has_family(&self, k: usize) -> bool {
        self.key_each.contains_key(&k)
    }

    /// Records that key `k` stands for many keys in `unit`: those it takes over the
    /// passes of the loops or comprehensions `each`.
    fn add_family(&mut self, unit: usize, k: usize, each: &[usize], source: &str) {
        let markers: Vec<String> = each.iter().map(|&i| crate::eval::each_marker(i)).collect();
        let mut varying: Vec<String> = Vec::new();
        for p in &self.model.keys[k].template.parts {
            if let keylint_core::template::Part::Hole(h) = p {
                if markers.iter().any(|m| h.binding.contains(m.as_str()))
                    && !varying.contains(&h.binding)
                {
                    varying.push(h.binding.clone());
                }
            }
        }
        // The unit's families were pushed last: merge with one already there.
        let existing = self
            .model
            .families
            .iter_mut()
            .rev()
            .take_while(|f| f.unit == unit)
            .find(|f| f.key == k);
        match existing {
            Some(f) => {
                for v in varying {
                    if !f.varying.contains(&v) {
                        f.varying.push(v);
                    }
                }
            }
            None => self.model.families.push(KeyFamily {
                unit,
                key: k,
                varying,
                source: source.to_string(),
            }),
        }
    }

    /// What the loops or comprehensions `each` around a key are, for messages.
    fn family_source(&self, each: &[usize]) -> &'static str {
        if let Some(s) = each.iter().find_map(|i| self.scan_sources.get(i)) {
            return s;
        }
        // A comprehension starts with its bracket, a loop with `for`, `async` or `while`.
        match each.first().and_then(|&i| self.ix.src.as_bytes().get(i)) {
            Some(b'[' | b'(' | b'{') => "the elements of a comprehension",
            Some(b'm') => "the results of a `map`",
            _ => "keys added once per pass of a loop",
        }
    }

    /// The keys of a transaction's commands queued in a loop (or comprehension) that
    /// does not also run the `execute()` (`exec`; `None` when the transaction runs when
    /// its function returns): each stands for one key per pass.
    fn loop_families(
        &mut self,
        unit: usize,
        group: &[usize],
        evs: &[PipeEvent<'t>],
        paths: &[Path],
        exec: Option<usize>,
    ) {
        for &i in group {
            let each: Vec<usize> = paths[i]
                .loops
                .iter()
                .copied()
                .filter(|l| exec.is_none_or(|e| !paths[e].loops.contains(l)))
                .collect();
            if each.is_empty() {
                continue;
            }
            for &k in &evs[i].keys {
                let mut all = each.clone();
                if let Some(more) = self.key_each.get(&k) {
                    all.extend(more.iter().copied());
                }
                self.add_family(unit, k, &all, "a command queued once per pass of a loop");
            }
        }
    }

    pub(crate) fn push_unit(
        &mut self,
        kind: UnitKind,
        name: &str,
        span: Span,
        anchor: Span,
        keys: Vec<usize>,
        policy: CrossSlotPolicy,
    ) -> usize {
        let fams: Vec<(usize, Vec<usize>)> = keys
            .iter()
            .filter_map(|k| self.key_each.get(k).map(|e| (*k, e.clone())))
            .collect();
        self.model.units.push(Unit {
            kind,
            name: name.to_string(),
            span,
            anchor,
            keys,
            policy,
        });
        let unit = self.model.units.len() - 1;
        for (k, each) in fams {
            let source = self.family_source(&each);
            self.add_family(unit, k, &each, source);
        }
        unit
    }

    fn client_call(
        &mut self,
        recv: Recv,
        m: &str,
        attr: Node<'t>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) {
        if let Some(pipe) = recv.pipe {
            match m {
                "execute" => return self.event(pipe, EvKind::Execute, call, Vec::new()),
                "reset" | "discard" => return self.event(pipe, EvKind::Reset, call, Vec::new()),
                "multi" => return self.event(pipe, EvKind::Multi, call, Vec::new()),
                "watch" => {
                    let (pos, _) = self.call_args(args, ctx);
                    let mut keys = Vec::new();
                    self.watched_keys(&pos, ctx, &mut keys);
                    return self.event(pipe, EvKind::Keys, call, keys);
                }
                _ => {}
            }
        }
        match m {
            "pipeline" | "register_script" | "transaction" | "lock" | "pubsub" | "unwatch" => {
                if m == "transaction" && recv.pipe.is_none() {
                    self.transaction_watches(call, args, ctx);
                }
                if m == "register_script" && self.inline.is_none() {
                    // Its body is linted even if the script is never called here.
                    self.script_for(call, args, recv.client, ctx);
                }
                return;
            }
            "execute_command" => {
                return self.execute_command(recv, attr, call, args, ctx);
            }
            _ => {}
        }
        // `pipe.json().set(key, path, value)`: a RedisJSON command, whose key is its
        // first argument (`JSON.MGET`/`JSON.MSET` take several and are not read).
        // `pipe.ts().add(key, timestamp, value)`: a RedisTimeSeries command of one
        // key, its first argument ([`ts_single_key`]); the others are not read.
        let module = match recv.pipe.and(self.module_accessor(attr)) {
            Some("json") if matches!(m, "mget" | "mset") => return,
            Some("json") => Some(format!("JSON.{}", m.to_ascii_uppercase())),
            Some("ts") => match ts_single_key(m) {
                Some(cmd) => Some(cmd.to_string()),
                None => return,
            },
            _ => None,
        };
        let on_module = module.is_some();
        let single = module;
        let table = methods::table();
        if let (false, Some(method)) = (on_module, table.method(m)) {
            self.table_call(recv, method, attr, call, args, ctx);
        } else if let Some(cmd) = single.or_else(|| methods::single_key_command(m)) {
            if recv.pipe.is_some()
                && recv.client != ClientKind::Standalone
                && table.blocked_single.iter().any(|b| b == m)
            {
                return;
            }
            let (pos, kw) = self.call_args(args, ctx);
            let first = match pos.first() {
                Some(e) if !e.star => Some(e.clone()),
                _ => kw
                    .iter()
                    .find(|(k, _)| k == "name" || k == "key")
                    .map(|(_, e)| e.clone()),
            };
            let Some(first) = first else { return };
            let Some(k) = self.key_use(&first, &cmd, ctx) else {
                return;
            };
            if self.inline.is_some() {
                if let Some(p) = recv.pipe {
                    self.event(p, EvKind::Keys, call, vec![k]);
                }
                return;
            }
            self.push_unit(
                UnitKind::Command,
                &cmd,
                call.byte_range(),
                attr.byte_range(),
                vec![k],
                CrossSlotPolicy::Refused,
            );
            if let Some(p) = recv.pipe {
                self.event(p, EvKind::Keys, call, vec![k]);
            }
        }
    }

    /// The module command object the method named by `attr` is called on, when it
    /// is RedisJSON's (`<x>.json()`) or RedisTimeSeries' (`<x>.ts()`).
    fn module_accessor(&self, attr: Node<'t>) -> Option<&'static str> {
        let src = self.src();
        let name = self
            .ix
            .nav
            .parent(attr)
            .and_then(|a| a.field(Field::Object))
            .filter(|o| o.kind_name() == "call")
            .and_then(|o| o.field(Field::Function))
            .filter(|f| f.kind_name() == "attribute")
            .and_then(|f| f.field(Field::Attribute))
            .map(|a| text(a, src))?;
        match name {
            "json" => Some("json"),
            "ts" => Some("ts"),
            _ => None,
        }
    }

    /// The watched keys of `r.transaction(func, *watches)`.
    fn transaction_watches(&mut self, call: Node<'t>, args: Option<Node<'t>>, ctx: &Ctx<'t>) {
        let Some(&pid) = self.pipe_by_node.get(&call.id()) else {
            return;
        };
        let (pos, _) = self.call_args(args, ctx);
        let mut keys = Vec::new();
        for e in pos.iter().skip(1).take_while(|e| !e.star) {
            if let Some(k) = self.key_use(e, "WATCH", ctx) {
                keys.push(k);
            }
        }
        if !keys.is_empty() {
            self.event(pid, EvKind::Keys, call, keys);
        }
    }

    /// `DEL` (a command a cluster client splits per slot) sent directly where the
    /// policy refuses it, that is on a standalone client: sent whole, refused by a
    /// cluster node, not by `RedisCluster`, which splits it. The unit's findings say so.
    pub(crate) fn note_sent_whole(
        &mut self,
        unit: usize,
        method: &Method,
        policy: CrossSlotPolicy,
    ) {
        if method.cluster == ClusterBehavior::Split && policy == CrossSlotPolicy::Refused {
            self.model.unit_notes.push(UnitNote {
                unit,
                note: keylint_core::model::sent_whole_note(&method.command),
            });
        }
    }

    /// What a multi-key call does across slots, or `None` when it never sends the
    /// keys together (or nobody can say).
    /// Whether pipeline `pipe` is a transaction, or one whose kind the profile decided
    /// (a batch a standalone client runs as `MULTI`/`EXEC`): commands that join a batch
    /// only inside a transaction (`DEL`) join it.
    fn runs_as_transaction(&self, pipe: PipeId) -> bool {
        self.pipes[pipe].tx == Tx::Yes || self.pipes[pipe].origin == TxOrigin::ProfileDefault
    }

    pub(crate) fn policy(&self, recv: Recv, method: &Method) -> Option<CrossSlotPolicy> {
        let Some(pipe) = recv.pipe else {
            return Some(match (method.cluster, recv.client) {
                (ClusterBehavior::Refuse | ClusterBehavior::Script, _) => CrossSlotPolicy::Refused,
                (ClusterBehavior::Split, ClientKind::Standalone) => CrossSlotPolicy::Refused,
                (ClusterBehavior::Split | ClusterBehavior::NonAtomic, _) => CrossSlotPolicy::Split,
            });
        };
        if method.cluster == ClusterBehavior::NonAtomic {
            // Cluster pipelines block them; the standalone client has none.
            return None;
        }
        match (method.pipeline, recv.client) {
            (_, ClientKind::Standalone) => Some(CrossSlotPolicy::Refused),
            (PipelineBehavior::Ok, _) => Some(CrossSlotPolicy::Refused),
            (PipelineBehavior::Blocked, _) => None,
            // A `pipeline()` whose kind the profile decided joins a batch that a
            // standalone client would run as a transaction.
            (PipelineBehavior::Single, _) => (self.runs_as_transaction(pipe)
                || self.placeholder_pipes.contains(&pipe))
            .then_some(CrossSlotPolicy::Refused),
            (PipelineBehavior::Direct, ClientKind::Cluster) => Some(CrossSlotPolicy::Split),
            (PipelineBehavior::Direct, ClientKind::Unknown) => None,
        }
    }

    /// The key arguments of a table method.
    pub(crate) fn method_keys(
        &self,
        method: &Method,
        pos: &[Elem<'t>],
        kw: &[(String, Elem<'t>)],
    ) -> (Vec<Elem<'t>>, Option<Elem<'t>>) {
        let mut keys = Vec::new();
        let mut body = None;
        let star_before = |i: usize| pos.iter().take(i).any(|e| e.star);
        let arg = |p: &methods::Param| table_arg(pos, kw, p);
        // The elements of a list of keys (or of the trailing `*args`, all keys): a
        // `*x` that is a family stands for many keys; any other `*x` is left out, and
        // the elements after it are keys all the same (a unit judged over fewer keys
        // than it sends says nothing false).
        let known = |items: &[Elem<'t>]| -> Vec<Elem<'t>> {
            items
                .iter()
                .filter(|i| !i.star || !i.each.is_empty())
                .cloned()
                .collect()
        };
        let mut numkeys: Option<usize> = None;
        let mut family_count = false;
        // Lists of keys whose elements the code does not show.
        let mut unseen: Vec<Elem<'t>> = Vec::new();
        for p in &method.params {
            match p.kind {
                ParamKind::Key => {
                    if let Some(e) = arg(p) {
                        keys.push(e);
                    }
                }
                ParamKind::Keys | ParamKind::KeysMap => {
                    let Some(e) = arg(p) else {
                        // `mget(*[k for …])`: the family fills this parameter and more.
                        if let Some(e) = pos
                            .get(p.index)
                            .filter(|e| e.star && !e.each.is_empty() && !star_before(p.index))
                        {
                            keys.push(e.clone());
                        }
                        // `sunionstore(tmp, *keys)` of a list the code does not show.
                        if let Some(e) = pos.get(p.index).filter(|e| {
                            e.star
                                && e.each.is_empty()
                                && !star_before(p.index)
                                && matches!(e.value, Value::Opaque(_))
                        }) {
                            unseen.push(e.clone());
                        }
                        continue;
                    };
                    match &e.value {
                        Value::Seq { items, .. } => keys.extend(known(items)),
                        Value::Dict(ks, _) if p.kind == ParamKind::KeysMap => {
                            keys.extend(known(ks));
                        }
                        // A single key is allowed where redis-py accepts one.
                        Value::Str(_) | Value::Int(_) if p.kind == ParamKind::Keys => keys.push(e),
                        Value::Opaque(_) => unseen.push(e),
                        _ => {}
                    }
                }
                ParamKind::Map => {
                    if let Some(Elem {
                        value: Value::Dict(ks, _),
                        ..
                    }) = arg(p)
                    {
                        keys.extend(known(&ks));
                    }
                }
                ParamKind::VarKeys => {
                    // After a `*x`, the places are unknown; but when every parameter
                    // before `*args` is a key too (`sinter(keys, *args)`), every
                    // positional argument is a key, wherever it lands.
                    let all_keys = method
                        .params
                        .iter()
                        .filter(|q| q.index < p.index)
                        .all(|q| matches!(q.kind, ParamKind::Key | ParamKind::Keys));
                    if !star_before(p.index) || all_keys {
                        let rest = &pos[p.index.min(pos.len())..];
                        keys.extend(known(rest));
                        unseen.extend(
                            rest.iter()
                                .filter(|e| {
                                    e.star
                                        && e.each.is_empty()
                                        && matches!(e.value, Value::Opaque(_))
                                })
                                .cloned(),
                        );
                    }
                }
                ParamKind::NumKeys => {
                    numkeys = match arg(p).map(|e| e.value) {
                        Some(Value::Int(n)) if n >= 0 => Some(n as usize),
                        _ => None,
                    };
                    // `len(keys), *keys` of a family: the family is the keys.
                    family_count = numkeys.is_none()
                        && arg(p).is_some_and(|e| crate::eval::counts_splat(e.node, self.src()));
                }
                ParamKind::NumKeyed => {
                    if family_count {
                        if let Some(e) = pos
                            .get(p.index)
                            .filter(|e| e.star && !e.each.is_empty() && !star_before(p.index))
                        {
                            keys.push(e.clone());
                        }
                    } else if let Some(n) = numkeys {
                        if !star_before(p.index) {
                            keys.extend(
                                pos.iter()
                                    .skip(p.index)
                                    .take(n)
                                    .take_while(|e| !e.star)
                                    .cloned(),
                            );
                        }
                    }
                }
                ParamKind::Body => body = arg(p),
                // Judged on their own (`sortpat.rs`).
                ParamKind::Pattern | ParamKind::Patterns => {}
            }
        }
        // Beside a fresh key (`"tmp:%s" % uuid4()`, in a slot of its own), a list the
        // code does not show (`zunionstore(tmp, keys)`) holds at least one key that is
        // almost surely in another slot: one element of it stands for them.
        if !unseen.is_empty() && keys.iter().any(|k| is_fresh_key(&k.value)) {
            for e in unseen {
                if let Value::Opaque(h) = &e.value {
                    let label = format!("an element of {}", h.label);
                    keys.push(Elem {
                        value: Value::Opaque(crate::tpl::HoleInfo {
                            label,
                            binding: format!("{}{ELEMENT_OF}", h.binding),
                            span: Some(e.node.byte_range()),
                            keylike: true,
                        }),
                        node: e.node,
                        star: false,
                        each: Vec::new(),
                    });
                }
            }
        }
        (keys, body)
    }

    fn table_call(
        &mut self,
        recv: Recv,
        method: &Method,
        attr: Node<'t>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) {
        let (pos, kw) = self.call_args(args, ctx);
        // A command that a cluster pipeline refuses (`SMOVE`, `RENAME`, `EVALSHA`),
        // queued on a pipeline of a client that may be a cluster: it joins no batch,
        // but its own keys go to one node together wherever it is sent, and a
        // cluster refuses them across slots.
        let own_only = recv.pipe.is_some()
            && recv.client != ClientKind::Standalone
            && method.pipeline == PipelineBehavior::Blocked
            && matches!(
                method.cluster,
                ClusterBehavior::Refuse | ClusterBehavior::Script
            );
        let own_note = recv
            .pipe
            .filter(|_| own_only)
            .map(|p| blocked_pipe_note(&method.command, &self.pipes[p]));
        let recv = if own_only {
            Recv { pipe: None, ..recv }
        } else {
            recv
        };
        let Some(policy) = self.policy(recv, method) else {
            return;
        };
        let (key_args, body) = self.method_keys(method, &pos, &kw);
        let aligned: Vec<Option<usize>> = key_args
            .iter()
            .map(|e| self.key_use(e, &method.command, ctx))
            .collect();
        let keys: Vec<usize> = aligned.iter().flatten().copied().collect();
        // Kept on a caller's pipeline only if the caller's is a transaction.
        if let Some(p) = recv.pipe {
            if method.pipeline == PipelineBehavior::Single
                && recv.client != ClientKind::Standalone
                && self.placeholder_pipes.contains(&p)
            {
                self.tx_only_keys.extend(keys.iter().copied());
            }
        }
        // A cluster pipeline runs `touch` at once: it is not part of a transaction.
        let joins_tx =
            !(method.pipeline == PipelineBehavior::Direct && recv.client == ClientKind::Cluster);
        if self.inline.is_some() {
            // The command itself is judged where the helper is lowered on its own.
            if let (Some(p), true) = (recv.pipe, joins_tx) {
                self.event(p, EvKind::Keys, call, keys);
            }
            return;
        }
        let is_script = method.cluster == ClusterBehavior::Script;
        let name = if is_script {
            script_unit_name(&method.command, pos.first())
        } else {
            method.command.clone()
        };
        let unit = self.push_unit(
            if is_script {
                UnitKind::Script
            } else {
                UnitKind::Command
            },
            &name,
            call.byte_range(),
            attr.byte_range(),
            keys.clone(),
            policy,
        );
        if let Some(note) = own_note {
            self.model.unit_notes.push(UnitNote { unit, note });
        }
        self.sort_patterns(method, call, &pos, &kw);
        if recv.pipe.is_none() {
            self.note_sent_whole(unit, method, policy);
        }
        if !is_script && recv.pipe.is_none() && !own_only {
            self.wrapper_call_sites(method, call, &pos, &kw, policy, ctx);
        }
        if is_script && recv.pipe.is_none() && !own_only {
            self.eval_wrapper_sites(method, call, &pos, ctx);
        }
        if is_script {
            let nk = method.params.iter().find(|p| p.kind == ParamKind::NumKeys);
            let positional_numkeys = nk.is_some_and(|p| {
                p.index < pos.len() && !pos.iter().take(p.index + 1).any(|e| e.star)
            });
            let numkeys = nk.and_then(|p| {
                if positional_numkeys {
                    pos.get(p.index)
                } else {
                    kw.iter().find(|(k, _)| k == &p.name).map(|(_, e)| e)
                }
            });
            let args_after = match nk {
                Some(p) if positional_numkeys && !pos.iter().any(|e| e.star) => {
                    Some(pos.len() - p.index - 1)
                }
                _ => None,
            };
            self.link(
                unit,
                body.map(|b| b.node),
                ctx.func,
                &key_args,
                aligned,
                numkeys,
                args_after,
                call,
                None,
            );
        }
        if let (Some(p), true) = (recv.pipe, joins_tx) {
            self.event(p, EvKind::Keys, call, keys);
        }
    }

    fn execute_command(
        &mut self,
        recv: Recv,
        attr: Node<'t>,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) {
        let (pos, _) = self.call_args(args, ctx);
        let Some(CommandArgv {
            argv,
            arg_of,
            name_words,
        }) = CommandArgv::of(&pos)
        else {
            return;
        };
        let refs: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
        let Ok(ex) = keylint_commands::extract_keys(&refs) else {
            return;
        };
        let Some(cmd) = keylint_commands::lookup_argv(&refs) else {
            return;
        };
        if keylint_commands::is_transaction_control(&argv[0]).is_some() {
            return;
        }
        let cmd_name = cmd.name.to_string();
        let is_script = matches!(
            cmd_name.as_str(),
            "EVAL" | "EVALSHA" | "EVAL_RO" | "EVALSHA_RO" | "FCALL" | "FCALL_RO"
        );
        if is_script && recv.pipe.is_some() && recv.client != ClientKind::Standalone {
            return;
        }
        let mut aligned = Vec::new();
        let mut key_args = Vec::new();
        for k in &ex.keys {
            let Some(Some(i)) = arg_of.get(k.index) else {
                continue;
            };
            let e = pos[*i].clone();
            aligned.push(self.key_use(&e, &cmd_name, ctx));
            key_args.push(e);
        }
        let keys: Vec<usize> = aligned.iter().flatten().copied().collect();
        if self.inline.is_some() {
            if let Some(p) = recv.pipe {
                self.event(p, EvKind::Keys, call, keys);
            }
            return;
        }
        let name = if is_script {
            script_unit_name(&cmd_name, pos.get(1))
        } else {
            cmd_name.clone()
        };
        let unit = self.push_unit(
            if is_script {
                UnitKind::Script
            } else {
                UnitKind::Command
            },
            &name,
            call.byte_range(),
            attr.byte_range(),
            keys.clone(),
            CrossSlotPolicy::Refused,
        );
        if is_script {
            let body = (cmd_name.starts_with("EVAL") && !cmd_name.starts_with("EVALSHA"))
                .then(|| pos.get(1).map(|e| e.node))
                .flatten();
            let numkeys = pos.get(2).cloned();
            // Counted only when the command is one word and nothing is splatted.
            let args_after = pos
                .len()
                .checked_sub(3)
                .filter(|_| name_words == 1 && !pos.iter().any(|e| e.star));
            self.link(
                unit,
                body,
                ctx.func,
                &key_args,
                aligned,
                numkeys.as_ref(),
                args_after,
                call,
                None,
            );
        }
        if let Some(p) = recv.pipe {
            self.event(p, EvKind::Keys, call, keys);
        }
    }

    /// `script(keys=[…], args=[…], client=…)` on a registered script.
    fn script_object_call(
        &mut self,
        id: ScriptId,
        call: Node<'t>,
        func: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) {
        let (pos, kw) = self.call_args(args, ctx);
        // redis-py's `Script.__call__(keys, args, client)`, or a wrapper's own.
        let (keys_at, client_at) = match &self.scripts[id].wrapper {
            Some(w) => (w.keys.clone(), w.client.clone()),
            None => ((0, "keys".to_string()), (2, "client".to_string())),
        };
        let keys_arg = script_arg(&pos, &kw, &keys_at);
        let client_arg = script_arg(&pos, &kw, &client_at);
        let Some(mut recv) = self.script_receiver(id, client_arg.as_ref()) else {
            return;
        };
        let mut blocked = None;
        // Cluster pipelines block EVALSHA, which a registered script sends: on a
        // client that may be a cluster the call joins no batch, but its own keys
        // still go to one node together, wherever the script is run.
        if recv.pipe.is_some() && recv.client != ClientKind::Standalone {
            if self.inline.is_some() {
                return;
            }
            if let Some(p) = recv.pipe.take() {
                blocked = Some(blocked_pipe_note("EVALSHA", &self.pipes[p]));
            }
        }
        if self.inline.is_some() && !recv.pipe.is_some_and(|p| self.followed(p)) {
            return;
        }
        let (key_args, given) = passed_script_keys(keys_arg.as_ref());
        let aligned: Vec<Option<usize>> = key_args
            .iter()
            .map(|e| self.key_use(e, "EVALSHA", ctx))
            .collect();
        let keys: Vec<usize> = aligned.iter().flatten().copied().collect();
        // `keys=[f"job:{i}" for i in ids]`: the family's keys are the unit's, and none
        // of them is any one `KEYS[i]` of the body.
        let family = family_script_keys(keys_arg.as_ref());
        let fam_keys: Vec<usize> = family
            .iter()
            .filter_map(|e| self.key_use(e, "EVALSHA", ctx))
            .collect();
        let keys: Vec<usize> = keys.into_iter().chain(fam_keys).collect();
        if self.inline.is_some() {
            if let Some(p) = recv.pipe {
                self.event(p, EvKind::Keys, call, keys);
            }
            return;
        }
        let unit = self.push_unit(
            UnitKind::Script,
            "script",
            call.byte_range(),
            func.byte_range(),
            keys.clone(),
            CrossSlotPolicy::Refused,
        );
        if let Some(note) = blocked {
            self.model.unit_notes.push(UnitNote { unit, note });
        }
        let passed = given.map(|n| {
            let at = keys_arg
                .as_ref()
                .map_or(call.byte_range(), |e| e.node.byte_range());
            (n, at)
        });
        let (body, func) = (self.scripts[id].body, self.scripts[id].func);
        self.link(
            unit, body, func, &key_args, aligned, None, None, call, passed,
        );
        let argv_keys = match &self.scripts[id].wrapper {
            None => same_values(
                &key_args,
                script_arg(&pos, &kw, &(1, "args".to_string())),
                self.src(),
            ),
            Some(_) => Vec::new(),
        };
        if let Some(l) = self.script_links.last_mut() {
            l.ext = self.scripts[id].ext.clone();
            l.argv_keys = argv_keys;
        }
        match recv.pipe {
            Some(p) => self.event(p, EvKind::Keys, call, keys),
            // Keys that are the parameters of the function around the call: judged
            // again at each call site of the function in this file.
            None => self.script_wrapper_sites(
                id,
                call,
                (keys_arg.as_ref(), &key_args),
                client_arg.as_ref(),
                ctx,
            ),
        }
    }

    /// The client or pipeline a registered script's call runs on: the script's own
    /// client unless the call passes one. `None` when a wrapper's call passes no
    /// client it can use (the wrapper needs one: such a call is not understood).
    fn script_receiver(&mut self, id: ScriptId, client_arg: Option<&Elem<'t>>) -> Option<Recv> {
        if self.scripts[id].wrapper.is_some()
            && client_arg.is_none_or(|c| {
                matches!(
                    c.value,
                    Value::Seq { .. }
                        | Value::Str(_)
                        | Value::Dict(..)
                        | Value::Int(_)
                        | Value::Bool(_)
                        | Value::Null
                )
            })
        {
            return None;
        }
        let mut recv = Recv {
            client: self.effective(self.scripts[id].client),
            pipe: None,
        };
        if let Some(c) = client_arg {
            match self.as_receiver(c.value.clone(), c.node) {
                Value::Client(k) => recv.client = self.effective(k),
                Value::Pipe(p) => {
                    recv = Recv {
                        client: self.pipes[p].client,
                        pipe: Some(p),
                    }
                }
                Value::Null => {}
                _ => recv.client = ClientKind::Unknown,
            }
        }
        Some(recv)
    }

    /// Records a script call to link with its body once every call is seen.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn link(
        &mut self,
        unit: usize,
        body: Option<Node<'t>>,
        func: Option<FuncId>,
        key_args: &[Elem<'t>],
        keys: Vec<Option<usize>>,
        numkeys: Option<&Elem<'t>>,
        args_after: Option<usize>,
        call: Node<'t>,
        passed: Option<(usize, Span)>,
    ) {
        let mut passed = passed;
        let mut fact = None;
        // A literal integer numkeys, checked as the server reads it when every argument
        // after it is a positional one of the call (redis-py sends them unchecked).
        let literal = numkeys.and_then(|e| match &e.value {
            Value::Int(n) => Some((*n, e.node)),
            _ => negative_literal(e.node, self.src()).map(|n| (n, e.node)),
        });
        if let Some((n, node)) = literal {
            let at = node.byte_range();
            match (usize::try_from(n), args_after) {
                (Err(_), Some(_)) => {
                    fact = Some((
                        Numkeys::Refused {
                            why: BadNumkeys::Negative,
                            shown: text(node, self.src()).to_string(),
                        },
                        at,
                    ));
                }
                (Ok(n), Some(after)) => {
                    if n <= after {
                        passed = Some((n, at.clone()));
                    }
                    fact = Some((Numkeys::Count { n, after }, at));
                }
                _ => {}
            }
        }
        self.script_links.push(crate::script::Link {
            unit,
            body,
            func,
            keys,
            key_nodes: key_args.iter().map(|e| e.node).collect(),
            passed,
            numkeys: fact,
            call,
            ext: None,
            argv_keys: Vec::new(),
        });
    }

    /// A script registered with `client.register_script(body)`.
    pub(crate) fn script_for(
        &mut self,
        call: Node<'t>,
        args: Option<Node<'t>>,
        client: ClientKind,
        ctx: &Ctx<'t>,
    ) -> ScriptId {
        let body = arg_nodes(self.ix.nav, args)
            .first()
            .copied()
            .or_else(|| crate::eval::keyword_value(self.ix.nav, args, "script", self.src()));
        self.script_at(call, body, client, ctx)
    }

    /// The script made at `call` with the body written at `body`.
    pub(crate) fn script_at(
        &mut self,
        call: Node<'t>,
        body: Option<Node<'t>>,
        client: ClientKind,
        ctx: &Ctx<'t>,
    ) -> ScriptId {
        if let Some(&id) = self.script_by_node.get(&call.id()) {
            return id;
        }
        let id = self.scripts.len();
        self.scripts.push(ScriptInfo {
            body,
            func: ctx.func,
            client,
            ext: None,
            wrapper: None,
            preamble: None,
        });
        self.script_by_node.insert(call.id(), id);
        id
    }

    /// A script that a factory of another module registers, at the call `call` of
    /// that factory: its body is known by its text only.
    pub(crate) fn ext_script(
        &mut self,
        call: Node<'t>,
        text: std::sync::Arc<str>,
        client: ClientKind,
    ) -> ScriptId {
        if let Some(&id) = self.script_by_node.get(&call.id()) {
            return id;
        }
        let id = self.scripts.len();
        self.scripts.push(ScriptInfo {
            body: None,
            func: None,
            client,
            ext: Some(text),
            wrapper: None,
            preamble: None,
        });
        self.script_by_node.insert(call.id(), id);
        id
    }

    /// A script registered at `call` from a body not known here (see
    /// [`crate::project::Fact::OpaqueScript`]).
    pub(crate) fn opaque_script(&mut self, call: Node<'t>, client: ClientKind) -> ScriptId {
        if let Some(&id) = self.script_by_node.get(&call.id()) {
            return id;
        }
        let id = self.new_registry(client);
        self.script_by_node.insert(call.id(), id);
        id
    }

    /// Reads a file through the loader.
    pub(crate) fn load_file(&self, p: &crate::eval::PathValue) -> Option<String> {
        let loader = self.loader?;
        loader.load(&p.parts.join("/"), p.from_module_dir)
    }

    fn build_transactions(&mut self) {
        let mut by_pipe: HashMap<PipeId, Vec<PipeEvent<'t>>> = HashMap::new();
        for e in std::mem::take(&mut self.events) {
            by_pipe.entry(e.pipe).or_default().push(e);
        }
        let mut pipes: Vec<PipeId> = by_pipe.keys().copied().collect();
        pipes.sort_unstable();
        let mut memo = PathMemo::default();
        for pid in pipes {
            let mut evs = by_pipe.remove(&pid).unwrap_or_default();
            evs.sort_by_key(|e| (e.node.end_byte(), e.node.start_byte()));
            let info = self.pipes[pid].clone();
            let Some(plan) = TxPlan::of(&info, &evs) else {
                continue;
            };
            // A transaction followed from a call that gives none of its keys.
            if let Some(via) = &info.via {
                let keys: Vec<usize> = evs.iter().flat_map(|e| e.keys.iter().copied()).collect();
                if !self.via_contributes(via, &keys) {
                    continue;
                }
            }
            let paths = self.event_paths(&evs, &mut memo);
            let batch = Batch {
                info: &info,
                evs: &evs,
                paths: &paths,
            };
            if info.held.is_some() {
                self.held_units(&batch, plan);
            }
            let executed_in_block = info.at_block_end
                && evs
                    .iter()
                    .any(|e| matches!(e.kind, EvKind::Execute | EvKind::Reset));
            if let Some(call) = info.transaction_call.clone().filter(|_| !executed_in_block) {
                self.transaction_call_units(&batch, call, plan);
            } else {
                self.execute_units(&batch, plan);
            }
        }
    }

    /// The path of each event, with the levels of the calls it sits in.
    fn event_paths(&self, evs: &[PipeEvent<'t>], memo: &mut PathMemo<'t>) -> Vec<Path> {
        evs.iter()
            .map(|e| {
                let mut p = Path::of(self.ix.nav, e.node, memo);
                for &n in &e.inner {
                    let q = Path::of(self.ix.nav, n, memo);
                    p.loops.extend(q.loops.iter().copied());
                    p.inner.push(Level {
                        id: n.id(),
                        arms: q.arms,
                        exits: q.exits,
                        pos: q.pos,
                    });
                }
                p.inner.extend(e.ext.iter().cloned());
                p
            })
            .collect()
    }

    /// The units of a pipeline kept on an attribute (`heldpipe.rs`): in each method
    /// that only queues on it, the commands it queues are one batch.
    fn held_units(&mut self, b: &Batch<'_, 't>, plan: TxPlan) {
        let (evs, paths) = (b.evs, b.paths);
        let (Some((c, attr)), Some(created)) = (b.info.held.clone(), b.info.created.clone()) else {
            return;
        };
        let mut execs: Vec<FuncId> = Vec::new();
        let mut by_func: Vec<(FuncId, Vec<usize>)> = Vec::new();
        for (i, e) in evs.iter().enumerate() {
            let Some(f) = self.ix.enclosing_func(e.node) else {
                continue;
            };
            match e.kind {
                EvKind::Execute | EvKind::Reset => execs.push(f),
                _ if !e.inner.is_empty() || !e.ext.is_empty() => execs.push(f),
                EvKind::Keys => match by_func.iter_mut().find(|(g, _)| *g == f) {
                    Some((_, v)) => v.push(i),
                    None => by_func.push((f, vec![i])),
                },
                EvKind::Multi => {}
            }
        }
        if by_func.is_empty() {
            return;
        }
        let held = self.held_reads(c, &attr, &execs);
        for (f, qs) in by_func {
            let calls: Vec<Node<'t>> = qs.iter().map(|&i| evs[i].node).collect();
            if !self.held_batch(f, &held, created.start, &calls) {
                continue;
            }
            for g in groups(&qs, paths) {
                let keys: Vec<usize> = g.iter().flat_map(|&i| evs[i].keys.clone()).collect();
                let in_loop = g.iter().any(|&i| !paths[i].loops.is_empty());
                if !(keys.len() >= 2 || (in_loop && !keys.is_empty())) {
                    continue;
                }
                let first = g
                    .iter()
                    .map(|&i| evs[i].node)
                    .min_by_key(|n| n.start_byte());
                let last = g.iter().map(|&i| evs[i].node.end_byte()).max();
                let (Some(first), Some(last)) = (first, last) else {
                    continue;
                };
                let unit =
                    self.push_tx_unit(first.start_byte()..last, first.byte_range(), keys, plan);
                let maker = self.ix.enclosing_func_at(created.start);
                let made = maker.map_or("another method".to_string(), |m| {
                    format!("`{}`", self.ix.funcs[m].name)
                });
                let note = if execs.contains(&f) {
                    format!(
                        "these commands are queued on `self.{attr}`, a `pipeline()` made in \
                         {made} and kept on the object, which this method executes after \
                         them: whatever was queued before, they are in one batch"
                    )
                } else {
                    format!(
                        "these commands are queued on `self.{attr}`, a `pipeline()` made in \
                         {made} and executed by another method: whatever runs before and \
                         after, the commands this method queues are in one batch"
                    )
                };
                self.model.unit_notes.push(UnitNote { unit, note });
                self.loop_families(unit, &g, evs, paths, None);
            }
        }
    }

    /// A transaction unit of a pipeline over `keys`, with the note its plan carries.
    fn push_tx_unit(&mut self, span: Span, anchor: Span, keys: Vec<usize>, plan: TxPlan) -> usize {
        let unit = self.push_unit(
            UnitKind::Transaction,
            plan.name,
            span,
            anchor,
            keys,
            plan.policy,
        );
        if let Some(note) = plan.note {
            self.model.unit_notes.push(UnitNote {
                unit,
                note: note.to_string(),
            });
        }
        unit
    }

    /// The units of a pipeline created by `r.transaction(func, …)`, which executes
    /// when the function returns: every queued key counts.
    fn transaction_call_units(&mut self, b: &Batch<'_, 't>, call: Span, plan: TxPlan) {
        let (evs, paths) = (b.evs, b.paths);
        let qs: Vec<usize> = (0..evs.len())
            .filter(|&i| evs[i].kind == EvKind::Keys)
            .collect();
        let anchor = b.info.anchor.clone().unwrap_or(call.clone());
        for g in groups(&qs, paths) {
            let keys: Vec<usize> = g.iter().flat_map(|&i| evs[i].keys.clone()).collect();
            let in_loop = g.iter().any(|&i| !paths[i].loops.is_empty());
            if keys.len() >= 2 || (in_loop && !keys.is_empty()) {
                let unit = self.push_tx_unit(call.clone(), anchor.clone(), keys, plan);
                self.via_notes(unit, b.info);
                self.loop_families(unit, &g, evs, paths, None);
            }
        }
    }

    /// The units of each `execute()`: the commands queued before it on a compatible
    /// path, with no `execute()` or `reset()` between them.
    fn execute_units(&mut self, b: &Batch<'_, 't>, plan: TxPlan) {
        let (evs, paths) = (b.evs, b.paths);
        // The events that end a batch, in order.
        let cuts: Vec<usize> = (0..evs.len())
            .filter(|&i| matches!(evs[i].kind, EvKind::Execute | EvKind::Reset))
            .collect();
        for (ei, e) in evs.iter().enumerate() {
            if e.kind != EvKind::Execute {
                continue;
            }
            let qs = self.queued_before(b, &cuts, ei);
            for g in groups(&qs, paths) {
                let keys: Vec<usize> = g.iter().flat_map(|&i| evs[i].keys.clone()).collect();
                let in_loop = g
                    .iter()
                    .any(|&i| paths[i].loops.iter().any(|l| !paths[ei].loops.contains(l)));
                let many = keys.len() >= 2 || (in_loop && !keys.is_empty());
                if !many {
                    continue;
                }
                let first = g
                    .iter()
                    .map(|&i| evs[i].node.start_byte())
                    .min()
                    .unwrap_or(0);
                let start = match &b.info.created {
                    Some(c) if c.start <= first => c.start,
                    _ => first,
                };
                let anchor = match (&b.info.created, &b.info.anchor, &b.info.via) {
                    (_, _, Some(v)) => v.anchor.clone(),
                    (Some(c), Some(a), _) if c.start <= first => a.clone(),
                    _ => evs[g[0]].node.byte_range(),
                };
                let unit = self.push_tx_unit(start..e.node.end_byte(), anchor, keys, plan);
                self.via_notes(unit, b.info);
                if self.handed_out.contains(&e.node.id()) {
                    let f = self
                        .func_of_call(e.node)
                        .map(|f| self.ix.funcs[f].name.clone());
                    let note = format!(
                        "`{}` returns this pipeline un-executed to the call it is passed to, \
                         which is taken to execute it: the commands queued before the \
                         `return` are one batch",
                        f.unwrap_or_default()
                    );
                    self.model.unit_notes.push(UnitNote { unit, note });
                }
                self.loop_families(unit, &g, evs, paths, Some(ei));
            }
        }
    }

    /// The key commands that the `execute()` at `ei` sends: queued before it on a
    /// compatible path, in the same function, with no batch end (`cuts`) between.
    fn queued_before(&self, b: &Batch<'_, 't>, cuts: &[usize], ei: usize) -> Vec<usize> {
        let (evs, paths) = (b.evs, b.paths);
        let mut qs = Vec::new();
        let scope = self.func_of_call(evs[ei].node);
        for (qi, q) in evs.iter().enumerate().take(ei) {
            if q.kind != EvKind::Keys || !paths[qi].compatible(&paths[ei]) {
                continue;
            }
            // A command queued in a nested function runs whenever that
            // function is called, if ever: not known to precede this execute.
            if self.func_of_call(q.node) != scope {
                continue;
            }
            let from = cuts.partition_point(|&ri| ri <= qi);
            let cut = cuts[from..].iter().take_while(|&&ri| ri < ei).any(|&ri| {
                paths[ri].compatible(&paths[qi])
                    && paths[ri].compatible(&paths[ei])
                    && self.cut_runs(&evs[ri], &paths[qi], &paths[ei])
            });
            if !cut {
                qs.push(qi);
            }
        }
        qs
    }
}

impl<'t> Analyzer<'t> {
    /// Whether a batch end (`execute()`, `reset()`) between a queued command and a
    /// later `execute()` runs whenever both do. One in an arm of an `if` that holds
    /// neither (`if n % 100 == 0: pipe.execute()`, `if not retry: pipe.execute()`)
    /// may not run: on that path the command is sent by the later `execute()`. Any
    /// other end (in a loop, a `try`, a followed helper) is taken to run.
    fn cut_runs(&self, cut: &PipeEvent<'t>, q: &Path, e: &Path) -> bool {
        if !cut.inner.is_empty() || !cut.ext.is_empty() {
            return true;
        }
        let nav = self.ix.nav;
        let holds = |p: &Path, id: usize| p.arms.iter().any(|(a, _)| *a == id);
        let mut child = cut.node;
        let mut cur = nav.parent(cut.node);
        while let Some(p) = cur {
            if p.is_scope_kind() {
                break;
            }
            if p.kind_name() == "if_statement" && !holds(q, p.id()) && !holds(e, p.id()) {
                if let Some(arm) = arm_of(nav, p, child) {
                    // `if pipeline is None: pipe.execute()` in a function lowered on
                    // its own runs where its `pipeline=None` parameter is not given:
                    // the arm runs (a caller's pipeline is followed from its call).
                    let runs = match self.none_param_test(p) {
                        Some(true) => arm == 0,
                        Some(false) => {
                            arm == 1
                                && nav
                                    .named_children(p)
                                    .filter(|c| c.kind_name() == "elif_clause")
                                    .count()
                                    == 0
                        }
                        None => false,
                    };
                    if !runs {
                        return false;
                    }
                }
            }
            child = p;
            cur = nav.parent(p);
        }
        true
    }
}

impl<'t> Analyzer<'t> {
    /// The truth of an `if`'s condition that only tests a parameter of its function
    /// defaulting to `None` (`pipeline is None`, `not pipe`, `pipeline is not None`,
    /// `pipe`), where that parameter is not given.
    fn none_param_test(&self, stmt: Node<'t>) -> Option<bool> {
        let cond = stmt.field(Field::Condition)?;
        let f = self.ix.enclosing_func(stmt)?;
        let src = self.src();
        let is_none_param = |n: Node<'t>| -> bool {
            n.kind_name() == "identifier"
                && self.ix.funcs[f]
                    .params
                    .iter()
                    .any(|p| p.name == text(n, src) && p.none_unless_given(src))
                && self.ix.funcs[f]
                    .defs
                    .get(text(n, src))
                    .is_none_or(|d| d.len() <= 1)
        };
        match cond.kind_name() {
            "identifier" if is_none_param(cond) => Some(false),
            "not_operator" => {
                let a = cond.named_child(0)?;
                is_none_param(a).then_some(true)
            }
            "comparison_operator" => {
                let a = cond.named_child(0)?;
                let b = cond.named_child(1)?;
                if b.kind_name() != "none" || !is_none_param(a) {
                    return None;
                }
                let op: String = src[a.end_byte()..b.start_byte()]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                match op.as_str() {
                    "is" | "==" => Some(true),
                    "is not" | "!=" => Some(false),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The events of one pipeline, in order, with their paths.
struct Batch<'a, 't> {
    info: &'a PipeInfo,
    evs: &'a [PipeEvent<'t>],
    paths: &'a [Path],
}

/// How the batches of a transaction (or of a pipeline that may be one) are judged.
#[derive(Clone, Copy)]
struct TxPlan {
    policy: CrossSlotPolicy,
    note: Option<&'static str>,
    /// What made the pipeline, as messages name it.
    name: &'static str,
}

impl TxPlan {
    /// The plan for a pipeline, or `None` when it is neither a transaction nor a
    /// pipeline whose atomicity the code may rely on.
    fn of(info: &PipeInfo, evs: &[PipeEvent<'_>]) -> Option<TxPlan> {
        let has_multi = evs.iter().any(|e| e.kind == EvKind::Multi);
        // `multi()` on a `pipeline()` whose kind the profile decided (also one
        // written `transaction=False`): the code relies on a transaction, which only
        // a standalone `Redis` gives it (`RedisCluster`'s pipeline refuses `watch()`
        // and `multi()` unless it is made with `transaction=True`).
        let profile_multi = has_multi
            && info.tx == Tx::No
            && (info.origin == TxOrigin::ProfileDefault
                || (info.origin == TxOrigin::Written && info.kind_by_profile));
        let tx = match info.tx {
            Tx::Yes => true,
            Tx::No => has_multi && (info.client != ClientKind::Cluster || profile_multi),
            Tx::Unknown => has_multi,
        };
        // `pipeline()` on a client whose kind the code does not show, taken to be a
        // `RedisCluster` by the profile: not a transaction there, but `MULTI`/`EXEC`
        // on a standalone `Redis`, which the code may rely on.
        let not_atomic =
            !tx && !has_multi && info.tx == Tx::No && info.origin == TxOrigin::ProfileDefault;
        if !tx && !not_atomic {
            return None;
        }
        let policy = if not_atomic {
            CrossSlotPolicy::NotAtomic
        } else {
            CrossSlotPolicy::Refused
        };
        let note = match (not_atomic, info.origin, info.client) {
            (true, _, _) => Some(
                "the kind of this client is not written here and is taken to be \
                 `RedisCluster` (`client = \"cluster\"`): its `pipeline()` is not a \
                 transaction, so these commands are sent per node and run with no \
                 atomicity, silently; on a standalone `Redis` the same `pipeline()` is \
                 `MULTI`/`EXEC`, which this code may rely on",
            ),
            (false, _, _) if profile_multi => Some(
                "the kind of this client is not written here and is taken to be \
                 `RedisCluster` (`client = \"cluster\"`); this code calls `multi()`, so \
                 it relies on a transaction, which a standalone `Redis` runs as \
                 `MULTI`/`EXEC`; on a cluster, `RedisCluster.pipeline()` refuses \
                 `watch()` and `multi()` (`RedisClusterException`), and with \
                 `transaction=True` it refuses this transaction \
                 (`CrossSlotTransactionError`)",
            ),
            (false, TxOrigin::MultiExec, _) => Some(
                "aioredis 1.x's `multi_exec()` sends these commands as one \
                 `MULTI`/`EXEC` transaction",
            ),
            (false, TxOrigin::Written, _) => Some(
                "with `transaction=True`, redis-py's `RedisCluster` refuses this \
                 transaction before sending it (`CrossSlotTransactionError`)",
            ),
            (false, TxOrigin::ClientDefault | TxOrigin::ProfileDefault, _)
                if info.tx == Tx::Yes =>
            {
                Some(
                    "this `pipeline()` is `MULTI`/`EXEC` because the client is a \
                     standalone `Redis` (its default), and the code may rely on that; \
                     on a cluster, `RedisCluster.pipeline()` is not a transaction: \
                     these commands would run per node, silently not atomic (and with \
                     `transaction=True` it refuses them: `CrossSlotTransactionError`)",
                )
            }
            _ => None,
        };
        let name = match info.origin {
            TxOrigin::MultiExec => "multi_exec",
            _ => "pipeline",
        };
        Some(TxPlan { policy, note, name })
    }
}

/// A call of a builtin that only looks at its arguments (`isinstance(pipe, …)`).
fn is_inert_builtin(call: Node<'_>, src: &str) -> bool {
    call.field(Field::Function).is_some_and(|f| {
        f.kind_name() == "identifier"
            && matches!(
                text(f, src),
                "isinstance"
                    | "id"
                    | "type"
                    | "bool"
                    | "print"
                    | "cast"
                    | "getattr"
                    | "hasattr"
                    | "len"
                    | "repr"
                    | "str"
            )
    })
}

/// The argv of `execute_command(…)` as far as it is known, each word mapped back to
/// the argument it came from (`None` for the words of the command's name).
struct CommandArgv {
    argv: Vec<Vec<u8>>,
    arg_of: Vec<Option<usize>>,
    name_words: usize,
}

impl CommandArgv {
    /// `None` when the command's name is not a known string, or an argument is
    /// splatted in a way that leaves the keys unknown.
    fn of(pos: &[Elem<'_>]) -> Option<CommandArgv> {
        let first = pos.first()?;
        let Value::Str(name) = &first.value else {
            return None;
        };
        let name = name.as_bytes()?;
        // redis-py splits a first argument like "OBJECT ENCODING" on spaces.
        let mut argv: Vec<Vec<u8>> = name
            .split(|b| b.is_ascii_whitespace())
            .filter(|s| !s.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        let name_words = argv.len();
        if name_words == 0 {
            return None;
        }
        let mut arg_of: Vec<Option<usize>> = vec![None; name_words];
        // `execute_command("MGET", *[k for …])`: a family splatted where every argument
        // it may fill is a key stands for many keys; any other splat is unknown.
        let family_splat = match pos.iter().skip(1).filter(|e| e.star).count() {
            0 => None,
            1 => {
                let i = pos.iter().position(|e| e.star).filter(|&i| i > 0);
                match i {
                    Some(i) if !pos[i].each.is_empty() => Some(i),
                    _ => return None,
                }
            }
            _ => return None,
        };
        if let Some(at) = family_splat {
            if !splat_fills_keys(&argv, pos, at) {
                return None;
            }
        }
        for (i, e) in pos.iter().enumerate().skip(1) {
            let bytes = match &e.value {
                Value::Str(t) => t.as_bytes(),
                Value::Int(n) => Some(n.to_string().into_bytes()),
                _ => None,
            };
            // An unknown value can be neither a keyword nor a count.
            argv.push(bytes.unwrap_or_else(|| b"\x00\x01unknown".to_vec()));
            arg_of.push(Some(i));
        }
        Some(CommandArgv {
            argv,
            arg_of,
            name_words,
        })
    }
}

/// The name of a script call's unit in messages: `script`, or the function an
/// `FCALL` names when it is a literal.
/// Whether a splat at `pos[at]` of `execute_command` fills only key positions,
/// whether it expands to two or to three arguments.
fn splat_fills_keys(name: &[Vec<u8>], pos: &[Elem<'_>], at: usize) -> bool {
    (2..=3).all(|n| {
        let mut argv: Vec<Vec<u8>> = name.to_vec();
        let mut copies = Vec::new();
        for (i, e) in pos.iter().enumerate().skip(1) {
            let one = |v: &Value<'_>| match v {
                Value::Str(t) => t.as_bytes(),
                Value::Int(n) => Some(n.to_string().into_bytes()),
                _ => None,
            };
            if i == at {
                for _ in 0..n {
                    copies.push(argv.len());
                    argv.push(b"\x00\x01member".to_vec());
                }
            } else {
                argv.push(one(&e.value).unwrap_or_else(|| b"\x00\x01unknown".to_vec()));
            }
        }
        let refs: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
        match keylint_commands::extract_keys(&refs) {
            Ok(ex) => copies.iter().all(|c| ex.keys.iter().any(|k| k.index == *c)),
            Err(_) => false,
        }
    })
}

/// A negative decimal integer literal (`-1`): Python writes it as a unary minus.
fn negative_literal(node: Node<'_>, src: &str) -> Option<i64> {
    if node.kind_name() != "unary_operator" {
        return None;
    }
    let op = node.child_by_field_name("operator")?;
    let arg = node.child_by_field_name("argument")?;
    if text(op, src) != "-" || arg.kind_name() != "integer" {
        return None;
    }
    let digits = text(arg, src);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    (n > 0).then_some(-n)
}

fn script_unit_name(command: &str, first: Option<&Elem<'_>>) -> String {
    if command.starts_with("FCALL") {
        if let Some(Elem {
            value: Value::Str(t),
            ..
        }) = first
        {
            if let Some(name) = t.as_bytes().and_then(|b| String::from_utf8(b).ok()) {
                return name;
            }
        }
    }
    "script".to_string()
}

/// Where a call sits in the branches of its function: which arm of which `if`,
/// `try`, `match` or conditional expression, and which arms leave early.
#[derive(Debug, Clone, Default)]
struct Path {
    arms: Vec<(usize, usize)>,
    /// Constructs (start, end) that the call's arm leaves (`return`, `raise`, …)
    /// after the call: code after them never runs together with the call.
    exits: Vec<(usize, usize)>,
    /// Loops and comprehensions (by start) around the call, innermost first (and
    /// around the calls of followed helpers below it).
    loops: Vec<usize>,
    pos: usize,
    /// The node.
    id: usize,
    /// For a command of a followed helper, where each call below this one sits in
    /// its helper.
    inner: Vec<Level>,
}

/// Where a call sits in a followed helper: as in [`Path`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Level {
    id: usize,
    arms: Vec<(usize, usize)>,
    exits: Vec<(usize, usize)>,
    pos: usize,
}

/// Arms and exits of the constructs around a node (see [`Path`]).
type Around = std::rc::Rc<(Vec<(usize, usize)>, Vec<(usize, usize)>, Vec<usize>)>;

/// Arms and loops between a node and its statement, and the statement.
type ExprPart<'t> = (Vec<(usize, usize)>, Vec<usize>, Option<Node<'t>>);

/// Memoized [`Around`]s, so that the paths of the calls of a chain as deep as it is
/// long (`pipe.set(…).set(…)…`) cost linear time in total.
#[derive(Default)]
struct PathMemo<'t> {
    /// Statement (a child of a block or the module) → arms and exits above it.
    stmt: IdMap<usize, Around>,
    /// Node inside a statement → the conditional arms between it and its statement,
    /// and that statement (`None` when a scope boundary comes first).
    expr: IdMap<usize, ExprPart<'t>>,
}

/// The arm of `parent` that `child` is in, if `parent` branches.
fn arm_of<'t>(nav: &Nav<'t>, parent: Node<'t>, child: Node<'t>) -> Option<usize> {
    match parent.kind_name() {
        "if_statement" => {
            if parent.field(Field::Consequence) == Some(child) {
                Some(0)
            } else {
                let mut c = parent.walk();
                let alts: Vec<Node<'_>> = parent
                    .children_by_field_name("alternative", &mut c)
                    .collect();
                alts.iter().position(|a| *a == child).map(|i| i + 1)
            }
        }
        "try_statement" => match child.kind_name() {
            "block" | "else_clause" => Some(0),
            "except_clause" | "except_group_clause" => {
                let idx = nav
                    .children(parent)
                    .filter(|k| matches!(k.kind_name(), "except_clause" | "except_group_clause"))
                    .position(|k| k == child);
                idx.map(|i| i + 1)
            }
            _ => None,
        },
        "block"
            if nav
                .parent(parent)
                .is_some_and(|m| m.kind_name() == "match_statement") =>
        {
            nav.named_children(parent).position(|k| k == child)
        }
        "conditional_expression" => {
            let mut kids = nav.named_children(parent);
            if kids.next() == Some(child) {
                Some(0)
            } else if kids.nth(1) == Some(child) {
                Some(1)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn is_stmt_parent(n: Node<'_>) -> bool {
    matches!(n.kind_name(), "block" | "module")
}

impl Path {
    /// The path of `n`, walking up from it once per node of the file at most.
    fn of<'t>(nav: &Nav<'t>, n: Node<'t>, memo: &mut PathMemo<'t>) -> Path {
        let (mut arms, mut loops, stmt) = Self::expr_part(nav, n, memo);
        let mut exits = Vec::new();
        if let Some(s) = stmt {
            let above = Self::stmt_part(nav, s, memo);
            arms.extend(above.0.iter().copied());
            exits.extend(above.1.iter().copied());
            loops.extend(above.2.iter().copied());
        }
        Path {
            arms,
            exits,
            loops,
            pos: n.start_byte(),
            id: n.id(),
            inner: Vec::new(),
        }
    }

    /// Conditional arms between `n` and its statement, and the statement.
    fn expr_part<'t>(nav: &Nav<'t>, n: Node<'t>, memo: &mut PathMemo<'t>) -> ExprPart<'t> {
        // Up to the first node already known (or the statement), then back down.
        let mut chain: Vec<Node<'t>> = Vec::new();
        let mut cur = n;
        let mut known: ExprPart<'t> = loop {
            if let Some(k) = memo.expr.get(&cur.id()) {
                break k.clone();
            }
            match nav.parent(cur) {
                None => break (Vec::new(), Vec::new(), None),
                Some(p) if is_stmt_parent(p) => break (Vec::new(), Vec::new(), Some(cur)),
                Some(p) if p.is_scope_kind() => {
                    // A comprehension runs its body once per element.
                    let comp = matches!(
                        p.kind_name(),
                        "list_comprehension"
                            | "set_comprehension"
                            | "dictionary_comprehension"
                            | "generator_expression"
                    );
                    break (
                        Vec::new(),
                        if comp {
                            vec![p.start_byte()]
                        } else {
                            Vec::new()
                        },
                        None,
                    );
                }
                Some(p) => {
                    chain.push(cur);
                    cur = p;
                }
            }
        };
        memo.expr.entry(cur.id()).or_insert_with(|| known.clone());
        for &c in chain.iter().rev() {
            if let Some(p) = nav.parent(c) {
                if let Some(a) = arm_of(nav, p, c) {
                    known.0.insert(0, (p.id(), a));
                }
            }
            memo.expr.insert(c.id(), known.clone());
        }
        known
    }

    /// Arms and exits above a statement (a child of a block or the module).
    fn stmt_part<'t>(nav: &Nav<'t>, s: Node<'t>, memo: &mut PathMemo<'t>) -> Around {
        if let Some(a) = memo.stmt.get(&s.id()) {
            return a.clone();
        }
        let mut arms = Vec::new();
        let mut exits = Vec::new();
        let mut loops = Vec::new();
        let mut child = s;
        let mut cur = nav.parent(s);
        while let Some(parent) = cur {
            if parent.is_scope_kind() {
                break;
            }
            // A loop whose body ends every pass with `break`, `return` or `raise`
            // (a statement of the body itself, not under a condition) runs it once.
            if matches!(parent.kind_name(), "for_statement" | "while_statement")
                && parent.field(Field::Body) == Some(child)
                && !nav.named_children(child).any(|st| {
                    matches!(
                        st.kind_name(),
                        "break_statement" | "return_statement" | "raise_statement"
                    )
                })
            {
                loops.push(parent.start_byte());
            }
            if let Some(a) = arm_of(nav, parent, child) {
                arms.push((parent.id(), a));
                // Does the arm leave the construct after the statement?
                let block = if child.kind_name() == "block" {
                    Some(child)
                } else {
                    nav.named_children(child).find(|k| k.kind_name() == "block")
                };
                if let Some(b) = block {
                    let leaves = nav.named_children(b).any(|st| {
                        st.start_byte() >= s.end_byte()
                            && matches!(
                                st.kind_name(),
                                "return_statement"
                                    | "raise_statement"
                                    | "break_statement"
                                    | "continue_statement"
                            )
                    });
                    if leaves {
                        exits.push((parent.start_byte(), parent.end_byte()));
                    }
                }
            }
            child = parent;
            cur = nav.parent(parent);
        }
        let a: Around = std::rc::Rc::new((arms, exits, loops));
        memo.stmt.insert(s.id(), a.clone());
        a
    }

    fn compatible(&self, other: &Path) -> bool {
        if !level_compatible(
            (&self.arms, &self.exits, self.pos),
            (&other.arms, &other.exits, other.pos),
        ) {
            return false;
        }
        // Below the same call, the calls of the helper it followed are compared
        // where they sit in that helper, down to the first level where they differ.
        if self.id != other.id {
            return true;
        }
        for (a, b) in self.inner.iter().zip(&other.inner) {
            if !level_compatible((&a.arms, &a.exits, a.pos), (&b.arms, &b.exits, b.pos)) {
                return false;
            }
            if a.id != b.id {
                return true;
            }
        }
        true
    }
}

/// Arms, exits and position of two calls of one function.
type LevelRef<'a> = (&'a [(usize, usize)], &'a [(usize, usize)], usize);

/// Whether two calls of one function can run in one pass through it: not in
/// different arms of one branch, and neither after an exit the other's arm takes.
fn level_compatible(a: LevelRef<'_>, b: LevelRef<'_>) -> bool {
    for (id, arm) in a.0 {
        if b.0.iter().any(|(oid, oarm)| oid == id && oarm != arm) {
            return false;
        }
    }
    let leaves_before = |x: LevelRef<'_>, y: LevelRef<'_>| x.1.iter().any(|(_, end)| y.2 >= *end);
    !(leaves_before(a, b) || leaves_before(b, a))
}

/// Maximal groups of mutually compatible events.
fn groups(qs: &[usize], paths: &[Path]) -> Vec<Vec<usize>> {
    const MAX_GROUPS: usize = 16;
    // Events in the same arms (the usual straight-line batch) are all compatible.
    if let Some(&first) = qs.first() {
        let p = &paths[first];
        if qs.iter().all(|&q| {
            paths[q].arms == p.arms && paths[q].exits == p.exits && paths[q].inner.is_empty()
        }) {
            return vec![qs.to_vec()];
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (n, &q) in qs.iter().enumerate() {
        let mut placed = false;
        for g in &mut out {
            if g.iter().all(|&x| paths[x].compatible(&paths[q])) {
                g.push(q);
                placed = true;
            }
        }
        if !placed {
            let mut g: Vec<usize> = qs[..n]
                .iter()
                .copied()
                .filter(|&x| paths[x].compatible(&paths[q]))
                .collect();
            g.push(q);
            if out.len() < MAX_GROUPS {
                out.push(g);
            }
        }
    }
    let snapshot = out.clone();
    out.retain(|g| {
        !snapshot
            .iter()
            .any(|h| h.len() > g.len() && g.iter().all(|x| h.contains(x)))
    });
    out
}

/// What a call that passes a pipeline to another module reaches: a method of an
/// instance of one of its classes, or one of its functions.
enum ExtTarget<'a> {
    Method(&'a std::rc::Rc<crate::project::Instance>, &'a str),
    Function(std::sync::Arc<crate::project::Queued>),
}

/// Sorts `items` by `key` (given each item's index and the item) and returns where
/// each item went: `remap[old] == new`.
fn reorder<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(usize, &T) -> K) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| key(i, &items[i]));
    let mut remap = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    *items = order
        .iter()
        .map(|&i| slots[i].take().expect("each item once"))
        .collect();
    remap
}

/// A script call's argument at `at` (its position and keyword): the positional one
/// when no `*splat` comes before it, else the keyword one.
fn script_arg<'t>(
    pos: &[Elem<'t>],
    kw: &[(String, Elem<'t>)],
    at: &(usize, String),
) -> Option<Elem<'t>> {
    pos.get(at.0)
        .filter(|e| !e.star && !pos.iter().take(at.0 + 1).any(|x| x.star))
        .cloned()
        .or_else(|| kw.iter().find(|(k, _)| *k == at.1).map(|(_, e)| e.clone()))
}

/// For each value a script call passes in `args` (a list or tuple display), the
/// `KEYS[j]` (1-based) it passes the very same value as: one expression with no call,
/// no operator and no comprehension in it (a name, an attribute, a subscript by a
/// literal), written the same way in both lists.
fn same_values(key_args: &[Elem<'_>], args: Option<Elem<'_>>, src: &str) -> Vec<Option<usize>> {
    let (items, _) = passed_script_keys(args.as_ref());
    let plain = |n: Node<'_>| {
        let t = text(n, src);
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '"' | '\''))
    };
    items
        .iter()
        .map(|a| {
            if !plain(a.node) {
                return None;
            }
            let t = text(a.node, src);
            key_args
                .iter()
                .position(|k| text(k.node, src) == t)
                .map(|j| j + 1)
        })
        .collect()
}

impl<'t> Analyzer<'t> {
    /// The keys of `WATCH`'s arguments, appended to `keys`: each key, and for a splat
    /// (`*[key_for(i) for i in ids]`) its family, then nothing more (the count after it
    /// is unknown).
    pub(crate) fn watched_keys(&mut self, args: &[Elem<'t>], ctx: &Ctx<'t>, keys: &mut Vec<usize>) {
        for e in args {
            if e.star && e.each.is_empty() {
                break;
            }
            if let Some(k) = self.key_use(e, "WATCH", ctx) {
                keys.push(k);
            }
            if e.star {
                break;
            }
        }
    }
}

/// The keys a script call passes: those known before any `*splat`, and how many
/// there are when that is certain (`None` when unknown; no keys argument is 0).
/// The member standing for a family of keys passed to a script (`keys=[f"job:{i}" for
/// i in ids]`, or a local holding it).
pub(crate) fn family_script_keys<'t>(keys_arg: Option<&Elem<'t>>) -> Vec<Elem<'t>> {
    match keys_arg {
        Some(Elem {
            value: Value::Seq {
                items,
                family: true,
            },
            ..
        }) => items.iter().filter(|i| !i.star).cloned().collect(),
        // `keys=[*fam_a, *fam_b, k]` (a list joined from comprehensions, or
        // `itertools.chain`): the members of each family, and every key written after
        // the first splat, none in a known place of `KEYS`.
        Some(Elem {
            value: Value::Seq {
                items,
                family: false,
            },
            ..
        }) => match items.iter().position(|i| i.star) {
            Some(first) => items[first..]
                .iter()
                .filter(|i| !i.star || !i.each.is_empty())
                .cloned()
                .collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

pub(crate) fn passed_script_keys<'t>(
    keys_arg: Option<&Elem<'t>>,
) -> (Vec<Elem<'t>>, Option<usize>) {
    match keys_arg {
        None => (Vec::new(), Some(0)),
        Some(Elem {
            value: Value::Seq {
                items,
                family: false,
            },
            ..
        }) => {
            let known: Vec<Elem<'t>> = items.iter().take_while(|i| !i.star).cloned().collect();
            let exact = (known.len() == items.len()).then_some(items.len());
            (known, exact)
        }
        Some(Elem {
            value: Value::Null, ..
        }) => (Vec::new(), Some(0)),
        _ => (Vec::new(), None),
    }
}

/// The note of a command that a cluster pipeline refuses, queued on a pipeline of a
/// client that may be a cluster and judged on its own keys.
fn blocked_pipe_note(command: &str, pipe: &PipeInfo) -> String {
    let cluster = format!("`RedisCluster`'s pipeline refuses `{command}` whatever its keys");
    if pipe.origin == TxOrigin::ProfileDefault {
        format!(
            "{cluster}, and on a standalone `Redis` this pipeline is a `MULTI`/`EXEC`; sent on its own to a cluster, or in a transaction, its keys must share a slot"
        )
    } else {
        format!("{cluster}; sent on its own to a cluster, its keys must share a slot")
    }
}

/// The end of the binding of one element of a list whose elements the code does not
/// show (`keys` of `zunionstore(tmp, keys)`), standing for its keys.
pub(crate) const ELEMENT_OF: &str = "[*]";

/// Whether a key value holds a fresh random value (`f"tmp:{uuid4().hex}"`), whose text
/// never holds a brace.
fn is_fresh_key(v: &Value<'_>) -> bool {
    let fresh = |h: &crate::tpl::HoleInfo| keylint_core::template::is_fresh_binding(&h.binding);
    match v {
        Value::Str(t) => t
            .parts
            .iter()
            .any(|p| matches!(p, TPart::Hole(h) if fresh(h))),
        Value::Opaque(h) => fresh(h),
        _ => false,
    }
}

/// The argument a call passes for parameter `p` of a table method: the positional
/// argument at its place, unless a `*args` comes before it (positions after one are
/// unknown), else the keyword argument of its name.
pub(crate) fn table_arg<'t>(
    pos: &[Elem<'t>],
    kw: &[(String, Elem<'t>)],
    p: &methods::Param,
) -> Option<Elem<'t>> {
    if p.index < pos.len() && !pos.iter().take(p.index + 1).any(|e| e.star) {
        return Some(pos[p.index].clone());
    }
    kw.iter()
        .find(|(k, _)| k == &p.name)
        .map(|(_, e)| e.clone())
}

/// Whether `src` holds `word` as a whole identifier.
pub(crate) fn holds_word(src: &str, word: &str) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let bytes = src.as_bytes();
    src.match_indices(word).any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + word.len()).copied();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

impl<'t> Analyzer<'t> {
    /// Whether key `k`, used by a command that sits in a loop of function `m`, is
    /// the same on every pass: its expression holds no call, lambda or comprehension,
    /// and every name it reads is a parameter or a local of `m` assigned only outside
    /// the loops around the command, or a name of the module.
    fn same_every_pass(&self, m: FuncId, k: usize) -> bool {
        let span = self.model.keys[k].span.clone();
        let info = &self.ix.funcs[m];
        let Some(node) = info.node.descendant_for_byte_range(span.start, span.end) else {
            return false;
        };
        if node.byte_range() != span {
            return false;
        }
        let nav = self.ix.nav;
        let mut loops: Vec<std::ops::Range<usize>> = Vec::new();
        let mut cur = nav.parent(node);
        while let Some(p) = cur {
            if p.id() == info.node.id() {
                break;
            }
            if p.is_scope_kind() {
                return false;
            }
            if matches!(p.kind_name(), "for_statement" | "while_statement") {
                loops.push(p.byte_range());
            }
            cur = nav.parent(p);
        }
        if cur.is_none() || loops.is_empty() {
            return false;
        }
        let src = self.src();
        let mut stack = vec![node];
        let mut seen = 0usize;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 512 {
                return false;
            }
            match x.kind_name() {
                "call" | "lambda" | "await" | "named_expression" => return false,
                k if k.ends_with("comprehension") || k == "generator_expression" => return false,
                "attribute" => {
                    // `a.b`: the object is read, the attribute's name is no name.
                    if let Some(o) = x.field(Field::Object) {
                        stack.push(o);
                    }
                    continue;
                }
                "identifier" => {
                    let name = text(x, src);
                    if info.nonlocal.iter().any(|n| n == name) {
                        return false;
                    }
                    let inside = |pos: usize| loops.iter().any(|l| l.contains(&pos));
                    if info
                        .defs
                        .get(name)
                        .is_some_and(|ds| ds.iter().any(|d| inside(d.pos)))
                    {
                        return false;
                    }
                    continue;
                }
                _ => {}
            }
            stack.extend(nav.named_children(x));
        }
        true
    }
}

/// The RedisTimeSeries command a method of redis-py's `ts()` object sends, for the
/// methods whose only key is their first argument (`add(key, timestamp, value)` is
/// `TS.ADD`). `madd`, `mget`, `mrange`, `mrevrange` and `queryindex` take several
/// keys or a filter, and `createrule`/`deleterule` two keys: not read.
fn ts_single_key(m: &str) -> Option<&'static str> {
    Some(match m {
        "add" => "TS.ADD",
        "create" => "TS.CREATE",
        "alter" => "TS.ALTER",
        "get" => "TS.GET",
        "incrby" => "TS.INCRBY",
        "decrby" => "TS.DECRBY",
        "range" => "TS.RANGE",
        "revrange" => "TS.REVRANGE",
        "delete" => "TS.DEL",
        "info" => "TS.INFO",
        _ => return None,
    })
}
