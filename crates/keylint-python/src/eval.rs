//! Expressions to values: key templates from f-strings, `%`, `.format`, `+`,
//! `":".join`, constants, attributes, properties and key-builder functions; redis-py
//! clients, pipelines and registered scripts from constructors, annotations and
//! assignments.
//!
//! Evaluation never guesses. What cannot be known becomes an opaque value with an
//! identity (the variable and its version), which a key template holds as a hole.

use crate::index::{text, ClassId, Def, DefKind, FuncId, Index};
use crate::strings::{self, Piece};
use crate::syntax::{Field, Nav, NodeExt};
use crate::tpl::{is_keylike_label, HoleInfo, TPart, Tpl};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use tree_sitter::Node;

/// What the binding of a number a client replies ends with (see [`NUMBER_REPLIES`]).
pub(crate) const NUMBER_MARK: &str = "@number";

/// Client methods whose reply is a number (redis-py gives an `int` or a `float`):
/// a value that never holds a brace.
const NUMBER_REPLIES: &[&str] = &[
    "incr",
    "incrby",
    "decr",
    "decrby",
    "incrbyfloat",
    "hincrby",
    "hincrbyfloat",
    "zincrby",
    "llen",
    "scard",
    "zcard",
    "hlen",
    "strlen",
    "xlen",
    "pfcount",
    "bitcount",
    "dbsize",
    "zcount",
    "zlexcount",
    "hstrlen",
];

/// Which redis-py client a receiver is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientKind {
    /// `RedisCluster` (sync or asyncio).
    Cluster,
    /// `Redis` / `StrictRedis` constructed here: talks to one server.
    Standalone,
    /// A client known only by its name or a loose annotation.
    Unknown,
}

impl ClientKind {
    pub(crate) fn merge(self, other: ClientKind) -> ClientKind {
        if self == other {
            self
        } else {
            ClientKind::Unknown
        }
    }
}

/// Whether a pipeline is a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tx {
    Yes,
    No,
    Unknown,
}

/// Index of a pipeline in [`Analyzer::pipes`].
pub(crate) type PipeId = usize;
/// Index of a registered script in [`Analyzer::scripts`].
pub(crate) type ScriptId = usize;

/// A pipeline object.
#[derive(Debug, Clone)]
pub(crate) struct PipeInfo {
    pub client: ClientKind,
    pub tx: Tx,
    /// The call that created it (`r.pipeline(…)`), if in this file.
    pub created: Option<std::ops::Range<usize>>,
    /// The span of `pipeline` in that call, to point at.
    pub anchor: Option<std::ops::Range<usize>>,
    /// Created by `r.transaction(func, …)`: executes when the function returns.
    pub transaction_call: Option<std::ops::Range<usize>>,
    /// How `pipeline(…)` decided whether this is a transaction.
    pub origin: TxOrigin,
    /// Executed when the `with` block it was handed to ends (the context manager
    /// executes it): every command the block queues is one batch, unless the block
    /// executes it itself.
    pub at_block_end: bool,
    /// The code does not show the client's kind (a parameter, a client known by
    /// use): `client` is what the configured profile made of it.
    pub kind_by_profile: bool,
    /// Made by a function followed from one of its calls with that call's arguments
    /// (`txcall.rs`): the transaction is judged, and reported, at the call.
    pub via: Option<std::rc::Rc<crate::txcall::Via>>,
    /// Kept on an attribute of the class (`self._tx = self.redis.pipeline()`) and
    /// read by other methods, which queue on it (`heldpipe.rs`): the class and the
    /// attribute.
    pub held: Option<(ClassId, String)>,
}

/// Why a pipeline is, or is not, a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxOrigin {
    /// `transaction=…` is written at the call.
    Written,
    /// The client's default, on a client constructed in view.
    ClientDefault,
    /// The client's default, on a client whose kind the code does not show (the
    /// configured profile decided).
    ProfileDefault,
    /// aioredis 1.x's `multi_exec()`: always a transaction.
    MultiExec,
    /// Not created by `pipeline(…)` here.
    Other,
}

/// A script registered with `register_script` (or a script body for `eval`).
#[derive(Debug, Clone)]
pub(crate) struct ScriptInfo<'t> {
    /// The expression that gives the body.
    pub body: Option<Node<'t>>,
    /// The context to evaluate it in.
    pub func: Option<FuncId>,
    /// The client it was registered on.
    pub client: ClientKind,
    /// The body's text, when the script was registered in another module of the
    /// project (a script factory there): linked to its callers, never merged.
    pub ext: Option<std::sync::Arc<str>>,
    /// Made by a module function that wraps `EVAL` itself: where its calls take
    /// their client and keys (`wrapscript.rs`).
    pub wrapper: Option<crate::wrapscript::WrapperSig>,
    /// Lua lines the decorator puts in front of a docstring body (see
    /// `script::docstring_scripts`).
    pub preamble: Option<String>,
}

/// An element of a list, tuple or dict, with its expression.
#[derive(Debug, Clone)]
pub(crate) struct Elem<'t> {
    pub value: Value<'t>,
    pub node: Node<'t>,
    /// `*x` inside a list literal.
    pub star: bool,
    /// The loops and comprehensions (by start offset) over whose passes this one
    /// element stands for many values: an element of a comprehension, a key appended
    /// in a loop. Empty for an ordinary element.
    pub each: Vec<usize>,
}

/// What begins the binding of a local computed from a parameter or a loop variable
/// (see `Analyzer::derived_reads`): shown under its own name wherever it is applied.
pub(crate) const DERIVED: &str = "derived:";

/// The marker that a hole's binding carries when its value is a loop variable (or
/// derived from one) of the loop or comprehension starting at `id`.
pub(crate) fn each_marker(id: usize) -> String {
    format!("@each{id};")
}

/// What may lie between an append to a list and the block of the list's definition
/// besides loops.
const APPEND_THROUGH: &[&str] = &[
    "block",
    "expression_statement",
    "with_statement",
    "with_clause",
    "with_item",
    "call",
    "argument_list",
    "attribute",
];

/// Whether a name is read only for its size or truth: `len(x)`, `not x`, `if x:`.
pub(crate) fn reads_size(nav: &Nav<'_>, src: &str, x: Node<'_>) -> bool {
    let Some(p) = nav.parent(x) else {
        return false;
    };
    match p.kind_name() {
        "not_operator" => true,
        "if_statement" | "elif_clause" => p.field(Field::Condition) == Some(x),
        // `len(keys)`, and `"+".join(keys)`, which reads every member and builds a
        // string of its own (a name for the result: `"tmp:%s" % "+".join(keys)`).
        "argument_list" => {
            nav.named_children(p).count() == 1
                && nav.parent(p).is_some_and(|c| {
                    c.kind_name() == "call"
                        && c.field(Field::Function)
                            .is_some_and(|f| match f.kind_name() {
                                "identifier" => text(f, src) == "len",
                                "attribute" => {
                                    f.field(Field::Object)
                                        .is_some_and(|o| o.kind_name() == "string")
                                        && f.field(Field::Attribute)
                                            .is_some_and(|m| text(m, src) == "join")
                                }
                                _ => false,
                            })
                })
        }
        _ => false,
    }
}

/// Whether a name is passed whole to a call that only reads it: logged
/// (`log.debug("keys %s", keys)`), printed, shown in an f-string, or copied
/// (`tuple(keys)`, `sorted(keys)`). The list it names is left as it was.
pub(crate) fn reads_whole(nav: &Nav<'_>, src: &str, x: Node<'_>) -> bool {
    let Some(p) = nav.parent(x) else {
        return false;
    };
    match p.kind_name() {
        "interpolation" => true,
        "argument_list" => nav.parent(p).is_some_and(|c| {
            c.kind_name() == "call"
                && c.field(Field::Function)
                    .is_some_and(|f| match f.kind_name() {
                        "identifier" => matches!(
                            text(f, src),
                            "print"
                                | "str"
                                | "repr"
                                | "tuple"
                                | "list"
                                | "sorted"
                                | "set"
                                | "frozenset"
                        ),
                        "attribute" => f.field(Field::Attribute).is_some_and(|m| {
                            matches!(
                                text(m, src),
                                "debug"
                                    | "info"
                                    | "warning"
                                    | "warn"
                                    | "error"
                                    | "exception"
                                    | "critical"
                                    | "dumps"
                            )
                        }),
                        _ => false,
                    })
        }),
        _ => false,
    }
}

/// Whether `x` is read at a literal index (`keys[0]`, `keys[-1]`), not written
/// there: one item of the list read, the list left whole (`if len(keys) == 1: key =
/// keys[0]`).
fn reads_item(nav: &Nav<'_>, x: Node<'_>) -> bool {
    let Some(p) = nav.parent(x) else {
        return false;
    };
    if p.kind_name() != "subscript" || p.field(Field::Value) != Some(x) {
        return false;
    }
    let index = |i: Node<'_>| {
        i.kind_name() == "integer"
            || (i.kind_name() == "unary_operator"
                && i.named_child(0).is_some_and(|n| n.kind_name() == "integer"))
    };
    if p.named_child_count() != 2 || !p.named_child(1).is_some_and(index) {
        return false;
    }
    match nav.parent(p) {
        Some(q) => match q.kind_name() {
            "assignment" | "augmented_assignment" => q.field(Field::Left) != Some(p),
            "pattern_list" | "tuple_pattern" | "list_pattern" | "delete_statement"
            | "for_statement" | "for_in_clause" => false,
            _ => true,
        },
        None => false,
    }
}

/// The range of the elements that a slice with literal bounds and no step
/// (`xs[1:]`, `xs[:-1]`, `xs[2:4]`) keeps of a list of `len` elements, as Python
/// computes it.
fn literal_slice(n: Node<'_>, len: usize, src: &str) -> Option<(usize, usize)> {
    if n.named_child_count() != 2 {
        return None;
    }
    let s = n.named_child(1).filter(|s| s.kind_name() == "slice")?;
    let bounds: Vec<&str> = text(s, src).split(':').map(str::trim).collect();
    let [start, stop] = bounds.as_slice() else {
        return None;
    };
    let len = i64::try_from(len).ok()?;
    let at = |b: &str, default: i64| -> Option<usize> {
        let i = if b.is_empty() {
            default
        } else {
            b.parse::<i64>().ok()?
        };
        let i = if i < 0 { len + i } else { i };
        usize::try_from(i.clamp(0, len)).ok()
    };
    let (a, b) = (at(start, 0)?, at(stop, len)?);
    Some((a, b.max(a)))
}

/// Whether a subscript takes a slice (`xs[a:b]`, `xs[:n]`) that may hold several
/// items: not one with literal bounds at most one apart (`xs[:1]`, `xs[2:3]`).
fn is_batch_slice(n: Node<'_>, src: &str) -> bool {
    if n.named_child_count() != 2 {
        return false;
    }
    let Some(s) = n.named_child(1).filter(|s| s.kind_name() == "slice") else {
        return false;
    };
    let bounds: Vec<&str> = text(s, src).split(':').map(str::trim).collect();
    let bound = |b: &str| -> Option<u64> {
        if b.is_empty() {
            Some(0)
        } else {
            b.parse().ok()
        }
    };
    match (bounds.first().map(|b| bound(b)), bounds.get(1)) {
        (Some(Some(start)), Some(stop)) if !stop.is_empty() => {
            !matches!(stop.parse::<u64>(), Ok(stop) if stop <= start + 1)
        }
        _ => true,
    }
}

/// What an expression may evaluate to.
#[derive(Debug, Clone)]
pub(crate) enum Value<'t> {
    /// A string or bytes value.
    Str(Tpl),
    Int(i64),
    /// `True` or `False`.
    Bool(bool),
    Null,
    /// A list or tuple literal. `family` for a comprehension: one element stands for
    /// many values.
    Seq {
        items: Vec<Elem<'t>>,
        family: bool,
    },
    /// A dict literal: its keys, and the parameters bound where it was written (a
    /// followed builder's), for reading an entry's value (`doc["id"]` of a record a
    /// project function builds).
    Dict(Vec<Elem<'t>>, Option<Rc<Env<'t>>>),
    /// A followed builder's `**kwargs`, bound to the keyword arguments its call
    /// passes that name no other parameter, by name (`template.format(**kwargs)`).
    Kwargs(Vec<(String, Elem<'t>)>),
    Client(ClientKind),
    Pipe(PipeId),
    Script(ScriptId),
    /// A module or an imported name, by dotted path.
    Symbol(String),
    /// A function of this file (a method bound to an instance of `bound`).
    Func {
        id: FuncId,
        bound: Option<ClassId>,
    },
    Class(ClassId),
    /// `cls` in a class method: the class or a subclass.
    ClsObj(ClassId),
    /// `self` in a method of a class.
    SelfObj(ClassId),
    /// The contents of a file read through a literal path.
    FileText(Tpl),
    /// A filesystem path built from literals (`Path(__file__).parent / "x.lua"`).
    Path(PathValue),
    /// A value that cannot be known but has an identity.
    Opaque(HoleInfo),
    /// An instance of a class of another project module (project analysis).
    Ext(Rc<crate::project::Instance>),
    /// Known not to be a redis client (the result of a call into another library).
    Foreign,
    Unknown,
}

impl<'t> Value<'t> {
    /// A family of keys: one member `value` (written at `node`) that stands for a
    /// value per pass of the loops and comprehensions `each`.
    pub(crate) fn family(value: Value<'t>, node: Node<'t>, each: Vec<usize>) -> Value<'t> {
        Value::Seq {
            items: vec![Elem {
                value,
                node,
                star: false,
                each,
            }],
            family: true,
        }
    }

    /// Whether the value holds many members of one family and nothing else: a family
    /// (a comprehension, the keys a pattern finds), or a list filled in a loop with
    /// members of one family (`found.append(k)` for each `k` a `SCAN` finds,
    /// `found.extend(keys)` for each batch it returns).
    pub(crate) fn is_batch(&self) -> bool {
        match self {
            Value::Seq { family: true, .. } => true,
            Value::Seq {
                items,
                family: false,
            } => matches!(items.as_slice(), [e] if !e.star && !e.each.is_empty()),
            _ => false,
        }
    }

    /// The elements `*v` adds to a list or an argument list when they can be told: a
    /// list's elements, or a comprehension's family (starred: an unknown count). The
    /// value itself when they cannot.
    pub(crate) fn splat(self) -> Result<Vec<Elem<'t>>, Value<'t>> {
        match self {
            Value::Seq {
                items,
                family: false,
            } => Ok(items),
            // `*[k for …]`: the family, then an unknown count.
            Value::Seq {
                mut items,
                family: true,
            } if items.len() == 1 => {
                let mut e = items.remove(0);
                e.star = true;
                Ok(vec![e])
            }
            // `*mapping`: its keys.
            Value::Dict(items, _)
                if items.iter().all(|e| e.each.is_empty()) || items.len() == 1 =>
            {
                crate::chunks::dict_keys(items).splat()
            }
            other => Err(other),
        }
    }
}

/// A path known at lint time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathValue {
    /// Relative to the Python file's directory (built from `__file__`), or as written.
    pub from_module_dir: bool,
    /// `/`-separated components; `..` allowed.
    pub parts: Vec<String>,
    /// `__file__` itself (the module file), before `.parent`.
    pub is_module_file: bool,
}

/// Parameters bound when a key-builder function is followed through a call.
#[derive(Debug)]
pub(crate) struct Env<'t> {
    pub func: FuncId,
    pub params: HashMap<String, Value<'t>>,
    /// Identity of the arguments, appended to the bindings of values made inside.
    pub tag: String,
}

/// Where an expression is evaluated.
#[derive(Debug, Clone)]
pub(crate) struct Ctx<'t> {
    pub func: Option<FuncId>,
    pub env: Option<Rc<Env<'t>>>,
    pub depth: u32,
}

pub(crate) const MAX_DEPTH: u32 = 24;
/// Expressions evaluated per file before everything else is left unknown.
const MAX_STEPS: usize = 2_000_000;

/// A small string hash for guard keys.
fn fxhash(s: &str) -> usize {
    s.bytes().fold(0xcbf2_9ce4_8422_2325usize, |h, b| {
        (h ^ b as usize).wrapping_mul(0x1000_0000_01b3)
    })
}

impl<'t> Ctx<'t> {
    pub fn at(func: Option<FuncId>) -> Ctx<'t> {
        Ctx {
            func,
            env: None,
            depth: 0,
        }
    }

    pub(crate) fn deeper(&self) -> Ctx<'t> {
        Ctx {
            depth: self.depth + 1,
            ..self.clone()
        }
    }
}

/// The right-hand sides this source assigns to `target` (a name or `self.attr`), each
/// up to the end of its statement's first line or of its parentheses, at most 400
/// bytes: text, for a look at how a value was made.
fn assigned_texts<'s>(src: &'s str, target: &'s str) -> impl Iterator<Item = &'s str> + 's {
    src.match_indices(target).filter_map(move |(at, _)| {
        let before = src[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            return None;
        }
        let rest = &src[at + target.len()..];
        // `target = …` or `target: T = …`, not `==`.
        let rest = rest.trim_start_matches([' ', '\t']);
        let rest = match rest.strip_prefix(':') {
            Some(r) => &r[r.find('=')?..],
            None => rest,
        };
        let value = rest.strip_prefix('=')?;
        if value.starts_with('=') {
            return None;
        }
        let mut end = value.len().min(400);
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        Some(&value[..end])
    })
}

/// Redis client classes and factories, by the last part of their dotted path.
/// Whether the text between a subscript's brackets is a literal index (`0`), a plain
/// string (`"uuid"`, `b'id'`) or a slice of literal bounds (`2:`, `:-1`).
fn literal_subscript(inner: &str) -> bool {
    let inner = inner.trim();
    let int = |t: &str| {
        let t = t.trim();
        let t = t.strip_prefix('-').unwrap_or(t);
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
    };
    if int(inner) && !inner.starts_with('-') {
        return true;
    }
    let unprefixed = inner.strip_prefix('b').unwrap_or(inner);
    for q in ['"', '\''] {
        if let Some(body) = unprefixed.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return !body.is_empty()
                && body
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':' | b'.'));
        }
    }
    match inner.split(':').collect::<Vec<_>>().as_slice() {
        [a, b] => {
            (a.trim().is_empty() || int(a)) && (b.trim().is_empty() || int(b)) && inner != ":"
        }
        _ => false,
    }
}

/// The list a call adds to at its end: `keys` of `keys.append(x)` or
/// `keys.extend(xs)`.
pub(crate) fn list_added_to<'s>(src: &'s str, call: Node<'_>) -> Option<&'s str> {
    if call.kind_name() != "call" {
        return None;
    }
    let f = call
        .field(Field::Function)
        .filter(|f| f.kind_name() == "attribute")?;
    let obj = f
        .field(Field::Object)
        .filter(|o| o.kind_name() == "identifier")?;
    matches!(text(f.field(Field::Attribute)?, src), "append" | "extend").then(|| text(obj, src))
}

/// `x` of `tuple(x)`, `list(x)` or `sorted(x)`: a copy of the list `x` (a name).
fn copied_list<'t>(e: Node<'t>, src: &str) -> Option<Node<'t>> {
    if e.kind_name() != "call" {
        return None;
    }
    let f = e.field(Field::Function)?;
    if f.kind_name() != "identifier" || !matches!(text(f, src), "tuple" | "list" | "sorted") {
        return None;
    }
    let a = e.field(Field::Arguments)?;
    let mut it = (0..a.named_child_count()).filter_map(|i| a.named_child(i));
    let x = it.next()?;
    (it.next().is_none() && x.kind_name() == "identifier").then_some(x)
}

/// Whether the argument `count` is `len(x)` written right before the argument `*x`.
pub(crate) fn counts_splat(count: Node<'_>, src: &str) -> bool {
    let Some(counted) = len_of(count, src) else {
        return false;
    };
    count
        .next_named_sibling()
        .filter(|n| n.kind_name() == "list_splat")
        .and_then(|n| n.named_child(0))
        .is_some_and(|x| text(x, src) == counted)
}

/// `len(x)` of a name or an attribute chain (`len(keys)`, `len(self.keys)`): `x`.
pub(crate) fn len_of<'a>(n: Node<'_>, src: &'a str) -> Option<&'a str> {
    if n.kind_name() != "call" {
        return None;
    }
    let f = n.field(Field::Function)?;
    if f.kind_name() != "identifier" || text(f, src) != "len" {
        return None;
    }
    let a = n.field(Field::Arguments)?;
    let inner = text(a, src)
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let ok = !inner.is_empty()
        && !inner.starts_with('.')
        && !inner.ends_with('.')
        && inner
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    ok.then_some(inner)
}

/// Whether `path` names redis-py's script class.
pub(crate) fn is_script_class(path: &str) -> bool {
    matches!(
        &*crate::index::client_path(path),
        "redis.commands.core.Script"
            | "redis.commands.core.AsyncScript"
            | "redis.commands.Script"
            | "redis.commands.AsyncScript"
            | "redis.client.Script"
    )
}

fn constructor_kind(path: &str) -> Option<ClientKind> {
    let path = crate::index::client_path(path);
    let parts: Vec<&str> = path.split('.').collect();
    let first = *parts.first()?;
    let last = *parts.last()?;
    let prev = parts.len().checked_sub(2).map(|i| parts[i]);
    let redisish = first == "redis" || first == "aioredis";
    if !redisish {
        return None;
    }
    match (prev, last) {
        (_, "RedisCluster") => Some(ClientKind::Cluster),
        (Some("RedisCluster"), "from_url") => Some(ClientKind::Cluster),
        (_, "Redis" | "StrictRedis") => Some(ClientKind::Standalone),
        (Some("Redis" | "StrictRedis"), "from_url" | "from_pool") => Some(ClientKind::Standalone),
        (Some("redis" | "asyncio" | "aioredis" | "client"), "from_url") => {
            Some(ClientKind::Standalone)
        }
        _ => None,
    }
}

/// A type annotation that names a redis-py client or pipeline.
#[derive(Debug, Clone, Copy)]
pub(crate) enum AnnotatedAs {
    Client(ClientKind),
    Pipeline(ClientKind),
}

/// Where the conversion letter of a `%` field is: the first byte from `from` on that
/// is not a flag, width, precision or length modifier (any of which makes the text
/// unknown).
pub(crate) fn percent_spec_end(bytes: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < bytes.len() && b"#0- +123456789.*hlL".contains(&bytes[j]) {
        j += 1;
    }
    j
}

impl<'t> crate::lower::Analyzer<'t> {
    fn ix(&self) -> &Index<'t> {
        &self.ix
    }

    pub(crate) fn src(&self) -> &'t str {
        self.ix.src
    }

    /// A client kind with the configured profile applied where the code does not say.
    pub(crate) fn effective(&self, k: ClientKind) -> ClientKind {
        match (k, self.opts.default_client) {
            (ClientKind::Unknown, Some(crate::ClientProfile::Cluster)) => ClientKind::Cluster,
            (ClientKind::Unknown, Some(crate::ClientProfile::Standalone)) => ClientKind::Standalone,
            (k, _) => k,
        }
    }

    pub(crate) fn scope_tag(&self, ctx: &Ctx<'t>) -> String {
        let base = match ctx.func {
            Some(f) => format!("f{}", self.ix().funcs[f].node.start_byte()),
            None => "mod".to_string(),
        };
        match &ctx.env {
            Some(e) if !e.tag.is_empty() => format!("{base}[{}]", e.tag),
            _ => base,
        }
    }

    /// An opaque value written as `n`.
    pub(crate) fn opaque(&self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        const MAX_LABEL: usize = 60;
        let full = text(n, self.src());
        // Inside a followed key builder, a value that reads none of the parameters the
        // call binds (`self.config["PREFIX"]`) is the same whatever the arguments.
        if ctx
            .env
            .as_ref()
            .is_some_and(|e| !self.reads_bound_param(n, e))
        {
            let ctx = Ctx {
                func: ctx.func,
                env: None,
                depth: ctx.depth,
            };
            return self.opaque(n, &ctx);
        }
        // Inside a followed builder, a value is identified by the arguments it reads:
        // `coll = collection if collection is not None else self.default` is the same
        // for every key of a comprehension that varies only the other argument.
        let scope = match ctx.env.as_ref().and_then(|e| self.narrow_tag(n, e)) {
            Some(tag) => tag,
            None => self.scope_tag(ctx),
        };
        // A long expression is shown shortened and identified by a hash of its text.
        let (label, binding) = if full.len() > MAX_LABEL {
            let mut cut = 40;
            while !full.is_char_boundary(cut) {
                cut -= 1;
            }
            (
                format!("{}…", &full[..cut]),
                format!("{scope}:#{:x}", fxhash(full)),
            )
        } else {
            (full.to_string(), format!("{scope}:{full}"))
        };
        // Arithmetic that maps many values to one (`t // 100`, `round(t, -2)`) in a
        // followed builder: it is the same for the same arguments, but two arguments
        // may give one value, so it is no value derived from the argument, and it does
        // not vary with a loop (no family of keys that differ in it).
        let lossy = ctx.env.is_some() && self.lossy(n);
        // A value a followed builder computes from one of the caller's values alone.
        let derived = ctx
            .env
            .as_ref()
            .filter(|_| !lossy)
            .and_then(|e| self.derived_from_arg(n, e));
        let (label, binding) = match derived {
            Some((l, root)) => (l, crate::heads::derived(&root, binding)),
            None => (label, binding),
        };
        // A setting read with no default in view: a head its keys may share.
        let binding =
            if crate::heads::is_config_read(self.ix.nav, n, self.src(), &self.ix().imports) {
                crate::heads::mark_config(binding)
            } else {
                binding
            };
        let binding = if lossy && binding.contains("@each") {
            without_each(&binding)
        } else {
            binding
        };
        Value::Opaque(HoleInfo {
            keylike: is_keylike_label(&label),
            label,
            binding,
            span: Some(n.byte_range()),
        })
    }

    /// The parameters of a followed call that the expression `n` reads, each once;
    /// `None` when that cannot be told: a large expression, a lambda or a
    /// comprehension inside (whose own names would be taken for the parameters), or,
    /// with `no_calls`, any call inside.
    pub(crate) fn params_read(
        &self,
        n: Node<'t>,
        env: &Env<'t>,
        no_calls: bool,
    ) -> Option<Vec<&'t str>> {
        let src = self.src();
        let mut stack = vec![n];
        let mut seen = 0usize;
        let mut read: Vec<&'t str> = Vec::new();
        let mut locals: Vec<&'t str> = Vec::new();
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 256
                || matches!(
                    x.kind_name(),
                    "lambda"
                        | "list_comprehension"
                        | "set_comprehension"
                        | "dictionary_comprehension"
                        | "generator_expression"
                )
                || (no_calls && x.kind_name() == "call")
            {
                return None;
            }
            if x.kind_name() == "identifier" {
                let name = text(x, src);
                if env.params.contains_key(name) {
                    if !read.contains(&name) {
                        read.push(name);
                    }
                } else if !no_calls && !locals.contains(&name) {
                    // A local of the builder (`param_hash = sha256(param_str…)` with
                    // `param_str = json.dumps(report_id)`): what its values read.
                    locals.push(name);
                    let defs = self.ix().funcs[env.func].defs.get(name);
                    for d in defs.into_iter().flatten() {
                        if let DefKind::Expr(e) = d.kind {
                            stack.push(e);
                        }
                    }
                }
                continue;
            }
            stack.extend(self.ix.nav.named_children(x));
        }
        Some(read)
    }

    /// The scope tag of a value written as `n` inside a followed call, made of the
    /// arguments of the parameters `n` reads only; `None` when that cannot be told
    /// (a large expression, a lambda or comprehension inside).
    fn narrow_tag(&self, n: Node<'t>, env: &Env<'t>) -> Option<String> {
        let mut read = self.params_read(n, env, false)?;
        read.sort_unstable();
        let f = self.ix().funcs[env.func].node.start_byte();
        let args: Vec<String> = read
            .iter()
            .map(|p| format!("{p}={}", fingerprint(&env.params[*p])))
            .collect();
        Some(format!("f{f}[{}]", args.join(",")))
    }

    /// Whether `n` names a parameter that a followed call binds to an argument
    /// (`self`/`cls` aside). Large expressions are assumed to.
    fn reads_bound_param(&self, n: Node<'t>, env: &Env<'t>) -> bool {
        let src = self.src();
        let mut stack = vec![n];
        let mut seen = 0usize;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 256 {
                return true;
            }
            if x.kind_name() == "identifier" {
                let bound = env
                    .params
                    .get(text(x, src))
                    .is_some_and(|v| !matches!(v, Value::SelfObj(_) | Value::ClsObj(_)));
                if bound {
                    return true;
                }
                continue;
            }
            // A lambda or comprehension inside may shadow names; assume it reads them.
            if matches!(
                x.kind_name(),
                "lambda"
                    | "list_comprehension"
                    | "set_comprehension"
                    | "dictionary_comprehension"
                    | "generator_expression"
            ) {
                return true;
            }
            stack.extend(self.ix.nav.named_children(x));
        }
        false
    }

    fn opaque_named(
        &self,
        label: &str,
        binding: String,
        span: Option<std::ops::Range<usize>>,
    ) -> Value<'t> {
        Value::Opaque(HoleInfo {
            label: label.to_string(),
            binding,
            span,
            keylike: is_keylike_label(label),
        })
    }

    /// Reads a type annotation.
    pub(crate) fn annotation(&self, ann: Node<'t>) -> Option<AnnotatedAs> {
        let raw = text(ann, self.src());
        let cleaned: String = raw
            .chars()
            .map(|c| if c == '"' || c == '\'' { ' ' } else { c })
            .collect();
        let mut client: Option<ClientKind> = None;
        let mut pipeline: Option<ClientKind> = None;
        for tok in cleaned.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
            if tok.is_empty() {
                continue;
            }
            let first = tok.split('.').next().unwrap_or(tok);
            let path = match self.ix().imports.get(first) {
                Some(p) => {
                    crate::index::client_path(&format!("{p}{}", &tok[first.len()..])).into_owned()
                }
                None => tok.to_string(),
            };
            if !(path.starts_with("redis.") || path.starts_with("aioredis.")) {
                // Project analysis: a client class of another module of the project.
                if self.project_client_class(&path) {
                    client =
                        Some(client.map_or(ClientKind::Unknown, |k| k.merge(ClientKind::Unknown)));
                }
                // A type alias of this module or of another one of the project.
                let alias = if tok.contains('.') || self.ix().imports.contains_key(tok) {
                    self.project_type_alias(&path)
                } else {
                    self.type_alias(tok)
                };
                match alias {
                    Some(AnnotatedAs::Client(k)) => {
                        client = Some(client.map_or(k, |c| c.merge(k)));
                    }
                    Some(AnnotatedAs::Pipeline(k)) => {
                        pipeline = Some(pipeline.map_or(k, |c| c.merge(k)));
                    }
                    None => {}
                }
                continue;
            }
            let last = path.rsplit('.').next().unwrap_or("");
            match last {
                "RedisCluster" => {
                    client =
                        Some(client.map_or(ClientKind::Cluster, |k| k.merge(ClientKind::Cluster)))
                }
                "Redis" | "StrictRedis" => {
                    client =
                        Some(client.map_or(ClientKind::Unknown, |k| k.merge(ClientKind::Unknown)))
                }
                "ClusterPipeline" => pipeline = Some(ClientKind::Cluster),
                "Pipeline" => {
                    pipeline =
                        Some(pipeline.map_or(ClientKind::Unknown, |k| k.merge(ClientKind::Unknown)))
                }
                _ => {}
            }
        }
        match (client, pipeline) {
            (Some(_), Some(_)) => Some(AnnotatedAs::Client(ClientKind::Unknown)),
            (Some(k), None) => Some(AnnotatedAs::Client(k)),
            (None, Some(k)) => Some(AnnotatedAs::Pipeline(k)),
            (None, None) => None,
        }
    }

    /// The module global `name` of this file as a type alias of clients or
    /// pipelines: bound once, at module level, to a type expression (`redis.Redis |
    /// valkey.Valkey`, `Union[Redis, RedisCluster]`, `TypeAlias` annotated or not) that
    /// names them.
    pub(crate) fn type_alias(&self, name: &str) -> Option<AnnotatedAs> {
        let [d] = self.ix().module_defs.get(name)?.as_slice() else {
            return None;
        };
        let DefKind::Expr(e) = d.kind else {
            return None;
        };
        if !is_type_expr(e) || self.alias_depth.get() > 4 {
            return None;
        }
        self.alias_depth.set(self.alias_depth.get() + 1);
        let t = self.annotation(e);
        self.alias_depth.set(self.alias_depth.get() - 1);
        // A union that names `RedisCluster` next to something not known to be one
        // (`SingleNodeRedis | RedisCluster`) may hold a standalone client.
        match t {
            Some(AnnotatedAs::Client(ClientKind::Cluster))
                if !matches!(e.kind_name(), "identifier" | "attribute") =>
            {
                Some(AnnotatedAs::Client(ClientKind::Unknown))
            }
            t => t,
        }
    }

    fn annotated_value(&mut self, ann: Node<'t>) -> Option<Value<'t>> {
        if let Some(v) = self.annotated_script(ann) {
            return Some(v);
        }
        match self.annotation(ann)? {
            AnnotatedAs::Client(k) => Some(Value::Client(k)),
            AnnotatedAs::Pipeline(k) => {
                let k = self.effective(k);
                Some(Value::Pipe(self.pipe_for(ann, k, Tx::Unknown, None)))
            }
        }
    }

    /// The pipeline created at `node` (one id per creation site).
    pub(crate) fn pipe_for(
        &mut self,
        node: Node<'t>,
        client: ClientKind,
        tx: Tx,
        anchor: Option<std::ops::Range<usize>>,
    ) -> PipeId {
        if let Some(&id) = self.pipe_by_node.get(&node.id()) {
            return id;
        }
        let id = self.pipes.len();
        let created = (node.kind_name() == "call").then(|| node.byte_range());
        self.pipes.push(PipeInfo {
            client,
            tx,
            created,
            anchor,
            transaction_call: None,
            origin: TxOrigin::Other,
            at_block_end: false,
            kind_by_profile: false,
            via: None,
            held: None,
        });
        self.pipe_by_node.insert(node.id(), id);
        id
    }

    /// Evaluates an expression.
    pub(crate) fn eval(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        self.steps += 1;
        if ctx.depth > MAX_DEPTH || self.steps > MAX_STEPS {
            return self.opaque(n, ctx);
        }
        let src = self.src();
        match n.kind_name() {
            "string" => self.eval_string(n, ctx),
            "concatenated_string" => {
                let mut out = Tpl::default();
                for p in self.ix.nav.named_children(n) {
                    match self.eval(p, &ctx.deeper()) {
                        Value::Str(t) => out.push(t),
                        _ => return self.opaque(n, ctx),
                    }
                }
                Value::Str(out)
            }
            "integer" => parse_int(text(n, src)).map_or_else(|| self.opaque(n, ctx), Value::Int),
            "true" | "false" => Value::Bool(n.kind_name() == "true"),
            "none" => Value::Null,
            "parenthesized_expression" => match n.named_child(0) {
                Some(inner) if inner.kind_name() != "comment" => self.eval(inner, &ctx.deeper()),
                _ => Value::Unknown,
            },
            "await" => match n.named_child(0) {
                Some(inner) => self.eval(inner, &ctx.deeper()),
                None => Value::Unknown,
            },
            "named_expression" => match n.field(Field::Value) {
                Some(v) => self.eval(v, &ctx.deeper()),
                None => Value::Unknown,
            },
            "identifier" => self.eval_name(n, ctx),
            "attribute" => match self
                .fresh_value(n, ctx)
                .or_else(|| self.class_name_value(n, ctx))
            {
                Some(v) => v,
                None => self.eval_attribute(n, ctx),
            },
            "call" => match self
                .fresh_value(n, ctx)
                .or_else(|| self.class_name_value(n, ctx))
            {
                Some(v) => v,
                None => self.eval_call_memo(n, ctx),
            },
            "binary_operator" => self.eval_binary(n, ctx),
            "list" | "tuple" | "expression_list" => self.eval_seq(n, ctx),
            "dictionary" => self.eval_dict(n, ctx),
            "list_comprehension" | "generator_expression" | "set_comprehension" => {
                self.eval_comprehension(n, ctx)
            }
            "dictionary_comprehension" => self.eval_dict_comprehension(n, ctx),
            "subscript" => {
                // `token[:8]`: a slice of a fresh random value.
                if let Some(v) = self.fresh_value(n, ctx) {
                    return v;
                }
                // `NAMES["QUEUE"]` of a module dict that nothing writes: the entry.
                if let Some(entry) = self.frozen_dict_entry(n, ctx.func) {
                    let module_ctx = Ctx {
                        func: None,
                        env: None,
                        depth: ctx.depth + 1,
                    };
                    return self.eval(entry, &module_ctx);
                }
                // `SYSTEMS[system]` of a module dict of clients.
                if let Some(v) = self.client_registry_entry(n, ctx.func) {
                    return v;
                }
                // `self._scripts["claim"]`: an entry of a dict of registered scripts.
                if let Some(v) = self.script_dict_entry(n, ctx) {
                    return v;
                }
                // `self._scripts[name]` of a dict that holds only registered scripts.
                if let Some(v) = self.script_registry_entry(n, ctx) {
                    return v;
                }
                // `self.options["namespace"]` of options filled from literal defaults.
                if let Some(v) = self.options_subscript(n, ctx) {
                    return v;
                }
                // `self.resource_keys["cpu"]` of a table of key names written once.
                if let Some(v) = self.attr_dict_entry(n, ctx) {
                    return v;
                }
                // `keys["paths"]` of a local table of key names written once.
                if let Some(v) = self.local_dict_entry(n, ctx) {
                    return v;
                }
                // `Redis[bytes]`: a generic alias is the class itself.
                let value = n.field(Field::Value);
                let evaluated = value.map(|v| self.eval(v, &ctx.deeper()));
                // `doc["id"]` of a dict written out (a record a project function
                // builds and returns): that entry's value.
                if let Some(Value::Dict(items, env)) = &evaluated {
                    if string_index(n, value, self.src()) {
                        let env = env.clone();
                        if let Some(v) = self.dict_entry(n, value, items, env, ctx) {
                            return v;
                        }
                    }
                }
                // `keys[0]` of a list or tuple known element by element.
                if let Some(Value::Seq {
                    items,
                    family: false,
                }) = &evaluated
                {
                    let at = literal_index(n, value, self.src())
                        .and_then(|i| element_at(items.len(), i));
                    if let Some(at) = at.filter(|_| items.iter().all(|e| !e.star)) {
                        return items[at].value.clone();
                    }
                    // `keys[1:]` of such a list: the elements it keeps.
                    if items.iter().all(|e| !e.star && e.each.is_empty()) {
                        if let Some((a, b)) = literal_slice(n, items.len(), self.src()) {
                            return Value::Seq {
                                items: items[a..b].to_vec(),
                                family: false,
                            };
                        }
                    }
                }
                match evaluated {
                    Some(Value::Symbol(p)) => Value::Symbol(p),
                    // `keys[i : i + 100]` of a family of keys: a batch of its members.
                    Some(fam) if fam.is_batch() && is_batch_slice(n, self.src()) => fam,
                    // `item[0]`, `fields["uuid"]`, `k[2:]` of a loop variable (a row
                    // read back, a stream entry's fields) varies with it, like
                    // `job.id`: a literal index, string or slice only.
                    Some(Value::Opaque(h)) if h.binding.contains("@each") => {
                        let index = value.map_or("", |v| &self.src()[v.end_byte()..n.end_byte()]);
                        let inner = index.trim().trim_start_matches('[').trim_end_matches(']');
                        if index.trim().starts_with('[') && literal_subscript(inner) {
                            let label = text(n, self.src()).to_string();
                            Value::Opaque(HoleInfo {
                                keylike: h.keylike,
                                binding: format!("{}[{inner}]", h.binding),
                                label,
                                span: Some(n.byte_range()),
                            })
                        } else {
                            self.opaque(n, ctx)
                        }
                    }
                    // `data["doc_id"]` of a parameter `data`: one value for every
                    // key of the function that begins with it.
                    Some(Value::Opaque(h))
                        if value.is_some_and(|v| self.caller_attr_base(&h, v, ctx))
                            && string_index(n, value, self.src()) =>
                    {
                        let v = self.opaque(n, ctx);
                        if let Value::Opaque(a) = &v {
                            self.caller_items.insert(a.binding.clone());
                        }
                        v
                    }
                    _ => self
                        .indexed_by_loop_var(n, value, ctx)
                        .unwrap_or_else(|| self.opaque(n, ctx)),
                }
            }
            "conditional_expression" => self.eval_conditional(n, ctx),
            "boolean_operator" => self.eval_bool_op(n, ctx),
            _ => self.opaque(n, ctx),
        }
    }

    /// `xs[i]` with `i` a loop variable (`for i in range(len(xs)):`) and `xs` the
    /// same in every pass: one item per pass, like `for x in xs:`.
    fn indexed_by_loop_var(
        &mut self,
        n: Node<'t>,
        value: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let value = value?;
        let idx: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(n)
            .filter(|c| *c != value && c.kind_name() != "comment")
            .collect();
        let [idx] = idx.as_slice() else {
            return None;
        };
        if idx.kind_name() != "identifier" {
            return None;
        }
        let Value::Opaque(h) = self.eval(*idx, &ctx.deeper()) else {
            return None;
        };
        if !h.binding.contains("@each") {
            return None;
        }
        // The base must not itself change from pass to pass.
        if self.reads_loop_var(value, ctx) {
            return None;
        }
        // `keys[j]` of a family of keys (`for j, row in enumerate(rows):`): a member
        // that varies with the index's loop.
        if let Some(v) = self.member_at_loop_index(value, &h, ctx) {
            return Some(v);
        }
        let base = text(value, self.src());
        Some(Value::Opaque(HoleInfo {
            keylike: is_keylike_label(base),
            binding: format!("{}[{base}]", h.binding),
            label: text(n, self.src()).to_string(),
            span: Some(n.byte_range()),
        }))
    }

    /// The member of the family of keys `value` holds that `value[i]` reads when `i`
    /// (`index`) is the variable of one loop: the member's varying holes now vary with
    /// that loop. `None` when `value` holds no family or its member does not vary.
    fn member_at_loop_index(
        &mut self,
        value: Node<'t>,
        index: &HoleInfo,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let [id] = crate::collections::marked_loops(&Tpl::hole(index.clone()))[..] else {
            return None;
        };
        if !matches!(value.kind_name(), "identifier" | "attribute") {
            return None;
        }
        let base = self.eval(value, &ctx.deeper());
        if !base.is_batch() {
            return None;
        }
        let Value::Seq { items, .. } = base else {
            return None;
        };
        let [Elem {
            value: Value::Str(t),
            each,
            star: false,
            ..
        }] = items.as_slice()
        else {
            return None;
        };
        let mine = each_marker(id);
        let mut varies = false;
        let mut t = t.clone();
        for p in &mut t.parts {
            if let TPart::Hole(h) = p {
                for &e in each {
                    if h.binding.contains(&each_marker(e)) {
                        varies = true;
                        h.binding = h.binding.replace(&each_marker(e), &mine);
                    }
                }
            }
        }
        if !varies {
            return None;
        }
        if let Some(s) = each.iter().find_map(|e| self.scan_sources.get(e).copied()) {
            self.scan_sources.insert(id, s);
        }
        Some(Value::Str(t))
    }

    /// Whether an identifier in `n` evaluates to a loop variable.
    fn reads_loop_var(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> bool {
        // Too large to tell: taken to read one.
        let Some(names) = self.names_read(n, 32) else {
            return true;
        };
        names.into_iter().any(|x| {
            matches!(self.eval(x, &ctx.deeper()), Value::Opaque(h) if h.binding.contains("@each"))
        })
    }

    /// The identifiers of `n` that name values (not the attribute of `x.attr`), in
    /// the order a walk from its end meets them; `None` when `n` has more than
    /// `limit` nodes.
    fn names_read(&self, n: Node<'t>, limit: usize) -> Option<Vec<Node<'t>>> {
        let mut stack = vec![n];
        let mut seen = 0usize;
        let mut out = Vec::new();
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > limit {
                return None;
            }
            if x.kind_name() == "identifier" {
                let parent_attr = self.ix.nav.parent(x).is_some_and(|p| {
                    p.kind_name() == "attribute" && p.field(Field::Attribute) == Some(x)
                });
                if !parent_attr {
                    out.push(x);
                }
                continue;
            }
            stack.extend(self.ix.nav.named_children(x));
        }
        Some(out)
    }

    /// `a if c else b`: the arm a bound test picks, the pipeline a function makes when
    /// its `pipeline=None` parameter is not given, or what both arms agree on.
    fn eval_conditional(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let kids: Vec<Node<'t>> = self.ix.nav.named_children(n).collect();
        if kids.len() < 3 {
            return self.opaque(n, ctx);
        }
        if let Some(x) = self.enum_or_text(kids[1], kids[0], kids[2], ctx) {
            return self.eval(x, &ctx.deeper());
        }
        let (a, b) = match self.pick_arm(kids[1], kids[0], kids[2], ctx) {
            Ok(v) => return v,
            Err(both) => *both,
        };
        if let Some(v) = self.or_empty_conditional(kids[1], kids[0], kids[2], &a, &b) {
            return v;
        }
        if let Some(v) = self.optional_prefix(kids[1], &a, &b, ctx) {
            return v;
        }
        let text_like = |v: &Value<'t>| matches!(v, Value::Str(_) | Value::Opaque(_));
        if text_like(&a) && text_like(&b) {
            if let Some(v) = self.head_choice(n, ctx) {
                return v;
            }
        }
        match (&a, &b) {
            (Value::Client(x), Value::Client(y)) => Value::Client(x.merge(*y)),
            (Value::Client(k), Value::Pipe(_)) | (Value::Pipe(_), Value::Client(k)) => {
                // A client or a pipeline: commands are sent, transactions unknown.
                Value::Client(match k {
                    ClientKind::Cluster => ClientKind::Cluster,
                    _ => ClientKind::Unknown,
                })
            }
            (Value::Pipe(x), Value::Pipe(y)) if x == y => a,
            (Value::Pipe(x), Value::Pipe(y)) => match self.pipe_choice(n, *x, *y) {
                Some(p) => Value::Pipe(p),
                None => self.opaque(n, ctx),
            },
            (Value::Client(k), Value::Null) | (Value::Null, Value::Client(k)) => Value::Client(*k),
            // `redis_conn if redis_conn else get_redis_connection()`: the caller's
            // client, else this one, as `redis_conn or …` reads.
            (Value::Client(k), Value::Opaque(_)) | (Value::Opaque(_), Value::Client(k))
                if self.tests_its_arm(
                    kids[1],
                    if matches!(a, Value::Client(_)) {
                        kids[2]
                    } else {
                        kids[0]
                    },
                ) =>
            {
                Value::Client(k.merge(ClientKind::Unknown))
            }
            (Value::Str(x), Value::Str(y))
                if x.as_bytes().is_some() && x.as_bytes() == y.as_bytes() =>
            {
                a
            }
            // `"a:%s" % x if c else "b:%s" % x`: one of two keys. Not when it is a
            // part of a larger string (`f"p:{'a:' if c else ''}{x}"`, `pre + (a if c
            // else b)`): there it stays an opaque part, which keeps the key a member
            // of its family.
            (Value::Str(_), Value::Str(_))
                if !self.ix.nav.parent(n).is_some_and(|p| {
                    matches!(p.kind_name(), "interpolation" | "binary_operator")
                        || (p.kind_name() == "parenthesized_expression"
                            && self
                                .ix
                                .nav
                                .parent(p)
                                .is_some_and(|q| q.kind_name() == "binary_operator"))
                }) =>
            {
                let name = self
                    .ix
                    .nav
                    .parent(n)
                    .filter(|p| p.kind_name() == "assignment")
                    .and_then(|p| p.field(Field::Left))
                    .filter(|l| l.kind_name() == "identifier")
                    .map_or("one-of", |l| text(l, self.src()));
                match self.one_of(name, vec![a.clone(), b.clone()]) {
                    Some(v) => v,
                    None => self.tagged_opaque(n, &a, &b, ctx),
                }
            }
            _ => self.tagged_opaque(n, &a, &b, ctx),
        }
    }

    /// Whether the condition of a conditional expression tests its arm `arm` (a name
    /// or an attribute) and nothing else: `x`, `not x`, `x is None`, `x is not None`.
    fn tests_its_arm(&self, cond: Node<'t>, arm: Node<'t>) -> bool {
        if !matches!(arm.kind_name(), "identifier" | "attribute") {
            return false;
        }
        let src = self.src();
        let arm = text(arm, src);
        let c = text(cond, src).trim();
        let c = c.strip_prefix("not ").map_or(c, str::trim);
        let c = c
            .strip_suffix("is not None")
            .or_else(|| c.strip_suffix("is None"))
            .map_or(c, str::trim);
        c == arm
    }

    /// The opaque value of a conditional expression whose arms are `a` and `b`, a
    /// part that may carry a hash tag when either arm may.
    fn tagged_opaque(
        &mut self,
        n: Node<'t>,
        a: &Value<'t>,
        b: &Value<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let mut v = self.opaque(n, ctx);
        if let Value::Opaque(h) = &mut v {
            h.keylike |= crate::orempty::may_carry_tag(a) || crate::orempty::may_carry_tag(b);
        }
        v
    }

    /// `r.pipeline() if c else self.chain`: two pipelines of one kind (same client,
    /// same transaction mode, decided the same way, neither a `with` block's nor a
    /// `transaction(…)` callback's) are one pipeline of that kind, made at the
    /// conditional expression `n`. Anything else stays unknown.
    fn pipe_choice(&mut self, n: Node<'t>, x: PipeId, y: PipeId) -> Option<PipeId> {
        if let Some(&id) = self.pipe_by_node.get(&n.id()) {
            return Some(id);
        }
        let (a, b) = (&self.pipes[x], &self.pipes[y]);
        let plain = |p: &PipeInfo| !p.at_block_end && p.transaction_call.is_none();
        if !(plain(a) && plain(b))
            || a.client != b.client
            || a.tx != b.tx
            || a.origin != b.origin
            || a.kind_by_profile != b.kind_by_profile
        {
            return None;
        }
        let range = n.byte_range();
        let inside = |p: &PipeInfo| {
            p.created
                .as_ref()
                .is_some_and(|c| range.start <= c.start && c.end <= range.end)
        };
        let anchor = [a, b]
            .into_iter()
            .find(|p| inside(p))
            .and_then(|p| p.anchor.clone());
        let mut info = a.clone();
        info.created = Some(range);
        info.anchor = anchor;
        let id = self.pipes.len();
        self.pipes.push(info);
        self.pipe_by_node.insert(n.id(), id);
        Some(id)
    }

    /// Whether `n` is a module name that a function assigns under `global`.
    pub(crate) fn set_in_functions(&self, n: Node<'t>) -> bool {
        if n.kind_name() != "identifier" {
            return false;
        }
        let name = text(n, self.src());
        self.ix.module_defs.contains_key(name) && self.ix.rebound_in_function(name)
    }

    /// Whether function `id` hands back its first parameter as text, converted at
    /// most (`passthru.rs`; read once per function).
    fn returns_param_as_text(&mut self, id: FuncId) -> bool {
        if let Some(&b) = self.param_as_text_seen.get(&id) {
            return b;
        }
        let b =
            crate::passthru::returns_param_as_text(self.ix.nav, self.ix.src, &self.ix.funcs[id]);
        self.param_as_text_seen.insert(id, b);
        b
    }

    /// Whether module function `id` returns a copy of its list argument's items
    /// (read once per function).
    fn copies_items(&mut self, id: FuncId) -> bool {
        if let Some(&b) = self.copies_items_seen.get(&id) {
            return b;
        }
        let info = &self.ix.funcs[id];
        let b =
            info.parent.is_none() && crate::passthru::copies_items(self.ix.nav, self.ix.src, info);
        self.copies_items_seen.insert(id, b);
        b
    }

    /// `(PREFIX + SEP) if PREFIX != "" else ""`: a choice that reads nothing but
    /// literals and module names that setters rebind (one value each for the run),
    /// one of them a head (a prefix the setter's caller chooses): one value for the
    /// run too, computed from that head, which every key built on it begins with.
    /// Anything else read (a parameter, a local, a call) leaves the choice unknown.
    fn head_choice(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let mut head: Option<HoleInfo> = None;
        let mut stack = vec![n];
        let mut seen = 0usize;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 64 {
                return None;
            }
            match x.kind_name() {
                "identifier" => match self.eval(x, &ctx.deeper()) {
                    Value::Str(t) if t.as_bytes().is_some() => {}
                    Value::Opaque(h) if h.binding.contains("global-rebound:") => {
                        if crate::heads::is_config_head(&h.binding) {
                            match &head {
                                Some(p) if p.binding != h.binding => return None,
                                _ => head = Some(h),
                            }
                        }
                    }
                    _ => return None,
                },
                "string" => {
                    if nav
                        .named_children(x)
                        .any(|c| c.kind_name() == "interpolation")
                    {
                        return None;
                    }
                }
                "conditional_expression"
                | "binary_operator"
                | "comparison_operator"
                | "parenthesized_expression"
                | "boolean_operator"
                | "not_operator" => stack.extend(nav.named_children(x)),
                "comment" => {}
                _ => return None,
            }
        }
        let head = head?;
        Some(Value::Opaque(HoleInfo {
            label: text(n, self.src()).to_string(),
            binding: crate::heads::derived(&head.binding, format!("choice@{}", n.start_byte())),
            span: Some(n.byte_range()),
            keylike: true,
        }))
    }

    /// `a or b`, `a and b`: a client either way, or the caller's pipeline / the one
    /// made when none was passed.
    fn eval_bool_op(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let src = self.src();
        // `client or redis.Redis()`: a client either way.
        let l = n.field(Field::Left).map(|l| self.eval(l, &ctx.deeper()));
        let r = n.field(Field::Right).map(|r| self.eval(r, &ctx.deeper()));
        let is_or = match (n.field(Field::Left), n.field(Field::Right)) {
            (Some(a), Some(b)) => src[a.end_byte()..b.start_byte()].trim() == "or",
            _ => false,
        };
        if is_or {
            // `pipeline or r.pipeline()`: the caller's pipeline when one was
            // passed (pipelines are true even when empty), else the new one.
            match (&l, &r) {
                (Some(Value::Pipe(_)), _)
                    if n.field(Field::Left).and_then(|a| self.truth(a, ctx)) == Some(true) =>
                {
                    return l.unwrap_or(Value::Unknown);
                }
                (Some(Value::Null), Some(Value::Pipe(_))) => {
                    return r.unwrap_or(Value::Unknown);
                }
                (_, Some(b))
                    if self.made_pipe(b)
                        && n.field(Field::Left)
                            .is_some_and(|a| self.unbound_none_param(a, ctx)) =>
                {
                    return r.unwrap_or(Value::Unknown);
                }
                _ => {}
            }
            if let (Some(left), Some(lv), Some(rv)) = (n.field(Field::Left), &l, &r) {
                if let Some(v) = self.or_empty_bool(left, lv, rv) {
                    return v;
                }
            }
        }
        // `row.get("mc_id") or row.get("key")` of a value that varies with a loop
        // varies with it too.
        if let (true, Some(Value::Opaque(h))) = (is_or, &l) {
            if h.binding.contains("@each") {
                let other = r.as_ref().map(fingerprint).unwrap_or_default();
                return Value::Opaque(HoleInfo {
                    keylike: h.keylike,
                    binding: format!("{} or {other}", h.binding),
                    label: text(n, src).to_string(),
                    span: Some(n.byte_range()),
                });
            }
        }
        let tagged = [&l, &r]
            .into_iter()
            .flatten()
            .any(crate::orempty::may_carry_tag);
        match (l, r) {
            (Some(Value::Client(a)), Some(Value::Client(b))) => Value::Client(a.merge(b)),
            (Some(Value::Opaque(_)) | Some(Value::Null), Some(Value::Client(b))) => {
                Value::Client(b.merge(ClientKind::Unknown))
            }
            _ => {
                let mut v = self.opaque(n, ctx);
                if let Value::Opaque(h) = &mut v {
                    h.keylike |= tagged;
                }
                v
            }
        }
    }

    /// A call, memoised when it gives a pipeline (per binding of the parameters, for a
    /// helper followed for one caller: the same call may give another caller's pipeline).
    fn eval_call_memo(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        // With bound parameters (a helper followed for one caller), the same
        // call may give another caller's pipeline.
        let tag = ctx.env.as_ref().map(|e| e.tag.clone());
        let hit = match &tag {
            None => self.memo_chain.get(&n.id()),
            Some(t) => self.memo_chain_env.get(&(n.id(), t.clone())),
        };
        if let Some(v) = hit {
            return v.clone();
        }
        let v = self.eval_call(n, ctx);
        if matches!(v, Value::Pipe(_)) {
            match tag {
                None => {
                    self.memo_chain.insert(n.id(), v.clone());
                }
                Some(t) => {
                    self.memo_chain_env.insert((n.id(), t), v.clone());
                }
            }
        }
        v
    }

    /// The value of the entry `d["name"]` reads of a dict literal `items` (its keys),
    /// evaluated where the literal was written, with the parameters bound there
    /// (`env`, a followed builder's): `{"id": author.get("key"), …}` returned by a
    /// converter gives `author.get("key")` of the caller's argument. Only for a
    /// literal whose keys are all written out, with one key equal to the index, that
    /// is returned where it is written, or held by a name of a function that only
    /// reads its entries and returns it ([`changes_entries`]).
    fn dict_entry(
        &mut self,
        n: Node<'t>,
        value: Option<Node<'t>>,
        items: &[Elem<'t>],
        env: Option<Rc<Env<'t>>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let src = self.src();
        let inner = index_text(n, value, src)?;
        let want = &inner[1..inner.len() - 1];
        if items.iter().any(|e| e.star) {
            return None;
        }
        let mut found = None;
        for e in items {
            let Value::Str(t) = &e.value else {
                return None;
            };
            let lit = t.as_bytes()?;
            if lit == want.as_bytes() {
                if found.is_some() {
                    return None;
                }
                found = Some(e.node);
            }
        }
        let pair = self.ix.nav.parent(found?)?;
        if pair.kind_name() != "pair" {
            return None;
        }
        let entry = pair.field(Field::Value)?;
        let dict = self.ix.nav.parent(pair)?;
        let holder = self.ix.nav.parent(dict)?;
        match holder.kind_name() {
            "return_statement" => {}
            "assignment" => {
                let left = holder.field(Field::Left)?;
                if left.kind_name() != "identifier" || holder.field(Field::Right) != Some(dict) {
                    return None;
                }
                // A module's dicts are read where nothing writes them
                // (`frozen_dict_entry`).
                let scope = self.ix().funcs[self.ix().enclosing_func(dict)?].node;
                if changes_entries(&src[scope.byte_range()], text(left, src)) {
                    return None;
                }
            }
            _ => return None,
        }
        let func = match &env {
            Some(e) => Some(e.func),
            None => self.ix().enclosing_func(dict),
        };
        let at = Ctx {
            func,
            env,
            depth: ctx.depth + 1,
        };
        Some(self.eval(entry, &at))
    }

    /// A list or tuple: its elements, a `*splat` of a list spread, of a family kept as
    /// the family.
    fn eval_seq(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let mut items = Vec::new();
        for k in self.ix.nav.named_children(n) {
            if k.kind_name() == "comment" {
                continue;
            }
            if k.kind_name() == "list_splat" {
                self.push_splat(k, ctx, &mut items);
                continue;
            }
            let v = self.eval(k, &ctx.deeper());
            items.push(Elem {
                value: v,
                node: k,
                star: false,
                each: Vec::new(),
            });
        }
        Value::Seq {
            items,
            family: false,
        }
    }

    /// The elements `*x` (the `list_splat` node `k`) adds to a list or an argument
    /// list: a list's elements, a comprehension's family (then an unknown count), or
    /// one starred unknown.
    /// `len(x), *x` as two arguments of a call (a script's numkeys and its keys, as
    /// `r.evalsha(sha, len(keys), *keys, *args)` writes them): the count and the
    /// elements the splat adds, when `x` is a list of known elements. `None` for any
    /// other pair (a family's count is read where the keys are, [`counts_splat`]).
    fn counted_splat(
        &mut self,
        count: Node<'t>,
        splat: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Value<'t>, Vec<Elem<'t>>)> {
        let counted = len_of(count, self.src())?;
        if splat.kind_name() != "list_splat" {
            return None;
        }
        let mut inner = splat.named_child(0)?;
        while inner.kind_name() == "parenthesized_expression" {
            inner = inner.named_child(0)?;
        }
        // `len(keys), *(keys + args)`: the keys, then the arguments.
        let counted_node = if text(inner, self.src()) == counted {
            inner
        } else {
            match (
                inner.kind_name(),
                inner.field(Field::Left),
                inner.field(Field::Operator),
            ) {
                ("binary_operator", Some(l), Some(op))
                    if text(op, self.src()) == "+" && text(l, self.src()) == counted =>
                {
                    l
                }
                _ => return None,
            }
        };
        let Ok(keys) = self.eval(counted_node, &ctx.deeper()).splat() else {
            return None;
        };
        if keys.is_empty() || !keys.iter().all(|e| !e.star && e.each.is_empty()) {
            return None;
        }
        let mut items = Vec::new();
        self.push_splat(splat, ctx, &mut items);
        if items.len() < keys.len() || items[..keys.len()].iter().any(|e| e.star) {
            return None;
        }
        Some((Value::Int(keys.len() as i64), items))
    }

    fn push_splat(&mut self, k: Node<'t>, ctx: &Ctx<'t>, out: &mut Vec<Elem<'t>>) {
        let inner = k.named_child(0).unwrap_or(k);
        match self.eval(inner, &ctx.deeper()).splat() {
            Ok(items) => out.extend(items),
            Err(other) => out.push(Elem {
                value: other,
                node: inner,
                star: true,
                each: Vec::new(),
            }),
        }
    }

    /// A dict literal: its keys (a `**splat` is an unknown key).
    fn eval_dict(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let mut keys = Vec::new();
        for k in self.ix.nav.named_children(n) {
            match k.kind_name() {
                "pair" => {
                    if let Some(key) = k.field(Field::Key) {
                        let v = self.eval(key, &ctx.deeper());
                        keys.push(Elem {
                            value: v,
                            node: key,
                            star: false,
                            each: Vec::new(),
                        });
                    }
                }
                "comment" => {}
                _ => keys.push(Elem {
                    value: Value::Unknown,
                    node: k,
                    star: true,
                    each: Vec::new(),
                }),
            }
        }
        Value::Dict(keys, ctx.env.clone())
    }

    /// A comprehension or generator: one element standing for the whole family.
    fn eval_comprehension(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        // `[str(i) for i in args]` over a followed builder's `*args`, or over a list
        // written in the clause: element by element.
        if matches!(n.kind_name(), "list_comprehension" | "generator_expression") {
            if let Some(v) = self.mapped_comprehension(n, ctx) {
                return v;
            }
        }
        if let Some(v) = self.flattened_comprehension(n, ctx) {
            return v;
        }
        // One element standing for the whole family of keys.
        match n.field(Field::Body) {
            Some(body) => {
                let v = self.eval(body, &ctx.deeper());
                Value::family(v, body, vec![n.start_byte()])
            }
            None => Value::Unknown,
        }
    }

    /// `[k for q in qs for k in [f"a:{q}", f"b:{q}"]]`: the last clause walks a list
    /// written out and the element is its variable, so each written element is a
    /// family over the passes of the clauses before it (a comprehension over the
    /// list alone, `[k for k in [a, b]]`, is those elements). Not with an `if` clause,
    /// which may leave elements out, nor when the list splats.
    fn flattened_comprehension(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let body = n.field(Field::Body)?;
        if body.kind_name() != "identifier" {
            return None;
        }
        let clauses: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(n)
            .filter(|c| c.kind_name() != "comment" && *c != body)
            .collect();
        if clauses.iter().any(|c| c.kind_name() != "for_in_clause") {
            return None;
        }
        let (last, outer) = clauses.split_last()?;
        let left = last.field(Field::Left)?;
        let right = last.field(Field::Right)?;
        if left.kind_name() != "identifier"
            || text(left, self.src()) != text(body, self.src())
            || !matches!(right.kind_name(), "list" | "tuple")
        {
            return None;
        }
        let elems: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(right)
            .filter(|c| c.kind_name() != "comment")
            .collect();
        if elems.is_empty() || elems.iter().any(|e| e.kind_name() == "list_splat") {
            return None;
        }
        let family = !outer.is_empty();
        let items = elems
            .into_iter()
            .map(|e| Elem {
                value: self.eval(e, &ctx.deeper()),
                node: e,
                star: family,
                each: if family {
                    vec![n.start_byte()]
                } else {
                    Vec::new()
                },
            })
            .collect();
        Some(Value::Seq {
            items,
            family: false,
        })
    }

    /// A dict comprehension: its key, standing for the family of keys.
    fn eval_dict_comprehension(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        match n.field(Field::Body).and_then(|b| b.field(Field::Key)) {
            Some(key) => {
                let v = self.eval(key, &ctx.deeper());
                Value::Dict(
                    vec![Elem {
                        value: v,
                        node: key,
                        star: true,
                        each: vec![n.start_byte()],
                    }],
                    None,
                )
            }
            None => Value::Unknown,
        }
    }

    /// A generator of pairs (`(key, score) for x in xs`) read as the mapping `dict()`
    /// makes of it: one entry per element, keyed by the pair's first element.
    fn dict_of_pairs(&mut self, g: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let mut body = g.field(Field::Body)?;
        while body.kind_name() == "parenthesized_expression" {
            body = body.named_child(0)?;
        }
        if body.kind_name() != "tuple" || body.named_child_count() != 2 {
            return None;
        }
        let key = body.named_child(0)?;
        let v = self.eval(key, &ctx.deeper());
        Some(Value::Dict(
            vec![Elem {
                value: v,
                node: key,
                star: true,
                each: vec![g.start_byte()],
            }],
            None,
        ))
    }

    fn eval_string(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let src = self.src();
        let Some(lit) = strings::decode(self.ix.nav, n, src) else {
            return self.opaque(n, ctx);
        };
        let mut out = Tpl::default();
        for piece in lit.pieces {
            match piece {
                Piece::Bytes(b, o) => out.push(Tpl::lit(b, o.into_iter().map(Some).collect())),
                Piece::Field {
                    expr,
                    conversion,
                    spec,
                } => {
                    let v = self.eval(expr, &ctx.deeper());
                    let v = self.each_foreign(v, expr, ctx);
                    let plain = conversion.as_deref().is_none_or(|c| c == "!s")
                        && spec.as_deref().is_none_or(str::is_empty);
                    let t = if plain {
                        self.to_tpl(&v, expr, ctx)
                    } else {
                        let mut h = self.hole_of(&v, expr, ctx);
                        h.binding = format!(
                            "{}{}:{}",
                            h.binding,
                            conversion.unwrap_or_default(),
                            spec.unwrap_or_default()
                        );
                        Tpl::hole(h)
                    };
                    out.push(t);
                }
            }
        }
        Value::Str(out)
    }

    /// A hole standing for `v`, written as `n`.
    pub(crate) fn hole_of(&self, v: &Value<'t>, n: Node<'t>, ctx: &Ctx<'t>) -> HoleInfo {
        match v {
            Value::Opaque(h) => h.clone(),
            _ => match self.opaque(n, ctx) {
                Value::Opaque(h) => h,
                _ => unreachable!(),
            },
        }
    }

    /// The template of a value used as (part of) a string.
    pub(crate) fn to_tpl(&self, v: &Value<'t>, n: Node<'t>, ctx: &Ctx<'t>) -> Tpl {
        match v {
            Value::Str(t) => t.clone(),
            Value::Int(i) => Tpl::text(i.to_string().as_bytes()),
            _ => Tpl::hole(self.hole_of(v, n, ctx)),
        }
    }

    fn eval_binary(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let (Some(l), Some(r), Some(op)) = (
            n.field(Field::Left),
            n.field(Field::Right),
            n.field(Field::Operator),
        ) else {
            return self.opaque(n, ctx);
        };
        let op = text(op, self.src());
        match op {
            "+" => {
                let a = self.eval(l, &ctx.deeper());
                let a = self.each_foreign(a, l, ctx);
                let b = self.eval(r, &ctx.deeper());
                let b = self.each_foreign(b, r, ctx);
                // `str + x` is a string only if x is one: whatever x is, it is a hole.
                let unknown = |v: &Value<'t>| {
                    !matches!(
                        v,
                        Value::Str(_)
                            | Value::Int(_)
                            | Value::Seq { .. }
                            | Value::Dict(..)
                            | Value::Path(_)
                    )
                };
                match (a, b) {
                    (Value::Str(mut x), Value::Str(y)) => {
                        x.push(y);
                        Value::Str(x)
                    }
                    (Value::Int(x), Value::Int(y)) => {
                        x.checked_add(y).map_or(Value::Unknown, Value::Int)
                    }
                    // `[prefix] + list(parts)`: the elements of both, in order.
                    (
                        Value::Seq {
                            items: mut x,
                            family: false,
                        },
                        Value::Seq {
                            items: y,
                            family: false,
                        },
                    ) => {
                        x.extend(y);
                        Value::Seq {
                            items: x,
                            family: false,
                        }
                    }
                    // `[pair_key(t) for t in tokens] + [last]`: as `[*pairs, last]`,
                    // the family then an unknown count, and the other's elements.
                    (x @ Value::Seq { .. }, y @ Value::Seq { .. }) => {
                        match (x.splat(), y.splat()) {
                            (Ok(mut a), Ok(b)) => {
                                a.extend(b);
                                Value::Seq {
                                    items: a,
                                    family: false,
                                }
                            }
                            _ => self.opaque(n, ctx),
                        }
                    }
                    // `keys + elements` with `elements` unknown: a list plus anything
                    // is a list (or a `TypeError`), so its elements, then an unknown
                    // count of unknown ones (`*(keys + args)` of an `EVAL`).
                    (
                        Value::Seq {
                            items: mut x,
                            family: false,
                        },
                        v,
                    ) if unknown(&v) => {
                        x.push(Elem {
                            value: Value::Unknown,
                            node: r,
                            star: true,
                            each: Vec::new(),
                        });
                        Value::Seq {
                            items: x,
                            family: false,
                        }
                    }
                    // One side is a string: the other must be one too.
                    (Value::Str(mut x), v) if unknown(&v) => {
                        x.push(Tpl::hole(self.hole_of(&v, r, ctx)));
                        Value::Str(x)
                    }
                    (v, Value::Str(y)) if unknown(&v) => {
                        let mut x = Tpl::hole(self.hole_of(&v, l, ctx));
                        x.push(y);
                        Value::Str(x)
                    }
                    // Neither side known, but the code declares one (or the sum) a
                    // string: `self.prefix + name` with `name: str`.
                    (x, y)
                        if unknown(&x)
                            && unknown(&y)
                            && !matches!(x, Value::Unknown)
                            && !matches!(y, Value::Unknown)
                            && (self.declared_str(l, ctx)
                                || self.declared_str(r, ctx)
                                || self.declared_str(n, ctx)) =>
                    {
                        let mut t = Tpl::hole(self.hole_of(&x, l, ctx));
                        t.push(Tpl::hole(self.hole_of(&y, r, ctx)));
                        Value::Str(t)
                    }
                    (x, y) => self
                        .shifted_each(n, (l, &x), (r, &y), ctx)
                        .unwrap_or_else(|| self.opaque(n, ctx)),
                }
            }
            "-" => {
                let a = self.eval(l, &ctx.deeper());
                let b = self.eval(r, &ctx.deeper());
                self.shifted_each(n, (l, &a), (r, &b), ctx)
                    .unwrap_or_else(|| self.opaque(n, ctx))
            }
            "%" => {
                let a = self.eval(l, &ctx.deeper());
                match a {
                    Value::Str(fmt)
                        if fmt.as_bytes().is_some() && r.kind_name() == "dictionary" =>
                    {
                        self.percent_dict(&fmt, r, ctx)
                            .map_or_else(|| self.opaque(n, ctx), Value::Str)
                    }
                    // A value the code does not show passes through as it is: one
                    // holding a conversion of its own would make Python raise, as
                    // every argument must fill a field of the literal parts
                    // (`percent_format`), so the key is as written or not made.
                    Value::Str(fmt) => {
                        let b = self.eval(r, &ctx.deeper());
                        self.percent_format(&fmt, b, r, ctx)
                            .map_or_else(|| self.opaque(n, ctx), Value::Str)
                    }
                    _ => self.opaque(n, ctx),
                }
            }
            "/" => {
                let a = self.eval(l, &ctx.deeper());
                let b = self.eval(r, &ctx.deeper());
                match (a, b) {
                    (Value::Path(mut p), Value::Str(t)) => {
                        match t.as_bytes().and_then(|b| String::from_utf8(b).ok()) {
                            Some(s) => {
                                p.is_module_file = false;
                                p.parts.extend(
                                    s.split('/').filter(|s| !s.is_empty()).map(str::to_string),
                                );
                                Value::Path(p)
                            }
                            None => Value::Unknown,
                        }
                    }
                    _ => self.opaque(n, ctx),
                }
            }
            _ => self.opaque(n, ctx),
        }
    }

    /// `now - i` or `i + 1` in a loop or comprehension over `i`
    /// (`["online/%d" % (now - i) for i in range(n)]`): the sum or difference of the
    /// loop's variable and a value that stays the same from pass to pass differs from
    /// pass to pass as the variable does, so it carries the variable's marker. `None`
    /// when neither or both operands vary, or when the other operand reads a loop's
    /// variable.
    fn shifted_each(
        &mut self,
        n: Node<'t>,
        (l, a): (Node<'t>, &Value<'t>),
        (r, b): (Node<'t>, &Value<'t>),
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let each = |v: &Value<'t>| matches!(v, Value::Opaque(h) if h.binding.contains("@each"));
        let fixed = |v: &Value<'t>| match v {
            Value::Int(_) => true,
            Value::Opaque(h) => !h.binding.contains("@each"),
            _ => false,
        };
        let (var, other) = match (each(a), each(b)) {
            (true, false) if fixed(b) => (a, r),
            (false, true) if fixed(a) => (b, l),
            _ => return None,
        };
        if self.reads_loop_var(other, ctx) {
            return None;
        }
        let Value::Opaque(h) = var else { return None };
        let Value::Opaque(mut o) = self.opaque(n, ctx) else {
            return None;
        };
        o.binding = format!("{}({})", o.binding, h.binding);
        o.keylike = false;
        Some(Value::Opaque(o))
    }

    /// `"fmt" % args`, for `%s`, `%d`, `%i`, `%%` and named `%(x)s`.
    pub(crate) fn percent_format(
        &self,
        fmt: &Tpl,
        args: Value<'t>,
        args_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Tpl> {
        let positional: Vec<Elem<'t>> = match &args {
            Value::Seq {
                items,
                family: false,
            } if args_node.kind_name() == "tuple"
                || args_node.kind_name() == "parenthesized_expression"
                || self.names_a_tuple(args_node, ctx) =>
            {
                items.clone()
            }
            Value::Seq { .. } => return None,
            // Named fields (`%(x)s`) need a mapping: not followed.
            Value::Dict(..) => return None,
            other => vec![Elem {
                value: other.clone(),
                node: args_node,
                star: false,
                each: Vec::new(),
            }],
        };
        if positional.iter().any(|e| e.star) {
            return None;
        }
        let mut out = Tpl::default();
        let mut next = 0usize;
        // The literal parts, and the parts of a constant that is one of several
        // strings (`modarms.rs`: no `%` in it), which stay as they are.
        for part in &fmt.parts {
            let TPart::Lit { bytes, offs } = part else {
                out.push(Tpl {
                    parts: vec![part.clone()],
                });
                continue;
            };
            let mut i = 0usize;
            while i < bytes.len() {
                if bytes[i] != b'%' {
                    out.push_byte(bytes[i], offs[i]);
                    i += 1;
                    continue;
                }
                let &c = bytes.get(i + 1)?;
                if c == b'%' {
                    out.push_byte(b'%', offs[i]);
                    i += 2;
                    continue;
                }
                if c == b'(' {
                    // Named fields need a dict literal; not followed.
                    return None;
                }
                let j = percent_spec_end(bytes, i + 1);
                let arg = positional.get(next)?;
                next += 1;
                out.push(self.percent_field(&arg.value, arg.node, bytes.get(i + 1..=j)?, ctx)?);
                i = j + 1;
            }
        }
        (next == positional.len()).then_some(out)
    }

    /// `ut_id = (user_id, tag_id)` then `"Rec(%s-%s" % ut_id`: a local whose one
    /// reaching definition is a tuple literal fills the fields one by one, as the
    /// tuple written in place would. A list, or any other value, is one argument.
    fn names_a_tuple(&self, n: Node<'t>, ctx: &Ctx<'t>) -> bool {
        if n.kind_name() != "identifier" {
            return false;
        }
        let Some(f) = ctx.func else { return false };
        let Some(defs) = self.ix.funcs[f].defs.get(text(n, self.src())) else {
            return false;
        };
        match self.ix.reaching_def(defs, n, n.start_byte()) {
            Ok((
                Def {
                    kind: DefKind::Expr(v),
                    ..
                },
                _,
            )) => matches!(v.kind_name(), "tuple" | "expression_list"),
            _ => false,
        }
    }

    /// One `%` conversion of `v` (written at `node`), `spec` being what follows the
    /// `%` (or the `%(name)`) up to and including the conversion letter: `%s` gives
    /// the value's text and `%d`/`%i`/`%u` an integer's digits; another conversion,
    /// or one with flags, width or precision, gives a hole named after it. `None` for
    /// a string under `%d`/`%i`/`%u` (Python raises) or a letter not handled.
    pub(crate) fn percent_field(
        &self,
        v: &Value<'t>,
        node: Node<'t>,
        spec: &[u8],
        ctx: &Ctx<'t>,
    ) -> Option<Tpl> {
        let (&conv, plain) = (spec.last()?, spec.len() == 1);
        Some(match (conv, v, plain) {
            (b's', v, true) => self.to_tpl(v, node, ctx),
            (b'd' | b'i' | b'u', Value::Int(n), true) => Tpl::text(n.to_string().as_bytes()),
            (b'd' | b'i' | b'u', Value::Str(_), _) => return None,
            (
                b's' | b'd' | b'i' | b'u' | b'r' | b'a' | b'x' | b'X' | b'o' | b'f' | b'g' | b'e',
                v,
                _,
            ) => {
                let mut h = self.hole_of(v, node, ctx);
                h.binding = format!("{}%{}", h.binding, String::from_utf8_lossy(spec));
                Tpl::hole(h)
            }
            _ => return None,
        })
    }

    /// `"fmt".format(…)`.
    pub(crate) fn str_format(&mut self, fmt: &Tpl, args: Node<'t>, ctx: &Ctx<'t>) -> Option<Tpl> {
        self.str_format_but(fmt, args, None, ctx)
    }

    /// [`Self::str_format`] with the arguments `args` holds but `but` (the template
    /// itself, passed to a function that formats it: `fmtcall.rs`).
    pub(crate) fn str_format_but(
        &mut self,
        fmt: &Tpl,
        args: Node<'t>,
        but: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Tpl> {
        let mut positional: Vec<(Value<'t>, Node<'t>)> = Vec::new();
        let mut named: HashMap<String, (Value<'t>, Node<'t>)> = HashMap::new();
        for k in self.ix.nav.named_children(args) {
            if Some(k) == but {
                continue;
            }
            match k.kind_name() {
                "keyword_argument" => {
                    let name = text(k.field(Field::Name)?, self.src()).to_string();
                    let vn = k.field(Field::Value)?;
                    let v = self.eval(vn, &ctx.deeper());
                    named.insert(name, (v, vn));
                }
                // `*args` of a tuple known item by item (a builder's `*args`, bound
                // at its call to the arguments given).
                "list_splat" => {
                    let inner = self.ix.nav.named_children(k).next()?;
                    match self.eval(inner, &ctx.deeper()) {
                        Value::Seq {
                            items,
                            family: false,
                        } if items.iter().all(|e| !e.star && e.each.is_empty()) => {
                            positional.extend(items.into_iter().map(|e| (e.value, e.node)));
                        }
                        _ => return None,
                    }
                }
                "dictionary_splat" => {
                    // `**kwargs` known to be empty, or bound to a followed call's
                    // keyword arguments.
                    let inner = self.ix.nav.named_children(k).next()?;
                    match self.eval(inner, &ctx.deeper()) {
                        Value::Dict(items, _) if items.is_empty() => {}
                        Value::Kwargs(items) => {
                            for (name, e) in items {
                                named.insert(name, (e.value, e.node));
                            }
                        }
                        _ => return None,
                    }
                }
                "comment" => {}
                _ => {
                    let v = self.eval(k, &ctx.deeper());
                    positional.push((v, k));
                }
            }
        }
        // The fields are in the literal parts; a value the code does not show passes
        // through as it is (a value with braces in it would make `format` fail). With
        // such a value, every argument must fill a field of the literal parts: else
        // the value itself may hold the field (`FMT.format(x)` of a configured FMT).
        let holes = fmt.parts.iter().any(|p| matches!(p, TPart::Hole(_)));
        let mut used_pos = vec![false; positional.len()];
        let mut used_named: HashSet<String> = HashSet::new();
        let mut out = Tpl::default();
        let mut auto = 0usize;
        for part in &fmt.parts {
            let (bytes, offs) = match part {
                TPart::Lit { bytes, offs } => (bytes, offs),
                TPart::Hole(h) => {
                    out.push(Tpl::hole(h.clone()));
                    continue;
                }
            };
            let mut i = 0usize;
            while i < bytes.len() {
                let b = bytes[i];
                if (b == b'{' || b == b'}') && bytes.get(i + 1) == Some(&b) {
                    out.push_byte(b, offs[i]);
                    i += 2;
                    continue;
                }
                if b == b'}' {
                    return None;
                }
                if b != b'{' {
                    out.push_byte(b, offs[i]);
                    i += 1;
                    continue;
                }
                let close = bytes[i..].iter().position(|&x| x == b'}')? + i;
                let field = std::str::from_utf8(&bytes[i + 1..close]).ok()?;
                if field.contains('{') {
                    return None;
                }
                let (name, rest) = match field.find(['!', ':']) {
                    Some(p) => (&field[..p], &field[p..]),
                    None => (field, ""),
                };
                let (base, accessor) = match name.find(['.', '[']) {
                    Some(p) => (&name[..p], &name[p..]),
                    None => (name, ""),
                };
                let arg = if base.is_empty() {
                    let a = positional.get(auto).cloned();
                    if let Some(u) = used_pos.get_mut(auto) {
                        *u = true;
                    }
                    auto += 1;
                    a
                } else if let Ok(idx) = base.parse::<usize>() {
                    if let Some(u) = used_pos.get_mut(idx) {
                        *u = true;
                    }
                    positional.get(idx).cloned()
                } else {
                    used_named.insert(base.to_string());
                    named.get(base).cloned()
                };
                let (v, vn) = arg?;
                let t = if accessor.is_empty() && (rest.is_empty() || rest == "!s") {
                    self.to_tpl(&v, vn, ctx)
                } else {
                    let mut h = self.hole_of(&v, vn, ctx);
                    h.binding = format!("{}{accessor}{rest}", h.binding);
                    if !accessor.is_empty() {
                        h.label = format!("{}{accessor}", h.label);
                    }
                    Tpl::hole(h)
                };
                out.push(t);
                i = close + 1;
            }
        }
        if holes && (used_pos.contains(&false) || named.keys().any(|k| !used_named.contains(k))) {
            return None;
        }
        Some(out)
    }

    /// Resolves a name.
    fn eval_name(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        // A name resolves the same way wherever it is evaluated from, unless a key
        // builder's parameters are bound.
        let key = (n.id(), ctx.func);
        if ctx.env.is_none() {
            if let Some(v) = self.memo_name.get(&key) {
                return v.clone();
            }
        }
        let v = self.eval_name_inner(n, ctx);
        if ctx.env.is_none() {
            self.memo_name.insert(key, v.clone());
        }
        v
    }

    /// A parameter returned as it is where a test of its prefix holds (`if
    /// key.startswith(f"{self.namespace}:"): return key`, a builder that prefixes a
    /// key unless it already is): the caller's value begins with that prefix, so it is
    /// the prefix followed by a rest the code does not show, a member of the prefix's
    /// family like the key the other arm builds. Only `return name` written directly in
    /// the body of an `if name.startswith(p):` (one argument, a string the analysis
    /// knows, not empty), for a value the caller does not show.
    fn prefix_narrowed(
        &mut self,
        n: Node<'t>,
        name: &str,
        v: &Value<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let Value::Opaque(h) = v else {
            return None;
        };
        let nav = self.ix.nav;
        let ret = nav
            .parent(n)
            .filter(|r| r.kind_name() == "return_statement")?;
        let block = nav.parent(ret).filter(|b| b.kind_name() == "block")?;
        let test = nav
            .parent(block)
            .filter(|i| i.kind_name() == "if_statement")?;
        if test.field(Field::Consequence) != Some(block) {
            return None;
        }
        let cond = test.field(Field::Condition)?;
        if cond.kind_name() != "call" {
            return None;
        }
        let f = cond.field(Field::Function)?;
        let src = self.src();
        if f.kind_name() != "attribute"
            || text(f.field(Field::Attribute)?, src) != "startswith"
            || f.field(Field::Object)
                .is_none_or(|o| o.kind_name() != "identifier" || text(o, src) != name)
        {
            return None;
        }
        let args = arg_nodes(nav, cond.field(Field::Arguments));
        let [arg] = args.as_slice() else {
            return None;
        };
        if matches!(
            arg.kind_name(),
            "keyword_argument" | "list_splat" | "dictionary_splat" | "tuple"
        ) {
            return None;
        }
        let Value::Str(mut prefix) = self.eval(*arg, &ctx.deeper()) else {
            return None;
        };
        if prefix.as_bytes().is_some_and(|b| b.is_empty()) {
            return None;
        }
        prefix.push(Tpl::hole(HoleInfo {
            // The rest of the value after its prefix.
            label: format!("{}[…]", h.label),
            binding: format!("{}[after prefix]", h.binding),
            span: h.span.clone(),
            keylike: h.keylike,
        }));
        Some(Value::Str(prefix))
    }

    /// A name defined at module level (`name` at `n`): its configured value, its one
    /// definition, or what all its definitions agree on.
    fn eval_module_name(&mut self, name: &'t str, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        if let Some(v) = self.configured_global(name) {
            return v;
        }
        let v = self.eval_module_name_inner(name, n, ctx);
        let v = crate::configured::relabel(v, name);
        self.rebound_global(name, v, n)
    }

    /// A module name that a function of this file rebinds after declaring it `global`
    /// (`def set_prefix(p): global PREFIX; PREFIX = p`): its module-level string,
    /// number or collection is only the value before that function runs, so it is
    /// unknown here (a value with an identity, the same at every use). Clients and
    /// other objects keep their reading ([`Self::configured_global`]).
    fn rebound_global(&self, name: &str, v: Value<'t>, n: Node<'t>) -> Value<'t> {
        // `_ns: str = None` until `init(namespace)` sets it: only a setter's value can
        // reach a use that works (`None + key` raises), so it is read as one.
        let unset = matches!(v, Value::Null);
        if !unset
            && !matches!(
                v,
                Value::Str(_) | Value::Int(_) | Value::Seq { .. } | Value::Dict(..)
            )
        {
            return v;
        }
        if !self.ix.rebound_in_function(name) {
            return v;
        }
        if unset && !(is_keylike_label(name) && self.set_from_params(name)) {
            return v;
        }
        let binding = format!("global-rebound:{name}");
        // `def set_prefix(ch): global PREFIX; PREFIX = ch`: a prefix the caller of
        // the setter chooses, one value for the run, which every key built on it
        // begins with: a head (`heads.rs`), as a configured prefix is.
        let binding = if is_keylike_label(name) && self.set_from_params(name) {
            crate::heads::mark_config(binding)
        } else {
            binding
        };
        Value::Opaque(HoleInfo {
            label: name.to_string(),
            binding,
            span: Some(n.byte_range()),
            keylike: true,
        })
    }

    /// Whether every function that rebinds module name `name` under `global` assigns
    /// it one of its own parameters, as it is (`PREFIX = ch`) or followed by literal
    /// text with no brace (`NS = namespace + ":"`): a setter.
    fn set_from_params(&self, name: &str) -> bool {
        let src = self.src();
        let nav = self.ix.nav;
        // `param + ":"`: the parameter, then text that cannot open or close a tag.
        let param_of = |e: Node<'t>| -> Option<Node<'t>> {
            if e.kind_name() == "identifier" {
                return Some(e);
            }
            let (l, r) = (e.field(Field::Left)?, e.field(Field::Right)?);
            let op = src.get(l.end_byte()..r.start_byte())?.trim();
            let lit = crate::heads::plain_string(nav, r, src)?;
            (e.kind_name() == "binary_operator"
                && op == "+"
                && l.kind_name() == "identifier"
                && !lit.contains(['{', '}']))
            .then_some(l)
        };
        self.ix
            .funcs
            .iter()
            .filter(|f| f.nonlocal.iter().any(|x| x == name))
            .filter_map(|f| f.defs.get(name).map(|d| (f, d)))
            .all(|(f, defs)| {
                defs.iter().all(|d| match d.kind {
                    DefKind::Expr(e) => {
                        let Some(e) = param_of(e) else {
                            return false;
                        };
                        f.params.iter().any(|p| !p.star && p.name == text(e, src))
                            && f.defs.get(text(e, src)).is_some_and(|ds| {
                                ds.iter().all(|d| matches!(d.kind, DefKind::Param(_)))
                            })
                    }
                    _ => false,
                })
            })
    }

    /// [`Self::eval_module_name`] before a function rebinds the name.
    fn eval_module_name_inner(&mut self, name: &'t str, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let defs: Vec<Def<'t>> = self.ix.module_defs[name].clone();
        let module_ctx = Ctx {
            func: None,
            env: None,
            depth: ctx.depth + 1,
        };
        if let [only] = defs.as_slice() {
            return self.eval_def(name, *only, 1, n, &module_ctx);
        }
        // Module code runs once, top to bottom: a use in it (outside any function)
        // reads the definition that reaches it. `loader = ConfigLoader()`, then `r =
        // loader.get_db_conn("db")`, then `loader = None` to drop it.
        if self.ix.enclosing_func(n).is_none() {
            if let Ok((def, version)) = self.ix.reaching_def(&defs, n, n.start_byte()) {
                return self.eval_def(name, def, version, n, &module_ctx);
            }
        }
        // `try: import redis / except ImportError: redis = None` and
        // `if TYPE_CHECKING: X = A[int] / else: X = A` name one thing.
        let mut vals = Vec::new();
        for (i, d) in defs.iter().enumerate() {
            vals.push(self.eval_def(name, *d, i + 1, n, &module_ctx));
        }
        let non_null: Vec<&Value<'t>> = vals.iter().filter(|v| !matches!(v, Value::Null)).collect();
        if let Some(Value::Symbol(p)) = non_null.first() {
            if non_null
                .iter()
                .all(|v| matches!(v, Value::Symbol(q) if q == p))
            {
                return Value::Symbol(p.clone());
            }
            // `try: from . import consts` / `except ImportError: import consts` (also
            // under `if __package__:`): two ways of importing one module of the
            // project, whichever runs.
            if let Some(scope) = self.project {
                let file = scope.module_source(p);
                if file.is_some()
                    && non_null
                        .iter()
                        .all(|v| matches!(v, Value::Symbol(q) if scope.module_source(q) == file))
                {
                    return Value::Symbol(p.clone());
                }
            }
        }
        if let Some(k) = merge_clients(&vals) {
            return Value::Client(k);
        }
        // `if settings.TEST: BASE = "app.test.%s"` / `else: BASE = "app.%s"`.
        if let Some(v) = self.module_one_of(name, &defs, &vals, n, ctx) {
            return v;
        }
        self.opaque_named(name, format!("mod:{name}"), Some(n.byte_range()))
    }

    fn eval_name_inner(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let name: &'t str = text(n, self.src());
        if !self.resolve_names {
            return self.opaque_named(name, format!("global:{name}"), Some(n.byte_range()));
        }
        // A variable of a comprehension around the use: one value per element, even
        // when a parameter has its name (`[key(d) for d in ds]` in `f(d=None, ds=())`).
        let comprehension = self.comprehension_binding(n, name);
        // Parameters of a key builder being followed through a call (and the
        // variables its reading binds element by element, `[str(i) for i in
        // args]`), unless the body binds a parameter again before the use (`name =
        // prefix + name`) or a comprehension has its name: then the definition that
        // reaches the use decides, below.
        if let Some(env) = &ctx.env {
            if Some(env.func) == ctx.func {
                let param = self.ix.funcs[env.func]
                    .params
                    .iter()
                    .any(|p| p.name == name);
                let rebinding = if param {
                    self.ix.rebinding_before(env.func, name, n.start_byte())
                } else {
                    None
                };
                let shadowed =
                    param && (comprehension.is_some() || rebinding.is_some_and(|(_, conv)| !conv));
                if !shadowed {
                    if let Some(v) = env.params.get(name).cloned() {
                        // `x = to_binary(x)`: what the call gives when it is known
                        // (`x = tag(x)` of a builder), else the same text.
                        if let Some((stmt, true)) = rebinding {
                            if let Some(value) = stmt.field(Field::Right) {
                                if let t @ Value::Str(_) = self.eval(value, &ctx.deeper()) {
                                    return t;
                                }
                            }
                        }
                        if rebinding.is_none() {
                            if let Some(t) = self.prefix_narrowed(n, name, &v, ctx) {
                                return t;
                            }
                        }
                        return v;
                    }
                }
            }
        }
        if let Some((comp, clause)) = comprehension {
            // `[k for k in r.scan_iter(match=…)]`: a member of the keys iterated.
            if let Some(v) = self.scanned_loop_var(name, clause, comp, ctx) {
                return v;
            }
            // `{k: r.pfcount(*keys) for k, keys in groups.items()}`: a bucket.
            if let Some(v) = self.bucket_loop_var(name, clause, ctx) {
                return v;
            }
            // `[f"{item}_date" for item in ITEMS]` over a list the code shows: one
            // of the listed values per element, as in a `for` loop over it. Not with
            // an `if` clause, which may leave all but one out.
            let filtered = self.ix.nav.parent(clause).is_some_and(|c| {
                self.ix
                    .nav
                    .named_children(c)
                    .any(|x| x.kind_name() == "if_clause")
            });
            if !filtered {
                if let Some(v) = self.listed_loop_var(name, clause, comp, ctx) {
                    return v;
                }
            }
            return self.opaque_named(
                name,
                format!("{}:{name}{}", self.scope_tag(ctx), each_marker(comp)),
                Some(n.byte_range()),
            );
        }
        if name == "__file__" {
            return Value::Path(PathValue {
                from_module_dir: true,
                parts: Vec::new(),
                is_module_file: true,
            });
        }
        let mut func = ctx.func;
        let mut at = n.start_byte();
        let mut use_node = n;
        while let Some(f) = func {
            let info = &self.ix.funcs[f];
            if info.nonlocal.iter().any(|x| x == name) {
                break;
            }
            if let Some(defs) = info.defs.get(name) {
                let reaching = self.ix.reaching_def(defs, use_node, at);
                let scope_ctx = Ctx {
                    func: Some(f),
                    env: ctx.env.clone().filter(|e| e.func == f),
                    depth: ctx.depth + 1,
                };
                // `keys = []` then `keys += more` (in loops): a list with extends.
                if let Some((def, list)) = self.list_before_extends(name, defs, at) {
                    if let Some(v) = self.list_with_appends(name, def, list, use_node, &scope_ctx) {
                        return v;
                    }
                    // Some of them under a condition: the members it surely holds.
                    if let Some(v) = self.list_at_least(name, def, list, use_node, &scope_ctx) {
                        return v;
                    }
                }
                return match reaching {
                    Ok((def, version)) => self.eval_def(name, def, version, n, &scope_ctx),
                    Err(version) => {
                        let defs = self.ix.funcs[f].defs[name].clone();
                        // `if pipeline is not None: pipe = pipeline` / `else: pipe =
                        // r.pipeline()`: read as the conditional expression is.
                        if let Some(v) = self.if_choice(&defs, use_node, at, &scope_ctx) {
                            return v;
                        }
                        // `if c: keys = [...]` / `else: keys = [...]`: either family.
                        if let Some((_, a, b)) = self.if_arms(&defs, use_node, at) {
                            let va = self.eval(a, &scope_ctx.deeper());
                            let vb = self.eval(b, &scope_ctx.deeper());
                            if let Some(v) = crate::builders::join_families(name, va, vb, a) {
                                return v;
                            }
                        }
                        // `if c: key = "a:%s" % x` / `else: key = "b:%s" % x` (also with
                        // `elif` arms): one of several keys.
                        if let Some(v) = self.arms_one_of(name, &defs, use_node, at, &scope_ctx) {
                            return v;
                        }
                        // `key = …` then `if prefix: key = prefix + key`.
                        if let Some(v) = self.if_no_else(name, &defs, use_node, at, &scope_ctx) {
                            return v;
                        }
                        // `if not pipe: pipe = r.pipeline()` of a `pipe=None` parameter.
                        if let Some(v) = self.none_param_filled(name, &defs, at, &scope_ctx) {
                            return v;
                        }
                        if let Some(v) = self.none_param_arm(name, &defs, at, &scope_ctx) {
                            return v;
                        }
                        // A buffer of keys of one family, emptied when flushed.
                        if let Some(v) = self.buffer_family(name, &defs, f, &scope_ctx) {
                            return v;
                        }
                        // Several definitions may reach: one of them may still say
                        // what kind of object this is.
                        if let Some(v) = self.common_client(name, &defs, &scope_ctx) {
                            return v;
                        }
                        self.opaque_named(
                            name,
                            format!("{}:{name}#{version}", self.scope_tag(&scope_ctx)),
                            Some(n.byte_range()),
                        )
                    }
                };
            }
            // A closure: look in the enclosing function at the point of definition.
            let node = info.node;
            func = info.parent;
            at = node.start_byte();
            use_node = node;
        }
        // Module level, after what writes through `globals()` do to it.
        if self.ix.module_defs.contains_key(name) {
            let v = self.eval_module_name(name, n, ctx);
            return self.rewritten_global(name, v, n);
        }
        match name {
            "str" | "int" | "open" | "bytes" | "len" | "list" | "tuple" | "dict" | "repr"
            | "format" | "sorted" | "set" | "map" | "iter" | "zip" | "enumerate" | "type" => {
                Value::Symbol(format!("builtins.{name}"))
            }
            _ => self.opaque_named(name, format!("global:{name}"), Some(n.byte_range())),
        }
    }

    /// Where a name's definition reaches its use: the scope to search (the function's
    /// body or the module), the offsets between the definition's statement and the use,
    /// and the block that holds the definition; `None` when the use comes first.
    pub(crate) fn def_to_use(
        &self,
        def: Def<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Node<'t>, (usize, usize), Node<'t>)> {
        let scope = match ctx.func {
            Some(f) => self.ix.funcs[f].body,
            None => self.ix.nav.root(),
        };
        let (from, to) = (def.stmt.end_byte(), use_node.start_byte());
        if to <= from {
            return None;
        }
        Some((scope, (from, to), self.ix.enclosing_block(def.stmt)?))
    }

    /// The appends and extends of list `name` between its definition `def` and
    /// `use_node` ([`Self::appends_to`]) with the block of the definition; `None` when
    /// there is none, or the name is used in another way there.
    #[allow(clippy::type_complexity)]
    fn appends_before_use(
        &self,
        name: &str,
        def: Def<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Vec<(Node<'t>, Node<'t>, bool)>, Node<'t>)> {
        let (scope, range, block) = self.def_to_use(def, use_node, ctx)?;
        let appends = self.appends_to(name, scope, range)?;
        (!appends.is_empty()).then_some((appends, block))
    }

    /// `keys = [...]` followed by `keys.append(x)` calls before the use: the list
    /// with the appended elements, those appended in a loop standing for one element
    /// per pass. `None` (the list literal alone is used) when the name is used in any
    /// other way before the use, or an append is under a condition outside a loop. An
    /// append under a condition (an `if`, a `try`) inside a loop is followed when it
    /// adds members of a family varying with the loop: the list then holds some of
    /// those members, still a family (`for key, val in zip(keys, vals): if val:
    /// stale.append(key)`).
    fn list_with_appends(
        &mut self,
        name: &str,
        def: Def<'t>,
        list: Node<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let (mut appends, block) = self.appends_before_use(name, def, use_node, ctx)?;
        appends.sort_by_key(|(c, _, _)| c.start_byte());
        // `keys = set()`: an empty set, filled as a list is (its members, once each:
        // what matters is which keys, not how often).
        let start = if empty_set(nav, self.src(), list) && !self.ix.module_defs.contains_key("set")
        {
            Value::Seq {
                items: Vec::new(),
                family: false,
            }
        } else {
            self.eval(list, &ctx.deeper())
        };
        let Value::Seq {
            mut items,
            family: false,
        } = start
        else {
            return None;
        };
        // Appends in different arms of an `if` outside every loop never add to the
        // same list: each arm gives a list of its own, which is not followed.
        let outer: Vec<Vec<(usize, usize)>> = appends
            .iter()
            .map(|(c, _, _)| outer_arms(nav, *c, block))
            .collect();
        let exclusive = |x: &[(usize, usize)], y: &[(usize, usize)]| {
            x.iter()
                .any(|(i, a)| y.iter().any(|(j, b)| i == j && a != b))
        };
        if (0..outer.len()).any(|i| (0..i).any(|j| exclusive(&outer[i], &outer[j]))) {
            return None;
        }
        for (call, arg, extend) in appends {
            // Loops between the list's block and the append; anything conditional
            // (or a loop that also runs the use) and the list is not followed, unless
            // the condition is inside a loop and the append adds members of a
            // family that vary with the loops (a filter keeps some of them).
            let (each, filtered) = match crate::collections::loops_to_block(
                nav,
                call,
                block,
                use_node,
                APPEND_THROUGH,
            ) {
                Some(each) => (each, false),
                None => (
                    crate::collections::filtered_loops_to_block(
                        nav,
                        call,
                        block,
                        use_node,
                        APPEND_THROUGH,
                    )?,
                    true,
                ),
            };
            let value = self.eval(arg, &ctx.deeper());
            if filtered && !crate::collections::adds_varying_members(&value, &each, extend) {
                return None;
            }
            if !extend {
                items.push(Elem {
                    value,
                    node: arg,
                    star: false,
                    each,
                });
                continue;
            }
            // `extend` with a list adds its elements, with a comprehension its family;
            // anything else adds values nobody knows, and the list is not followed.
            match value {
                Value::Seq {
                    items: more,
                    family,
                } => {
                    if !family && more.iter().any(|e| e.star) {
                        return None;
                    }
                    for mut e in more {
                        e.each.extend(each.iter().copied());
                        items.push(e);
                    }
                }
                _ => return None,
            }
        }
        Some(Value::Seq {
            items,
            family: false,
        })
    }

    /// `keys = [...]` appended to before the use in a way that
    /// [`Self::list_with_appends`] does not follow (under a condition): the
    /// members it surely holds, the literal's and those that appends and extends
    /// (`keys += [...]`) add whenever the use runs, then a starred unknown that stands for what
    /// else it may hold. Its keys are some of the keys, never all of them: a unit
    /// judged over them says nothing false, and a count of them (`len(keys)`, the keys
    /// of a script) stays unknown. `None` when nothing appends to the list before the
    /// use (the literal is the list), when it is used in other ways there, or when it
    /// surely holds nothing.
    fn list_at_least(
        &mut self,
        name: &str,
        def: Def<'t>,
        list: Node<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let (changes, block) = self.appends_before_use(name, def, use_node, ctx)?;
        let Value::Seq {
            mut items,
            family: false,
        } = self.eval(list, &ctx.deeper())
        else {
            return None;
        };
        for (call, arg, extend) in changes {
            // Only appends and extends in the list's own block (or a `with`).
            let direct =
                crate::collections::loops_to_block(nav, call, block, use_node, APPEND_THROUGH)
                    .is_some_and(|each| each.is_empty());
            if !direct {
                continue;
            }
            match self.eval(arg, &ctx.deeper()) {
                Value::Seq { items: more, .. } if extend => {
                    items.extend(more.into_iter().filter(|e| !e.star || !e.each.is_empty()));
                }
                _ if extend => {}
                value => items.push(Elem {
                    value,
                    node: arg,
                    star: false,
                    each: Vec::new(),
                }),
            }
        }
        if items.is_empty() {
            return None;
        }
        items.push(Elem {
            value: Value::Unknown,
            node: list,
            star: true,
            each: Vec::new(),
        });
        Some(Value::Seq {
            items,
            family: false,
        })
    }

    /// The one `name = [...]` that the definitions of `name` before `at` begin with
    /// when every one after it is a `name += …` statement (at least one): the list
    /// and its definition. The extends themselves are read by
    /// [`Self::list_with_appends`].
    fn list_before_extends(
        &self,
        name: &str,
        defs: &[Def<'t>],
        at: usize,
    ) -> Option<(Def<'t>, Node<'t>)> {
        let src = self.src();
        let is_extend = |d: &Def<'t>| {
            d.stmt.kind_name() == "augmented_assignment"
                && d.stmt
                    .field(Field::Operator)
                    .is_some_and(|o| text(o, src) == "+=")
                && d.stmt
                    .field(Field::Left)
                    .is_some_and(|l| l.kind_name() == "identifier" && text(l, src) == name)
        };
        let mut before = defs.iter().filter(|d| d.pos < at);
        let first = before.next()?;
        let mut extends = 0usize;
        for d in before {
            if !is_extend(d) {
                return None;
            }
            extends += 1;
        }
        let DefKind::Expr(list) = first.kind else {
            return None;
        };
        (extends > 0 && list.kind_name() == "list" && first.stmt.kind_name() == "assignment")
            .then_some((*first, list))
    }

    /// The `name.append(x)` / `name.extend(xs)` calls between the offsets `from` and
    /// `to` of `scope`: (call, argument, extend); `None` when the name is used in any
    /// other way there.
    #[allow(clippy::type_complexity)]
    fn appends_to(
        &self,
        name: &str,
        scope: Node<'t>,
        (from, to): (usize, usize),
    ) -> Option<Vec<(Node<'t>, Node<'t>, bool)>> {
        let nav = self.ix.nav;
        let src = self.src();
        let mut appends: Vec<(Node<'t>, Node<'t>, bool)> = Vec::new();
        let mut stack = vec![scope];
        while let Some(x) = stack.pop() {
            if x.end_byte() <= from || x.start_byte() >= to {
                continue;
            }
            if x.kind_name() == "identifier" && text(x, src) == name {
                // `obj.keys` and `f(keys=…)` name something else.
                if !crate::collections::names_variable(nav, x) {
                    continue;
                }
                // `len(keys)`, `if not keys:`, `if keys:` read the list, leave it whole.
                if reads_size(nav, src, x) || reads_item(nav, x) || reads_whole(nav, src, x) {
                    continue;
                }
                // `keys += more`, a statement of its own: `keys.extend(more)`.
                if let Some(aug) = nav.parent(x).filter(|a| {
                    a.kind_name() == "augmented_assignment"
                        && a.field(Field::Left) == Some(x)
                        && a.field(Field::Operator)
                            .is_some_and(|o| text(o, src) == "+=")
                        && nav
                            .parent(*a)
                            .is_some_and(|s| s.kind_name() == "expression_statement")
                }) {
                    appends.push((aug, aug.field(Field::Right)?, true));
                    continue;
                }
                // A set's `add`/`update` as a list's `append`/`extend`.
                let attr = nav.parent(x).filter(|a| {
                    a.kind_name() == "attribute"
                        && a.field(Field::Object) == Some(x)
                        && a.field(Field::Attribute).is_some_and(|m| {
                            matches!(text(m, src), "append" | "extend" | "add" | "update")
                        })
                })?;
                let extend = attr
                    .field(Field::Attribute)
                    .is_some_and(|m| matches!(text(m, src), "extend" | "update"));
                let call = nav.parent(attr).filter(|c| {
                    c.kind_name() == "call" && c.field(Field::Function) == Some(attr)
                })?;
                let args = call.field(Field::Arguments)?;
                // `keys.extend(k for k in …)`: the generator is the argument list.
                if extend && args.kind_name() == "generator_expression" {
                    appends.push((call, args, true));
                    continue;
                }
                if args.kind_name() != "argument_list" {
                    return None;
                }
                let arg = match arg_nodes(nav, Some(args)).as_slice() {
                    [a] if nav.named_children(args).count() == 1 => *a,
                    _ => return None,
                };
                appends.push((call, arg, extend));
                continue;
            }
            stack.extend(nav.children(x));
        }
        Some(appends)
    }

    /// A parameter that every call site of its function fills with a redis-py client
    /// (`Queue("x", connection=Redis())`, `helper(self.redis)`), the default included
    /// when a site leaves it out: the sites of this file, and for a class or static
    /// method or a constructor, those of the files that mention the class
    /// (`callerflow.rs`). The kind is the sites' common kind
    /// for a private function or class (`_name`); a public one may also be called from
    /// elsewhere, so only "a client" is known and the kind is left to the profile.
    fn client_from_callers(&mut self, f: FuncId, param: Node<'t>) -> Option<Value<'t>> {
        let info = self.ix.funcs[f].clone();
        if info.is_lambda || !info.plainly_called() {
            return None;
        }
        let idx = info.params.iter().position(|p| p.node.id() == param.id())?;
        let p = &info.params[idx];
        if p.star {
            return None;
        }
        // `__init__` is called through its class; methods through an instance.
        let (lookup, public) = match (info.class, info.name.as_str()) {
            (Some(c), "__init__") => {
                let cname = self.ix.classes[c].name.clone();
                let public = !cname.starts_with('_');
                (cname, public)
            }
            _ => (info.name.clone(), !info.name.starts_with('_')),
        };
        let skip_self = info.self_name().is_some();
        let guard = (2u8, f, idx);
        if !self.in_progress.insert(guard) {
            return None;
        }
        let mut sites = self
            .calls_by_name
            .get(lookup.as_str())
            .cloned()
            .unwrap_or_default();
        if info.name == "__init__" {
            // `cls(…)` in a class method of the class makes one too.
            let own =
                |func: Option<FuncId>| func.is_some_and(|g| self.ix.funcs[g].class == info.class);
            sites.extend(
                self.calls_by_name
                    .get("cls")
                    .into_iter()
                    .flatten()
                    .filter(|(_, func)| own(*func))
                    .copied(),
            );
            // Made by `type(self)(…)` or `self.__class__(…)`: not every construction
            // is seen.
            if let Some(c) = info.class {
                let body = text(self.ix.classes[c].node, self.src());
                if body.contains("type(self)(") || body.contains("__class__(") {
                    self.in_progress.remove(&guard);
                    return None;
                }
            }
        }
        let one_site = match sites.as_slice() {
            [(c, _)] => Some(*c),
            _ => None,
        };
        let mut pipe: Option<PipeId> = None;
        let mut kind: Option<ClientKind> = None;
        // A script object every site passes (`_skip_forward(r, ADVANCE_SCRIPT)`).
        let mut script: Option<ScriptId> = None;
        let in_file = sites.len();
        let mut ok = true;
        for (call, func) in sites {
            if !ok {
                break;
            }
            let ctx = Ctx::at(func);
            let Some(callee) = call.field(Field::Function) else {
                ok = false;
                break;
            };
            // The site must call this very function; one that calls another of the
            // same name (a function nested elsewhere) is not one of its sites.
            let target = match self.eval(callee, &ctx) {
                Value::Func { id, .. } if id != f && info.parent.is_some() => continue,
                Value::Func { id, .. } => id == f,
                Value::Class(c) | Value::ClsObj(c) => {
                    info.class == Some(c) && info.name == "__init__"
                }
                _ => false,
            };
            if !target {
                ok = false;
                break;
            }
            let (pos, kw) = self.call_args(call.field(Field::Arguments), &ctx);
            if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
                ok = false;
                break;
            }
            let at = idx - usize::from(skip_self);
            let given = pos
                .get(at)
                .or_else(|| kw.iter().find(|(k, _)| k == &p.name).map(|(_, e)| e));
            let v = given.map(|e| self.as_receiver(e.value.clone(), e.node));
            let v = match v {
                Some(v) => v,
                None => match p.default {
                    Some(d) => self.eval(d, &Ctx::at(info.parent)),
                    None => Value::Unknown,
                },
            };
            match v {
                Value::Client(k) => kind = Some(kind.map_or(k, |x| x.merge(k))),
                // `connection=None`, then `connection or make_client()`.
                Value::Null => {}
                // A helper that queues on its one caller's pipeline.
                Value::Pipe(id) if one_site.is_some() => pipe = Some(id),
                Value::Script(s) if script.is_none_or(|x| x == s) => script = Some(s),
                _ => ok = false,
            }
        }
        // A private function's script parameter: the sites of this file are all the
        // calls there are, and each passes the one script.
        if let Some(s) = script {
            self.in_progress.remove(&guard);
            let private = !public || info.parent.is_some();
            return (ok && private && kind.is_none() && pipe.is_none() && in_file > 0)
                .then_some(Value::Script(s));
        }
        // The calls of other modules, for a parameter the function uses as a client
        // (`callerflow.rs`).
        let mut elsewhere = 0;
        // A parameter annotated as a client needs no caller to say it.
        let annotated = p
            .annotation
            .is_some_and(|a| matches!(self.annotated_value(a), Some(Value::Client(_))));
        if ok && pipe.is_none() && !self.summarising && !annotated {
            let target = self
                .project
                .is_some()
                .then(|| self.call_target(&info, idx - usize::from(skip_self), &p.name))
                .flatten()
                .filter(|_| self.receives_commands(f, &p.name));
            if let Some(target) = target {
                match self.project.and_then(|s| s.passed_clients(&target)) {
                    Some(passed) => {
                        elsewhere = passed.sites;
                        if let Some(k) = passed.kind {
                            kind = Some(kind.map_or(k, |x| x.merge(k)));
                        }
                        if passed.defaulted {
                            match p.default.map(|d| self.eval(d, &Ctx::at(info.parent))) {
                                Some(Value::Client(k)) => {
                                    kind = Some(kind.map_or(k, |x| x.merge(k)));
                                }
                                Some(Value::Null) => {}
                                _ => ok = false,
                            }
                        }
                    }
                    None => ok = false,
                }
            }
        }
        ok &= in_file + elsewhere > 0;
        self.in_progress.remove(&guard);
        if pipe.is_some() && kind.is_some() {
            return None;
        }
        if let (Some(id), Some(site), true, None) = (pipe, one_site, ok, kind) {
            self.helper_site.insert((f, id), site);
            return Some(Value::Pipe(id));
        }
        let kind = kind.filter(|_| ok)?;
        // A public class that the reverse index shows is constructed in this file
        // only: its sites are all there is.
        let public = public
            && !(info.name == "__init__"
                && self.project.is_some_and(|s| {
                    s.constructed_only_here(&lookup, self.src(), self.ix.nav.root())
                }));
        Some(Value::Client(if public {
            ClientKind::Unknown
        } else {
            kind
        }))
    }

    /// The start of the comprehension around `n` (in the same function) whose `for`
    /// clauses bind `name`, and the clause that binds it, if any.
    fn comprehension_binding(&self, n: Node<'t>, name: &str) -> Option<(usize, Node<'t>)> {
        let nav = self.ix.nav;
        let mut child = n;
        let mut cur = nav.parent(n);
        while let Some(p) = cur {
            match p.kind_name() {
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => {
                    let clauses: Vec<Node<'t>> = nav
                        .named_children(p)
                        .filter(|c| c.kind_name() == "for_in_clause")
                        .collect();
                    // The first iterable is evaluated outside the comprehension.
                    let in_first_iterable = clauses
                        .first()
                        .and_then(|c| c.field(Field::Right))
                        .is_some_and(|r| {
                            r.start_byte() <= child.start_byte() && child.end_byte() <= r.end_byte()
                        });
                    let binding = clauses.iter().find(|c| {
                        c.field(Field::Left)
                            .is_some_and(|l| binds_name(nav, l, name, self.src()))
                    });
                    if let (false, Some(c)) = (in_first_iterable, binding) {
                        return Some((p.start_byte(), *c));
                    }
                }
                "function_definition" | "lambda" | "class_definition" | "module" => return None,
                _ => {}
            }
            child = p;
            cur = nav.parent(p);
        }
        None
    }

    /// When every definition of a name makes a client (or the same pipeline).
    fn common_client(&mut self, name: &str, defs: &[Def<'t>], ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let mut values = Vec::new();
        // `pipe = pipe.lrem(…)` keeps whatever `pipe` was: a pipeline's commands return
        // the pipeline. Such definitions say nothing new.
        let src = self.src();
        let keeps = |d: &Def<'t>| -> bool {
            let DefKind::Expr(e) = d.kind else {
                return false;
            };
            let mut cur = e;
            let mut first = true;
            loop {
                match cur.kind_name() {
                    "call" => match cur.field(Field::Function) {
                        Some(f) => cur = f,
                        None => return false,
                    },
                    "attribute" => {
                        let m = cur.field(Field::Attribute).map(|a| text(a, src));
                        if first && matches!(m, Some("execute" | "reset" | "discard")) {
                            return false;
                        }
                        first = false;
                        match cur.field(Field::Object) {
                            Some(o) => cur = o,
                            None => return false,
                        }
                    }
                    "identifier" => return !first && text(cur, src) == name,
                    _ => return false,
                }
            }
        };
        let defs: Vec<Def<'t>> = defs.iter().filter(|d| !keeps(d)).copied().collect();
        let defs = &defs[..];
        for d in defs {
            let v = match d.kind {
                DefKind::Expr(e) | DefKind::WithAs(e) => self.eval(e, &ctx.deeper()),
                DefKind::Param(_) => Value::Unknown,
                // `pipe, extra = self._step(pipe=pipe)`: the element at the name's place.
                DefKind::Other => self.unpacked_value(*d, ctx).unwrap_or(Value::Unknown),
            };
            let v = match (v, d.annotation) {
                (Value::Opaque(_) | Value::Unknown | Value::Null, Some(a)) => {
                    self.annotated_value(a).unwrap_or(Value::Unknown)
                }
                (v, _) => v,
            };
            values.push(v);
        }
        if let Some(v) = self.renewed_pipe(name, defs, &values) {
            return Some(v);
        }
        // `pipe = pipe.lrem(…)` in both arms of an `if`: the same pipeline throughout.
        if let Some(Value::Pipe(id)) = values.first() {
            let id = *id;
            if values
                .iter()
                .all(|v| matches!(v, Value::Pipe(x) if *x == id))
            {
                return Some(Value::Pipe(id));
            }
        }
        merge_clients(&values)
            .or_else(|| {
                // Every value of a parameter annotated as a client is one.
                let f = ctx.func?;
                let k = self.declared_client(f, name)?;
                values
                    .iter()
                    .all(|v| {
                        matches!(
                            v,
                            Value::Client(_)
                                | Value::Opaque(_)
                                | Value::Unknown
                                | Value::Foreign
                                | Value::Null
                        )
                    })
                    .then_some(k)
            })
            .map(Value::Client)
    }

    /// `pipe = r.pipeline()`, then in a loop `pipe.execute()` (or `await
    /// pipe.execute()`) followed at once by `pipe = r.pipeline()` again (a batch renewed every N keys): redis-py resets a
    /// pipeline when it executes, so the renewed one is the first one emptied, and
    /// the name holds one pipeline whose batches the `execute()` calls cut. The
    /// first definition's pipeline, when every other one is such a renewal (the same
    /// call text, right after an `execute()` of the name in the same block).
    fn renewed_pipe(
        &self,
        name: &str,
        defs: &[Def<'t>],
        values: &[Value<'t>],
    ) -> Option<Value<'t>> {
        if defs.len() < 2 || defs.len() != values.len() {
            return None;
        }
        let first = (0..defs.len()).min_by_key(|&i| defs[i].pos)?;
        let Value::Pipe(id) = values[first] else {
            return None;
        };
        if !values.iter().all(|v| matches!(v, Value::Pipe(_))) {
            return None;
        }
        let src = self.src();
        let squash = |n: Node<'t>| -> String {
            text(n, src)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        let DefKind::Expr(e0) = defs[first].kind else {
            return None;
        };
        let made = squash(e0);
        let nav = self.ix().nav;
        for (i, d) in defs.iter().enumerate() {
            if i == first {
                continue;
            }
            let DefKind::Expr(e) = d.kind else {
                return None;
            };
            if squash(e) != made || d.stmt.kind_name() != "assignment" {
                return None;
            }
            // The last statement before the renewal, in its block, that reads the
            // name executes it.
            let stmt = nav.parent(d.stmt)?;
            let block = nav.parent(stmt)?;
            let mentions = |n: Node<'t>| -> bool {
                let mut stack = vec![n];
                let mut seen = 0;
                while let Some(x) = stack.pop() {
                    seen += 1;
                    if seen > 10_000 {
                        return true;
                    }
                    if x.kind_name() == "identifier" && text(x, src) == name {
                        return true;
                    }
                    stack.extend(nav.named_children(x));
                }
                false
            };
            let prev = nav
                .named_children(block)
                .take_while(|k| *k != stmt)
                .filter(|k| mentions(*k))
                .last()?;
            let mut call = prev.named_child(0)?;
            if call.kind_name() == "assignment" {
                call = call.field(Field::Right)?;
            }
            // `await pipe.execute()` of an asyncio pipeline.
            if call.kind_name() == "await" {
                call = call.named_child(0)?;
            }
            let executes = call.kind_name() == "call"
                && call
                    .field(Field::Function)
                    .filter(|f| f.kind_name() == "attribute")
                    .is_some_and(|f| {
                        f.field(Field::Attribute)
                            .is_some_and(|a| text(a, src) == "execute")
                            && f.field(Field::Object).is_some_and(|o| {
                                o.kind_name() == "identifier" && text(o, src) == name
                            })
                    });
            if !executes {
                return None;
            }
        }
        Some(Value::Pipe(id))
    }

    pub(crate) fn eval_def(
        &mut self,
        name: &str,
        def: Def<'t>,
        version: usize,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        // A definition that (indirectly) refers to itself is not followed again.
        let guard = (0u8, def.stmt.id(), def.pos);
        if !self.in_progress.insert(guard) {
            return self.opaque_named(
                name,
                format!("{}:{name}#{version}", self.scope_tag(ctx)),
                Some(use_node.byte_range()),
            );
        }
        let v = self.eval_def_inner(name, def, version, use_node, ctx);
        self.in_progress.remove(&guard);
        v
    }

    fn eval_def_inner(
        &mut self,
        name: &str,
        def: Def<'t>,
        version: usize,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let fallback = |me: &Self, ctx: &Ctx<'t>| {
            me.opaque_named(
                name,
                format!("{}:{name}#{version}", me.scope_tag(ctx)),
                Some(use_node.byte_range()),
            )
        };
        match def.kind {
            DefKind::Param(p) => match self.param_value(name, p, def.annotation, ctx) {
                Some(v) => v,
                None => {
                    let v = fallback(self, ctx);
                    // A value the function's caller passes in (not `*args`/`**kw`),
                    // unless its default carries a hash tag (`prefix="{app}"`): a
                    // caller that leaves it out gets keys that hash only that tag.
                    if let Value::Opaque(h) = &v {
                        if !p.kind_name().contains("splat") && !self.tagged_default(p, ctx) {
                            self.caller_values.insert(h.binding.clone());
                        }
                    }
                    v
                }
            },
            DefKind::Expr(e) => {
                // `_status_key = lambda service: f"service:{service.name}"`: a function
                // under this name, called as one.
                if e.kind_name() == "lambda" {
                    if let Some(&id) = self.ix().func_by_node.get(&e.id()) {
                        return Value::Func { id, bound: None };
                    }
                }
                if let Some(v) = self.filled_collection(name, def, e, use_node, ctx) {
                    return v;
                }
                // `PREFIX = cfg.get("redis_prefix")`: the setting's head, by this name.
                if let Some(h) = self
                    .config_head(e, ctx)
                    .and_then(|v| crate::heads::bound_head(&v, name, use_node.byte_range()))
                {
                    return h;
                }
                let v = self.eval(e, &ctx.deeper());
                if let Value::Foreign = v {
                    // `connection = instrument(connection)` of a parameter declared
                    // as a client: still of the declared type.
                    if let Some(k) = ctx.func.and_then(|f| self.declared_client(f, name)) {
                        return Value::Client(k);
                    }
                }
                // A configured head keeps its identity under the name (see `heads`).
                if let Some(h) = crate::heads::bound_head(&v, name, use_node.byte_range()) {
                    return h;
                }
                // `lua_script: AsyncScript = context.lua_scripts["process"]`: a script
                // object of no known body, as the annotation declares, whatever else
                // the value is not known to be.
                if matches!(v, Value::Foreign | Value::Opaque(_) | Value::Unknown) {
                    if let Some(s) = def.annotation.and_then(|a| self.annotated_script(a)) {
                        return s;
                    }
                }
                // A library's value (`digest = hashlib.md5(repr(p).encode()).hexdigest()`)
                // computed from a builder's parameter or a loop's variable: one per
                // argument, or per pass (see `narrow_tag`, `derived_reads`).
                if matches!(v, Value::Foreign) {
                    let binding = match &ctx.env {
                        Some(en) => self
                            .narrow_tag(e, en)
                            .map(|tag| format!("{DERIVED}{tag}:{name}#{version}")),
                        None => self.derived_reads(e, def.stmt, ctx).map(|reads| {
                            format!("{DERIVED}{}:{name}#{version}({reads})", self.scope_tag(ctx))
                        }),
                    };
                    if let Some(b) = binding {
                        return self.opaque_named(name, b, Some(use_node.byte_range()));
                    }
                }
                match v {
                    // A fresh random value keeps its identity (see `fresh`), and so
                    // does a brace-free one (see `classname`).
                    Value::Opaque(ref h)
                        if keylint_core::template::is_fresh_binding(&h.binding)
                            || keylint_core::template::is_brace_free_binding(&h.binding) =>
                    {
                        v
                    }
                    // `doc_id = data["doc_id"]` (or `= data.doc_id`, `= name`) of a
                    // value the caller passes in: that same value under this name.
                    Value::Opaque(ref h)
                        if ctx.env.is_none()
                            && (self.caller_values.contains(&h.binding)
                                || self.caller_attrs.contains(&h.binding)
                                || self.caller_items.contains(&h.binding)) =>
                    {
                        Value::Opaque(HoleInfo {
                            label: name.to_string(),
                            span: Some(use_node.byte_range()),
                            ..h.clone()
                        })
                    }
                    // `d = x` of a loop's variable: the same value per pass; so is
                    // `ip = m.strip()`, `job_id = job.id` or `ip = m.split(":")[0]`
                    // written in the body of that loop.
                    Value::Opaque(ref h)
                        if h.binding.contains("@each")
                            && (e.kind_name() == "identifier"
                                || matches!(e.kind_name(), "attribute" | "subscript" | "call")
                                    && self.encloses_each(def.stmt, &h.binding, false)) =>
                    {
                        Value::Opaque(HoleInfo {
                            label: name.to_string(),
                            span: Some(use_node.byte_range()),
                            ..h.clone()
                        })
                    }
                    // `key = self.key` of a constructor argument stored on `self`:
                    // the same head under this name (see `heads.rs`); `key_value =
                    // key` of a builder's parameter: the argument under this name.
                    Value::Opaque(ref h)
                        if self.ctor_heads.iter().any(|(b, _)| *b == h.binding)
                            || (ctx.env.is_some() && self.names_alias(e, ctx)) =>
                    {
                        Value::Opaque(HoleInfo {
                            label: name.to_string(),
                            span: Some(use_node.byte_range()),
                            ..h.clone()
                        })
                    }
                    Value::Opaque(_) | Value::Unknown => {
                        if let Some(a) = def.annotation {
                            if let Some(v) = self.annotated_value(a) {
                                return v;
                            }
                        }
                        // `connection = self._prepare(connection)` of a parameter
                        // annotated as a client: still of the declared type.
                        if let Some(k) = ctx.func.and_then(|f| self.declared_client(f, name)) {
                            return Value::Client(k);
                        }
                        // Inside a followed builder, a local is identified by the
                        // arguments its value reads (see `narrow_tag`).
                        if let Some(tag) = ctx.env.as_ref().and_then(|en| self.narrow_tag(e, en)) {
                            return self.opaque_named(
                                name,
                                format!("{tag}:{name}#{version}"),
                                Some(use_node.byte_range()),
                            );
                        }
                        // A value computed from a parameter while a builder is
                        // summarised (`entity_hash = _hash(entity_keys)`), or from a
                        // loop's variable in that loop's body (`key = r.hget(f"invite:
                        // {invite_id}", "key").decode()`): identified by what it reads,
                        // so that each argument, and each pass, gives its own value.
                        if ctx.env.is_none() {
                            if let Some(reads) = self.derived_reads(e, def.stmt, ctx) {
                                return self.opaque_named(
                                    name,
                                    format!(
                                        "{DERIVED}{}:{name}#{version}({reads})",
                                        self.scope_tag(ctx)
                                    ),
                                    Some(use_node.byte_range()),
                                );
                            }
                        }
                        // A redis-py client that comes from an unknown call keeps its
                        // identity as this variable.
                        fallback(self, ctx)
                    }
                    other => other,
                }
            }
            DefKind::WithAs(e) => match self.eval(e, &ctx.deeper()) {
                v @ (Value::Pipe(_) | Value::Client(_) | Value::FileText(_)) => v,
                // An object of a class of the project, known by its declared type
                // (`with await self.connection_manager() as redis`, `-> Redis` of a
                // vendored client library): what it is, not a client by its name.
                v @ Value::Ext(_) => v,
                _ => match self.entered_value(e, ctx) {
                    Some(v) => v,
                    // An object whose class hands out a client (`cmobject.rs`).
                    None => match self.entered_object(e, ctx).and_then(|en| en.one()) {
                        Some(k) => Value::Client(k),
                        None => fallback(self, ctx),
                    },
                },
            },
            DefKind::Other => {
                // `key, type_key = build_keys(pid)`: the element at the name's place.
                if let Some(v) = self.unpacked_value(def, ctx) {
                    return v;
                }
                self.eval_bound_name(name, def, version, use_node, ctx)
                    .unwrap_or_else(|| fallback(self, ctx))
            }
        }
    }

    /// A name bound by a statement other than an assignment: an import, a function or
    /// class definition, an annotation, a `for` loop. `None`: nothing is known of it.
    fn eval_bound_name(
        &mut self,
        name: &str,
        def: Def<'t>,
        version: usize,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        // Imports bind modules and symbols; functions and classes bind themselves.
        // The path of this statement's own binding: an import inside a function may
        // bind the name to another path than the module's import of it.
        if def.stmt.kind_name().starts_with("import") {
            let path = crate::index::import_bindings(def.stmt, self.src())
                .into_iter()
                .find(|(local, _)| local == name)
                .map(|(_, path)| path)
                // `from M import *`, for the names `starimport.rs` bound to it.
                .or_else(|| {
                    crate::index::star_module(def.stmt, self.src())
                        .map(|m| crate::index::import_path(&m, name))
                });
            if let Some(path) = path {
                // Project analysis: a constant or client of another module.
                return Some(self.project_value(path, use_node, ctx));
            }
        }
        match def.stmt.kind_name() {
            "function_definition" => {
                if let Some(&id) = self.ix().func_by_node.get(&def.stmt.id()) {
                    return Some(Value::Func { id, bound: None });
                }
            }
            "class_definition" => {
                if let Some(c) = self
                    .ix()
                    .classes
                    .iter()
                    .position(|c| c.node.id() == def.stmt.id())
                {
                    return Some(Value::Class(c));
                }
            }
            _ => {}
        }
        if let Some(a) = def.annotation {
            if let Some(v) = self.annotated_value(a) {
                return Some(v);
            }
        }
        if def.stmt.kind_name() == "for_statement" {
            // `for ex in executions:` over a comprehension of project objects.
            if let Some(v) = self.object_loop_var(name, def.stmt, ctx) {
                return Some(v);
            }
            // `for key in r.scan_iter(match=…)`: a member of the keys found.
            if let Some(v) = self.scanned_loop_var(name, def.stmt, def.stmt.start_byte(), ctx) {
                return Some(v);
            }
            // `for name, keys in groups.items():` over buckets of one family.
            if let Some(v) = self.bucket_loop_var(name, def.stmt, ctx) {
                return Some(v);
            }
            // `for key in [f"a:{uid}", f"b:{uid}"]:` (or a builder's list): one of
            // the listed keys per pass.
            if let Some(v) = self.listed_loop_var(name, def.stmt, def.stmt.start_byte(), ctx) {
                return Some(v);
            }
            // `for mid in message_ids:`: an id per pass, brace-free.
            let binding = format!(
                "{}:{name}#{version}{}",
                self.scope_tag(ctx),
                each_marker(def.stmt.start_byte())
            );
            if crate::idloop::loops_over_ids(def.stmt, name, self.src()) {
                return Some(self.opaque_named(
                    name,
                    keylint_core::template::brace_free_binding(&binding),
                    Some(use_node.byte_range()),
                ));
            }
            // A loop variable: one value per pass of the loop.
            return Some(self.opaque_named(
                name,
                format!(
                    "{}:{name}#{version}{}",
                    self.scope_tag(ctx),
                    each_marker(def.stmt.start_byte())
                ),
                Some(use_node.byte_range()),
            ));
        }
        None
    }

    /// The variable of `for name in xs:` (or of a comprehension's clause `stmt`) when
    /// `xs` is a list of two to 32 keys the code shows (a literal list, a builder's
    /// returned list, a list of names of another module; or a dict, walked by its
    /// keys), at least one a
    /// template: each pass takes one of them (`each`: the loop's or the
    /// comprehension's marker), so the variable is a key that varies
    /// with the loop, whose varying part is whichever of them the pass takes (see
    /// [`join_shapes`]). `None` when the keys end in a brace or in a value that may
    /// carry a tag of its own, or when they are literal keys of one slot.
    fn listed_loop_var(
        &mut self,
        name: &str,
        stmt: Node<'t>,
        each: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let target = stmt.field(Field::Left)?;
        // `for proc_queue, main_queue in [(A, B), (C, D)]:`: the position of `name`
        // among the targets, each pass unpacking one tuple of the list.
        let unpacked = match target.kind_name() {
            "identifier" if text(target, self.src()) == name => None,
            "pattern_list" | "tuple_pattern" => {
                let names: Vec<Node<'t>> = self.ix.nav.named_children(target).collect();
                if names.iter().any(|x| x.kind_name() != "identifier") {
                    return None;
                }
                let at = names.iter().position(|x| text(*x, self.src()) == name)?;
                Some((at, names.len()))
            }
            _ => return None,
        };
        // A dict the code shows is walked by its keys.
        let mut items = match self.eval(stmt.field(Field::Right)?, &ctx.deeper()) {
            Value::Seq {
                items,
                family: false,
            }
            | Value::Dict(items, _) => items,
            _ => return None,
        };
        if let Some((at, arity)) = unpacked {
            // The names of one pass are read as values of their own: sound only when
            // in every tuple the strings are literal and in slots of their own, so
            // that two of its names never hold one key (`("x", "x")`) or keys of one
            // slot (`("{q}:a", "{q}:b")`).
            let mut picked = Vec::with_capacity(items.len());
            for e in items {
                let Value::Seq {
                    items: mut inner,
                    family: false,
                } = e.value
                else {
                    return None;
                };
                if e.star
                    || !e.each.is_empty()
                    || inner.len() != arity
                    || inner.iter().any(|x| x.star || !x.each.is_empty())
                {
                    return None;
                }
                let mut slots = Vec::with_capacity(arity);
                for x in &inner {
                    match &x.value {
                        Value::Str(t) => slots.push(keyslot::key_slot(&t.as_bytes()?)),
                        Value::Int(_) | Value::Null => {}
                        _ => return None,
                    }
                }
                slots.sort_unstable();
                if slots.windows(2).any(|w| w[0] == w[1]) {
                    return None;
                }
                picked.push(inner.swap_remove(at));
            }
            items = picked;
        }
        self.listed_var_of(name, items, each)
    }

    /// The variable of a loop whose passes take the values `items` one by one
    /// ([`Self::listed_loop_var`]).
    pub(crate) fn listed_var_of(
        &mut self,
        name: &str,
        mut items: Vec<Elem<'t>>,
        each: usize,
    ) -> Option<Value<'t>> {
        const MAX_LISTED: usize = 32;
        // A list that surely holds these keys and maybe more (a builder's list grown
        // under conditions): each of them is a pass of the loop, which is all a
        // verdict of different slots rests on.
        if items
            .last()
            .is_some_and(|e| e.star && matches!(e.value, Value::Unknown))
        {
            items.pop();
        }
        if !(2..=MAX_LISTED).contains(&items.len()) {
            return None;
        }
        let mut shapes = Vec::with_capacity(items.len());
        for e in items {
            match e.value {
                Value::Str(t) if !e.star && e.each.is_empty() => shapes.push(t),
                _ => return None,
            }
        }
        // Literal keys all in one slot share it whatever the pass.
        let slots: Option<Vec<u16>> = shapes
            .iter()
            .map(|t| t.as_bytes().map(|b| keyslot::key_slot(&b)))
            .collect();
        if slots.is_some_and(|s| s.iter().all(|x| *x == s[0])) {
            return None;
        }
        let (mut joined, ends) = join_shapes(name, shapes, self.summarising)?;
        if ends.len() < 2 {
            return None;
        }
        let Some(TPart::Hole(h)) = joined.parts.last_mut() else {
            return None;
        };
        h.label = name.to_string();
        // The ends hold no brace and no value that may carry a tag of its own: the
        // part is hashed as it is, like the fragments it is made of.
        h.binding = keylint_core::template::brace_free_binding(&format!(
            "{}{}",
            h.binding,
            each_marker(each)
        ));
        h.keylike = false;
        Some(Value::Str(joined))
    }

    /// `name = []` or `name = {}` filled before the use (appends, a flushed buffer,
    /// `name[k] = v`): what it holds, or `None` when it is not one of those.
    fn filled_collection(
        &mut self,
        name: &str,
        def: Def<'t>,
        e: Node<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if matches!(e.kind_name(), "list" | "set") || empty_set(self.ix.nav, self.src(), e) {
            if let Some(v) = self.list_with_appends(name, def, e, use_node, ctx) {
                return Some(v);
            }
            if let Some(f) = ctx.func {
                let defs = self.ix.funcs[f].defs.get(name).cloned().unwrap_or_default();
                if let Some(v) = self.buffer_family(name, &defs, f, ctx) {
                    return Some(v);
                }
            }
            if e.kind_name() == "list" {
                return self.list_at_least(name, def, e, use_node, ctx);
            }
        }
        if e.kind_name() == "dictionary" {
            return self.dict_with_sets(name, def, e, use_node, ctx);
        }
        None
    }

    /// A parameter's default that carries a hash tag: a literal whose text has a
    /// brace, or a value (a constant, say) that evaluates to a string with one.
    fn tagged_default(&mut self, p: Node<'t>, ctx: &Ctx<'t>) -> bool {
        let Some(dp) = self.ix().nav.parent(p) else {
            return false;
        };
        if !matches!(
            dp.kind_name(),
            "default_parameter" | "typed_default_parameter"
        ) {
            return false;
        }
        let Some(d) = dp.field(Field::Value) else {
            return false;
        };
        if d.kind_name() == "string" {
            return text(d, self.src()).contains('{');
        }
        ctx.func
            .is_some_and(|f| self.default_braces(d, f) == Some(true))
    }

    /// Whether the default `d` of a parameter of function `f`, evaluated where `f`
    /// is defined, is a string the code shows whole with a `{` in it (`Some(true)`)
    /// or without one (`Some(false)`); `None` for any other value.
    pub(crate) fn default_braces(&mut self, d: Node<'t>, f: FuncId) -> Option<bool> {
        let parent = self.ix().funcs[f].parent;
        match self.eval(d, &Ctx::at(parent)) {
            Value::Str(t) => t.as_bytes().map(|b| b.contains(&b'{')),
            _ => None,
        }
    }

    /// What a parameter holds: the value a caller bound, `self`/`cls`, a client every
    /// call site passes, or what its annotation says; `None` when nothing says.
    fn param_value(
        &mut self,
        name: &str,
        p: Node<'t>,
        annotation: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let f = ctx.func;
        if let Some(f) = f {
            if let Some(v) = self.param_override.get(&(f, p.start_byte())) {
                return Some(v.clone());
            }
            // The caller's argument, when the parameter reaches the use past a
            // rebinding of the name on another path.
            if let Some(v) = ctx
                .env
                .as_ref()
                .filter(|e| e.func == f)
                .and_then(|e| e.params.get(name))
            {
                return Some(v.clone());
            }
            let info = &self.ix().funcs[f];
            if info.self_name() == Some(name)
                && info.params.first().is_some_and(|fp| fp.node.id() == p.id())
            {
                if let Some(c) = info.class {
                    return Some(if info.is_classmethod() {
                        Value::ClsObj(c)
                    } else {
                        Value::SelfObj(c)
                    });
                }
            }
        }
        if let (Some(f), None) = (f, &ctx.env) {
            if let Some(v) = self.client_from_callers(f, p) {
                return Some(v);
            }
        }
        if let Some(a) = annotation {
            if let Some(v) = self.annotated_value(a) {
                return Some(v);
            }
        }
        None
    }

    fn eval_attribute(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let (Some(obj), Some(attr)) = (n.field(Field::Object), n.field(Field::Attribute)) else {
            return self.opaque(n, ctx);
        };
        let attr_name: &'t str = text(attr, self.src());
        if let Some(v) = self.super_method(obj, attr_name, ctx) {
            return v;
        }
        if obj.kind_name() == "call" {
            if let Some(v) = self.super_property(obj, attr_name, n, ctx) {
                return v;
            }
        }
        // `Keys.QUEUE.value` of a member of an `Enum` class: the member's value, as
        // the class body writes it (`QUEUE = "q:queue"`; `auto()` stays unknown).
        if attr_name == "value" && obj.kind_name() == "attribute" {
            if let Some(owner) = obj.field(Field::Object) {
                if self.enum_class(owner, ctx) {
                    return self.eval(obj, &ctx.deeper());
                }
            }
        }
        // `[m.value for m in MarketIndex]`: one member's value per pass.
        if attr_name == "value" && obj.kind_name() == "identifier" {
            if let Some(v) = self.enum_loop_value(obj, ctx) {
                return v;
            }
        }
        if attr_name == "__call__" {
            if let Some(v) = self.super_script(obj, ctx) {
                return v;
            }
        }
        let base = self.eval(obj, &ctx.deeper());
        // `req.event.source = f"…"` in this function, then `req.event.source` read on
        // an object the code does not show: the value may be the one written here or
        // the one the object came with; neither is the object's field as it came.
        if matches!(base, Value::Opaque(_) | Value::Unknown | Value::Foreign)
            && ctx.func.is_some()
            && self.writes_attr_in(ctx.func, n)
        {
            return Value::Unknown;
        }
        // Key flow: `q.key` on another instance of a class of this file.
        if let Value::Opaque(_) | Value::Unknown | Value::Foreign = &base {
            if let Some(v) = self.other_instance_attr(obj, &base, attr_name, n, ctx) {
                return self.or_caller_field(v, &base, obj, n, ctx);
            }
        }
        // `worker.connection`, `self.tiger.connection` on an object whose class, of
        // another module, is declared.
        if let Value::Opaque(_) | Value::Unknown | Value::Foreign = &base {
            if let Some(x) = self.typed_ext(obj, &base, ctx) {
                let v = self.ext_attr(&x, attr_name, n, ctx);
                if !self.loop_item_lost(obj, &v, ctx) {
                    return self.or_caller_field(v, &base, obj, n, ctx);
                }
            }
        }
        // `queue.run_pull(keys=…)`: a script kept as an attribute of an object.
        if let Value::Client(_) | Value::Opaque(_) | Value::Unknown | Value::Foreign = &base {
            if let Some(v) = self.attr_script(obj, attr_name, n) {
                return v;
            }
        }
        match base {
            // Project analysis: a constant or client of another module.
            Value::Symbol(p) => {
                let path = crate::index::client_path(&format!("{p}.{attr_name}")).into_owned();
                self.project_value(path, n, ctx)
            }
            Value::Ext(x) => self.ext_attr(&x, attr_name, n, ctx),
            // `self.__class__`: the object's class, as `type(self)`.
            Value::SelfObj(c) if attr_name == "__class__" => Value::ClsObj(c),
            Value::SelfObj(c) => match self.swapped_pipe(c, attr_name, n, ctx) {
                Some(v) => v,
                None => self.instance_attr(c, attr_name, n, ctx, true),
            },
            Value::Class(c) => self.class_attr(c, attr_name, n, ctx),
            Value::ClsObj(c) => self.instance_attr(c, attr_name, n, ctx, false),
            Value::Path(p) if attr_name == "parent" => {
                let mut p = p;
                if p.is_module_file {
                    p.is_module_file = false;
                } else if p.parts.pop().is_none() {
                    p.parts.push("..".into());
                }
                Value::Path(p)
            }
            Value::Client(_) | Value::Pipe(_) => Value::Foreign,
            // `job.id` of a loop variable `job` varies with it.
            Value::Opaque(h) if h.binding.contains("@each") => {
                let label = text(n, self.src()).to_string();
                Value::Opaque(HoleInfo {
                    keylike: is_keylike_label(&label),
                    binding: format!("{}.{attr_name}", h.binding),
                    label,
                    span: Some(n.byte_range()),
                })
            }
            Value::Opaque(h) if self.caller_attr_base(&h, obj, ctx) => {
                match self.member_client(obj, attr_name, n, ctx) {
                    Some(v) => v,
                    None => {
                        // `model._namespace` of a parameter `model`: one value for
                        // every key of the function that begins with it.
                        let v = self.opaque(n, ctx);
                        if let Value::Opaque(a) = &v {
                            self.caller_attrs.insert(a.binding.clone());
                        }
                        v
                    }
                }
            }
            Value::Opaque(_) | Value::Unknown | Value::Foreign => self
                .module_attr_client(obj, attr_name, ctx)
                .or_else(|| self.member_client(obj, attr_name, n, ctx))
                .unwrap_or_else(|| self.opaque(n, ctx)),
            _ => self.opaque(n, ctx),
        }
    }

    /// The bindings that expression `e` (the value of a name bound by `stmt`) reads
    /// and that stand for what varies: a parameter's marker while a function is
    /// summarised for its callers, or a loop variable of a loop whose body holds
    /// `stmt`. Sorted and joined; `None` when it reads none, or too much to tell.
    fn derived_reads(&mut self, e: Node<'t>, stmt: Node<'t>, ctx: &Ctx<'t>) -> Option<String> {
        // Names are evaluated only where they may hold what is looked for.
        let f = ctx.func?;
        let summarised = self.param_override.keys().any(|&(g, _)| g == f);
        let in_loop = self.in_loop_body(stmt);
        if !summarised && !in_loop {
            return None;
        }
        let reads = self.bindings_read(e, ctx, |me, h| {
            let marker =
                summarised && h.binding.starts_with('\u{1}') && h.binding.ends_with('\u{1}');
            let each =
                in_loop && h.binding.contains("@each") && me.encloses_each(stmt, &h.binding, false);
            marker || each
        })?;
        Some(reads.join(","))
    }

    /// The bindings of the opaque values that the names `e` reads hold (a keyword's
    /// name is no value read), those `keep` takes, sorted and each once; `None` when
    /// there are none, or `e` is too large to tell.
    fn bindings_read(
        &mut self,
        e: Node<'t>,
        ctx: &Ctx<'t>,
        keep: impl Fn(&Self, &HoleInfo) -> bool,
    ) -> Option<Vec<String>> {
        let mut reads: Vec<String> = Vec::new();
        for x in self.names_read(e, 64)? {
            // `f(key=…)`: a keyword, not a value read.
            let keyword = self.ix.nav.parent(x).is_some_and(|p| {
                p.kind_name() == "keyword_argument" && p.field(Field::Name) == Some(x)
            });
            if keyword {
                continue;
            }
            if let Value::Opaque(h) = self.eval(x, &ctx.deeper()) {
                if keep(self, &h) {
                    reads.push(h.binding);
                }
            }
        }
        if reads.is_empty() {
            return None;
        }
        reads.sort();
        reads.dedup();
        Some(reads)
    }

    /// A library's value computed in place from the variable of a loop or
    /// comprehension around it (`[hash_text(t) + VERSION for t in batch]`, with
    /// `hash_text` returning a digest): one value per pass, as when it is first bound
    /// to a name (see `derived_reads`). `v` itself otherwise.
    fn each_foreign(&mut self, v: Value<'t>, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        if !matches!(v, Value::Foreign) || ctx.env.is_some() || n.kind_name() != "call" {
            return v;
        }
        let Some(reads) = self.bindings_read(n, ctx, |me, h| {
            h.binding.contains("@each") && me.encloses_each(n, &h.binding, true)
        }) else {
            return v;
        };
        let label = text(n, self.src());
        let binding = format!(
            "{DERIVED}{}:#{:x}({})",
            self.scope_tag(ctx),
            fxhash(label),
            reads.join(",")
        );
        self.opaque_named(label, binding, Some(n.byte_range()))
    }

    /// Whether `n` lies in the body of a `for` loop, or with `comprehensions` inside a
    /// comprehension, that `binding` varies with (one of its [`each_marker`]s), within
    /// its function: a name bound there is bound again on each pass, and a value
    /// computed there is computed again.
    fn encloses_each(&self, n: Node<'t>, binding: &str, comprehensions: bool) -> bool {
        let ids = each_ids(binding);
        let mut cur = self.ix.nav.parent(n);
        while let Some(x) = cur {
            if ids.contains(&x.start_byte()) {
                match x.kind_name() {
                    "for_statement" => {
                        return x.field(Field::Body).is_some_and(|b| {
                            b.start_byte() <= n.start_byte() && n.end_byte() <= b.end_byte()
                        })
                    }
                    "list_comprehension"
                    | "set_comprehension"
                    | "dictionary_comprehension"
                    | "generator_expression"
                        if comprehensions =>
                    {
                        return true
                    }
                    _ => {}
                }
            }
            match x.kind_name() {
                "function_definition" | "class_definition" => return false,
                "lambda" if comprehensions => return false,
                _ => {}
            }
            cur = self.ix.nav.parent(x);
        }
        false
    }

    /// Whether statement `stmt` lies in the body of a `for` loop of its function.
    fn in_loop_body(&self, stmt: Node<'t>) -> bool {
        let mut cur = self.ix.nav.parent(stmt);
        while let Some(x) = cur {
            match x.kind_name() {
                "block"
                    if self
                        .ix
                        .nav
                        .parent(x)
                        .is_some_and(|p| p.kind_name() == "for_statement") =>
                {
                    return true
                }
                "function_definition" | "class_definition" | "lambda" => return false,
                _ => {}
            }
            cur = self.ix.nav.parent(x);
        }
        false
    }

    /// Whether `h`, the value of `obj`, is a value the caller passes in (or an
    /// attribute read on one) through a name that the function binds only once: as its
    /// parameter (`model` or `model.meta` where `model` is a parameter never rebound),
    /// or as a local of such a value (`request = handle.data.request`); outside a
    /// followed call and any loop variable.
    fn caller_attr_base(&self, h: &HoleInfo, obj: Node<'t>, ctx: &Ctx<'t>) -> bool {
        if ctx.env.is_some() || h.binding.contains("@each") {
            return false;
        }
        if !(self.caller_values.contains(&h.binding) || self.caller_attrs.contains(&h.binding)) {
            return false;
        }
        let Some(f) = ctx.func else {
            return false;
        };
        let mut root = obj;
        while root.kind_name() == "attribute" {
            let Some(o) = root.field(Field::Object) else {
                return false;
            };
            root = o;
        }
        root.kind_name() == "identifier"
            && self.ix.funcs[f]
                .defs
                .get(text(root, self.src()))
                .is_some_and(|d| {
                    d.len() == 1
                        && match d[0].kind {
                            crate::index::DefKind::Param(_) => true,
                            // Its value is the caller's (`h` says so) whatever it reads.
                            crate::index::DefKind::Expr(e) => {
                                matches!(e.kind_name(), "identifier" | "attribute")
                            }
                            _ => false,
                        }
                })
    }

    /// `self.attr` (instance) or `Cls.attr` (class) in class `c`.
    pub(crate) fn instance_attr(
        &mut self,
        c: ClassId,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
        instance: bool,
    ) -> Value<'t> {
        if let Some(t) = self.rebased_attr(c, attr) {
            return t;
        }
        // A field bound for the call being followed (a record's field, an `Enum`
        // member's `value`): not memoised, since another call binds it otherwise.
        if instance {
            if let Some(v) = self.field_override.get(&(c, attr.to_string())) {
                return v.clone();
            }
        }
        let key = (
            c,
            format!("{attr}{}", if self.exact_class { "=" } else { "" }),
            instance,
        );
        let v = match self.memo_attr.get(&key) {
            Some(v) => v.clone(),
            None => {
                let guard = (
                    1u8,
                    c,
                    self.ix().classes[c].node.start_byte() ^ fxhash(attr),
                );
                if !self.in_progress.insert(guard) {
                    return self.opaque(n, ctx);
                }
                let exact = self.exact_class;
                let v = self.instance_attr_inner(c, attr, n, ctx, instance);
                if instance && !exact {
                    self.mark_held(c, attr, &v);
                }
                // A string (a key, a prefix) that a subclass of another module of
                // the project defines its own way: `self` may be one of its objects
                // (`subclasses.rs`). Clients and methods are left as they are.
                let v = match v {
                    Value::Str(t) if !exact && self.overridden_elsewhere(c, attr) => {
                        match self.subclass_options(c, attr, &t, n) {
                            Some(v) => v,
                            None => self.opaque_named(
                                text(n, self.src()),
                                format!("{}.self.{attr}", self.ix().classes[c].name),
                                Some(n.byte_range()),
                            ),
                        }
                    }
                    v => v,
                };
                self.in_progress.remove(&guard);
                self.memo_attr.insert(key, v.clone());
                v
            }
        };
        // The same value, written here.
        match v {
            Value::Opaque(h) => Value::Opaque(HoleInfo {
                label: text(n, self.src()).to_string(),
                span: Some(n.byte_range()),
                ..h
            }),
            // An object's key with a fresh default, named as this use writes it
            // (`other.key` is not `self.key`).
            v => crate::configured::relabel_fresh_default(v, text(n, self.src())),
        }
    }

    /// `Cls.attr` through the class's own name: exactly this class's attribute.
    pub(crate) fn class_attr(
        &mut self,
        c: ClassId,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        self.exact_class = true;
        let v = self.instance_attr(c, attr, n, ctx, false);
        self.exact_class = false;
        v
    }

    /// What each assignment of an instance attribute (`self.x = …` in a method, or
    /// its annotation alone) gives it: a value that cannot be known falls back to the
    /// annotation's.
    pub(crate) fn self_assign_values(
        &mut self,
        assigns: &[crate::index::SelfAssign<'t>],
        ctx: &Ctx<'t>,
    ) -> Vec<Value<'t>> {
        self.self_assign_values_as(assigns, None, ctx)
    }

    /// Whether a class of the chain of `c` below `k` (the base whose methods make
    /// `assigns`) defines at class level a name the assignments read as `self.<name>`
    /// (`key_template`).
    fn redefines_read(
        &self,
        c: ClassId,
        k: ClassId,
        assigns: &[crate::index::SelfAssign<'t>],
    ) -> bool {
        let src = self.src();
        let below: Vec<ClassId> = self
            .ix()
            .class_chain(c)
            .into_iter()
            .take_while(|&x| x != k)
            .collect();
        assigns.iter().filter_map(|a| a.value).any(|v| {
            let mut stack = vec![v];
            let mut seen = 0usize;
            while let Some(n) = stack.pop() {
                seen += 1;
                if seen > 1024 {
                    return false;
                }
                if n.kind_name() == "attribute" {
                    let obj = n.field(Field::Object).map(|o| text(o, src));
                    let name = n.field(Field::Attribute).map(|a| text(a, src));
                    if let (Some("self"), Some(name)) = (obj, name) {
                        if below
                            .iter()
                            .any(|&x| self.ix().classes[x].defs.contains_key(name))
                        {
                            return true;
                        }
                    }
                }
                stack.extend(self.ix.nav.named_children(n));
            }
            false
        })
    }

    /// [`Self::self_assign_values`], with `self` of each assigning method bound to an
    /// object of class `self_as` when given (a subclass that inherits the method).
    pub(crate) fn self_assign_values_as(
        &mut self,
        assigns: &[crate::index::SelfAssign<'t>],
        self_as: Option<ClassId>,
        ctx: &Ctx<'t>,
    ) -> Vec<Value<'t>> {
        let mut values = Vec::new();
        for a in assigns {
            let v = match (a.value, a.annotation) {
                (Some(v), ann) => {
                    let env = self_as.and_then(|c| {
                        let info = &self.ix().funcs[a.func];
                        let me = info.self_name()?.to_string();
                        Some(Rc::new(Env {
                            func: a.func,
                            params: HashMap::from([(me, Value::SelfObj(c))]),
                            tag: format!("as:{}", self.ix().classes[c].name),
                        }))
                    });
                    let actx = Ctx {
                        func: Some(a.func),
                        env,
                        depth: ctx.depth + 1,
                    };
                    // `self.prefix = conf["key_prefix"]`: the setting's head.
                    if let Some(h) = self.config_head(v, &actx) {
                        values.push(h);
                        continue;
                    }
                    match self.eval(v, &actx) {
                        // Project analysis: a constructor parameter keeps
                        // its mark.
                        Value::Opaque(h) if h.binding.starts_with('\u{1}') => Value::Opaque(h),
                        Value::Opaque(_) | Value::Unknown => ann
                            .and_then(|an| self.annotated_value(an))
                            .unwrap_or(Value::Unknown),
                        other => other,
                    }
                }
                (None, Some(an)) => self.annotated_value(an).unwrap_or(Value::Unknown),
                (None, None) => Value::Unknown,
            };
            values.push(v);
        }
        values
    }

    fn instance_attr_inner(
        &mut self,
        c: ClassId,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
        instance: bool,
    ) -> Value<'t> {
        let exact = std::mem::take(&mut self.exact_class);
        // A field of a record class read for its facts: the constructor's argument.
        if instance {
            if let Some(v) = self.field_override.get(&(c, attr.to_string())) {
                return v.clone();
            }
        }
        let chain = self.ix().class_chain(c);
        let label = text(n, self.src()).to_string();
        let binding = format!("{}.self.{attr}", self.ix().classes[c].name);
        let opaque = |me: &Self| me.opaque_named(&label, binding.clone(), Some(n.byte_range()));
        // `self` may be an instance of a subclass that defines the attribute its own
        // way: then nothing is known, except that it is the same value everywhere.
        if !exact && self.overridden_below(c, attr) {
            return opaque(self);
        }
        for &k in &chain {
            let cls = &self.ix().classes[k];
            if let Some(&m) = cls.methods.get(attr) {
                if instance && self.ix().funcs[m].is_property() {
                    // A declared return type says what comes back (`def
                    // redis_store(self) -> Optional[Redis]`), as for a call.
                    if let Some(ret) = self.ix().funcs[m].node.field(Field::ReturnType) {
                        match self.annotation(ret) {
                            Some(AnnotatedAs::Client(k)) => return Value::Client(k),
                            Some(AnnotatedAs::Pipeline(k)) => {
                                let k = self.effective(k);
                                return Value::Pipe(self.pipe_for(n, k, Tx::Unknown, None));
                            }
                            None => {}
                        }
                    }
                    return self
                        .call_builder(m, Some(c), Vec::new(), Vec::new(), ctx)
                        .unwrap_or_else(|| opaque(self));
                }
                return Value::Func {
                    id: m,
                    bound: Some(c),
                };
            }
            if instance {
                if let Some(assigns) = cls.self_assigns.get(attr).cloned() {
                    // `self.queues = []` filled in place by appends.
                    if let [one] = assigns.as_slice() {
                        if let Some(v) = self.attr_collection(c, attr, one, ctx) {
                            return v;
                        }
                    }
                    // Assigned in a base's method: read with `self` an object of `c`,
                    // whose class attributes may differ from the base's
                    // (`key_template` of `ReadyJobRegistry` over `BaseRegistry`'s).
                    let values = if k != c && self.redefines_read(c, k, &assigns) {
                        self.self_assign_values_as(&assigns, Some(c), ctx)
                    } else {
                        self.self_assign_values(&assigns, ctx)
                    };
                    // Annotation-only statements do not assign.
                    let assigned: Vec<&Value<'t>> = values
                        .iter()
                        .zip(&assigns)
                        .filter(|(_, a)| a.value.is_some())
                        .map(|(v, _)| v)
                        .collect();
                    if assigned.len() == 1 {
                        // A constructor parameter with a literal default.
                        let only = assigns.iter().find(|a| a.value.is_some());
                        if let Some(v) =
                            only.and_then(|a| self.init_param_default(a, c, attr, &label))
                        {
                            return v;
                        }
                        // A constructor argument stored as it is, or after literal
                        // text: a head that keys of the object may share.
                        if let Some((head, origin)) = only.and_then(|a| {
                            let v = assigned[0].clone();
                            self.ctor_head(c, attr, a, &v, &binding)
                        }) {
                            // Stored as it is: the parameter's own value, under the
                            // attribute's name.
                            if head != binding
                                && matches!(assigned[0], Value::Opaque(_) | Value::Unknown)
                            {
                                // Named as stored as it is, whichever attribute
                                // was read first.
                                match self.ctor_heads.iter_mut().find(|(b, _)| *b == head) {
                                    Some(e) => e.1 = origin,
                                    None => self.ctor_heads.push((head.clone(), origin)),
                                }
                                return Value::Opaque(HoleInfo {
                                    label: label.clone(),
                                    binding: head,
                                    span: Some(n.byte_range()),
                                    keylike: is_keylike_label(&label),
                                });
                            }
                            if !self.ctor_heads.iter().any(|(b, _)| *b == head) {
                                self.ctor_heads.push((head, origin));
                            }
                        }
                        return match assigned[0] {
                            Value::Unknown => opaque(self),
                            // Project analysis: a constructor parameter keeps its mark.
                            Value::Opaque(h) if h.binding.starts_with('\u{1}') => {
                                Value::Opaque(h.clone())
                            }
                            v @ Value::Opaque(h) => {
                                crate::heads::bound_head(v, &label, n.byte_range()).unwrap_or_else(
                                    || {
                                        Value::Opaque(HoleInfo {
                                            label: label.clone(),
                                            binding: binding.clone(),
                                            span: Some(n.byte_range()),
                                            keylike: h.keylike || is_keylike_label(&label),
                                        })
                                    },
                                )
                            }
                            v => crate::configured::relabel(v.clone(), &label),
                        };
                    }
                    if let Some(v) = lazy_value(&values) {
                        return v;
                    }
                    return merge_clients(&values).map_or_else(|| opaque(self), Value::Client);
                }
            }
            if let Some(defs) = cls.defs.get(attr).cloned() {
                // A field of a dataclass (`method: str = "*"`): the default is only
                // what the constructor sets when it is given nothing.
                if instance
                    && defs.len() == 1
                    && defs[0].annotation.is_some_and(|a| !self.is_class_var(a))
                    && self.is_dataclass(k)
                {
                    return defs[0]
                        .annotation
                        .and_then(|a| self.annotated_value(a))
                        .unwrap_or_else(|| opaque(self));
                }
                if defs.len() == 1 {
                    let d = defs[0];
                    // `redis = None` until a classmethod sets `cls.redis =
                    // redis.Redis(…)`: only the value it sets can reach a call that
                    // works.
                    if let DefKind::Expr(e) = d.kind {
                        if e.kind_name() == "none" {
                            if let Some(v) = self.client_set_by_classmethods(k, attr, ctx) {
                                return v;
                            }
                        }
                    }
                    let cctx = Ctx {
                        func: None,
                        env: None,
                        depth: ctx.depth + 1,
                    };
                    return match d.kind {
                        DefKind::Expr(e) => match self.eval(e, &cctx) {
                            Value::Opaque(_) | Value::Unknown => d
                                .annotation
                                .and_then(|a| self.annotated_value(a))
                                .unwrap_or_else(|| opaque(self)),
                            v => v,
                        },
                        _ => d
                            .annotation
                            .and_then(|a| self.annotated_value(a))
                            .unwrap_or_else(|| opaque(self)),
                    };
                }
                return opaque(self);
            }
        }
        if instance {
            if let Some(v) = self.imported_base_attr(c, attr, n, ctx) {
                return v;
            }
        }
        opaque(self)
    }

    /// A client that every assignment of `cls.<attr>` sets, when there is at least
    /// one and each is in a classmethod of class `c` (`def init(cls, **o): cls.redis =
    /// redis.StrictRedis(**o)`); `None` otherwise.
    fn client_set_by_classmethods(
        &mut self,
        c: ClassId,
        attr: &str,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let assigns = self.ix().classes[c].self_assigns.get(attr)?.clone();
        if assigns.is_empty()
            || assigns
                .iter()
                .any(|a| a.value.is_none() || !self.ix().funcs[a.func].is_classmethod())
        {
            return None;
        }
        let values = self.self_assign_values(&assigns, ctx);
        if !values.iter().all(|v| matches!(v, Value::Client(_))) {
            return None;
        }
        merge_clients(&values).map(Value::Client)
    }

    /// `v`, the value of `obj.attr` (`n`) on an object of a declared class: when the
    /// class says nothing of it (a field the caller fills, `lock.name` of a
    /// `NamedTuple` parameter), one value of that object wherever it is read, and,
    /// when `obj` is a parameter, the caller's attribute: a head that every key of the
    /// function that begins with it shares, as on an object of no declared class.
    fn or_caller_field(
        &mut self,
        v: Value<'t>,
        base: &Value<'t>,
        obj: Node<'t>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let (Value::Opaque(h), Value::Opaque(b)) = (&v, base) else {
            return v;
        };
        let Some(attr) = n.field(Field::Attribute) else {
            return v;
        };
        // A value with a default the class shows keeps it.
        if crate::configured::default_of(&h.binding).is_some()
            || keylint_core::template::has_fresh_default(&h.binding)
        {
            return v;
        }
        // On the caller's object: one identity for the field wherever the object is
        // read (a closure of the function reads the same value), marked as the
        // caller's where the object is a parameter.
        if !(self.caller_values.contains(&b.binding) || self.caller_attrs.contains(&b.binding)) {
            return v;
        }
        // Only a field of the object itself (`lock.name`, not `req.event.source`).
        if obj.kind_name() != "identifier" {
            return v;
        }
        let binding = format!("{}.{}", b.binding, text(attr, self.src()));
        if self.caller_attr_base(b, obj, ctx) {
            self.caller_attrs.insert(binding.clone());
        }
        Value::Opaque(HoleInfo {
            binding,
            ..h.clone()
        })
    }

    /// Whether function `f` (with the functions and lambdas inside it) assigns to the
    /// attribute `target` as written (`obj.attr = …`, `obj.attr += …`, also in a
    /// tuple of targets). The attributes a function writes are collected once.
    fn writes_attr_in(&mut self, f: Option<FuncId>, target: Node<'t>) -> bool {
        let Some(f) = f else {
            return false;
        };
        let bare = |x: Node<'t>, src: &str| -> String {
            text(x, src)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        let want = bare(target, self.src());
        if let Some(w) = self.written_attrs.get(&f) {
            return w.contains(&want);
        }
        let nav = self.ix.nav;
        let mut written: HashSet<String> = HashSet::new();
        let mut stack = vec![self.ix.funcs[f].node];
        while let Some(x) = stack.pop() {
            if matches!(x.kind_name(), "assignment" | "augmented_assignment") {
                if let Some(left) = x.field(Field::Left) {
                    let mut targets = vec![left];
                    while let Some(t) = targets.pop() {
                        match t.kind_name() {
                            "attribute" => {
                                written.insert(bare(t, self.src()));
                            }
                            "pattern_list"
                            | "tuple_pattern"
                            | "list_pattern"
                            | "parenthesized_expression" => targets.extend(nav.named_children(t)),
                            _ => {}
                        }
                    }
                }
            }
            stack.extend(nav.named_children(x));
        }
        let hit = written.contains(&want);
        self.written_attrs.insert(f, written);
        hit
    }

    /// Whether class `c` is decorated `@dataclass` (also `@dataclass(…)`,
    /// `@dataclasses.dataclass`): its annotated class-level names are fields.
    pub(crate) fn is_dataclass(&self, c: ClassId) -> bool {
        let node = self.ix().classes[c].node;
        let Some(parent) = self.ix.nav.parent(node) else {
            return false;
        };
        if parent.kind_name() != "decorated_definition" {
            return false;
        }
        self.ix.nav.named_children(parent).any(|d| {
            d.kind_name() == "decorator" && {
                let t = text(d, self.src()).trim_start_matches('@').trim();
                let name = t.split('(').next().unwrap_or(t).trim();
                name == "dataclass" || name.ends_with(".dataclass")
            }
        })
    }

    /// Whether an annotation is `ClassVar[…]`: a class attribute, not a field.
    pub(crate) fn is_class_var(&self, ann: Node<'t>) -> bool {
        let t = text(ann, self.src()).trim();
        t.starts_with("ClassVar") || t.contains(".ClassVar")
    }

    fn eval_call(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let Some(func) = n.field(Field::Function) else {
            return self.opaque(n, ctx);
        };
        let args = n.field(Field::Arguments);
        if func.kind_name() == "attribute" {
            let (Some(obj), Some(attr)) = (func.field(Field::Object), func.field(Field::Attribute))
            else {
                return self.opaque(n, ctx);
            };
            let m: &'t str = text(attr, self.src());
            if let Some(callee) = self.super_method(obj, m, ctx) {
                return self.call_value(callee, func, args, n, ctx);
            }
            // `options.get("ns", "app")`: a setting with its literal default in view.
            if let Some(v) = self.defaulted_get(n, obj, m, ctx) {
                return v;
            }
            // `SCRIPTS.get(name)` of a registry of scripts: the script of that entry
            // (a missing entry gives `None`, which no call runs).
            if m == "get"
                && match arg_nodes(self.ix.nav, args).as_slice() {
                    [k] => k.kind_name() != "list_splat" && k.kind_name() != "dictionary_splat",
                    [_, d] => d.kind_name() == "none",
                    _ => false,
                }
            {
                if let Some(v) = self.registry_entry_of(obj, ctx) {
                    return v;
                }
            }
            // `self.queues.values()` of a table of key names written once.
            if m == "values" {
                if let Some(v) = self.attr_dict_values(n, obj, ctx) {
                    return v;
                }
                if let Some(v) = self.local_dict_values(n, obj, ctx) {
                    return v;
                }
            }
            // `Key.LINK.sub(link_id)`: a method of an `Enum` called on a member.
            if let Some(v) = self.enum_member_call(obj, m, args, n, ctx) {
                return v;
            }
            let recv = self.eval(obj, &ctx.deeper());
            let recv = self.as_receiver(recv, obj);
            // `redis_client.get_prefix(p)` on `redis_client = RedisCli()` of a class of
            // this file derived from a client that defines the method itself.
            let recv = match recv {
                Value::Client(_) => match self.own_client_object(obj, m) {
                    Some(c) => Value::SelfObj(c),
                    // The same of a client object of another module of the project.
                    None => match self.imported_client_object(obj, m) {
                        Some(x) => return self.ext_call(&x, m, args, n, ctx),
                        None => recv,
                    },
                },
                other => other,
            };
            match recv {
                Value::Str(s) => return self.str_method(&s, m, args, n, ctx),
                Value::Client(written) => {
                    return self.client_method(written, m, attr, args, n, ctx);
                }
                Value::Pipe(id) => {
                    return match m {
                        "execute"
                        | "immediate_execute_command"
                        | "watch"
                        | "multi"
                        | "unwatch"
                        | "reset"
                        | "discard"
                        | "__enter__"
                        | "__aenter__" => self.opaque(n, ctx),
                        // RedisJSON's and RedisTimeSeries' commands queue on the
                        // pipeline, each with its key first (`pipe.json().delete(key,
                        // path)` is `JSON.DEL key path`, `pipe.ts().add(key, t, v)` is
                        // `TS.ADD`; `lower::client_call` reads them so). The command
                        // objects of other modules are not read.
                        "json" | "ts" => Value::Pipe(id),
                        m if is_module_accessor(m) => self.opaque(n, ctx),
                        "pipeline" => Value::Pipe(id),
                        // `existing = pipe.hgetall(key)` after `pipe.watch(key)`: on a
                        // watched pipeline a command runs at once and gives its reply
                        // (`existing.get("state")` is a dict's). A command's value kept
                        // under another name than its pipeline's is taken as a reply.
                        _ if self.reply_kept(obj, n) => self.opaque(n, ctx),
                        _ => Value::Pipe(id),
                    };
                }
                Value::Path(p) => return self.path_method(p, m, args, n, ctx),
                // `d.keys()`: the keys of a dict (a comprehension's family stays one).
                Value::Dict(items, _) if m == "keys" && arg_nodes(self.ix.nav, args).is_empty() => {
                    return crate::chunks::dict_keys(items);
                }
                Value::FileText(t) if m == "read" || m == "decode" => return Value::FileText(t),
                Value::SelfObj(c)
                    if self.defines(c, m).is_none() && self.client_class(c).is_some() =>
                {
                    // A method of a class derived from a redis-py client.
                    let written = self.client_class(c).unwrap_or(ClientKind::Unknown);
                    return self.client_method(written, m, attr, args, n, ctx);
                }
                Value::SelfObj(c) | Value::Class(c) | Value::ClsObj(c) => {
                    // `Prefix.concat(ns, ":item:")` of a key object of this file.
                    if matches!(recv, Value::Class(_)) {
                        if let Some(v) = self.own_key_remake(c, m, args, n, ctx) {
                            return v;
                        }
                    }
                    // `self._pipe()` after `self._pipe = self._redis.pipeline`.
                    if matches!(recv, Value::SelfObj(_)) {
                        if let Some(v) = self.bound_pipeline_call(c, m, func, args, n, ctx) {
                            return v;
                        }
                    }
                    // `self._key(…)` after `self._key = tiger._key`.
                    if matches!(recv, Value::SelfObj(_)) {
                        if let Some((x, meth)) = self.bound_ext_method(c, m, ctx) {
                            return self.ext_call(&x, &meth, args, n, ctx);
                        }
                    }
                    // `cls.get_store()`: a method of a base class of another module
                    // that declares what it returns.
                    if let Some(v) = self.imported_base_call(c, m, args, n, ctx) {
                        return v;
                    }
                    let callee = match recv {
                        Value::Class(_) => self.class_attr(c, m, func, ctx),
                        _ => self.instance_attr(c, m, func, ctx, matches!(recv, Value::SelfObj(_))),
                    };
                    let callee = match callee {
                        // `RedisKeys.subscriber(name)`: a plain function reached
                        // through its class binds no receiver; the arguments fill
                        // its parameters from the first on, as Python does.
                        Value::Func { id, .. }
                            if matches!(recv, Value::Class(_) | Value::ClsObj(_))
                                && !self.ix().funcs[id].is_classmethod() =>
                        {
                            Value::Func { id, bound: None }
                        }
                        Value::Func { id, .. } => Value::Func {
                            id,
                            bound: self.bound_for(id, c),
                        },
                        other => other,
                    };
                    return self.call_value(callee, func, args, n, ctx);
                }
                Value::Symbol(p) => {
                    let full = format!("{p}.{m}");
                    return self.call_symbol(&full, args, n, ctx);
                }
                // Project analysis: a method of an instance of another module's class.
                Value::Ext(x) => return self.ext_call(&x, m, args, n, ctx),
                // `x.decode()` of a loop variable (an id read back from Redis as bytes)
                // varies with it, like `job.id`; so do the pieces a string method cuts
                // from it (`ip, port = m.rsplit(":", 1)`, `m.split(":")[0]`), with the
                // call's literal arguments in the binding.
                Value::Opaque(h) if h.binding.contains("@each") && each_str_method(m) => {
                    let label = text(n, self.src()).to_string();
                    let Some(call_args) = literal_call_args(args, self.src()) else {
                        return self.opaque(n, ctx);
                    };
                    return Value::Opaque(HoleInfo {
                        keylike: h.keylike,
                        binding: format!("{}.{m}({call_args})", h.binding),
                        label,
                        span: Some(n.byte_range()),
                    });
                }
                // `SEP.join(parts)` with `SEP` a module string that a setter rebinds
                // (`def set_sep(ch): global SEP; SEP = ch`): the parts with that one
                // separator of the run between them. A separator is no key: like
                // an id, it is taken to hold no brace.
                Value::Opaque(ref h)
                    if m == "join"
                        && h.binding.starts_with("global-rebound:")
                        && !crate::heads::is_config_head(&h.binding) =>
                {
                    let sep = Tpl::hole(HoleInfo {
                        keylike: false,
                        ..h.clone()
                    });
                    return self.str_join(&sep, args, n, ctx);
                }
                Value::Opaque(_) | Value::Unknown | Value::Foreign => {
                    if let Some(v) = self.unknown_receiver_method(obj, &recv, m, args, n, ctx) {
                        return v;
                    }
                }
                _ => {}
            }
            return self.call_result(n, func, ctx);
        }
        // `cast(T, x)`: `x`, for typing.
        if let Some(x) = crate::memoglobal::uncast(n, self.src()) {
            let typing = match func.kind_name() {
                "identifier" => self.ix().imports.get("cast").is_some_and(|p| {
                    matches!(p.as_str(), "typing.cast" | "typing_extensions.cast")
                }),
                _ => true,
            };
            if typing {
                return self.eval(x, &ctx.deeper());
            }
        }
        if func.kind_name() == "identifier" && text(func, self.src()) == "getattr" {
            if let Some(v) = self.getattr_default(args, ctx) {
                return v;
            }
        }
        // `register = getattr(r, "register_script", None)` / `reg = r.register_script`,
        // then `register(body)`: the client's `register_script`.
        if func.kind_name() == "identifier" {
            if let Some(k) = self.bound_register_script(func, ctx) {
                return Value::Script(self.script_for(n, args, k, ctx));
            }
        }
        let callee = self.eval(func, &ctx.deeper());
        self.call_value(callee, func, args, n, ctx)
    }

    /// `obj.m(…)` where `obj` is an object of a class of this file that the code
    /// makes (`Client()` there, or a name bound once to it, in the function or at
    /// module level) and `m` a plain method of the class that returns a client or a
    /// pipeline (`def redis(self): return redis.Redis(**self.settings)`): that value.
    /// Anything else the method returns is left to the other readings.
    fn local_factory_method(
        &mut self,
        obj: Node<'t>,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let made = match obj.kind_name() {
            "call" => obj,
            "identifier" => {
                let name = text(obj, self.src());
                let defs = match ctx.func {
                    Some(f) if self.ix.funcs[f].defs.contains_key(name) => {
                        self.ix.funcs[f].defs.get(name)?.clone()
                    }
                    Some(f) if self.ix.funcs[f].nonlocal.iter().any(|x| x == name) => return None,
                    _ => self.ix.module_defs.get(name)?.clone(),
                };
                let [d] = defs.as_slice() else {
                    return None;
                };
                match d.kind {
                    DefKind::Expr(e) if e.kind_name() == "call" => e,
                    _ => return None,
                }
            }
            _ => return None,
        };
        let callee = made.field(Field::Function)?;
        if callee.kind_name() != "identifier" {
            return None;
        }
        let c = self.ix.class_named(text(callee, self.src()))?;
        if self.client_class(c).is_some() {
            return None;
        }
        let fid = self.defines(c, m)?;
        let info = &self.ix.funcs[fid];
        if !info.decorators.is_empty()
            || info.class != Some(c) && !self.ix.class_chain(c).contains(&info.class?)
        {
            return None;
        }
        let func = n.field(Field::Function)?;
        let callee = Value::Func {
            id: fid,
            bound: Some(c),
        };
        match self.call_value(callee, func, args, n, ctx) {
            v @ (Value::Client(_) | Value::Pipe(_)) => Some(v),
            _ => None,
        }
    }

    /// A call of method `m` on a value of no known kind (`recv`, the value of `obj`):
    /// a method of a declared class of another module, a redis-py client class by its
    /// name, a client from a Sentinel, a script registered on a client parameter.
    fn unknown_receiver_method(
        &mut self,
        obj: Node<'t>,
        recv: &Value<'t>,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        // A method of an object whose class, of another module, is declared.
        if let Some(x) = self.typed_ext(obj, recv, ctx) {
            if x.has_method(m) {
                let v = self.ext_call(&x, m, args, n, ctx);
                if matches!(recv, Value::Ext(_)) || !self.loop_item_lost(obj, &v, ctx) {
                    return Some(v);
                }
            }
        }
        // `Client().redis()`, `client.redis()` of `client = Client()`: a method of an
        // object of a class of this file that makes a client or a pipeline.
        if let Some(v) = self.local_factory_method(obj, m, args, n, ctx) {
            return Some(v);
        }
        // `self.dependency.Redis(…)`: a client class by its name;
        // `sentinel.master_for(…)`: a client from a redis Sentinel.
        if matches!(m, "master_for" | "slave_for")
            && text(obj, self.src())
                .to_ascii_lowercase()
                .contains("sentinel")
        {
            return Some(Value::Client(ClientKind::Unknown));
        }
        match m {
            "RedisCluster" => Some(Value::Client(ClientKind::Cluster)),
            "Redis" | "StrictRedis" => Some(Value::Client(ClientKind::Unknown)),
            // `connection.register_script(LUA)` on a parameter of no known
            // kind (rq's `get_unique_enqueue_script(connection)`): the
            // method is redis-py's, and the script object it returns is
            // linked to its body like one registered on a known client.
            // The client's kind stays unknown.
            "register_script"
                if self.mentions_redis && matches!(recv, Value::Opaque(_) | Value::Unknown) =>
            {
                Some(Value::Script(self.script_for(
                    n,
                    args,
                    ClientKind::Unknown,
                    ctx,
                )))
            }
            _ => None,
        }
    }

    /// A method of a redis-py client: `pipeline()` makes a pipeline (its transaction
    /// mode and where that came from), `register_script` a script; anything else is
    /// opaque.
    pub(crate) fn client_method(
        &mut self,
        written: ClientKind,
        m: &str,
        attr: Node<'t>,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let k = self.effective(written);
        match m {
            // aioredis 1.x: `pipeline()` is a plain batch, `multi_exec()` the
            // transaction, whatever the client (it talks to one server only: neither
            // refuses or splits anything before sending). Its `pipeline()` takes no
            // argument: `pipeline(transaction=…)` is redis-py's.
            "pipeline" | "multi_exec"
                if (m == "multi_exec" || arg_nodes(self.ix.nav, args).is_empty())
                    && self.aioredis1() =>
            {
                let (tx, origin) = match m {
                    "multi_exec" => (Tx::Yes, TxOrigin::MultiExec),
                    _ => (Tx::No, TxOrigin::Written),
                };
                let id = self.pipe_for(n, ClientKind::Standalone, tx, Some(attr.byte_range()));
                self.pipes[id].origin = origin;
                Value::Pipe(id)
            }
            "pipeline" => {
                let (tx, explicit) = pipeline_tx(self.ix.nav, args, k, self.src());
                let id = self.pipe_for(n, k, tx, Some(attr.byte_range()));
                self.pipes[id].origin = match (explicit, written) {
                    (true, _) => TxOrigin::Written,
                    (false, ClientKind::Unknown) => TxOrigin::ProfileDefault,
                    (false, _) => TxOrigin::ClientDefault,
                };
                self.pipes[id].kind_by_profile = written == ClientKind::Unknown;
                Value::Pipe(id)
            }
            "register_script" => Value::Script(self.script_for(n, args, k, ctx)),
            "scan_iter" | "keys" => self
                .scan_family(m, args, n, ctx)
                .unwrap_or_else(|| self.opaque(n, ctx)),
            // `cursor, keys = r.scan(cursor, match=…)`: the next cursor, then a
            // batch of the keys the pattern matches.
            "scan" => match self.scan_family(m, args, n, ctx) {
                Some(keys) => Value::Seq {
                    items: vec![
                        Elem {
                            value: self.opaque(n, ctx),
                            node: n,
                            star: false,
                            each: Vec::new(),
                        },
                        Elem {
                            value: keys,
                            node: n,
                            star: false,
                            each: Vec::new(),
                        },
                    ],
                    family: false,
                },
                None => self.opaque(n, ctx),
            },
            // `uid = r.incr("next_id")`: a number, which holds no brace, so a key
            // that is the number alone (`pipe.hset(uid, …)`) is hashed as it is.
            _ if NUMBER_REPLIES.contains(&m) => match self.opaque(n, ctx) {
                Value::Opaque(mut h) => {
                    h.binding = keylint_core::template::brace_free_binding(&format!(
                        "{}{NUMBER_MARK}",
                        h.binding
                    ));
                    h.keylike = false;
                    Value::Opaque(h)
                }
                other => other,
            },
            _ => self.opaque(n, ctx),
        }
    }

    /// A method of a `pathlib` path: its text, or another path.
    fn path_method(
        &mut self,
        p: PathValue,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        match m {
            "read_text" | "read_bytes" => self.read_path(&p),
            "joinpath" => {
                let mut p = p;
                for a in arg_nodes(self.ix.nav, args) {
                    match self.eval(a, &ctx.deeper()) {
                        Value::Str(t) => {
                            match t.as_bytes().and_then(|b| String::from_utf8(b).ok()) {
                                Some(s) => p.parts.extend(
                                    s.split('/').filter(|s| !s.is_empty()).map(str::to_string),
                                ),
                                None => return Value::Unknown,
                            }
                        }
                        _ => return Value::Unknown,
                    }
                }
                p.is_module_file = false;
                Value::Path(p)
            }
            "resolve" | "absolute" => Value::Path(p),
            _ => self.opaque(n, ctx),
        }
    }

    /// The value a call gives the `i`th parameter `p` (after `self`): the argument
    /// passed by position or by name, else its default evaluated in the scope that
    /// defines the function; `None` when neither.
    pub(crate) fn arg_or_default(
        &mut self,
        parent: Option<FuncId>,
        i: usize,
        p: &crate::index::ParamInfo<'t>,
        (pos, kw): (&[Elem<'t>], &[(String, Elem<'t>)]),
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let v = pos.get(i).map(|e| e.value.clone()).or_else(|| {
            kw.iter()
                .find(|(k, _)| k == &p.name)
                .map(|(_, e)| e.value.clone())
        });
        match (v, p.default) {
            (Some(v), _) => Some(v),
            (None, Some(d)) => {
                let dctx = Ctx {
                    func: parent,
                    env: None,
                    depth: ctx.depth + 1,
                };
                Some(self.eval(d, &dctx))
            }
            (None, None) => None,
        }
    }

    /// Calls a value.
    pub(crate) fn call_value(
        &mut self,
        callee: Value<'t>,
        func: Node<'t>,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        match callee {
            Value::Func { id, bound } => {
                // A declared return type says what comes back. A declared pipeline
                // (`-> Pipeline`, `-> AsyncIterator[Pipeline]` of a context manager)
                // is read from the body first, which may tell whether it is a
                // transaction; the annotation stands when the body says nothing.
                // A context manager's declared type is what entering it gives
                // (`entered_value`), not what the call returns.
                let mut declared_pipe = None;
                if let Some(ret) = self.ix().funcs[id].node.field(Field::ReturnType) {
                    match self.annotation(ret) {
                        _ if is_context_manager(&self.ix().funcs[id]) => {}
                        Some(AnnotatedAs::Client(k)) => {
                            // `def get_redis(self, pipeline=None) -> Redis: return
                            // pipeline or self.redis`: the client without a pipeline;
                            // with one passed, the body says what comes back.
                            let takes_pipe = self.ix().funcs[id]
                                .params
                                .iter()
                                .any(|p| crate::project::pipe_param_name(&p.name));
                            if takes_pipe && args.is_some_and(|a| a.named_child_count() > 0) {
                                if let v @ Value::Pipe(_) = self.call_func(id, bound, args, n, ctx)
                                {
                                    return v;
                                }
                            }
                            return Value::Client(k);
                        }
                        Some(AnnotatedAs::Pipeline(k)) => declared_pipe = Some(k),
                        None => {}
                    }
                }
                let v = self.call_func(id, bound, args, n, ctx);
                match (v, declared_pipe) {
                    (Value::Opaque(_) | Value::Unknown | Value::Foreign, Some(k)) => {
                        let k = self.effective(k);
                        Value::Pipe(self.pipe_for(n, k, Tx::Unknown, None))
                    }
                    (v, _) => v,
                }
            }
            other => self.call_other(other, func, args, n, ctx),
        }
    }

    /// Whether the call `n` of a command on the pipeline `obj` (a name or an
    /// attribute) is the whole value assigned to a plain name other than `obj`
    /// (awaited or not): the reply of a watched pipeline, not the pipeline itself.
    fn reply_kept(&self, obj: Node<'t>, n: Node<'t>) -> bool {
        if !matches!(obj.kind_name(), "identifier" | "attribute") {
            return false;
        }
        let nav = self.ix.nav;
        let mut v = n;
        let mut up = nav.parent(n);
        if let Some(a) = up.filter(|a| a.kind_name() == "await") {
            v = a;
            up = nav.parent(a);
        }
        let Some(asg) = up.filter(|a| a.kind_name() == "assignment") else {
            return false;
        };
        if asg.field(Field::Right).map(|r| r.id()) != Some(v.id()) {
            return false;
        }
        asg.field(Field::Left).is_some_and(|l| {
            l.kind_name() == "identifier" && text(l, self.src()) != text(obj, self.src())
        })
    }

    /// A call of a function of this file, its declared return type aside.
    fn call_func(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        if bound.is_none() && self.ix().funcs[id].parent.is_none() {
            // `chunks(keys, 100)`: pieces of a family of keys.
            if let Some(v) = self.local_chunks(id, args, n, ctx) {
                return v;
            }
            if let Some(v) = self.wrapped_script(id, n, args, ctx) {
                return v;
            }
            if self.ix().funcs[id].class.is_none() {
                if let Some(v) = self.param_script_call(id, n, args, ctx) {
                    return v;
                }
            }
        }
        // `self.register_script(LUA)` of a method that registers its argument.
        if bound.is_some() && self.ix().funcs[id].class.is_some() {
            if let Some(v) = self.param_script_call(id, n, args, ctx) {
                return v;
            }
        }
        if let Some(v) = self.script_accessor(id, bound, args, ctx) {
            return v;
        }
        // A pipeline it makes, fills and hands back (`retpipe.rs`).
        if let Some(v) = self.handed_back(id, bound, n, args, ctx) {
            return v;
        }
        // The caller's pipeline, queued on and handed back (`retpipe.rs`).
        if let Some(v) = self.passed_back(id, bound, args, ctx) {
            return v;
        }
        // `ensure_str(parts)`: the parts again, item by item (`passthru.rs`).
        if bound.is_none() && self.copies_items(id) {
            if let [one] = arg_nodes(self.ix.nav, args).as_slice() {
                if !matches!(one.kind_name(), "list_splat" | "dictionary_splat") {
                    let v = self.eval(*one, &ctx.deeper());
                    if matches!(v, Value::Seq { .. }) {
                        return v;
                    }
                }
            }
        }
        // A new pipeline from every return (`retpipe.rs`).
        if let Some(v) = self.fresh_pipeline_call(id, n, ctx) {
            return v;
        }
        // `to_unicode(key)`: the argument again, as text (`passthru.rs`).
        if self.returns_param_as_text(id) {
            if let Some(&one) = arg_nodes(self.ix.nav, args).first() {
                if one.kind_name() != "list_splat" && one.kind_name() != "dictionary_splat" {
                    match self.eval(one, &ctx.deeper()) {
                        v @ Value::Str(_) => return v,
                        Value::Opaque(h) if h.binding.contains("@each") => {
                            let name = self.ix().funcs[id].name.clone();
                            return Value::Opaque(HoleInfo {
                                keylike: h.keylike,
                                binding: format!("{}.{name}()", h.binding),
                                label: text(n, self.src()).to_string(),
                                span: Some(n.byte_range()),
                            });
                        }
                        _ => {}
                    }
                }
            }
        }
        let (pos, kw) = self.call_args(args, ctx);
        let v = match self.call_builder(id, bound, pos.clone(), kw.clone(), ctx) {
            Some(v) => self.pipe_at_site(v, id, n),
            None => self
                .memo_factory(id, ctx)
                .or_else(|| self.returned_script(id, ctx))
                .or_else(|| self.attr_memo_script(id, ctx))
                .or_else(|| self.call_generator(id, bound, pos, kw, ctx))
                .unwrap_or_else(|| self.opaque(n, ctx)),
        };
        match v {
            // `-> "Job"`: an instance of a class of another module.
            Value::Opaque(_) | Value::Unknown | Value::Foreign => {
                self.returned_ext(id, n, ctx).unwrap_or(v)
            }
            v => v,
        }
    }

    /// A call of anything but a function of this file.
    fn call_other(
        &mut self,
        callee: Value<'t>,
        func: Node<'t>,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        match callee {
            Value::Symbol(p) => self.call_symbol(&p, args, n, ctx),
            // `CacheKey(key)` of `class CacheKey(str): pass`: the same text.
            Value::Class(c) if self.plain_str_class(c) => self.str_of_one_arg(args, n, ctx),
            Value::Class(c) => match self.client_class(c) {
                Some(k) => Value::Client(k),
                // A proxy that forwards every attribute to a client (`proxies.rs`).
                None => match self.forwarding_proxy(c, ctx) {
                    Some(k) => Value::Client(k),
                    // A key object of a class of this file (`localobj.rs`).
                    None => self
                        .own_key_object(c, args, n, ctx)
                        .unwrap_or(Value::Foreign),
                },
            },
            Value::ClsObj(c) => match self.client_class(c) {
                Some(k) => Value::Client(k),
                None => Value::Foreign,
            },
            _ => self.call_result(n, func, ctx),
        }
    }

    /// Whether `e` is another name's value unchanged: the name itself, or `key.value
    /// if isinstance(key, GlobalKeys) else key` ([`Self::enum_or_text`]).
    fn names_alias(&mut self, e: Node<'t>, ctx: &Ctx<'t>) -> bool {
        match e.kind_name() {
            "identifier" => true,
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = self.ix.nav.named_children(e).collect();
                kids.len() == 3 && self.enum_or_text(kids[1], kids[0], kids[2], ctx).is_some()
            }
            _ => false,
        }
    }

    /// `key.value if isinstance(key, GlobalKeys) else key` (or `key if not
    /// isinstance(key, GlobalKeys) else key.value`) with `GlobalKeys` an `Enum` class:
    /// a member's value or the text itself. A member is read as its value wherever
    /// it is passed, so either arm is `key`'s value: the node `key` of the plain
    /// arm. `None` for any other shape.
    fn enum_or_text(
        &mut self,
        cond: Node<'t>,
        a: Node<'t>,
        b: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Node<'t>> {
        let nav = self.ix.nav;
        let mut cond = cond;
        let mut negated = false;
        loop {
            match cond.kind_name() {
                "parenthesized_expression" => cond = nav.named_children(cond).next()?,
                "not_operator" => {
                    negated = !negated;
                    cond = cond.named_child(0)?;
                }
                _ => break,
            }
        }
        if cond.kind_name() != "call"
            || text(cond.field(Field::Function)?, self.src()) != "isinstance"
            || self.ix.module_defs.contains_key("isinstance")
        {
            return None;
        }
        let args = arg_nodes(nav, cond.field(Field::Arguments));
        let [obj, class] = args.as_slice() else {
            return None;
        };
        if obj.kind_name() != "identifier" {
            return None;
        }
        let name = text(*obj, self.src());
        let (member, plain) = if negated { (b, a) } else { (a, b) };
        let is_value = member.kind_name() == "attribute"
            && member
                .field(Field::Object)
                .is_some_and(|o| o.kind_name() == "identifier" && text(o, self.src()) == name)
            && member
                .field(Field::Attribute)
                .is_some_and(|t| text(t, self.src()) == "value");
        let is_plain = plain.kind_name() == "identifier" && text(plain, self.src()) == name;
        (is_value && is_plain && self.enum_class(*class, ctx)).then_some(plain)
    }

    /// Whether `owner` names an `Enum` class (`class Keys(str, Enum)`, `StrEnum`,
    /// `enum.IntEnum`) of this file or of another module of the project.
    fn enum_class(&mut self, owner: Node<'t>, ctx: &Ctx<'t>) -> bool {
        match self.eval(owner, &ctx.deeper()) {
            Value::Class(c) => enum_bases(&self.ix().classes[c].bases),
            Value::Symbol(p) => self.project.is_some_and(
                |s| matches!(s.lookup(&p), Some(crate::project::Fact::Class(cf)) if cf.is_enum()),
            ),
            _ => false,
        }
    }

    /// `Key.LINK.sub(link_id)`: method `m` of an `Enum` class (of this file or of
    /// another module) called on one of its members, followed as a key builder with
    /// the member as `self`, whose `self.value` is the value the class body gives the
    /// member. `None` when `obj` is no member of an `Enum` whose value is known, or
    /// the class has no such method.
    fn enum_member_call(
        &mut self,
        obj: Node<'t>,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if obj.kind_name() != "attribute" || m == "value" || m.starts_with("__") {
            return None;
        }
        let owner = obj.field(Field::Object)?;
        // Only a name that reads as a class's (`Key`, `keys.Key`) is looked up: most
        // method calls go through `self.x` or a lower-case name, and are left alone.
        let last = match owner.kind_name() {
            "identifier" => owner,
            "attribute" => owner.field(Field::Attribute)?,
            _ => return None,
        };
        if !text(last, self.src()).starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        match self.eval(owner, &ctx.deeper()) {
            Value::Class(c) if enum_bases(&self.ix().classes[c].bases) => {
                let id = self.defines(c, m)?;
                // A plain method: `self` is the member (a static or class method's first
                // parameter is not).
                if !self.ix().funcs[id].decorators.is_empty()
                    || self.defines(c, "__init__").is_some()
                {
                    return None;
                }
                let member = self.eval(obj, &ctx.deeper());
                if !matches!(member, Value::Str(_)) {
                    return None;
                }
                let (pos, kw) = self.call_args(args, ctx);
                let key = (c, "value".to_string());
                let before = self.field_override.insert(key.clone(), member);
                let out = self.call_builder(id, Some(c), pos, kw, ctx);
                match before {
                    Some(v) => self.field_override.insert(key, v),
                    None => self.field_override.remove(&key),
                };
                out
            }
            Value::Symbol(p) => {
                let Some(crate::project::Fact::Class(cf)) = self.project?.lookup(&p) else {
                    return None;
                };
                if !cf.is_enum() || !cf.has_method_fact(m) {
                    return None;
                }
                let Value::Str(t) = self.eval(obj, &ctx.deeper()) else {
                    return None;
                };
                let ident = format!("{p}.{}", text(obj.field(Field::Attribute)?, self.src()));
                let x = crate::project::enum_member(cf, t, ident)?;
                Some(self.ext_call(&x, m, args, n, ctx))
            }
            _ => None,
        }
    }

    /// Whether class `c` of this file derives from `str` (or `bytes`) alone and makes
    /// its objects as `str` does (no `__new__`, no `__init__`): `class CacheKey(str):
    /// pass`, whose `CacheKey(key)` is the key's text.
    pub(crate) fn plain_str_class(&self, c: ClassId) -> bool {
        let info = &self.ix().classes[c];
        matches!(info.bases.as_slice(), [b] if b == "str" || b == "bytes")
            && self.ix().str_is_builtin(self.src())
            && !info.methods.contains_key("__new__")
            && !info.methods.contains_key("__init__")
    }

    /// The text of a call's one positional argument (`str(x)`), else an unknown value.
    pub(crate) fn str_of_one_arg(
        &mut self,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        let a = arg_nodes(self.ix.nav, args);
        let only = args.is_some_and(|x| {
            self.ix
                .nav
                .named_children(x)
                .filter(|c| c.kind_name() != "comment")
                .count()
                == 1
        });
        if let ([one], true) = (a.as_slice(), only) {
            let v = self.eval(*one, &ctx.deeper());
            return Value::Str(self.to_tpl(&v, *one, ctx));
        }
        self.opaque(n, ctx)
    }

    /// Whether a class of this file derived from `c` defines `attr` itself.
    pub(crate) fn overridden_below(&self, c: ClassId, attr: &str) -> bool {
        let ix = self.ix();
        (0..ix.classes.len()).any(|k| {
            k != c
                && ix.class_chain(k).contains(&c)
                && (ix.classes[k].defs.contains_key(attr)
                    || ix.classes[k].methods.contains_key(attr)
                    || ix.classes[k].self_assigns.contains_key(attr))
        })
    }

    /// Whether a class of another module of the project derived from `c` defines
    /// `attr` itself.
    pub(crate) fn overridden_elsewhere(&self, c: ClassId, attr: &str) -> bool {
        if self.summarising {
            return false;
        }
        let name = &self.ix().classes[c].name;
        self.project
            .is_some_and(|s| s.overridden_elsewhere(name, attr))
    }

    /// The method `m` of class `c` or a base class of this file.
    pub(crate) fn defines(&self, c: ClassId, m: &str) -> Option<FuncId> {
        self.ix()
            .class_chain(c)
            .into_iter()
            .find_map(|k| self.ix().classes[k].methods.get(m).copied())
    }

    /// The class of `obj`, a module global bound once at module level to an object of
    /// a class of this file derived from a redis-py client (`redis_client =
    /// RedisCli()`), when that class defines `m` itself and `m` is not a method of the
    /// client library (a command, `pipeline`, `register_script`, …): its own helper
    /// (`def get_prefix(self, prefix): return [k for k in self.scan_iter(…)]`).
    pub(crate) fn own_client_object(&mut self, obj: Node<'t>, m: &str) -> Option<ClassId> {
        if obj.kind_name() != "identifier" || crate::proxies::client_name(m) || m.starts_with("__")
        {
            return None;
        }
        let name = text(obj, self.src());
        let class = crate::project::module_object_class(self, name)?;
        let c = *self.ix().class_by_name.get(class.as_str())?;
        self.ix().classes[c].methods.get(m)?;
        self.client_class(c)?;
        Some(c)
    }

    /// [`Self::own_client_object`] for a name imported from another module of the
    /// project (`from app.db import redis_client`): an instance of its class, known
    /// by its type, when that class has a fact of `m`.
    fn imported_client_object(
        &mut self,
        obj: Node<'t>,
        m: &str,
    ) -> Option<std::rc::Rc<crate::project::Instance>> {
        if obj.kind_name() != "identifier" || crate::proxies::client_name(m) || m.starts_with("__")
        {
            return None;
        }
        let scope = self.project?;
        let name = text(obj, self.src());
        if self.ix().module_defs.get(name).map(Vec::len) != Some(1) {
            return None;
        }
        let path = self.ix().imports.get(name)?.clone();
        let Some(crate::project::Fact::Class(cf)) = scope.lookup(&format!("{path}.__class__"))
        else {
            return None;
        };
        cf.method(m)?;
        Some(crate::project::typed_instance(cf, "", name.to_string()))
    }

    /// The kind of the client whose `register_script` the name `func` is bound to,
    /// once, in the function or at module level: `reg = r.register_script` or
    /// `register = getattr(r, "register_script"[, None])` of a client `r`.
    fn bound_register_script(&mut self, func: Node<'t>, ctx: &Ctx<'t>) -> Option<ClientKind> {
        let src = self.src();
        let name = text(func, src);
        let local = ctx
            .func
            .and_then(|f| self.ix().funcs[f].defs.get(name).cloned());
        let (defs, dctx) = match local {
            Some(d) => (d, Ctx::at(ctx.func)),
            None if ctx
                .func
                .is_some_and(|f| self.ix().funcs[f].parent.is_some()) =>
            {
                return None
            }
            // A module global no function rebinds (`global reg`).
            None if self.ix().rebound_in_function(name) => return None,
            None => (self.ix().module_defs.get(name)?.clone(), Ctx::at(None)),
        };
        let [d] = defs.as_slice() else {
            return None;
        };
        let DefKind::Expr(e) = d.kind else {
            return None;
        };
        let obj = match e.kind_name() {
            "attribute" => {
                if text(e.field(Field::Attribute)?, src) != "register_script" {
                    return None;
                }
                e.field(Field::Object)?
            }
            "call" => {
                let f = e.field(Field::Function)?;
                if f.kind_name() != "identifier"
                    || text(f, src) != "getattr"
                    || self.ix().module_defs.contains_key("getattr")
                {
                    return None;
                }
                let a = arg_nodes(self.ix.nav, e.field(Field::Arguments));
                let (obj, attr) = match a.as_slice() {
                    [o, m] => (*o, *m),
                    [o, m, dflt] if dflt.kind_name() == "none" => (*o, *m),
                    _ => return None,
                };
                if crate::heads::plain_string(self.ix.nav, attr, src) != Some("register_script") {
                    return None;
                }
                obj
            }
            _ => return None,
        };
        if !matches!(obj.kind_name(), "identifier" | "attribute") {
            return None;
        }
        match self.eval(obj, &dctx.deeper()) {
            Value::Client(k) => Some(self.effective(k)),
            _ => None,
        }
    }

    /// The client kind of a class of this file that derives from a redis-py client.
    pub(crate) fn client_class(&mut self, c: ClassId) -> Option<ClientKind> {
        let chain = self.ix().class_chain(c);
        for k in chain {
            let bases = self.ix().classes[k].bases.clone();
            for b in bases {
                let first = b.split(['.', '[']).next().unwrap_or(&b).to_string();
                let path = match self.ix().imports.get(&first) {
                    Some(p) => Some(format!("{p}{}", &b[first.len()..])),
                    None => match self.ix().module_defs.get(&first).cloned() {
                        Some(defs) => {
                            let mctx = Ctx::at(None);
                            let vals: Vec<Value<'t>> = defs
                                .iter()
                                .filter_map(|d| match d.kind {
                                    DefKind::Expr(e) => Some(self.eval(e, &mctx)),
                                    _ => None,
                                })
                                .collect();
                            match vals.first() {
                                Some(Value::Symbol(p))
                                    if vals
                                        .iter()
                                        .all(|v| matches!(v, Value::Symbol(q) if q == p)) =>
                                {
                                    Some(p.clone())
                                }
                                _ => None,
                            }
                        }
                        None => None,
                    },
                };
                if let Some(p) = path {
                    let p = p.split('[').next().unwrap_or(&p).to_string();
                    if let Some(k) = constructor_kind(&p) {
                        return Some(k);
                    }
                }
            }
        }
        None
    }

    /// Whether a client constructor's arguments connect it over a unix socket:
    /// `unix_socket_path=…`, a `unix://` URL, or a `connection_pool=` whose value is,
    /// or is a name or attribute this file assigns, a pool of
    /// `UnixDomainSocketConnection`s. Such a client talks to one local server, which
    /// redis-py's cluster client cannot reach: its commands are not judged.
    fn over_unix_socket(&self, args: Option<Node<'t>>) -> bool {
        let Some(args) = args else { return false };
        let src = self.src();
        let unix_text = |t: &str| {
            t.contains("UnixDomainSocketConnection")
                || t.contains("unix_socket_path")
                || t.contains("unix://")
        };
        for k in self.ix.nav.named_children(args) {
            match k.kind_name() {
                "keyword_argument" => {
                    let (Some(name), Some(v)) = (k.field(Field::Name), k.field(Field::Value))
                    else {
                        continue;
                    };
                    match text(name, src) {
                        "unix_socket_path" => return true,
                        "connection_pool" => {
                            let vt = text(v, src);
                            if unix_text(vt) {
                                return true;
                            }
                            if matches!(v.kind_name(), "identifier" | "attribute")
                                && assigned_texts(src, vt).any(unix_text)
                            {
                                return true;
                            }
                        }
                        _ => {}
                    }
                }
                "string" if text(k, src).contains("unix://") => return true,
                _ => {}
            }
        }
        false
    }

    /// The result of a call the linter does not follow: an unknown value when the
    /// callee's name suggests a client (`get_redis()`, `pool.get_connection()`), else
    /// a value known not to be one.
    fn call_result(&self, n: Node<'t>, func: Node<'t>, ctx: &Ctx<'t>) -> Value<'t> {
        let callee = text(func, self.src()).to_ascii_lowercase();
        if ["redis", "client", "conn", "cluster"]
            .iter()
            .any(|w| callee.contains(w))
        {
            self.opaque(n, ctx)
        } else {
            Value::Foreign
        }
    }

    /// The instance class bound to `self` when calling method `id` of class `c`.
    fn bound_for(&self, id: FuncId, c: ClassId) -> Option<ClassId> {
        let f = &self.ix().funcs[id];
        if f.is_staticmethod() {
            None
        } else {
            Some(c)
        }
    }

    /// Whether `n` names a parameter declared as something that is no client: every
    /// name in its annotation is a builtin type or a class imported from a library
    /// other than redis's, not from the project (`r: Router | NinjaAPI` of
    /// django-ninja). Such a parameter is not a client whatever it is called.
    fn annotated_otherwise(&self, n: Node<'t>) -> bool {
        if n.kind_name() != "identifier" {
            return false;
        }
        let src = self.src();
        let Some(f) = self.ix.enclosing_func(n) else {
            return false;
        };
        let Some([d]) = self.ix.funcs[f].defs.get(text(n, src)).map(Vec::as_slice) else {
            return false;
        };
        let (DefKind::Param(_), Some(ann)) = (d.kind, d.annotation) else {
            return false;
        };
        self.names_other_types(text(ann, src), 0)
    }

    /// Whether every type a (parameter's) annotation names is neither a client
    /// nor a name that may be one: builtins, classes of other libraries, and type
    /// aliases of this module that name only such types (`Store = dict`).
    fn names_other_types(&self, ann: &str, depth: u8) -> bool {
        let mut names = ann
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|t| !t.is_empty() && !matches!(*t, "Optional" | "Union" | "None" | "typing"))
            .peekable();
        names.peek().is_some()
            && names.all(|t| {
                matches!(
                    t,
                    "str" | "bytes" | "int" | "float" | "bool" | "dict" | "list" | "tuple" | "set"
                ) || self.ix.imports.get(t).is_some_and(|p| {
                    let lower = p.to_ascii_lowercase();
                    // A library's class: a name of the project may be an alias of
                    // a client type (`ConnectionType = Redis | RedisCluster`).
                    ![
                        "redis",
                        "valkey",
                        "typing",
                        "collections",
                        "abc",
                        "builtins",
                    ]
                    .iter()
                    .any(|w| lower.contains(w))
                        && self.project.is_some_and(|s| s.locate(p).is_none())
                }) || (depth < 4 && self.alias_names_other_types(t, depth))
            })
    }

    /// Whether `name` is a type alias of this module (bound once, at module level,
    /// to a type expression) that names only types that are no clients.
    fn alias_names_other_types(&self, name: &str, depth: u8) -> bool {
        let Some([d]) = self.ix.module_defs.get(name).map(Vec::as_slice) else {
            return false;
        };
        match d.kind {
            DefKind::Expr(e) if is_type_expr(e) => {
                self.names_other_types(text(e, self.src()), depth + 1)
            }
            _ => false,
        }
    }

    /// Applies the receiver-name convention to an unknown receiver.
    pub(crate) fn as_receiver(&self, v: Value<'t>, n: Node<'t>) -> Value<'t> {
        match &v {
            Value::Opaque(_) | Value::Unknown
                if (self.is_receiver_name(n) || self.known_by_use(n))
                    && !self.annotated_otherwise(n) =>
            {
                Value::Client(ClientKind::Unknown)
            }
            // `redis = None` until a function assigns it under `global` (a
            // `configure(redis_instance)`): the client the file's uses show.
            Value::Null if self.set_in_functions(n) && self.known_by_use(n) => {
                Value::Client(ClientKind::Unknown)
            }
            // `util.redis`: another module's `redis = None`, which that module never
            // sets: a placeholder the application fills in from outside
            // (`util.redis = redis.Redis(…)`), named as clients are named.
            Value::Null if n.kind_name() == "attribute" && self.is_receiver_name(n) => {
                Value::Client(ClientKind::Unknown)
            }
            // `from app.extensions import redis`, `current_app.redis`: a name imported
            // from the application, not the redis library itself, nor a library named
            // like a client (`import django_redis`), named as clients are named or used
            // in this file as only a client is used (`from forums.extension import
            // redis_data`, then `redis_data.pipeline()` filled and executed).
            Value::Symbol(p)
                if !crate::byuse::client_or_lookalike(p)
                    && (self.is_receiver_name(n)
                        || (self.known_by_use(n)
                            && self.project.is_some_and(|s| {
                                matches!(s.lookup(p), Some(crate::project::Fact::ExtObject))
                            }))) =>
            {
                Value::Client(ClientKind::Unknown)
            }
            // Flask's per-request namespace, `g.db` set by the application (in
            // sci-jobserver, `g.db = conn()` in a `before_request` hook of another
            // module), when the file uses it as only a client is used
            // (`g.db.hgetall(…)`).
            Value::Symbol(p)
                if p.strip_prefix("flask.g.")
                    .is_some_and(|a| !a.is_empty() && !a.contains('.'))
                    && self.known_by_use(n) =>
            {
                Value::Client(ClientKind::Unknown)
            }
            _ => v,
        }
    }

    fn call_symbol(
        &mut self,
        path: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        if let Some(k) = constructor_kind(path) {
            // A client over a unix socket talks to one local server: never a cluster.
            if k == ClientKind::Standalone && self.over_unix_socket(args) {
                return Value::Foreign;
            }
            return Value::Client(k);
        }
        // django-redis's `get_redis_connection(alias)`: the raw redis-py client of a
        // cache (a `Redis` by default; a cluster client if the project configures
        // one), so its kind is left to the profile.
        // Also `cache.client.get_client(write=True)` of Django's default cache: only
        // a django-redis backend has that client, and it gives the same raw client.
        if matches!(
            path,
            "django_redis.get_redis_connection"
                | "django_redis.client.get_redis_connection"
                | "django.core.cache.cache.client.get_client"
        ) {
            return Value::Client(ClientKind::Unknown);
        }
        // `with redis.utils.pipeline(r) as p:`: redis-py's context manager around
        // `r.pipeline()`, executed when the block ends.
        if is_utils_pipeline(path) {
            if let Some(v) = self.utils_pipeline(args, n, ctx) {
                return v;
            }
        }
        // `Script(client, LUA)`, `AsyncScript(client, LUA)`: redis-py's script class
        // made directly, what `client.register_script(LUA)` makes.
        if is_script_class(path) {
            let pos = arg_nodes(self.ix.nav, args);
            let (nav, src) = (self.ix.nav, self.src());
            let client = pos
                .first()
                .copied()
                .or_else(|| keyword_value(nav, args, "registered_client", src));
            let body = pos
                .get(1)
                .copied()
                .or_else(|| keyword_value(nav, args, "script", src));
            if let (Some(c), Some(b)) = (client, body) {
                match self.eval(c, &ctx.deeper()) {
                    Value::Client(k) => return Value::Script(self.script_at(n, Some(b), k, ctx)),
                    // `Script(None, LUA)`: a script for whatever client each call
                    // passes (`S(keys=…, client=r)`); one called without a client
                    // fails before it sends anything.
                    Value::Null => {
                        return Value::Script(self.script_at(n, Some(b), ClientKind::Unknown, ctx))
                    }
                    _ => {}
                }
            }
            return self.opaque(n, ctx);
        }
        // `FlaskRedis()`, `LocalProxy(lambda: client)` (`proxies.rs`).
        if let Some(v) = self.proxy_client(path, args, n, ctx) {
            return v;
        }
        // Project analysis: a factory, key builder or class of another module.
        if let Some(v) = self.project_call(path, args, n, ctx) {
            return v;
        }
        // `Sentinel(…)` and the clients it hands out.
        if path.starts_with("redis.") && path.ends_with(".Sentinel") {
            return Value::Symbol(format!("{path}()"));
        }
        if path.starts_with("redis.")
            && path.contains("Sentinel()")
            && (path.ends_with(".master_for") || path.ends_with(".slave_for"))
        {
            return Value::Client(ClientKind::Unknown);
        }
        if let Some(v) = self.call_file_symbol(path, args, ctx) {
            return v;
        }
        match path {
            // `type(self)`: the object's class, as `cls` is in a class method (its
            // class or a subclass): `type(self).members_key()`.
            "builtins.type" => {
                let a = arg_nodes(self.ix.nav, args);
                if let [one] = a.as_slice() {
                    if let Value::SelfObj(c) = self.eval(*one, &ctx.deeper()) {
                        return Value::ClsObj(c);
                    }
                }
                return self.opaque(n, ctx);
            }
            // `dict((key, score) for x in xs)`: a mapping whose keys are the first
            // element of each pair, as `{key: score for x in xs}`.
            // `OrderedDict(…)` alike, also over a list comprehension of pairs.
            "builtins.dict" | "collections.OrderedDict" => {
                let pairs = args.and_then(|g| match g.kind_name() {
                    "generator_expression" => Some(g),
                    "argument_list" => {
                        let mut it = self
                            .ix
                            .nav
                            .named_children(g)
                            .filter(|c| c.kind_name() != "comment");
                        match (it.next(), it.next()) {
                            (Some(one), None)
                                if matches!(
                                    one.kind_name(),
                                    "list_comprehension" | "generator_expression"
                                ) =>
                            {
                                Some(one)
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                });
                if let Some(v) = pairs.and_then(|g| self.dict_of_pairs(g, ctx)) {
                    return v;
                }
                return self.opaque(n, ctx);
            }
            // `int(fid)` of a name the code does not show the value of
            // (`f"user:{int(fid)}:room"` in a loop over ids): a value of its own that
            // varies as `fid` does, one per pass of the loops `fid` varies with. Only
            // a name is read (other arguments stay unevaluated here, as before).
            "builtins.int" => {
                let a = arg_nodes(self.ix.nav, args);
                if let [x] = a.as_slice() {
                    if x.kind_name() == "identifier" {
                        match self.eval(*x, &ctx.deeper()) {
                            Value::Int(i) => return Value::Int(i),
                            Value::Opaque(h) if h.binding.contains("@each") => {
                                return Value::Opaque(HoleInfo {
                                    label: text(n, self.src()).to_string(),
                                    binding: format!("int({})", h.binding),
                                    span: Some(n.byte_range()),
                                    keylike: false,
                                });
                            }
                            _ => {}
                        }
                    }
                }
                return self.opaque(n, ctx);
            }
            // `str(x)`, and the text conversions of other libraries that give the
            // same bytes back (`ensure_bytes(key)` of kombu, `force_str` of Django):
            // the same key.
            "builtins.str"
            | "builtins.bytes"
            // python-future's and six's names for the same `str` on Python 3.
            | "future.builtins.str"
            | "six.text_type"
            | "kombu.utils.encoding.ensure_bytes"
            | "kombu.utils.encoding.str_to_bytes"
            | "kombu.utils.encoding.bytes_to_str"
            | "kombu.utils.encoding.safe_str"
            | "django.utils.encoding.force_bytes"
            | "django.utils.encoding.force_str"
            | "django.utils.encoding.force_text"
            | "django.utils.encoding.smart_bytes"
            | "django.utils.encoding.smart_str"
            | "django.utils.encoding.smart_text"
            | "six.ensure_str"
            | "six.ensure_binary"
            | "six.ensure_text" => {
                let a = arg_nodes(self.ix.nav, args);
                if a.len() == 1 {
                    let v = self.eval(a[0], &ctx.deeper());
                    return Value::Str(self.to_tpl(&v, a[0], ctx));
                }
                return self.opaque(n, ctx);
            }
            // `list(keys)`, `sorted(keys)`: the same keys (a comprehension's family
            // stays one).
            "builtins.list" | "builtins.tuple" | "builtins.sorted" | "builtins.set" => {
                let arg = match args {
                    Some(x) if x.kind_name() == "generator_expression" => Some(x),
                    Some(x) => match arg_nodes(self.ix.nav, args).as_slice() {
                        [a] if self.ix.nav.named_children(x).count() == 1 => Some(*a),
                        _ => None,
                    },
                    None => None,
                };
                if let Some(a) = arg {
                    let v = self.eval(a, &ctx.deeper());
                    match v {
                        Value::Seq { .. } => return v,
                        // `list(d)`: the dict's keys.
                        Value::Dict(items, _) => return crate::chunks::dict_keys(items),
                        _ => {}
                    }
                }
                return self.opaque(n, ctx);
            }
            // `chain.from_iterable([f"q:{n}:a", f"q:{n}:b"] for n in names)`: each
            // key of the inner list, one per pass (a family each, of unknown count);
            // `chain(a, b)`: the elements of both, as `[*a, *b]`.
            "itertools.chain.from_iterable" | "itertools.chain" => {
                let items = if path == "itertools.chain" {
                    let mut out = Vec::new();
                    for a in arg_nodes(self.ix.nav, args) {
                        match self.eval(a, &ctx.deeper()).splat() {
                            Ok(items) => out.extend(items),
                            Err(_) => return self.opaque(n, ctx),
                        }
                    }
                    Some(out)
                } else {
                    let arg = match args {
                        Some(g) if g.kind_name() == "generator_expression" => Some(g),
                        _ => match arg_nodes(self.ix.nav, args).as_slice() {
                            [a] => Some(*a),
                            _ => None,
                        },
                    };
                    arg.and_then(|a| match self.eval(a, &ctx.deeper()) {
                        Value::Seq {
                            items,
                            family: true,
                        } => match items.as_slice() {
                            [Elem {
                                value:
                                    Value::Seq {
                                        items: inner,
                                        family: false,
                                    },
                                each,
                                ..
                            }] if !each.is_empty() && inner.iter().all(|e| !e.star) => Some(
                                inner
                                    .iter()
                                    .map(|e| Elem {
                                        value: e.value.clone(),
                                        node: e.node,
                                        star: true,
                                        each: each.iter().chain(&e.each).copied().collect(),
                                    })
                                    .collect(),
                            ),
                            _ => None,
                        },
                        // A list of lists written out: their elements.
                        Value::Seq {
                            items,
                            family: false,
                        } => {
                            let mut out = Vec::new();
                            for e in items {
                                match (e.star, e.value.splat()) {
                                    (false, Ok(inner)) => out.extend(inner),
                                    _ => return None,
                                }
                            }
                            Some(out)
                        }
                        _ => None,
                    })
                };
                return match items {
                    Some(items) => Value::Seq {
                        items,
                        family: false,
                    },
                    None => self.opaque(n, ctx),
                };
            }
            // `map(builder, xs)`: the family of the keys the builder makes.
            "builtins.map" => {
                return match self.map_family(args, n, ctx) {
                    Some(v) => v,
                    None => self.opaque(n, ctx),
                };
            }
            // `iter(keys)`, `islice(keys, n)`, `islice(it, a, b)` over a family of keys:
            // members of that family.
            "builtins.iter" | "itertools.islice" => {
                let first = match args {
                    Some(g) if g.kind_name() == "generator_expression" => Some(g),
                    Some(a) => self
                        .ix
                        .nav
                        .named_children(a)
                        .find(|c| c.kind_name() != "comment")
                        .filter(|c| {
                            !matches!(
                                c.kind_name(),
                                "keyword_argument" | "list_splat" | "dictionary_splat"
                            )
                        }),
                    None => None,
                };
                // `islice(keys, 1)`: one key at most.
                let one = path == "itertools.islice"
                    && matches!(arg_nodes(self.ix.nav, args).as_slice(),
                        [_, stop] if text(*stop, self.src()).trim().parse::<u64>().is_ok_and(|s| s <= 1));
                if let Some(a) = first.filter(|_| !one) {
                    let v = self.eval(a, &ctx.deeper());
                    if v.is_batch() {
                        return v;
                    }
                }
                return self.opaque(n, ctx);
            }
            "typing.cast" | "typing_extensions.cast" => {
                let a = arg_nodes(self.ix.nav, args);
                if a.len() == 2 {
                    if let Some(v) = self.annotated_value(a[0]) {
                        return v;
                    }
                    return self.eval(a[1], &ctx.deeper());
                }
                return self.opaque(n, ctx);
            }
            _ => {}
        }
        // A call into another library: not a redis client, unless it says so.
        if path.to_ascii_lowercase().contains("redis") || path.starts_with("builtins.") {
            self.opaque(n, ctx)
        } else {
            Value::Foreign
        }
    }

    /// Calls that read files or build paths: `open(...)`, `pathlib.Path(...)`,
    /// `os.path.*`, package resources of this module's own package.
    fn call_file_symbol(
        &mut self,
        path: &str,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        match path {
            "builtins.open" | "io.open" | "codecs.open" => {
                let a = arg_nodes(self.ix.nav, args);
                if let Some(first) = a.first() {
                    if let Some(p) = self.path_of(*first, ctx) {
                        return Some(self.read_path(&p));
                    }
                }
                Some(Value::Foreign)
            }
            "pathlib.Path" | "pathlib.PurePath" | "pathlib.PosixPath" => {
                Some(self.join_paths(args, ctx, true))
            }
            "os.path.join" => Some(self.join_paths(args, ctx, false)),
            "pkgutil.get_data"
            | "importlib.resources.read_text"
            | "importlib.resources.read_binary"
            | "importlib_resources.read_text" => {
                // A resource of this module's own package.
                let a = arg_nodes(self.ix.nav, args);
                if a.len() == 2 && self.is_own_package(a[0]) {
                    if let Some(mut p) = self.path_of(a[1], ctx) {
                        if !p.from_module_dir {
                            p.from_module_dir = true;
                            return Some(self.read_path(&p));
                        }
                    }
                }
                Some(Value::Foreign)
            }
            "importlib.resources.files" | "importlib_resources.files" => {
                let a = arg_nodes(self.ix.nav, args);
                if a.len() == 1 && self.is_own_package(a[0]) {
                    return Some(Value::Path(PathValue {
                        from_module_dir: true,
                        parts: Vec::new(),
                        is_module_file: false,
                    }));
                }
                Some(Value::Foreign)
            }
            "os.path.dirname" => {
                let a = arg_nodes(self.ix.nav, args);
                if let Some(Value::Path(mut p)) = a.first().map(|x| self.eval(*x, &ctx.deeper())) {
                    if p.is_module_file {
                        p.is_module_file = false;
                    } else if p.parts.pop().is_none() {
                        p.parts.push("..".into());
                    }
                    return Some(Value::Path(p));
                }
                Some(Value::Foreign)
            }
            "os.path.abspath" | "os.path.realpath" | "os.fspath" => {
                let a = arg_nodes(self.ix.nav, args);
                if let Some(v @ Value::Path(_)) = a.first().map(|x| self.eval(*x, &ctx.deeper())) {
                    return Some(v);
                }
                Some(Value::Foreign)
            }
            _ => None,
        }
    }

    /// `__name__` or `__package__`: resources of this module's directory.
    fn is_own_package(&self, n: Node<'t>) -> bool {
        n.kind_name() == "identifier" && matches!(text(n, self.src()), "__name__" | "__package__")
    }

    /// A path argument: a string literal or a path value.
    /// `Path(a, b, …)` or `os.path.join(a, b, …)`: the arguments' paths joined, or a
    /// value known not to be a path if one is not. With `module_dir_restarts`, an
    /// argument rooted at the module's directory replaces what came before it.
    fn join_paths(
        &mut self,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
        module_dir_restarts: bool,
    ) -> Value<'t> {
        let mut out: Option<PathValue> = None;
        for x in arg_nodes(self.ix.nav, args) {
            let Some(p) = self.path_of(x, ctx) else {
                return Value::Foreign;
            };
            out = Some(match out {
                None => p,
                Some(_) if module_dir_restarts && p.from_module_dir => p,
                Some(mut acc) => {
                    acc.parts.extend(p.parts);
                    acc.is_module_file = false;
                    acc
                }
            });
        }
        out.map_or(Value::Foreign, Value::Path)
    }

    fn path_of(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<PathValue> {
        match self.eval(n, &ctx.deeper()) {
            Value::Path(p) => Some(p),
            Value::Str(t) => {
                let s = String::from_utf8(t.as_bytes()?).ok()?;
                Some(PathValue {
                    from_module_dir: false,
                    parts: s
                        .split('/')
                        .filter(|s| !s.is_empty() && *s != ".")
                        .map(str::to_string)
                        .collect(),
                    is_module_file: false,
                })
            }
            _ => None,
        }
    }

    /// The text of a file named by a path known at lint time.
    fn read_path(&mut self, p: &PathValue) -> Value<'t> {
        if p.is_module_file || p.parts.is_empty() {
            return Value::Foreign;
        }
        match self.load_file(p) {
            Some(text) => Value::FileText(Tpl::text(text.as_bytes())),
            None => Value::Foreign,
        }
    }

    /// `sep.join(parts)` over a list whose items are known one by one.
    fn str_join(
        &mut self,
        s: &Tpl,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        // `sep.join(x for x in xs)`: the generator is the argument list.
        let a = match args {
            Some(g) if g.kind_name() == "generator_expression" => vec![g],
            _ => arg_nodes(self.ix.nav, args),
        };
        if a.len() != 1 {
            return self.opaque(n, ctx);
        }
        // `":".join(str(a) for a in args)`: the join of the sequence itself, each
        // element as text.
        let (whole, as_text) = match self.text_of_each(a[0]) {
            Some(seq) => (seq, true),
            None => (a[0], false),
        };
        match self.eval(whole, &ctx.deeper()) {
            Value::Seq {
                items,
                family: false,
            } if items.iter().all(|e| !e.star && e.each.is_empty()) => {
                let mut out = Tpl::default();
                for (i, e) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(s.clone());
                    }
                    match &e.value {
                        Value::Str(t) => out.push(t.clone()),
                        Value::Opaque(h) => out.push(Tpl::hole(h.clone())),
                        // A value from another library (`os.environ.get(…)`):
                        // a string, or the join fails at run time.
                        v @ (Value::Foreign | Value::Unknown) => {
                            out.push(Tpl::hole(self.hole_of(v, e.node, ctx)));
                        }
                        Value::Int(i) if as_text => out.push(Tpl::text(i.to_string().as_bytes())),
                        // `join` needs strings: anything else fails at run time.
                        _ => return self.opaque(n, ctx),
                    }
                }
                Value::Str(out)
            }
            _ => self.opaque(n, ctx),
        }
    }

    /// The sequence that a generator or list comprehension turns element by element
    /// into text and nothing else: `str(a) for a in args`, `f"{a}" for a in args`,
    /// `a for a in args` (one clause, no `if`), `map(str, args)`.
    fn text_of_each(&self, g: Node<'t>) -> Option<Node<'t>> {
        let (nav, src) = (self.ix.nav, self.src());
        if g.kind_name() == "call" {
            // `map(str, args)`, with the builtins `map` and `str`.
            let is_map = g
                .field(Field::Function)
                .is_some_and(|f| f.kind_name() == "identifier" && text(f, src) == "map");
            let args = g.field(Field::Arguments)?;
            let all = nav
                .named_children(args)
                .filter(|c| c.kind_name() != "comment")
                .count();
            return match arg_nodes(nav, Some(args)).as_slice() {
                [f, seq]
                    if is_map
                        && all == 2
                        && f.kind_name() == "identifier"
                        && text(*f, src) == "str"
                        && seq.kind_name() != "list_splat"
                        && self.ix.str_is_builtin(src)
                        && !self.ix.module_defs.contains_key("map") =>
                {
                    Some(*seq)
                }
                _ => None,
            };
        }
        if !matches!(g.kind_name(), "generator_expression" | "list_comprehension") {
            return None;
        }
        let (body, clause) = nav.sole_for_clause(g)?;
        let var = clause
            .field(Field::Left)
            .filter(|l| l.kind_name() == "identifier")?;
        let var = text(var, src);
        let is_var = |x: Node<'t>| x.kind_name() == "identifier" && text(x, src) == var;
        let maps_to_text = match body.kind_name() {
            "identifier" => is_var(body),
            "call" => {
                body.field(Field::Function)
                    .is_some_and(|f| f.kind_name() == "identifier" && text(f, src) == "str")
                    && self.ix.str_is_builtin(src)
                    && matches!(arg_nodes(nav, body.field(Field::Arguments)).as_slice(), [x] if is_var(*x))
                    && nav
                        .named_children(body.field(Field::Arguments)?)
                        .filter(|c| c.kind_name() != "comment")
                        .count()
                        == 1
            }
            _ => text(body, src) == format!("f\"{{{var}}}\""),
        };
        maps_to_text.then(|| clause.field(Field::Right)).flatten()
    }

    fn str_method(
        &mut self,
        s: &Tpl,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Value<'t> {
        match m {
            "format" => {
                if let Some(v) = args.and_then(|a| self.format_options(s, a, n, ctx)) {
                    return v;
                }
                match args.and_then(|a| self.str_format(s, a, ctx)) {
                    Some(t) => Value::Str(t),
                    None => self.opaque(n, ctx),
                }
            }
            "join" if s.as_bytes().is_some() => self.str_join(s, args, n, ctx),
            // `self._namespace_deliminator.join(parts)` with a separator that a
            // constructor parameter gives, its default shown (`=':'`): the parts
            // with that one separator between them. A separator is no key: like an
            // id, it is taken to hold no brace.
            "join" => match s.parts.as_slice() {
                [crate::tpl::TPart::Hole(h)]
                    if crate::configured::default_of(&h.binding).is_some() =>
                {
                    let sep = Tpl::hole(HoleInfo {
                        keylike: false,
                        ..h.clone()
                    });
                    self.str_join(&sep, args, n, ctx)
                }
                _ => self.opaque(n, ctx),
            },
            "encode" | "decode" => {
                let a = arg_nodes(self.ix.nav, args);
                let norm = |t: &str| t.to_ascii_lowercase().replace(['-', '_', '"', '\''], "");
                // The codec named by a literal or by a module constant
                // (`ENCODING = "ascii"`).
                let codec = match a.first() {
                    None => Some("utf8".to_string()),
                    Some(x) if x.kind_name() == "identifier" => match self.eval(*x, ctx) {
                        Value::Str(t) => t.as_bytes().map(|b| norm(&String::from_utf8_lossy(&b))),
                        _ => None,
                    },
                    Some(x) => Some(norm(text(*x, self.src()))),
                };
                // ASCII text goes through an ASCII (or Latin-1) codec unchanged; any
                // error handler (`errors="xmlcharrefreplace"`) only rewrites other
                // characters, so braces, and with them hash tags, stay where they are.
                let ascii_text = s.parts.iter().all(|p| match p {
                    TPart::Lit { bytes, .. } => bytes.is_ascii(),
                    TPart::Hole(_) => true,
                });
                match codec.as_deref() {
                    Some("utf8") => Value::Str(s.clone()),
                    // Latin-1 maps ASCII to the same bytes (`s.encode("latin-1")` of a
                    // Python 2/3 compatibility helper).
                    Some(c) if ascii_text && keeps_ascii(c) => Value::Str(s.clone()),
                    // A codec the code does not show, named as one (`s.encode(ENCODING)`
                    // with `ENCODING` from another library): every codec maps distinct
                    // text to distinct bytes and ASCII text to bytes without braces of
                    // their own, so a key with a value in it keeps what a family's
                    // reading needs (its members differ, no tag is written); its exact
                    // bytes, and a literal key's slot, stay unknown.
                    None if ascii_text
                        && s.parts.iter().any(|p| matches!(p, TPart::Hole(_)))
                        && a.first().is_some_and(|x| names_an_encoding(*x, self.src())) =>
                    {
                        Value::Str(s.clone())
                    }
                    _ => self.opaque(n, ctx),
                }
            }
            // `criterion.replace(":", "#")` (`strreplace.rs`).
            "replace" => {
                let a = arg_nodes(self.ix.nav, args);
                let lit = |me: &mut Self, x: Node<'t>| match me.eval(x, &ctx.deeper()) {
                    Value::Str(t) => t.as_bytes(),
                    _ => None,
                };
                let r = match a.as_slice() {
                    [o, w]
                        if !matches!(o.kind_name(), "keyword_argument" | "list_splat")
                            && !matches!(w.kind_name(), "keyword_argument" | "list_splat") =>
                    {
                        lit(self, *o)
                            .zip(lit(self, *w))
                            .and_then(|(o, w)| crate::strreplace::accepted(&o, &w))
                            .and_then(|(o, w)| crate::strreplace::replace_tpl(s, o, &w))
                    }
                    _ => None,
                };
                match r {
                    Some(t) => Value::Str(t),
                    None => self.opaque(n, ctx),
                }
            }
            "lower" | "upper" => match s.as_bytes() {
                Some(b) if arg_nodes(self.ix.nav, args).is_empty() => {
                    Value::Str(Tpl::text(&if m == "lower" {
                        b.to_ascii_lowercase()
                    } else {
                        b.to_ascii_uppercase()
                    }))
                }
                _ => self.opaque(n, ctx),
            },
            _ => self.opaque(n, ctx),
        }
    }

    /// Evaluated arguments of a call: positional (with `*x` marked) and keyword.
    pub(crate) fn call_args(
        &mut self,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> (Vec<Elem<'t>>, Vec<(String, Elem<'t>)>) {
        let mut pos = Vec::new();
        let mut kw = Vec::new();
        let Some(args) = args else {
            return (pos, kw);
        };
        if args.kind_name() == "generator_expression" {
            // `f(x for x in xs)`: one argument, a generator.
            let value = self.eval(args, &ctx.deeper());
            pos.push(Elem {
                value,
                node: args,
                star: false,
                each: Vec::new(),
            });
            return (pos, kw);
        }
        let children: Vec<Node<'t>> = self.ix.nav.named_children(args).collect();
        let mut skip_next = false;
        for (i, &k) in children.iter().enumerate() {
            if std::mem::take(&mut skip_next) {
                continue;
            }
            // `len(keys), *keys`: a count of exactly the keys spread after it.
            if let Some(next) = children.get(i + 1) {
                if let Some((count, items)) = self.counted_splat(k, *next, ctx) {
                    pos.push(Elem {
                        value: count,
                        node: k,
                        star: false,
                        each: Vec::new(),
                    });
                    pos.extend(items);
                    skip_next = true;
                    continue;
                }
            }
            match k.kind_name() {
                "keyword_argument" => {
                    let (Some(name), Some(v)) = (k.field(Field::Name), k.field(Field::Value))
                    else {
                        continue;
                    };
                    let value = self.eval(v, &ctx.deeper());
                    kw.push((
                        text(name, self.src()).to_string(),
                        Elem {
                            value,
                            node: v,
                            star: false,
                            each: Vec::new(),
                        },
                    ));
                }
                "list_splat" => self.push_splat(k, ctx, &mut pos),
                "dictionary_splat" => kw.push((
                    "**".into(),
                    Elem {
                        value: Value::Unknown,
                        node: k,
                        star: true,
                        each: Vec::new(),
                    },
                )),
                "comment" => {}
                _ => {
                    let value = self.eval(k, &ctx.deeper());
                    pos.push(Elem {
                        value,
                        node: k,
                        star: false,
                        each: Vec::new(),
                    });
                }
            }
        }
        (pos, kw)
    }

    /// Follows a call into a small key-builder function of this file: its body is a
    /// docstring, simple assignments and one `return`. `None` when it is not one.
    pub(crate) fn call_builder(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        pos: Vec<Elem<'t>>,
        kw: Vec<(String, Elem<'t>)>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let transform = self.key_transform_of(id);
        let (rets, inner, open) =
            self.builder_returns_at(id, bound, pos, kw, ctx, transform.is_some())?;
        let name = self.ix().funcs[id].name.clone();
        let v = self.eval_returns(&name, rets, &inner)?;
        // A list the body may grow further: the members it surely holds, then an
        // unknown rest (as a local's list that grows under conditions).
        let v = match v {
            Value::Seq {
                mut items,
                family: false,
            } if open => {
                let node = items.last()?.node;
                items.push(Elem {
                    value: Value::Unknown,
                    node,
                    star: true,
                    each: Vec::new(),
                });
                Value::Seq {
                    items,
                    family: false,
                }
            }
            _ if open => return None,
            v => v,
        };
        let Some((w, local, expr)) = transform else {
            return Some(v);
        };
        // `@prefix_key`: the wrapper's expression of what the body returns, with its
        // receiver the method's.
        let self_name = self.ix().funcs[id].self_name()?.to_string();
        let recv = inner.env.as_ref()?.params.get(&self_name)?.clone();
        let wself = self.ix().funcs[w].params.first()?.name.clone();
        let tag = inner
            .env
            .as_ref()
            .map(|e| e.tag.clone())
            .unwrap_or_default();
        let mut params = HashMap::new();
        params.insert(wself, recv);
        params.insert(local, v);
        let c = Ctx {
            func: Some(w),
            env: Some(Rc::new(Env {
                func: w,
                params,
                tag,
            })),
            depth: ctx.depth + 1,
        };
        match self.eval(expr, &c) {
            v @ Value::Str(_) => Some(v),
            _ => None,
        }
    }

    /// The key-transforming decorator of method `id` ([`Index::key_transform`]), when
    /// it is its one decorator besides those that leave the value as it is.
    fn key_transform_of(&self, id: FuncId) -> Option<(FuncId, String, Node<'t>)> {
        let info = &self.ix().funcs[id];
        if info.decorators.is_empty() || plain_decorators(info) || info.self_name().is_none() {
            return None;
        }
        let def = self.ix.nav.parent(info.node)?;
        if def.kind_name() != "decorated_definition" {
            return None;
        }
        let mut found = None;
        for d in self
            .ix
            .nav
            .named_children(def)
            .filter(|c| c.kind_name() == "decorator")
        {
            match self.ix().key_transform(d) {
                Some(t) if found.is_none() => {
                    found = Some((t, crate::index::decorator_name(d, self.src())))
                }
                Some(_) => return None,
                None => {}
            }
        }
        let (t, name) = found?;
        info.decorators
            .iter()
            .all(|d| *d == name || plain_decorator(d))
            .then_some(t)
    }

    /// The value of each `return` of a key builder called with these arguments
    /// ([`Self::call_builder`] joins them), in the order of the returns.
    pub(crate) fn builder_arms(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        pos: Vec<Elem<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Vec<Value<'t>>> {
        let (rets, inner, open) =
            self.builder_returns_at(id, bound, pos, Vec::new(), ctx, false)?;
        if open {
            return None;
        }
        Some(rets.into_iter().map(|r| self.eval(r, &inner)).collect())
    }

    /// The `return` expressions of a key builder and the context that binds its
    /// parameters to a call's arguments (and reads its rebinding statements).
    fn builder_returns_at(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        pos: Vec<Elem<'t>>,
        kw: Vec<(String, Elem<'t>)>,
        ctx: &Ctx<'t>,
        transformed: bool,
    ) -> Option<(Vec<Node<'t>>, Ctx<'t>, bool)> {
        if ctx.depth > MAX_DEPTH / 2 {
            return None;
        }
        let info = self.ix().funcs[id].clone();
        // A key-transforming decorator is applied by the caller (`call_builder`).
        if !plain_decorators(&info) && !transformed {
            return None;
        }
        let (rets, rebinds, open) = match builder_body(self.ix.nav, self.src(), &info) {
            Some(b) => b,
            None => (
                crate::builders::memo_return(self.ix.nav, self.src(), &info)
                    .or_else(|| {
                        crate::memoglobal::memo_global_return(self.ix.nav, self.src(), &info)
                    })
                    .or_else(|| {
                        let chain = bound.or(info.class).map(|c| self.ix().class_chain(c))?;
                        crate::memoglobal::memo_attr_return(self.ix(), self.src(), &info, &chain)
                    })?,
                Vec::new(),
                false,
            ),
        };
        let mut inner = self.bind_call(id, bound, pos, kw, ctx)?;
        for stmt in rebinds {
            inner = if stmt.kind_name() == "for_statement" {
                self.map_loop_list(stmt, inner)?
            } else {
                self.rebind_param(stmt, inner)?
            };
        }
        let rets = self.live_returns(id, rets, &inner);
        if rets.is_empty() {
            return None;
        }
        Some((rets, inner, open))
    }

    /// The returns of builder `id` that a call with the arguments `inner` binds can
    /// reach: not those in an arm whose condition the arguments decide against
    /// (`if index_type == "tasks": return …` called with `"state"`), nor those after
    /// a guard they decide for (`if parts: return f"{base}:{…}"` / `return base`,
    /// called with parts). Every return stays when nothing is decided.
    fn live_returns(&mut self, id: FuncId, rets: Vec<Node<'t>>, inner: &Ctx<'t>) -> Vec<Node<'t>> {
        if rets.len() < 2 || inner.func != Some(id) {
            return rets;
        }
        let nav = self.ix.nav;
        let body = self.ix().funcs[id].body;
        // The first guard of the body that the arguments take, whose arm ends the call.
        let mut end = usize::MAX;
        for s in nav.named_children(body) {
            if s.kind_name() != "if_statement"
                || nav
                    .named_children(s)
                    .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
            {
                continue;
            }
            let ends = s
                .field(Field::Consequence)
                .and_then(|b| {
                    nav.named_children(b)
                        .filter(|x| x.kind_name() != "comment")
                        .last()
                })
                .is_some_and(|x| matches!(x.kind_name(), "return_statement" | "raise_statement"));
            if ends && s.field(Field::Condition).and_then(|c| self.truth(c, inner)) == Some(true) {
                end = s.end_byte();
                break;
            }
        }
        let mut live = Vec::with_capacity(rets.len());
        for r in rets {
            if r.start_byte() < end && !self.dead_in(r, inner) {
                live.push(r);
            }
        }
        live
    }

    /// The context that binds the parameters of function `id` to a call's arguments
    /// (`bound`: the class of the receiver of a method called on an object).
    pub(crate) fn bind_call(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        pos: Vec<Elem<'t>>,
        kw: Vec<(String, Elem<'t>)>,
        ctx: &Ctx<'t>,
    ) -> Option<Ctx<'t>> {
        if ctx.depth > MAX_DEPTH / 2 {
            return None;
        }
        let info = self.ix().funcs[id].clone();
        if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
            return None;
        }
        let mut params: HashMap<String, Value<'t>> = HashMap::new();
        let mut plist = info.params.iter();
        // The receiver: `self`, or `cls` of a classmethod.
        let receiver = match bound {
            Some(c) if info.is_classmethod() => Some(Value::ClsObj(c)),
            Some(c) => Some(Value::SelfObj(c)),
            None if info.is_classmethod() => info.class.map(Value::ClsObj),
            None => None,
        };
        if bound.is_some() || info.is_classmethod() {
            if let (Some(p), Some(v)) = (plist.next(), receiver) {
                params.insert(p.name.clone(), v);
            }
        }
        let rest: Vec<_> = plist.collect();
        let mut tag = Vec::new();
        // `*parts`: the positional arguments from its place on, as a list.
        let mut rest_pos: Option<usize> = None;
        for (i, p) in rest.iter().enumerate() {
            if p.star {
                let nav = self.ix.nav;
                let kind = nav.parent(p.node).map(|x| x.kind_name());
                let is_list = kind == Some("list_splat_pattern");
                // `**kwargs`: the keywords the call passes that the function does
                // not name (an empty dict when there are none).
                if kind == Some("dictionary_splat_pattern") {
                    let named = |k: &str| rest.iter().any(|q| !q.star && q.name == k);
                    let extra: Vec<(String, Elem<'t>)> =
                        kw.iter().filter(|(k, _)| !named(k)).cloned().collect();
                    let v = if extra.is_empty() {
                        Value::Dict(Vec::new(), None)
                    } else {
                        Value::Kwargs(extra)
                    };
                    tag.push(fingerprint(&v));
                    params.insert(p.name.clone(), v);
                    continue;
                }
                if !is_list || rest_pos.is_some() {
                    return None;
                }
                let items: Vec<Elem<'t>> = pos.get(i..).unwrap_or_default().to_vec();
                let v = Value::Seq {
                    items,
                    family: false,
                };
                tag.push(fingerprint(&v));
                params.insert(p.name.clone(), v);
                rest_pos = Some(i);
                continue;
            }
            // After `*parts`, parameters are keyword-only.
            let at = if rest_pos.is_some() { usize::MAX } else { i };
            let v = pos.get(at).map(|e| e.value.clone()).or_else(|| {
                kw.iter()
                    .find(|(k, _)| k == &p.name)
                    .map(|(_, e)| e.value.clone())
            });
            let v = match v {
                Some(v) => v,
                None => match p.default {
                    Some(d) => {
                        let dctx = Ctx {
                            func: info.parent,
                            env: None,
                            depth: ctx.depth + 1,
                        };
                        self.eval(d, &dctx)
                    }
                    None => return None,
                },
            };
            tag.push(fingerprint(&v));
            params.insert(p.name.clone(), v);
        }
        // Positional arguments beyond the named parameters (a `**kwargs` takes none).
        let positional = rest
            .iter()
            .filter(|p| {
                !p.star
                    || self
                        .ix
                        .nav
                        .parent(p.node)
                        .is_some_and(|x| x.kind_name() == "list_splat_pattern")
            })
            .count();
        if rest_pos.is_none() && pos.len() > positional {
            return None;
        }
        let env = Rc::new(Env {
            func: id,
            params,
            tag: format!("{}({})", info.name, tag.join(",")),
        });
        Some(Ctx {
            func: Some(id),
            env: Some(env),
            depth: ctx.depth + 2,
        })
    }

    /// After `parts = []` and a map loop of a followed builder
    /// ([`crate::maploop`]): `parts` is each element of the parameter the loop
    /// walks passed through the loop's steps, the elements known to be `None` left
    /// out when the loop skips them.
    fn map_loop_list(&mut self, stmt: Node<'t>, inner: Ctx<'t>) -> Option<Ctx<'t>> {
        let nav = self.ix.nav;
        let info = self.ix.funcs[inner.func?].clone();
        let m = crate::maploop::loop_at(nav, self.src(), &info, stmt)?;
        let env = inner.env.clone()?;
        let Some(Value::Seq {
            items,
            family: false,
        }) = env.params.get(m.over).cloned()
        else {
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            if item.star {
                return None;
            }
            if m.skips_none && matches!(item.value, Value::Null) {
                continue;
            }
            let mut cur = item.value.clone();
            for e in m.steps.iter().copied().chain(std::iter::once(m.push)) {
                let mut params = env.params.clone();
                params.insert(m.var.to_string(), cur);
                let ctx = Ctx {
                    func: inner.func,
                    env: Some(Rc::new(Env {
                        func: env.func,
                        params,
                        tag: env.tag.clone(),
                    })),
                    depth: inner.depth + 1,
                };
                cur = self.eval(e, &ctx);
            }
            out.push(Elem { value: cur, ..item });
        }
        let mut params = env.params.clone();
        params.insert(
            m.acc.to_string(),
            Value::Seq {
                items: out,
                family: false,
            },
        );
        Some(Ctx {
            func: inner.func,
            env: Some(Rc::new(Env {
                func: env.func,
                params,
                tag: env.tag.clone(),
            })),
            depth: inner.depth,
        })
    }

    /// After `if cond: p = e` of a followed builder (see [`builder_body`]): the
    /// parameter `p` is `e` when the condition holds, itself when it does not, and
    /// one of the two ([`Self::one_of`]) when the condition cannot be decided; `None`
    /// when they cannot be joined. With `elif`/`else` arms that each assign `p`, it is
    /// the value of the arm the conditions pick, or one of the arms' values (and of
    /// its own when no `else` closes them) when they cannot be decided.
    fn rebind_param(&mut self, stmt: Node<'t>, inner: Ctx<'t>) -> Option<Ctx<'t>> {
        let nav = self.ix.nav;
        let info = self.ix.funcs[inner.func?].clone();
        let (name, arms) = crate::condprefix::param_arms(nav, self.src(), &info, stmt)?;
        let env = inner.env.clone()?;
        let before = env.params.get(name)?.clone();
        // The values the arms that may run give, in order, until one that surely runs
        // if reached (an `else`, or a condition known true).
        let mut candidates: Vec<Value<'t>> = Vec::new();
        let mut falls_through = true;
        for (cond, right) in arms {
            let known = match cond {
                None => Some(true),
                Some(cond) => self
                    .param_truth(cond, &env)
                    .or_else(|| self.truth(cond, &inner)),
            };
            if known == Some(false) {
                continue;
            }
            // `if isinstance(key, str): key = key.encode("utf8")` in a builder
            // summarised for other modules: the same bytes as the parameter.
            let summarised = matches!(&before, Value::Opaque(h) if h.binding.starts_with("\u{1}p"));
            if summarised && crate::passthru::is_item_as_text(right, self.src(), name) {
                candidates.push(before.clone());
            } else {
                candidates.push(self.eval(right, &inner.deeper()));
            }
            if known == Some(true) {
                falls_through = false;
                break;
            }
        }
        if falls_through {
            candidates.push(before.clone());
        }
        // `if week is None: week = current_week()`: a value not known here is a value
        // of its own, named as the parameter and distinct for each argument and each
        // rebinding statement. When every arm is such a value or the argument, the
        // parameter is one value or another, each whole: one value, an id unless a
        // name says key (not a join of shapes, which may hold a prefix and its tag).
        let distinct = {
            let mut fs: Vec<String> = candidates.iter().map(fingerprint).collect();
            fs.sort();
            fs.dedup();
            fs.len()
        };
        if (distinct > 1
            || candidates
                .iter()
                .any(|v| matches!(v, Value::Unknown | Value::Foreign)))
            && candidates.iter().all(|v| match v {
                Value::Unknown | Value::Foreign => true,
                // A member of a family stays in the join, which keeps it one.
                Value::Opaque(h) => !h.binding.contains("@each"),
                _ => false,
            })
        {
            let of = match &before {
                Value::Opaque(h) => h.binding.as_str(),
                _ => "",
            };
            let keylike = is_keylike_label(name)
                || candidates
                    .iter()
                    .any(|v| matches!(v, Value::Opaque(h) if h.keylike));
            candidates = vec![Value::Opaque(HoleInfo {
                label: name.to_string(),
                binding: format!("{name}:rebound@{}[{of}]", stmt.start_byte()),
                span: None,
                keylike,
            })];
        }
        let mut seen = Vec::new();
        candidates.retain(|v| {
            let f = fingerprint(v);
            let new = !seen.contains(&f);
            seen.push(f);
            new
        });
        let after = match candidates.len() {
            0 => before,
            1 => candidates.pop()?,
            _ => self.one_of(name, candidates)?,
        };
        let mut params = env.params.clone();
        params.insert(name.to_string(), after);
        Some(Ctx {
            func: inner.func,
            env: Some(Rc::new(Env {
                func: env.func,
                params,
                tag: env.tag.clone(),
            })),
            depth: inner.depth,
        })
    }

    /// `if namespace:` of a string the call passes: a string with text is true, an
    /// empty one false (`None` is decided by [`Self::truth`]).
    fn param_truth(&self, cond: Node<'t>, env: &Env<'t>) -> Option<bool> {
        if cond.kind_name() != "identifier" {
            return None;
        }
        match env.params.get(text(cond, self.src())) {
            Some(Value::Str(t)) => {
                let lit = |p: &TPart| matches!(p, TPart::Lit { bytes, .. } if !bytes.is_empty());
                if t.parts.iter().any(lit) {
                    Some(true)
                } else {
                    t.as_bytes().map(|b| !b.is_empty())
                }
            }
            _ => None,
        }
    }

    /// The value of a builder's returns: the one return's value, or the shapes of
    /// several joined into one template.
    fn eval_returns(
        &mut self,
        name: &str,
        rets: Vec<Node<'t>>,
        inner: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if let [ret] = rets.as_slice() {
            return Some(self.eval(*ret, inner));
        }
        let values = rets.into_iter().map(|r| self.eval(r, inner)).collect();
        self.one_of(name, values)
    }

    /// The value of `name` at `at` when its reaching definitions are one plain
    /// assignment in each arm of an `if`/`elif`/`else` ([`Self::if_arm_values`]) and
    /// every arm assigns a string: one of those strings ([`Self::one_of`]). `None`
    /// for any other shape or value, and when a condition decides the arm.
    fn arms_one_of(
        &mut self,
        name: &str,
        defs: &[Def<'t>],
        use_node: Node<'t>,
        at: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let arms = self.if_arm_values(defs, use_node, at)?;
        if arms.len() < 2 {
            return None;
        }
        let mut values = Vec::with_capacity(arms.len());
        for (_, e) in arms {
            match self.eval(e, &ctx.deeper()) {
                v @ Value::Str(_) => values.push(v),
                _ => return None,
            }
        }
        self.one_of(name, values)
    }

    /// One of several string values, whichever a run takes: their common beginning
    /// and one opaque part for the ends ([`join_shapes`]), the ends kept as the key
    /// options of that part. `None` unless every value is a string (or a whole
    /// opaque value, or a number) and the ends can be joined.
    pub(crate) fn one_of(&mut self, name: &str, values: Vec<Value<'t>>) -> Option<Value<'t>> {
        let mut shapes = Vec::with_capacity(values.len());
        for v in values {
            match v {
                Value::Str(t) => shapes.push(t),
                // `return queue`: the caller's value, whole.
                Value::Opaque(h) => shapes.push(Tpl::hole(h)),
                Value::Int(i) => shapes.push(Tpl::text(i.to_string().as_bytes())),
                _ => return None,
            }
        }
        let (joined, ends) = join_shapes(name, shapes, self.summarising)?;
        if let Some(TPart::Hole(h)) = joined.parts.last() {
            self.choices.record(&h.binding, ends);
        }
        Some(Value::Str(joined))
    }
}

/// Whether `path` names redis-py's `pipeline` context manager (`redis.utils`, or its
/// asyncio twin).
fn is_utils_pipeline(path: &str) -> bool {
    matches!(
        path,
        "redis.utils.pipeline" | "redis.asyncio.utils.pipeline"
    )
}

/// Whether a function's decorators leave its body's value as the call's value.
pub(crate) fn plain_decorators(info: &crate::index::FuncInfo<'_>) -> bool {
    info.decorators.iter().all(|d| plain_decorator(d))
}

/// Whether a decorator leaves the function's body's value as the call's value.
fn plain_decorator(d: &str) -> bool {
    matches!(
        d,
        "property" | "cached_property" | "staticmethod" | "classmethod" | "lru_cache" | "cache"
    )
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `with redis.utils.pipeline(r) as p:` (and `async with
    /// redis.asyncio.utils.pipeline(r) as p:`), the call `n`: redis-py's context
    /// manager that makes `r.pipeline()` (with the client's default transaction mode),
    /// hands it to the block and executes it when the block ends. Only as the value of
    /// a `with` item, on one positional argument that is a client or a value the code
    /// does not show; `None` otherwise.
    fn utils_pipeline(
        &mut self,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        self.with_item_statement(n)?;
        let k = self.sole_handed_client(args, ctx)?;
        self.cm_pipeline(k, n, ctx)
    }

    /// The argument list `args` of `redis.utils.pipeline(…)` when it is one
    /// positional argument: the kind of client it hands over ([`Self::handed_client`]).
    fn sole_handed_client(&mut self, args: Option<Node<'t>>, ctx: &Ctx<'t>) -> Option<ClientKind> {
        let all = arg_nodes(self.ix.nav, args);
        let [arg] = all.as_slice() else {
            return None;
        };
        if matches!(
            arg.kind_name(),
            "keyword_argument" | "list_splat" | "dictionary_splat"
        ) {
            return None;
        }
        self.handed_client(*arg, ctx)
    }

    /// What `redis.utils.pipeline(arg)` is handed, as a client's kind: it calls its
    /// `pipeline()`, so a value the code does not show is a client of the kind the
    /// profile gives, and so is a `None` the code shows (a class attribute `redis =
    /// None` that an `init()` sets: only a set value can reach a call that works);
    /// anything else known is not read (`None`).
    fn handed_client(&mut self, arg: Node<'t>, ctx: &Ctx<'t>) -> Option<ClientKind> {
        match self.eval(arg, &ctx.deeper()) {
            Value::Client(k) => Some(k),
            Value::Opaque(_) | Value::Null => Some(ClientKind::Unknown),
            _ => None,
        }
    }

    /// The `with` statement whose item's value is the call `n`.
    pub(crate) fn with_item_statement(&self, n: Node<'t>) -> Option<Node<'t>> {
        let nav = self.ix.nav;
        let mut cur = nav.parent(n);
        for _ in 0..4 {
            let p = cur?;
            if p.kind_name() == "with_statement" {
                return Some(p);
            }
            if !matches!(p.kind_name(), "as_pattern" | "with_item" | "with_clause") {
                return None;
            }
            cur = nav.parent(p);
        }
        None
    }

    /// The pipeline of a client of kind `k` that the `with` item `n` (a call of
    /// `redis.utils.pipeline`, or of a function that returns one) hands to its block
    /// and executes when the block ends.
    pub(crate) fn cm_pipeline(
        &mut self,
        k: ClientKind,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let stmt = self.with_item_statement(n)?;
        let func = n.field(Field::Function)?;
        let attr = match func.kind_name() {
            "attribute" => func.field(Field::Attribute)?,
            _ => func,
        };
        let v = self.client_method(k, "pipeline", attr, None, n, ctx);
        let Value::Pipe(q) = v else {
            return None;
        };
        let p = &mut self.pipes[q];
        p.transaction_call = Some(stmt.byte_range());
        p.at_block_end = true;
        p.anchor = Some(attr.byte_range());
        Some(v)
    }

    /// The pipeline a call of a pipeline factory of another module gives: a new one,
    /// of the factory's client, a transaction as the call or the factory says.
    pub(crate) fn factory_pipeline(
        &mut self,
        written: ClientKind,
        tx: &crate::project::PipeTx,
        args: Option<Node<'t>>,
        n: Node<'t>,
    ) -> Value<'t> {
        use crate::project::PipeTx;
        let k = self.effective(written);
        let src = self.src();
        let literal = bool_literal;
        // `Some(Some(b))`: a literal; `Some(None)`: something else is passed.
        let passed = |idx: usize, name: &str| -> Option<Option<bool>> {
            let items: Vec<Node<'t>> = args
                .map(|a| {
                    self.ix
                        .nav
                        .named_children(a)
                        .filter(|c| c.kind_name() != "comment")
                        .collect()
                })
                .unwrap_or_default();
            if items
                .iter()
                .any(|c| matches!(c.kind_name(), "list_splat" | "dictionary_splat"))
            {
                return Some(None);
            }
            for c in &items {
                if c.kind_name() == "keyword_argument"
                    && c.field(Field::Name).is_some_and(|x| text(x, src) == name)
                {
                    return Some(c.field(Field::Value).and_then(literal));
                }
            }
            items
                .iter()
                .filter(|c| c.kind_name() != "keyword_argument")
                .nth(idx)
                .map(|c| literal(*c))
        };
        let chosen = match tx {
            PipeTx::Default => None,
            PipeTx::Fixed(b) => Some(Some(*b)),
            PipeTx::Param(idx, name, default) => match passed(*idx, name) {
                Some(v) => Some(v),
                None => default.map(Some),
            },
        };
        let (t, origin) = match chosen {
            Some(Some(true)) => (Tx::Yes, TxOrigin::Written),
            Some(Some(false)) => (Tx::No, TxOrigin::Written),
            Some(None) => (Tx::Unknown, TxOrigin::Written),
            // The client's default; when the factory's client is of a kind the code
            // does not show, the profile's choice, as for `pipeline()` written on it.
            None => match (k, written) {
                (ClientKind::Standalone, ClientKind::Unknown) => {
                    (Tx::Yes, TxOrigin::ProfileDefault)
                }
                (ClientKind::Cluster, ClientKind::Unknown) => (Tx::No, TxOrigin::ProfileDefault),
                (ClientKind::Standalone, _) => (Tx::Yes, TxOrigin::ClientDefault),
                (ClientKind::Cluster, _) => (Tx::No, TxOrigin::ClientDefault),
                (ClientKind::Unknown, _) => (Tx::Unknown, TxOrigin::ProfileDefault),
            },
        };
        let anchor = n
            .field(Field::Function)
            .map(|f| f.field(Field::Attribute).unwrap_or(f).byte_range());
        let id = self.pipe_for(n, k, t, anchor);
        self.pipes[id].origin = origin;
        self.pipes[id].kind_by_profile = written == ClientKind::Unknown;
        Value::Pipe(id)
    }

    /// A function whose body is only `return redis.utils.pipeline(x)` (a docstring
    /// aside, `redis.asyncio.utils.pipeline` too), with no decorator but
    /// `staticmethod`/`classmethod`: the kind of client `x` is.
    pub(crate) fn returns_utils_pipeline(&mut self, f: FuncId) -> Option<ClientKind> {
        let info = self.ix.funcs[f].clone();
        if info.is_lambda || !info.plainly_called() {
            return None;
        }
        let [ret] = self.ix.nav.statements(info.body)[..] else {
            return None;
        };
        if ret.kind_name() != "return_statement" {
            return None;
        }
        let call = ret.named_child(0).filter(|c| c.kind_name() == "call")?;
        let ctx = Ctx::at(Some(f));
        let func = call.field(Field::Function)?;
        match self.eval(func, &ctx) {
            Value::Symbol(p) if is_utils_pipeline(&p) => {}
            _ => return None,
        }
        self.sole_handed_client(call.field(Field::Arguments), &ctx)
    }

    /// A `@contextmanager` or `@asynccontextmanager` generator that makes one
    /// pipeline of a client (`with self._redis.pipeline() as pipe:` or `pipe =
    /// client.pipeline()`, with no argument or `transaction=True`), yields it once
    /// and executes it itself (`pipe.execute()` after the `yield` or in a `finally`):
    /// the kind of that client. Entering it hands the block a transaction of that
    /// client, executed when the block ends, as `redis.utils.pipeline` does; a class
    /// of another module that inherits it knows it from the base's facts.
    pub(crate) fn yields_own_pipeline(&mut self, f: FuncId) -> Option<ClientKind> {
        let info = self.ix.funcs[f].clone();
        if info.is_lambda || !is_context_manager(&info) {
            return None;
        }
        let nav = self.ix.nav;
        let src = self.src();
        let mut yielded: Vec<Node<'t>> = Vec::new();
        let mut executed: Vec<&str> = Vec::new();
        let mut stack = vec![info.body];
        while let Some(x) = stack.pop() {
            match x.kind_name() {
                "function_definition" | "lambda" | "class_definition" => continue,
                "yield" => yielded.push(x),
                "call" => {
                    if let Some(func) = x.field(Field::Function) {
                        if func.kind_name() == "attribute"
                            && func
                                .field(Field::Attribute)
                                .is_some_and(|a| text(a, src) == "execute")
                        {
                            if let Some(o) = func.field(Field::Object) {
                                executed.push(text(o, src));
                            }
                        }
                    }
                }
                _ => {}
            }
            stack.extend(nav.named_children(x));
        }
        let [y] = yielded[..] else { return None };
        let name = y.named_child(0).filter(|v| v.kind_name() == "identifier")?;
        let name = text(name, src);
        if !executed.contains(&name) {
            return None;
        }
        let [def] = info.defs.get(name)?[..] else {
            return None;
        };
        let made = match def.kind {
            DefKind::Expr(e) | DefKind::WithAs(e) => e,
            _ => return None,
        };
        let made = crate::syntax::unawaited(made)?;
        let func = made.field(Field::Function)?;
        if made.kind_name() != "call"
            || func.kind_name() != "attribute"
            || text(func.field(Field::Attribute)?, src) != "pipeline"
        {
            return None;
        }
        // No argument, or `transaction=True`.
        let args: String = made
            .field(Field::Arguments)
            .map(|a| text(a, src))
            .unwrap_or("()")
            .split_whitespace()
            .collect();
        if !matches!(args.as_str(), "()" | "(transaction=True)" | "(True)") {
            return None;
        }
        let recv = func.field(Field::Object)?;
        match self.eval(recv, &Ctx::at(Some(f))) {
            Value::Client(k) => Some(k),
            _ => None,
        }
    }

    /// `with f(…) as x` / `async with`: what a `@contextmanager` (or
    /// `@asynccontextmanager`) generator of this file yields, or what `__enter__` of a
    /// class of this file returns, when that is a client or a pipeline.
    fn entered_value(&mut self, e: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        if e.kind_name() != "call" || ctx.depth > MAX_DEPTH / 2 {
            return None;
        }
        let func = e.field(Field::Function)?;
        let args = e.field(Field::Arguments);
        match self.eval(func, &ctx.deeper()) {
            Value::Func { id, bound } => {
                let info = self.ix().funcs[id].clone();
                if !is_context_manager(&info) {
                    // `def pipeline_context(): return redis.utils.pipeline(client)`.
                    let k = self.returns_utils_pipeline(id)?;
                    return self.cm_pipeline(k, e, ctx);
                }
                let (pos, kw) = self.call_args(args, ctx);
                let Some(v) = self.yielded(id, bound, pos.clone(), kw.clone(), e, ctx) else {
                    // What it yields is not followed: its declared type
                    // (`-> Iterator[Pipeline]`), if any.
                    let ret = info.node.field(Field::ReturnType)?;
                    return match self.annotation(ret)? {
                        AnnotatedAs::Client(k) => Some(Value::Client(k)),
                        AnnotatedAs::Pipeline(k) => {
                            let k = self.effective(k);
                            Some(Value::Pipe(self.pipe_for(e, k, Tx::Unknown, None)))
                        }
                    };
                };
                let v = self.pipe_at_site(v, id, e);
                self.executed_on_exit(&v, id, e, (&pos, &kw));
                Some(v)
            }
            Value::Class(c) => {
                let enter = self
                    .defines(c, "__enter__")
                    .or_else(|| self.defines(c, "__aenter__"))?;
                match self.call_builder(enter, Some(c), Vec::new(), Vec::new(), ctx)? {
                    v @ Value::Client(_) => Some(v),
                    v @ Value::Pipe(_) => {
                        let v = self.pipe_at_site(v, enter, e);
                        Some(self.object_pipe_at_site(v, c, enter, e))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A module global that a function of this file assigns after declaring it
    /// `global` (`def configure(url): global client; client = Redis.from_url(url)`):
    /// the client every assignment makes, `None` aside (the project analysis's rule).
    fn configured_global(&mut self, name: &str) -> Option<Value<'t>> {
        if !self.ix().rebound_in_function(name) {
            return None;
        }
        let guard = (3u8, 0, fxhash(name));
        if !self.in_progress.insert(guard) {
            return None;
        }
        let fact = crate::project::global_fact(self, name, "");
        let v = match fact {
            Some(crate::project::Fact::Client(k)) => Some(Value::Client(k)),
            _ => self.global_pipe(name).or_else(|| self.global_script(name)),
        };
        self.in_progress.remove(&guard);
        v
    }

    /// `p = None` at module level and `global p; p = r.pipeline()` in one function
    /// (a script's `main()`), never assigned anything else: every function that
    /// queues commands on `p` queues them on that one pipeline. What a function
    /// queues between two of its own `execute()` calls is one batch, whatever was
    /// queued before it ran.
    fn global_pipe(&mut self, name: &str) -> Option<Value<'t>> {
        let (f, e) = self.set_once_global(name)?;
        if e.kind_name() != "call" {
            return None;
        }
        let v = self.eval(e, &Ctx::at(Some(f)));
        self.made_pipe(&v).then_some(v)
    }

    /// `_reserve = None` at module level and `global _reserve; _reserve = await
    /// register_lua_script(redis, "reserve")` in one function (an `init_scripts` run at
    /// startup), never assigned anything else: the script that assignment registers.
    fn global_script(&mut self, name: &str) -> Option<Value<'t>> {
        let (f, e) = self.set_once_global(name)?;
        match self.eval(e, &Ctx::at(Some(f))) {
            v @ Value::Script(_) => Some(v),
            _ => None,
        }
    }

    /// A module global bound to `None` alone at module level and assigned once, by a
    /// function that declares it `global`: that function and the value it assigns.
    fn set_once_global(&self, name: &str) -> Option<(FuncId, Node<'t>)> {
        let module = self.ix.module_defs.get(name)?;
        if !module
            .iter()
            .all(|d| matches!(d.kind, DefKind::Expr(e) if e.kind_name() == "none"))
        {
            return None;
        }
        let mut found = None;
        for (f, info) in self.ix.funcs.iter().enumerate() {
            if !info.nonlocal.iter().any(|x| x == name) {
                continue;
            }
            for d in info.defs.get(name).into_iter().flatten() {
                let DefKind::Expr(e) = d.kind else {
                    return None;
                };
                if found.is_some() {
                    return None;
                }
                found = Some((f, e));
            }
        }
        found
    }

    /// `self.queue.connection` where every assignment of `self.queue` constructs one
    /// class of this file (`self.queue = Queue(…)`): its attribute, when that is a
    /// client or a pipeline (a constructor parameter that every call site passes a
    /// client to, or one made in `__init__`).
    fn member_client(
        &mut self,
        obj: Node<'t>,
        attr: &str,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if obj.kind_name() != "attribute" || ctx.depth > MAX_DEPTH / 2 {
            return None;
        }
        let owner = obj.field(Field::Object)?;
        let member = text(obj.field(Field::Attribute)?, self.src());
        let Value::SelfObj(c) = self.eval(owner, &ctx.deeper()) else {
            return None;
        };
        let chain = self.ix().class_chain(c);
        let assigns = chain
            .iter()
            .find_map(|&k| self.ix().classes[k].self_assigns.get(member).cloned())?;
        let mut class = None;
        for a in &assigns {
            let call = a.value?;
            // `self.store: RedisStore[DS, SE] = store`, or a parameter annotated with
            // a class of this file: an instance of that class.
            if call.kind_name() == "identifier" {
                let k = self.assigned_param_class(a, call)?;
                if class.is_some_and(|p| p != k) {
                    return None;
                }
                class = Some(k);
                continue;
            }
            if call.kind_name() != "call" {
                return None;
            }
            let actx = Ctx {
                func: Some(a.func),
                env: None,
                depth: ctx.depth + 1,
            };
            match self.eval(call.field(Field::Function)?, &actx) {
                Value::Class(k) if class.is_none_or(|p| p == k) => class = Some(k),
                _ => return None,
            }
        }
        let k = class?;
        if self.client_class(k).is_some() {
            return None;
        }
        match self.instance_attr(k, attr, n, ctx, true) {
            v @ (Value::Client(_) | Value::Pipe(_)) => Some(v),
            _ => None,
        }
    }

    /// The class of the instance `self.attr = name` stores (`a`, with `value` its
    /// `name`), when `name` is a parameter of the method never bound again and the
    /// assignment or the parameter is annotated with a class of this file.
    fn assigned_param_class(
        &self,
        a: &crate::index::SelfAssign<'t>,
        value: Node<'t>,
    ) -> Option<ClassId> {
        let name = text(value, self.src());
        let info = &self.ix().funcs[a.func];
        let param = info.params.iter().find(|p| p.name == name && !p.star)?;
        if info.defs.get(name).is_some_and(|d| d.len() > 1) {
            return None;
        }
        let one = crate::keyflow::Declared::One;
        a.annotation
            .and_then(|ann| self.annotated_class(ann, one, a.func))
            .or_else(|| {
                param
                    .annotation
                    .and_then(|ann| self.annotated_class(ann, one, a.func))
            })
    }

    /// A factory that registers its script once per connection and caches it:
    /// `if conn not in CACHE: CACHE[conn] = conn.register_script(LUA)` then
    /// `return CACHE[conn]`: the registered script.
    pub(crate) fn memo_factory(&mut self, id: FuncId, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let info = self.ix().funcs[id].clone();
        if info.is_lambda || ctx.depth > MAX_DEPTH / 2 {
            return None;
        }
        let nav = self.ix.nav;
        let stmts = nav.statements(info.body);
        let [guard, ret] = stmts.as_slice() else {
            return None;
        };
        if guard.kind_name() != "if_statement" || ret.kind_name() != "return_statement" {
            return None;
        }
        // No `else`/`elif`: the body is one block of one assignment.
        let parts: Vec<Node<'t>> = nav.named_children(*guard).collect();
        let [_, block] = parts.as_slice() else {
            return None;
        };
        let inner: Vec<Node<'t>> = nav.named_children(*block).collect();
        let [stmt] = inner.as_slice() else {
            return None;
        };
        let asg = stmt.named_child(0)?;
        if asg.kind_name() != "assignment" {
            return None;
        }
        let (left, right) = (asg.field(Field::Left)?, asg.field(Field::Right)?);
        let returned = ret.named_child(0)?;
        if left.kind_name() != "subscript" || text(left, self.src()) != text(returned, self.src()) {
            return None;
        }
        let fctx = Ctx {
            func: Some(id),
            env: None,
            depth: ctx.depth + 2,
        };
        match self.eval(right, &fctx) {
            v @ Value::Script(_) => Some(v),
            _ => None,
        }
    }

    /// A script factory whose every `return` gives one registered script, whatever
    /// comes before it (`with open(path) as f: code = f.read()` then `return
    /// client.register_script(code)`): that script. Read with the parameters unbound,
    /// so a body that depends on them (`lua/%s.lua' % name`) stays unknown. Only
    /// decorators that cache the result are allowed.
    pub(crate) fn returned_script(&mut self, id: FuncId, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let info = self.ix().funcs[id].clone();
        if info.is_lambda || ctx.depth > MAX_DEPTH / 2 {
            return None;
        }
        const CACHING: &[&str] = &["lru_cache", "cache", "memoize", "cached", "staticmethod"];
        if info
            .decorators
            .iter()
            .any(|d| !CACHING.contains(&d.as_str()))
        {
            return None;
        }
        if !text(info.body, self.src()).contains("register_script") {
            return None;
        }
        let mut returns = Vec::new();
        crate::project::collect_returns(&self.ix, info.body, &mut returns);
        if returns.is_empty() || returns.len() > 8 {
            return None;
        }
        let fctx = Ctx {
            func: Some(id),
            env: None,
            depth: ctx.depth + 2,
        };
        let mut out = None;
        for r in returns {
            match (out, self.eval(r.named_child(0)?, &fctx)) {
                (None, Value::Script(s)) => out = Some(s),
                (Some(a), Value::Script(b)) if a == b => {}
                _ => return None,
            }
        }
        out.map(Value::Script)
    }

    /// The one client or pipeline that every `yield` of generator `id` gives, called
    /// with these arguments. A `yield` of `None`, or of a parameter passed through
    /// unchanged when the caller gave nothing known for it, is the other path.
    fn yielded(
        &mut self,
        id: FuncId,
        bound: Option<ClassId>,
        pos: Vec<Elem<'t>>,
        kw: Vec<(String, Elem<'t>)>,
        site: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let info = self.ix().funcs[id].clone();
        let mut params: HashMap<String, Value<'t>> = HashMap::new();
        let mut plist = info.params.iter();
        if let (Some(c), Some(p)) = (bound, info.self_name().and_then(|_| plist.next())) {
            params.insert(p.name.clone(), Value::SelfObj(c));
        }
        let mut given: HashMap<String, Value<'t>> = HashMap::new();
        for (i, p) in plist.enumerate() {
            if p.star {
                return None;
            }
            let v = match self.arg_or_default(info.parent, i, p, (&pos, &kw), ctx) {
                Some(v) => v,
                None => Value::Unknown,
            };
            // A parameter the body binds again (`with … as client`) is not fixed.
            if info.defs.get(&p.name).is_none_or(|d| d.len() <= 1) {
                params.insert(p.name.clone(), v.clone());
            }
            given.insert(p.name.clone(), v);
        }
        let env = Rc::new(Env {
            func: id,
            params,
            tag: format!("{}@{}", info.name, site.start_byte()),
        });
        let inner = Ctx {
            func: Some(id),
            env: Some(env),
            depth: ctx.depth + 2,
        };
        let mut ys = Vec::new();
        collect_yields(self.ix.nav, info.body, &mut ys);
        let mut out: Option<Value<'t>> = None;
        for y in ys {
            let expr = y.named_child(0)?;
            if expr.kind_name() == "identifier" {
                if let Some(Value::Null | Value::Opaque(_) | Value::Unknown) =
                    given.get(text(expr, self.src()))
                {
                    continue;
                }
            }
            let v = self.eval(expr, &inner);
            out = match (out, v) {
                (o, Value::Null) => o,
                (None, v @ (Value::Client(_) | Value::Pipe(_))) => Some(v),
                (Some(Value::Client(a)), Value::Client(b)) => Some(Value::Client(a.merge(b))),
                (Some(Value::Pipe(a)), Value::Pipe(b)) if a == b => Some(Value::Pipe(a)),
                _ => return None,
            };
        }
        out
    }

    /// A pipeline created inside function `id` and handed out by it (a factory's
    /// return, a context manager's yield) is a new pipeline at each call `site`.
    fn pipe_at_site(&mut self, v: Value<'t>, id: FuncId, site: Node<'t>) -> Value<'t> {
        let Value::Pipe(p) = v else {
            return v;
        };
        match self.pipe_made_in_for(p, id, site) {
            Some((q, _)) => Value::Pipe(q),
            None => v,
        }
    }

    /// Whether pipeline `p` is made inside function `id`.
    pub(crate) fn pipe_made_in(&self, p: PipeId, id: FuncId) -> bool {
        let inside = self.ix().funcs[id].node.byte_range();
        self.pipes[p]
            .created
            .as_ref()
            .is_some_and(|c| inside.start <= c.start && c.end <= inside.end)
    }

    /// The pipeline of call `site` alone, when pipeline `p` is made inside function
    /// `id` (a copy of it, made once per site), and whether this call made the copy.
    pub(crate) fn pipe_made_in_for(
        &mut self,
        p: PipeId,
        id: FuncId,
        site: Node<'t>,
    ) -> Option<(PipeId, bool)> {
        if !self.pipe_made_in(p, id) {
            return None;
        }
        if let Some(&q) = self.pipe_by_node.get(&site.id()) {
            return Some((q, false));
        }
        let q = self.pipes.len();
        let info = self.pipes[p].clone();
        self.pipes.push(info);
        self.pipe_by_node.insert(site.id(), q);
        Some((q, true))
    }
}

/// A lazy attribute: `self._script = None` in `__init__`, then
/// `self._script = client.register_script(…)` where it is first needed (or `self._tx
/// = self.redis.pipeline()`, `heldpipe.rs`): the one script, or the one pipeline, that
/// its assignments other than `None` make. `None` is the value before the assignment,
/// which a use of the attribute never sees.
fn lazy_value<'t>(values: &[Value<'t>]) -> Option<Value<'t>> {
    let mut found: Option<Value<'t>> = None;
    for v in values {
        match (v, &found) {
            (Value::Null, _) => {}
            (Value::Script(_) | Value::Pipe(_), None) => found = Some(v.clone()),
            (Value::Script(a), Some(Value::Script(b))) if a == b => {}
            (Value::Pipe(a), Some(Value::Pipe(b))) if a == b => {}
            _ => return None,
        }
    }
    found
}

/// The value node of the keyword argument `name` of a call's arguments.
pub(crate) fn keyword_value<'t>(
    nav: &Nav<'t>,
    args: Option<Node<'t>>,
    name: &str,
    src: &str,
) -> Option<Node<'t>> {
    nav.named_children(args?)
        .filter(|k| k.kind_name() == "keyword_argument")
        .find(|k| k.field(Field::Name).is_some_and(|n| text(n, src) == name))
        .and_then(|k| k.field(Field::Value))
}

/// The `yield` expressions of a function body, not of functions nested in it.
pub(crate) fn collect_yields<'t>(nav: &Nav<'t>, n: Node<'t>, out: &mut Vec<Node<'t>>) {
    for c in nav.named_children(n) {
        match c.kind_name() {
            "yield" => out.push(c),
            "function_definition" | "lambda" | "class_definition" => {}
            _ => collect_yields(nav, c, out),
        }
    }
}

/// The client kind of a name or attribute assigned in several places: at least one
/// assignment makes a client and none makes something that is certainly not one
/// (a string, a number, a container).
pub(crate) fn merge_clients(values: &[Value<'_>]) -> Option<ClientKind> {
    let mut kind: Option<ClientKind> = None;
    for v in values {
        match v {
            Value::Client(k) => kind = Some(kind.map_or(*k, |p| p.merge(*k))),
            Value::Null | Value::Opaque(_) | Value::Unknown | Value::Foreign => {}
            _ => return None,
        }
    }
    let all_clients = values.iter().all(|v| matches!(v, Value::Client(_)));
    kind.map(|k| {
        if all_clients {
            k
        } else {
            k.merge(ClientKind::Unknown)
        }
    })
}

/// A short identity of a value, for the bindings of values computed from it.
pub(crate) fn fingerprint(v: &Value<'_>) -> String {
    match v {
        Value::Str(t) => {
            let mut s = String::new();
            for p in &t.parts {
                match p {
                    TPart::Lit { bytes, .. } => s.push_str(&String::from_utf8_lossy(bytes)),
                    TPart::Hole(h) => {
                        s.push('<');
                        s.push_str(&h.binding);
                        s.push('>');
                    }
                }
            }
            s
        }
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Opaque(h) => h.binding.clone(),
        Value::SelfObj(c) => format!("self{c}"),
        Value::Seq {
            items,
            family: false,
        } => {
            let inner: Vec<String> = items.iter().map(|e| fingerprint(&e.value)).collect();
            format!("[{}]", inner.join(","))
        }
        Value::Kwargs(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|(k, e)| format!("{k}={}", fingerprint(&e.value)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        _ => "?".into(),
    }
}

/// The return expressions of a key-builder function: one, or several when the body
/// returns early under `if` statements that hold nothing but a `return`
/// (`if pri: return f"{queue}:{pri}"` then `return queue`).
pub(crate) fn builder_returns<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
) -> Option<Vec<Node<'t>>> {
    builder_body(nav, src, info)
        .filter(|(_, rebinds, open)| rebinds.is_empty() && !open)
        .map(|(rets, _, _)| rets)
}

/// [`builder_returns`], and the `if` statements of the body, in order, that rebind
/// one of the builder's parameters (`if namespace: key = "%s:%s" % (namespace,
/// key)`): the caller follows them one after the other ([`Analyzer::call_builder`]).
/// Such a body is read only when nothing before its last rebinding `if` but those
/// `if` statements (and a docstring) mentions a rebound parameter, so every other
/// read of it sees its final value.
pub(crate) fn builder_body<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
) -> Option<(Vec<Node<'t>>, Vec<Node<'t>>, bool)> {
    const MAX_SHAPES: usize = 8;
    const MAX_REBINDS: usize = 4;
    if info.is_lambda {
        return Some((vec![info.body], Vec::new(), false));
    }
    let mut rebinds: Vec<Node<'t>> = Vec::new();
    let stmts: Vec<Node<'t>> = nav
        .named_children(info.body)
        .filter(|s| s.kind_name() != "comment")
        .collect();
    // `try: return template.format(**kwargs)` / `except KeyError: log(…); raise`: the
    // body of the `try`, when it is all the function does and every handler raises.
    if let Some(block) = guarded_body(nav, &stmts) {
        let mut inner = info.clone();
        inner.body = block;
        return builder_body(nav, src, &inner);
    }
    let (last, init) = stmts.split_last()?;
    // `return keys` of a local list the body fills in loops.
    let returned_list = (last.kind_name() == "return_statement")
        .then(|| last.named_child(0))
        .flatten()
        .map(|e| copied_list(e, src).unwrap_or(e))
        .filter(|e| e.kind_name() == "identifier")
        .map(|e| text(e, src))
        .filter(|l| {
            info.params.iter().all(|p| p.name != *l)
                && init.iter().any(|s| {
                    s.kind_name() == "expression_statement"
                        && s.named_child(0).is_some_and(|a| {
                            a.kind_name() == "assignment"
                                && a.field(Field::Left).is_some_and(|t| text(t, src) == *l)
                                && a.field(Field::Right)
                                    .is_some_and(|r| r.kind_name() == "list")
                        })
                })
        });
    // The names the final return reads: a call for its effect may not fill them.
    let ret_names: Vec<&str> = {
        let mut out = Vec::new();
        let mut stack: Vec<Node<'t>> = last.named_child(0).into_iter().collect();
        let mut seen = 0usize;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 4096 {
                return None;
            }
            if x.kind_name() == "identifier" {
                out.push(text(x, src));
            }
            stack.extend(nav.named_children(x));
        }
        out
    };
    // Local lists the return reads (`parts = [NS]`, then `":".join(parts)`): their
    // `.append(x)`/`.extend(xs)` in the body are read with the list, as a local's
    // appends are.
    let lists: Vec<&str> = init
        .iter()
        .filter_map(|s| {
            let a = s
                .named_child(0)
                .filter(|_| s.kind_name() == "expression_statement")?;
            let left = a
                .field(Field::Left)
                .filter(|_| a.kind_name() == "assignment")?;
            let right = a.field(Field::Right)?;
            (left.kind_name() == "identifier" && right.kind_name() == "list")
                .then(|| text(left, src))
        })
        .filter(|l| ret_names.contains(l) && info.params.iter().all(|p| p.name != *l))
        .collect();
    let grows_list = |e: Node<'t>| list_added_to(src, e).is_some_and(|l| lists.contains(&l));
    let mut rets = Vec::new();
    // Statements that grow the returned list under conditions ([`grows_only`]),
    // and the first append they make.
    let mut grew = false;
    let mut growth = usize::MAX;
    for (i, s) in init.iter().enumerate() {
        match s.kind_name() {
            "expression_statement" => {
                let e = s.named_child(0)?;
                match e.kind_name() {
                    "string" if i == 0 => {}
                    "call" if grows_list(e) => {}
                    "assignment" => {
                        let left = e.field(Field::Left)?;
                        // `cursor, keys = r.scan(0, match=p)`: names, read as they are
                        // unpacked.
                        if !plain_targets(nav, left) {
                            return None;
                        }
                    }
                    // `DB.expire(key, ttl)`: a call made for its effect, which no
                    // name the return reads can see.
                    "call" | "await" if effect_only_call(nav, src, info, e, &ret_names) => {}
                    _ => return None,
                }
            }
            // An import binds names the return may use (`from .registry import
            // Registry` inside a property, against an import cycle); an `assert`
            // changes no value.
            "pass_statement"
            | "import_statement"
            | "import_from_statement"
            | "assert_statement" => {}
            // A helper defined for the return expression (`def _key(t): …`).
            "function_definition" => {}
            // `parts = []` / `for c in criteria: …; parts.append(c)` just before the
            // return: followed by the caller like a rebinding `if`.
            "for_statement" => {
                // `keys = []` / `for t in tags: keys.append(f"tag:{t}")` / `return
                // keys`: the return reads the list with its appends, as a local does.
                if returned_list.is_some_and(|l| append_loop(nav, src, info, *s, l)) {
                    continue;
                }
                if let Some((ret, at)) = returned_list.and_then(|l| grown_by(nav, src, *s, l)) {
                    match ret {
                        Some(r) => {
                            rets.push(r);
                            growth = growth.min(at);
                            grew = true;
                            continue;
                        }
                        // A `for` that computes locals and appends per pass (`key =
                        // make(x)` / `keys.append(key)`), returning nothing itself,
                        // with no `break` and no parameter rebound: read as a local's
                        // list filled in a loop is, one member per pass.
                        None if per_pass(nav, src, info, *s) => continue,
                        None => {}
                    }
                }
                let prev = i.checked_sub(1).map(|j| init[j]);
                if i + 1 != init.len()
                    || rebinds.iter().any(|r| r.kind_name() == "for_statement")
                    || crate::maploop::map_loop(nav, src, info, prev, *s).is_none()
                {
                    return None;
                }
                rebinds.push(*s);
            }
            // `while True: cursor, keys = r.scan(cursor, match=p)` / `out.extend(keys)`
            // / `if not cursor: break`: the list with what the loop adds to it.
            "while_statement" => {
                if returned_list.is_some_and(|l| fill_loop(nav, src, info, *s, l)) {
                    continue;
                }
                if let Some((ret, at)) = returned_list.and_then(|l| grown_by(nav, src, *s, l)) {
                    rets.extend(ret);
                    growth = growth.min(at);
                    grew = true;
                    continue;
                }
                return None;
            }
            // `if c: return x`, with no other arm and nothing else in its body.
            "if_statement" => {
                // `if t == "x": for …: keys.append(a)` / `else: for …: keys.append(b)`
                // before `return keys`: read as a local with its appends is.
                if returned_list.is_some_and(|l| append_loop(nav, src, info, *s, l)) {
                    continue;
                }
                // `if c: return keys` / `if c: keys.append(k)` / `while c: x = …;
                // keys.append(…)`: the list grows, and is returned as it is.
                if let Some((ret, at)) = returned_list.and_then(|l| grown_by(nav, src, *s, l)) {
                    rets.extend(ret);
                    growth = growth.min(at);
                    grew = true;
                    continue;
                }
                // `if namespace: key = f"{namespace}:{key}"`, or `if …: val = a` /
                // `else: val = b`: a parameter rebound.
                if crate::condprefix::rebinds_param(nav, src, info, *s).is_some() {
                    rebinds.push(*s);
                    if rebinds.len() > MAX_REBINDS {
                        return None;
                    }
                    continue;
                }
                // `if not DB.exists(key): DB.sunionstore(key, parts)`: calls made
                // for their effect only, in every arm.
                if effect_only_if(nav, src, info, *s, &ret_names) {
                    continue;
                }
                if nav
                    .named_children(*s)
                    .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
                {
                    return None;
                }
                // `if prefix: key = prefix + key`: a local the return reads.
                if crate::condprefix::assigns_locals(nav, src, info, *s) {
                    continue;
                }
                let body: Vec<Node<'t>> = nav
                    .named_children(s.field(Field::Consequence)?)
                    .filter(|x| x.kind_name() != "comment")
                    .collect();
                match body.as_slice() {
                    [r] if r.kind_name() == "return_statement" => rets.push(r.named_child(0)?),
                    // A guard (`if not gid: raise ValueError(…)`): a call it stops
                    // has no key, one it lets through returns what follows.
                    [r] if r.kind_name() == "raise_statement" => {}
                    // `if labels: values = ":".join(labels)` / `return f"{p}:{values}"`:
                    // locals of the arm alone, read by its return.
                    [locals @ .., r]
                        if r.kind_name() == "return_statement"
                            && arm_locals(nav, src, info, locals, &stmts, *s) =>
                    {
                        rets.push(r.named_child(0)?)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    if let Some(&end) = rebinds.last() {
        // Nothing before the last rebinding `if` but those `if`s reads a rebound name.
        let names: Vec<&str> = rebinds
            .iter()
            .filter_map(|r| crate::condprefix::rebinds_param(nav, src, info, *r))
            .collect();
        let reads = |n: Node<'t>| {
            let mut stack = vec![n];
            let mut seen = 0usize;
            while let Some(x) = stack.pop() {
                seen += 1;
                if seen > 4096 {
                    return true;
                }
                if x.kind_name() == "identifier" && names.contains(&text(x, src)) {
                    return true;
                }
                stack.extend(nav.named_children(x));
            }
            false
        };
        if stmts
            .iter()
            .take_while(|s| s.start_byte() < end.start_byte())
            .any(|s| !rebinds.contains(s) && reads(*s))
        {
            return None;
        }
    }
    if last.kind_name() == "if_statement" {
        // `if c: return a` / `elif d: return b` / `else: return c`: a return per arm.
        rets.extend(crate::builders::arm_returns(nav, *last)?);
        return (rets.len() <= MAX_SHAPES && !grew).then_some((rets, rebinds, false));
    }
    // `if …: return a` / `if …: return b` / `raise ValueError(…)`: a call that
    // returns gets one of the guarded values.
    if last.kind_name() == "raise_statement" && !rets.is_empty() {
        return (rets.len() <= MAX_SHAPES && !grew).then_some((rets, rebinds, false));
    }
    if last.kind_name() != "return_statement" {
        return None;
    }
    rets.push(last.named_child(0)?);
    let mut open = false;
    if grew {
        // Statements that grow the returned list under conditions: every return gives
        // that one list (`if c: return keys` … `return keys`), and the first comes
        // before any such growth. What the list holds there, it holds at every later
        // return, and maybe more: the caller gets those members and an unknown rest.
        if let Some(l) = returned_list {
            let same = rets
                .iter()
                .all(|r| r.kind_name() == "identifier" && text(*r, src) == l);
            if !same
                || info.defs.get(l).is_none_or(|d| d.len() != 1)
                || rets.first().is_none_or(|r| r.start_byte() > growth)
            {
                return None;
            }
            rets.truncate(1);
            open = true;
        } else {
            return None;
        }
    }
    (rets.len() <= MAX_SHAPES).then_some((rets, rebinds, open))
}

/// The block of a function body's one `try` statement (after a docstring, if any)
/// whose handlers all end in `raise` and return nothing, with no `else` or
/// `finally`: a call that returns gets what the block returns.
fn guarded_body<'t>(nav: &Nav<'t>, stmts: &[Node<'t>]) -> Option<Node<'t>> {
    let docstring = |s: &Node<'t>| {
        s.kind_name() == "expression_statement"
            && s.named_child(0).is_some_and(|e| e.kind_name() == "string")
    };
    let t = match stmts {
        [t] => *t,
        [d, t] if docstring(d) => *t,
        _ => return None,
    };
    if t.kind_name() != "try_statement" {
        return None;
    }
    let mut handlers = 0usize;
    for c in nav.named_children(t).skip(1) {
        match c.kind_name() {
            "except_clause" => {
                let block = nav.named_children(c).find(|x| x.kind_name() == "block")?;
                let last = nav
                    .named_children(block)
                    .filter(|x| x.kind_name() != "comment")
                    .last()?;
                if last.kind_name() != "raise_statement" || has_return(nav, block) {
                    return None;
                }
                handlers += 1;
            }
            "comment" => {}
            _ => return None,
        }
    }
    let block = t.field(Field::Body)?;
    (handlers > 0).then_some(block)
}

/// Whether `n` holds a `return` statement (of its own function: nested functions
/// and lambdas are not looked into).
fn has_return(nav: &Nav<'_>, n: Node<'_>) -> bool {
    let mut stack = vec![n];
    let mut seen = 0usize;
    while let Some(x) = stack.pop() {
        seen += 1;
        if seen > 4096 {
            return true;
        }
        match x.kind_name() {
            "return_statement" => return true,
            "function_definition" | "lambda" | "class_definition" => {}
            _ => stack.extend(nav.named_children(x)),
        }
    }
    false
}

/// A statement of a builder's body that grows the list `list` it returns
/// ([`grows_only`]) and touches it (appends to it, or returns it): its first `return
/// list`, if any, and the start of its first append (`usize::MAX` when it has none).
/// A statement that does not touch the list is left to the other readings of the body
/// (a parameter rebound under a condition, say).
fn grown_by<'t>(
    nav: &Nav<'t>,
    src: &str,
    stmt: Node<'t>,
    list: &str,
) -> Option<(Option<Node<'t>>, usize)> {
    let at = grows_only(nav, src, stmt, list)?;
    let ret = list_return_in(nav, src, stmt, list);
    (at != usize::MAX || ret.is_some()).then_some((ret, at))
}

/// Whether statement `stmt` (an `if`, `for` or `while` of a builder's body) only
/// grows the list `list` the builder returns: inside it the list is only appended or
/// extended, or returned whole (`return keys`); other statements assign plain names
/// other than the list, or are `break`/`continue`/`pass`. No other `return`, no
/// `yield`, no nested scope, no `:=`, no `try`, no `with`, no `del`.
fn grows_only<'t>(nav: &Nav<'t>, src: &str, stmt: Node<'t>, list: &str) -> Option<usize> {
    if !binds_no_name(nav, stmt) {
        return None;
    }
    let mut first = usize::MAX;
    let mut stack = vec![stmt];
    let mut seen = 0usize;
    while let Some(s) = stack.pop() {
        seen += 1;
        if seen > 2048 {
            return None;
        }
        match s.kind_name() {
            "if_statement" | "while_statement" | "for_statement" => {
                if s.kind_name() == "for_statement"
                    && s.field(Field::Left)
                        .is_some_and(|t| crate::collections::contains_name(nav, t, list, src))
                {
                    return None;
                }
                for c in nav.named_children(s) {
                    match c.kind_name() {
                        "block" => stack.extend(nav.named_children(c)),
                        "elif_clause" | "else_clause" => stack.push(c),
                        _ if crate::collections::contains_name(nav, c, list, src) => return None,
                        _ => {}
                    }
                }
            }
            "elif_clause" | "else_clause" => {
                for c in nav.named_children(s) {
                    match c.kind_name() {
                        "block" => stack.extend(nav.named_children(c)),
                        _ if crate::collections::contains_name(nav, c, list, src) => return None,
                        _ => {}
                    }
                }
            }
            "comment" | "continue_statement" | "pass_statement" | "break_statement" => {}
            "return_statement" => {
                if !s
                    .named_child(0)
                    .is_some_and(|r| r.kind_name() == "identifier" && text(r, src) == list)
                {
                    return None;
                }
            }
            "expression_statement" => {
                let e = s.named_child(0)?;
                match e.kind_name() {
                    "call" if list_added_to(src, e) == Some(list) => {
                        // The list itself is not added to itself.
                        if e.field(Field::Arguments)
                            .is_some_and(|a| crate::collections::contains_name(nav, a, list, src))
                        {
                            return None;
                        }
                        first = first.min(e.start_byte());
                    }
                    "assignment" => {
                        let (l, r) = (e.field(Field::Left)?, e.field(Field::Right)?);
                        if l.kind_name() != "identifier"
                            || text(l, src) == list
                            || crate::collections::contains_name(nav, r, list, src)
                        {
                            return None;
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(first)
}

/// Whether `stmt`, a loop of a builder's body, has no `break` and assigns no
/// parameter of the builder.
fn per_pass<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
    stmt: Node<'t>,
) -> bool {
    let rebinds_param = |target: Node<'t>| {
        info.params
            .iter()
            .any(|p| crate::collections::contains_name(nav, target, &p.name, src))
    };
    let mut stack = vec![stmt];
    while let Some(x) = stack.pop() {
        let target = match x.kind_name() {
            "break_statement" => return false,
            "assignment" | "for_statement" => x.field(Field::Left),
            _ => None,
        };
        if target.is_some_and(rebinds_param) {
            return false;
        }
        stack.extend(nav.named_children(x));
    }
    true
}

/// The first `return list` inside `stmt` (a statement [`grows_only`] accepts).
fn list_return_in<'t>(nav: &Nav<'t>, src: &str, stmt: Node<'t>, list: &str) -> Option<Node<'t>> {
    let mut stack = vec![stmt];
    let mut found: Option<Node<'t>> = None;
    while let Some(x) = stack.pop() {
        if x.kind_name() == "return_statement" {
            if let Some(r) = x
                .named_child(0)
                .filter(|r| r.kind_name() == "identifier" && text(*r, src) == list)
            {
                if found.is_none_or(|f| r.start_byte() < f.start_byte()) {
                    found = Some(r);
                }
            }
            continue;
        }
        stack.extend(nav.named_children(x));
    }
    found
}

/// Whether `locals`, the statements of an `if` arm (`arm`) before its `return`, are
/// assignments to plain names that are no parameter of `info` and that no statement
/// of `stmts` outside the arm mentions: values of the arm alone.
fn arm_locals<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
    locals: &[Node<'t>],
    stmts: &[Node<'t>],
    arm: Node<'t>,
) -> bool {
    const MAX_LOCALS: usize = 4;
    if locals.is_empty() || locals.len() > MAX_LOCALS {
        return false;
    }
    let mut names = Vec::new();
    for l in locals {
        let Some(a) = l
            .named_child(0)
            .filter(|a| l.kind_name() == "expression_statement" && a.kind_name() == "assignment")
        else {
            return false;
        };
        let Some(left) = a
            .field(Field::Left)
            .filter(|t| t.kind_name() == "identifier")
        else {
            return false;
        };
        let name = text(left, src);
        if info.params.iter().any(|p| p.name == name) || !binds_no_name(nav, a) {
            return false;
        }
        names.push(name);
    }
    stmts.iter().filter(|s| s.id() != arm.id()).all(|s| {
        names
            .iter()
            .all(|n| !crate::maploop::mentions(nav, src, *s, n))
    })
}

/// Whether `n` holds no `:=` and no lambda anywhere (4,096 nodes at most are
/// read; a larger one counts as binding): nothing in it binds a name a builder's
/// return may read.
fn binds_no_name(nav: &Nav<'_>, n: Node<'_>) -> bool {
    let mut all = vec![n];
    let mut count = 0usize;
    while let Some(x) = all.pop() {
        count += 1;
        if count > 4096 || matches!(x.kind_name(), "named_expression" | "lambda") {
            return false;
        }
        all.extend(nav.named_children(x));
    }
    true
}

/// Whether `e`, a call statement of a builder's body (or its `await`), is made for
/// its effect only (`DB.expire(key, ttl)`, `self.redis.sadd(index, key)`): it binds
/// no name (no `:=`, no lambda), and neither its receiver nor any argument it is
/// given whole is a local or parameter of the builder that the return reads
/// (`ret_names`) and that may hold a container the call could fill (its receiver
/// is a module global, an import, `self`/`cls`, or nothing; never another
/// parameter).
fn effect_only_call<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
    e: Node<'t>,
    ret_names: &[&str],
) -> bool {
    let call = if e.kind_name() == "await" {
        match e.named_child(0) {
            Some(c) if c.kind_name() == "call" => c,
            _ => return false,
        }
    } else {
        e
    };
    if !binds_no_name(nav, call) {
        return false;
    }
    let receiver_param = |name: &str| {
        info.params
            .first()
            .is_some_and(|p| p.name == name && info.class.is_some())
    };
    // A name of the builder (a parameter or a local) that the return reads, other
    // than `self`/`cls`.
    let own = |n: Node<'t>| {
        n.kind_name() == "identifier" && {
            let name = text(n, src);
            info.defs.contains_key(name) && !receiver_param(name) && ret_names.contains(&name)
        }
    };
    let Some(func) = call.field(Field::Function) else {
        return false;
    };
    let mut root = func;
    while root.kind_name() == "attribute" {
        match root.field(Field::Object) {
            Some(o) => root = o,
            None => return false,
        }
    }
    // Not through a parameter either (`pipeline.hset(…)`): a function that queues
    // commands on what its caller passes is read for those (`Fact::Queues`).
    let param = |n: Node<'t>| {
        let name = text(n, src);
        info.params.iter().any(|p| p.name == name) && !receiver_param(name)
    };
    if func.kind_name() == "attribute"
        && (own(root) || root.kind_name() != "identifier" || param(root))
    {
        return false;
    }
    let Some(args) = call.field(Field::Arguments) else {
        return true;
    };
    nav.named_children(args).all(|a| {
        let a = match a.kind_name() {
            "keyword_argument" => match a.field(Field::Value) {
                Some(v) => v,
                None => return false,
            },
            "list_splat" | "dictionary_splat" => return false,
            _ => a,
        };
        // A name given whole may be a container the call fills; a string is not
        // changed by being passed, but which is which is not known here.
        !(own(a) && holds_container(info, text(a, src)))
    })
}

/// Whether a local or parameter of a builder may hold a container: a parameter, or
/// a local any assignment of which is not a plain string, number or call result.
fn holds_container(info: &crate::index::FuncInfo<'_>, name: &str) -> bool {
    let Some(defs) = info.defs.get(name) else {
        return false;
    };
    defs.iter().any(|d| match d.kind {
        DefKind::Expr(e) => matches!(
            e.kind_name(),
            "list"
                | "dictionary"
                | "set"
                | "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "identifier"
        ),
        _ => true,
    })
}

/// Whether `stmt`, an `if` statement of a builder's body (any arms), holds nothing
/// but calls made for their effect ([`effect_only_call`]), assignments of locals
/// the return does not read, `pass` and nested such `if`s.
fn effect_only_if<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
    stmt: Node<'t>,
    ret_names: &[&str],
) -> bool {
    let mut blocks: Vec<Node<'t>> = Vec::new();
    let Some(first) = stmt.field(Field::Consequence) else {
        return false;
    };
    blocks.push(first);
    for c in nav.named_children(stmt) {
        let block = match c.kind_name() {
            "elif_clause" => c.field(Field::Consequence),
            "else_clause" => c.field(Field::Body),
            _ => continue,
        };
        match block {
            Some(b) => blocks.push(b),
            None => return false,
        }
    }
    !blocks.is_empty()
        && blocks.iter().all(|b| {
            nav.named_children(*b).all(|s| match s.kind_name() {
                "comment" | "pass_statement" => true,
                "expression_statement" => s.named_child(0).is_some_and(|e| match e.kind_name() {
                    "call" | "await" => effect_only_call(nav, src, info, e, ret_names),
                    // `keys = [...]` for the calls: a local the return does not read.
                    "assignment" => e.field(Field::Left).is_some_and(|l| {
                        l.kind_name() == "identifier" && !ret_names.contains(&text(l, src))
                    }),
                    _ => false,
                }),
                "if_statement" => effect_only_if(nav, src, info, s, ret_names),
                _ => false,
            })
        })
}

/// Whether `stmt`, a `for` statement of a builder's body, only fills the list `list`
/// the builder returns: its body (and those of the loops and `if`s inside it) holds
/// nothing but `list.append(x)` / `list.extend(xs)`, `continue` and `pass`, and no
/// loop binds a parameter's name or uses `:=`. The builder's other locals and its
/// parameters keep their values, so the return reads the list as a local is read
/// ([`Analyzer::list_with_appends`]).
pub(crate) fn append_loop<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
    stmt: Node<'t>,
    list: &str,
) -> bool {
    let is_param = |n: Node<'t>| {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind_name() == "identifier" && info.params.iter().any(|p| p.name == text(x, src)) {
                return true;
            }
            stack.extend(nav.named_children(x));
        }
        false
    };
    // No `:=` (it binds a name the return may read) nor a lambda anywhere in it.
    if !binds_no_name(nav, stmt) {
        return false;
    }
    let mut stack = vec![stmt];
    while let Some(s) = stack.pop() {
        match s.kind_name() {
            "for_statement" => {
                let (Some(target), Some(body)) = (s.field(Field::Left), s.field(Field::Body))
                else {
                    return false;
                };
                let for_else = nav
                    .named_children(s)
                    .any(|c| c.kind_name() == "else_clause");
                if is_param(target) || for_else {
                    return false;
                }
                stack.extend(nav.named_children(body));
            }
            "if_statement" => match arm_blocks(nav, s) {
                Some(blocks) => {
                    stack.extend(blocks.into_iter().flat_map(|b| nav.named_children(b)))
                }
                None => return false,
            },
            "comment" | "continue_statement" | "pass_statement" => {}
            "expression_statement" => {
                if s.named_child(0)
                    .and_then(|c| list_added_to(src, c))
                    .is_none_or(|l| l != list)
                {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The block of every arm of the `if` statement `s` (its body, each `elif`'s, the
/// `else`'s), in order; `None` when an arm has none.
fn arm_blocks<'t>(nav: &Nav<'t>, s: Node<'t>) -> Option<Vec<Node<'t>>> {
    let mut out = vec![s.field(Field::Consequence)?];
    for arm in nav.named_children(s) {
        match arm.kind_name() {
            "elif_clause" => out.push(arm.field(Field::Consequence)?),
            "else_clause" => out.push(arm.field(Field::Body)?),
            _ => {}
        }
    }
    Some(out)
}

/// Whether `left`, an assignment's target, is a name or a tuple of names.
fn plain_targets(nav: &Nav<'_>, left: Node<'_>) -> bool {
    match left.kind_name() {
        "identifier" => true,
        "pattern_list" | "tuple_pattern" => {
            nav.named_children(left).count() > 0
                && nav
                    .named_children(left)
                    .all(|c| c.kind_name() == "identifier")
        }
        _ => false,
    }
}

/// Whether `stmt`, a `while` statement of a builder's body, only fills the list `list`
/// the builder returns, as a cursor loop over `SCAN` does: its body (and those of the
/// `if`s inside it) holds `list.append(x)` / `list.extend(xs)`, assignments to names
/// that are neither a parameter nor the list (`cursor, keys = r.scan(cursor, …)`),
/// `break`, `continue` and `pass`; it has no `else` and binds no name with `:=`.
pub(crate) fn fill_loop<'t>(
    nav: &Nav<'t>,
    src: &str,
    info: &crate::index::FuncInfo<'t>,
    stmt: Node<'t>,
    list: &str,
) -> bool {
    if !binds_no_name(nav, stmt)
        || nav
            .named_children(stmt)
            .any(|c| c.kind_name() == "else_clause")
    {
        return false;
    }
    let Some(body) = stmt.field(Field::Body) else {
        return false;
    };
    let local = |t: Node<'t>| {
        plain_targets(nav, t)
            && std::iter::once(t)
                .chain(nav.named_children(t))
                .filter(|x| x.kind_name() == "identifier")
                .all(|x| {
                    let name = text(x, src);
                    name != list && info.params.iter().all(|p| p.name != name)
                })
    };
    let mut stack: Vec<Node<'t>> = nav.named_children(body).collect();
    while let Some(s) = stack.pop() {
        match s.kind_name() {
            "if_statement" => match arm_blocks(nav, s) {
                Some(blocks) => {
                    stack.extend(blocks.into_iter().flat_map(|b| nav.named_children(b)))
                }
                None => return false,
            },
            "comment" | "continue_statement" | "pass_statement" | "break_statement" => {}
            "expression_statement" => {
                let Some(e) = s.named_child(0) else {
                    return false;
                };
                let ok = match e.kind_name() {
                    "assignment" => e.field(Field::Left).is_some_and(local),
                    _ => list_added_to(src, e).is_some_and(|l| l == list),
                };
                if !ok {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// The `if`s between `node` and `block` that are outside every loop there, each with
/// the arm `node` is in: (the `if`'s offset, the arm's offset).
fn outer_arms<'t>(nav: &Nav<'t>, node: Node<'t>, block: Node<'t>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut child = node;
    let mut cur = nav.parent(node);
    while let Some(p) = cur {
        if p == block {
            break;
        }
        match p.kind_name() {
            "for_statement" | "while_statement" => out.clear(),
            "if_statement" => out.push((p.start_byte(), child.start_byte())),
            _ => {}
        }
        child = p;
        cur = nav.parent(p);
    }
    out
}

/// What a builder that returns one of several templates gives: their common beginning
/// followed by one opaque part that stands for whichever end the call takes. The part's
/// identity is made of the ends, so two calls with the same arguments give the same
/// key, and calls whose ends vary with a loop give keys that vary with it. `None`
/// (unknown) when an end holds a brace, or, while the module is summarised for another,
/// a part that may be a key or a prefix. Otherwise the opaque part is keylike: a
/// verdict over it holds unless it carries a tag, which the finding says.
fn join_shapes(name: &str, shapes: Vec<Tpl>, summarising: bool) -> Option<(Tpl, Vec<Tpl>)> {
    let sig = |parts: &[TPart]| -> String {
        let mut out = String::new();
        for p in parts {
            match p {
                TPart::Lit { bytes, .. } => {
                    out.push('"');
                    out.push_str(&String::from_utf8_lossy(bytes).escape_debug().to_string());
                    out.push('"');
                }
                TPart::Hole(h) => {
                    out.push('<');
                    out.push_str(&h.binding);
                    out.push('>');
                }
            }
        }
        out
    };
    let mut distinct: Vec<Tpl> = Vec::new();
    for t in shapes {
        if !distinct.iter().any(|d| sig(&d.parts) == sig(&t.parts)) {
            distinct.push(t);
        }
    }
    let first = distinct.first()?.clone();
    if distinct.len() == 1 {
        return Some((first, Vec::new()));
    }
    // The common beginning: whole parts, then the bytes two literals share.
    let mut prefix = Tpl::default();
    let mut at = 0usize;
    let mut cut = 0usize;
    'parts: for (i, p) in first.parts.iter().enumerate() {
        match p {
            TPart::Hole(h) => {
                if distinct.iter().all(
                    |d| matches!(d.parts.get(i), Some(TPart::Hole(x)) if x.binding == h.binding),
                ) {
                    prefix.parts.push(p.clone());
                    at = i + 1;
                    continue;
                }
                break 'parts;
            }
            TPart::Lit { bytes, offs } => {
                let mut n = bytes.len();
                for d in &distinct {
                    match d.parts.get(i) {
                        Some(TPart::Lit { bytes: b, .. }) => {
                            n = n.min(bytes.iter().zip(b).take_while(|(x, y)| x == y).count());
                        }
                        _ => n = 0,
                    }
                }
                let whole = distinct.iter().all(
                    |d| matches!(d.parts.get(i), Some(TPart::Lit { bytes: b, .. }) if b.len() == n),
                ) && n == bytes.len();
                if n > 0 {
                    prefix.push(Tpl::lit(bytes[..n].to_vec(), offs[..n].to_vec()));
                }
                if whole {
                    at = i + 1;
                    continue;
                }
                cut = n;
                break 'parts;
            }
        }
    }
    // The ends, after the common beginning.
    let mut ends: Vec<String> = Vec::new();
    let mut end_tpls: Vec<Tpl> = Vec::new();
    for d in &distinct {
        let mut rest: Vec<TPart> = d.parts.get(at..).unwrap_or_default().to_vec();
        if let Some(TPart::Lit { bytes, offs }) = rest.first_mut() {
            if cut > 0 {
                bytes.drain(..cut);
                offs.drain(..cut);
            }
        }
        for p in &rest {
            match p {
                TPart::Lit { bytes, .. } if bytes.contains(&b'{') || bytes.contains(&b'}') => {
                    return None
                }
                // A value that may be a prefix with a tag of its own is part of the
                // opaque end, which may carry a tag (it is keylike); not while the
                // module is summarised for another, where the bindings inside the
                // ends are rewritten when the summary is applied and the joined
                // identity would not be.
                TPart::Hole(h) if h.keylike && summarising => return None,
                _ => {}
            }
        }
        ends.push(sig(&rest));
        end_tpls.push(Tpl { parts: rest });
    }
    prefix.push(Tpl::hole(HoleInfo {
        label: format!("{name}(…)"),
        binding: format!("{name}:one-of[{}]", ends.join("|")),
        span: None,
        keylike: true,
    }));
    Some((prefix, end_tpls))
}

/// Whether a `for` target (`x`, `k, v`, `(a, b)`) binds `name`.
fn binds_name(nav: &Nav<'_>, target: Node<'_>, name: &str, src: &str) -> bool {
    match target.kind_name() {
        "identifier" => text(target, src) == name,
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "tuple"
        | "list"
        | "parenthesized_expression"
        | "list_splat_pattern" => nav
            .named_children(target)
            .any(|c| binds_name(nav, c, name, src)),
        _ => false,
    }
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else if lower.ends_with('j') || lower.ends_with('l') {
        None
    } else {
        lower.parse().ok()
    }
}

/// The positional argument nodes of a call (no keywords, no comments).
pub(crate) fn arg_nodes<'t>(nav: &Nav<'t>, args: Option<Node<'t>>) -> Vec<Node<'t>> {
    let Some(a) = args else { return Vec::new() };
    nav.named_children(a)
        .filter(|k| {
            !matches!(
                k.kind_name(),
                "keyword_argument" | "comment" | "list_splat" | "dictionary_splat"
            )
        })
        .collect()
}

/// Whether `pipeline(…)` makes a transaction, and whether the call says so itself
/// (`transaction=True`/`False`, not the client's default).
pub(crate) fn pipeline_tx<'t>(
    nav: &Nav<'t>,
    args: Option<Node<'t>>,
    client: ClientKind,
    src: &str,
) -> (Tx, bool) {
    let mut explicit: Option<Node<'t>> = None;
    if let Some(a) = args {
        for k in nav.named_children(a) {
            if k.kind_name() == "keyword_argument" {
                if k.field(Field::Name)
                    .is_some_and(|n| text(n, src) == "transaction")
                {
                    explicit = k.field(Field::Value);
                }
            } else if explicit.is_none() && k.kind_name() != "comment" {
                // Only the first positional argument is `transaction`.
                explicit = Some(k);
            }
        }
    }
    match explicit.map(|e| e.kind_name()) {
        Some("true") => (Tx::Yes, true),
        Some("false") => (Tx::No, true),
        Some("none") | None => (
            match client {
                // The standalone client's pipeline is transactional by default;
                // RedisCluster's is not.
                ClientKind::Standalone => Tx::Yes,
                ClientKind::Cluster => Tx::No,
                ClientKind::Unknown => Tx::Unknown,
            },
            false,
        ),
        Some(_) => (Tx::Unknown, true),
    }
}

/// Whether a function is a `@contextmanager` or `@asynccontextmanager` generator.
fn is_context_manager(info: &crate::index::FuncInfo<'_>) -> bool {
    info.decorators
        .iter()
        .any(|d| d == "contextmanager" || d == "asynccontextmanager")
}

/// The value of a `True` or `False` literal.
pub(crate) fn bool_literal(n: Node<'_>) -> Option<bool> {
    match n.kind_name() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The element a literal index `i` (`1`, `-1`) names in a sequence of `len`, if any.
fn element_at(len: usize, i: i64) -> Option<usize> {
    let from_end = usize::try_from(i.unsigned_abs()).ok()?;
    if i < 0 {
        len.checked_sub(from_end)
    } else {
        (from_end < len).then_some(from_end)
    }
}

/// The literal integer index of the subscript `n` over `value` (`xs[1]`, `xs[-1]`).
fn literal_index(n: Node<'_>, value: Option<Node<'_>>, src: &str) -> Option<i64> {
    let inner = index_text(n, value, src)?;
    let (neg, digits) = match inner.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, inner),
    };
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// The text between the brackets of subscript `n` of `value`, trimmed: `0` of
/// `keys[0]`, `"doc_id"` of `data["doc_id"]`.
fn index_text<'s>(n: Node<'_>, value: Option<Node<'_>>, src: &'s str) -> Option<&'s str> {
    let inner = src.get(value?.end_byte()..n.end_byte())?.trim();
    Some(inner.strip_prefix('[')?.strip_suffix(']')?.trim())
}

/// Whether subscript `n` (of `value`) is indexed by one plain string literal:
/// `data["doc_id"]`.
fn string_index(n: Node<'_>, value: Option<Node<'_>>, src: &str) -> bool {
    let Some(inner) = index_text(n, value, src) else {
        return false;
    };
    let quoted = |q: char| {
        inner.len() >= 2
            && inner.starts_with(q)
            && inner.ends_with(q)
            && !inner[1..inner.len() - 1].contains(['\\', '"', '\'', '{', '}'])
    };
    quoted('"') || quoted('\'')
}

/// Whether the code `scope` (a function) may change the dict held by `name`, or lets
/// it go where something else may: any use of `name` but its assignments (`name =
/// …`), reads of an entry (`name[…]` not assigned, `name.get(…)`) and `return
/// name`.
fn changes_entries(scope: &str, name: &str) -> bool {
    let bytes = scope.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(i) = scope[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        if (at > 0 && (word(bytes[at - 1]) || bytes[at - 1] == b'.'))
            || bytes.get(from).copied().is_some_and(word)
        {
            continue;
        }
        let rest = scope[from..].trim_start_matches([' ', '\t']);
        let before = scope[..at].trim_end_matches([' ', '\t']);
        let line_start = before.is_empty() || before.ends_with('\n');
        if line_start && rest.starts_with('=') && !rest.starts_with("==") {
            continue;
        }
        if before.ends_with("return") && (rest.is_empty() || rest.starts_with(['\n', '#'])) {
            continue;
        }
        if rest.starts_with(".get(") {
            continue;
        }
        if !rest.starts_with('[') || before.ends_with("del") {
            return true;
        }
        // The end of the subscript, then what follows it.
        let mut depth = 0usize;
        let mut end = None;
        for (j, c) in rest.char_indices() {
            match c {
                '[' | '(' | '{' => depth += 1,
                ']' | ')' | '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = Some(j + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return true;
        };
        let after = rest[end..].trim_start_matches([' ', '\t']);
        let assigns = (after.starts_with('=') && !after.starts_with("=="))
            || ["+=", "-=", "|=", "*=", "/=", "%=", "&=", "^="]
                .iter()
                .any(|op| after.starts_with(op))
            || after.starts_with(',');
        if assigns {
            return true;
        }
    }
    false
}

/// Whether `n` reads as a type: names, dotted names, `A | B`, `Union[…]`,
/// `Optional[…]` and other subscripts of names.
fn is_type_expr(n: Node<'_>) -> bool {
    match n.kind_name() {
        "identifier" | "attribute" => true,
        "binary_operator" => {
            let (Some(l), Some(r)) = (n.field(Field::Left), n.field(Field::Right)) else {
                return false;
            };
            is_type_expr(l) && is_type_expr(r)
        }
        "subscript" => n.field(Field::Value).is_some_and(is_type_expr),
        _ => false,
    }
}

/// `set()`, the builtin called with nothing.
fn empty_set(nav: &crate::syntax::Nav<'_>, src: &str, e: Node<'_>) -> bool {
    e.kind_name() == "call"
        && e.field(Field::Function)
            .is_some_and(|f| f.kind_name() == "identifier" && text(f, src) == "set")
        && e.field(Field::Arguments).is_some_and(|a| {
            a.kind_name() == "argument_list" && nav.named_children(a).next().is_none()
        })
}

/// Whether a class's bases, as written, make it an `Enum` (`Enum`, `str, Enum`,
/// `StrEnum`, `enum.IntEnum`).
pub(crate) fn enum_bases(bases: &[String]) -> bool {
    bases.iter().any(|b| {
        let last = b.rsplit('.').next().unwrap_or(b);
        matches!(last, "Enum" | "StrEnum" | "IntEnum")
    })
}

/// The start offsets of the loops whose markers ([`each_marker`]) `binding` carries.
fn each_ids(binding: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = binding;
    while let Some(i) = rest.find("@each") {
        rest = &rest[i + "@each".len()..];
        let end = rest.find(';').unwrap_or(rest.len());
        if let Ok(id) = rest[..end].parse() {
            out.push(id);
        }
        rest = &rest[end..];
    }
    out
}

/// A binding without the markers of the loops it varies with ([`each_marker`]).
fn without_each(binding: &str) -> String {
    let mut out = String::with_capacity(binding.len());
    let mut rest = binding;
    while let Some(i) = rest.find("@each") {
        out.push_str(&rest[..i]);
        match rest[i..].find(';') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether a normalised codec name (lower case, no `-`, `_` or quotes) maps ASCII text
/// to the same bytes: UTF-8, ASCII, Latin-1.
pub(crate) fn keeps_ascii(codec: &str) -> bool {
    matches!(
        codec,
        "utf8" | "ascii" | "usascii" | "latin1" | "iso88591" | "latin" | "l1"
    )
}

/// Whether `x`, a name or an attribute, says it is the project's text encoding
/// (`ENCODING`, `settings.CHARSET`).
pub(crate) fn names_an_encoding(x: Node<'_>, src: &str) -> bool {
    let t = text(x, src).to_ascii_lowercase();
    matches!(x.kind_name(), "identifier" | "attribute")
        && (t.contains("encoding") || t.contains("charset"))
}

/// The methods of redis-py's clients and pipelines that give the command object of
/// a Redis module (RedisJSON, RediSearch, RedisTimeSeries, RedisBloom, RedisGraph,
/// vector sets), whose commands share names with redis-py's own (`json().set`,
/// `json().delete`) but not their arguments.
pub(crate) fn is_module_accessor(m: &str) -> bool {
    matches!(
        m,
        "json" | "ft" | "ts" | "bf" | "cf" | "cms" | "topk" | "tdigest" | "graph" | "vset"
    )
}

/// Methods whose result, on a value that varies per loop pass, varies with it:
/// decoding, the pieces that cutting or trimming it gives, its case or replaced
/// parts, an entry read with `get`, and a record's fields as a dict (`model_dump`,
/// `_asdict`).
fn each_str_method(m: &str) -> bool {
    matches!(
        m,
        "decode"
            | "encode"
            | "split"
            | "rsplit"
            | "partition"
            | "rpartition"
            | "strip"
            | "lstrip"
            | "rstrip"
            | "removeprefix"
            | "removesuffix"
            | "replace"
            | "lower"
            | "upper"
            | "get"
            | "model_dump"
            | "dict"
            | "to_dict"
            | "_asdict"
    )
}

/// The text of a call's arguments when each is a literal string or number (none at
/// all counts), without white space: what tells two such calls apart.
fn literal_call_args(args: Option<Node<'_>>, src: &str) -> Option<String> {
    let Some(args) = args else {
        return Some(String::new());
    };
    let mut out = Vec::new();
    let mut cursor = args.walk();
    for a in args.named_children(&mut cursor) {
        match a.kind_name() {
            "string" | "integer" => out.push(
                text(a, src)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>(),
            ),
            "keyword_argument"
                if a.child_by_field_name("value").is_some_and(|v| {
                    matches!(
                        v.kind_name(),
                        "string" | "integer" | "true" | "false" | "none"
                    )
                }) =>
            {
                out.push(
                    text(a, src)
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect::<String>(),
                )
            }
            "comment" => {}
            _ => return None,
        }
    }
    Some(out.join(","))
}

#[cfg(test)]
mod tests {
    use super::{changes_entries, literal_subscript};

    #[test]
    fn entry_changes() {
        let changed = [
            "doc = {}\ndoc['id'] = 1",
            "doc = {}\ndoc[k] += 1",
            "doc = {}\ndel doc['id']",
            "doc = {}\ndoc.update(x)",
            "doc = {}\ndoc |= x",
            "doc = {}\ndoc['a'], b = 1, 2",
            "doc = {}\nhelper(doc)\nreturn doc",
            "doc = {}\nother = doc",
        ];
        for c in changed {
            assert!(changes_entries(c, "doc"), "{c}");
        }
        let kept = [
            "doc = {}\nreturn doc",
            "doc = {}\nif doc['id'] == 1: pass",
            "doc = {}\nmydoc['id'] = 1\nx.doc['id'] = 2\ndocs['id'] = 3",
            "doc = {}\nreturn doc.get('id')",
            "doc = {}\n    x = doc['id'] + 1\n    return doc  # done",
        ];
        for c in kept {
            assert!(!changes_entries(c, "doc"), "{c}");
        }
    }

    #[test]
    fn literal_subscripts_of_a_loop_value() {
        for ok in [
            "0", "12", "'uuid'", "\"id\"", "b'uuid'", "2:", ":8", "1:-1", "-1:",
        ] {
            assert!(literal_subscript(ok), "{ok}");
        }
        for no in [
            "", ":", "i", "-1", "'a b'", "f'{x}'", "i:", "1:2:3", "'{x}'", "\"\"",
        ] {
            assert!(!literal_subscript(no), "{no}");
        }
    }
}
