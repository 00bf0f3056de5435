//! Project analysis: what a module imports from the other modules of its project.
//!
//! A file is judged on its own, but real code builds its keys and gets its clients
//! in other modules: `from .keys import job_key`, `from app.conn import
//! get_connection`, `from app.models import Job; Job(id).key`. When the analysis of
//! a file meets a name imported from a module of the project, that module is read
//! through the [`ModuleLoader`] (only the binary knows files), evaluated with the
//! same evaluator, and summarised into *facts* that do not refer to its syntax tree:
//!
//! - constants: string templates and numbers;
//! - clients: module globals that hold one (also when a `configure()` function
//!   assigns them with `global`), and functions that return one;
//! - key builders: functions whose body is one `return` of a template, with the
//!   template's holes standing for the parameters, substituted at each call;
//! - classes: class attributes, `self.x` attributes and properties in terms of the
//!   constructor's parameters, class, static and instance methods that build keys,
//!   attributes that hold clients;
//! - re-exports (`from .keys import job_key` in a package's `__init__.py`).
//!
//! A module is summarised once per run and shared by every worker thread. Modules in
//! an import cycle do not use each other's facts: a module uses another's facts only
//! if that module does not reach it back through the modules it reads, which does
//! not depend on which of them was summarised first, so findings are the same
//! whatever the thread count and order. Nothing is ever imported or run.

use crate::eval::{fingerprint, merge_clients, ClientKind, Ctx, Elem, Value};
use crate::index::{text, DefKind, FuncId};
use crate::lower::Analyzer;
use crate::syntax::{Field, Nav, NodeExt};
use crate::tpl::{is_keylike_label, HoleInfo, TPart, Tpl};
use crate::Options;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use tree_sitter::Node;

pub use keylint_core::frontend::{ModuleDep, ModuleFile, ModuleLoader};

/// How much of the other modules' facts a module summarised for an import cycle
/// sees (see [`Project::shallow`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alone {
    Bare,
    Isolated,
    Shallow,
}

/// The project analysis of one run: module facts computed on demand and shared by
/// every thread.
pub struct Project {
    loader: Arc<dyn ModuleLoader>,
    options: Options,
    modules: Mutex<HashMap<String, Arc<Summary>>>,
    /// The syntax tree of each module file summarised this run, with the text it was
    /// parsed from: a module summarised for its importers and alone (in an import
    /// cycle) is parsed once, and its own lint reuses the tree when it comes after.
    trees: Mutex<HashMap<String, (String, tree_sitter::Tree)>>,
    /// Facts of modules summarised with no other module's facts (see
    /// [`Project::bare`]).
    bare: Mutex<HashMap<String, Arc<ModuleFacts>>>,
    /// Facts of modules summarised alone (see [`Project::isolated`]).
    isolated: Mutex<HashMap<String, Arc<ModuleFacts>>>,
    /// Facts of modules summarised with what the modules they import have alone
    /// (see [`Project::shallow`]).
    shallow: Mutex<HashMap<String, Arc<ModuleFacts>>>,
    /// The class every constructor call passes for a parameter (see
    /// [`Scope::ctor_arg_class`]): per module, class, parameter, the module and
    /// name of that class, with what finding it read.
    callers: Mutex<DepMemo<Option<(String, String)>>>,
    /// What the calls of other modules pass for a parameter (see
    /// [`Scope::passed_clients`]): per module, function and parameter, with what
    /// finding it read.
    passed: Mutex<DepMemo<Option<crate::callerflow::Passed>>>,
    /// Classes summarised again as a subclass of another module sees them (see
    /// [`Scope::rebased`]): per module, class and the literal values the subclass
    /// gives the class's string attributes, with what they read.
    rebased: Mutex<RebaseMemo>,
}

/// The key of a class summarised again with other string attributes: its module,
/// its name, and each attribute with its value, sorted.
type RebaseKey = (String, String, Vec<(String, String)>);
type RebaseMemo = HashMap<RebaseKey, (Option<Arc<ClassFacts>>, Vec<ModuleDep>)>;

/// Classes summarised again inside each other at most (a base of a base of …).
const MAX_REBASE_DEPTH: usize = 8;

/// Values computed once per project, keyed by (module, name, parameter index), each
/// with the modules it read.
type DepMemo<T> = HashMap<(String, String, usize), (T, Vec<ModuleDep>)>;

/// Files that mention a class read for its constructor calls, at most.
const MAX_CALLER_FILES: usize = 32;

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project").finish_non_exhaustive()
    }
}

/// A module's facts, with the modules they were computed from.
#[derive(Debug)]
struct Summary {
    /// Every module file the summary asked for, directly or through others.
    reached: HashSet<String>,
    facts: Arc<ModuleFacts>,
}

/// The facts of one module.
#[derive(Debug, Default)]
pub(crate) struct ModuleFacts {
    names: HashMap<String, Fact>,
    deps: Vec<ModuleDep>,
}

/// Where a dotted path leads in the project (see [`Scope::reach`]).
enum Reached<'a> {
    /// A module (or namespace package) itself.
    Module,
    /// Names of the module `file`: the first one is defined (or imported) there.
    Name { file: String, names: Vec<&'a str> },
}

/// Modules summarised inside each other, at most (a chain of imports this long is
/// cut where it reaches the limit).
const MAX_MODULE_DEPTH: usize = 32;
/// Re-exports followed in one lookup, at most.
const MAX_HOPS: u32 = 8;

/// What a name of another module is.
#[derive(Debug, Clone)]
pub(crate) enum Fact {
    Str(Tpl),
    Int(i64),
    Client(ClientKind),
    /// A function that returns a client.
    Factory(ClientKind),
    /// A function whose body is `return redis.utils.pipeline(client)`: a `with` item
    /// calling it hands its block a pipeline of that client, executed when the block
    /// ends.
    PipelineCm(ClientKind),
    /// A function that returns a new pipeline of a client: `def redis_pipeline(
    /// transaction=True): return storage().pipeline(transaction=transaction)`. Each call
    /// is a pipeline of its own, with the transaction the call asks for.
    PipeFactory(ClientKind, PipeTx),
    /// A function whose every return is a script registered on a client
    /// (`return conn.register_script(LUA)`, also cached per connection): the body's
    /// text and the client's kind.
    Script(Arc<str>, ClientKind),
    /// A function whose every return is a script registered on a client from a
    /// body not known here (`return redis.register_script(load_lua_script(name))`,
    /// a file named by the caller): its call is a script of no known body, whose
    /// calls are judged by the keys they pass.
    OpaqueScript(ClientKind),
    /// A function that registers the script its caller passes as this parameter
    /// (position, name) and returns it (`scriptparam.rs`).
    ScriptParam(usize, Arc<str>),
    /// A function that wraps `EVAL`/`EVALSHA` itself and returns the closure that
    /// sends it (`script_load(script)` of *Redis in Action*, `wrapscript.rs`): its
    /// call is a script object whose body is the caller's first argument, called
    /// with the client and keys where the signature says.
    EvalWrapper(crate::wrapscript::WrapperSig),
    /// A module global bound once to a registered script whose whole body is known
    /// (`msetbit = REDIS.register_script(LUA)`): the body's text and the client's kind;
    /// for a script object of an `EVAL` wrapper (`_move = script_load(LUA)`), where
    /// its calls take their client and keys.
    ScriptObj(Arc<str>, ClientKind, Option<crate::wrapscript::WrapperSig>),
    /// A function that cuts the sequence passed as this parameter into pieces
    /// (`chunks(seq, size)`, `chunks.rs`).
    Chunker(usize),
    Builder(Arc<Builder>),
    /// A function whose return is its parameter at this position (after `self` or
    /// `cls`) formatted with the arguments its call passes after it (`def
    /// format_key(template, **kwargs): return template.format(**kwargs)`): a call is
    /// that argument's `format` with those arguments.
    Formats(usize, Arc<str>),
    /// A key builder with a `return` per arm (`if self.prefix: return
    /// f"{self.prefix}:{key}"` / `return key`): a builder per arm, of the same
    /// parameters; a call builds one of their keys. With each arm, the test of a
    /// parameter that takes it (`if suffix: return …`), when every arm but the last
    /// is taken on such a test: a call whose arguments decide the tests builds the
    /// key of the arm it takes.
    Arms(Arc<[Builder]>, Option<Arc<[(usize, bool)]>>),
    Class(Arc<ClassFacts>),
    /// A function whose return type is a class of the project (`-> "Job"`): what
    /// it returns is an instance of that class, known only by its type.
    Returns(Arc<Returned>),
    /// An attribute that holds an instance of a class of the project, known by its
    /// type (`self.tiger = tiger` of a parameter annotated `"TaskTiger"`, a property
    /// that returns `StartedJobRegistry(…)`).
    Typed(Arc<ClassFacts>),
    /// A function that queues commands on a pipeline it receives
    /// (`def register(worker, pipeline=None)`).
    Queues(Arc<Queued>),
    /// A class method that makes a new object of its class around the key one of
    /// its parameters builds from another (`remake.rs`).
    Remake(Arc<Remake>),
    /// A function that sends multi-key commands over keys its caller passes
    /// (`cmdwrap.rs`).
    CmdWrap(Arc<crate::cmdwrap::CmdWrap>),
    /// A module function that runs a script over the key list its caller passes
    /// (`def call(client, keys, args)`, `scriptsites.rs`).
    ScriptWrap(Arc<crate::scriptsites::ScriptWrap>),
    /// A function that sets registered scripts as attributes of objects its caller
    /// passes (`scriptattr.rs`).
    ScriptSetter(Arc<[crate::scriptattr::ScriptSet]>),
    /// A method that only passes its own parameters, in order, to the method of the
    /// same name of a client (`def eval(self, script, numkeys, *keys_and_args): return
    /// self.client.eval(script, numkeys, *keys_and_args)`, a resilience or metrics
    /// wrapper): calling it on an object of the class is calling that client.
    Forward(ClientKind),
    /// A type alias of clients or pipelines (`ConnectionType = redis.Redis |
    /// valkey.Valkey`): an annotation naming it declares one.
    TypeAlias(crate::eval::AnnotatedAs),
    /// A module global bound once to a list or tuple of two to 32 strings the code
    /// writes out (`QUEUES = ["high", "default", "low"]`), never changed in place in
    /// its module: a loop or comprehension over it takes one of them per pass.
    StrList(Arc<[Tpl]>),
    /// A module global that is a registry of scripts (`lua_scripts = {}` filled
    /// with `register_script(…)` objects, `scriptreg.rs`): any entry is a script of
    /// no known body on a client of this kind.
    ScriptRegistry(ClientKind),
    /// A module global bound once, at module level, to the object a call of another
    /// library makes (`redis_data = Redis()` of a Flask extension package): nothing
    /// is known of it, but a module that imports it may show by its use that it is
    /// a client (`byuse.rs`).
    ExtObject,
    /// An import: a path relative to the module that holds it.
    Alias(String),
    /// A module.
    Module,
}

/// Whether a pipeline a factory returns is a transaction.
#[derive(Debug, Clone)]
pub(crate) enum PipeTx {
    /// `pipeline()`: the client's default.
    Default,
    /// `pipeline(transaction=True)` or `False`.
    Fixed(bool),
    /// `pipeline(transaction=transaction)` of the factory's parameter (position after
    /// `self`/`cls`, name, and its literal default: `None` when it has none).
    Param(usize, String, Option<bool>),
}

/// `return cls(p.m(q))` or `return cls(p + q)`: which parameters (after `cls`) bring
/// what the new object is made from (see `remake.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Remake {
    pub(crate) name: String,
    pub(crate) arity: usize,
    pub(crate) how: RemakeHow,
    /// The class the method was read from (`KeyPrefix.concat`), when known.
    pub(crate) class: Option<Arc<ClassFacts>>,
}

/// What the one argument of the new object is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RemakeHow {
    /// The key the key builder `method` of the object passed as parameter `obj`
    /// builds from parameter `arg`.
    Method {
        obj: usize,
        method: String,
        arg: usize,
    },
    /// The two parameters one after the other.
    Sum(usize, usize),
    /// An alternative constructor that passes its parameters on (`return cls(id,
    /// connection=connection)`, also through a local it calls methods on before
    /// returning it), or strings it builds from them (`return cls(_status=
    /// STATUS.format(namespace=namespace))`): the method's parameters (name, whether
    /// it has a default), and for the call of the class, what each positional
    /// argument passes and the keyword arguments with theirs.
    Pass {
        params: Vec<(String, bool)>,
        pos: Vec<Passed>,
        kw: Vec<(String, Passed)>,
    },
}

/// What an alternative constructor (`RemakeHow::Pass`) gives one argument of the
/// class's constructor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Passed {
    /// The method's parameter at this position, as it is.
    Param(usize),
    /// A string the method builds from its parameters (`TASK_KEY.format(
    /// namespace=namespace)`): a template of their markers.
    Built(Tpl),
    /// `None`. (`key if agent else None` passes `key`: a field left `None` is never
    /// sent as a key.)
    Null,
}

impl Remake {
    /// The same method, read from another object's class.
    pub(crate) fn same(&self, o: &Remake) -> bool {
        self.name == o.name && self.arity == o.arity && self.how == o.how
    }

    /// The class it makes an object of: the one it was read from, else `inst`'s.
    pub(crate) fn class_of(&self, inst: Option<&Instance>) -> Option<Arc<ClassFacts>> {
        self.class.clone().or_else(|| inst.map(|x| x.class.clone()))
    }
}

/// The class a function's return annotation names, found when a call needs it.
#[derive(Debug)]
pub(crate) struct Returned {
    /// The module of the function.
    file: String,
    /// The class's name in that module: a class it defines, or an import.
    name: String,
}

/// How many enclosing functions a nested one's name is looked up through when it
/// reads a parameter annotated with a project class ([`Analyzer::annotated_ext`]).
const MAX_ENCLOSING: usize = 4;

/// A parameter of a key builder or constructor.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    name: String,
    /// The default value's template, when there is one.
    default: Option<Tpl>,
    has_default: bool,
    /// Whether the default is a true literal (see [`literal_truth`]).
    truth: Option<bool>,
}

impl Param {
    /// A parameter with no default the analysis knows as text.
    pub(crate) fn named(name: &str, has_default: bool) -> Param {
        Param {
            name: name.to_string(),
            default: None,
            has_default,
            truth: None,
        }
    }

    /// What a call that leaves the argument out binds: the default's text when the
    /// code shows it, else a hole that stands for the default; `None` with no default.
    pub(crate) fn left_out(&self) -> Option<Tpl> {
        if !self.has_default {
            return None;
        }
        Some(match &self.default {
            Some(t) => t.clone(),
            None => Tpl::hole(HoleInfo {
                label: self.name.clone(),
                binding: format!("default:{}", self.name),
                span: None,
                keylike: is_keylike_label(&self.name),
            }),
        })
    }

    /// The parameter's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Whether the parameter has a default.
    pub(crate) fn has_default(&self) -> bool {
        self.has_default
    }
}

/// A key builder: `ret` with holes whose bindings are parameter markers.
#[derive(Debug)]
pub(crate) struct Builder {
    params: Vec<Param>,
    ret: Tpl,
    /// A method of an instance (the template may refer to the instance).
    pub(crate) instance: bool,
    /// The builder returns a family of keys of the shape `ret` (a comprehension).
    family: Option<crate::chunks::Shape>,
    /// A builder whose last parameter is `*parts` (not in `params`): the template
    /// for each count of arguments the star takes (`starbuild.rs`); empty otherwise.
    star: Vec<Tpl>,
    /// Trailing parameters defaulting to `None` that the template takes to be left
    /// out (`return f"m:{ns}:{sid}" if ns else f"m:{sid}"`): a call that passes one
    /// builds a key the fact does not know.
    none_tail: Vec<String>,
}

impl Builder {
    /// Whether a key it builds holds an attribute of the object it is called on
    /// (`f"{self.prefix}:{name}"`).
    fn reads_self(&self) -> bool {
        std::iter::once(&self.ret)
            .chain(&self.star)
            .flat_map(|t| &t.parts)
            .any(|p| match p {
                TPart::Hole(h) => h.label.starts_with("self.") || h.binding.contains(".self."),
                _ => false,
            })
    }
}

/// A class of another module.
#[derive(Debug, Default)]
pub(crate) struct ClassFacts {
    qual: String,
    /// Constructor parameters after `self`; `None` when they cannot be bound.
    ctor: Option<Vec<Param>>,
    /// The constructor ends with `**kwargs`: keywords it does not name go there.
    ctor_kwargs: bool,
    /// A class derived from a redis-py client.
    client: Option<ClientKind>,
    class_attrs: HashMap<String, Fact>,
    instance_attrs: HashMap<String, Fact>,
    methods: HashMap<String, Fact>,
    /// Methods that queue commands on a pipeline they receive.
    queues: HashMap<String, Arc<Queued>>,
    /// Methods that run scripts over keys their caller passes (`scriptsites.rs`).
    scripts: HashMap<String, Arc<crate::scriptsites::ScriptWrap>>,
    /// Methods that send multi-key commands over keys their caller passes
    /// (`cmdwrap.rs`).
    cmds: HashMap<String, Arc<crate::cmdwrap::CmdWrap>>,
    /// Instance attributes set from a constructor parameter with a fresh fallback
    /// (`self.key = key or self._new_key()`): the parameter's index. The attribute's
    /// fact is the fresh default; a literal key the constructor is given wins.
    fresh_keys: HashMap<String, usize>,
    /// Instance attributes that are registries of scripts (`scriptreg.rs`): the
    /// client kind of the scripts they hold.
    script_registries: HashMap<String, ClientKind>,
    /// Methods that return `False` unless a parameter is an instance of a class
    /// (`guards.rs`).
    guards: HashMap<String, crate::guards::GuardFact>,
    /// Methods that run their callable parameter in `client.transaction()`
    /// (`txwrap.rs`).
    tx_wrappers: HashMap<String, crate::txwrap::WrapperFact>,
    /// A `str` subclass made as `str` makes it (`class CacheKey(str): pass`): a call
    /// of the class is the text of its argument.
    str_like: bool,
    /// A record class (`records.rs`): its fields, and whether it is a pydantic model.
    record: Option<(Vec<Param>, bool)>,
    /// An `Enum` class: `X.MEMBER.value` is the member's value.
    is_enum: bool,
    /// The values of an `Enum` class's members, in order, when its body gives every
    /// member a literal string (`enumloop.rs`).
    enum_values: Option<Arc<[Tpl]>>,
    /// The text (without white space) of the one assignment of each instance
    /// attribute with a fact, when the constructor sets it from one of its
    /// parameters (`self.name = name`) or from a method of `self` called without
    /// arguments (`self.key = self.get_key()`): a subclass that assigns the same is
    /// no redefinition (`rebase.rs`).
    attr_texts: HashMap<String, String>,
    /// What entering an object of the class gives, when that is a client or a
    /// tuple holding clients (`cmobject.rs`).
    entered: Option<crate::cmobject::Entered>,
    /// The class's `__call__` only returns the object itself.
    call_self: bool,
    /// Methods the class leaves to its subclasses: their body is only a docstring,
    /// `pass`, `...` or `raise NotImplementedError` (an abstract base's interface).
    abstract_methods: HashSet<String>,
}

impl ClassFacts {
    /// A class derived from a redis-py client.
    pub(crate) fn is_client(&self) -> bool {
        self.client.is_some()
    }

    /// Whether the class has a fact for method `m`.
    pub(crate) fn has_method(&self, m: &str) -> bool {
        self.methods.contains_key(m)
            || self.queues.contains_key(m)
            || self.scripts.contains_key(m)
            || self.cmds.contains_key(m)
    }

    /// Whether the class has a fact for attribute `a` (of the class or its objects).
    pub(crate) fn has_data(&self, a: &str) -> bool {
        self.class_attrs.contains_key(a) || self.instance_attrs.contains_key(a)
    }

    /// See [`ClassFacts::attr_texts`].
    pub(crate) fn attr_text(&self, name: &str) -> Option<&str> {
        self.attr_texts.get(name).map(String::as_str)
    }

    /// The fields of a record class, and whether it is a pydantic model.
    pub(crate) fn record(&self) -> Option<&(Vec<Param>, bool)> {
        self.record.as_ref()
    }

    /// The guard helper method `m`, if it is one.
    pub(crate) fn guard(&self, m: &str) -> Option<&crate::guards::GuardFact> {
        self.guards.get(m)
    }

    /// The transaction wrapper method `m`, if it is one.
    pub(crate) fn tx_wrapper(&self, m: &str) -> Option<&crate::txwrap::WrapperFact> {
        self.tx_wrappers.get(m)
    }

    /// The class's qualified name.
    pub(crate) fn qual_name(&self) -> &str {
        &self.qual
    }

    /// The multi-key commands method `m` sends over keys its caller passes.
    pub(crate) fn cmd_wrap(&self, m: &str) -> Option<Arc<crate::cmdwrap::CmdWrap>> {
        self.cmds.get(m).cloned()
    }

    /// Whether method `m` queues commands on a pipeline it receives.
    pub(crate) fn has_queue_fact(&self, m: &str) -> bool {
        self.queues.contains_key(m)
    }

    /// Whether the class is an `Enum`.
    pub(crate) fn is_enum(&self) -> bool {
        self.is_enum
    }

    /// The values of its members, when it is an `Enum` whose body gives each a
    /// literal string.
    pub(crate) fn enum_values(&self) -> Option<&[Tpl]> {
        self.enum_values.as_deref()
    }

    /// Whether the class has a fact for method `m` (a key builder, a factory).
    pub(crate) fn has_method_fact(&self, m: &str) -> bool {
        self.methods.contains_key(m)
    }

    /// Not a client class.
    pub(crate) fn is_plain(&self) -> bool {
        self.client.is_none()
    }
}

impl ClassFacts {
    /// The fact of method `m` of the class (or of its bases), if it has one.
    pub(crate) fn method(&self, m: &str) -> Option<&Fact> {
        self.methods.get(m)
    }
}

/// What a method queues on the pipeline it receives as a parameter.
#[derive(Debug)]
pub(crate) struct Queued {
    /// The parameters after `self`.
    params: Vec<Param>,
    /// It ends with `**kwargs`, which takes the keywords `params` do not name.
    kwargs: bool,
    /// Which of them brings the pipeline.
    pipe: usize,
    cmds: Vec<QueuedCmd>,
    /// It may end or reset the batch (`execute()`): its commands are left out, and
    /// the caller's batch is cut where it is called.
    ends: bool,
    /// Methods it calls on objects its parameters bring, handing them the pipeline
    /// (`rctrl.task_save(self, pipeline=pipeline)`): resolved where it is called.
    vias: Vec<QueuedVia>,
}

/// A call, in a method that queues on its pipeline parameter, of a method of the
/// object another parameter brings, to which it hands the pipeline: `def save(self,
/// rctrl, pipeline=None): rctrl.task_save(self, pipeline=pipeline)`. The object's
/// class is not known where the method is summarised; at a call site that passes an
/// object of a project class whose method queues on the pipeline it receives, those
/// commands are the method's, with the inner method's parameters bound to what the
/// call passes them. Anywhere else the method is not followed (its caller's batch
/// is then unknown, as for any call the analysis cannot see into).
#[derive(Debug, Clone)]
pub(crate) struct QueuedVia {
    /// The parameter (after `self`) that brings the object.
    pub(crate) obj: usize,
    pub(crate) method: String,
    /// What the call passes, by position and by keyword.
    pub(crate) pos: Vec<Passes>,
    pub(crate) kw: Vec<(String, Passes)>,
    /// Where the call sits in the method.
    pub(crate) levels: Vec<crate::lower::Level>,
    /// The call is in a loop of the method: what it queues is many keys, left out.
    pub(crate) in_loop: bool,
    /// Tests of the method's parameters around the call (see [`QueuedCmd::guards`]).
    pub(crate) guards: Vec<(usize, bool)>,
    /// The pipeline is handed on as `pipeline=` (named like one): a callee that
    /// declares such a parameter queues there and leaves the batch to its owner, so
    /// an object whose method is not known adds nothing (as for any such call).
    /// Handed on otherwise, the call must be followed, or the method is not.
    pub(crate) optional: bool,
}

/// What a [`QueuedVia`] call passes one parameter of the inner method.
#[derive(Debug, Clone)]
pub(crate) enum Passes {
    /// The outer method's parameter (after `self`) at this position, as it is.
    Param(usize),
    /// The outer method's `self`.
    OwnSelf,
    /// The pipeline.
    Pipe,
    /// A string built from the outer method's parameters and instance.
    Text(Tpl),
    /// Anything else: a literal, with whether it is true (see [`literal_truth`]).
    Other(Option<bool>),
}

/// Whether each parameter is true, as a call gives it: `Some(false)` for a literal
/// `False`, `None`, `0` or `""` passed or left to such a default, `Some(true)` for
/// `True` or another literal number or string, `None` for anything else.
fn truth_of_args(
    params: &[Param],
    args: Option<Node<'_>>,
    src: &str,
    nav: &Nav<'_>,
) -> Vec<Option<bool>> {
    let mut out: Vec<Option<bool>> = params.iter().map(|p| p.truth).collect();
    let Some(a) = args else { return out };
    let mut i = 0usize;
    for k in nav.named_children(a) {
        match k.kind_name() {
            "comment" => {}
            "keyword_argument" => {
                let name = k.field(Field::Name).map(|n| text(n, src));
                if let (Some(j), Some(v)) = (
                    params.iter().position(|p| Some(p.name.as_str()) == name),
                    k.field(Field::Value),
                ) {
                    out[j] = literal_truth(v, src);
                }
            }
            "list_splat" | "dictionary_splat" => return vec![None; params.len()],
            _ => {
                if let Some(slot) = out.get_mut(i) {
                    *slot = literal_truth(k, src);
                }
                i += 1;
            }
        }
    }
    out
}

/// Whether a literal is true (see [`truth_of_args`]).
pub(crate) fn literal_truth(n: Node<'_>, src: &str) -> Option<bool> {
    let t = text(n, src).to_ascii_lowercase().replace('_', "");
    match n.kind_name() {
        "false" | "none" => Some(false),
        "true" => Some(true),
        "integer" => {
            let digits = ["0x", "0o", "0b"]
                .iter()
                .find_map(|p| t.strip_prefix(p))
                .unwrap_or(&t);
            Some(digits.chars().any(|c| c != '0'))
        }
        "string" => {
            let body = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let empty = body.len() >= 2
                && body
                    .chars()
                    .all(|c| c == body.chars().next().unwrap_or('"'));
            if empty {
                Some(false)
            } else if t[..t.len() - body.len()].contains('f') {
                None
            } else {
                Some(true)
            }
        }
        _ => None,
    }
}

/// Whether `guards` hold for parameters whose truth is `truth` (an unknown truth
/// may hold).
fn guards_hold(guards: &[(usize, bool)], truth: &[Option<bool>]) -> bool {
    guards
        .iter()
        .all(|&(i, want)| truth.get(i).copied().flatten().is_none_or(|t| t == want))
}

/// One command a method queues on its pipeline parameter.
#[derive(Debug, Clone)]
pub(crate) struct QueuedCmd {
    /// Each key's command and template (holes of parameters and of the instance
    /// marked as in other facts).
    pub keys: Vec<(String, Tpl)>,
    /// Where the command sits in the method, and in the helpers it followed.
    pub levels: Vec<crate::lower::Level>,
    /// A command that joins the caller's batch only when that is a transaction
    /// (`DEL`, `UNLINK`: a cluster pipeline without one splits them per slot).
    pub tx_only: bool,
    /// Tests of the method's parameters around the command (`if queue:`): it runs
    /// only when parameter `i` (after `self`) is true (`true`) or false (`false`).
    /// A call that passes a literal the test fails on queues nothing there.
    pub guards: Vec<(usize, bool)>,
}

/// An instance of a class of another module, made by a constructor call here.
#[derive(Debug)]
pub(crate) struct Instance {
    class: Arc<ClassFacts>,
    /// The constructor's arguments: template and identity.
    ctor: Vec<(Tpl, String)>,
    /// The instance's identity: the class and its arguments.
    ident: String,
}

impl Instance {
    /// The client kind of the scripts in attribute `attr` of the object, when its
    /// class keeps a registry of scripts there.
    pub(crate) fn script_registry(&self, attr: &str) -> Option<ClientKind> {
        class_script_registry(&self.class, attr)
    }

    /// What entering the object gives (`cmobject.rs`).
    pub(crate) fn entered(&self) -> Option<crate::cmobject::Entered> {
        self.class.entered.clone()
    }

    /// Whether calling the object gives the object itself.
    pub(crate) fn call_returns_self(&self) -> bool {
        self.class.call_self
    }

    /// The transaction wrapper method `m` of the instance's class, if it is one.
    pub(crate) fn tx_wrapper(&self, m: &str) -> Option<&crate::txwrap::WrapperFact> {
        self.class.tx_wrapper(m)
    }

    /// Whether method `m` queues commands on a pipeline it receives.
    pub(crate) fn has_queue(&self, m: &str) -> bool {
        self.class.queues.contains_key(m)
    }

    /// The scripts method `m` runs over keys its caller passes.
    pub(crate) fn script_wrap(&self, m: &str) -> Option<Arc<crate::scriptsites::ScriptWrap>> {
        self.class.scripts.get(m).cloned()
    }

    /// Whether the class leaves method `m` to its subclasses (an abstract base).
    pub(crate) fn leaves(&self, m: &str) -> bool {
        self.class.abstract_methods.contains(m)
    }

    /// The class's own name, without its module.
    pub(crate) fn class_name(&self) -> &str {
        let q = &self.class.qual;
        q.rsplit([':', '.']).next().unwrap_or(q)
    }

    /// The multi-key commands method `m` sends over keys its caller passes.
    pub(crate) fn cmd_wrap(&self, m: &str) -> Option<Arc<crate::cmdwrap::CmdWrap>> {
        self.class.cmds.get(m).cloned()
    }

    /// Whether the class has a fact for method `m` (a key builder, a factory).
    pub(crate) fn has_method(&self, m: &str) -> bool {
        self.class.methods.contains_key(m)
    }

    /// The same class as an instance known only by its type, named `ident`.
    pub(crate) fn retyped(&self, owner: &str, ident: String) -> Rc<Instance> {
        typed_instance(self.class.clone(), owner, ident)
    }

    /// The instance's identity.
    pub(crate) fn ident(&self) -> &str {
        &self.ident
    }

    /// The class's qualified name.
    pub(crate) fn qual(&self) -> &str {
        &self.class.qual
    }

    /// Whether the class is a key object: a method builds a key on its instance,
    /// or makes a new one of it (`remake.rs`).
    pub(crate) fn is_key_object(c: &ClassFacts) -> bool {
        c.client.is_none()
            && (c.methods.values().any(|f| match f {
                Fact::Builder(b) => b.instance,
                // An alternative constructor alone builds no key.
                Fact::Remake(r) => !matches!(r.how, RemakeHow::Pass { .. }),
                _ => false,
            }) || c.instance_attrs.values().any(built_on_ctor))
    }

    /// Whether the objects of the class hold what their constructor is given: a
    /// record class (`@dataclass` fields), or an instance attribute that is one of
    /// the constructor's arguments as it is (`self.main = main`).
    pub(crate) fn holds_args(c: &ClassFacts) -> bool {
        c.client.is_none()
            && (c
                .record
                .as_ref()
                .is_some_and(|(fields, _)| !fields.is_empty())
                || c.instance_attrs
                    .values()
                    .any(|f| matches!(f, Fact::Str(t) if ctor_arg_as_is(t).is_some())))
    }

    /// The fact of the class's method `m` as read through the class itself
    /// (`Prefix.concat`): a remake knows the class it makes.
    pub(crate) fn class_method(c: &Arc<ClassFacts>, m: &str) -> Option<Fact> {
        match c.methods.get(m)? {
            Fact::Remake(r) => Some(Fact::Remake(Arc::new(Remake {
                class: Some(c.clone()),
                ..(**r).clone()
            }))),
            f => Some(f.clone()),
        }
    }

    /// The fact of the class's method `m`.
    pub(crate) fn methods_fact(&self, m: &str) -> Option<&Fact> {
        self.class.methods.get(m)
    }

    /// The key that the class's key builder `m`, of one parameter, builds on this
    /// object from `arg`.
    pub(crate) fn build_one(&self, m: &str, arg: Tpl) -> Option<Tpl> {
        let Some(Fact::Builder(b)) = self.class.methods.get(m) else {
            return None;
        };
        if !b.instance || !b.star.is_empty() || b.params.len() != 1 || b.family.is_some() {
            return None;
        }
        let id = fingerprint(&Value::Str(arg.clone()));
        apply(&b.ret, &[(arg, id)], &[None], Some(self))
    }

    /// Whether it is an object of the class named `qual`.
    pub(crate) fn is_of(&self, c: &ClassFacts) -> bool {
        self.class.qual == c.qual
    }

    /// An object of `class` made with the constructor's arguments `ctor`.
    pub(crate) fn made(class: Arc<ClassFacts>, ctor: Vec<(Tpl, String)>) -> Option<Instance> {
        if class.client.is_some() || class.ctor.as_ref()?.len() != ctor.len() {
            return None;
        }
        let ids: Vec<&str> = ctor.iter().map(|(_, id)| id.as_str()).collect();
        Some(Instance {
            ident: format!("{}({})", class.qual, ids.join(",")),
            class,
            ctor,
        })
    }

    /// The constructor's parameters of the object's class.
    pub(crate) fn ctor_params(class: &ClassFacts) -> Option<&[Param]> {
        class.ctor.as_deref()
    }

    /// A new object of `class`, whose constructor takes one argument, made with
    /// `key`.
    pub(crate) fn remade(class: Arc<ClassFacts>, key: Tpl) -> Option<Instance> {
        if class.ctor.as_ref()?.len() != 1 || class.client.is_some() {
            return None;
        }
        let id = fingerprint(&Value::Str(key.clone()));
        Some(Instance {
            ident: format!("{}({id})", class.qual),
            class,
            ctor: vec![(key, id)],
        })
    }
}

/// Marks the hole that stands for parameter `i` (`p`) or constructor parameter `i`
/// (`c`).
fn marker(kind: char, i: usize) -> String {
    format!("\u{1}{kind}{i}\u{1}")
}

/// Prefix of a binding that belongs to one instance.
const INSTANCE: char = '\u{2}';
/// Prefix of a binding already qualified by its module.
const QUALIFIED: char = '\u{3}';

/// The placeholder value of a parameter while a module is summarised.
pub(crate) fn placeholder<'t>(kind: char, i: usize, name: &str) -> Value<'t> {
    Value::Opaque(HoleInfo {
        label: name.to_string(),
        binding: marker(kind, i),
        span: None,
        keylike: is_keylike_label(name),
    })
}

/// Whether an instance attribute (a property's key, `self.key = "q:" + name`) is
/// text built around a constructor's argument: literal text and a hole of one.
fn built_on_ctor(f: &Fact) -> bool {
    let Fact::Str(t) = f else { return false };
    let mut text = false;
    let mut ctor = false;
    for p in &t.parts {
        match p {
            TPart::Lit { bytes, .. } => text |= !bytes.is_empty(),
            TPart::Hole(h) => ctor |= h.binding.contains("\u{1}c"),
        }
    }
    text && ctor
}

/// The one parameter whose markers are all the markers of `binding`, if any.
fn one_param(binding: &str) -> Option<usize> {
    if binding.starts_with(INSTANCE) {
        return None;
    }
    let mut found = None;
    let mut rest = binding;
    while let Some(start) = rest.find('\u{1}') {
        let after = &rest[start + 1..];
        let end = after.find('\u{1}')?;
        match exact_marker(&rest[start..start + end + 2])? {
            ('p', i) if found.is_none_or(|f| f == i) => found = Some(i),
            _ => return None,
        }
        rest = &after[end + 1..];
    }
    found
}

/// The constructor parameter a fact's template is, whole and as it is.
fn ctor_arg_as_is(t: &Tpl) -> Option<usize> {
    match t.parts.as_slice() {
        [TPart::Hole(h)] => match exact_marker(&h.binding)? {
            ('c', i) => Some(i),
            _ => None,
        },
        _ => None,
    }
}

/// The name of the constructor parameter that class `c` stores as it is in its
/// instance attribute `attr` (`self.key = key`), when its default, if any, holds no
/// brace.
pub(crate) fn ctor_param_as_is(c: &ClassFacts, attr: &str) -> Option<String> {
    let Some(Fact::Str(t)) = c.instance_attrs.get(attr) else {
        return None;
    };
    let p = c.ctor.as_ref()?.get(ctor_arg_as_is(t)?)?;
    let braced = p.default.as_ref().is_some_and(|d| {
        d.parts
            .iter()
            .any(|q| matches!(q, TPart::Lit { bytes, .. } if bytes.contains(&b'{')))
    });
    (!braced).then(|| p.name.clone())
}

/// [`exact_marker`], for the summaries of other files.
pub(crate) fn marker_of(binding: &str) -> Option<(char, usize)> {
    exact_marker(binding)
}

/// `(kind, index)` when `binding` is exactly one marker.
fn exact_marker(binding: &str) -> Option<(char, usize)> {
    let inner = binding.strip_prefix('\u{1}')?.strip_suffix('\u{1}')?;
    let mut chars = inner.chars();
    let kind = chars.next()?;
    let i = chars.as_str().parse().ok()?;
    Some((kind, i))
}

impl Project {
    /// A project analysis reading modules through `loader`, evaluating them with
    /// `options`.
    pub fn new(loader: Arc<dyn ModuleLoader>, options: Options) -> Project {
        Project {
            loader,
            options,
            modules: Mutex::new(HashMap::new()),
            bare: Mutex::new(HashMap::new()),
            isolated: Mutex::new(HashMap::new()),
            shallow: Mutex::new(HashMap::new()),
            trees: Mutex::new(HashMap::new()),
            callers: Mutex::new(HashMap::new()),
            passed: Mutex::new(HashMap::new()),
            rebased: Mutex::new(HashMap::new()),
        }
    }

    /// The syntax tree of `text`, the text of the module file `path`: parsed on first
    /// use, then shared (a tree is parsed again only if the file's text differs).
    pub(crate) fn tree(&self, path: &str, text: &str) -> Option<tree_sitter::Tree> {
        if let Some((t, tree)) = self.trees.lock().expect("project lock").get(path) {
            if t == text {
                return Some(tree.clone());
            }
        }
        let tree = crate::parse(text)?;
        self.trees
            .lock()
            .expect("project lock")
            .entry(path.to_string())
            .or_insert_with(|| (text.to_string(), tree.clone()));
        Some(tree)
    }

    /// The facts of the module in `file` summarised with no fact of any other
    /// module. They depend on the module's text only.
    fn bare(&self, file: &str) -> Arc<ModuleFacts> {
        self.alone(file, Alone::Bare)
    }

    /// The facts of the module in `file` summarised alone: with what the modules it
    /// imports have bare (see [`Project::bare`]), so that a constant it takes from
    /// another module of its cycle (`redis_workers_keys = registration.WORKERS_KEY`)
    /// is known, and nothing deeper: what an importer in an import cycle with it
    /// sees through [`Project::shallow`]. They depend on the texts of the module and
    /// of those it imports only, so every importer sees the same, whatever the order.
    fn isolated(&self, file: &str) -> Arc<ModuleFacts> {
        self.alone(file, Alone::Isolated)
    }

    /// The facts of the module in `file` summarised with the facts that the
    /// modules it imports have alone (see [`Project::isolated`]): what an importer
    /// in an import cycle with it sees (`registry.py` and `queue.py` import each
    /// other, and `queue.py`'s methods queue commands through `job.py`'s). They
    /// depend only on the texts of the module and of those it imports, so every
    /// importer sees the same, whatever the order.
    fn shallow(&self, file: &str) -> Arc<ModuleFacts> {
        self.alone(file, Alone::Shallow)
    }

    fn alone(&self, file: &str, level: Alone) -> Arc<ModuleFacts> {
        let table = match level {
            Alone::Bare => &self.bare,
            Alone::Isolated => &self.isolated,
            Alone::Shallow => &self.shallow,
        };
        if let Some(f) = table.lock().expect("project lock").get(file) {
            return f.clone();
        }
        let mut scope = Scope::new(self, file.to_string(), Vec::new());
        scope.bare = level == Alone::Bare;
        scope.isolated = level != Alone::Shallow;
        scope.shallow = level == Alone::Shallow;
        scope.note(ModuleDep::Read {
            path: file.to_string(),
        });
        let names = match self.loader.read(file) {
            Some(text) => summarise_text(&text, &scope),
            None => HashMap::new(),
        };
        let facts = Arc::new(ModuleFacts {
            names,
            deps: scope.deps.take(),
        });
        table
            .lock()
            .expect("project lock")
            .entry(file.to_string())
            .or_insert(facts)
            .clone()
    }

    fn cached(&self, file: &str) -> Option<Arc<Summary>> {
        self.modules
            .lock()
            .expect("project lock")
            .get(file)
            .cloned()
    }

    /// Summarises the module in `file`, as the last module of `stack`, and keeps it.
    fn summarise(&self, file: &str, stack: Vec<String>) -> Arc<Summary> {
        let scope = Scope::new(self, file.to_string(), stack);
        scope.note(ModuleDep::Read {
            path: file.to_string(),
        });
        let names = match self.loader.read(file) {
            Some(text) => summarise_text(&text, &scope),
            None => HashMap::new(),
        };
        let summary = Arc::new(Summary {
            reached: scope.reached.take(),
            facts: Arc::new(ModuleFacts {
                names,
                deps: scope.deps.take(),
            }),
        });
        // Another thread may have made the same summary meanwhile: keep the first.
        self.modules
            .lock()
            .expect("project lock")
            .entry(file.to_string())
            .or_insert(summary)
            .clone()
    }
}

/// One module's view of the project, while it is analysed.
pub(crate) struct Scope<'p> {
    project: &'p Project,
    /// This module's file.
    path: String,
    /// Modules being summarised, outermost first, this one last.
    stack: Vec<String>,
    local: RefCell<HashMap<String, Option<Arc<ModuleFacts>>>>,
    lookups: RefCell<HashMap<String, Option<Fact>>>,
    resolved: RefCell<HashMap<(String, usize, String), Option<ModuleFile>>>,
    /// What [`Scope::overridden_elsewhere`] found, by class and attribute.
    overrides: RefCell<HashMap<(String, String), bool>>,
    deps: RefCell<Vec<ModuleDep>>,
    seen_deps: RefCell<HashSet<ModuleDep>>,
    reached: RefCell<HashSet<String>>,
    /// Summarised bare: no other module's facts are read.
    bare: bool,
    /// Summarised bare or alone: only other modules' bare facts are read, and no
    /// project-wide index.
    isolated: bool,
    /// Summarised with what the other modules have alone.
    shallow: bool,
    /// Read for the calls it makes of another module's function: its own
    /// parameters are not followed into other files in turn.
    no_callers: bool,
    /// How many classes are being summarised again around this one (see
    /// [`Scope::rebased`]).
    rebase_depth: usize,
}

impl<'p> Scope<'p> {
    fn new(project: &'p Project, path: String, mut stack: Vec<String>) -> Scope<'p> {
        if stack.last() != Some(&path) {
            stack.push(path.clone());
        }
        Scope {
            project,
            path,
            stack,
            local: RefCell::default(),
            lookups: RefCell::default(),
            resolved: RefCell::default(),
            overrides: RefCell::default(),
            deps: RefCell::default(),
            seen_deps: RefCell::default(),
            reached: RefCell::default(),
            bare: false,
            isolated: false,
            shallow: false,
            no_callers: false,
            rebase_depth: 0,
        }
    }

    /// The syntax tree of this module's `text` for its own lint: the one its
    /// summary parsed, if an importer made one, else parsed and not kept (keeping the
    /// tree of every linted file would hold the whole tree in memory).
    pub(crate) fn tree(&self, text: &str) -> Option<tree_sitter::Tree> {
        if let Some((t, tree)) = self
            .project
            .trees
            .lock()
            .expect("project lock")
            .get(&self.path)
        {
            if t == text {
                return Some(tree.clone());
            }
        }
        crate::parse(text)
    }

    fn note(&self, d: ModuleDep) {
        if self.seen_deps.borrow_mut().insert(d.clone()) {
            self.deps.borrow_mut().push(d);
        }
    }

    fn resolve(&self, from: &str, level: usize, dotted: &str) -> Option<ModuleFile> {
        let key = (from.to_string(), level, dotted.to_string());
        if let Some(r) = self.resolved.borrow().get(&key) {
            return r.clone();
        }
        let found = self.project.loader.resolve(from, level, dotted);
        self.note(ModuleDep::Resolve {
            from: key.0.clone(),
            level,
            dotted: key.2.clone(),
            found: found.clone(),
        });
        self.resolved.borrow_mut().insert(key, found.clone());
        found
    }

    /// The facts of the module in `file`, unless the two modules are in an import
    /// cycle: a module uses another's facts only if that module does not reach it
    /// back, whichever of them was summarised first, so that no finding depends on
    /// the order in which files are linted.
    fn facts(&self, file: &str) -> Option<Arc<ModuleFacts>> {
        if self.bare {
            return None;
        }
        if let Some(f) = self.local.borrow().get(file) {
            return f.clone();
        }
        if self.shallow || self.isolated {
            let facts = if self.shallow {
                self.project.isolated(file)
            } else {
                self.project.bare(file)
            };
            for d in &facts.deps {
                self.note(d.clone());
            }
            self.local
                .borrow_mut()
                .insert(file.to_string(), Some(facts.clone()));
            return Some(facts);
        }
        self.reached.borrow_mut().insert(file.to_string());
        let got = if self.stack.iter().any(|s| s == file) {
            Some(self.cyclic(file))
        } else {
            let summary = match self.project.cached(file) {
                Some(s) => Some(s),
                None if self.stack.len() >= MAX_MODULE_DEPTH => None,
                None => {
                    let mut inner = self.stack.clone();
                    inner.push(file.to_string());
                    Some(self.project.summarise(file, inner))
                }
            };
            summary.map(|s| {
                self.reached.borrow_mut().extend(s.reached.iter().cloned());
                for d in &s.facts.deps {
                    self.note(d.clone());
                }
                let cycle = self.stack.iter().any(|m| s.reached.contains(m));
                if cycle {
                    self.cyclic(file)
                } else {
                    s.facts.clone()
                }
            })
        };
        self.local
            .borrow_mut()
            .insert(file.to_string(), got.clone());
        got
    }

    /// The facts of class `name` of this very module, as a module in an import
    /// cycle with it sees them ([`Project::shallow`]): what its methods build does
    /// not depend on the function being linted.
    pub(crate) fn own_class(&self, name: &str) -> Option<Arc<ClassFacts>> {
        let facts = self.facts(&self.path.clone())?;
        match facts.names.get(name)? {
            Fact::Class(c) if c.client.is_none() => Some(c.clone()),
            _ => None,
        }
    }

    /// The facts of the project class `cf` as an object of a subclass that gives
    /// some of its string attributes literal values of its own sees them
    /// (`_element_key_template = ":registry:{}:queued_jobs"` over the base's
    /// `":element:{}"`): its module summarised again, for that class only, with
    /// `self.attr` read as the subclass's value. Summarised with what the modules it
    /// imports have alone (as for an import cycle), so that the facts depend on the
    /// texts only, whoever asks first.
    pub(crate) fn rebased(
        &self,
        cf: &ClassFacts,
        values: Vec<(String, String)>,
    ) -> Option<Arc<ClassFacts>> {
        let qual = cf.qual.strip_prefix(QUALIFIED)?;
        let (file, class) = qual.rsplit_once("::")?;
        if class.contains('.') || self.rebase_depth >= MAX_REBASE_DEPTH {
            return None;
        }
        let key = (file.to_string(), class.to_string(), values);
        let memo = &self.project.rebased;
        let cached = memo.lock().expect("project lock").get(&key).cloned();
        let (found, deps) = match cached {
            Some(c) => c,
            None => {
                let mut inner = Scope::new(self.project, file.to_string(), Vec::new());
                inner.shallow = true;
                inner.rebase_depth = self.rebase_depth + 1;
                inner.note(ModuleDep::Read {
                    path: file.to_string(),
                });
                let values: HashMap<String, String> = key.2.iter().cloned().collect();
                let names = match self.project.loader.read(file) {
                    Some(text) => summarise_class(&text, &inner, class, values),
                    None => HashMap::new(),
                };
                let found = match names.get(class) {
                    Some(Fact::Class(c)) if c.client.is_none() => Some(c.clone()),
                    _ => None,
                };
                memo.lock()
                    .expect("project lock")
                    .entry(key)
                    .or_insert((found, inner.deps.take()))
                    .clone()
            }
        };
        for d in deps {
            self.note(d);
        }
        found
    }

    /// The facts of a module in an import cycle with this one: those it has
    /// with what the modules it imports have alone (see [`Project::shallow`]).
    fn cyclic(&self, file: &str) -> Arc<ModuleFacts> {
        let facts = self.project.shallow(file);
        for d in &facts.deps {
            self.note(d.clone());
        }
        facts
    }

    /// The source file of the project module that the dotted `path` (as this
    /// module's imports wrote it, `.consts` or `consts`) names, if it is one.
    pub(crate) fn module_source(&self, path: &str) -> Option<String> {
        let level = path.bytes().take_while(|&b| b == b'.').count();
        let rest = &path[level..];
        if rest.is_empty() && level == 0 {
            return None;
        }
        match self.resolve(&self.path.clone(), level, rest)? {
            ModuleFile::Source(f) => Some(f),
            ModuleFile::Namespace => None,
        }
    }

    /// The names `from module import *` binds in this module, `module` as written
    /// (`server.keys`, `.settings`): the public names the project module defines or
    /// imports at its top level that it has facts of, only those its `__all__`
    /// quotes when its text names `__all__`. `None` when the module is not one of
    /// the project's or its text cannot be read.
    pub(crate) fn star_names(&self, module: &str) -> Option<Vec<String>> {
        let file = self.module_source(module)?;
        let facts = self.facts(&file)?;
        self.note(ModuleDep::Read { path: file.clone() });
        let text = self.project.loader.read(&file)?;
        let listed = text.contains("__all__");
        let mut names: Vec<String> = facts
            .names
            .keys()
            .filter(|n| !n.contains('.'))
            .filter(|n| {
                if listed {
                    text.contains(&format!("'{n}'")) || text.contains(&format!("\"{n}\""))
                } else {
                    !n.starts_with('_')
                }
            })
            .cloned()
            .collect();
        names.sort();
        Some(names)
    }

    /// What the dotted `path` (as this module's imports wrote it) is.
    pub(crate) fn lookup(&self, path: &str) -> Option<Fact> {
        if let Some(f) = self.lookups.borrow().get(path) {
            return f.clone();
        }
        let f = match path.strip_prefix("django.conf.settings.") {
            Some(name) => self.django_setting(name),
            None => self.lookup_from(&self.path.clone(), path, 0),
        };
        self.lookups
            .borrow_mut()
            .insert(path.to_string(), f.clone());
        f
    }

    fn lookup_from(&self, from: &str, path: &str, hops: u32) -> Option<Fact> {
        if hops > MAX_HOPS {
            return None;
        }
        match self.reach(from, path)? {
            Reached::Module => Some(Fact::Module),
            Reached::Name { file, names } => {
                let facts = self.facts(&file)?;
                // The class of a client object of that module (see `summarise`).
                if let [name, "__class__"] = names.as_slice() {
                    return facts.names.get(&format!("{name}.__class__")).cloned();
                }
                let fact = facts.names.get(names[0])?.clone();
                self.walk(&file, fact, &names[1..], hops)
            }
        }
    }

    /// Where the dotted `path` (as the imports of module `from` wrote it) leads: a
    /// module of the project itself, or the module file that holds its first name
    /// that is not a module, with the names from there on. `None` for what is not in
    /// the project (the client library and the builtins never are).
    fn reach<'a>(&self, from: &str, path: &'a str) -> Option<Reached<'a>> {
        let level = path.bytes().take_while(|&b| b == b'.').count();
        let rest = &path[level..];
        let segs: Vec<&'a str> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.split('.').collect()
        };
        if segs
            .iter()
            .any(|s| s.is_empty() || s.contains(['(', '[', ' ']))
        {
            return None;
        }
        if level == 0 {
            let first = *segs.first()?;
            // The client library and the builtins are never the project's.
            if matches!(first, "redis" | "aioredis" | "builtins" | "__future__") {
                return None;
            }
            // A first segment that names no module of the project ends the search,
            // unless the loader finds the whole path (a repository mounted in an
            // application imports itself as `lib.gwpcc.consts`): then the longest
            // module path it finds, of two segments at least.
            if self.resolve(from, 0, first).is_none() {
                for k in (2..=segs.len()).rev() {
                    if let Some(ModuleFile::Source(file)) =
                        self.resolve(from, 0, &segs[..k].join("."))
                    {
                        return Some(if k == segs.len() {
                            Reached::Module
                        } else {
                            Reached::Name {
                                file,
                                names: segs[k..].to_vec(),
                            }
                        });
                    }
                }
                return None;
            }
        }
        let min = usize::from(level == 0);
        for k in (min..=segs.len()).rev() {
            let module = segs[..k].join(".");
            match self.resolve(from, level, &module) {
                None => continue,
                Some(ModuleFile::Namespace) => {
                    return (k == segs.len()).then_some(Reached::Module);
                }
                Some(ModuleFile::Source(file)) => {
                    if k == segs.len() {
                        return Some(Reached::Module);
                    }
                    return Some(Reached::Name {
                        file,
                        names: segs[k..].to_vec(),
                    });
                }
            }
        }
        None
    }

    fn walk(&self, file: &str, fact: Fact, rest: &[&str], hops: u32) -> Option<Fact> {
        match fact {
            Fact::Alias(p) => {
                let full = if rest.is_empty() {
                    p
                } else {
                    format!("{p}.{}", rest.join("."))
                };
                self.lookup_from(file, &full, hops + 1)
            }
            Fact::Class(c) if !rest.is_empty() => {
                if rest.len() != 1 {
                    return None;
                }
                match c.class_attrs.get(rest[0]) {
                    Some(f) => Some(f.clone()),
                    // `Helper.make(rds, key)`: a class or static method that sends
                    // keys its caller passes.
                    None if c.cmds.get(rest[0]).is_some_and(|w| w.on_class) => {
                        Some(Fact::CmdWrap(c.cmds[rest[0]].clone()))
                    }
                    // `RedisScripts.execute(redis, LUA, keys, args)`: a static method
                    // that runs scripts over the keys its caller passes.
                    None if c.scripts.get(rest[0]).is_some_and(|w| w.on_class) => {
                        Some(Fact::ScriptWrap(c.scripts[rest[0]].clone()))
                    }
                    // `KeyPrefix.concat`: it makes objects of this class.
                    None => Instance::class_method(&c, rest[0]),
                }
            }
            f if rest.is_empty() => Some(f),
            _ => None,
        }
    }

    /// The class a function of another module says it returns, unless it is a
    /// client class.
    fn returned(&self, r: &Returned) -> Option<Arc<ClassFacts>> {
        let fact = match self.facts(&r.file)?.names.get(&r.name)?.clone() {
            Fact::Alias(p) => self.lookup_from(&r.file, &p, 1)?,
            f => f,
        };
        match fact {
            Fact::Class(c) if c.client.is_none() => Some(c),
            _ => None,
        }
    }

    /// The class of parameter `param` (at `index` after `self`) of the constructor
    /// of `class`, a module-level class of this module, when every constructor call
    /// of the project passes `self` of one class of another module (see
    /// `ctorflow.rs`).
    pub(crate) fn ctor_arg_class(
        &self,
        class: &str,
        index: usize,
        param: &str,
    ) -> Option<Arc<ClassFacts>> {
        if self.isolated {
            return None;
        }
        let key = (self.path.clone(), class.to_string(), index);
        let found = self.memo_with_deps(&self.project.callers, key, |deps| {
            self.callers_of(class, index, param, deps)
        });
        let (file, name) = found?;
        match self.facts(&file)?.names.get(&name)? {
            Fact::Class(c) if c.client.is_none() => Some(c.clone()),
            _ => None,
        }
    }

    /// A value computed once per project and key, with the modules it read: taken
    /// from `cache` or computed by `compute` (which records the modules it reads) and
    /// stored; either way those modules become dependencies of this module.
    fn memo_with_deps<T: Clone>(
        &self,
        cache: &Mutex<DepMemo<T>>,
        key: (String, String, usize),
        compute: impl FnOnce(&mut Vec<ModuleDep>) -> T,
    ) -> T {
        let cached = cache.lock().expect("project lock").get(&key).cloned();
        let (found, deps) = match cached {
            Some(c) => c,
            None => {
                let mut deps = Vec::new();
                let found = compute(&mut deps);
                cache
                    .lock()
                    .expect("project lock")
                    .entry(key)
                    .or_insert((found, deps))
                    .clone()
            }
        };
        for d in deps {
            self.note(d);
        }
        found
    }

    /// The module file and the names in it that the dotted `path` (as this module's
    /// imports wrote it) reaches, following re-exports: `("deploy/helper.py",
    /// ["Helper", "make"])` for `apps.deploy.helper.Helper.make`. `None` for what is
    /// not in the project, or a module itself.
    pub(crate) fn locate(&self, path: &str) -> Option<(String, Vec<String>)> {
        self.locate_from(&self.path.clone(), path, 0)
    }

    fn locate_from(&self, from: &str, path: &str, hops: u32) -> Option<(String, Vec<String>)> {
        if hops > MAX_HOPS {
            return None;
        }
        let Reached::Name { file, names } = self.reach(from, path)? else {
            return None;
        };
        let facts = self.facts(&file)?;
        if let Some(Fact::Alias(p)) = facts.names.get(names[0]) {
            let full = std::iter::once(p.as_str())
                .chain(names[1..].iter().copied())
                .collect::<Vec<_>>()
                .join(".");
            return self.locate_from(&file, &full, hops + 1);
        }
        Some((file, names.iter().map(|s| s.to_string()).collect()))
    }

    /// What every call of the project's other modules that reaches `target` (a
    /// function of this module) passes for its parameter (see `callerflow.rs`):
    /// `None` when one cannot be told or passes anything but a client or `None`, or
    /// more than [`MAX_CALLER_FILES`] files mention the function's name.
    pub(crate) fn passed_clients(
        &self,
        target: &crate::callerflow::CallTarget,
    ) -> Option<crate::callerflow::Passed> {
        if self.isolated || self.no_callers {
            return None;
        }
        let key = (self.path.clone(), target.names.join("."), target.index);
        self.memo_with_deps(&self.project.passed, key, |deps| {
            self.calls_elsewhere(target, deps)
        })
    }

    fn calls_elsewhere(
        &self,
        target: &crate::callerflow::CallTarget,
        deps: &mut Vec<ModuleDep>,
    ) -> Option<crate::callerflow::Passed> {
        use crate::callerflow::SiteArg;
        // The files that mention the class (the reverse index knows class names),
        // read for calls of the name they call.
        let class = target.names.first()?.clone();
        let lookup = target.names.last()?.clone();
        let files = self.project.loader.mentions(&self.path, &class);
        deps.push(ModuleDep::Mentions {
            from: self.path.clone(),
            word: class.clone(),
            found: files.clone(),
        });
        let others: Vec<String> = files?.into_iter().filter(|f| *f != self.path).collect();
        if others.len() > MAX_CALLER_FILES {
            return None;
        }
        let mut out = crate::callerflow::Passed::default();
        for file in others {
            deps.push(ModuleDep::Read { path: file.clone() });
            let text = self.project.loader.read(&file)?;
            // A file that never writes `name(` (or `name (`) calls nothing by it.
            let calls_it = text.match_indices(lookup.as_str()).any(|(i, _)| {
                text[i + lookup.len()..]
                    .trim_start_matches([' ', '\t'])
                    .starts_with('(')
            });
            if !calls_it {
                continue;
            }
            let (limit, whole) = crate::parse_limit(&text);
            if !whole {
                return None;
            }
            let tree = self.project.tree(&file, &text[..limit])?;
            let nav = Nav::build(tree.root_node());
            let mut scope = Scope::new(self.project, file.clone(), Vec::new());
            scope.no_callers = true;
            let verdict = {
                let mut a = Analyzer::new(&nav, &text[..limit], &self.project.options, None);
                a.project = Some(&scope);
                if a.ix.too_deep {
                    None
                } else {
                    a.index_calls();
                    let calls = a
                        .calls_by_name
                        .get(lookup.as_str())
                        .cloned()
                        .unwrap_or_default();
                    let mut ok = Some(());
                    for (call, func) in calls {
                        match a.call_passes(call, func, &self.path, target) {
                            SiteArg::Other => {}
                            SiteArg::Unknown => {
                                ok = None;
                                break;
                            }
                            SiteArg::Client(k) => {
                                out.sites += 1;
                                out.kind = Some(out.kind.map_or(k, |x| x.merge(k)));
                            }
                            SiteArg::Null => out.sites += 1,
                            SiteArg::Default => {
                                out.sites += 1;
                                out.defaulted = true;
                            }
                        }
                    }
                    ok
                }
            };
            deps.extend(scope.into_deps());
            verdict?;
        }
        Some(out)
    }

    /// `settings.NAME` of `from django.conf import settings`: the string every settings
    /// module of the project binds `NAME` to at module level, when they all bind the
    /// same text. A settings module is a project file named like one (`settings.py`,
    /// `local_settings.py`, a module of a `settings` package) that mentions `NAME`; one
    /// that assigns it a value the analysis cannot know (`os.environ[…]`), or two that
    /// disagree, leave it unknown. Django loads the module `DJANGO_SETTINGS_MODULE`
    /// names, which the code does not show: agreement across candidates stands for it.
    fn django_setting(&self, name: &str) -> Option<Fact> {
        if self.isolated
            || name.is_empty()
            || !name.starts_with(|c: char| c.is_ascii_uppercase())
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return None;
        }
        let files = self.noted_mentions(name)?;
        let is_settings = |f: &str| {
            let p = std::path::Path::new(f);
            let file = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let dir = p
                .parent()
                .and_then(|d| d.file_name())
                .and_then(|n| n.to_str())
                .unwrap_or("");
            (file.ends_with(".py") && file.contains("settings")) || dir == "settings"
        };
        let mut value: Option<(Vec<u8>, Tpl)> = None;
        for file in files.iter().filter(|f| is_settings(f)) {
            let facts = self.facts(file)?;
            match facts.names.get(name) {
                Some(Fact::Str(t)) => {
                    let text = t.as_bytes()?;
                    match &value {
                        Some((v, _)) if *v != text => return None,
                        Some(_) => {}
                        None => value = Some((text, t.clone())),
                    }
                }
                Some(_) => return None,
                None => {
                    // Mentioned without a known binding: a read, or an assignment of
                    // a value the analysis cannot know.
                    self.note(ModuleDep::Read { path: file.clone() });
                    let text = self.project.loader.read(file)?;
                    if assigns_at_top(&text, name) {
                        return None;
                    }
                }
            }
        }
        value.map(|(_, t)| Fact::Str(t))
    }

    /// The project's files that mention `word` (see `FileLoader::mentions`), noted as
    /// a dependency of this module's facts.
    fn noted_mentions(&self, word: &str) -> Option<Vec<String>> {
        let files = self.project.loader.mentions(&self.path, word);
        self.note(ModuleDep::Mentions {
            from: self.path.clone(),
            word: word.to_string(),
            found: files.clone(),
        });
        files
    }

    /// Whether some Python file of the project holds `word`, one of
    /// [`keylint_core::frontend::INDEXED_API_WORDS`] or
    /// [`keylint_core::frontend::IMPORTS_REDIS_PY`] (noted as a dependency of this
    /// module's facts); false when that cannot be known (summarised alone, no project
    /// index).
    pub(crate) fn project_mentions(&self, word: &str) -> bool {
        !self.isolated && self.noted_mentions(word).is_some_and(|f| !f.is_empty())
    }

    /// Whether every construction of `class`, a module-level class of this module,
    /// is in this module's `text`: no other file of the project mentions the class,
    /// and every mention here is understood (see `ctorflow.rs`).
    pub(crate) fn constructed_only_here(&self, class: &str, src: &str, root: Node<'_>) -> bool {
        if self.isolated {
            return false;
        }
        let files = self.noted_mentions(class);
        files.is_some_and(|f| f == [self.path.clone()])
            && crate::ctorflow::constructions(src, root, class, true).is_some()
    }

    /// Whether every construction of the module-level class `qual` (a class of
    /// another module, by its qualified name) that the project shows leaves the
    /// constructor parameter at `index` after `self` (named `param`) to its default:
    /// every file that mentions the class, its own among them, is parsed whole and
    /// each mention understood (see `ctorflow.rs`). False when that cannot be known.
    pub(crate) fn defaults_kept(&self, qual: &str, index: usize, param: &str) -> bool {
        if self.isolated {
            return false;
        }
        let Some((file, class)) = qual.trim_start_matches(QUALIFIED).rsplit_once("::") else {
            return false;
        };
        if !crate::importscan::is_ident(class) {
            return false;
        }
        let Some(files) = self.noted_mentions(class) else {
            return false;
        };
        if files.len() > MAX_CALLER_FILES || !files.iter().any(|f| f == file) {
            return false;
        }
        let loader = &self.project.loader;
        for f in &files {
            self.note(ModuleDep::Read { path: f.clone() });
            let Some(text) = loader.read(f) else {
                return false;
            };
            let (limit, whole) = crate::parse_limit(&text);
            let src = &text[..limit];
            let Some(tree) = self.project.tree(f, src).filter(|_| whole) else {
                return false;
            };
            let Some(calls) =
                crate::ctorflow::constructions(src, tree.root_node(), class, f == file)
            else {
                return false;
            };
            if !calls
                .iter()
                .all(|c| crate::ctorflow::keeps_default(*c, src, index, param))
            {
                return false;
            }
        }
        true
    }

    /// Visits, in order, the other files of the project that mention `class` (a class
    /// of this module) and may derive from it with a class that writes `word`,
    /// parsed whole: `visit(file, text, root)` goes on or stops with an answer.
    /// `None` when a file cannot be read or parsed whole, or more than
    /// [`MAX_CALLER_FILES`] files would be parsed: what their classes do cannot be
    /// told.
    fn subclass_files<T>(
        &self,
        class: &str,
        word: &str,
        mut visit: impl FnMut(&str, &str, Node<'_>) -> ControlFlow<T>,
    ) -> Option<ControlFlow<T>> {
        let loader = &self.project.loader;
        let mut parsed = 0usize;
        for file in self.noted_mentions(class).unwrap_or_default() {
            if file == self.path {
                continue;
            }
            self.note(ModuleDep::Read { path: file.clone() });
            let text = loader.read(&file)?;
            // A file that never writes the name, or no class header naming the
            // class, cannot define it in a subclass.
            if !text.contains(word) || !crate::subclasses::may_derive(&text, class) {
                continue;
            }
            parsed += 1;
            let (limit, whole) = crate::parse_limit(&text);
            let tree = match self.project.tree(&file, &text[..limit]) {
                Some(t) if whole && parsed <= MAX_CALLER_FILES => t,
                _ => return None,
            };
            if let ControlFlow::Break(t) = visit(&file, &text[..limit], tree.root_node()) {
                return Some(ControlFlow::Break(t));
            }
        }
        Some(ControlFlow::Continue(()))
    }

    /// Whether a class of another module of the project, derived from `class` (a
    /// class of this module), defines `attr` its own way (see `subclasses.rs`). A
    /// file that cannot be read or told counts as one that does.
    pub(crate) fn overridden_elsewhere(&self, class: &str, attr: &str) -> bool {
        if self.isolated {
            return false;
        }
        let key = (class.to_string(), attr.to_string());
        if let Some(&known) = self.overrides.borrow().get(&key) {
            return known;
        }
        let found = !matches!(
            self.subclass_files(class, attr, |_, text, root| {
                if crate::subclasses::subclass_defines(text, root, class, attr) == Some(false) {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            }),
            Some(ControlFlow::Continue(()))
        );
        self.overrides.borrow_mut().insert(key, found);
        found
    }

    /// The texts that classes of other modules of the project, derived from
    /// `class` (a class of this module), give `attr` when each that defines it
    /// does so with one plain string literal in its body (`subclasses.rs`); `None`
    /// when one defines it another way, or a file cannot be read or told.
    pub(crate) fn subclass_literals(&self, class: &str, attr: &str) -> Option<Vec<String>> {
        if self.isolated {
            return None;
        }
        let mut found = Vec::new();
        let visited = self.subclass_files(class, attr, |_, text, root| {
            match crate::subclasses::derived_literals(text, root, class, attr) {
                Some(v) => {
                    found.extend(v);
                    ControlFlow::Continue(())
                }
                None => ControlFlow::Break(()),
            }
        });
        matches!(visited, Some(ControlFlow::Continue(()))).then_some(found)
    }

    /// The command wrappers (`cmdwrap.rs`) that classes of other modules of the
    /// project, derived from `class` (a class of this module), define as their
    /// method `m`: what `self.m(…)` in a method of `class` sends when `class` leaves
    /// `m` to its subclasses. Sorted by name; empty when a subclass in a module that
    /// names Redis defines `m` another way, when a file cannot be read or told, or
    /// when more than [`MAX_CALLER_FILES`] files would be parsed.
    pub(crate) fn subclass_cmd_wraps(
        &self,
        class: &str,
        m: &str,
    ) -> Vec<Arc<crate::cmdwrap::CmdWrap>> {
        let mut found = self.subclass_wraps(class, m, |c| c.cmd_wrap(m));
        found.sort_by(|a, b| a.name.cmp(&b.name));
        found
    }

    /// The scripts that classes of other modules derived from `class` run over the
    /// keys their caller passes in their method `m`, as [`Scope::subclass_cmd_wraps`]
    /// finds commands. Sorted by name.
    pub(crate) fn subclass_script_wraps(
        &self,
        class: &str,
        m: &str,
    ) -> Vec<Arc<crate::scriptsites::ScriptWrap>> {
        let mut found = self.subclass_wraps(class, m, |c| c.scripts.get(m).cloned());
        found.sort_by(|a, b| a.name.cmp(&b.name));
        found
    }

    /// What `pick` finds in the method `m` of each class of another module derived
    /// from `class` that defines it; nothing when a module that names Redis defines
    /// it in a way `pick` does not find, or a file cannot be read or told.
    fn subclass_wraps<T>(
        &self,
        class: &str,
        m: &str,
        pick: impl Fn(&ClassFacts) -> Option<T>,
    ) -> Vec<T> {
        if self.isolated {
            return Vec::new();
        }
        let mut found = Vec::new();
        let visited = self.subclass_files(class, m, |file, text, root| {
            let Some(names) = crate::subclasses::derived_defining(text, root, class, m) else {
                return ControlFlow::Break(());
            };
            if names.is_empty() {
                return ControlFlow::Continue(());
            }
            let Some(facts) = self.facts(file) else {
                return ControlFlow::Break(());
            };
            // A subclass in a module that uses Redis and defines the method its own
            // way (a cluster backend that splits the keys) may be the one in use:
            // nothing is said then. Backends that never name Redis do not count.
            let redis_module = keylint_core::prefilter::mentions_redis(text.as_bytes());
            for n in names {
                let wrap = match facts.names.get(&n) {
                    Some(Fact::Class(c)) => pick(c),
                    _ => None,
                };
                match wrap {
                    Some(w) => found.push(w),
                    None if redis_module => return ControlFlow::Break(()),
                    None => {}
                }
            }
            ControlFlow::Continue(())
        });
        if !matches!(visited, Some(ControlFlow::Continue(()))) {
            return Vec::new();
        }
        found
    }

    /// Whether some other file of the project constructs one of `classes` (classes
    /// of this module) with an argument whose text holds a `{` (a tagged name, or a
    /// value the text cannot show): `None` when the project's files cannot be
    /// searched (no project, too many files, a file that cannot be read).
    pub(crate) fn tagged_elsewhere(&self, classes: &[String]) -> Option<bool> {
        if self.isolated {
            return None;
        }
        let loader = &self.project.loader;
        for class in classes {
            let files = self.noted_mentions(class);
            let files = files?;
            if files.len() > MAX_CALLER_FILES {
                return None;
            }
            for file in files.iter().filter(|f| **f != self.path) {
                self.note(ModuleDep::Read { path: file.clone() });
                let text = loader.read(file)?;
                if crate::heads::tagged_calls(&text, class)? {
                    return Some(true);
                }
            }
        }
        Some(false)
    }

    fn callers_of(
        &self,
        class: &str,
        index: usize,
        param: &str,
        deps: &mut Vec<ModuleDep>,
    ) -> Option<(String, String)> {
        let loader = &self.project.loader;
        let files = loader.mentions(&self.path, class);
        deps.push(ModuleDep::Mentions {
            from: self.path.clone(),
            word: class.to_string(),
            found: files.clone(),
        });
        let files = files?;
        if files.len() > MAX_CALLER_FILES || !files.contains(&self.path) {
            return None;
        }
        let mut found: Option<(String, String)> = None;
        for file in files {
            deps.push(ModuleDep::Read { path: file.clone() });
            let text = loader.read(&file)?;
            let (limit, whole) = crate::parse_limit(&text);
            if !whole {
                return None;
            }
            let tree = self.project.tree(&file, &text[..limit])?;
            let want = crate::ctorflow::Wanted {
                class,
                index,
                param,
                own: file == self.path,
            };
            for name in crate::ctorflow::call_sites(&text[..limit], tree.root_node(), &want)? {
                let site = (file.clone(), name);
                if found.as_ref().is_some_and(|f| *f != site) {
                    return None;
                }
                found = Some(site);
            }
        }
        // A class of this module is not followed this way.
        found.filter(|(f, _)| *f != self.path)
    }

    /// Everything this analysis asked the loader.
    fn into_deps(self) -> Vec<ModuleDep> {
        self.deps.into_inner()
    }
}

/// Lowers the module in `path` within `project`: imported names of other project
/// modules resolve through their facts. Also returns what the analysis read.
pub(crate) fn lower_module(
    source: &str,
    options: &Options,
    loader: Option<&dyn crate::FileLoader>,
    project: &Project,
    path: &str,
) -> (keylint_core::FileModel, Vec<ModuleDep>) {
    let scope = Scope::new(project, path.to_string(), Vec::new());
    let model = crate::lower_scoped(source, options, loader, Some(&scope));
    (model, scope.into_deps())
}

/// The facts of a module's text.
fn summarise_text(source: &str, scope: &Scope<'_>) -> HashMap<String, Fact> {
    summarise(source, scope, None)
}

/// The facts of class `class` of a module's text (and of the module's globals),
/// with `self.attr` of that class read as `values` gives it (see
/// [`Scope::rebased`]).
fn summarise_class(
    source: &str,
    scope: &Scope<'_>,
    class: &str,
    values: HashMap<String, String>,
) -> HashMap<String, Fact> {
    summarise(source, scope, Some((class, values)))
}

fn summarise(
    source: &str,
    scope: &Scope<'_>,
    only: Option<(&str, HashMap<String, String>)>,
) -> HashMap<String, Fact> {
    let (limit, whole) = crate::parse_limit(source);
    if !whole {
        return HashMap::new();
    }
    let Some(tree) = scope.project.tree(&scope.path, &source[..limit]) else {
        return HashMap::new();
    };
    let nav = Nav::build(tree.root_node());
    let options = &scope.project.options;
    let files = ModuleDirFiles {
        loader: scope.project.loader.clone(),
        dir: match scope.path.rsplit_once('/') {
            Some((d, _)) => d.to_string(),
            None => String::new(),
        },
        read: Mutex::new(Vec::new()),
    };
    let mut a = Analyzer::new(&nav, &source[..limit], options, Some(&files));
    a.project = Some(scope);
    a.summarising = true;
    if a.ix.too_deep {
        return HashMap::new();
    }
    a.bind_star_imports();
    let only = match only {
        Some((class, values)) => {
            let Some(&c) = a.ix.class_by_name.get(class) else {
                return HashMap::new();
            };
            a.rebase = Some((c, values));
            Some(class)
        }
        None => None,
    };
    let qual = format!("{QUALIFIED}{}::", scope.path);
    let mut names: HashMap<String, Fact> = HashMap::new();
    let mut sorted: Vec<String> = a.ix.module_defs.keys().cloned().collect();
    sorted.sort();
    // Globals and constants first: functions may return them.
    for name in &sorted {
        if a.ix.module_funcs.contains_key(name) || a.ix.class_by_name.contains_key(name) {
            continue;
        }
        if let Some(f) = global_fact(&mut a, name, &qual) {
            names.insert(name.clone(), f);
        }
    }
    for name in &sorted {
        // Summarised again for one class: that class alone.
        if only.is_some_and(|o| o != name) {
            continue;
        }
        // Each name from a clean slate: a value memoised while another name was
        // summarised may have been cut by a cycle guard of that summary (a class
        // read before the class it makes objects of), and the facts must not depend
        // on the order of the names.
        a.memo_attr.clear();
        a.memo_name.clear();
        if let Some(&fid) = a.ix.module_funcs.get(name) {
            // `if PY3: def b(s): return s.encode("latin-1")` / `else: def b(s): return
            // str(s)`: one helper per Python version, each giving its argument's text.
            if a.ix.module_defs[name].len() > 1 {
                let variants = text_helper_variants(&a, name).unwrap_or_default();
                if let Some(f) = variants
                    .into_iter()
                    .find_map(|fid| function_fact(&mut a, fid, None, &qual, &names))
                {
                    names.insert(name.clone(), f);
                }
            } else if a.ix.module_defs[name].len() == 1 {
                if let Some(f) = function_fact(&mut a, fid, None, &qual, &names) {
                    names.insert(name.clone(), f);
                } else if let Some(f) = text_helper_fact(&mut a, name, &qual) {
                    names.insert(name.clone(), f);
                } else if let Some(q) = queued_fact(&mut a, fid, None, &qual) {
                    names.insert(name.clone(), Fact::Queues(Arc::new(q)));
                } else if let Some(w) = a
                    .mentions_redis
                    .then(|| cmd_wrap_fact(&mut a, fid, None, name, &qual))
                    .flatten()
                {
                    names.insert(name.clone(), Fact::CmdWrap(Arc::new(w)));
                } else if let Some(s) = a.script_setter(fid) {
                    names.insert(name.clone(), Fact::ScriptSetter(s.into()));
                } else if let Some(w) = forwarding_wrap_fact(&mut a, fid, name) {
                    names.insert(name.clone(), Fact::ScriptWrap(Arc::new(w)));
                }
            }
        } else if let Some(&c) = a.ix.class_by_name.get(name) {
            if a.ix.module_defs[name].len() == 1 {
                let f = class_fact(&mut a, c, &qual, &names);
                names.insert(name.clone(), Fact::Class(Arc::new(f)));
            }
        }
    }
    // `red = RedormClient()`: a module global bound once to an object of a class of
    // this module (a wrapper that holds the client, a registry of keys) is an object
    // of that class, known by its type, where other modules import it.
    for name in sorted.iter().filter(|_| only.is_none()) {
        if names.contains_key(name) {
            continue;
        }
        if let Some(c) = module_object_class(&a, name) {
            if let Some(Fact::Class(cf)) = names.get(&c) {
                if cf.client.is_none() && cf.ctor.is_some() {
                    names.insert(name.clone(), Fact::Typed(cf.clone()));
                }
            }
        }
    }
    // `lua_scripts = {}`, filled with registered scripts by the module's functions:
    // a registry of scripts where other modules import it.
    for name in sorted.iter().filter(|_| only.is_none()) {
        if names.contains_key(name) || !name.to_ascii_lowercase().contains("script") {
            continue;
        }
        let Some(defs) = a.ix.module_defs.get(name) else {
            continue;
        };
        let [d] = defs.as_slice() else {
            continue;
        };
        let assign = match d.stmt.kind_name() {
            "assignment" => Some(d.stmt),
            _ => d
                .stmt
                .named_child(0)
                .filter(|e| e.kind_name() == "assignment"),
        };
        let target = assign.and_then(|e| e.field(Field::Left));
        let Some(target) = target.filter(|t| t.kind_name() == "identifier") else {
            continue;
        };
        if let Some(Value::Script(id)) = a.registry_entry_of(target, &Ctx::at(None)) {
            let client = a.scripts[id].client;
            names.insert(name.clone(), Fact::ScriptRegistry(client));
        }
    }
    // `redis_client = RedisCli()` of a class of this module derived from a client:
    // a client, and, under `redis_client.__class__`, the class whose own methods
    // (`get_prefix`) other modules call on it (`Analyzer::imported_client_object`).
    for name in sorted.iter().filter(|_| only.is_none()) {
        if !matches!(names.get(name), Some(Fact::Client(_))) {
            continue;
        }
        if let Some(c) = module_object_class(&a, name) {
            if let Some(Fact::Class(cf)) = names.get(&c) {
                if cf.client.is_some() && !(cf.methods.is_empty() && cf.tx_wrappers.is_empty()) {
                    let cf = cf.clone();
                    names.insert(format!("{name}.__class__"), Fact::Class(cf));
                }
            }
        }
    }
    // `scope_b = scope_a = scope_name`: another name of a function or class of this
    // module, bound once at module level, has its facts.
    for name in &sorted {
        if names.contains_key(name) {
            continue;
        }
        let Some(target) = crate::aliases::module_alias(&a, name) else {
            continue;
        };
        if let Some(f) = names.get(&target).cloned() {
            names.insert(name.clone(), f);
        }
    }
    drop(a);
    let read = std::mem::take(&mut *files.read.lock().expect("files lock"));
    for path in read {
        scope.note(ModuleDep::Read { path });
    }
    names
}

/// The files a summarised module reads for its script bodies: `.lua` files of its own
/// directory or below (`open(os.path.join(os.path.dirname(__file__), "lua/x.lua"))`),
/// read through the project's loader and recorded as what the summary depends on.
struct ModuleDirFiles {
    loader: Arc<dyn ModuleLoader>,
    /// The module's directory (`/`-separated, empty for the root).
    dir: String,
    /// The files read.
    read: Mutex<Vec<String>>,
}

impl crate::FileLoader for ModuleDirFiles {
    fn load(&self, path: &str, from_module_dir: bool) -> Option<String> {
        if !from_module_dir || !path.ends_with(".lua") {
            return None;
        }
        let parts: Vec<&str> = path
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if parts.is_empty() || parts.contains(&"..") {
            return None;
        }
        let rel = parts.join("/");
        let full = if self.dir.is_empty() {
            rel
        } else {
            format!("{}/{rel}", self.dir)
        };
        let text = self.loader.read(&full)?;
        self.read.lock().expect("files lock").push(full);
        Some(text)
    }
}

/// Whether the module's text changes the list `name` in place (`NAME.append(…)`,
/// `NAME[0] = …`, `del NAME[…]`, `NAME += …`): then it is no list of known strings.
fn mutated_in_place(src: &str, name: &str) -> bool {
    const CHANGES: [&str; 8] = [
        ".append(", ".extend(", ".insert(", ".remove(", ".pop(", ".clear(", " +=", "+=",
    ];
    let b = src.as_bytes();
    let mut from = 0;
    while let Some(i) = src[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before = at.checked_sub(1).map(|j| b[j]);
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
            continue;
        }
        let rest = &src[from..];
        if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        if CHANGES.iter().any(|c| rest.starts_with(c)) || src[..at].ends_with("del ") {
            return true;
        }
        // `NAME[i] = …` (a read `NAME[0]` is no change).
        if let Some(sub) = rest.strip_prefix('[') {
            let line = sub.split('\n').next().unwrap_or("");
            if let Some(close) = line.find(']') {
                let after = line[close + 1..].trim_start();
                if after.starts_with('=') && !after.starts_with("==") {
                    return true;
                }
            }
        }
    }
    false
}

/// A module-level name that is not a function or class: a constant, a client (also
/// one assigned by a function that declares it `global`), or a re-export.
pub(crate) fn global_fact(a: &mut Analyzer<'_>, name: &str, qual: &str) -> Option<Fact> {
    let defs = a.ix.module_defs.get(name)?.clone();
    if let [d] = defs.as_slice() {
        if matches!(d.kind, DefKind::Other) && d.stmt.kind_name().starts_with("import") {
            return a.ix.imports.get(name).cloned().map(Fact::Alias);
        }
    }
    if let Some(t) = a.type_alias(name) {
        return Some(Fact::TypeAlias(t));
    }
    let mut values = Vec::new();
    for d in &defs {
        values.push(match d.kind {
            DefKind::Expr(e) => a.eval(e, &Ctx::at(None)),
            _ => Value::Unknown,
        });
    }
    let mut assigned_in_functions = false;
    for f in 0..a.ix.funcs.len() {
        if !a.ix.funcs[f].nonlocal.iter().any(|n| n == name) {
            continue;
        }
        let Some(fdefs) = a.ix.funcs[f].defs.get(name).cloned() else {
            continue;
        };
        for d in fdefs {
            assigned_in_functions = true;
            values.push(match d.kind {
                DefKind::Expr(e) => a.eval(e, &Ctx::at(Some(f))),
                _ => Value::Unknown,
            });
        }
    }
    if !assigned_in_functions {
        if let [v] = values.as_slice() {
            match v {
                Value::Str(t) => return Some(Fact::Str(sanitize(t, qual, false))),
                Value::Int(i) => return Some(Fact::Int(*i)),
                Value::Seq {
                    items,
                    family: false,
                } if (2..=32).contains(&items.len())
                    && matches!(&defs[..], [d] if matches!(d.kind, DefKind::Expr(e)
                        if matches!(e.kind_name(), "list" | "tuple")))
                    && !mutated_in_place(a.src(), name) =>
                {
                    let listed: Option<Vec<Tpl>> = items
                        .iter()
                        .map(|e| match &e.value {
                            Value::Str(t) if !e.star && e.each.is_empty() => {
                                Some(sanitize(t, qual, false))
                            }
                            _ => None,
                        })
                        .collect();
                    if let Some(listed) = listed {
                        return Some(Fact::StrList(listed.into()));
                    }
                }
                Value::Script(id) => {
                    let id = *id;
                    let wrapper = a.scripts.get(id)?.wrapper.clone();
                    return match script_text(a, id)? {
                        Fact::Script(text, k) => Some(Fact::ScriptObj(text, k, wrapper)),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
    }
    // `r = None` until `configure()` assigns the client.
    let set: Vec<Value<'_>> = values
        .into_iter()
        .filter(|v| !matches!(v, Value::Null))
        .collect();
    if let Some(k) = merge_clients(&set) {
        return Some(Fact::Client(k));
    }
    (!assigned_in_functions
        && matches!(
            set.as_slice(),
            [Value::Opaque(_) | Value::Unknown | Value::Symbol(_)]
        )
        && ext_object(a, &defs))
    .then_some(Fact::ExtObject)
}

/// Whether the one definition of a module global is `name = f(…)` at module level
/// with `f` imported from a library: not this project, not redis-py (whose objects
/// are known) and none of the look-alike libraries, whose objects are never clients.
fn ext_object<'t>(a: &mut Analyzer<'t>, defs: &[crate::index::Def<'t>]) -> bool {
    let [d] = defs else {
        return false;
    };
    let DefKind::Expr(e) = d.kind else {
        return false;
    };
    if e.kind_name() != "call" || d.stmt.kind_name() != "assignment" {
        return false;
    }
    let Some(f) = e.field(Field::Function) else {
        return false;
    };
    // What the callee names, as an import gives it (`flask_maple.redis.Redis`).
    let Value::Symbol(path) = a.eval(f, &Ctx::at(None)) else {
        return false;
    };
    !path.starts_with('.')
        && !path.ends_with(')')
        && !crate::byuse::client_or_lookalike(&path)
        && !crate::byuse::under(&path, "builtins")
        && a.project.is_some_and(|s| s.locate(&path).is_none())
}

/// The class of this module that the module global `name` is bound to an object of,
/// once, at module level (`red = RedormClient()`), and never in a function, unless
/// the module-level binding is annotated with the class itself (`kvrocks_client:
/// KvrocksClient = KvrocksClient()`, which a `set_client` replaces through `global`):
/// the annotation declares what every binding holds.
pub(crate) fn module_object_class(a: &Analyzer<'_>, name: &str) -> Option<String> {
    let [d] = a.ix.module_defs.get(name)?.as_slice() else {
        return None;
    };
    let DefKind::Expr(e) = d.kind else {
        return None;
    };
    if e.kind_name() != "call" || d.stmt.kind_name() != "assignment" {
        return None;
    }
    let f = e.field(Field::Function)?;
    if f.kind_name() != "identifier" {
        return None;
    }
    let cname = text(f, a.src());
    let declared = d.annotation.is_some_and(|an| text(an, a.src()) == cname);
    if !a.ix.class_by_name.contains_key(cname)
        || a.ix.module_defs.get(cname).map(Vec::len) != Some(1)
        || (!declared
            && a.ix.funcs.iter().any(|info| {
                info.nonlocal.iter().any(|n| n == name) && info.defs.contains_key(name)
            }))
    {
        return None;
    }
    Some(cname.to_string())
}

/// Placeholder arguments for the parameters of `fid` after the first `skip`.
fn placeholders<'t>(a: &Analyzer<'t>, fid: FuncId, skip: usize) -> Option<Vec<Elem<'t>>> {
    let info = &a.ix.funcs[fid];
    let mut out = Vec::new();
    for (i, p) in info.params.iter().skip(skip).enumerate() {
        if p.star {
            return None;
        }
        out.push(Elem {
            value: placeholder('p', i, &p.name),
            node: p.node,
            star: false,
            each: Vec::new(),
        });
    }
    Some(out)
}

/// A key builder whose template holds when the call leaves out its trailing
/// parameters that default to `None` (each then `None` in the body), the others
/// being placeholders; `None` when there are none or the body builds no template.
fn none_tail_builder(
    a: &mut Analyzer<'_>,
    fid: FuncId,
    bound: Option<crate::index::ClassId>,
    skip: usize,
    qual: &str,
    instance: bool,
) -> Option<Builder> {
    let info = a.ix.funcs[fid].clone();
    let ps: Vec<_> = info.params.iter().skip(skip).collect();
    let tail = ps
        .iter()
        .rev()
        .take_while(|p| !p.star && p.default.is_some_and(|d| d.kind_name() == "none"))
        .count();
    if tail == 0 || tail == ps.len() || ps.iter().any(|p| p.star) {
        return None;
    }
    let lead = ps.len() - tail;
    let mut pos = placeholders(a, fid, skip)?;
    for e in pos.iter_mut().skip(lead) {
        e.value = Value::Null;
    }
    let Some(Value::Str(t)) = a.call_builder(fid, bound, pos, Vec::new(), &Ctx::at(None)) else {
        return None;
    };
    let mut params = params(a, fid, skip, qual);
    params.truncate(lead);
    Some(Builder {
        params,
        ret: sanitize(&t, qual, instance),
        instance,
        family: None,
        star: Vec::new(),
        none_tail: ps[lead..].iter().map(|p| p.name.clone()).collect(),
    })
}

/// Whether a call's arguments leave out every parameter of `tail`, after the
/// `lead` parameters it may pass by position.
fn leaves_out(
    nav: &crate::syntax::Nav<'_>,
    src: &str,
    args: Option<Node<'_>>,
    lead: usize,
    tail: &[String],
) -> bool {
    let Some(args) = args else { return true };
    let mut positional = 0;
    for k in nav.named_children(args) {
        match k.kind_name() {
            "comment" => {}
            "keyword_argument" => {
                let named = k.field(Field::Name).map(|n| text(n, src));
                if named.is_none_or(|n| tail.iter().any(|t| t == n)) {
                    return false;
                }
            }
            "list_splat" | "dictionary_splat" => return false,
            _ => positional += 1,
        }
    }
    positional <= lead
}

/// The text of a default written at `d` (evaluated in function `scope`, or at module
/// level), when it is a string or a number.
fn default_text<'t>(
    a: &mut Analyzer<'t>,
    d: Node<'t>,
    scope: Option<FuncId>,
    qual: &str,
) -> Option<Tpl> {
    match a.eval(d, &Ctx::at(scope)) {
        Value::Str(t) => Some(sanitize(&t, qual, false)),
        Value::Int(i) => Some(Tpl::text(i.to_string().as_bytes())),
        _ => None,
    }
}

/// The parameters of `fid` after the first `skip`, with their defaults.
fn params(a: &mut Analyzer<'_>, fid: FuncId, skip: usize, qual: &str) -> Vec<Param> {
    let info = a.ix.funcs[fid].clone();
    let mut out = Vec::new();
    for p in info.params.iter().skip(skip) {
        let default = p
            .default
            .and_then(|d| default_text(a, d, info.parent, qual));
        out.push(Param {
            name: p.name.clone(),
            default,
            has_default: p.default.is_some(),
            truth: p.default.and_then(|d| literal_truth(d, a.src())),
        });
    }
    out
}

/// A module name every definition of which is a function of one parameter that
/// gives back its argument's text (`return s`, `s.encode(…)`, `s.decode(…)`,
/// `str(s)`, under `if isinstance(s, …):` guards), defined once per arm of module
/// `if`s (a Python 2/3 compatibility helper): those functions, any of whose facts
/// stands for all of them.
fn text_helper_variants(a: &Analyzer<'_>, name: &str) -> Option<Vec<FuncId>> {
    let defs = &a.ix.module_defs[name];
    let fids: Vec<FuncId> = (0..a.ix.funcs.len())
        .filter(|&f| {
            let info = &a.ix.funcs[f];
            info.parent.is_none() && info.class.is_none() && !info.is_lambda && info.name == name
        })
        .collect();
    if fids.len() != defs.len() || fids.len() > 4 {
        return None;
    }
    let src = a.src();
    let nav = a.ix.nav;
    let gives_text = |e: Node<'_>, p: &str| -> bool {
        let e = match e.kind_name() {
            "parenthesized_expression" => match e.named_child(0) {
                Some(x) => x,
                None => return false,
            },
            _ => e,
        };
        match e.kind_name() {
            "identifier" => text(e, src) == p,
            "call" => {
                let Some(f) = e.field(Field::Function) else {
                    return false;
                };
                match f.kind_name() {
                    // `str(s)`
                    "identifier" => {
                        text(f, src) == "str"
                            && !a.ix.module_defs.contains_key("str")
                            && crate::eval::arg_nodes(nav, e.field(Field::Arguments))
                                .first()
                                .is_some_and(|x| {
                                    x.kind_name() == "identifier" && text(*x, src) == p
                                })
                    }
                    // `s.encode("latin-1")`, `s.decode("utf-8")`, `s.encode(ENCODING)`
                    "attribute" => {
                        f.field(Field::Object)
                            .is_some_and(|o| o.kind_name() == "identifier" && text(o, src) == p)
                            && f.field(Field::Attribute)
                                .is_some_and(|m| matches!(text(m, src), "encode" | "decode"))
                            && plain_codec(a, e)
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    };
    for &f in &fids {
        let info = &a.ix.funcs[f];
        let [param] = info.params.as_slice() else {
            return None;
        };
        if param.star || param.default.is_some() || !info.decorators.is_empty() {
            return None;
        }
        let p = param.name.as_str();
        let stmts: Vec<Node<'_>> = nav
            .named_children(info.body)
            .filter(|s| {
                s.kind_name() != "comment" && s.kind_name() != "expression_statement"
                    || s.named_child(0).is_some_and(|x| x.kind_name() != "string")
            })
            .collect();
        let (last, init) = stmts.split_last()?;
        let ret_ok = |r: &Node<'_>| {
            r.kind_name() == "return_statement"
                && r.named_child(0).is_some_and(|e| gives_text(e, p))
        };
        if !ret_ok(last) {
            return None;
        }
        for s in init {
            // `if isinstance(s, bytes): return s.decode(…)`, nothing else.
            if s.kind_name() != "if_statement"
                || nav
                    .named_children(*s)
                    .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
            {
                return None;
            }
            let body: Vec<Node<'_>> = s
                .field(Field::Consequence)
                .map(|b| {
                    nav.named_children(b)
                        .filter(|x| x.kind_name() != "comment")
                        .collect()
                })
                .unwrap_or_default();
            let [r] = body.as_slice() else {
                return None;
            };
            if !ret_ok(r) {
                return None;
            }
        }
    }
    Some(fids)
}

/// Whether the codec of `call` (`s.encode(…)`/`s.decode(…)`) keeps ASCII text as it
/// is: none given, one of UTF-8, ASCII or Latin-1 written as a literal, or a name
/// that says it is the project's text encoding (`ENCODING`, `settings.CHARSET`),
/// whose value the code may not show: every such constant seen is UTF-8.
fn plain_codec(a: &Analyzer<'_>, call: Node<'_>) -> bool {
    let src = a.src();
    let args = crate::eval::arg_nodes(a.ix.nav, call.field(Field::Arguments));
    match args.as_slice() {
        [] => true,
        [x] if x.kind_name() == "string" => {
            let t = text(*x, src)
                .to_ascii_lowercase()
                .replace(['-', '_', '"', '\'', ' '], "");
            crate::eval::keeps_ascii(&t)
        }
        [x] => crate::eval::names_an_encoding(*x, src),
        _ => false,
    }
}

/// A module helper that gives back its one parameter's text ([`text_helper_variants`]),
/// defined once: a builder whose key is the argument's text (`def b(s): return
/// s.encode(ENCODING)`, imported by the modules that build keys with it).
fn text_helper_fact(a: &mut Analyzer<'_>, name: &str, qual: &str) -> Option<Fact> {
    let fids = text_helper_variants(a, name)?;
    let &[fid] = fids.as_slice() else {
        return None;
    };
    let p = a.ix.funcs[fid].params.first()?.name.clone();
    let Value::Opaque(h) = placeholder('p', 0, &p) else {
        return None;
    };
    Some(Fact::Builder(Arc::new(Builder {
        params: params(a, fid, 0, qual),
        ret: sanitize(&Tpl::hole(h), qual, false),
        instance: false,
        family: None,
        star: Vec::new(),
        none_tail: Vec::new(),
    })))
}

/// A function (or method) that builds a key or returns a client.
fn function_fact(
    a: &mut Analyzer<'_>,
    fid: FuncId,
    class: Option<crate::index::ClassId>,
    qual: &str,
    globals: &HashMap<String, Fact>,
) -> Option<Fact> {
    let info = a.ix.funcs[fid].clone();
    if let Some(ret) = info.node.field(Field::ReturnType) {
        if let Some(crate::eval::AnnotatedAs::Client(k)) = a.annotation(ret) {
            return Some(Fact::Factory(k));
        }
    }
    if let Some(c) = class {
        let name = info.name.clone();
        if let Some(r) = crate::remake::remake_fact(a, fid, c, &name, qual) {
            return Some(Fact::Remake(Arc::new(r)));
        }
    }
    body_fact(a, fid, class, qual, globals).or_else(|| {
        // `-> "Job"`: an instance of a class of the project.
        let name = returned_class(a, info.node.field(Field::ReturnType)?)?;
        Some(Fact::Returns(Arc::new(Returned {
            file: qual
                .trim_start_matches(QUALIFIED)
                .trim_end_matches("::")
                .to_string(),
            name,
        })))
    })
}

/// Most returns a builder summarised per arm may have.
const MAX_ARMS: usize = 4;

/// The facts of a builder with several returns, each a string template of its
/// parameters (and instance): [`Fact::Arms`].
fn arms_builder(
    a: &mut Analyzer<'_>,
    fid: FuncId,
    bound: Option<crate::index::ClassId>,
    skip: usize,
    qual: &str,
    instance: bool,
) -> Option<Fact> {
    let info = a.ix.funcs[fid].clone();
    let rets = crate::eval::builder_returns(a.ix.nav, a.src(), &info)?;
    if rets.len() < 2 || rets.len() > MAX_ARMS {
        return None;
    }
    let pos = placeholders(a, fid, skip)?;
    let arms = a.builder_arms(fid, bound, pos, &Ctx::at(None))?;
    if arms.len() != rets.len() {
        return None;
    }
    let ps = params(a, fid, skip, qual);
    let tests = arm_tests(a, &info, &rets, &ps);
    let mut out = Vec::with_capacity(arms.len());
    for (v, r) in arms.into_iter().zip(rets) {
        // `return key` (or `return key_value` of `key_value = key`): the
        // parameter's text (an arm of any other unknown value leaves the builder
        // unsummarised).
        let names_param = r.kind_name() == "identifier"
            && info
                .params
                .iter()
                .skip(skip)
                .any(|p| !p.star && p.name == text(r, a.src()));
        let t = match v {
            Value::Str(t) => t,
            Value::Opaque(ref h)
                if names_param || exact_marker(&h.binding).is_some_and(|(k, _)| k == 'p') =>
            {
                a.to_tpl(&v, r, &Ctx::at(None))
            }
            _ => return None,
        };
        out.push(Builder {
            params: ps.clone(),
            ret: sanitize(&t, qual, instance),
            instance,
            family: None,
            star: Vec::new(),
            none_tail: Vec::new(),
        });
    }
    Some(Fact::Arms(out.into(), tests.map(Into::into)))
}

/// The parameter test that takes each arm but the last of a builder whose body is
/// `if p: return …` (or `if not p:`) statements, with no `else`, then one last
/// `return …`: the parameter's index among `ps` and the truth that takes the arm.
/// `None` for any other shape.
fn arm_tests(
    a: &Analyzer<'_>,
    info: &crate::index::FuncInfo<'_>,
    rets: &[Node<'_>],
    ps: &[Param],
) -> Option<Vec<(usize, bool)>> {
    let (nav, src) = (a.ix.nav, a.src());
    let (last, guarded) = rets.split_last()?;
    if nav.parent(nav.parent(*last)?)? != info.body {
        return None;
    }
    let mut out = Vec::with_capacity(guarded.len());
    for r in guarded {
        // `return` as the only statement of an `if`'s block at the body's top level.
        let stmt = nav.parent(*r)?;
        let block = nav.parent(stmt)?;
        let iff = nav.parent(block)?;
        if stmt.kind_name() != "return_statement"
            || block.kind_name() != "block"
            || iff.kind_name() != "if_statement"
            || nav.parent(iff)? != info.body
            || iff.field(Field::Consequence)? != block
            || nav
                .named_children(block)
                .filter(|x| x.kind_name() != "comment")
                .count()
                != 1
            || nav
                .named_children(iff)
                .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
        {
            return None;
        }
        let mut cond = iff.field(Field::Condition)?;
        let mut want = true;
        if cond.kind_name() == "not_operator" {
            cond = cond.named_child(0)?;
            want = false;
        }
        if cond.kind_name() != "identifier" {
            return None;
        }
        let name = text(cond, src);
        let i = ps.iter().position(|p| p.name == name)?;
        out.push((i, want));
    }
    Some(out)
}

/// What a function's body says it builds or returns: a key, a client.
fn body_fact(
    a: &mut Analyzer<'_>,
    fid: FuncId,
    class: Option<crate::index::ClassId>,
    qual: &str,
    globals: &HashMap<String, Fact>,
) -> Option<Fact> {
    let info = a.ix.funcs[fid].clone();
    let is_static = info.is_staticmethod();
    let (skip, bound, instance) = match class {
        None => (0, None, false),
        Some(_) if is_static => (0, None, false),
        Some(_) if info.is_classmethod() => (1, None, false),
        Some(c) => (1, Some(c), true),
    };
    // `def register_script(self, script): return self.conn.register_script(script)`:
    // the position after `self`.
    if instance {
        if let Some((pos, name)) = a.script_param(fid) {
            return Some(Fact::ScriptParam(pos, name.into()));
        }
    }
    // `STORE[script] = client.register_script(script)`, `return STORE[script]`.
    if class.is_none() {
        if let Some((pos, name)) = a.script_param(fid) {
            return Some(Fact::ScriptParam(pos, name.into()));
        }
        if let Some(sig) = a.eval_wrapper(fid) {
            return Some(Fact::EvalWrapper(sig));
        }
        if let Some(pos) = crate::chunks::chunked_param(a.ix.nav, a.src(), &info, 0) {
            return Some(Fact::Chunker(pos));
        }
    }
    // `def pipeline_context(): return redis.utils.pipeline(RedisManager.get())`.
    if let Some(k) = a.returns_utils_pipeline(fid) {
        return Some(Fact::PipelineCm(k));
    }
    // `def redis_pipeline(transaction=True): return r.pipeline(transaction=transaction)`.
    if let Some((k, tx)) = pipe_factory(a, fid, skip) {
        return Some(Fact::PipeFactory(k, tx));
    }
    // `@asynccontextmanager async def _get_pipeline(self)`: yields its own
    // transaction.
    if let Some(k) = a.yields_own_pipeline(fid) {
        return Some(Fact::PipelineCm(k));
    }
    // `def eval(self, script, numkeys, *rest): return self.client.eval(script,
    // numkeys, *rest)`.
    if instance {
        if let Some(k) = forwards_to_client(a, fid) {
            return Some(Fact::Forward(k));
        }
    }
    // `def format_key(template, **kwargs): return template.format(**kwargs)`.
    if !instance {
        if let Some((pos, name)) = crate::fmtcall::formats_param(a.ix.nav, a.src(), &info, skip) {
            return Some(Fact::Formats(pos, name.into()));
        }
    }
    // A builder with several returns is summarised for its own module only: its
    // joined shapes name the placeholders, which a call site elsewhere cannot bind.
    let one_return =
        crate::eval::builder_returns(a.ix.nav, a.src(), &info).is_none_or(|r| r.len() == 1);
    if let Some(pos) = placeholders(a, fid, skip).filter(|_| one_return) {
        match a.call_builder(fid, bound, pos, Vec::new(), &Ctx::at(None)) {
            Some(Value::Str(t)) => {
                return Some(Fact::Builder(Arc::new(Builder {
                    params: params(a, fid, skip, qual),
                    ret: sanitize(&t, qual, instance),
                    instance,
                    family: None,
                    star: Vec::new(),
                    none_tail: Vec::new(),
                })));
            }
            // A list or dict comprehension of keys (`return {f"{path}:{n}": … for n
            // in NAMES}`): the family of its member.
            Some(v @ (Value::Seq { .. } | Value::Dict(..))) => {
                if let Some(b) = family_builder(a, fid, skip, qual, instance, &v) {
                    return Some(b);
                }
            }
            Some(Value::Client(k)) => return Some(Fact::Factory(k)),
            Some(Value::Script(id)) if class.is_none() => return script_fact(a, id),
            _ => {}
        }
    }
    // A generator of keys of one family (`for key in keys: yield key` over the
    // replies of a `SCAN` loop): the family of what it yields, of the placeholders.
    let generated = placeholders(a, fid, skip)
        .filter(|_| one_return)
        .and_then(|pos| a.call_generator(fid, bound, pos, Vec::new(), &Ctx::at(None)));
    if let Some(b) = generated.and_then(|v| family_builder(a, fid, skip, qual, instance, &v)) {
        return Some(b);
    }
    // `if self.prefix: return f"{self.prefix}:{key}"` / `return key`: a template
    // per return, each a key of its own.
    if !one_return {
        if let Some(b) = arms_builder(a, fid, bound, skip, qual, instance) {
            return Some(b);
        }
    }
    // `def _key(self, *parts)`: one template per count of arguments.
    if one_return {
        if let Some(vs) = crate::starbuild::star_variants(a, fid, bound, skip) {
            let mut ps = params(a, fid, skip, qual);
            ps.pop();
            let star = vs
                .iter()
                .filter_map(|v| match v {
                    Value::Str(t) => Some(sanitize(t, qual, instance)),
                    _ => None,
                })
                .collect();
            return Some(Fact::Builder(Arc::new(Builder {
                params: ps,
                ret: Tpl::default(),
                instance,
                family: None,
                star,
                none_tail: Vec::new(),
            })));
        }
        // `return f"m:{ns}:{sid}" if ns else f"m:{sid}"`, `ns=None`: the key of a call
        // that leaves `ns` out.
        if let Some(b) = none_tail_builder(a, fid, bound, skip, qual, instance) {
            return Some(Fact::Builder(Arc::new(b)));
        }
    }
    // `if conn not in CACHE: CACHE[conn] = conn.register_script(LUA)`, `return
    // CACHE[conn]`.
    if class.is_none() {
        let ctx = Ctx::at(None);
        if let Some(Value::Script(id)) = a
            .memo_factory(fid, &ctx)
            .or_else(|| a.returned_script(fid, &ctx))
            .or_else(|| a.attr_memo_script(fid, &ctx))
        {
            return script_fact(a, id);
        }
    }
    // A function whose every `return` gives a client (a cached module global too).
    let mut returns = Vec::new();
    collect_returns(&a.ix, info.body, &mut returns);
    if returns.is_empty() || returns.len() > 8 {
        return None;
    }
    // Only a return that reads like a client is evaluated: most functions of a big
    // module return something else, and evaluating them all would cost as much as
    // linting the module again.
    let clientish = |e: Node<'_>| {
        let t = text(e, a.src());
        if e.kind_name() == "identifier" {
            return matches!(globals.get(t), Some(Fact::Client(_)));
        }
        let t = t.to_ascii_lowercase();
        ["redis", "client", "conn", "cluster", "from_url", "pool"]
            .iter()
            .any(|w| t.contains(w))
    };
    if !returns
        .iter()
        .all(|r| r.named_child(0).is_some_and(clientish))
    {
        return None;
    }
    let mut kinds = Vec::new();
    for r in returns {
        let v = match r.named_child(0) {
            Some(e) => {
                let v = a.eval(e, &Ctx::at(Some(fid)));
                match v {
                    Value::Client(_) => v,
                    _ if e.kind_name() == "identifier" => match globals.get(text(e, a.src())) {
                        Some(Fact::Client(k)) => Value::Client(*k),
                        _ => v,
                    },
                    _ => v,
                }
            }
            None => Value::Null,
        };
        match v {
            Value::Client(k) => kinds.push(Value::Client(k)),
            // Another client the function may return instead (`return
            // cache.client.get_client()` beside `return redis.Redis.from_url(url)`):
            // what it returns on every path is used as one client, of a kind then
            // unknown (the profile decides).
            Value::Opaque(_) | Value::Unknown | Value::Foreign
                if r.named_child(0).is_some_and(|e| e.kind_name() == "call") =>
            {
                kinds.push(Value::Unknown)
            }
            _ => return None,
        }
    }
    if !kinds.iter().any(|v| matches!(v, Value::Client(_))) {
        return None;
    }
    merge_clients(&kinds).map(Fact::Factory)
}

/// The builder of function `fid` whose value `v` is a family of keys (a comprehension
/// it returns, the keys it yields): the family of its member.
fn family_builder(
    a: &mut Analyzer<'_>,
    fid: FuncId,
    skip: usize,
    qual: &str,
    instance: bool,
    v: &Value<'_>,
) -> Option<Fact> {
    let (t, shape) = crate::chunks::family_member(v)?;
    Some(Fact::Builder(Arc::new(Builder {
        params: params(a, fid, skip, qual),
        ret: sanitize(&t, qual, instance),
        instance,
        family: Some(shape),
        star: Vec::new(),
        none_tail: Vec::new(),
    })))
}

/// A method whose body (a docstring aside) is only `return <client>.<m>(…)` (or its
/// `await`), `m` its own name, with its parameters after `self` passed in order as they
/// are (`p`, `p=p`, `*args`, `**kwargs`): the kind of that client.
fn forwards_to_client(a: &mut Analyzer<'_>, fid: FuncId) -> Option<ClientKind> {
    let info = a.ix.funcs[fid].clone();
    if info.is_lambda || !info.plainly_called() || info.class.is_none() {
        return None;
    }
    let src = a.src();
    let nav = a.ix.nav;
    let stmts = a.ix.body_statements(info.body);
    let [ret] = stmts.as_slice() else {
        return None;
    };
    if ret.kind_name() != "return_statement" {
        return None;
    }
    let call = crate::syntax::unawaited(ret.named_child(0)?)?;
    if call.kind_name() != "call" {
        return None;
    }
    let func = call.field(Field::Function)?;
    if func.kind_name() != "attribute" || text(func.field(Field::Attribute)?, src) != info.name {
        return None;
    }
    // The parameters after `self`, each passed once, in order, as it is.
    let params = info.params.get(1..)?;
    let args: Vec<Node<'_>> = call
        .field(Field::Arguments)
        .map(|x| {
            nav.named_children(x)
                .filter(|c| c.kind_name() != "comment")
                .collect()
        })
        .unwrap_or_default();
    if args.len() != params.len() {
        return None;
    }
    for (p, arg) in params.iter().zip(&args) {
        if info.defs.get(&p.name).is_some_and(|d| d.len() > 1) {
            return None;
        }
        let star = nav.parent(p.node).map(|n| n.kind_name()).unwrap_or("");
        let passed = match (star, arg.kind_name()) {
            ("list_splat_pattern", "list_splat")
            | ("dictionary_splat_pattern", "dictionary_splat") => arg.named_child(0),
            (_, "keyword_argument") if !p.star => {
                (text(arg.field(Field::Name)?, src) == p.name).then(|| arg.field(Field::Value))?
            }
            (_, "identifier") if !p.star => Some(*arg),
            _ => None,
        };
        if passed.is_none_or(|x| x.kind_name() != "identifier" || text(x, src) != p.name) {
            return None;
        }
    }
    let recv = func.field(Field::Object)?;
    match a.eval(recv, &Ctx::at(Some(fid))) {
        Value::Client(k) => Some(k),
        _ => None,
    }
}

/// A function whose last statement returns `<client>.pipeline(…)` and that returns
/// nothing else: the client's kind and how the pipeline's transaction is chosen.
fn pipe_factory(a: &mut Analyzer<'_>, fid: FuncId, skip: usize) -> Option<(ClientKind, PipeTx)> {
    let info = a.ix.funcs[fid].clone();
    if info.is_lambda || !info.plainly_called() {
        return None;
    }
    let src = a.src();
    let nav = a.ix.nav;
    // The last statement is the one `return`, and nothing nested returns or yields.
    let stmts = nav.statements(info.body);
    let ret = *stmts.last()?;
    if ret.kind_name() != "return_statement" {
        return None;
    }
    let mut stack: Vec<Node<'_>> = stmts[..stmts.len() - 1].to_vec();
    while let Some(x) = stack.pop() {
        match x.kind_name() {
            "function_definition" | "lambda" | "class_definition" => continue,
            "return_statement" | "yield" => return None,
            _ => stack.extend(nav.named_children(x)),
        }
    }
    let call = ret.named_child(0).filter(|c| c.kind_name() == "call")?;
    let func = call.field(Field::Function)?;
    if func.kind_name() != "attribute" || text(func.field(Field::Attribute)?, src) != "pipeline" {
        return None;
    }
    // aioredis 1.x pipelines are not summarised (their transaction is not
    // `pipeline(…)`'s).
    if a.aioredis1() {
        return None;
    }
    let args: Vec<Node<'_>> = call
        .field(Field::Arguments)
        .map(|x| {
            a.ix.nav
                .named_children(x)
                .filter(|c| c.kind_name() != "comment")
                .collect()
        })
        .unwrap_or_default();
    let given = match args.as_slice() {
        [] => None,
        [one] => Some(match one.kind_name() {
            "keyword_argument" => {
                if one.field(Field::Name).map(|n| text(n, src)) != Some("transaction") {
                    return None;
                }
                one.field(Field::Value)?
            }
            "list_splat" | "dictionary_splat" => return None,
            _ => *one,
        }),
        _ => return None,
    };
    let literal = crate::eval::bool_literal;
    let tx = match given {
        None => PipeTx::Default,
        Some(v) => match literal(v) {
            Some(b) => PipeTx::Fixed(b),
            None if v.kind_name() == "identifier" => {
                let name = text(v, src);
                let idx = info.params.iter().position(|p| p.name == name && !p.star)?;
                // The parameter must be the caller's value, never rebound.
                if info.defs.get(name).is_some_and(|d| d.len() > 1) {
                    return None;
                }
                let default = match info.params[idx].default {
                    Some(d) => Some(literal(d)?),
                    None => None,
                };
                PipeTx::Param(idx.checked_sub(skip)?, name.to_string(), default)
            }
            None => return None,
        },
    };
    let recv = func.field(Field::Object)?;
    match a.eval(recv, &Ctx::at(Some(fid))) {
        Value::Client(k) => Some((k, tx)),
        _ => None,
    }
}

/// A script factory's fact: the script's body, when its whole text is known.
fn script_fact(a: &mut Analyzer<'_>, id: crate::eval::ScriptId) -> Option<Fact> {
    // A script object of an `EVAL` wrapper is called with the wrapper's signature,
    // not as a registered script: a function that returns one is not summarised.
    if a.scripts.get(id)?.wrapper.is_some() {
        return None;
    }
    script_text(a, id)
}

/// The body's text and the client's kind of script `id` (see [`script_fact`]).
fn script_text(a: &mut Analyzer<'_>, id: crate::eval::ScriptId) -> Option<Fact> {
    let info = a.scripts.get(id)?.clone();
    let text: Arc<str> = match (&info.ext, info.body) {
        (Some(t), _) => t.clone(),
        (None, Some(b)) => match crate::script::body_of(a, b, info.func) {
            Some(body) => body.text.into(),
            // Registered from text this module does not show (a file it loads by
            // a name the caller passes): a script all the same.
            None if info.preamble.is_none() => return Some(Fact::OpaqueScript(info.client)),
            None => return None,
        },
        (None, None) => return None,
    };
    Some(Fact::Script(text, info.client))
}

/// The name of the class a return annotation names (`Job`, `"Job"`,
/// `Optional[Job]`, `Job | None`), when it is a class of this module or an import.
fn returned_class(a: &Analyzer<'_>, ret: Node<'_>) -> Option<String> {
    let raw = text(ret, a.src());
    let toks: Vec<&str> = raw
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty() && *t != "None")
        .collect();
    let one = match toks.as_slice() {
        [one] | ["Optional", one] => *one,
        _ => return None,
    };
    if a.ix.class_named(one).is_some() {
        return (a.ix.module_defs.get(one).map(Vec::len) == Some(1)).then(|| one.to_string());
    }
    let path = a.ix.imports.get(one)?;
    // The client library and the builtins are never the project's.
    (!path.starts_with("redis") && !path.starts_with("typing")).then(|| one.to_string())
}

/// The `return` statements of a function body, not of the functions inside it.
pub(crate) fn collect_returns<'t>(
    ix: &crate::index::Index<'t>,
    n: Node<'t>,
    out: &mut Vec<Node<'t>>,
) {
    for c in ix.nav.named_children(n) {
        match c.kind_name() {
            "return_statement" => out.push(c),
            k if crate::index::is_scope(k) => {}
            "decorated_definition" => {}
            _ => collect_returns(ix, c, out),
        }
        if out.len() > 8 {
            return;
        }
    }
}

/// The facts of a class.
fn class_fact(
    a: &mut Analyzer<'_>,
    c: crate::index::ClassId,
    module_qual: &str,
    globals: &HashMap<String, Fact>,
) -> ClassFacts {
    let cname = a.ix.classes[c].name.clone();
    let qual = format!("{module_qual}{cname}");
    let mut out = ClassFacts {
        qual: qual.clone(),
        client: a.client_class(c),
        str_like: a.plain_str_class(c),
        is_enum: crate::eval::enum_bases(&a.ix.classes[c].bases),
        ..ClassFacts::default()
    };
    if out.client.is_some() {
        // Its own helpers that build keys, called on an object of the class by other
        // modules (`redis_client.get_prefix(p)`, `Analyzer::imported_client_object`):
        // methods whose name is not one of the client's, of what they are passed.
        if a.mentions_redis {
            let own: Vec<(String, FuncId)> = a.ix.classes[c]
                .methods
                .iter()
                .filter(|(m, _)| !m.starts_with("__") && !crate::proxies::client_name(m))
                .map(|(m, &f)| (m.clone(), f))
                .collect();
            for (name, m) in own {
                // Not one that reads the object's own attributes: which object of
                // the class it is called on is not known.
                if let Some(Fact::Builder(b)) = function_fact(a, m, Some(c), module_qual, globals) {
                    if !b.reads_self() {
                        out.methods.insert(name.clone(), Fact::Builder(b));
                    }
                }
                // A transaction wrapper (`cache.protected_handler(cb, *keys)`).
                if let Some(w) = a.wrapper_fact(m) {
                    out.tx_wrappers.insert(name, w);
                }
            }
        }
        return out;
    }
    let Some(dummy) = a.ix.classes[c].node.field(Field::Name) else {
        return out;
    };
    (out.ctor, out.ctor_kwargs) = match ctor_fact(a, c, module_qual) {
        Some((ps, kw)) => (Some(ps), kw),
        None => (None, false),
    };
    if a.defines(c, "__init__").is_none() {
        out.record = record_ctor(a, c, module_qual);
        if let Some((ps, _)) = &out.record {
            out.ctor = Some(ps.clone());
        }
    }
    // An `Enum` without a constructor of its own: a member is made from its value
    // (`Key("q:queue")` is the member of that value), and its methods read it as
    // `self.value`.
    if out.is_enum {
        out.enum_values = a.enum_member_values(c).map(Into::into);
    }
    if out.is_enum && out.record.is_none() && a.defines(c, "__init__").is_none() {
        a.field_override
            .insert((c, "value".to_string()), placeholder('c', 0, "value"));
        out.ctor = Some(vec![Param::named("value", false)]);
    }
    let (class_level, mut attrs, methods) = class_members(a, c);
    // Attributes of bases imported from other modules, read through them: the
    // registries of scripts always; the other attributes only when this class's
    // constructor binds the base's parameters, so that the base's keys and this
    // class's own are built from the same values (`extbase.rs`).
    if let Some(base) = a.bound_imported_base(c) {
        attrs.extend(base.instance_attrs.keys().cloned());
    }
    for base in a.imported_bases(c) {
        attrs.extend(base.script_registries.keys().cloned());
    }
    // A record's fields are its objects' attributes (`keys.status`), each the
    // constructor's argument.
    if let Some((fields, _)) = &out.record {
        attrs.extend(fields.iter().map(|p| p.name.clone()));
    }
    attrs.sort();
    attrs.dedup();
    for name in &attrs {
        if !a.mentions_redis || !name.to_ascii_lowercase().contains("script") {
            continue;
        }
        if let Some(id) = a.attr_registry(Some(c), name) {
            out.script_registries
                .insert(name.clone(), a.scripts[id].client);
        }
    }
    let ctx = Ctx::at(None);
    for name in class_level {
        match a.class_attr(c, &name, dummy, &ctx) {
            Value::Str(t) => {
                out.class_attrs
                    .insert(name, Fact::Str(sanitize(&t, module_qual, false)));
            }
            Value::Int(i) => {
                out.class_attrs.insert(name, Fact::Int(i));
            }
            Value::Client(k) => {
                out.class_attrs.insert(name, Fact::Client(k));
            }
            _ => {}
        }
    }
    if out.ctor.is_some() {
        for name in attrs {
            // An object of another module's class that the class declares.
            if let Some(x) = a.self_attr_typed(c, &name) {
                out.instance_attrs
                    .insert(name, Fact::Typed(x.class.clone()));
                continue;
            }
            // `self.key = key or self._new_key()`: the fresh default, one per object.
            if let Some(i) = a.fresh_default_param(c, &name) {
                let t = crate::basefacts::fresh_key(&cname, &name, module_qual);
                out.fresh_keys.insert(name.clone(), i);
                out.instance_attrs.insert(name, Fact::Str(t));
                continue;
            }
            match a.instance_attr(c, &name, dummy, &ctx, true) {
                Value::Ext(x) => {
                    out.instance_attrs
                        .insert(name, Fact::Typed(x.class.clone()));
                }
                Value::Str(t) => {
                    out.instance_attrs
                        .insert(name, Fact::Str(sanitize(&t, module_qual, true)));
                }
                Value::Int(i) => {
                    out.instance_attrs.insert(name, Fact::Int(i));
                }
                Value::Client(k) => {
                    out.instance_attrs.insert(name, Fact::Client(k));
                }
                // `self.conn` set from a parameter and used in the class (and its
                // family in the module) as only a redis client is used.
                Value::Opaque(_) | Value::Unknown if a.attr_known_by_use(c, &name) => {
                    out.instance_attrs
                        .insert(name, Fact::Client(ClientKind::Unknown));
                }
                // `self.queue = queue`: the constructor's argument, as it is (`ext_attr`
                // gives the caller's value back, a string or not).
                Value::Opaque(h) if matches!(exact_marker(&h.binding), Some(('c', _))) => {
                    out.instance_attrs.insert(name, Fact::Str(Tpl::hole(h)));
                }
                _ => {}
            }
        }
    }
    // A context manager that hands out clients (`cmobject.rs`).
    if a.mentions_redis {
        out.entered = a.class_entered(c);
        out.call_self = out.entered.is_some() && a.call_returns_self(c);
    }
    for name in out.instance_attrs.keys() {
        if let Some(t) = crate::rebase::ctor_assign_text(a, c, name, false) {
            out.attr_texts.insert(name.clone(), t);
        }
    }
    for (name, m) in methods {
        let is_static = a.ix.funcs[m].is_staticmethod();
        let is_instance_method = !a.ix.funcs[m].is_classmethod() && !is_static;
        if is_instance_method && a.abstract_body(m) {
            out.abstract_methods.insert(name.clone());
        }
        if a.mentions_redis {
            if let Some(w) = cmd_wrap_fact(a, m, Some(c), &format!("{cname}.{name}"), module_qual) {
                out.cmds.insert(name.clone(), Arc::new(w));
            }
        }
        // A method that runs scripts over the keys its caller passes holds no
        // attribute of its object, so it is known also when the constructor's
        // arguments cannot be bound (`__init__(self, *args, **kwargs)`).
        if is_instance_method || is_static {
            if let Some(w) = script_wrap_fact(a, m, &cname, &name) {
                out.scripts.insert(name.clone(), Arc::new(w));
            }
        }
        if is_instance_method && out.ctor.is_none() {
            continue;
        }
        if let Some(f) = function_fact(a, m, Some(c), module_qual, globals) {
            out.methods.insert(name.clone(), f);
        }
        if is_instance_method {
            // A class it names by a name of this module is not carried.
            let guard = a
                .guard_fact(m)
                .filter(|g| !matches!(g.of, crate::guards::GuardOf::Named(_)));
            if let Some(g) = guard {
                out.guards.insert(name.clone(), g);
            }
            if let Some(w) = a.wrapper_fact(m) {
                out.tx_wrappers.insert(name.clone(), w);
            }
            if let Some(q) = queued_fact(a, m, Some(c), module_qual) {
                out.queues.insert(name, Arc::new(q));
            }
        }
    }
    // A class with no constructor of its own in this file is built by the
    // constructor of its one imported base, and has that base's facts for what it
    // does not define itself: the base as objects of this class see it, with the
    // string attributes this class gives literals of its own (`rebase.rs`).
    if a.defines(c, "__init__").is_none() {
        if let Some(base) = a.one_imported_base(c, |cf| Some(cf.clone())) {
            let ctor = out.ctor.take();
            inherit(&mut out, &base, &own_names(a, c));
            // A record class's constructor takes its fields, the base's among them.
            if out.record.is_some() {
                out.ctor = ctor;
                out.ctor_kwargs = false;
            }
        }
    }
    out
}

/// Every name the classes of the chain of class `c` define: class attributes,
/// methods and properties, instance attributes.
fn own_names(a: &Analyzer<'_>, c: crate::index::ClassId) -> HashSet<String> {
    let mut out = HashSet::new();
    for k in a.ix.class_chain(c) {
        let cls = &a.ix.classes[k];
        out.extend(cls.defs.keys().cloned());
        out.extend(cls.methods.keys().cloned());
        out.extend(cls.self_assigns.keys().cloned());
    }
    out
}

/// Gives `out` (a class with no constructor of its own) the facts of its imported
/// base for what the class does not define itself (`own`).
fn inherit(out: &mut ClassFacts, base: &ClassFacts, own: &HashSet<String>) {
    fn fill<V: Clone>(
        to: &mut HashMap<String, V>,
        from: &HashMap<String, V>,
        own: &HashSet<String>,
    ) {
        for (k, v) in from {
            if !own.contains(k) {
                to.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    if base.client.is_some() {
        return;
    }
    out.ctor.clone_from(&base.ctor);
    out.ctor_kwargs = base.ctor_kwargs;
    fill(&mut out.class_attrs, &base.class_attrs, own);
    fill(&mut out.instance_attrs, &base.instance_attrs, own);
    fill(&mut out.methods, &base.methods, own);
    fill(&mut out.queues, &base.queues, own);
    fill(&mut out.scripts, &base.scripts, own);
    fill(&mut out.cmds, &base.cmds, own);
    fill(&mut out.fresh_keys, &base.fresh_keys, own);
    fill(&mut out.script_registries, &base.script_registries, own);
    fill(&mut out.guards, &base.guards, own);
    fill(&mut out.tx_wrappers, &base.tx_wrappers, own);
}

/// The multi-key commands function `m` (a method of `c`) sends over keys its caller
/// passes (see `cmdwrap.rs`), when there is any.
fn cmd_wrap_fact(
    a: &mut Analyzer<'_>,
    m: FuncId,
    c: Option<crate::index::ClassId>,
    name: &str,
    module_qual: &str,
) -> Option<crate::cmdwrap::CmdWrap> {
    let cmds = a.wrapped_cmds(m, c, module_qual);
    if cmds.is_empty() {
        return None;
    }
    let info = &a.ix.funcs[m];
    let skip = usize::from(info.self_name().is_some());
    let on_class = c.is_none() || !info.decorators.is_empty();
    let rest = info.params.iter().skip(skip).position(|p| {
        p.star && a.ix.nav.parent(p.node).map(|s| s.kind_name()) == Some("list_splat_pattern")
    });
    Some(crate::cmdwrap::CmdWrap {
        name: name.to_string(),
        params: params(a, m, skip, module_qual),
        rest,
        on_class,
        cmds,
    })
}

/// The scripts method `m` runs over keys its caller passes, with their bodies'
/// text (see `scriptsites.rs`), when there is any.
fn script_wrap_fact(
    a: &mut Analyzer<'_>,
    m: FuncId,
    cname: &str,
    name: &str,
) -> Option<crate::scriptsites::ScriptWrap> {
    let mut calls = Vec::new();
    for (id, keys, client_param, line, open) in a.wrapped_scripts(m) {
        // A body not known (a script object known by its type) is judged by its
        // keys alone; so is one whose keys may go on past those the fact knows
        // (which `KEYS[i]` of the body they are is then not known).
        let text = match script_text(a, id) {
            Some(Fact::Script(text, _)) if !open => Some(text),
            _ => None,
        };
        calls.push(crate::scriptsites::WrappedScript {
            text,
            keys,
            client_param,
            line,
            whole: None,
            body_param: None,
            runs_on: None,
        });
    }
    calls.extend(forwarded_calls(a, m));
    if calls.is_empty() {
        return None;
    }
    // A static method's parameters are all its caller's.
    let on_class = a.ix.funcs[m].self_name().is_none();
    let params = a.ix.funcs[m]
        .params
        .iter()
        .skip(usize::from(!on_class))
        .map(|p| p.name.clone())
        .collect();
    Some(crate::scriptsites::ScriptWrap {
        name: format!("{cname}.{name}"),
        params,
        on_class,
        calls,
    })
}

/// The script calls of method or module function `m` that run over the key list a
/// parameter brings as it is (a script called with it, or `EVAL`/`EVALSHA` of it
/// spread after its count, with the body a parameter brings), as a wrapper fact
/// keeps them.
fn forwarded_calls(a: &mut Analyzer<'_>, m: FuncId) -> Vec<crate::scriptsites::WrappedScript> {
    let evaled = a.evaled_scripts(m);
    a.forwarded_scripts(m)
        .into_iter()
        .map(
            |(id, i, client_param, line)| crate::scriptsites::WrappedScript {
                text: match script_text(a, id) {
                    Some(Fact::Script(text, _)) => Some(text),
                    _ => None,
                },
                keys: Vec::new(),
                client_param,
                line,
                whole: Some(i),
                body_param: None,
                runs_on: None,
            },
        )
        .chain(evaled.into_iter().map(|(i, body, line, runs_on)| {
            crate::scriptsites::WrappedScript {
                text: None,
                keys: Vec::new(),
                client_param: None,
                line,
                whole: Some(i),
                body_param: body,
                runs_on,
            }
        }))
        .collect()
}

/// A module function whose script calls run over the key list a parameter brings
/// as it is ([`crate::lower::Analyzer::forwarded_scripts`]).
fn forwarding_wrap_fact(
    a: &mut Analyzer<'_>,
    f: FuncId,
    name: &str,
) -> Option<crate::scriptsites::ScriptWrap> {
    if !a.mentions_redis {
        return None;
    }
    let calls = forwarded_calls(a, f);
    if calls.is_empty() {
        return None;
    }
    Some(crate::scriptsites::ScriptWrap {
        name: name.to_string(),
        params: a.ix.funcs[f]
            .params
            .iter()
            .map(|p| p.name.clone())
            .collect(),
        calls,
        on_class: false,
    })
}

/// The constructor's parameters, which stand for the arguments of each instance,
/// and whether a last `**kwargs` takes the keywords it does not name (`None` when
/// it takes `*args`, or has keyword-only parameters).
fn ctor_fact(
    a: &mut Analyzer<'_>,
    c: crate::index::ClassId,
    module_qual: &str,
) -> Option<(Vec<Param>, bool)> {
    let init = a.defines(c, "__init__");
    match init {
        // A record class's constructor takes its fields (`record_ctor`).
        None => Some((Vec::new(), false)),
        Some(init) => {
            let mut ps = a.ix.funcs[init].params.clone();
            let kwargs = ctor_kwargs(a, init);
            if kwargs {
                ps.pop();
            }
            if ps.iter().skip(1).any(|p| p.star) {
                None
            } else {
                for (i, p) in ps.iter().skip(1).enumerate() {
                    // A parameter declared as a client is one (`connection: Redis`).
                    let v = match a.declared_client(init, &p.name) {
                        Some(k) => Value::Client(k),
                        None => placeholder('c', i, &p.name),
                    };
                    a.param_override.insert((init, p.node.start_byte()), v);
                }
                let mut out = params(a, init, 1, module_qual);
                if kwargs {
                    out.pop();
                }
                Some((out, kwargs))
            }
        }
    }
}

/// The constructor of a record class (`records.rs`): its fields, each bound to its
/// argument while the class's facts are read. No parameter for another class.
fn record_ctor(
    a: &mut Analyzer<'_>,
    c: crate::index::ClassId,
    module_qual: &str,
) -> Option<(Vec<Param>, bool)> {
    let (fields, pydantic) = a.record_fields(c)?;
    let mut out = Vec::with_capacity(fields.len());
    for (i, f) in fields.into_iter().enumerate() {
        a.field_override
            .insert((c, f.name.clone()), placeholder('c', i, &f.name));
        let default = match f.default {
            crate::records::Default::Inherited(p) => {
                out.push(p);
                continue;
            }
            crate::records::Default::Written(d) => default_text(a, d, None, module_qual),
            crate::records::Default::None => None,
        };
        out.push(Param {
            name: f.name,
            default,
            has_default: f.has_default,
            truth: None,
        });
    }
    Some((out, pydantic))
}

/// Whether a constructor's only star parameter is a last `**kwargs`, with no `*`
/// or `/` separator before it: its other parameters bind as written.
fn ctor_kwargs(a: &Analyzer<'_>, init: FuncId) -> bool {
    let Some(ps) = a.ix.funcs[init].node.field(Field::Parameters) else {
        return false;
    };
    let kids: Vec<Node<'_>> = a.ix.nav.named_children(ps).collect();
    let Some((last, rest)) = kids.split_last() else {
        return false;
    };
    let is_kwargs = |n: &Node<'_>| match n.kind_name() {
        "dictionary_splat_pattern" => true,
        "typed_parameter" => n
            .named_child(0)
            .is_some_and(|i| i.kind_name() == "dictionary_splat_pattern"),
        _ => false,
    };
    is_kwargs(last)
        && rest.iter().all(|n| {
            matches!(
                n.kind_name(),
                "identifier" | "default_parameter" | "typed_default_parameter"
            ) || (n.kind_name() == "typed_parameter"
                && n.named_child(0)
                    .is_some_and(|i| i.kind_name() == "identifier"))
        })
}

/// The names a class and its bases define: class-level names, instance attributes
/// (with properties), and methods (not dunder), each sorted and deduplicated.
#[allow(clippy::type_complexity)]
fn class_members(
    a: &Analyzer<'_>,
    c: crate::index::ClassId,
) -> (Vec<String>, Vec<String>, Vec<(String, FuncId)>) {
    let chain = a.ix.class_chain(c);
    let mut attrs: Vec<String> = Vec::new();
    let mut class_level: Vec<String> = Vec::new();
    let mut methods: Vec<(String, FuncId)> = Vec::new();
    for &k in &chain {
        let cls = &a.ix.classes[k];
        for (name, defs) in &cls.defs {
            if defs.len() == 1 && !cls.methods.contains_key(name) {
                class_level.push(name.clone());
            }
        }
        attrs.extend(cls.self_assigns.keys().cloned());
        for (name, &m) in &cls.methods {
            if a.ix.funcs[m].is_property() {
                attrs.push(name.clone());
            } else if !name.starts_with("__") {
                methods.push((name.clone(), m));
            }
        }
    }
    class_level.sort();
    class_level.dedup();
    attrs.sort();
    attrs.dedup();
    // A stable sort by name keeps the chain's order among methods of one name, so
    // that a class's own method, not the one it overrides, is the one kept.
    methods.sort_by(|x, y| x.0.cmp(&y.0));
    methods.dedup_by(|x, y| x.0 == y.0);
    (class_level, attrs, methods)
}

/// Whether a parameter's name says it brings a pipeline.
pub(crate) fn pipe_param_name(name: &str) -> bool {
    let n = name.trim_start_matches('_').to_ascii_lowercase();
    n == "p" || n == "pipe" || n.contains("pipeline")
}

/// The one parameter of function `m` that its body uses as a client, named as
/// one (`connection`, `client`, `redis`) or declared as one (`connection:
/// ConnectionType`), when the body only sends commands through it: a caller may
/// hand it a pipeline (`registry.delete(connection=pipe, …)`), which then queues
/// them. A body that makes its own pipeline, transaction, lock or script on it, or
/// executes it, is not read so.
fn receiver_param(
    a: &Analyzer<'_>,
    m: FuncId,
    after: &[&crate::index::ParamInfo<'_>],
) -> Option<usize> {
    const NAMES: &[&str] = &[
        "connection",
        "conn",
        "client",
        "redis",
        "redis_client",
        "redis_conn",
        "redis_connection",
        "broker_connection",
    ];
    let mut found = None;
    for (i, p) in after.iter().enumerate() {
        let named = NAMES.contains(&p.name.trim_start_matches('_'));
        if !named && a.declared_client(m, &p.name).is_none() {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(i);
    }
    let i = found?;
    let name = &after[i].name;
    let body = text(a.ix.funcs[m].node, a.src());
    const OWN: &[&str] = &[
        "pipeline",
        "transaction",
        "execute",
        "multi",
        "watch",
        "lock",
        "pubsub",
        "register_script",
        "scan_iter",
        "sscan_iter",
        "hscan_iter",
        "zscan_iter",
    ];
    let own_use = OWN.iter().any(|o| body.contains(&format!("{name}.{o}(")));
    (!own_use).then_some(i)
}

/// What an instance method (of class `c`) or a module function queues on a
/// parameter named like a pipeline (`def save(self, pipeline=None)`,
/// `def register(worker, pipeline=None)`), when it queues anything there.
fn queued_fact(
    a: &mut Analyzer<'_>,
    m: FuncId,
    c: Option<crate::index::ClassId>,
    module_qual: &str,
) -> Option<Queued> {
    let info = a.ix.funcs[m].clone();
    let plain = info.decorators.is_empty();
    // A last `**kwargs` (`def runner_update(self, name, pipeline=None, **kwargs)`)
    // takes the keywords the other parameters do not name.
    let kwargs = info.params.iter().any(|p| p.star);
    if !plain || info.is_lambda || (kwargs && !ctor_kwargs(a, m)) {
        return None;
    }
    let skip = usize::from(c.is_some());
    let after: Vec<_> = info.params.iter().skip(skip).filter(|p| !p.star).collect();
    let pipe = after
        .iter()
        .position(|p| pipe_param_name(&p.name))
        .or_else(|| receiver_param(a, m, &after))?;
    // A parameter the body assigns again is not the caller's pipeline throughout.
    if info
        .defs
        .get(&after[pipe].name)
        .is_some_and(|d| d.len() > 1)
    {
        return None;
    }
    let mut bound = HashMap::new();
    for (i, p) in after.iter().enumerate() {
        if i != pipe && info.defs.get(&p.name).is_none_or(|d| d.len() <= 1) {
            bound.insert(p.name.clone(), placeholder('p', i, &p.name));
        }
    }
    let pname = after[pipe].name.clone();
    let (cmds, ends, vias) = a.queued_on(m, c, &pname, bound)?;
    if cmds.is_empty() && !ends && vias.is_empty() {
        return None;
    }
    let vias = vias
        .into_iter()
        .map(|mut v| {
            let clean = |p: &mut Passes| {
                if let Passes::Text(t) = p {
                    *t = sanitize(t, module_qual, c.is_some());
                }
            };
            v.pos.iter_mut().for_each(clean);
            v.kw.iter_mut().for_each(|(_, p)| clean(p));
            v
        })
        .collect();
    // A value a method computes itself belongs to its instance; one a module
    // function computes (`pk = record["id"]`) is identified by the arguments it
    // reads, which the call binds like the parameters.
    let cmds = cmds
        .into_iter()
        .map(|q| QueuedCmd {
            keys: q
                .keys
                .iter()
                .map(|(cmd, t)| (cmd.clone(), sanitize(t, module_qual, c.is_some())))
                .collect(),
            levels: q.levels,
            tx_only: q.tx_only,
            guards: q.guards,
        })
        .collect();
    let mut params = params(a, m, skip, module_qual);
    if kwargs {
        params.pop();
    }
    Some(Queued {
        params,
        kwargs,
        pipe,
        cmds,
        ends,
        vias,
    })
}

/// A template made independent of the module's syntax tree: no source offsets, every
/// binding qualified by the module (unless it stands for a parameter), and marked as
/// the instance's own in instance facts.
pub(crate) fn sanitize(t: &Tpl, qual: &str, instance: bool) -> Tpl {
    let mut out = Tpl::default();
    for p in &t.parts {
        match p {
            TPart::Lit { bytes, .. } => out.push(Tpl::text(bytes)),
            TPart::Hole(h) => {
                let mut h = h.clone();
                h.span = None;
                // A key of the instance a parameter brings is resolved with it.
                let of_param = h.binding.starts_with("\u{1}i");
                // `.replace(…)` of a parameter is done on the argument too.
                let marker = exact_marker(&h.binding).or_else(|| {
                    crate::strreplace::split_replaced(&h.binding)
                        .and_then(|(b, _, _)| exact_marker(b))
                });
                if !of_param && marker.is_none_or(|(k, _)| k != 'c' && k != 'p') {
                    if !h.binding.starts_with(QUALIFIED) && !instance_bound(&h.binding) {
                        h.binding = format!("{qual}{}", h.binding);
                    }
                    if instance && !instance_bound(&h.binding) {
                        h.binding = format!("{INSTANCE}{}", h.binding);
                    }
                }
                out.push(Tpl::hole(h));
            }
        }
    }
    out
}

/// Whether `b` is already the binding of one instance's value. A value marker in
/// front (a class's name is brace-free) shares the delimiter but is no instance.
fn instance_bound(b: &str) -> bool {
    keylint_core::template::without_value_markers(b).starts_with(INSTANCE)
}

/// Whether every marker left in `b` stands for the instance a parameter brings
/// (kind `i`): such a binding is resolved where the fact is applied in turn.
fn only_instance_markers(b: &str) -> bool {
    // A value marker (a class's name, `obj(<param>).__name__`, is brace-free) is
    // delimited like an instance's binding but says what the value is, not whose.
    let b = keylint_core::template::without_value_markers(b);
    if b.contains(INSTANCE) {
        return false;
    }
    let mut rest: &str = &b;
    while let Some(start) = rest.find('\u{1}') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('\u{1}') else {
            return false;
        };
        // A parameter of the function being summarised, passed on whole to the
        // fact applied inside it (`get_key(model)` in a helper summarised for its
        // callers): the identity the call gave it, resolved where that helper's
        // own fact is applied.
        let passed_on = rest[..start].ends_with('<') && after[end + 1..].starts_with('>');
        let ok = match exact_marker(&rest[start..start + end + 2]) {
            Some(('i', _)) => true,
            Some(('p' | 'c', _)) => passed_on,
            _ => false,
        };
        if !ok {
            return false;
        }
        rest = &after[end + 1..];
    }
    true
}

/// The identity of an instance known by the value that holds it (a parameter
/// annotated with its class, or an argument passed where a function declares one):
/// the same value, however it is reached, is the same instance. While a module is
/// summarised, a parameter of the summarised function is the instance its caller
/// passes: the fact names it (a marker), and the call that applies the fact puts
/// that instance's identity in its place.
fn param_ident(binding: &str) -> String {
    match exact_marker(binding) {
        Some(('p', i)) => marker('i', i),
        _ => format!("{PARAM_IDENT}{binding}"),
    }
}

/// What begins the identity of an instance held by a parameter ([`param_ident`]).
pub(crate) const PARAM_IDENT: &str = "param:";

/// A call's arguments bound to a fact's parameters: each one's template and
/// identity, and the identity of the project instance it is, if it is one.
#[derive(Clone)]
pub(crate) struct Bound {
    args: Vec<(Tpl, String)>,
    exts: Vec<Option<String>>,
}

impl Bound {
    /// Each parameter's template and identity, in order.
    pub(crate) fn args(&self) -> &[(Tpl, String)] {
        &self.args
    }
}

/// Replaces the markers of `binding` with the identities of what they stand for:
/// `args` are the call's arguments, `exts` the instances of project classes among
/// them (their identities), `inst` the instance the fact is read on.
fn rebind(
    binding: &str,
    args: &[(Tpl, String)],
    exts: &[Option<String>],
    inst: Option<&Instance>,
) -> Option<String> {
    let mut out = String::new();
    let mut rest = binding;
    if let Some(r) = rest.strip_prefix(INSTANCE) {
        out.push_str(&inst?.ident);
        out.push('|');
        rest = r;
    }
    while let Some(start) = rest.find('\u{1}') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find('\u{1}')?;
        let (kind, i) = exact_marker(&rest[start..start + end + 2])?;
        let id = match kind {
            'p' => &args.get(i)?.1,
            'c' => &inst?.ctor.get(i)?.1,
            // The instance the caller passed: its own identity, as the caller
            // itself reads that instance's keys.
            'i' => {
                out.push_str(exts.get(i)?.as_deref()?);
                rest = &after[end + 1..];
                continue;
            }
            _ => return None,
        };
        out.push('<');
        out.push_str(id);
        out.push('>');
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    only_instance_markers(&out).then_some(out)
}

/// Whether a template has a hole built from a parameter's marker.
pub(crate) fn has_param_marker(t: &Tpl) -> bool {
    t.parts
        .iter()
        .any(|p| matches!(p, TPart::Hole(h) if h.binding.contains('\u{1}')))
}

/// [`apply`] with a call's bound arguments.
pub(crate) fn apply_bound(t: &Tpl, b: &Bound, inst: Option<&Instance>) -> Option<Tpl> {
    apply(t, &b.args, &b.exts, inst)
}

/// A fact's template with its parameters bound to `args` and its instance to `inst`.
fn apply(
    t: &Tpl,
    args: &[(Tpl, String)],
    exts: &[Option<String>],
    inst: Option<&Instance>,
) -> Option<Tpl> {
    let mut out = Tpl::default();
    for p in &t.parts {
        match p {
            TPart::Lit { .. } => out.push(Tpl {
                parts: vec![p.clone()],
            }),
            TPart::Hole(h) => match exact_marker(&h.binding) {
                // `criterion.replace(":", "#")` of an argument: done on its text.
                None if crate::strreplace::split_replaced(&h.binding)
                    .is_some_and(|(b, _, _)| exact_marker(b).is_some()) =>
                {
                    let (b, old, new) = crate::strreplace::split_replaced(&h.binding)?;
                    let whole = match exact_marker(b)? {
                        ('p', i) => args.get(i)?.0.clone(),
                        ('c', i) => inst?.ctor.get(i)?.0.clone(),
                        _ => return None,
                    };
                    out.push(crate::strreplace::replace_tpl(&whole, old, &new)?);
                }
                Some(('p', i)) => out.push(args.get(i)?.0.clone()),
                Some(('c', i)) => out.push(inst?.ctor.get(i)?.0.clone()),
                _ => {
                    let mut h = h.clone();
                    let from =
                        one_param(&h.binding).and_then(|i| match args.get(i)?.0.parts.as_slice() {
                            [TPart::Hole(a)] => Some(a.clone()),
                            _ => None,
                        });
                    h.binding = rebind(&h.binding, args, exts, inst)?;
                    // A value computed from one argument alone: a head its keys may
                    // share when that argument is the caller's value.
                    if let Some(a) = from {
                        // A local the function computes from it (`digest =
                        // md5(entity)`) keeps its own name: it is not the argument.
                        let own_name = h.binding.contains(crate::eval::DERIVED);
                        h.binding = crate::heads::derived(&a.binding, h.binding);
                        h.label = match h.label.split_once('.') {
                            _ if own_name => h.label,
                            // `model.__name__` read on the caller's `cls`: `cls.__name__`.
                            Some((_, rest))
                                if keylint_core::template::is_brace_free_binding(&h.binding) =>
                            {
                                format!("{}.{rest}", a.label)
                            }
                            _ => a.label,
                        };
                    }
                    out.push(Tpl::hole(h));
                }
            },
        }
    }
    Some(out)
}

/// An instance of `c` known only by its type: its constructor arguments are
/// unknown but its own (`ident` names the instance), shown as `owner.param`.
/// Whether the objects of class `c` have an instance attribute `attr` the facts
/// know (a key template, a number, a client, an object of a known class).
/// The string value class `c` gives `name` of its own, on the class or on its
/// instances: a value its methods and properties may read through `self`.
pub(crate) fn class_str_data<'c>(c: &'c ClassFacts, name: &str) -> Option<&'c Tpl> {
    [c.class_attrs.get(name), c.instance_attrs.get(name)]
        .into_iter()
        .flatten()
        .find_map(|f| match f {
            Fact::Str(t) => Some(t),
            _ => None,
        })
}

pub(crate) fn class_has_instance_attr(c: &ClassFacts, attr: &str) -> bool {
    matches!(
        c.instance_attrs.get(attr),
        Some(Fact::Str(_) | Fact::Int(_) | Fact::Client(_) | Fact::Typed(_))
    )
}

/// The client kind of the scripts in attribute `attr` of class `c`, when it is a
/// registry of scripts.
pub(crate) fn class_script_registry(c: &ClassFacts, attr: &str) -> Option<ClientKind> {
    c.script_registries.get(attr).copied()
}

/// An object of class `c` made by a subclass's constructor, which passes the
/// base constructor these arguments (template and identity).
pub(crate) fn based_instance(
    c: Arc<ClassFacts>,
    ctor: Vec<(Tpl, String)>,
    ident: String,
) -> Option<Rc<Instance>> {
    if c.ctor.as_ref()?.len() != ctor.len() || c.ctor_kwargs {
        return None;
    }
    Some(Rc::new(Instance {
        class: c,
        ctor,
        ident,
    }))
}

/// A member of another module's `Enum` class (`Key.LINK`), whose value is `value`: an
/// instance whose one constructor argument is that value, which the class's methods
/// read as `self.value` (see `class_fact`).
pub(crate) fn enum_member(c: Arc<ClassFacts>, value: Tpl, ident: String) -> Option<Rc<Instance>> {
    if !c.is_enum || c.ctor.as_ref().is_none_or(|ps| ps.len() != 1) {
        return None;
    }
    Some(Rc::new(Instance {
        class: c,
        ctor: vec![(value, ident.clone())],
        ident,
    }))
}

pub(crate) fn typed_instance(c: Arc<ClassFacts>, owner: &str, ident: String) -> Rc<Instance> {
    let ctor = c
        .ctor
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, p)| {
            let t = Tpl::hole(HoleInfo {
                label: format!("{owner}.{}", p.name),
                binding: format!("{ident}.c{i}"),
                span: None,
                keylike: is_keylike_label(&p.name),
            });
            let id = fingerprint(&Value::Str(t.clone()));
            (t, id)
        })
        .collect();
    Rc::new(Instance {
        class: c,
        ctor,
        ident,
    })
}

impl<'t> Analyzer<'t> {
    /// An imported name or attribute of a module: the value of a constant or client
    /// of another project module, else the symbol.
    /// A script global of another module is a script registered where `n` names it.
    pub(crate) fn project_value(&mut self, path: String, n: Node<'t>, _ctx: &Ctx<'t>) -> Value<'t> {
        let Some(scope) = self.project else {
            return Value::Symbol(path);
        };
        match scope.lookup(&path) {
            // A configured value alone is named as this use writes it
            // (`settings_mod.KEY_PREFIX`), not by the setting it reads.
            Some(Fact::Str(t)) => crate::configured::relabel(Value::Str(t), text(n, self.src())),
            Some(Fact::Int(i)) => Value::Int(i),
            Some(Fact::StrList(ts)) => Value::Seq {
                items: ts
                    .iter()
                    .map(|t| Elem {
                        value: Value::Str(t.clone()),
                        node: n,
                        star: false,
                        each: Vec::new(),
                    })
                    .collect(),
                family: false,
            },
            Some(Fact::Client(k)) => Value::Client(k),
            // An object of a class of that module, bound there once (`red =
            // RedormClient()`): the same object wherever it is imported.
            Some(Fact::Typed(c)) => Value::Ext(typed_instance(
                c,
                text(n, self.src()),
                format!("global:{path}"),
            )),
            Some(Fact::ScriptObj(text, k, wrapper)) => {
                let s = self.ext_script(n, text, k);
                self.scripts[s].wrapper = wrapper;
                Value::Script(s)
            }
            _ => Value::Symbol(path),
        }
    }

    /// The key the key-builder method `m` of `x` builds from `args` (templates of
    /// the values passed), with as many arguments as its signature or `*parts` take.
    pub(crate) fn ext_builder_apply(
        &mut self,
        x: &Instance,
        m: &str,
        args: Vec<Tpl>,
    ) -> Option<Tpl> {
        let Some(Fact::Builder(b)) = x.class.methods.get(m) else {
            return None;
        };
        if !b.instance || b.family.is_some() || args.len() < b.params.len() {
            return None;
        }
        let ret = if b.star.is_empty() {
            if args.len() != b.params.len() {
                return None;
            }
            &b.ret
        } else {
            b.star.get(args.len() - b.params.len())?
        };
        let bound: Vec<(Tpl, String)> = args
            .into_iter()
            .map(|t| {
                let id = fingerprint(&Value::Str(t.clone()));
                (t, id)
            })
            .collect();
        let exts = vec![None; bound.len()];
        apply(ret, &bound, &exts, Some(x))
    }

    /// Whether `path` (an annotation's name) is a class of another project module
    /// derived from a redis-py client. An annotation does not prove which client is
    /// passed, so its kind stays unknown, as for `Redis` itself.
    pub(crate) fn project_client_class(&self, path: &str) -> bool {
        let Some(scope) = self.project else {
            return false;
        };
        matches!(scope.lookup(path), Some(Fact::Class(c)) if c.client.is_some())
    }

    /// What a type alias of another module of the project declares
    /// (`ConnectionType = redis.Redis | valkey.Valkey`).
    pub(crate) fn project_type_alias(&self, path: &str) -> Option<crate::eval::AnnotatedAs> {
        match self.project?.lookup(path)? {
            Fact::TypeAlias(t) => Some(t),
            _ => None,
        }
    }

    /// The arguments of a call bound to `params`: each one's template and identity.
    fn bind_args(
        &mut self,
        params: &[Param],
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Bound> {
        self.bind_args_kw(params, false, args, ctx)
    }

    /// A call's arguments bound to `params` (see [`Bound`]).
    pub(crate) fn bind_params(
        &mut self,
        params: &[Param],
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Bound> {
        self.bind_args(params, args, ctx)
    }

    /// [`Self::bind_args`], where `extra_kw` says a `**kwargs` takes the keywords
    /// that `params` do not name.
    fn bind_args_kw(
        &mut self,
        params: &[Param],
        extra_kw: bool,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Bound> {
        let (pos, kw) = self.call_args(args, ctx);
        // `**kwargs` passed on to a function that ends with `**kwargs` itself, when
        // every other parameter is given by name or position: only the catch-all
        // can take what it holds.
        let splat_ok = extra_kw
            && params
                .iter()
                .enumerate()
                .all(|(i, p)| i < pos.len() || kw.iter().any(|(k, e)| !e.star && *k == p.name));
        if pos.iter().any(|e| e.star)
            || kw.iter().any(|(_, e)| e.star && !splat_ok)
            || pos.len() > params.len()
        {
            return None;
        }
        let mut out = Vec::new();
        let mut exts = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let given = pos
                .get(i)
                .or_else(|| kw.iter().find(|(k, _)| k == &p.name).map(|(_, e)| e));
            let ext = given.and_then(|e| self.arg_instance(e.node, &e.value, ctx));
            let t = match given {
                Some(e) => self.to_tpl(&e.value, e.node, ctx),
                None => p.left_out()?,
            };
            let id = fingerprint(&Value::Str(t.clone()));
            exts.push(ext);
            out.push((t, id));
        }
        if !extra_kw && kw.iter().any(|(k, _)| !params.iter().any(|p| &p.name == k)) {
            return None;
        }
        Some(Bound { args: out, exts })
    }

    /// The identity of the object an argument passes, when a fact's function reads
    /// keys on it: its instance, if its class is known here; else, for a name or an
    /// attribute, the value it holds, named the same way wherever it is passed
    /// (`current = job` passes `job`). A value with no identity of its own gives
    /// nothing, and the keys read on it are left out.
    fn arg_instance(&mut self, node: Node<'t>, v: &Value<'t>, ctx: &Ctx<'t>) -> Option<String> {
        let mut n = node;
        if let Some(f) = ctx.func {
            for _ in 0..8 {
                if n.kind_name() != "identifier" {
                    break;
                }
                let Some(defs) = self.ix.funcs[f].defs.get(text(n, self.src())) else {
                    break;
                };
                let [d] = defs.as_slice() else { break };
                match d.kind {
                    DefKind::Expr(e) if matches!(e.kind_name(), "identifier" | "attribute") => {
                        n = e;
                    }
                    _ => break,
                }
            }
        }
        let v = if n == node {
            v.clone()
        } else {
            self.eval(n, ctx)
        };
        if let Some(x) = self.typed_ext(n, &v, ctx) {
            return Some(x.ident.clone());
        }
        // An object the caller does not know the class of, passed where the
        // fact's function declares one.
        match (n.kind_name(), v) {
            ("identifier" | "attribute", Value::Opaque(h)) => Some(param_ident(&h.binding)),
            // A local the analysis knows nothing of (`job = fetch(id)`, or assigned
            // in several places): the name, in this function.
            ("identifier", Value::Unknown | Value::Foreign) => ctx
                .func
                .map(|f| format!("local:{f}:{}", text(n, self.src()))),
            _ => None,
        }
    }

    pub(crate) fn call_fact(
        &mut self,
        fact: Fact,
        inst: Option<&Instance>,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        match fact {
            Fact::Factory(k) => Some(Value::Client(k)),
            // `with manager.pipeline_context() as p:` of another module.
            Fact::PipelineCm(k) => self.cm_pipeline(k, n, ctx),
            // `with redis_pipeline(transaction=True) as pipe:` of another module.
            Fact::PipeFactory(k, tx) => Some(self.factory_pipeline(k, &tx, args, n)),
            // A script factory of another module: a script registered at this call.
            Fact::Script(text, k) => Some(Value::Script(self.ext_script(n, text, k))),
            // A script of no known body, registered at this call.
            Fact::OpaqueScript(k) => Some(Value::Script(self.opaque_script(n, k))),
            // A helper of another module that registers the script passed to it (a
            // method's position counts the arguments after `self`).
            Fact::ScriptParam(pos, name) => self
                .param_script_at((pos, name.to_string()), n, args, ctx)
                .map(Value::Script),
            // An `EVAL` wrapper factory of another module: a script object whose
            // body is this call's argument.
            Fact::EvalWrapper(sig) if inst.is_none() => Some(self.wrapped_at(sig, n, args, ctx)),
            Fact::Chunker(pos) if inst.is_none() => self.chunks_at(pos, args, n, ctx),
            Fact::Formats(pos, name) if inst.is_none() => self.formatted_at(pos, &name, args?, ctx),
            Fact::Builder(b) if b.instance == inst.is_some() && !b.star.is_empty() => {
                // `*parts`: the template of as many arguments as the call passes.
                // A splat of a sequence known element by element (`make_key(*qid,
                // "pending")` after `qid = (PREFIX, "q", name)`) passes its elements.
                let count = match crate::starbuild::positional_count(args) {
                    Some(c) => c,
                    None => {
                        let (pos, kw) = self.call_args(args, ctx);
                        if pos.iter().any(|e| e.star || matches!(e.value, Value::Null))
                            || kw.iter().any(|(_, e)| e.star)
                        {
                            return None;
                        }
                        pos.len()
                    }
                };
                let k = count.checked_sub(b.params.len())?;
                // A literal `None` may be left out by the builder (`if c is None:
                // continue`), which its summary does not say: unknown.
                if args.is_some_and(|a| {
                    self.ix
                        .nav
                        .named_children(a)
                        .any(|x| x.kind_name() == "none")
                }) {
                    return None;
                }
                let ret = b.star.get(k)?;
                let mut ps = b.params.clone();
                ps.extend((0..k).map(|j| Param::named(&format!("*{j}"), false)));
                let b2 = self.bind_args(&ps, args, ctx)?;
                Some(
                    apply(ret, &b2.args, &b2.exts, inst)
                        .map_or_else(|| self.opaque(n, ctx), Value::Str),
                )
            }
            Fact::Builder(b) if b.instance == inst.is_some() => {
                if !b.none_tail.is_empty()
                    && !leaves_out(self.ix.nav, self.src(), args, b.params.len(), &b.none_tail)
                {
                    return None;
                }
                let b2 = self.bind_args(&b.params, args, ctx)?;
                let t = apply(&b.ret, &b2.args, &b2.exts, inst);
                Some(match (t, b.family) {
                    (Some(t), Some(shape)) => crate::chunks::family_at(&b.ret, t, shape, n),
                    (Some(t), None) => Value::Str(t),
                    (None, _) => self.opaque(n, ctx),
                })
            }
            Fact::Arms(bs, tests) if bs.iter().all(|b| b.instance == inst.is_some()) => {
                let b2 = self.bind_args(&bs.first()?.params, args, ctx)?;
                // The arm the call's arguments take, when they decide every test
                // before it.
                if let Some(tests) = tests {
                    let truth = truth_of_args(&bs.first()?.params, args, self.src(), self.ix.nav);
                    let mut taken = Some(bs.len() - 1);
                    for (k, &(i, want)) in tests.iter().enumerate() {
                        match truth.get(i).copied().flatten() {
                            Some(t) if t == want => {
                                taken = Some(k);
                                break;
                            }
                            Some(_) => {}
                            None => {
                                taken = None;
                                break;
                            }
                        }
                    }
                    if let Some(k) = taken {
                        let t = apply(&bs[k].ret, &b2.args, &b2.exts, inst);
                        return Some(t.map_or_else(|| self.opaque(n, ctx), Value::Str));
                    }
                }
                let mut values = Vec::with_capacity(bs.len());
                for b in bs.iter() {
                    values.push(Value::Str(apply(&b.ret, &b2.args, &b2.exts, inst)?));
                }
                // Named by the function called (`context.gk`): the value is shown as
                // one of the arms' keys.
                let f = n.field(Field::Function).unwrap_or(n);
                let name = text(f, self.src()).to_string();
                self.one_of(&name, values)
            }
            Fact::Remake(r) => self.remade(&r, inst, args, ctx),
            Fact::Returns(r) => {
                let c = self.project?.returned(&r)?;
                let Value::Opaque(h) = self.opaque(n, ctx) else {
                    return None;
                };
                // Made again each pass of the loops its arguments vary with.
                let marks = self.args_loop_marks(args, ctx);
                let ident = format!("{}(ret:{}){marks}", c.qual, h.binding);
                Some(Value::Ext(typed_instance(c, &h.label, ident)))
            }
            Fact::Class(c) if inst.is_none() => {
                if let Some(k) = c.client {
                    return Some(Value::Client(k));
                }
                // `CacheKey(key)` of another module's `class CacheKey(str): pass`.
                if c.str_like {
                    return Some(self.str_of_one_arg(args, n, ctx));
                }
                let ctor = self
                    .bind_args_kw(c.ctor.as_ref()?, c.ctor_kwargs, args, ctx)?
                    .args;
                let ids: Vec<&str> = ctor.iter().map(|(_, id)| id.as_str()).collect();
                let ident = format!("{}({})", c.qual, ids.join(","));
                Some(Value::Ext(Rc::new(Instance {
                    class: c,
                    ctor,
                    ident,
                })))
            }
            _ => None,
        }
    }

    /// A call of a factory, key builder or class of another project module.
    pub(crate) fn project_call(
        &mut self,
        path: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let fact = self.project?.lookup(path)?;
        self.call_fact(fact, None, args, n, ctx)
    }

    /// `x.attr` on an instance of another module's class.
    pub(crate) fn ext_attr(
        &mut self,
        x: &Rc<Instance>,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let fact = x
            .class
            .instance_attrs
            .get(attr)
            .or_else(|| x.class.class_attrs.get(attr));
        if let Some(&i) = x.class.fresh_keys.get(attr) {
            if let Some(t) = x.ctor.get(i).and_then(crate::basefacts::given_literal) {
                return Value::Str(t);
            }
            if let Some(Fact::Str(t)) = fact {
                let t = crate::basefacts::per_object(t, &format!("{}|", x.ident));
                return crate::configured::relabel_fresh_default(
                    Value::Str(t),
                    text(n, self.src()),
                );
            }
        }
        match fact {
            // The constructor's argument stored as it is: what the caller passed, a
            // string when it was one, else a value known only by its identity.
            Some(Fact::Str(t)) if ctor_arg_as_is(t).is_some() => {
                match ctor_arg_as_is(t).and_then(|i| x.ctor.get(i)) {
                    // An argument not known (an object known by its type) read as a
                    // setting (`self.config.queue_prefix`): the setting's head.
                    Some((a, _)) if matches!(a.parts.as_slice(), [TPart::Hole(_)]) => {
                        if let Some(d) = self.kept_default(x, a) {
                            return Value::Str(d);
                        }
                        match self.config_head(n, ctx) {
                            Some(v) => v,
                            None => match a.parts.as_slice() {
                                [TPart::Hole(h)] => Value::Opaque(h.clone()),
                                _ => Value::Str(a.clone()),
                            },
                        }
                    }
                    Some((a, _)) => Value::Str(a.clone()),
                    None => self.opaque(n, ctx),
                }
            }
            Some(Fact::Str(t)) => {
                apply(t, &[], &[], Some(x)).map_or_else(|| self.opaque(n, ctx), Value::Str)
            }
            Some(Fact::Int(i)) => Value::Int(*i),
            Some(Fact::Client(k)) => Value::Client(*k),
            // The same attribute of the same instance is the same object.
            Some(Fact::Typed(c)) => Value::Ext(typed_instance(
                c.clone(),
                text(n, self.src()),
                format!("{}.{attr}", x.ident),
            )),
            _ => self.opaque(n, ctx),
        }
    }

    /// The default of the constructor parameter that `x`'s argument `arg` stands
    /// for, when `x` is an object known only by its type (`arg` is its own unknown
    /// value) and every construction of its class that the project shows leaves
    /// that parameter to its default ([`Scope::defaults_kept`]): the object that
    /// `get_cache_config() -> CacheConfig` returns is a `CacheConfig()` made
    /// somewhere, so its `key_pattern` is the one the class writes.
    fn kept_default(&mut self, x: &Instance, arg: &Tpl) -> Option<Tpl> {
        let [TPart::Hole(h)] = arg.parts.as_slice() else {
            return None;
        };
        let i = h
            .binding
            .strip_prefix(x.ident.as_str())?
            .strip_prefix(".c")?
            .parse::<usize>()
            .ok()?;
        let p = x.class.ctor.as_ref()?.get(i)?;
        let d = p.default.clone()?;
        let key = (x.class.qual.clone(), i);
        let kept = match self.kept_defaults.get(&key) {
            Some(&v) => v,
            None => {
                let v = self.project?.defaults_kept(&x.class.qual, i, &p.name);
                self.kept_defaults.insert(key, v);
                v
            }
        };
        kept.then_some(d)
    }

    /// The commands `x.m(…)` queues on the pipeline the call passes it, with the
    /// method's parameters bound to the call's arguments and `self` to `x`.
    pub(crate) fn ext_queued(
        &mut self,
        x: &Rc<Instance>,
        m: &str,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<(crate::eval::PipeId, Vec<QueuedCmd>, bool)> {
        let q = x.class.queues.get(m)?.clone();
        self.queued_by(&q, Some(x), args, ctx)
    }

    /// The function of another module that `path` names, when it queues commands
    /// on a pipeline it receives.
    pub(crate) fn project_queues(&self, path: &str) -> Option<Arc<Queued>> {
        match self.project?.lookup(path)? {
            Fact::Queues(q) => Some(q),
            _ => None,
        }
    }

    /// The commands `q` queues on the pipeline the call passes it, with its
    /// parameters bound to the call's arguments and its `self` to `x`, if any.
    pub(crate) fn queued_by(
        &mut self,
        q: &Queued,
        x: Option<&Rc<Instance>>,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<(crate::eval::PipeId, Vec<QueuedCmd>, bool)> {
        let (pos, kw) = self.call_args(args, ctx);
        let name = &q.params.get(q.pipe)?.name;
        let e = match pos.get(q.pipe) {
            Some(e) => e.clone(),
            None => kw.iter().find(|(k, _)| k == name)?.1.clone(),
        };
        let Value::Pipe(pipe) = self.as_receiver(e.value.clone(), e.node) else {
            return None;
        };
        let bound = self.bind_args_kw(&q.params, q.kwargs, args, ctx)?;
        let truth = truth_of_args(&q.params, args, self.src(), self.ix.nav);
        let mut out = Vec::new();
        for v in q.vias.iter().filter(|v| guards_hold(&v.guards, &truth)) {
            let obj = match pos.get(v.obj) {
                Some(e) => Some(e.clone()),
                None => q
                    .params
                    .get(v.obj)
                    .and_then(|p| kw.iter().find(|(k, _)| *k == p.name))
                    .map(|(_, e)| e.clone()),
            };
            let inner = obj.and_then(|o| self.typed_ext(o.node, &o.value, ctx));
            let got = inner
                .and_then(|i| Self::via_queued(v, &i, (&bound, &truth), x.map(Rc::as_ref), args));
            match got {
                Some((_, true)) => return Some((pipe, Vec::new(), true)),
                Some((cmds, false)) => out.extend(cmds),
                None if v.optional => {}
                None => return None,
            }
        }
        for c in q.cmds.iter().filter(|c| guards_hold(&c.guards, &truth)) {
            let keys: Vec<(String, Tpl)> = c
                .keys
                .iter()
                .filter_map(|(cmd, t)| {
                    Some((
                        cmd.clone(),
                        apply(t, &bound.args, &bound.exts, x.map(Rc::as_ref))?,
                    ))
                })
                .collect();
            if !keys.is_empty() {
                out.push(QueuedCmd {
                    keys,
                    levels: c.levels.clone(),
                    tx_only: c.tx_only,
                    guards: Vec::new(),
                });
            }
        }
        Some((pipe, out, q.ends))
    }

    /// The commands a [`QueuedVia`] call queues when the object it calls the method on
    /// is `inner`, in a call of the outer method whose arguments are `outer` and whose
    /// `self` is `x`; and whether the inner method may end the batch. `None` when the
    /// inner method is not one that queues on the pipeline it receives (or hands it on
    /// in turn), or the call does not pass it that pipeline.
    fn via_queued(
        v: &QueuedVia,
        inner: &Instance,
        (outer, outer_truth): (&Bound, &[Option<bool>]),
        x: Option<&Instance>,
        args: Option<Node<'_>>,
    ) -> Option<(Vec<QueuedCmd>, bool)> {
        let q = inner.class.queues.get(&v.method)?;
        if !q.vias.is_empty()
            || v.pos.len() > q.params.len()
            || (!q.kwargs
                && v.kw
                    .iter()
                    .any(|(k, _)| !q.params.iter().any(|p| p.name == *k)))
        {
            return None;
        }
        let at = args.map_or(0, |a| a.start_byte());
        let mut bound = Vec::new();
        let mut exts = Vec::new();
        let mut truth = Vec::new();
        for (j, p) in q.params.iter().enumerate() {
            let given = v
                .pos
                .get(j)
                .or_else(|| v.kw.iter().find(|(k, _)| *k == p.name).map(|(_, g)| g));
            if (j == q.pipe) != matches!(given, Some(Passes::Pipe)) {
                return None;
            }
            truth.push(match given {
                Some(Passes::Param(i)) => outer_truth.get(*i).copied().flatten(),
                Some(Passes::Other(t)) => *t,
                None => p.truth,
                _ => None,
            });
            let (t, ext) = match given {
                Some(Passes::Param(i)) => {
                    let (t, id) = outer.args.get(*i)?.clone();
                    bound.push((t, id));
                    exts.push(outer.exts.get(*i)?.clone());
                    continue;
                }
                Some(Passes::OwnSelf) => {
                    let x = x?;
                    let h = HoleInfo {
                        label: "self".to_string(),
                        binding: x.ident.clone(),
                        span: None,
                        keylike: false,
                    };
                    (Tpl::hole(h), Some(x.ident.clone()))
                }
                Some(Passes::Pipe) => (Tpl::default(), None),
                Some(Passes::Text(t)) => (apply(t, &outer.args, &outer.exts, x)?, None),
                Some(Passes::Other(_)) => {
                    let h = HoleInfo {
                        label: p.name.clone(),
                        binding: format!("via-arg:{at}:{}:{j}", v.method),
                        span: None,
                        keylike: is_keylike_label(&p.name),
                    };
                    (Tpl::hole(h), None)
                }
                None => (p.left_out()?, None),
            };
            let id = fingerprint(&Value::Str(t.clone()));
            bound.push((t, id));
            exts.push(ext);
        }
        if q.ends {
            return Some((Vec::new(), true));
        }
        if v.in_loop {
            return Some((Vec::new(), false));
        }
        let mut out = Vec::new();
        for c in q.cmds.iter().filter(|c| guards_hold(&c.guards, &truth)) {
            let keys: Vec<(String, Tpl)> = c
                .keys
                .iter()
                .filter_map(|(cmd, t)| Some((cmd.clone(), apply(t, &bound, &exts, Some(inner))?)))
                .collect();
            if !keys.is_empty() {
                out.push(QueuedCmd {
                    keys,
                    levels: v.levels.iter().chain(&c.levels).cloned().collect(),
                    tx_only: c.tx_only,
                    guards: Vec::new(),
                });
            }
        }
        Some((out, false))
    }

    /// A parameter annotated with a class of another project module (`job: Job`,
    /// `Optional["Job"]`, `Job | None`): an instance whose constructor arguments are
    /// unknown but its own (`v` is the parameter's value, whose binding identifies
    /// it), so one parameter gives the same keys and two give keys that differ.
    pub(crate) fn annotated_ext(
        &mut self,
        obj: Node<'t>,
        v: &Value<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Rc<Instance>> {
        let Value::Opaque(h) = v else { return None };
        if obj.kind_name() != "identifier" {
            return None;
        }
        let mut f = ctx.func?;
        let name = text(obj, self.src());
        // `[c.key() for c in candles]`: an item of a parameter annotated as a list of
        // a project class (as `for c in candles:` below).
        if let Some(c) = self
            .comprehension_clause(obj, name)
            .and_then(|clause| self.loop_item_class(f, name, clause))
        {
            return Some(typed_instance(c, name, param_ident(&h.binding)));
        }
        // A parameter of an enclosing function that a nested one reads
        // (`async def complete(): await script.execute(…)`), when no function on
        // the way binds the name.
        for _ in 0..MAX_ENCLOSING {
            let info = &self.ix.funcs[f];
            if info.defs.contains_key(name) || info.nonlocal.iter().any(|n| n == name) {
                break;
            }
            f = info.parent?;
        }
        // In a followed helper, the value its caller passed is unknown (`v` is
        // opaque) but still of the annotated class, with the caller's identity.
        let defs = self.ix.funcs[f].defs.get(name)?;
        let [d] = defs.as_slice() else { return None };
        // `for c in candles:` over a parameter annotated `list[CandleDTO]`: each item
        // an instance of the class, one per pass (the loop variable's identity).
        if matches!(d.kind, DefKind::Other) {
            let c = self.loop_item_class(f, name, d.stmt)?;
            return Some(typed_instance(c, name, param_ident(&h.binding)));
        }
        let DefKind::Param(_) = d.kind else {
            return None;
        };
        let c = match d.annotation {
            Some(a) => self.annotated_project_class(a)?,
            // `def __init__(self, driver)` that every constructor call fills with
            // `self` of one class; or tested with `isinstance` against a class of
            // another module where it is read.
            None => self
                .ctor_flow_class(f, name)
                .or_else(|| match self.isinstance_guard(obj, name, f)? {
                    crate::guards::Tested::Ext(c) => Some(c),
                    crate::guards::Tested::Local(_) => None,
                })
                // `def unlock(self, rwlock)`: by its name and what it is used for.
                .or_else(|| self.duck_ext(f, name))
                .or_else(|| {
                    let c = self.duck_class(f, name)?;
                    let class = self.ix.classes[c].name.clone();
                    self.own_key_class(&class)
                })?,
        };
        // The value's own identity, not its class's: the same object passed on to a
        // function that annotates it with another class is the same instance.
        let ident = param_ident(&h.binding);
        Some(typed_instance(c, name, ident))
    }

    /// The class of the items of the collection a `for` statement walks, when its
    /// target is `name` alone and it walks a parameter of `f` annotated as a
    /// collection of a project class (`candles: list[CandleDTO]`,
    /// `Sequence["Job"]`, `Optional[List[Job]]`) that `f` never rebinds.
    fn loop_item_class(&self, f: FuncId, name: &str, stmt: Node<'t>) -> Option<Arc<ClassFacts>> {
        if !matches!(stmt.kind_name(), "for_statement" | "for_in_clause") {
            return None;
        }
        let left = stmt.field(Field::Left)?;
        let right = stmt.field(Field::Right)?;
        if left.kind_name() != "identifier"
            || text(left, self.src()) != name
            || right.kind_name() != "identifier"
        {
            return None;
        }
        let coll = text(right, self.src());
        let defs = self.ix.funcs[f].defs.get(coll)?;
        let [d] = defs.as_slice() else { return None };
        let (DefKind::Param(_), Some(ann)) = (d.kind, d.annotation) else {
            return None;
        };
        self.annotated_item_class(ann)
    }

    /// Whether `v`, read through the class of the items a loop variable `obj` walks
    /// ([`Self::loop_item_class`]), lost what varies from item to item: a value with
    /// no part that varies with a loop (an attribute the class fills with a default,
    /// or computes from several arms), where the loop variable alone stood for one
    /// value per item. The caller then reads it as before, an item's own value.
    pub(crate) fn loop_item_lost(&self, obj: Node<'t>, v: &Value<'t>, ctx: &Ctx<'t>) -> bool {
        if obj.kind_name() != "identifier" {
            return false;
        }
        let name = text(obj, self.src());
        let looped = self.comprehension_clause(obj, name).is_some()
            || ctx.func.is_some_and(|f| {
                self.ix.funcs[f].defs.get(name).is_some_and(|defs| {
                    matches!(defs.as_slice(), [d] if matches!(d.kind, DefKind::Other)
                        && d.stmt.kind_name() == "for_statement")
                })
            });
        if !looped {
            return false;
        }
        let varies = |t: &Tpl| !crate::collections::marked_loops(t).is_empty();
        match v {
            Value::Str(t) => !varies(t),
            Value::Opaque(h) => !h.binding.contains("@each"),
            _ => false,
        }
    }

    /// The `for` clause of the innermost comprehension around `n` that binds `name`.
    fn comprehension_clause(&self, n: Node<'t>, name: &str) -> Option<Node<'t>> {
        let nav = self.ix.nav;
        let mut at = n;
        for _ in 0..64 {
            at = nav.parent(at)?;
            match at.kind_name() {
                "list_comprehension"
                | "set_comprehension"
                | "generator_expression"
                | "dictionary_comprehension" => {
                    let clause = nav.named_children(at).find(|c| {
                        c.kind_name() == "for_in_clause"
                            && c.field(Field::Left)
                                .is_some_and(|l| text(l, self.src()) == name)
                    });
                    if clause.is_some() {
                        return clause;
                    }
                }
                "function_definition" | "lambda" | "module" => return None,
                _ => {}
            }
        }
        None
    }

    /// The class of the items of a collection annotation (`list[Job]`,
    /// `Sequence["Job"]`, `Optional[List[Job]]`, `tuple[Job, ...]`), when it is a
    /// project class other than a client class.
    fn annotated_item_class(&self, ann: Node<'t>) -> Option<Arc<ClassFacts>> {
        let raw = text(ann, self.src());
        let toks: Vec<&str> = raw
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty() && *t != "None" && *t != "Optional")
            .collect();
        let [coll, class] = toks.as_slice() else {
            return None;
        };
        let collection = matches!(
            coll.rsplit('.').next().unwrap_or(coll),
            "list"
                | "List"
                | "set"
                | "Set"
                | "frozenset"
                | "FrozenSet"
                | "tuple"
                | "Tuple"
                | "Sequence"
                | "MutableSequence"
                | "Iterable"
                | "Collection"
                | "AbstractSet"
        );
        if !collection {
            return None;
        }
        self.project_class_named(class)
    }

    /// The class of another project module that an annotation names (`Job`,
    /// `"Job"`, `Optional[Job]`, `Job | None`), unless it is a client class.
    pub(crate) fn annotated_project_class(&self, ann: Node<'t>) -> Option<Arc<ClassFacts>> {
        let raw = text(ann, self.src());
        let toks: Vec<&str> = raw
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty() && *t != "None")
            .collect();
        let class = match toks.as_slice() {
            [one] => *one,
            ["Optional", one] => *one,
            _ => return None,
        };
        self.project_class_named(class)
    }

    /// The project class a name of this module stands for (imported from another
    /// module, or a class of this one that keys are built from), unless it is a
    /// client class.
    fn project_class_named(&self, class: &str) -> Option<Arc<ClassFacts>> {
        let scope = self.project?;
        let Some(path) = self.ix.imports.get(class).cloned() else {
            return self.own_key_class(class);
        };
        let Some(Fact::Class(c)) = scope.lookup(&path) else {
            return None;
        };
        c.client.is_none().then_some(c)
    }

    /// `x.m(…)` on an instance of another module's class.
    pub(crate) fn ext_call(
        &mut self,
        x: &Rc<Instance>,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let fact = x.class.methods.get(m).cloned();
        let inst = match &fact {
            Some(Fact::Builder(b)) if !b.instance => None,
            _ => Some(x.as_ref()),
        };
        fact.and_then(|f| self.call_fact(f, inst, args, n, ctx))
            .unwrap_or_else(|| self.opaque(n, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_parameter_of_a_binding() {
        let p0 = marker('p', 0);
        assert_eq!(one_param(&format!("f1[s={p0}]:x")), Some(0));
        assert_eq!(one_param(&format!("f1[s={p0},t={p0}]:x")), Some(0));
        assert_eq!(
            one_param(&format!("f1[s={p0},t={}]:x", marker('p', 1))),
            None
        );
        assert_eq!(one_param(&format!("f1[s={}]:x", marker('c', 0))), None);
        assert_eq!(one_param("f1:x"), None);
    }

    #[test]
    fn markers_round_trip() {
        assert_eq!(exact_marker(&marker('p', 3)), Some(('p', 3)));
        assert_eq!(exact_marker("x"), None);
        let args = vec![(Tpl::text(b"a"), "a".to_string())];
        let b = format!("f1[job_key({})]:x.upper()", marker('p', 0));
        assert_eq!(
            rebind(&b, &args, &[], None).as_deref(),
            Some("f1[job_key(<a>)]:x.upper()")
        );
        assert_eq!(rebind(&marker('p', 1), &args, &[], None), None);
        assert_eq!(rebind("\u{2}x", &args, &[], None), None);
        // The instance a parameter brings: its caller's identity, or left for the
        // next application in a summary.
        let i0 = format!("{}|x", marker('i', 0));
        let exts = vec![Some("Job(param:q)".to_string())];
        assert_eq!(
            rebind(&i0, &args, &exts, None).as_deref(),
            Some("Job(param:q)|x")
        );
        assert_eq!(rebind(&i0, &args, &[], None), None);
        assert!(only_instance_markers(&i0));
        assert!(!only_instance_markers(&marker('p', 0)));
        assert!(only_instance_markers(&format!("obj(<{}>)", marker('p', 0))));
    }
}

#[cfg(test)]
mod project_tests {
    use super::*;

    /// Modules in memory: `a/b.py` and `a/__init__.py` by path from the root.
    struct Mem(HashMap<&'static str, &'static str>);

    impl ModuleLoader for Mem {
        fn resolve(&self, from: &str, level: usize, dotted: &str) -> Option<ModuleFile> {
            let mut base: Vec<&str> = if level == 0 {
                Vec::new()
            } else {
                let mut b: Vec<&str> = from.split('/').collect();
                b.pop();
                for _ in 1..level {
                    b.pop()?;
                }
                b
            };
            base.extend(dotted.split('.').filter(|s| !s.is_empty()));
            let stem = base.join("/");
            for cand in [format!("{stem}.py"), format!("{stem}/__init__.py")] {
                if self.0.contains_key(cand.trim_start_matches('/')) {
                    return Some(ModuleFile::Source(cand.trim_start_matches('/').into()));
                }
            }
            let prefix = format!("{stem}/");
            self.0
                .keys()
                .any(|k| k.starts_with(&prefix))
                .then_some(ModuleFile::Namespace)
        }
        fn read(&self, path: &str) -> Option<String> {
            self.0.get(path).map(|s| s.to_string())
        }
        fn mentions(&self, _from: &str, word: &str) -> Option<Vec<String>> {
            let mut out: Vec<String> = self
                .0
                .iter()
                .filter(|(_, t)| {
                    t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == word)
                })
                .map(|(p, _)| p.to_string())
                .collect();
            out.sort();
            Some(out)
        }
    }

    fn lint(files: &[(&'static str, &'static str)], main: &str) -> (Vec<String>, Vec<ModuleDep>) {
        let mem = Mem(files.iter().copied().collect());
        let src = mem.0[main];
        let project = Project::new(Arc::new(mem), Options::default());
        let (model, deps) = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(crate::STACK_SIZE)
                .spawn_scoped(s, || {
                    lower_module(src, &Options::default(), None, &project, main)
                })
                .unwrap()
                .join()
                .unwrap()
        });
        let findings =
            keylint_core::rules::check(&model, &keylint_core::rules::Settings::default());
        (
            findings
                .iter()
                .map(|f| format!("{}: {}", f.rule.name(), f.primary.message))
                .collect(),
            deps,
        )
    }

    const KEYS: &str = r#"
PREFIX = "rq:"
JOB = PREFIX + "job:"
KEY_FORMAT = "rq:queue:{}"

def job_key(job_id):
    return f"{JOB}{job_id}"

def queue_key(name):
    return KEY_FORMAT.format(name)
"#;

    const CONN: &str = r#"
import redis
_r = None

def configure(url):
    global _r
    _r = redis.Redis.from_url(url)

def get_connection():
    return redis.Redis.from_url("redis://localhost")
"#;

    const MODELS: &str = r#"
from .keys import JOB, job_key
from .conn import get_connection

class Job:
    key_prefix = JOB

    def __init__(self, id, connection=None):
        self.id = id
        self.key = self.key_prefix + id
        self.connection = connection or get_connection()

    @property
    def dependents_key(self):
        return self.key + ":dependents"

    @classmethod
    def key_for(cls, job_id):
        return cls.key_prefix + job_id
"#;

    #[test]
    fn keys_and_clients_resolve_through_imports() {
        let jobs = r#"
from .keys import job_key, queue_key
from .conn import get_connection
from . import conn
from .models import Job

def run(job_id, name):
    r = get_connection()
    r.rename(job_key(job_id), queue_key(name))
    conn._r.smove("a:1", "b:1", "x")
    job = Job(job_id)
    job.connection.mget(job.key, job.dependents_key)
    r.mget(Job.key_for(job_id), job_key(job_id))
"#;
        let files = [
            ("app/__init__.py", ""),
            ("app/keys.py", KEYS),
            ("app/conn.py", CONN),
            ("app/models.py", MODELS),
            ("app/jobs.py", jobs),
        ];
        let (findings, deps) = lint(&files, "app/jobs.py");
        assert_eq!(
            findings,
            [
                "cross-slot-likely: hashed whole: f\"rq:queue:{name}\"",
                "cross-slot: slot 14631",
                "cross-slot-likely: hashed whole: f\"rq:job:{job_id}:dependents\"",
            ],
            "{findings:#?}"
        );
        assert!(deps.contains(&ModuleDep::Read {
            path: "app/models.py".into()
        }));
    }

    #[test]
    fn star_imports_bind_the_public_names_of_a_project_module() {
        let keys = "import redis\nr = redis.Redis()\nA = 'a:1'\nB = 'b:1'\n_C = 'c:1'\n";
        let listed = "__all__ = ['D']\nD = 'd:1'\nE = 'e:1'\n";
        let main = r#"
from app.keys import *
from app.listed import *

def run():
    r.rename(A, B)
    r.rename(A, _C)
    r.rename(A, D)
    r.rename(A, E)
"#;
        let files = [
            ("app/__init__.py", ""),
            ("app/keys.py", keys),
            ("app/listed.py", listed),
            ("app/main.py", main),
        ];
        let (findings, _) = lint(&files, "app/main.py");
        // `_C` is private and `E` is not in `__all__`: neither is bound.
        assert_eq!(
            findings,
            ["cross-slot: slot 14631", "cross-slot: slot 2951"],
            "{findings:#?}"
        );
    }

    /// Lints the modules of `files` in `order` within one project: per file, its
    /// findings (in their order) shown by `show`; sorted by file.
    fn in_order(
        files: &HashMap<&'static str, &'static str>,
        order: &[&str],
        show: impl Fn(&keylint_core::Finding) -> String,
    ) -> Vec<(String, Vec<String>)> {
        let project = Project::new(Arc::new(Mem(files.clone())), Options::default());
        let mut out = Vec::new();
        for f in order {
            let (model, _) = std::thread::scope(|s| {
                std::thread::Builder::new()
                    .stack_size(crate::STACK_SIZE)
                    .spawn_scoped(s, || {
                        lower_module(files[f], &Options::default(), None, &project, f)
                    })
                    .unwrap()
                    .join()
                    .unwrap()
            });
            let findings =
                keylint_core::rules::check(&model, &keylint_core::rules::Settings::default());
            out.push((f.to_string(), findings.iter().map(&show).collect()));
        }
        out.sort();
        out
    }

    #[test]
    fn findings_do_not_depend_on_which_file_went_first() {
        let a = "import redis\nfrom .b import X, make\nfrom .c import Z\nY = 'y:1'\n\
r = redis.Redis()\nr.mget(X, 'q:1')\nr.mget(make(), 'q:1')\nr.mget(Z, 'q:2')\n";
        let b =
            "from .a import Y\nfrom .c import Z\nX = Y + ':x'\ndef make():\n    return Z + ':m'\n";
        let c = "Z = 'z:1'\n";
        let files: HashMap<&'static str, &'static str> =
            [("p/a.py", a), ("p/b.py", b), ("p/c.py", c)]
                .into_iter()
                .collect();
        let run = |order: &[&str]| in_order(&files, order, |x| x.primary.message.clone());
        let one = run(&["p/a.py", "p/b.py", "p/c.py"]);
        assert_eq!(one, run(&["p/c.py", "p/b.py", "p/a.py"]));
        assert_eq!(one, run(&["p/b.py", "p/a.py", "p/c.py"]));
        // `a` and `b` import each other: each reads what the other has with the
        // modules it imports alone (`X` is `Y + ':x'` with `a`'s `Y`, `make()`
        // returns `c`'s `Z + ':m'`); `c` is no cycle.
        assert_eq!(one[0].1.len(), 3, "{one:?}");
    }

    #[test]
    fn a_module_function_may_build_its_keys_from_values_it_computes() {
        // `pk` is computed by the function from what the call passes: the same
        // record gives the same key, another record another one.
        let utils = "def save(table, pipeline, record):\n    pk = record['id']\n    \
name = f'{table}:row:{pk}'\n    pipeline.hset(name, mapping=record)\n    \
pipeline.zadd(f'{table}:index', {name: 1})\n\n\
def save_tagged(pipeline, record):\n    pk = record['id']\n    \
pipeline.hset(f'row:{{{pk}}}', mapping=record)\n    pipeline.sadd(f'row:{{{pk}}}:f', 'a')\n";
        let main = "import redis\nfrom .utils import save, save_tagged\n\n\
def one(r: redis.Redis, record):\n    with r.pipeline(transaction=True) as p:\n        \
save('book', p, record)\n        p.execute()\n\n\
def same(r: redis.Redis, record):\n    with r.pipeline(transaction=True) as p:\n        \
save_tagged(p, record)\n        save_tagged(p, record)\n        p.execute()\n\n\
def two(r: redis.Redis, record, other):\n    with r.pipeline(transaction=True) as p:\n        \
save_tagged(p, record)\n        save_tagged(p, other)\n        p.execute()\n";
        let files = [
            ("p/__init__.py", ""),
            ("p/utils.py", utils),
            ("p/main.py", main),
        ];
        let (findings, _) = lint(&files, "p/main.py");
        assert_eq!(
            findings,
            [
                "cross-slot-likely: slot 14062",
                "cross-slot-likely: hashes other",
            ],
            "{findings:#?}"
        );
    }

    #[test]
    fn transactions_continue_in_methods_of_other_modules() {
        let reg = r#"
from .keys import job_prefix

class Registry:
    def __init__(self, name):
        self.key = "reg:" + name

    def add(self, job_id, pipeline=None):
        if pipeline is not None:
            pipeline.zadd(self.key, {job_id: 1})
            return
        self.connection.zadd(self.key, {job_id: 1})

    def done(self, job_id, pipeline):
        pipeline.hset(job_prefix(job_id), "done", 1)
        pipeline.execute()
"#;
        let jobs = r#"
import redis
from .reg import Registry

def run(r: redis.Redis, job_id, other: Registry):
    a = Registry("a")
    with r.pipeline(transaction=True) as p:
        a.add(job_id, pipeline=p)
        p.set("b:1", "x")
        p.execute()
    with r.pipeline(transaction=True) as p:
        other.add(job_id, pipeline=p)
        other.add(job_id, p)
        p.execute()
    with r.pipeline(transaction=True) as p:
        a.add(job_id, pipeline=p)
        a.done(job_id, p)
        p.set("b:1", "x")
        p.execute()
"#;
        let keys = "def job_prefix(job_id):\n    return 'job:' + job_id\n";
        let files = [
            ("p/__init__.py", ""),
            ("p/keys.py", keys),
            ("p/reg.py", reg),
            ("p/jobs.py", jobs),
        ];
        let (findings, _) = lint(&files, "p/jobs.py");
        // The first transaction only: the same registry twice is one key, and
        // `done()` executes the pipeline between the other two commands.
        assert_eq!(findings, ["cross-slot: slot 14631"], "{findings:#?}");
    }

    #[test]
    fn pipelines_pass_through_methods_and_functions_of_other_modules() {
        // `queue` and `job` import each other; `Queue` takes `**kwargs`; the job a
        // queue method receives is the caller's, known by its type or not at all.
        let job = "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n\
if TYPE_CHECKING:\n    from .queue import Queue\n\nclass Job:\n    \
def __init__(self, id):\n        self._id = id\n\n    @property\n    def id(self):\n        \
return self._id\n\n    @property\n    def key(self):\n        return 'jq:job:' + self.id\n\n    \
def set_status(self, status, pipeline=None):\n        pipeline.hset(self.key, 's', status)\n";
        let queue = "from .job import Job\n\nclass Queue:\n    \
def __init__(self, name, connection=None, **kwargs):\n        self.key = 'jq:queue:' + name\n\n    \
def _persist(self, job: Job, pipeline):\n        job.set_status('q', pipeline=pipeline)\n\n    \
def enqueue(self, job: Job, pipeline):\n        self._persist(job, pipeline)\n        \
pipeline.rpush(self.key, job.id)\n";
        let reg = "WORKERS = 'jq:workers'\n\ndef register(worker, pipeline=None):\n    \
pipeline.sadd(WORKERS, worker.name)\n";
        let main = "import redis\nfrom . import reg\nfrom .job import Job\nfrom .queue import Queue\n\n\
def requeue(r: redis.Redis, job):\n    with r.pipeline(transaction=True) as p:\n        \
Queue('a', serializer='json').enqueue(job, p)\n        p.execute()\n\n\
def same(r: redis.Redis, job: Job):\n    with r.pipeline(transaction=True) as p:\n        \
p.hset(job.key, 'x', 1)\n        Queue('a')._persist(job, p)\n        p.execute()\n\n\
def two(r: redis.Redis, job: Job, other: Job):\n    with r.pipeline(transaction=True) as p:\n        \
p.hset(other.key, 'x', 1)\n        Queue('a')._persist(job, p)\n        p.execute()\n\n\
def birth(r: redis.Redis, worker):\n    with r.pipeline(transaction=True) as p:\n        \
p.delete('jq:worker:1')\n        reg.register(worker, p)\n        p.execute()\n";
        let files = [
            ("p/__init__.py", ""),
            ("p/job.py", job),
            ("p/queue.py", queue),
            ("p/reg.py", reg),
            ("p/main.py", main),
        ];
        let (findings, _) = lint(&files, "p/main.py");
        // `requeue`: the job's key and the queue's; `same`: one job, one key, silent;
        // `two`: two jobs of one family; `birth`: the worker key and `jq:workers`.
        assert_eq!(
            findings,
            [
                "cross-slot-likely: slot 4330",
                "cross-slot-likely: hashed whole: f\"jq:job:{job.id}\"",
                "cross-slot: slot 300",
            ],
            "{findings:#?}"
        );
    }

    #[test]
    fn a_property_may_import_its_class_inside_its_body() {
        // `job.registry` imports the registry's class in its body (against an import
        // cycle) and asserts first; `other` binds the imported name to another class
        // inside a function than the module's import does: the function's own wins.
        let reg = "class Registry:\n    def __init__(self, name):\n        \
self.key = 'lq:limit:' + name\n\n    def add(self, job_id, pipeline):\n        \
pipeline.zadd(self.key, {job_id: 0})\n";
        let plain = "class Registry:\n    def __init__(self, key):\n        self.key = key\n\n    \
def add(self, job_id, pipeline):\n        pass\n";
        let job = "class Job:\n    def __init__(self, id, limit):\n        self.id = id\n        \
self.limit = limit\n\n    @property\n    def registry(self):\n        \
from .reg import Registry\n\n        assert self.limit\n        \
return Registry(self.limit)\n";
        let main = "import redis\nfrom .job import Job\nfrom .plain import Registry\n\n\
def limited(r: redis.Redis, job: Job):\n    with r.pipeline(transaction=True) as p:\n        \
p.hset('lq:job:' + job.id, 'x', 1)\n        job.registry.add(job.id, p)\n        p.execute()\n\n\
def other(r: redis.Redis, job_id, limit):\n    from .reg import Registry\n\n    \
with r.pipeline(transaction=True) as p:\n        p.hset('lq:job:' + job_id, 'x', 1)\n        \
Registry(limit).add(job_id, p)\n        p.execute()\n\n\
def module_one(r: redis.Redis, job_id, limit):\n    with r.pipeline(transaction=True) as p:\n        \
p.hset('lq:job:' + job_id, 'x', 1)\n        Registry(limit).add(job_id, p)\n        p.execute()\n";
        let files = [
            ("p/__init__.py", ""),
            ("p/reg.py", reg),
            ("p/plain.py", plain),
            ("p/job.py", job),
            ("p/main.py", main),
        ];
        let (findings, _) = lint(&files, "p/main.py");
        // `limited` and `other`: the job hash and the limit set, two families;
        // `module_one`: the module's `Registry` queues nothing, silent.
        assert_eq!(findings.len(), 2, "{findings:#?}");
        assert!(
            findings.iter().all(|f| f.starts_with("cross-slot-likely")),
            "{findings:#?}"
        );
    }

    #[test]
    fn modules_in_a_cycle_see_what_the_others_have_alone() {
        let reg = "from .jobs import PREFIX\n\nclass Registry:\n    \
def __init__(self, name):\n        self.key = 'reg:' + name\n        \
self.other = PREFIX + name\n\n    def add(self, job_id, pipeline):\n        \
pipeline.zadd(self.key, {job_id: 1})\n        pipeline.sadd(self.other, job_id)\n";
        let jobs = "import redis\nfrom .reg import Registry\nPREFIX = 'jobs:'\n\n\
def run(r: redis.Redis, job_id):\n    a = Registry('a')\n    \
with r.pipeline(transaction=True) as p:\n        a.add(job_id, pipeline=p)\n        \
p.set('b:1', 'x')\n        p.execute()\n";
        let files: HashMap<&'static str, &'static str> = [
            ("p/__init__.py", ""),
            ("p/reg.py", reg),
            ("p/jobs.py", jobs),
        ]
        .into_iter()
        .collect();
        let run = |order: &[&str]| {
            in_order(&files, order, |x| {
                let keys = x.secondary.iter().map(|l| l.message.clone());
                format!(
                    "{} {}",
                    x.primary.message,
                    keys.collect::<Vec<_>>().join(",")
                )
            })
        };
        let one = run(&["p/jobs.py", "p/reg.py"]);
        assert_eq!(one, run(&["p/reg.py", "p/jobs.py"]));
        // `reg.key` does not depend on `jobs`: its facts alone give it; `other`, built
        // from a constant of `jobs`, comes from what `jobs` has alone. Both are queued
        // by `a.add(…)` and labelled there.
        assert_eq!(one[0].1.len(), 1, "{one:?}");
        assert!(one[0].1[0].contains("slot 14631"), "{one:?}");
    }

    #[test]
    fn a_constant_read_back_across_a_cycle_is_known() {
        // `workers` sets a class attribute from a constant of `reg`, which imports
        // `workers` back for an annotation; `reg.register` queues a command on that
        // attribute. Summarised shallowly, `reg` reads `workers` alone, which reads
        // `reg`'s constant bare.
        let reg = "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n\
if TYPE_CHECKING:\n    from .workers import Worker\nWORKERS = 'cq:workers'\n\n\
def register(worker: Worker, pipeline=None):\n    \
connection = pipeline if pipeline is not None else worker.connection\n    \
connection.sadd(worker.workers_key, worker.name)\n";
        let workers = "import redis\nfrom . import reg\n\nclass Worker:\n    \
workers_key = reg.WORKERS\n\n    def __init__(self, name, connection: redis.Redis):\n        \
self.name = name\n        self.connection = connection\n\n    def birth(self):\n        \
with self.connection.pipeline(transaction=True) as p:\n            \
p.hset('cq:worker:' + self.name, 'a', 1)\n            reg.register(self, p)\n            \
p.execute()\n";
        let files: HashMap<&'static str, &'static str> = [
            ("p/__init__.py", ""),
            ("p/reg.py", reg),
            ("p/workers.py", workers),
        ]
        .into_iter()
        .collect();
        let run = |order: &[&str]| in_order(&files, order, |x| x.primary.message.clone());
        let one = run(&["p/workers.py", "p/reg.py"]);
        assert_eq!(one, run(&["p/reg.py", "p/workers.py"]));
        // Sorted by file: `reg` has no finding, `workers` one, at the call.
        assert!(one[0].1.is_empty(), "{one:?}");
        assert_eq!(one[1].1.len(), 1, "{one:?}");
        assert!(one[1].1[0].contains("slot"), "{one:?}");
    }

    #[test]
    fn typed_objects_resolve_the_same_whatever_the_order() {
        // `sched` and `tasks` import each other: each sees the other's facts alone.
        let sched = "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n\
if TYPE_CHECKING:\n    from redis import Redis\n    from .tasks import Runner\n\n\
class Scheduler:\n    def __init__(self, name, connection: Redis | None = None):\n        \
connection = wrap(connection)\n        self.connection = connection\n        \
self.key = 'sq:scheduler:' + name\n\n    @property\n    def lock_key(self):\n        \
return 'sq:lock:' + self.key\n\n    def runner(self) -> Runner:\n        \
return make(self)\n";
        let tasks = "from __future__ import annotations\nfrom .sched import Scheduler\n\n\
class Runner:\n    def __init__(self, sched: Scheduler):\n        self.sched = sched\n\n    \
def beat(self, other: Scheduler):\n        \
self.sched.connection.rename(self.sched.key, self.sched.lock_key)\n        \
self.sched.connection.smove(self.sched.key, self.sched.key, 'x')\n        \
other.connection.smove(other.key, self.sched.key, 'x')\n\n\
def untyped(sched):\n    sched.connection.rename(sched.key, sched.lock_key)\n";
        let files: HashMap<&'static str, &'static str> = [
            ("p/__init__.py", ""),
            ("p/sched.py", sched),
            ("p/tasks.py", tasks),
        ]
        .into_iter()
        .collect();
        let run = |order: &[&str]| {
            in_order(&files, order, |x| {
                format!("{} {}", x.rule.name(), x.primary.message)
            })
        };
        let one = run(&["p/tasks.py", "p/sched.py"]);
        assert_eq!(one, run(&["p/sched.py", "p/tasks.py"]));
        // RENAME of one scheduler's key and lock, SMOVE between two schedulers; the
        // same key twice and the untyped receiver are silent.
        assert_eq!(one[1].0, "p/tasks.py");
        assert_eq!(one[1].1.len(), 2, "{one:?}");
    }

    #[test]
    fn import_cycles_end() {
        let a =
            "from .b import X\nY = X + ':y'\nimport redis\nr = redis.Redis()\nr.mget(Y, 'k:1')\n";
        let b = "from .a import Y\nX = Y + ':x'\n";
        let files = [("p/a.py", a), ("p/b.py", b)];
        let (findings, _) = lint(&files, "p/a.py");
        assert!(findings.is_empty(), "{findings:?}");
    }

    const DRIVER: &str = r#"
import redis
from . import controllers

class Driver:
    def __init__(self, url):
        self.url = url

    @property
    def connection(self):
        return redis.Redis.from_url(self.url)

    def queues(self):
        return controllers.QueueController(self)
"#;

    const CONTROLLERS: &str = r#"
from . import queues
QueueController = queues.QueueController
"#;

    const QUEUES: &str = r#"
"""Queues in Redis."""

class QueueController:
    def __init__(self, driver):
        self.driver = driver
        self._client = self.driver.connection

    def move(self):
        self._client.rename("queues:a", "queues:b")
        self.driver.connection.rename("queues:c", "queues:d")
"#;

    #[test]
    fn a_parameter_every_constructor_call_fills_with_self_of_one_class_has_it() {
        let files = [
            ("app/__init__.py", ""),
            ("app/driver.py", DRIVER),
            ("app/controllers.py", CONTROLLERS),
            ("app/queues.py", QUEUES),
        ];
        let (findings, deps) = lint(&files, "app/queues.py");
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert!(findings.iter().all(|f| f.starts_with("cross-slot:")));
        // The answer of the reverse index and the callers' texts are what the
        // findings depend on.
        assert!(deps.contains(&ModuleDep::Mentions {
            from: "app/queues.py".into(),
            word: "QueueController".into(),
            found: Some(vec![
                "app/controllers.py".into(),
                "app/driver.py".into(),
                "app/queues.py".into()
            ]),
        }));
        assert!(deps.contains(&ModuleDep::Read {
            path: "app/driver.py".into()
        }));
    }

    #[test]
    fn a_parameter_some_call_fills_otherwise_stays_unknown() {
        let other = r#"
from .queues import QueueController

def make(driver):
    return QueueController(driver)
"#;
        let sub = r#"
from .queues import QueueController

class Sub(QueueController):
    pass
"#;
        let aliased = r#"
from .queues import QueueController as QC

class Other:
    def q(self):
        return QC(self)
"#;
        let defaulted = r#"
from .queues import QueueController

class Other:
    def q(self):
        return QueueController(*[self])
"#;
        for extra in [other, sub, aliased, defaulted] {
            let files = [
                ("app/__init__.py", ""),
                ("app/driver.py", DRIVER),
                ("app/controllers.py", CONTROLLERS),
                ("app/queues.py", QUEUES),
                ("app/extra.py", extra),
            ];
            let (findings, _) = lint(&files, "app/queues.py");
            assert!(findings.is_empty(), "{extra}: {findings:?}");
        }
    }

    #[test]
    fn a_method_taking_parts_builds_keys_for_each_count_of_arguments() {
        let tiger = r#"
from redis import Redis

class Tiger:
    def __init__(self, connection: Redis, config):
        self.connection = connection
        self.config = config

    def key(self, *parts):
        return ":".join([self.config["PREFIX"]] + list(parts))
"#;
        let users = r#"
from .tiger import Tiger

def load(tiger: Tiger, ids):
    return tiger.connection.mget([tiger.key("task", i) for i in ids])

def rows(tiger: Tiger, items):
    return tiger.connection.mget([tiger.key("task", "x", "y", item[0]) for item in items])

class Worker:
    def __init__(self, tiger: Tiger):
        self.connection = tiger.connection
        self.key = tiger.key

    def load(self, ids):
        return self.connection.mget([self.key("task", i) for i in ids])
"#;
        let files = [
            ("app/__init__.py", ""),
            ("app/tiger.py", tiger),
            ("app/users.py", users),
        ];
        let (findings, _) = lint(&files, "app/users.py");
        assert_eq!(findings.len(), 3, "{findings:?}");
        assert!(findings.iter().all(|f| f.starts_with("cross-slot-likely:")));
        // A splat, more arguments than summarised, the same key twice: nothing.
        let silent = r#"
from .tiger import Tiger

def splat(tiger: Tiger, ids, parts):
    return tiger.connection.mget([tiger.key(*parts, i) for i in ids])

def many(tiger: Tiger, ids):
    return tiger.connection.mget([tiger.key("a", "b", "c", "d", "e", "f", i) for i in ids])

def same(tiger: Tiger, i):
    return tiger.connection.mget(tiger.key("task", i), tiger.key("task", i))
"#;
        let files = [
            ("app/__init__.py", ""),
            ("app/tiger.py", tiger),
            ("app/users.py", silent),
        ];
        let (findings, _) = lint(&files, "app/users.py");
        assert!(findings.is_empty(), "{findings:?}");
    }
}

/// Whether `text` assigns `name` at the start of a line (`NAME = …`, `NAME: str = …`,
/// `NAME += …`), at any indentation: a binding of a module the summary may not know.
fn assigns_at_top(text: &str, name: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix(name).is_some_and(|rest| {
            let rest = rest.trim_start();
            (rest.starts_with('=') && !rest.starts_with("=="))
                || rest.starts_with(':')
                || rest.starts_with("+=")
        })
    })
}
