//! Clients known by how the code uses them.
//!
//! Real code rarely shows where its client is made: it arrives as a parameter with no
//! annotation, an attribute set from one, the value a context manager yields, the
//! return of a factory with several returns. Such a receiver is a redis-py client of
//! unknown kind (the configured profile decides, as for an annotated `Redis`) when
//! the way the file uses it leaves no doubt:
//!
//! - its `pipeline()` result receives a Redis command and `execute()` (through a
//!   `with … as p`, a name assigned once from it, or a chain `….pipeline().set(…)
//!   .execute()`), or
//! - it receives a method whose name exists only on redis clients ([`ONLY_REDIS`]:
//!   `hset`, `zadd`, `lpush`, `smembers`, `register_script`, … — never a name that
//!   other libraries also use, such as `get`, `set`, `delete`, `keys`, `exists`,
//!   `rename`, `expire`, `ttl`, `mget`, `publish` or `lock`), or
//! - it runs `transaction(func, …)` with a function of the file that uses its
//!   parameter as a transaction (`multi()` and a command: [`crate::txcallback`]).
//!
//! The evidence is read from the file's syntax only, once per file, and only in a
//! file that imports redis-py (`import redis`, `from redis… import …`) or that
//! mentions Redis and imports none of the look-alike libraries
//! ([`LOOKALIKE_LIBRARIES`]): a django cache (`cache.sadd`, `cache.get_many`), a
//! memcached client or an aioredis 1.x connection (whose `pipeline()` is not a
//! transaction) is then not taken for one. (A library built on redis-py, such as
//! walrus, uses its `Database` in modules that never import redis.) A receiver
//! that a class of the file could be is not taken either: when one class of the file
//! (with its bases in the file) defines every method the receiver is called with, it
//! may be an instance of that wrapper, whose methods are followed instead.
//!
//! An attribute of `self` known by its use in one class is a client in every class of
//! its family in the file (its bases and subclasses there) when every class of the
//! family uses it only with methods a redis-py client has ([`ByUse::attr_in_family`]);
//! the project facts carry such an attribute to subclasses and owners of objects of
//! the class in other modules (`project.rs`).
//!
//! A receiver named like a pipeline (`pipe`, `p`, `tx`, `batch`) or a cache (`cache`,
//! `self._cache`: cache objects prefix the keys they are given) is never taken.
//!
//! A receiver is identified by its text and where it is read: a name or an attribute
//! chain (`client`, `queue.connection`) within its function, an attribute of `self`
//! (`self.connection`, `self.tiger.connection`) or a method call on `self`
//! (`self.conn()`) within its class, a module function's call (`get_redis(app)`)
//! within the file. A name assigned once, in its function, the result of such a call
//! (`connection = self.connection(index)`) is that call's result: what it receives
//! is evidence for the call, and it is a client wherever the call is known to give
//! one (a method that only runs `connection.eval(…)`).

use crate::index::{text, ClassId, FuncId};
use crate::syntax::{Field, NodeExt};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

pub(crate) use keylint_core::evidence::ONLY_REDIS;

/// Libraries whose objects answer to redis method names with other semantics: other
/// Redis clients (aioredis 1.x and coredis pipelines are not redis-py's, redis-py-cluster
/// pipelines are never transactions) and cache frameworks whose cache objects prefix
/// the keys they are given (Django's cache, django-redis, Flask-Caching, cachelib,
/// aiocache, dogpile) or are memcached clients. A file that imports one of them and not
/// redis-py knows no client by use.
pub(crate) const LOOKALIKE_LIBRARIES: &[&str] = &[
    "aioredis",
    "coredis",
    "rediscluster",
    "django.core.cache",
    "django_redis",
    "flask_caching",
    "cachelib",
    "aiocache",
    "dogpile",
    "memcache",
    "pymemcache",
    "pylibmc",
    "aiomcache",
];

/// Whether dotted path `p` is library `lib` or something inside it (`redis.client`,
/// not `redisx`).
pub(crate) fn under(p: &str, lib: &str) -> bool {
    p == lib || (p.starts_with(lib) && p.as_bytes().get(lib.len()) == Some(&b'.'))
}

/// Whether dotted path `p` names redis-py (or aioredis), whose objects are known as
/// they are, or one of [`LOOKALIKE_LIBRARIES`], whose objects are never clients.
pub(crate) fn client_or_lookalike(p: &str) -> bool {
    under(p, "redis") || under(p, "aioredis") || LOOKALIKE_LIBRARIES.iter().any(|l| under(p, l))
}

/// Where a receiver is read: what its text means depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    /// A name or attribute chain of a local or parameter.
    Func(FuncId),
    /// An attribute of `self` (or a method call on it) in any method of the class.
    Class(ClassId),
    /// A module-level name, or the call of a module function.
    File,
}

/// A receiver: where it is read and its text (without spaces; a call as `f()`).
pub(crate) type RecvKey = (Scope, String);

/// The receivers of a file that its uses show to be redis-py clients.
#[derive(Debug, Default)]
pub(crate) struct ByUse {
    clients: HashSet<RecvKey>,
    /// Attributes of `self` (`self.conn`) per class of the file: the methods each
    /// receives in the class's methods, and whether that is evidence of a client.
    attrs: HashMap<(ClassId, String), AttrUse>,
    /// Each class of the file with the classes of the file it inherits from or that
    /// inherit from it (itself first).
    families: HashMap<ClassId, Vec<ClassId>>,
}

/// How one attribute of `self` is used in one class.
#[derive(Debug, Default)]
struct AttrUse {
    /// Some use shows a client (see the module notes).
    evidence: bool,
    /// Every method it receives is one a redis-py client has.
    only_client: bool,
}

impl ByUse {
    /// Whether the receiver is known by its use.
    pub(crate) fn contains(&self, key: &RecvKey) -> bool {
        self.clients.contains(key)
    }

    /// Whether attribute `attr` of `self` is a client in every method of class `c`:
    /// some class of its family (its bases and subclasses in the file) shows it is
    /// one by its use, and every class of the family uses it only with methods a
    /// redis-py client has.
    fn attr_in_family(&self, c: ClassId, attr: &str) -> bool {
        if pipeline_like(attr) || attr.to_ascii_lowercase().contains("cache") {
            return false;
        }
        let one = [c];
        let family = self.families.get(&c).map_or(&one[..], |f| &f[..]);
        let mut evidence = false;
        for &k in family {
            if let Some(u) = self.attrs.get(&(k, attr.to_string())) {
                if !u.only_client {
                    return false;
                }
                evidence |= u.evidence;
            }
        }
        evidence
    }
}

/// Whether a redis-py client has method `m`: a command, or one of the client's own
/// methods (pipelines, transactions, scripts, locks, pub/sub, scans).
fn client_method(m: &str) -> bool {
    is_command(m)
        || ONLY_REDIS.contains(&m)
        || matches!(
            m,
            "pipeline"
                | "transaction"
                | "execute_command"
                | "register_script"
                | "eval"
                | "evalsha"
                | "script_load"
                | "script_exists"
                | "pubsub"
                | "publish"
                | "lock"
                | "scan_iter"
                | "hscan_iter"
                | "sscan_iter"
                | "zscan_iter"
                | "ping"
                | "info"
                | "close"
                | "aclose"
                | "flushdb"
                | "flushall"
                | "dbsize"
                | "time"
        )
}

/// Whether a method name is a redis-py command (what a pipeline queues).
pub(crate) fn is_command(m: &str) -> bool {
    crate::methods::table().method(m).is_some()
        || crate::methods::single_key_command(m).is_some()
        || matches!(m, "delete" | "unlink" | "exists" | "touch")
}

/// `attr` when a receiver's text is one attribute of a name (`self.conn`).
fn self_attr_name(t: &str) -> Option<&str> {
    let (root, attr) = t.split_once('.')?;
    (!root.is_empty() && !attr.is_empty() && !attr.contains(['.', '(', '[']) && !root.contains('('))
        .then_some(attr)
}

/// A name that reads like a pipeline or transaction, never taken for a client.
fn pipeline_like(name: &str) -> bool {
    let n = name.trim_start_matches('_').to_ascii_lowercase();
    n.contains("pipe")
        || matches!(
            n.as_str(),
            "p" | "tx" | "txn" | "trans" | "transaction" | "batch" | "multi"
        )
}

impl<'t> crate::lower::Analyzer<'t> {
    /// Whether clients may be known by use in this file: it imports redis-py, or it
    /// mentions Redis (the prefilter), or is linked by imports to a file that does
    /// ([`crate::Options::reached`]), and imports none of [`LOOKALIKE_LIBRARIES`].
    fn by_use_gate(&self) -> bool {
        let imports = |lib: &str| self.ix.imports.values().any(|p| under(p, lib));
        if imports("redis") {
            return true;
        }
        (self.mentions_redis || self.opts.reached)
            && !LOOKALIKE_LIBRARIES.iter().any(|lib| imports(lib))
    }

    /// The receiver key of `n` as read where it is written: a name, an attribute
    /// chain over a name, or the call of one (`get_redis(app)`, `self.conn()`).
    pub(crate) fn recv_key(&self, n: Node<'t>, strict: bool) -> Option<RecvKey> {
        let src = self.src();
        // `(conn or get_connection())`: whichever it gives, read where it is written.
        if n.kind_name() == "parenthesized_expression" {
            let inner = n.named_child(0)?;
            let (l, r) = (inner.field(Field::Left)?, inner.field(Field::Right)?);
            if inner.kind_name() != "boolean_operator"
                || src[l.end_byte()..r.start_byte()].trim() != "or"
            {
                return None;
            }
            self.recv_key(l, strict)?;
            self.recv_key(r, strict)?;
            let scope = self.ix.enclosing_func(n).map_or(Scope::File, Scope::Func);
            let t: String = text(n, src)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            return Some((scope, t));
        }
        let (chain, is_call) = if n.kind_name() == "call" {
            (n.field(Field::Function)?, true)
        } else {
            (n, false)
        };
        // Down the attribute chain to its root name.
        let mut root = chain;
        let mut depth = 0;
        while root.kind_name() == "attribute" {
            root = root.field(Field::Object)?;
            depth += 1;
            if depth > 8 {
                return None;
            }
        }
        if root.kind_name() != "identifier" {
            return None;
        }
        let root_name = text(root, src);
        let last = match chain.kind_name() {
            "attribute" => text(chain.field(Field::Attribute)?, src),
            _ => root_name,
        };
        if !is_call && (matches!(last, "self" | "cls") || (strict && pipeline_like(last))) {
            return None;
        }
        // A cache object (Django's, Flask-Caching's) prefixes the keys it is given.
        if strict && last.to_ascii_lowercase().contains("cache") {
            return None;
        }
        let func = self.ix.enclosing_func(n);
        let class = func.and_then(|f| self.ix.funcs[f].class);
        let is_self = func.is_some_and(|f| self.ix.funcs[f].self_name() == Some(root_name));
        let scope = match (is_self && chain.kind_name() == "attribute", class) {
            (true, Some(c)) => Scope::Class(c),
            _ if is_call && chain.kind_name() == "identifier" => Scope::File,
            _ => match func {
                // A module name the function (and the functions around it) does
                // not bind, or declares `global`: the same object in every function.
                Some(f) if self.module_name_in(root_name, f) => Scope::File,
                Some(f) => Scope::Func(f),
                None => Scope::File,
            },
        };
        let mut t: String = text(chain, src)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if is_call {
            t.push_str("()");
        }
        Some((scope, t))
    }

    /// Whether `name`, read in function `f`, is a module name: bound at module
    /// level, and bound by neither `f` nor a function around it unless declared
    /// `global` there.
    fn module_name_in(&self, name: &str, f: FuncId) -> bool {
        if !self.ix.module_defs.contains_key(name) {
            return false;
        }
        let mut cur = Some(f);
        let mut depth = 0;
        while let Some(g) = cur {
            let info = &self.ix.funcs[g];
            if info.defs.contains_key(name) && !info.nonlocal.iter().any(|x| x == name) {
                return false;
            }
            cur = info.parent;
            depth += 1;
            if depth > 16 {
                return false;
            }
        }
        true
    }

    /// Whether `n`, an unknown receiver, is a client known by its use.
    pub(crate) fn known_by_use(&self, n: Node<'t>) -> bool {
        let by_use = self.by_use.get_or_init(|| self.collect_by_use());
        if by_use.clients.is_empty() {
            return false;
        }
        let Some(k) = self.recv_key(n, true) else {
            return false;
        };
        if by_use.contains(&k) {
            return true;
        }
        // `self.conn` where a base or a subclass of the file shows the client.
        match (&k.0, self_attr_name(&k.1)) {
            (Scope::Class(c), Some(attr)) => by_use.attr_in_family(*c, attr),
            _ => false,
        }
    }

    /// Whether attribute `attr` of class `c`'s objects is a client by its use in the
    /// class and its family of the file (see [`ByUse::attr_in_family`]).
    pub(crate) fn attr_known_by_use(&self, c: ClassId, attr: &str) -> bool {
        let by_use = self.by_use.get_or_init(|| self.collect_by_use());
        by_use.attr_in_family(c, attr)
    }

    /// Each class of the file with its bases and subclasses in the file.
    fn class_families(&self) -> HashMap<ClassId, Vec<ClassId>> {
        let n = self.ix.classes.len();
        let chains: Vec<Vec<ClassId>> = (0..n).map(|c| self.ix.class_chain(c as ClassId)).collect();
        let mut out: HashMap<ClassId, Vec<ClassId>> = HashMap::new();
        for (k, chain) in chains.iter().enumerate() {
            let k = k as ClassId;
            for &b in chain.iter().skip(1) {
                let f = out.entry(k).or_insert_with(|| vec![k]);
                if !f.contains(&b) {
                    f.push(b);
                }
                let f = out.entry(b).or_insert_with(|| vec![b]);
                if !f.contains(&k) {
                    f.push(k);
                }
            }
        }
        out
    }

    /// Reads the evidence of the whole file.
    fn collect_by_use(&self) -> ByUse {
        let mut out = ByUse::default();
        if !self.resolve_names || !self.by_use_gate() {
            return out;
        }
        let src = self.src();
        let nav = self.ix.nav;
        // Methods called on each receiver; methods called on what a `pipeline(…)`
        // call gives, by the call; the pipelines made from each receiver.
        let mut called: HashMap<RecvKey, HashSet<&'t str>> = HashMap::new();
        let mut on_pipe: HashMap<usize, HashSet<&'t str>> = HashMap::new();
        let mut pipes: Vec<(RecvKey, Node<'t>, Option<RecvKey>)> = Vec::new();
        let mut transactions: Vec<(RecvKey, Node<'t>)> = Vec::new();
        let calls = nav.calls(|_| Some(()));
        let aliases = self.call_aliases(&calls);
        for &(call, _) in &calls {
            let Some(func) = call.field(Field::Function) else {
                continue;
            };
            // `getattr(pipe, kind)(…)` with `kind` one of a few literal names
            // (`cmdnames.rs`): that command, received by `pipe`.
            let (obj, m) = if func.kind_name() == "call" {
                match self.getattr_method(func, self.ix.enclosing_func(call)) {
                    Some(x) => x,
                    None => continue,
                }
            } else if func.kind_name() == "attribute" {
                let (Some(obj), Some(attr)) =
                    (func.field(Field::Object), func.field(Field::Attribute))
                else {
                    continue;
                };
                (obj, text(attr, src))
            } else {
                continue;
            };
            // Down a chain of commands (`pipe.set(…).expire(…)`) to what receives it,
            // stopping at a `pipeline(…)` that makes it.
            let mut cur = obj;
            let mut made_by: Option<Node<'t>> = None;
            for _ in 0..10_000 {
                if cur.kind_name() != "call" {
                    break;
                }
                let Some(f) = cur.field(Field::Function) else {
                    break;
                };
                if f.kind_name() != "attribute" {
                    break;
                }
                let (Some(o), Some(a)) = (f.field(Field::Object), f.field(Field::Attribute)) else {
                    break;
                };
                let inner = text(a, src);
                if inner == "pipeline" {
                    made_by = Some(cur);
                    break;
                }
                if !is_command(inner) {
                    break;
                }
                cur = o;
            }
            match made_by {
                Some(p) => {
                    on_pipe.entry(p.id()).or_default().insert(m);
                }
                None => {
                    if let Some(k) = self.recv_key(cur, false) {
                        called.entry(k).or_default().insert(m);
                    }
                }
            }
            if m == "pipeline" {
                if let Some(k) = self.recv_key(obj, false) {
                    pipes.push((k, call, self.pipe_handle(call)));
                }
            }
            if m == "transaction" {
                if let Some(k) = self.recv_key(obj, false) {
                    transactions.push((k, call));
                }
            }
        }
        // What a name assigned a call's result receives, the call's result receives.
        for (name, call) in &aliases {
            if let Some(ms) = called.get(name).cloned() {
                called.entry(call.clone()).or_default().extend(ms);
            }
        }
        let empty = HashSet::new();
        let mut evidence: HashSet<RecvKey> = HashSet::new();
        let mut handles: HashSet<RecvKey> = HashSet::new();
        for (recv, call, handle) in &pipes {
            let uses = match handle {
                Some(h) => {
                    handles.insert(h.clone());
                    called.get(h).unwrap_or(&empty)
                }
                None => on_pipe.get(&call.id()).unwrap_or(&empty),
            };
            if uses.contains("execute") && uses.iter().any(|m| is_command(m)) {
                evidence.insert(recv.clone());
            }
        }
        for (k, ms) in &called {
            if ms.iter().any(|m| ONLY_REDIS.contains(m)) {
                evidence.insert(k.clone());
            }
        }
        evidence.extend(self.transaction_evidence(&transactions, &called));
        for (name, call) in &aliases {
            if evidence.contains(name) {
                evidence.insert(call.clone());
            }
        }
        // Attributes of `self`, per class: what they receive, and whether they are
        // known by their use.
        for (k, ms) in &called {
            let (Scope::Class(c), Some(attr)) = (&k.0, self_attr_name(&k.1)) else {
                continue;
            };
            let u = out.attrs.entry((*c, attr.to_string())).or_default();
            u.only_client =
                ms.iter().all(|m| client_method(m)) && !self.a_file_class_defines_all(ms);
        }
        for k in evidence {
            if handles.contains(&k) {
                continue;
            }
            let ms = called.get(&k).unwrap_or(&empty);
            if self.a_file_class_defines_all(ms) {
                continue;
            }
            if let (Scope::Class(c), Some(attr)) = (&k.0, self_attr_name(&k.1)) {
                let u = out.attrs.entry((*c, attr.to_string())).or_insert(AttrUse {
                    evidence: false,
                    only_client: true,
                });
                u.evidence = true;
            }
            out.clients.insert(k);
        }
        if !out.attrs.is_empty() {
            out.families = self.class_families();
        }
        // A name assigned once the result of a call known to give a client is one,
        // wherever it is assigned (`connection = self.connection(i)` in a method that
        // only runs `connection.eval(…)`).
        for (name, call) in aliases {
            if out.clients.contains(&call) && !handles.contains(&name) {
                out.clients.insert(name);
            }
        }
        out
    }

    /// Names assigned once in their function, and only the result of a call that is
    /// a receiver of its own (`connection = self.connection(index)`, `r = await
    /// get_redis()`): (the name, the call).
    fn call_aliases(&self, calls: &[(Node<'t>, Option<()>)]) -> Vec<(RecvKey, RecvKey)> {
        let nav = self.ix.nav;
        let mut out = Vec::new();
        for &(call, _) in calls {
            let Some(mut parent) = nav.parent(call) else {
                continue;
            };
            let mut value = call;
            if parent.kind_name() == "await" {
                value = parent;
                let Some(p) = nav.parent(parent) else {
                    continue;
                };
                parent = p;
            }
            if parent.kind_name() != "assignment"
                || parent.field(Field::Right).map(|r| r.id()) != Some(value.id())
            {
                continue;
            }
            let Some(left) = parent.field(Field::Left) else {
                continue;
            };
            let Some(func) = self.ix.enclosing_func(call) else {
                continue;
            };
            let once = self.ix.funcs[func]
                .defs
                .get(text(left, self.src()))
                .is_some_and(|d| d.len() == 1);
            if left.kind_name() != "identifier" || !once {
                continue;
            }
            let (Some(name), Some(key)) = (self.recv_key(left, true), self.recv_key(call, false))
            else {
                continue;
            };
            out.push((name, key));
        }
        out
    }

    /// The name a `pipeline(…)` call is bound to in its function: `with … as p`, or
    /// `p = ….pipeline(…)`.
    fn pipe_handle(&self, call: Node<'t>) -> Option<RecvKey> {
        let nav = self.ix.nav;
        let mut parent = nav.parent(call)?;
        if parent.kind_name() == "await" {
            parent = nav.parent(parent)?;
        }
        let target = match parent.kind_name() {
            "as_pattern" => parent
                .field(Field::Alias)
                .and_then(|a| a.named_child(0).or(Some(a)))?,
            "assignment" if parent.field(Field::Right).map(|r| r.id()) == Some(call.id()) => {
                parent.field(Field::Left)?
            }
            _ => return None,
        };
        if target.kind_name() != "identifier" {
            return None;
        }
        let func = self.ix.enclosing_func(call);
        let name: String = text(target, self.src()).to_string();
        Some((
            match func {
                Some(f) => Scope::Func(f),
                None => Scope::File,
            },
            name,
        ))
    }

    /// Whether one class of the file (with its bases in the file) defines every one
    /// of `methods`: the receiver may be an instance of that wrapper.
    fn a_file_class_defines_all(&self, methods: &HashSet<&str>) -> bool {
        if methods.is_empty() {
            return false;
        }
        (0..self.ix.classes.len()).any(|c| {
            let c = c as ClassId;
            methods.iter().all(|m| self.defines(c, m).is_some()) && !self.redis_py_class(c)
        })
    }

    /// Whether a class of the file is a redis-py client (or pipeline) itself: a base on
    /// its chain comes from the `redis` package (`class Prefixed(Mixin, redis.Redis)`),
    /// or it is a mixin that every class of the file deriving from it mixes into such
    /// a base (`class Mixin:` that overrides `pipeline`, used only by `Prefixed`). An
    /// instance of such a class is a redis-py client whatever it overrides, so it is
    /// no look-alike wrapper.
    fn redis_py_class(&self, c: ClassId) -> bool {
        let ix = &self.ix;
        let from_redis = |k: ClassId| {
            ix.class_chain(k).into_iter().any(|x| {
                ix.classes[x].bases.iter().any(|b| {
                    let first = b.split(['.', '[']).next().unwrap_or(b);
                    ix.imports
                        .get(first)
                        .is_some_and(|p| p == "redis" || p.starts_with("redis."))
                })
            })
        };
        if from_redis(c) {
            return true;
        }
        let derived: Vec<ClassId> = (0..ix.classes.len())
            .map(|k| k as ClassId)
            .filter(|&k| k != c && ix.class_chain(k).contains(&c))
            .collect();
        !derived.is_empty() && derived.into_iter().all(from_redis)
    }
}
