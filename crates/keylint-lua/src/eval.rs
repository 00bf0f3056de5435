//! The abstract evaluator: walks a script the way it runs, with values the linter can
//! know (string templates, `KEYS`, `ARGV`, `redis.call` and its aliases, local
//! functions) and records every key passed to Redis.
//!
//! Values: a string is a [`KeyTemplate`]; a value the linter cannot know becomes a
//! hole whose *provenance* ([`Prov`]) says where it came from (a declared key, `ARGV`,
//! data read from Redis, or unknown). Key origins and hole kinds follow from
//! provenance and position, as documented in `keylint_core::template`:
//!
//! - `KEYS[i]`, a value read from Redis, a computed value, and anything held by a
//!   variable named like a key or a prefix are [`HoleKind::Opaque`]: they may carry a
//!   hash tag of their own;
//! - `ARGV[i]` placed after literal text is a [`HoleKind::Fragment`] (an id);
//! - a hole that begins a key is always opaque.
//!
//! Hole bindings identify runtime values: `ARGV[1]` is the same value everywhere in
//! one script. Only `ARGV[i]` with a constant `i` (and values built from it) ever
//! become fragments, so two different bindings never stand for one value by accident.
//!
//! Control flow: every branch and loop body is walked once. A local assigned more than
//! once is followed in walk order (`Frame::alts`): an assignment replaces its values,
//! the arms of an `if` join theirs, a loop body is first walked to find what an
//! iteration assigns (`Eval::dry_walk`);
//! one reaching value is the value, several are possible keys that join no unit. A
//! local assigned from a closure is unknown (see `scope`). Local functions, functions
//! stored in tables and closures are evaluated at each call with the arguments' values
//! (up to a depth and a budget), so a helper
//! `local function jobKey(prefix, id) return prefix .. id end` yields the caller's
//! keys, and `...` in a variadic wrapper is the wrapper's caller's arguments;
//! functions never called are walked once with unknown parameters.

use crate::ast::{Node, F, K};
use crate::hash::{FastMap, FastSet, OffsetMap, OffsetSet};
use crate::paths::{Choice, Constraint};
use crate::scope::{child_of_kind, DeclId, Scopes};
use crate::strings;
use crate::template as tpl;
use keylint_core::model::{CrossSlotPolicy, KeyOrigin, KeyUse, Unit, UnitKind};
use keylint_core::template::{HoleKind, KeyTemplate, Part};
use keylint_core::Span;
use varying::LoopCtx;

mod part;
mod varying;

/// Deepest chain of inlined local-function calls.
const MAX_DEPTH: usize = 8;
/// Most walks of one function inside each other: a recursive function is walked
/// once inside itself.
const MAX_RECURSION: usize = 2;
/// Statements the evaluator may walk for one file before it stops inlining calls.
const BUDGET: usize = 200_000;
/// Deepest nesting of statements and expressions the evaluator walks; deeper code is
/// unknown (generated code can nest thousands of levels and would exhaust the stack).
/// Must stay below `scope::MAX_NEST` so that everything walked was resolved.
const MAX_NEST: usize = 150;
/// Longest hole label taken from the source.
const MAX_LABEL: usize = 40;
/// Most values followed for one reassigned local; beyond, it is unknown.
const MAX_ALTS: usize = 8;
/// Loops nested deeper than this are walked once (see `Eval::dry_walk`).
const MAX_DRY_DEPTH: usize = 3;
/// Most parts (literals and holes) and literal bytes of a key built with `..`;
/// beyond, the value is unknown. Each `a = a .. a` doubles a template, so without
/// a bound a few dozen lines would take the analysis longer than any run may.
const MAX_TEMPLATE_PARTS: usize = 64;
const MAX_TEMPLATE_BYTES: usize = 4096;

/// Where an unknown value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prov {
    /// Only literal bytes went into it (a computation on constants).
    Literal,
    /// `KEYS[i]` (0: the index is not a constant).
    Declared(usize),
    /// A part of `KEYS[i]` (`string.sub(KEYS[1], 1, -6)`), never the whole key.
    Part(usize),
    /// `KEYS[i]` itself or a part of it (a helper that cuts a suffix when present).
    PartOrWhole(usize),
    /// `ARGV`.
    Argv,
    /// Read from Redis, or computed from `ARGV`, literals and data.
    Data,
    /// Cannot tell (a helper's parameter, a reassigned local, an unknown function).
    Unknown,
}

/// Provenance of a value computed from values of these provenances (by an unknown
/// function, arithmetic, `or`): anything computed from a declared key is unknown.
/// Whether `a .. b` would pass the bounds on a built key's size.
fn too_large(a: &KeyTemplate, b: &KeyTemplate) -> bool {
    let bytes = |t: &KeyTemplate| {
        t.parts
            .iter()
            .map(|p| match p {
                Part::Lit(l) => l.bytes.len(),
                Part::Hole(_) => 0,
            })
            .sum::<usize>()
    };
    a.parts.len() + b.parts.len() > MAX_TEMPLATE_PARTS || bytes(a) + bytes(b) > MAX_TEMPLATE_BYTES
}

fn computed(provs: impl IntoIterator<Item = Prov>) -> Prov {
    let mut out = Prov::Literal;
    for p in provs {
        out = match (out, p) {
            (_, Prov::Unknown | Prov::Declared(_) | Prov::Part(_) | Prov::PartOrWhole(_))
            | (Prov::Unknown, _) => return Prov::Unknown,
            (Prov::Literal, Prov::Literal) => Prov::Literal,
            (Prov::Argv, Prov::Argv | Prov::Literal) | (Prov::Literal, Prov::Argv) => Prov::Argv,
            _ => Prov::Data,
        };
    }
    match out {
        Prov::Literal => Prov::Data,
        p => p,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Builtin {
    /// The `redis` table.
    Redis,
    /// `redis.call` or `redis.pcall`.
    Call,
    /// `redis.register_function`.
    RegisterFunction,
    /// The `string` table.
    StringLib,
    /// `string.format`.
    Format,
    /// The `table` table.
    TableLib,
    /// `unpack` / `table.unpack`.
    Unpack,
    /// `tostring`.
    ToString,
    /// Lua's `pcall`.
    LuaPcall,
    /// A library of pure functions (`cjson`, `math`, …).
    PureLib,
    /// A pure function returning one value.
    Pure,
    /// A pure function that may return several values (`string.gsub`, `cjson.decode`
    /// is one value but `cmsgpack.unpack` is many).
    PureMulti,
    /// `string.gmatch`: an iterator over pieces of its first argument.
    Gmatch,
    /// Lua 5.1's `loadstring`: compiles its text into a function.
    Loadstring,
    /// The function `loadstring(text)` made of a text of this provenance: calling it
    /// (`loadstring("return " .. data)()`) decodes a serialized Lua value.
    Chunk(Prov),
    /// Anything else from the standard environment.
    Other,
}

/// Several values (a call in last position, `unpack`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spread {
    /// `unpack(KEYS, i)`: `KEYS[i]`, `KEYS[i+1]`, …
    Keys(usize),
    /// `unpack(ARGV, i)`.
    Argv(usize),
    /// Unknown values of this provenance.
    Values(Prov),
    /// The values appended to a table (`table.insert(t, v)`), all written by one
    /// expression: each has its template ([`Eval::colls`]).
    Coll(usize),
}

#[derive(Debug, Clone)]
enum Val<'t> {
    /// A string (or a number written as one).
    Str(KeyTemplate),
    /// The script's `KEYS` table.
    Keys,
    /// The script's `ARGV` table.
    Argv,
    Builtin(Builtin),
    /// A function defined in this file.
    Func(Node<'t>),
    Spread(Spread),
    Nil,
    /// Another value (a table, a number, a boolean) of this provenance.
    Other(Prov),
}

struct Frame<'t> {
    id: usize,
    env: OffsetMap<Val<'t>>,
    returns: Vec<Val<'t>>,
    /// The arms of the `if`s being walked.
    path: Vec<Constraint>,
    /// Arms that returned earlier in this invocation: what follows is outside them.
    exits: Vec<Constraint>,
    /// The values a variadic function was called with beyond its named parameters,
    /// with the caller's argument expressions; `None` when not known.
    varargs: Option<(Vec<Val<'t>>, Vec<Node<'t>>)>,
    /// The values each reassigned local declared in this invocation may hold at this
    /// point, with where each value is written (see [`Eval::assign`]).
    alts: OffsetMap<Vec<(Val<'t>, Span)>>,
    /// The caller's argument expression of each parameter, by its declaration.
    param_nodes: OffsetMap<Node<'t>>,
    /// The bytes of the function this invocation walks (empty for a script's body).
    func: Span,
}

impl<'t> Frame<'t> {
    fn new(id: usize) -> Frame<'t> {
        Frame {
            id,
            env: OffsetMap::default(),
            returns: Vec::new(),
            path: Vec::new(),
            exits: Vec::new(),
            varargs: None,
            alts: OffsetMap::default(),
            param_nodes: OffsetMap::default(),
            func: 0..0,
        }
    }
}

/// Keys and command units collected for one script or function.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    /// Indices into the key list, distinct, in first-use order.
    pub keys: Vec<usize>,
    /// One unit per multi-key command.
    pub commands: Vec<Unit>,
    /// The first `redis.call` of the unit, to point at.
    pub first_call: Option<Span>,
    /// Every key occurrence with the branch arms it is under.
    pub occurrences: Vec<(usize, Vec<Constraint>)>,
    /// `keys` as a set.
    key_set: OffsetSet,
    /// `occurrences` as a set.
    occurrence_set: FastSet<(usize, Vec<Constraint>)>,
    /// The highest `i` such that every run passes `KEYS[i]` (or a key built from it)
    /// to a command.
    pub required: usize,
    /// `KEYS` and `SCAN` calls: the command and the call.
    pub listings: Vec<(String, Span)>,
    /// Keys of [`Collector::commands`] that stand for many keys (values collected in a
    /// table in a loop): (index into `commands`, key, the bindings that vary).
    pub families: Vec<(usize, usize, Vec<String>)>,
    /// The `BY` and `GET` patterns of `SORT`/`SORT_RO` commands.
    pub sort_patterns: Vec<keylint_core::model::SortPattern>,
}

impl Collector {
    /// A key some runs may touch (one of several values of a local): it is one of the
    /// script's keys, but is in no unit.
    fn add_possible(&mut self, k: usize) {
        if self.key_set.insert(k) {
            self.keys.push(k);
        }
    }

    fn add(&mut self, k: usize, constraints: Vec<Constraint>) {
        // Sets beside the ordered lists keep a script with thousands of keys linear.
        if self.key_set.insert(k) {
            self.keys.push(k);
        }
        if self.occurrence_set.insert((k, constraints.clone())) {
            self.occurrences.push((k, constraints));
        }
    }
}

/// A function nobody in the file calls, with the keys it touches.
#[derive(Debug)]
pub(crate) struct Standalone {
    /// Its name, or `function`.
    pub name: String,
    /// The function.
    pub span: Span,
    /// Its name in the source.
    pub anchor: Span,
    /// Its keys.
    pub collector: Collector,
}

/// A function registered with `redis.register_function`.
#[derive(Debug)]
pub(crate) struct Registration<'t> {
    /// The function's name, when it is a literal.
    pub name: Option<String>,
    /// The name's expression.
    pub name_span: Span,
    /// The `register_function` call.
    pub span: Span,
    /// The callback.
    pub callback: Option<Node<'t>>,
    /// The flags; `None` when they cannot be read.
    pub flags: Option<Vec<String>>,
    /// The `flags` table.
    pub flags_span: Option<Span>,
}

/// The evaluator's state for one file.
pub(crate) struct Eval<'t, 's> {
    src: &'s [u8],
    scopes: &'s Scopes,
    frames: Vec<Frame<'t>>,
    next_frame: usize,
    provs: FastMap<String, Prov>,
    /// Every key use found.
    pub keys: Vec<KeyUse>,
    key_index: FastMap<(usize, usize), Vec<usize>>,
    /// Where the keys of the script being walked go.
    pub collector: Option<Collector>,
    /// Function nodes (start byte) walked at least once.
    evaluated: OffsetSet,
    active: Vec<usize>,
    budget: usize,
    /// Spelling of `KEYS` / `ARGV` in hole labels (`keys`/`args` in functions).
    keys_name: String,
    argv_name: String,
    /// Registrations met at the top level.
    pub registrations: Vec<Registration<'t>>,
    /// True while walking a library's top level: registrations are collected.
    pub library: bool,
    /// Current nesting of statements and expressions being walked.
    nest: usize,
    /// How many enclosing constructs may skip what is being walked without an `if`
    /// arm saying so: loop bodies, the right side of `and`/`or`, `pcall`.
    maybe_skipped: usize,
    /// How many loop bodies enclose what is being walked.
    loop_depth: usize,
    /// Where the script starts in the text: what comes before is included files.
    pub script_start: usize,
    /// Each included file's range and the `@include` line that pulled it in.
    pub regions: Vec<(Span, Span)>,
    /// Code the host program pastes into the script from elsewhere (a prelude of
    /// helper functions shared by several scripts): shown, like an included file, at
    /// the call in the script's own text that reached it.
    pub pasted: Vec<Span>,
    /// The calls being inlined, outermost first.
    call_sites: Vec<Span>,
    /// Functions stored in tables by `function t.name()` / `function t:name()`: (the
    /// table, the name) → the function. A local table is `@<declaration>`, a global
    /// one its name.
    methods: FastMap<(String, String), Node<'t>>,
    /// The script receives no declared key at all (a library file whose scripts never
    /// read `KEYS`): every key is undeclared.
    pub no_keys: bool,
    /// True while the table of an index or the first argument of `unpack` is
    /// evaluated: a use that applies the shift of `table.remove(KEYS, 1)`.
    shift_aware: bool,
    /// Tables filled only by `table.insert(t, v)`, by (declaration, frame): the
    /// values appended so far, by the start of the expression that wrote each.
    tables: FastMap<(DeclId, usize), Vec<(usize, Val<'t>)>>,
    /// The value of each [`Spread::Coll`].
    colls: Vec<Val<'t>>,
    /// For each [`Spread::Coll`], the bindings of its value that take another value in
    /// each pass of the loop that filled the table (empty: one value, or not known).
    colls_varying: Vec<Vec<String>>,
    /// For each collected table, the bindings of its value that vary from pass to pass
    /// of the loop that fills it (see [`Eval::varying_in_loop`]).
    tables_varying: FastMap<(DeclId, usize), Vec<String>>,
    /// Records: tables a local is bound to once, from a constructor with named fields
    /// (`local rk = { tick = "tick|sessions", session = "sessions|" .. KEYS[1] }`),
    /// whose fields nothing writes and which are handed to no other code, by
    /// (declaration, frame): each field's value, read at `rk.tick`.
    records: FastMap<(DeclId, usize), Vec<(String, Val<'t>)>>,
    /// The named fields of the table constructors evaluated so far and not yet bound,
    /// by the constructor's start.
    made_records: OffsetMap<Vec<(String, Val<'t>)>>,
    /// The loops being walked, outermost first.
    loops: Vec<LoopCtx<'t>>,
    /// Hole bindings made inside a loop for values that change from pass to pass
    /// (see the `varying` module).
    varies: FastSet<String>,
    /// The initial value of each local declared with one, by its declaration.
    inits: OffsetMap<Node<'t>>,
    /// The names declared by `for` clauses, with the expressions the loop iterates
    /// over (its range, or its iterator call).
    loop_vars: OffsetMap<Vec<Node<'t>>>,
    /// The value expressions appended to each local table (`table.insert(t, v)`,
    /// `t[#t + 1] = v`), by its declaration.
    appends: OffsetMap<Vec<Node<'t>>>,
}

/// Whether a template ends with literal text that opens no hash tag.
fn ends_with_text(t: &KeyTemplate) -> bool {
    matches!(t.parts.last(), Some(Part::Lit(l)) if !l.bytes.is_empty() && !l.bytes.contains(&b'{'))
}

/// True for a name that suggests a whole key or a prefix (`queueKey`, `prefix`, `ns`).
fn key_like_name(name: &str) -> bool {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() || c.is_ascii_digit() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "key" | "keys" | "prefix" | "pfx" | "ns" | "namespace" | "base" | "root"
        )
    })
}

impl<'t, 's> Eval<'t, 's> {
    /// A fresh evaluator.
    pub(crate) fn new(src: &'s [u8], scopes: &'s Scopes) -> Eval<'t, 's> {
        Eval {
            src,
            scopes,
            frames: vec![Frame::new(0)],
            next_frame: 1,
            provs: FastMap::default(),
            keys: Vec::new(),
            key_index: FastMap::default(),
            collector: None,
            evaluated: OffsetSet::default(),
            active: Vec::new(),
            budget: BUDGET,
            keys_name: "KEYS".into(),
            argv_name: "ARGV".into(),
            registrations: Vec::new(),
            library: false,
            nest: 0,
            maybe_skipped: 0,
            loop_depth: 0,
            script_start: 0,
            regions: Vec::new(),
            pasted: Vec::new(),
            call_sites: Vec::new(),
            methods: FastMap::default(),
            shift_aware: false,
            no_keys: false,
            tables: FastMap::default(),
            colls: Vec::new(),
            colls_varying: Vec::new(),
            tables_varying: FastMap::default(),
            records: FastMap::default(),
            made_records: OffsetMap::default(),
            loops: Vec::new(),
            varies: FastSet::default(),
            inits: OffsetMap::default(),
            loop_vars: OffsetMap::default(),
            appends: OffsetMap::default(),
        }
    }

    /// A span the script's diagnostics can show: a span inside an included file or
    /// pasted code becomes the outermost call in the script's own text that led there,
    /// or the `@include` line.
    fn visible(&self, span: Span) -> Span {
        if !self.elsewhere(span.start) {
            return span;
        }
        if let Some(site) = self.call_sites.iter().find(|s| !self.elsewhere(s.start)) {
            return site.clone();
        }
        self.regions
            .iter()
            .find(|(r, _)| r.contains(&span.start))
            .map_or(span, |(_, line)| line.clone())
    }

    /// Whether text at `at` is not the script's own: an included file, or code the
    /// host pasted in.
    fn elsewhere(&self, at: usize) -> bool {
        at < self.script_start || self.pasted.iter().any(|r| r.contains(&at))
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        std::str::from_utf8(&self.src[node.byte_range()]).unwrap_or("?")
    }

    fn label(&self, node: Node<'_>) -> String {
        let text = self.text(node);
        if text
            .bytes()
            .all(|b| b.is_ascii() && !char::from(b).is_whitespace())
        {
            // One word of ASCII (`KEYS[1]`, `prefix`): nothing to join, one byte a char.
            return if text.len() > MAX_LABEL {
                format!("{}…", &text[..MAX_LABEL - 1])
            } else {
                text.to_string()
            };
        }
        let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if t.chars().count() > MAX_LABEL {
            let cut: String = t.chars().take(MAX_LABEL - 1).collect();
            format!("{cut}…")
        } else {
            t
        }
    }

    fn frame_id(&self) -> usize {
        self.frames.last().map(|f| f.id).unwrap_or(0)
    }

    /// A hole that stands for this value of this node in this invocation.
    fn fresh(&mut self, node: Node<'t>, prov: Prov) -> KeyTemplate {
        let label = self.label(node);
        let binding = format!("~{label}@{}#{}", node.start_byte(), self.frame_id());
        self.provs.insert(binding.clone(), prov);
        self.mark_varying(&binding, node);
        tpl::hole(label, binding, HoleKind::Opaque, Some(node.byte_range()))
    }

    fn prov_of_binding(&self, binding: &str) -> Prov {
        self.provs.get(binding).copied().unwrap_or(Prov::Unknown)
    }

    fn prov_of_template(&self, t: &KeyTemplate) -> Prov {
        computed(tpl::holes(t).map(|h| self.prov_of_binding(&h.binding)))
    }

    fn prov_of(&self, v: &Val<'t>) -> Prov {
        match v {
            Val::Str(t) if !t.has_holes() => Prov::Literal,
            Val::Str(t) => self.prov_of_template(t),
            Val::Keys => Prov::Declared(0),
            Val::Argv => Prov::Argv,
            Val::Spread(Spread::Keys(_)) => Prov::Declared(0),
            Val::Spread(Spread::Argv(_)) => Prov::Argv,
            Val::Spread(Spread::Values(p)) | Val::Other(p) => *p,
            Val::Spread(Spread::Coll(i)) => match self.colls.get(*i) {
                Some(v @ Val::Str(_)) => self.prov_of(&v.clone()),
                _ => Prov::Unknown,
            },
            Val::Nil | Val::Builtin(_) | Val::Func(_) => Prov::Literal,
        }
    }

    /// The template of a value used as a string.
    fn template(&mut self, v: &Val<'t>, node: Node<'t>) -> KeyTemplate {
        match v {
            Val::Str(t) => t.clone(),
            Val::Spread(s) => {
                let first = self.spread_item(*s, 0, node);
                self.template(&first, node)
            }
            other => {
                let p = self.prov_of(other);
                if let Some(t) = self.local_value(node, p) {
                    return t;
                }
                self.fresh(node, p)
            }
        }
    }

    /// A local assigned once that holds a value other than a string (a field read from
    /// decoded data, a number): the same value at each use, so every use is one hole.
    fn local_value(&mut self, node: Node<'t>, p: Prov) -> Option<KeyTemplate> {
        if node.kind() != K::Identifier {
            return None;
        }
        let d = *self.scopes.uses.get(&node.start_byte())?;
        if self.scopes.mutated.contains(&d) {
            return None;
        }
        let frame = self
            .frames
            .iter()
            .rev()
            .find(|f| f.env.contains_key(&d))?
            .id;
        let name = self.text(node).to_string();
        let binding = format!("{name}@{d}#{frame}");
        self.provs.insert(binding.clone(), p);
        self.mark_varying(&binding, node);
        Some(tpl::hole(
            &name,
            binding,
            HoleKind::Opaque,
            Some(node.byte_range()),
        ))
    }

    fn declared_hole(&mut self, i: usize, label_node: Option<Node<'t>>) -> Val<'t> {
        let (label, binding) = if i == 0 {
            let node = label_node.expect("a non-constant index has a node");
            let label = self.label(node);
            let b = format!("~{label}@{}#{}", node.start_byte(), self.frame_id());
            self.mark_varying(&b, node);
            (label, b)
        } else {
            (format!("{}[{i}]", self.keys_name), format!("KEYS[{i}]"))
        };
        let tainted = self.scopes.tainted_globals.contains("KEYS");
        let binding = if tainted && i != 0 {
            format!("~{binding}@tainted#{}", self.frame_id())
        } else {
            binding
        };
        let prov = if tainted {
            Prov::Unknown
        } else {
            Prov::Declared(i)
        };
        self.provs.insert(binding.clone(), prov);
        Val::Str(tpl::hole(
            &label,
            binding,
            HoleKind::Opaque,
            label_node.map(|n| n.byte_range()),
        ))
    }

    fn argv_hole(&mut self, i: usize, node: Node<'t>) -> Val<'t> {
        if i == 0 || self.scopes.tainted_globals.contains("ARGV") {
            let p = if i == 0 { Prov::Argv } else { Prov::Unknown };
            return Val::Str(self.fresh(node, p));
        }
        let binding = format!("ARGV[{i}]");
        self.provs.insert(binding.clone(), Prov::Argv);
        Val::Str(tpl::hole(
            format!("{}[{i}]", self.argv_name),
            binding,
            HoleKind::Fragment,
            Some(node.byte_range()),
        ))
    }

    fn spread_item(&mut self, s: Spread, j: usize, node: Node<'t>) -> Val<'t> {
        match s {
            Spread::Keys(start) if start > 0 => self.declared_hole(start + j, Some(node)),
            Spread::Keys(_) => self.declared_hole(0, Some(node)),
            Spread::Argv(start) if start > 0 => self.argv_hole(start + j, node),
            Spread::Argv(_) => self.argv_hole(0, node),
            Spread::Values(p) => Val::Other(p),
            Spread::Coll(i) => self
                .colls
                .get(i)
                .cloned()
                .unwrap_or(Val::Other(Prov::Unknown)),
        }
    }

    fn single(&mut self, v: Val<'t>, node: Node<'t>) -> Val<'t> {
        match v {
            Val::Spread(s) => self.spread_item(s, 0, node),
            v => v,
        }
    }

    // ------------------------------------------------------------------
    // Environment
    // ------------------------------------------------------------------

    fn lookup_decl(&self, d: DeclId) -> Option<&Val<'t>> {
        self.frames.iter().rev().find_map(|f| f.env.get(&d))
    }

    /// Whether the local `ident` declares again, as a key of its own, a name this
    /// invocation gave a key of `KEYS` (`local vcell_key = KEYS[1]`, then `local
    /// vcell_key = "vcell:" .. ARGV[2]`): a script that rebuilds the declared key
    /// under the same name most likely rebuilds it by value (its caller passes that
    /// very key as `KEYS[1]`), which the script alone cannot show. The new key is
    /// unknown: neither undeclared nor another key. A value built from the key itself
    /// (`local k = KEYS[1]; local k = k .. ":x"`) is another key, read as usual.
    fn rebuilds_declared_key(&self, ident: Node<'_>, val: &Val<'t>) -> bool {
        let Val::Str(t) = val else {
            return false;
        };
        let name = self.text(ident).as_bytes();
        let d = ident.start_byte();
        let Some(frame) = self.frames.last() else {
            return false;
        };
        // The latest earlier declaration of the same name in this invocation.
        let earlier = frame
            .env
            .iter()
            .filter(|(&e, _)| {
                e < d
                    && self.src.get(e..e + name.len()) == Some(name)
                    && !self
                        .src
                        .get(e + name.len())
                        .is_some_and(|&c| c == b'_' || c.is_ascii_alphanumeric())
            })
            .max_by_key(|(&e, _)| e);
        let Some((_, Val::Str(old))) = earlier else {
            return false;
        };
        let [Part::Hole(h)] = old.parts.as_slice() else {
            return false;
        };
        matches!(self.prov_of_binding(&h.binding), Prov::Declared(i) if i > 0)
            && !tpl::holes(t).any(|x| x.binding == h.binding)
    }

    /// Binds a local or parameter declared by `ident` to `val`.
    fn bind(&mut self, ident: Node<'_>, val: Val<'t>) {
        let d = ident.start_byte();
        if self.scopes.mutated.contains(&d) {
            if !self.scopes.captured.contains(&d) {
                let span = ident.byte_range();
                if let Some(f) = self.frames.last_mut() {
                    f.alts.insert(d, vec![(val, span)]);
                }
            }
            return;
        }
        let name = self.text(ident).to_string();
        let val = match val {
            Val::Str(t) => {
                // A local named as a key or a prefix (`prefix = ARGV[1]`) may hold a
                // whole key or prefix of the caller's, with a tag of its own: what it
                // begins with is opaque. One that begins with text the script writes
                // (`subject_key = 'subjects:' .. ARGV[2]`) holds its values as
                // fragments, as the same text written inline does.
                let t = if key_like_name(&name) && matches!(t.parts.first(), Some(Part::Hole(_))) {
                    tpl::all_opaque(t)
                } else {
                    t
                };
                // A value with no identity of its own (`~…`: one node, one use) gets
                // the local's: the local is assigned once.
                match t.parts.as_slice() {
                    [Part::Hole(h)] if h.binding.starts_with('~') => {
                        let prov = self.prov_of_binding(&h.binding);
                        let binding = format!("{name}@{d}#{}", self.frame_id());
                        self.provs.insert(binding.clone(), prov);
                        self.inherit_varying(&binding, &h.binding);
                        Val::Str(tpl::hole(&name, binding, h.kind, h.span.clone()))
                    }
                    _ => Val::Str(t),
                }
            }
            Val::Other(_) if self.scopes.field_written.contains(&d) => {
                // Its fields change after it is bound: a field may hold anything.
                Val::Other(Prov::Unknown)
            }
            Val::Other(p) => {
                // Keep it a table-like value; its fields inherit the provenance.
                Val::Other(p)
            }
            v => v,
        };
        if let Some(f) = self.frames.last_mut() {
            f.env.insert(d, val);
        }
    }

    fn identifier(&mut self, node: Node<'t>) -> Val<'t> {
        let name = self.text(node);
        if let Some(&d) = self.scopes.uses.get(&node.start_byte()) {
            if self.scopes.mutated.contains(&d) {
                // One value reaches this use: it is the local's value.
                let alts = self.alternatives(node).cloned().unwrap_or_default();
                return match alts.as_slice() {
                    [(v, _)] if !matches!(v, Val::Other(Prov::Unknown)) => v.clone(),
                    [_, _, ..] => self.one_of(node, d, &alts),
                    _ => Val::Other(Prov::Unknown),
                };
            }
            return match self.lookup_decl(d) {
                Some(v) => v.clone(),
                // Declared but not bound here (a parameter of a function walked on its
                // own, an upvalue of another invocation): unknown.
                None => Val::Other(Prov::Unknown),
            };
        }
        if self.scopes.tainted_globals.contains(name) {
            return Val::Other(Prov::Unknown);
        }
        // After a removal, only an index or `unpack` of it says which values it
        // holds (both shift); any other whole use (`#KEYS`, `ipairs(KEYS)`) is unknown.
        if matches!(name, "KEYS" | "ARGV")
            && self.removed_before(name == "KEYS", node.start_byte()) > 0
            && !self.shift_aware
        {
            return Val::Other(Prov::Unknown);
        }
        match name {
            "KEYS" => Val::Keys,
            "ARGV" => Val::Argv,
            "redis" => Val::Builtin(Builtin::Redis),
            "string" => Val::Builtin(Builtin::StringLib),
            "table" => Val::Builtin(Builtin::TableLib),
            "unpack" => Val::Builtin(Builtin::Unpack),
            "tostring" => Val::Builtin(Builtin::ToString),
            "pcall" => Val::Builtin(Builtin::LuaPcall),
            "tonumber" | "type" => Val::Builtin(Builtin::Pure),
            "loadstring" => Val::Builtin(Builtin::Loadstring),
            "cjson" | "cmsgpack" | "struct" | "bit" | "math" | "os" => {
                Val::Builtin(Builtin::PureLib)
            }
            "nil" => Val::Nil,
            _ => match name.strip_prefix(crate::HOST_VALUE) {
                // A value the host code pasted into the script's source, inside a
                // string literal (a `string.Template` placeholder): text that never
                // comes from `KEYS`, one value wherever it is used.
                Some(host) if !host.is_empty() => {
                    let binding = format!("host:{host}");
                    self.provs.insert(binding.clone(), Prov::Data);
                    Val::Str(tpl::hole(
                        format!("${host}"),
                        binding,
                        HoleKind::Opaque,
                        Some(node.byte_range()),
                    ))
                }
                _ => Val::Other(Prov::Unknown),
            },
        }
    }

    // ------------------------------------------------------------------
    // Statements
    // ------------------------------------------------------------------

    /// Walks the statements of a chunk or block.
    pub(crate) fn block(&mut self, node: Node<'t>) {
        if self.nest >= MAX_NEST {
            return;
        }
        for s in node.named_children() {
            self.statement(s);
        }
    }

    fn block_field(&mut self, node: Node<'t>, field: F) {
        if let Some(b) = node.field(field) {
            self.block(b);
        }
    }

    fn statement(&mut self, node: Node<'t>) {
        if self.nest >= MAX_NEST {
            return;
        }
        self.nest += 1;
        self.statement_inner(node);
        self.nest -= 1;
    }

    fn statement_inner(&mut self, node: Node<'t>) {
        if node.is_error() || node.is_missing() {
            return;
        }
        self.budget = self.budget.saturating_sub(1);
        match node.kind() {
            K::VariableDeclaration => self.local_declaration(node),
            K::FunctionDeclaration => {
                let is_local = node.first_child().is_some_and(|c| c.kind() == K::Local);
                if let (true, Some(name)) = (is_local, node.field(F::Name)) {
                    self.bind(name, Val::Func(node));
                } else if let Some(name) = node.field(F::Name) {
                    // `function M.key(id)`, `function config:key(id)`.
                    let member = match name.kind() {
                        K::DotIndexExpression => name.field(F::Field),
                        K::MethodIndexExpression => name.field(F::Method),
                        _ => None,
                    };
                    let table = name.field(F::Table).and_then(|t| self.table_identity(t));
                    if let (Some(table), Some(member)) = (table, member) {
                        let member = self.text(member).to_string();
                        self.methods.insert((table, member), node);
                    }
                }
            }
            K::AssignmentStatement => {
                let mut vals = Vec::new();
                if let Some(values) = child_of_kind(node, K::ExpressionList) {
                    for v in values.named_children() {
                        if v.kind() != K::Comment {
                            let val = self.expr(v);
                            vals.push((val, v));
                        }
                    }
                }
                self.assign(node, vals);
                if let Some(targets) = child_of_kind(node, K::VariableList) {
                    for t in targets.named_children() {
                        // Index expressions in targets may contain calls.
                        if t.kind() == K::BracketIndexExpression {
                            if let Some(f) = t.field(F::Field) {
                                self.expr(f);
                            }
                        }
                    }
                }
            }
            K::FunctionCall => {
                self.call(node);
            }
            K::DoStatement => self.block_field(node, F::Body),
            K::WhileStatement => self.looped(node, |me| {
                if let Some(c) = node.field(F::Condition) {
                    me.expr(c);
                }
                me.loop_body(node.field(F::Body));
            }),
            K::RepeatStatement => self.looped(node, |me| {
                me.loop_body(node.field(F::Body));
                if let Some(c) = node.field(F::Condition) {
                    me.expr(c);
                }
            }),
            K::IfStatement => self.if_statement(node),
            K::ForStatement => self.looped(node, |me| me.for_statement(node)),
            K::ReturnStatement => {
                let mut values = Vec::new();
                let mut exprs = Vec::new();
                for e in node.named_children() {
                    if e.kind() == K::ExpressionList {
                        exprs.extend(e.named_children());
                    } else if e.kind() != K::Comment {
                        exprs.push(e);
                    }
                }
                for e in &exprs {
                    values.push(self.expr(*e));
                }
                let multi = exprs.len() != 1
                    || matches!(values.first(), Some(Val::Spread(_)))
                    || exprs[0].kind() == K::FunctionCall;
                let v = match (multi, values.into_iter().next()) {
                    (false, Some(v)) => v,
                    (true, Some(v)) => Val::Spread(Spread::Values(
                        self.part_prov(&v).unwrap_or_else(|| self.prov_of(&v)),
                    )),
                    _ => Val::Nil,
                };
                if let Some(f) = self.frames.last_mut() {
                    f.returns.push(v);
                }
            }
            _ => {}
        }
    }

    /// Follows `k = v` for reassigned locals: after it, `k` holds `v` (whatever it held
    /// before). Branches join the values of their arms ([`Eval::if_statement`]), so at
    /// a use a local holds one of a few known values: each is a possible key.
    fn assign(&mut self, node: Node<'t>, vals: Vec<(Val<'t>, Node<'t>)>) {
        let Some(targets) = child_of_kind(node, K::VariableList) else {
            return;
        };
        let n = vals.len();
        for (i, t) in targets.named_children().enumerate() {
            if t.kind() == K::DotIndexExpression {
                // `M.key = function(id) … end` stores a function; any other value
                // replaces it.
                let table = t.field(F::Table).and_then(|tb| self.table_identity(tb));
                let field = t.field(F::Field).map(|f| self.text(f).to_string());
                if let (Some(table), Some(field)) = (table, field) {
                    match vals.get(i) {
                        Some((Val::Func(f), _)) if i < n => {
                            self.methods.insert((table, field), *f);
                        }
                        _ => {
                            self.methods.remove(&(table, field));
                        }
                    }
                }
                continue;
            }
            if let Some(table) = t.field(F::Table) {
                // `t[#t + 1] = v`: appended, like `table.insert(t, v)`.
                if crate::scope::is_append(t, table, self.src) {
                    if let Some(&(_, e)) = vals.get(i) {
                        self.note_append(table, e);
                    }
                    if let (Some(at), Some((v, e))) = (self.collected(table), vals.get(i)) {
                        let (v, start) = (self.single(v.clone(), *e), e.start_byte());
                        self.note_varying(at, &v);
                        if let Some(list) = self.tables.get_mut(&at) {
                            match list.iter_mut().find(|(s, _)| *s == start) {
                                Some(slot) => slot.1 = v,
                                None => list.push((start, v)),
                            }
                        }
                    }
                }
            }
            if t.kind() != K::Identifier {
                continue;
            }
            let Some(&d) = self.scopes.uses.get(&t.start_byte()) else {
                continue;
            };
            let value = match vals.get(i) {
                Some((Val::Spread(sp), e)) if i + 1 == n => {
                    let (sp, e) = (*sp, *e);
                    (self.spread_item(sp, 0, e), e.byte_range())
                }
                Some((v, e)) if i + 1 < n => {
                    let (v, e) = (v.clone(), *e);
                    (self.single(v, e), e.byte_range())
                }
                Some((v, e)) => (v.clone(), e.byte_range()),
                None => match vals.last() {
                    Some((Val::Spread(sp), e)) => {
                        let (sp, e) = (*sp, *e);
                        (self.spread_item(sp, i + 1 - n, e), e.byte_range())
                    }
                    _ => (Val::Nil, t.byte_range()),
                },
            };
            if let Some(f) = self
                .frames
                .iter_mut()
                .rev()
                .find(|f| f.alts.contains_key(&d))
            {
                f.alts.insert(d, vec![value]);
            }
        }
    }

    /// A local that holds one of several values here: an opaque value of their common
    /// provenance when none of them is a declared key or unknown (a name from `ARGV`
    /// cut two ways), else unknown. Its identity is the local with the assignments that
    /// reach this use, so two uses reached by the same assignments are the same value.
    fn one_of(&mut self, node: Node<'t>, d: DeclId, alts: &[(Val<'t>, Span)]) -> Val<'t> {
        let mut provs = Vec::new();
        let mut sites = Vec::new();
        // Every value is `KEYS[i]` itself or begins with it (`k = KEYS[6]`, then
        // `k = k .. ":" .. group` under an `if`): whichever reaches, a key built by
        // appending to it is built from `KEYS[i]`.
        let rooted = self.declared_root(alts);
        for (v, at) in alts {
            if matches!(v, Val::Nil) {
                continue;
            }
            match self.prov_of(v) {
                Prov::Unknown | Prov::Declared(_) if rooted.is_some() => {}
                Prov::Unknown | Prov::Declared(_) => return Val::Other(Prov::Unknown),
                p => provs.push(p),
            }
            sites.push(at.start.to_string());
        }
        if let Some(i) = rooted {
            provs = vec![Prov::Declared(i)];
        }
        if provs.is_empty() {
            return Val::Other(Prov::Unknown);
        }
        if !alts.iter().any(|(v, _)| matches!(v, Val::Str(_))) {
            // Tables or numbers (a list read from Redis, re-read in a loop).
            return Val::Other(computed(provs));
        }
        let name = self.text(node).to_string();
        let frame = self
            .frames
            .iter()
            .rev()
            .find(|f| f.alts.contains_key(&d))
            .map_or(0, |f| f.id);
        let binding = format!("{name}@{d}#{frame}:{}", sites.join(","));
        let prov = match provs.as_slice() {
            [p @ Prov::Declared(_)] => *p,
            _ => computed(provs),
        };
        self.provs.insert(binding.clone(), prov);
        self.mark_varying(&binding, node);
        Val::Str(tpl::hole(
            &name,
            binding,
            HoleKind::Opaque,
            Some(node.byte_range()),
        ))
    }

    /// The `i` of `KEYS[i]` when every value (`nil` aside) is a string that begins
    /// with that declared key itself, at least one of them with more after it.
    fn declared_root(&self, alts: &[(Val<'t>, Span)]) -> Option<usize> {
        let mut root = None;
        let mut longer = false;
        for (v, _) in alts {
            let t = match v {
                Val::Nil => continue,
                Val::Str(t) => t,
                _ => return None,
            };
            let Some(Part::Hole(h)) = t.parts.first() else {
                return None;
            };
            let Prov::Declared(i @ 1..) = self.prov_of_binding(&h.binding) else {
                return None;
            };
            if h.binding != format!("KEYS[{i}]") || root.is_some_and(|r| r != i) {
                return None;
            }
            root = Some(i);
            longer |= t.parts.len() > 1;
        }
        root.filter(|_| longer)
    }

    /// The values a reassigned local may hold here, if they are followed.
    fn alternatives(&self, ident: Node<'_>) -> Option<&Vec<(Val<'t>, Span)>> {
        let d = self.scopes.uses.get(&ident.start_byte())?;
        self.frames.iter().rev().find_map(|f| f.alts.get(d))
    }

    /// Walks loop statement `node` with `f`, known as a loop being walked.
    fn looped(&mut self, node: Node<'t>, f: impl FnOnce(&mut Self)) {
        let ctx = self.loop_ctx(node);
        self.loops.push(ctx);
        f(self);
        self.loops.pop();
    }

    /// The holes of `t`, a value appended to the table declared at `d`, that take
    /// another value in each pass of a loop around the append that does not also hold
    /// the table's declaration (a fresh table each pass): values computed inside that
    /// loop, by its statements or by the functions it calls (a loop variable, a local
    /// of its body, what a helper builds from them) that change with the loop (see the
    /// `varying` module). `KEYS[i]`, `ARGV[i]`, locals bound before the loop and
    /// values recomputed in each pass from them are the same in every pass.
    fn varying_in_loop(&self, t: &KeyTemplate, d: DeclId) -> Vec<String> {
        let Some(l) = self.loops.iter().find(|l| !l.range.contains(&d)) else {
            return Vec::new();
        };
        let (range, first_frame) = (&l.range, &l.first_frame);
        let mut out: Vec<String> = Vec::new();
        for h in tpl::holes(t) {
            let Some((_, rest)) = h.binding.rsplit_once('@') else {
                continue;
            };
            let Some((pos, frame)) = rest.split_once('#') else {
                continue;
            };
            let frame = frame.split(':').next().unwrap_or("");
            let (Ok(pos), Ok(frame)) = (pos.parse::<usize>(), frame.parse::<usize>()) else {
                continue;
            };
            if (range.contains(&pos) || frame >= *first_frame)
                && self.varies.contains(&h.binding)
                && !out.contains(&h.binding)
            {
                out.push(h.binding.clone());
            }
        }
        out
    }

    /// Walks a loop body: a local reassigned inside the loop may hold, at the top of the
    /// body, its value from before the loop or one an earlier iteration left (found by a
    /// first walk in which it is unknown, so a value built from itself stays unknown);
    /// after the loop it holds its value from before or from the end of the body.
    fn loop_body(&mut self, body: Option<Node<'t>>) {
        let Some(body) = body else {
            return;
        };
        let before = self
            .frames
            .last()
            .map(|f| f.alts.clone())
            .unwrap_or_default();
        let mut assigned = Vec::new();
        let mut appended: Vec<(DeclId, Node<'t>)> = Vec::new();
        let mut jumps = false;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            jumps |= matches!(n.kind(), K::BreakStatement | K::GotoStatement);
            if n.kind() == K::VariableList {
                for t in n.named_children() {
                    if let Some(&d) = self.scopes.uses.get(&t.start_byte()) {
                        assigned.push(d);
                    }
                }
            }
            if n.kind() == K::AssignmentStatement {
                if let Some((d, t)) = self.appends_to_itself(n) {
                    appended.push((d, t));
                }
            }
            stack.extend(n.named_children());
        }
        // At the top of the body a local holds a value of an earlier iteration: unknown,
        // marked as this local's own so that the first walk can tell it apart.
        let head = |d: DeclId| usize::MAX - d..usize::MAX - d;
        if let Some(f) = self.frames.last_mut() {
            for d in &assigned {
                if let Some(v) = f.alts.get_mut(d) {
                    *v = vec![(Val::Other(Prov::Unknown), head(*d))];
                }
            }
        }
        let tracked = assigned.iter().any(|d| before.contains_key(d));
        // Each loop walked twice doubles the walks of the loops inside it: only the
        // outer loops are.
        if tracked && self.loop_depth < MAX_DRY_DEPTH && !self.library {
            // A first walk, with what the loop assigns unknown, finds the values an
            // iteration leaves behind that do not depend on an earlier iteration; at
            // the top of the body a local holds its value from before the loop or one
            // of those. Nothing the first walk finds is kept.
            let end = self.dry_walk(body);
            if let Some(f) = self.frames.last_mut() {
                for d in &assigned {
                    let (Some(b), Some(e)) = (before.get(d), end.get(d)) else {
                        continue;
                    };
                    let mut v = b.clone();
                    for (val, at) in e {
                        // The local's own value from the top of the body, passed through
                        // unchanged: already one of the values.
                        if *at == head(*d) {
                            continue;
                        }
                        if !v.iter().any(|(_, s)| s == at && !s.is_empty()) {
                            v.push((val.clone(), at.clone()));
                        }
                    }
                    f.alts.insert(*d, v);
                }
            }
        }
        self.maybe_skipped += 1;
        self.loop_depth += 1;
        self.block(body);
        self.loop_depth -= 1;
        self.maybe_skipped -= 1;
        let mut after = self
            .frames
            .last()
            .map(|f| f.alts.clone())
            .unwrap_or_default();
        if jumps {
            // A `break` leaves with the values of the middle of the body.
            for d in &assigned {
                if let Some(v) = after.get_mut(d) {
                    v.push((Val::Other(Prov::Unknown), 0..0));
                }
            }
        }
        self.join(&before, vec![before.clone(), after]);
        // `q = q .. x` in the body: after the loop `q` is its value from before with
        // what the passes appended, none or more: that value followed by a hole (an
        // empty one for no pass), never the value from before alone.
        for (d, t) in appended {
            let Some(from) = before.get(&d) else {
                continue;
            };
            let Some(vals) = self.frames.last().and_then(|f| f.alts.get(&d)).cloned() else {
                continue;
            };
            let before_pass = |sp: &Span| from.iter().any(|(_, s)| s == sp);
            // What the passes append comes from where their values do.
            let prov = computed(
                vals.iter()
                    .filter(|(_, sp)| !before_pass(sp))
                    .map(|(v, _)| self.prov_of(v)),
            );
            let mut out = Vec::with_capacity(vals.len());
            for (v, sp) in vals {
                match v {
                    Val::Str(k) if before_pass(&sp) => {
                        let tail = self.fresh(t, prov);
                        out.push((Val::Str(tpl::concat(k, tail)), sp));
                    }
                    v => out.push((v, sp)),
                }
            }
            if let Some(f) = self.frames.last_mut() {
                f.alts.insert(d, out);
            }
        }
    }

    /// The local that assignment `n` appends to, with its target: `q = q .. x` (or
    /// `q = q .. a .. b`), one target, whose value's leftmost operand of `..` is the
    /// same local.
    fn appends_to_itself(&self, n: Node<'t>) -> Option<(DeclId, Node<'t>)> {
        let mut targets = child_of_kind(n, K::VariableList)?
            .named_children()
            .filter(|c| c.kind() != K::Comment);
        let (t, None) = (targets.next()?, targets.next()) else {
            return None;
        };
        let mut values = child_of_kind(n, K::ExpressionList)?
            .named_children()
            .filter(|c| c.kind() != K::Comment);
        let (mut v, None) = (values.next()?, values.next()) else {
            return None;
        };
        let mut concat = false;
        while v.kind() == K::BinaryExpression
            && v.field(F::Operator).map(|o| self.text(o)) == Some("..")
        {
            concat = true;
            v = v.field(F::Left)?;
        }
        let d = *self.scopes.uses.get(&t.start_byte())?;
        (concat
            && t.kind() == K::Identifier
            && v.kind() == K::Identifier
            && self.scopes.uses.get(&v.start_byte()) == Some(&d))
        .then_some((d, t))
    }

    /// Walks a loop body without keeping anything it finds (keys, units, returns,
    /// guards), and returns the reassigned locals' values at its end.
    fn dry_walk(&mut self, body: Node<'t>) -> OffsetMap<Vec<(Val<'t>, Span)>> {
        let saved_alts = self.frames.last().map(|f| f.alts.clone());
        let (returns, exits) = self
            .frames
            .last()
            .map_or((0, 0), |f| (f.returns.len(), f.exits.len()));
        let keys = self.keys.len();
        let collector = self.collector.take();
        self.loop_depth += 1;
        self.maybe_skipped += 1;
        self.block(body);
        self.maybe_skipped -= 1;
        self.loop_depth -= 1;
        self.collector = collector;
        self.keys.truncate(keys);
        self.key_index.retain(|_, v| {
            v.retain(|&k| k < keys);
            !v.is_empty()
        });
        let mut end = OffsetMap::default();
        if let Some(f) = self.frames.last_mut() {
            f.returns.truncate(returns);
            f.exits.truncate(exits);
            if let Some(a) = saved_alts {
                end = std::mem::replace(&mut f.alts, a);
            }
        }
        end
    }

    /// Sets the current frame's reassigned locals declared before a branch point to the
    /// union of their values at the end of each way through it.
    fn join(
        &mut self,
        before: &OffsetMap<Vec<(Val<'t>, Span)>>,
        ends: Vec<OffsetMap<Vec<(Val<'t>, Span)>>>,
    ) {
        let mut merged: OffsetMap<Vec<(Val<'t>, Span)>> = OffsetMap::default();
        for (&d, _) in before.iter() {
            let mut out: Vec<(Val<'t>, Span)> = Vec::new();
            for end in &ends {
                for (v, sp) in end.get(&d).into_iter().flatten() {
                    if !out.iter().any(|(_, s)| s == sp && *s != (0..0)) {
                        out.push((v.clone(), sp.clone()));
                    }
                }
            }
            out.sort_by_key(|(_, s)| s.start);
            if out.len() > MAX_ALTS {
                out = vec![(Val::Other(Prov::Unknown), 0..0)];
            }
            merged.insert(d, out);
        }
        if let Some(f) = self.frames.last_mut() {
            f.alts = merged;
        }
    }

    /// The identity of a table named by a plain name, for [`Eval::methods`].
    fn table_identity(&self, t: Node<'_>) -> Option<String> {
        if t.kind() != K::Identifier {
            return None;
        }
        Some(match self.scopes.uses.get(&t.start_byte()) {
            Some(d) => format!("@{d}"),
            None => self.text(t).to_string(),
        })
    }

    /// The function stored as `member` of the table `t`, if the file declares one.
    fn method(&self, t: Node<'_>, member: Node<'_>) -> Option<Node<'t>> {
        let table = self.table_identity(t)?;
        self.methods
            .get(&(table, self.text(member).to_string()))
            .copied()
    }

    /// The branch arms the current point is under, across inlined calls.
    fn constraints(&self) -> Vec<Constraint> {
        self.frames
            .iter()
            .flat_map(|f| f.path.iter().chain(f.exits.iter()).cloned())
            .collect()
    }

    /// Walks `f` inside arm `c` of a branch point.
    fn in_arm(&mut self, c: Constraint, f: impl FnOnce(&mut Self)) {
        let depth = match self.frames.last_mut() {
            Some(fr) => {
                fr.path.push(c);
                fr.path.len() - 1
            }
            None => return f(self),
        };
        f(self);
        if let Some(fr) = self.frames.last_mut() {
            fr.path.truncate(depth);
        }
    }

    fn if_statement(&mut self, node: Node<'t>) {
        let bp = (node.start_byte(), self.frame_id());
        if let Some(c) = node.field(F::Condition) {
            self.expr(c);
        }
        let before = self
            .frames
            .last()
            .map(|f| f.alts.clone())
            .unwrap_or_default();
        let mut ends = Vec::new();
        let mut has_else = false;
        let mut exiting = Vec::new();
        let consequence = node.field(F::Consequence);
        self.in_arm((bp, Choice::Arm(0)), |me| {
            if let Some(b) = consequence {
                me.block(b);
            }
        });
        if consequence.is_some_and(|b| self.exits(b)) {
            exiting.push(0);
        } else if let Some(f) = self.frames.last() {
            ends.push(f.alts.clone());
        }
        for (k, alt) in node.children_by_field(F::Alternative).enumerate() {
            let arm = k + 1;
            if alt.is_error() {
                continue;
            }
            if let Some(f) = self.frames.last_mut() {
                f.alts = before.clone();
            }
            if let Some(c) = alt.field(F::Condition) {
                // An `elseif` condition runs only when the arms before it were not taken.
                self.in_arm((bp, Choice::NotArms((0..arm).collect())), |me| {
                    me.expr(c);
                });
            } else {
                has_else = true;
            }
            let body = alt.field(F::Consequence).or_else(|| alt.field(F::Body));
            self.in_arm((bp, Choice::Arm(arm)), |me| {
                if let Some(b) = body {
                    me.block(b);
                }
            });
            if body.is_some_and(|b| self.exits(b)) {
                exiting.push(arm);
            } else if let Some(f) = self.frames.last() {
                ends.push(f.alts.clone());
            }
        }
        if !has_else {
            ends.push(before.clone());
        }
        self.join(&before, ends);
        if !exiting.is_empty() {
            if let Some(f) = self.frames.last_mut() {
                f.exits.push((bp, Choice::NotArms(exiting)));
            }
        }
    }

    /// True when a block always leaves the function: it ends in `return` or `error(…)`.
    fn exits(&self, block: Node<'_>) -> bool {
        let last = block
            .named_children()
            .filter(|n| n.kind() != K::Comment)
            .last();
        match last {
            Some(n) if n.kind() == K::ReturnStatement => true,
            Some(n) if n.kind() == K::FunctionCall => {
                n.field(F::Name).is_some_and(|c| self.text(c) == "error")
            }
            _ => false,
        }
    }

    fn local_declaration(&mut self, node: Node<'t>) {
        let Some(first) = node.named_children().next() else {
            return;
        };
        if first.kind() == K::VariableList {
            for n in first.named_children() {
                if n.kind() == K::Identifier {
                    self.bind(n, Val::Nil);
                }
            }
            return;
        }
        if first.kind() != K::AssignmentStatement {
            return;
        }
        let names: Vec<Node<'t>> = child_of_kind(first, K::VariableList)
            .into_iter()
            .flat_map(Node::named_children)
            .filter(|n| n.kind() == K::Identifier)
            .collect();
        let exprs: Vec<Node<'t>> = child_of_kind(first, K::ExpressionList)
            .into_iter()
            .flat_map(Node::named_children)
            .filter(|n| n.kind() != K::Comment)
            .collect();
        let mut values: Vec<Val<'t>> = Vec::new();
        for (i, e) in exprs.iter().enumerate() {
            let v = self.expr(*e);
            if i + 1 < exprs.len() {
                let v = self.single(v, *e);
                values.push(v);
            } else {
                values.push(v);
            }
        }
        for (i, n) in names.iter().enumerate() {
            let v = if i + 1 < exprs.len() {
                values[i].clone()
            } else if let Some(last) = values.last().cloned().filter(|_| !exprs.is_empty()) {
                let j = i + 1 - exprs.len();
                match last {
                    Val::Spread(s) => self.spread_item(s, j, exprs[exprs.len() - 1]),
                    v if j == 0 => v,
                    _ => Val::Nil,
                }
            } else {
                Val::Nil
            };
            // A table handed to other code may be filled there.
            let v = match exprs.get(i) {
                Some(e)
                    if e.kind() == K::TableConstructor
                        && self.scopes.escaped.contains(&n.start_byte()) =>
                {
                    Val::Other(Prov::Unknown)
                }
                _ => v,
            };
            if let Some(&e) = exprs.get(i).or(exprs.last()) {
                self.inits.insert(n.start_byte(), e);
            }
            let v = if self.rebuilds_declared_key(*n, &v) {
                Val::Other(Prov::Unknown)
            } else {
                v
            };
            self.bind(*n, v);
            let d = n.start_byte();
            // `local rk = { tick = "tick|sessions", … }`: a record, read at `rk.tick`.
            if let Some(e) = exprs.get(i).filter(|e| e.kind() == K::TableConstructor) {
                if let Some(mut fields) = self.made_records.remove(&e.start_byte()) {
                    // `key.message = key.message:format(id)`: a field written by name
                    // may hold anything; the others keep their values.
                    if let Some(names) = self.scopes.named_writes.get(&d) {
                        fields.retain(|(n, _)| !names.contains(n));
                    }
                    if !self.scopes.unnamed_writes.contains(&d)
                        && !self.scopes.escaped.contains(&d)
                        && !self.scopes.mutated.contains(&d)
                    {
                        let frame = self.frame_id();
                        self.records.insert((d, frame), fields);
                    }
                }
            }
            // `local keys = {}` filled only by `table.insert(keys, v)`.
            if exprs.get(i).is_some_and(|e| {
                e.kind() == K::TableConstructor
                    && e.named_children().all(|c| c.kind() == K::Comment)
            }) && self.scopes.appended.contains(&d)
                && !self.scopes.field_set.contains(&d)
                && !self.scopes.escaped.contains(&d)
                && !self.scopes.mutated.contains(&d)
            {
                let frame = self.frame_id();
                self.tables.insert((d, frame), Vec::new());
            }
            // A reassigned local's first value is written in the declaration.
            if let Some(&e) = exprs.get(i).or(exprs.last()) {
                let d = n.start_byte();
                if let Some(alt) = self.frames.last_mut().and_then(|f| f.alts.get_mut(&d)) {
                    if let [(_, span)] = alt.as_mut_slice() {
                        *span = e.byte_range();
                    }
                }
            }
        }
    }

    fn for_statement(&mut self, node: Node<'t>) {
        if let Some(clause) = node.field(F::Clause) {
            match clause.kind() {
                K::ForNumericClause => {
                    let mut range = Vec::new();
                    for f in [F::Start, F::End, F::Step] {
                        if let Some(e) = clause.field(f) {
                            self.expr(e);
                            range.push(e);
                        }
                    }
                    if let Some(n) = clause.field(F::Name) {
                        // A loop variable changes from iteration to iteration.
                        self.loop_vars.insert(n.start_byte(), range);
                        self.bind(n, Val::Other(Prov::Data));
                    }
                }
                K::ForGenericClause => {
                    let mut prov = Prov::Unknown;
                    let iterated: Vec<Node<'t>> = child_of_kind(clause, K::ExpressionList)
                        .into_iter()
                        .flat_map(Node::named_children)
                        .collect();
                    if let Some(values) = child_of_kind(clause, K::ExpressionList) {
                        let exprs = values.named_children();
                        let mut provs = Vec::new();
                        for e in exprs {
                            provs.push(self.iterated_prov(e));
                        }
                        prov = provs.first().copied().unwrap_or(Prov::Unknown);
                    }
                    if let Some(names) = child_of_kind(clause, K::VariableList) {
                        for (i, n) in names.named_children().enumerate() {
                            if n.kind() != K::Identifier {
                                continue;
                            }
                            self.loop_vars.insert(n.start_byte(), iterated.clone());
                            let v = if i == 1 {
                                match prov {
                                    Prov::Declared(_) => {
                                        let label = self.text(n).to_string();
                                        let binding = format!(
                                            "{label}@{}#{}",
                                            n.start_byte(),
                                            self.frame_id()
                                        );
                                        self.provs.insert(binding.clone(), Prov::Declared(0));
                                        self.varies.insert(binding.clone());
                                        Val::Str(tpl::hole(
                                            &label,
                                            binding,
                                            HoleKind::Opaque,
                                            Some(n.byte_range()),
                                        ))
                                    }
                                    p => Val::Other(p),
                                }
                            } else if prov == Prov::Unknown {
                                Val::Other(Prov::Unknown)
                            } else {
                                Val::Other(Prov::Data)
                            };
                            self.bind(n, v);
                        }
                    }
                }
                _ => {}
            }
        }
        self.loop_body(node.field(F::Body));
    }

    /// Evaluates an expression of a generic `for` and returns the provenance of the
    /// values it iterates over: `ipairs(KEYS)` yields declared keys.
    fn iterated_prov(&mut self, e: Node<'t>) -> Prov {
        let callee = (e.kind() == K::FunctionCall && !e.has_error())
            .then(|| e.field(F::Name).map(|n| self.text(n)))
            .flatten();
        let arg = e
            .field(F::Arguments)
            .and_then(|a| a.named_children().next());
        // `for v in string.gmatch(s, pattern)` or `s:gmatch(pattern)`: pieces of `s` (a
        // list of names read from Redis gives names read from Redis).
        if let Some(p) = self.gmatch_subject(e) {
            return match p {
                Prov::Argv | Prov::Data => p,
                _ => Prov::Unknown,
            };
        }
        let (Some("ipairs" | "pairs"), Some(arg)) = (callee, arg) else {
            self.expr(e);
            return Prov::Unknown;
        };
        match self.expr(arg) {
            Val::Keys => Prov::Declared(0),
            Val::Argv => Prov::Argv,
            Val::Other(Prov::Declared(_)) => Prov::Declared(0),
            Val::Other(p) if p != Prov::Unknown => computed([p]),
            // `ipairs(cmsgpack.unpack(ARGV[1]))`: the first of several values, of their
            // provenance.
            Val::Spread(Spread::Values(p)) if p != Prov::Unknown => computed([p]),
            _ => Prov::Unknown,
        }
    }

    // ------------------------------------------------------------------
    // Expressions
    // ------------------------------------------------------------------

    fn expr(&mut self, node: Node<'t>) -> Val<'t> {
        if self.nest >= MAX_NEST {
            return Val::Other(Prov::Unknown);
        }
        self.nest += 1;
        let v = self.expr_inner(node);
        self.nest -= 1;
        v
    }

    fn expr_inner(&mut self, node: Node<'t>) -> Val<'t> {
        if node.is_error() || node.is_missing() || node.has_error() {
            // Evaluate what can be evaluated inside (calls), but trust no value.
            self.visit_calls(node);
            return Val::Other(Prov::Unknown);
        }
        match node.kind() {
            K::String => match self.string(node) {
                Some(t) => Val::Str(self.template_actions(t)),
                None => Val::Other(Prov::Unknown),
            },
            K::Number => {
                let t = self.text(node);
                if t == "0" || (t.bytes().all(|b| b.is_ascii_digit()) && !t.starts_with('0')) {
                    Val::Str(KeyTemplate::literal(
                        t.as_bytes().to_vec(),
                        keylint_core::template::SourceMap::Contiguous(node.start_byte()),
                    ))
                } else {
                    Val::Other(Prov::Literal)
                }
            }
            K::Nil => Val::Nil,
            K::True | K::False => Val::Other(Prov::Literal),
            K::Identifier => self.identifier(node),
            K::ParenthesizedExpression => {
                match node.named_children().find(|n| n.kind() != K::Comment) {
                    Some(inner) => {
                        let v = self.expr(inner);
                        self.single(v, inner)
                    }
                    None => Val::Other(Prov::Unknown),
                }
            }
            K::BinaryExpression => self.binary(node),
            K::UnaryExpression => {
                if let Some(o) = node.field(F::Operand) {
                    let v = self.expr(o);
                    let p = self.prov_of(&v);
                    return Val::Other(match p {
                        Prov::Declared(_) | Prov::Part(_) | Prov::PartOrWhole(_) => Prov::Data,
                        p => computed([p]),
                    });
                }
                Val::Other(Prov::Unknown)
            }
            K::BracketIndexExpression => self.index(node),
            K::DotIndexExpression => {
                let Some(t) = node.field(F::Table) else {
                    return Val::Other(Prov::Unknown);
                };
                if let Some(f) = node.field(F::Field).and_then(|f| self.method(t, f)) {
                    return Val::Func(f);
                }
                let field = node.field(F::Field).map(|f| self.text(f)).unwrap_or("");
                if let Some(v) = self.record_field(t, field) {
                    return v;
                }
                let base = self.expr(t);
                match base {
                    Val::Builtin(b) => Val::Builtin(member(b, field)),
                    Val::Other(p) => Val::Other(p),
                    Val::Keys | Val::Argv => Val::Other(Prov::Unknown),
                    _ => Val::Other(Prov::Unknown),
                }
            }
            K::FunctionCall => self.call(node),
            K::FunctionDefinition => Val::Func(node),
            K::TableConstructor => Val::Other(self.table_prov(node)),
            K::VarargExpression => Val::Spread(Spread::Values(Prov::Unknown)),
            _ => {
                self.visit_calls(node);
                Val::Other(Prov::Unknown)
            }
        }
    }

    /// The provenance of a table's values, from its constructor: a table of declared
    /// keys (`{KEYS[1], KEYS[2]}`) holds declared keys; a table of literals, `ARGV` and
    /// data holds undeclared values; a mix with declared keys is unknown. Whether the
    /// table is changed later is decided where it is bound ([`Eval::bind`]).
    fn table_prov(&mut self, node: Node<'t>) -> Prov {
        let mut provs = Vec::new();
        let mut named: Vec<(String, Val<'t>)> = Vec::new();
        for field in node.named_children() {
            if field.kind() != K::Field {
                continue;
            }
            let mut name = None;
            if let Some(n) = field.field(F::Name) {
                if field.first_child().is_some_and(|c| c.kind() == K::LBracket) {
                    self.expr(n);
                } else if n.kind() == K::Identifier {
                    name = Some(self.text(n).to_string());
                }
            }
            if let Some(v) = field.field(F::Value) {
                let val = self.expr(v);
                if let Some(name) = name {
                    let val = self.single(val.clone(), v);
                    named.retain(|(n, _)| *n != name);
                    named.push((name, val));
                }
                // A declared key itself (`KEYS[1]`), not a value computed from one.
                let declared = match &val {
                    Val::Str(t) => match t.parts.as_slice() {
                        [Part::Hole(h)] => match self.prov_of_binding(&h.binding) {
                            p @ Prov::Declared(_) => Some(p),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                };
                provs.push(declared.unwrap_or_else(|| self.prov_of(&val)));
            }
        }
        if !named.is_empty() {
            self.made_records.insert(node.start_byte(), named);
        }
        if !provs.is_empty() && provs.iter().all(|p| matches!(p, Prov::Declared(_))) {
            return Prov::Declared(0);
        }
        computed(provs)
    }

    /// Evaluates the calls inside an expression whose value is not needed.
    fn visit_calls(&mut self, node: Node<'t>) {
        if self.nest >= MAX_NEST {
            return;
        }
        self.nest += 1;
        self.visit_calls_inner(node);
        self.nest -= 1;
    }

    fn visit_calls_inner(&mut self, node: Node<'t>) {
        for c in node.named_children() {
            if c.is_error() {
                continue;
            }
            match c.kind() {
                K::FunctionCall if !c.has_error() => {
                    self.call(c);
                }
                K::FunctionDefinition => {}
                _ => self.visit_calls(c),
            }
        }
    }

    fn string(&self, node: Node<'_>) -> Option<KeyTemplate> {
        let start = node.field(F::Start)?;
        let end = node.field(F::End)?;
        let body = &self.src[start.end_byte()..end.start_byte()];
        let open = self.text(start);
        let decoded = if open == "\"" || open == "'" {
            strings::decode_quoted(body, start.end_byte())?
        } else {
            let level = open.bytes().filter(|&b| b == b'=').count();
            strings::decode_long(body, start.end_byte(), level)?
        };
        Some(KeyTemplate::literal(decoded.bytes, decoded.map))
    }

    /// How many top-level `table.remove(KEYS, 1)` (`keys`) or `table.remove(ARGV, 1)`
    /// calls come before offset `at`: what an index written there is shifted by.
    fn removed_before(&self, keys: bool, at: usize) -> usize {
        let list = if keys {
            &self.scopes.keys_removed
        } else {
            &self.scopes.argv_removed
        };
        list.iter()
            .filter(|&&(from, to, b)| from <= at && at < to && b < at)
            .count()
    }

    /// A literal with Go template actions in it (`'{{.timeIndexSet}}'`, `'{{ .prefix
    /// }}:jobs'`): the file is a template whose host program fills each action with a
    /// value before the script is loaded, so each action is that value, text that
    /// never comes from `KEYS`, one value wherever the same action is written. The
    /// braces of an action are never the script's own bytes, nor a hash tag.
    fn template_actions(&mut self, t: KeyTemplate) -> KeyTemplate {
        let [Part::Lit(lit)] = t.parts.as_slice() else {
            return t;
        };
        let actions = go_actions(&lit.bytes);
        if actions.is_empty() {
            return t;
        }
        // Literal text and actions alternate: the parts are written as they come.
        let mut parts = Vec::new();
        let mut at = 0;
        for (range, name) in actions {
            if range.start > at {
                parts.push(Part::Lit(tpl::sub_lit(lit, at..range.start)));
            }
            let label = String::from_utf8_lossy(&lit.bytes[range.clone()]).into_owned();
            let binding = format!("host:go:{name}");
            self.provs.insert(binding.clone(), Prov::Data);
            let span = match &lit.map {
                keylint_core::template::SourceMap::Contiguous(s) => {
                    Some(s + range.start..s + range.end)
                }
                _ => None,
            };
            parts.extend(tpl::hole(label, binding, HoleKind::Opaque, span).parts);
            at = range.end;
        }
        if at < lit.bytes.len() {
            parts.push(Part::Lit(tpl::sub_lit(lit, at..lit.bytes.len())));
        }
        KeyTemplate { parts }
    }

    fn binary(&mut self, node: Node<'t>) -> Val<'t> {
        let (Some(l), Some(r)) = (node.field(F::Left), node.field(F::Right)) else {
            return Val::Other(Prov::Unknown);
        };
        let op = node.field(F::Operator).map(|o| self.text(o)).unwrap_or("");
        let lv = self.expr(l);
        let lv = self.single(lv, l);
        // The right side of `and`/`or` runs only for some values of the left.
        let short = op == "and" || op == "or";
        self.maybe_skipped += usize::from(short);
        let rv = self.expr(r);
        self.maybe_skipped -= usize::from(short);
        let rv = self.single(rv, r);
        match op {
            ".." => {
                let a = self.template(&lv, l);
                let mut b = self.template(&rv, r);
                // A value read from Redis or computed from `ARGV` and data, written
                // after text the script writes (`'students:' .. number` of a number
                // an `HGET` returned): an id within a key, read as holding no
                // brace, as an `ARGV` value there is. Alone, or first, it may be a
                // whole key of its own and stays opaque.
                if self.prov_of(&rv) == Prov::Data && ends_with_text(&a) {
                    b = tpl::data_fragments(b);
                }
                if too_large(&a, &b) {
                    return Val::Other(computed([self.prov_of(&lv), self.prov_of(&rv)]));
                }
                Val::Str(tpl::concat(a, b))
            }
            "or" | "and" => {
                // `unpack or table.unpack`: both sides mean the same function.
                if let (Val::Builtin(a), Val::Builtin(b)) = (&lv, &rv) {
                    if a == b {
                        return lv;
                    }
                }
                if op == "or" {
                    if let (Val::Builtin(Builtin::Unpack), _) | (_, Val::Builtin(Builtin::Unpack)) =
                        (&lv, &rv)
                    {
                        return Val::Builtin(Builtin::Unpack);
                    }
                }
                let p = computed([self.prov_of(&lv), self.prov_of(&rv)]);
                Val::Other(p)
            }
            "==" | "~=" | "<" | ">" | "<=" | ">=" => Val::Other(Prov::Literal),
            _ => {
                let p = computed([self.prov_of(&lv), self.prov_of(&rv)]);
                Val::Other(p)
            }
        }
    }

    fn index(&mut self, node: Node<'t>) -> Val<'t> {
        let (Some(t), Some(f)) = (node.field(F::Table), node.field(F::Field)) else {
            return Val::Other(Prov::Unknown);
        };
        // Only `KEYS[i]` itself: a table computed from `KEYS` (`f(KEYS)[1]`) is not.
        self.shift_aware = t.kind() == K::Identifier;
        let base = self.expr(t);
        self.shift_aware = false;
        let fv = self.expr(f);
        let n = match &fv {
            Val::Str(k) if f.kind() == K::Number => k
                .as_literal()
                .and_then(|b| std::str::from_utf8(&b).ok()?.parse::<usize>().ok())
                .filter(|&n| n > 0),
            _ => None,
        };
        match base {
            Val::Keys => match n {
                Some(i) => {
                    let i = i + self.removed_before(true, node.start_byte());
                    self.declared_hole(i, Some(node))
                }
                None => self.declared_hole(0, Some(node)),
            },
            Val::Argv => match n {
                Some(i) => {
                    let i = i + self.removed_before(false, node.start_byte());
                    self.argv_hole(i, node)
                }
                None => {
                    let v = self.fresh(node, Prov::Argv);
                    Val::Str(v)
                }
            },
            // An element of a table of declared keys is a declared key.
            Val::Other(Prov::Declared(_)) => Val::Other(Prov::Declared(0)),
            Val::Other(p) => Val::Other(computed([p])),
            _ => Val::Other(Prov::Unknown),
        }
    }

    // ------------------------------------------------------------------
    // Calls
    // ------------------------------------------------------------------

    fn args(&self, call: Node<'t>) -> Vec<Node<'t>> {
        let Some(a) = call.field(F::Arguments) else {
            return Vec::new();
        };
        match a.kind() {
            K::Arguments => a
                .named_children()
                .filter(|n| n.kind() != K::Comment)
                .collect(),
            _ => vec![a],
        }
    }

    fn call(&mut self, node: Node<'t>) -> Val<'t> {
        if node.has_error() {
            self.visit_calls(node);
            return Val::Other(Prov::Unknown);
        }
        let Some(callee) = node.field(F::Name) else {
            return Val::Other(Prov::Unknown);
        };
        let arg_nodes = self.args(node);
        if let Some(v) = self.table_insert(callee, &arg_nodes) {
            return v;
        }
        // `local namespace = table.remove(KEYS, 1)` at the top: the first key left.
        for keys in [true, false] {
            let list = if keys {
                &self.scopes.keys_removed
            } else {
                &self.scopes.argv_removed
            };
            if list.iter().any(|&(_, _, b)| b == node.start_byte()) {
                let k = self.removed_before(keys, node.start_byte()) + 1;
                return if keys {
                    self.declared_hole(k, Some(node))
                } else {
                    self.argv_hole(k, node)
                };
            }
        }
        // `obj:method(…)`
        if callee.kind() == K::MethodIndexExpression {
            return self.method_call(node, callee, &arg_nodes);
        }
        // `s:gmatch(pattern)()`, `string.gmatch(s, pattern)()`: the first piece of `s`.
        if let Some(p) = self.gmatch_subject(callee) {
            self.eval_args(&arg_nodes);
            return Val::Other(computed([p]));
        }
        let f = self.expr(callee);
        match f {
            Val::Builtin(Builtin::Call) => self.redis_command(node, callee, &arg_nodes),
            Val::Builtin(Builtin::RegisterFunction) => {
                if self.library && self.frames.len() == 1 {
                    self.registration(node, &arg_nodes);
                } else {
                    self.eval_args(&arg_nodes);
                }
                Val::Other(Prov::Unknown)
            }
            Val::Builtin(Builtin::Format) => {
                let args = self.eval_args(&arg_nodes);
                match (args.first(), arg_nodes.first()) {
                    (Some(Val::Str(fmt)), Some(_)) => {
                        let fmt = fmt.clone();
                        self.format(fmt, &args[1..], &arg_nodes[1..])
                    }
                    _ => Val::Other(Prov::Unknown),
                }
            }
            Val::Builtin(Builtin::ToString) => {
                let args = self.eval_args(&arg_nodes);
                match args.into_iter().next() {
                    Some(v @ Val::Str(_)) => v,
                    Some(v) => Val::Other(computed([self.prov_of(&v)])),
                    None => Val::Other(Prov::Unknown),
                }
            }
            Val::Builtin(Builtin::Unpack) => self.unpack(&arg_nodes),
            Val::Builtin(Builtin::LuaPcall) => {
                if let Some(&first) = arg_nodes
                    .first()
                    .filter(|n| matches!(n.kind(), K::DotIndexExpression | K::Identifier))
                {
                    if matches!(self.expr(first), Val::Builtin(Builtin::Call)) {
                        // `pcall(redis.call, cmd, …)`: the command runs, its error caught.
                        self.maybe_skipped += 1;
                        self.redis_command(node, first, &arg_nodes[1..]);
                        self.maybe_skipped -= 1;
                        return Val::Spread(Spread::Values(Prov::Data));
                    }
                }
                let args = self.eval_args(&arg_nodes);
                if let Some(Val::Builtin(Builtin::Pure | Builtin::PureMulti)) = args.first() {
                    // `pcall(cjson.decode, data)`: a status, then what the function
                    // computes from its arguments.
                    let provs: Vec<Prov> = args[1..].iter().map(|a| self.prov_of(a)).collect();
                    return Val::Spread(Spread::Values(computed(provs)));
                }
                if let Some(Val::Func(func)) = args.first() {
                    let func = *func;
                    // An error inside is caught: a failing command does not stop the run.
                    self.maybe_skipped += 1;
                    self.call_sites.push(node.byte_range());
                    self.invoke(func, args[1..].to_vec(), None);
                    self.call_sites.pop();
                    self.maybe_skipped -= 1;
                }
                Val::Spread(Spread::Values(Prov::Unknown))
            }
            Val::Builtin(b @ (Builtin::Pure | Builtin::PureMulti)) => {
                let args = self.eval_args(&arg_nodes);
                if let (Some(name), Some(subject)) = (self.string_fn(callee), args.first()) {
                    let subject = subject.clone();
                    if let Some(v) = self.part_of_key(name, &subject, &arg_nodes[1..], node) {
                        return v;
                    }
                }
                let provs: Vec<Prov> = args.iter().map(|a| self.prov_of(a)).collect();
                if b == Builtin::Pure {
                    Val::Other(computed(provs))
                } else {
                    Val::Spread(Spread::Values(computed(provs)))
                }
            }
            // `loadstring("return " .. KEYS[4])()`: a Lua value serialized as text,
            // decoded by the script (a list of key names, a record). What it holds
            // is data: never the text it was decoded from, so never a declared key
            // even when that text is one of `KEYS` (a caller that passes a list as a
            // key). A text of unknown origin gives values of unknown origin.
            Val::Builtin(Builtin::Loadstring) => {
                let args = self.eval_args(&arg_nodes);
                let p = match args.first() {
                    Some(Val::Str(t)) => {
                        let provs: Vec<Prov> = tpl::holes(t)
                            .map(|h| self.prov_of_binding(&h.binding))
                            .collect();
                        if provs.contains(&Prov::Unknown) {
                            Prov::Unknown
                        } else if !provs.is_empty() && provs.iter().all(|p| *p == Prov::Argv) {
                            Prov::Argv
                        } else {
                            Prov::Data
                        }
                    }
                    Some(Val::Other(p @ (Prov::Argv | Prov::Data))) => *p,
                    _ => Prov::Unknown,
                };
                Val::Builtin(Builtin::Chunk(p))
            }
            Val::Builtin(Builtin::Chunk(p)) => {
                self.eval_args(&arg_nodes);
                Val::Other(p)
            }
            Val::Builtin(Builtin::PureLib | Builtin::StringLib | Builtin::TableLib) => {
                self.eval_args(&arg_nodes);
                Val::Spread(Spread::Values(Prov::Unknown))
            }
            Val::Func(func) => {
                let (mut args, mut arg_nodes) = self.expand_args(&arg_nodes);
                let colon = func.kind() == K::FunctionDeclaration
                    && func
                        .field(F::Name)
                        .is_some_and(|n| n.kind() == K::MethodIndexExpression);
                if colon && !args.is_empty() {
                    // `T.m(obj, a)` of `function T:m(a)`: the first argument is `self`.
                    args.remove(0);
                    arg_nodes.remove(0);
                }
                self.call_sites.push(node.byte_range());
                let v = self.invoke(func, args, Some(&arg_nodes));
                self.call_sites.pop();
                self.named_part(v, node)
            }
            _ => {
                self.eval_args(&arg_nodes);
                Val::Spread(Spread::Values(Prov::Unknown))
            }
        }
    }

    /// For a call `n` of `string.gmatch(s, p)` or `s:gmatch(p)`, the provenance of
    /// `s` (the iterator's pieces are computed from it); `None` for any other node.
    /// Looping over the iterator and calling it once read it the same way.
    fn gmatch_subject(&mut self, n: Node<'t>) -> Option<Prov> {
        if n.kind() != K::FunctionCall || n.has_error() {
            return None;
        }
        let f = n.field(F::Name)?;
        let subject = if f.kind() == K::MethodIndexExpression {
            if self.text(f.field(F::Method)?) != "gmatch" {
                return None;
            }
            let o = f.field(F::Table)?;
            let v = self.expr(o);
            let v = self.single(v, o);
            let arg_nodes = self.args(n);
            self.eval_args(&arg_nodes);
            v
        } else {
            // Only a name is evaluated here: it is evaluated again when it is no gmatch.
            if !matches!(f.kind(), K::Identifier | K::DotIndexExpression)
                || !matches!(self.expr(f), Val::Builtin(Builtin::Gmatch))
            {
                return None;
            }
            let arg_nodes = self.args(n);
            let args = self.eval_args(&arg_nodes);
            args.into_iter().next()?
        };
        Some(self.prov_of(&subject))
    }

    /// `obj:method(…)`: a method declared in the script is invoked with `self` bound;
    /// `s:format(…)` formats; anything else is data.
    fn method_call(&mut self, node: Node<'t>, callee: Node<'t>, arg_nodes: &[Node<'t>]) -> Val<'t> {
        let obj = callee.field(F::Table);
        let declared = match (obj, callee.field(F::Method)) {
            (Some(o), Some(m)) => self.method(o, m),
            _ => None,
        };
        if let (Some(func), Some(o)) = (declared, obj) {
            // `obj:m(a)` is `obj.m(obj, a)`; a function declared `function T:m(a)`
            // has `self` as its hidden first parameter.
            let receiver = self.expr(o);
            let receiver = self.single(receiver, o);
            let (args, nodes) = self.expand_args(arg_nodes);
            let colon = func
                .field(F::Name)
                .is_some_and(|n| n.kind() == K::MethodIndexExpression);
            self.call_sites.push(node.byte_range());
            let v = if colon {
                self.invoke(func, args, Some(&nodes))
            } else {
                let mut all = vec![receiver];
                all.extend(args);
                let mut all_nodes = vec![o];
                all_nodes.extend(nodes);
                self.invoke(func, all, Some(&all_nodes))
            };
            self.call_sites.pop();
            return self.named_part(v, node);
        }
        let method = callee.field(F::Method).map(|m| self.text(m)).unwrap_or("");
        let ov = match obj {
            Some(o) => {
                let v = self.expr(o);
                self.single(v, o)
            }
            None => Val::Other(Prov::Unknown),
        };
        let args = self.eval_args(arg_nodes);
        if method == "format" {
            if let Val::Str(f) = &ov {
                return self.format(f.clone(), &args, arg_nodes);
            }
        }
        if let Some(v) = self.part_of_key(method, &ov, arg_nodes, node) {
            return v;
        }
        let mut provs = vec![self.prov_of(&ov)];
        provs.extend(args.iter().map(|a| self.prov_of(a)));
        match ov {
            Val::Str(_) => Val::Other(computed(provs)),
            // `value:match(…)`, `value:sub(…)` of a value read back or passed in:
            // strings share the string library's metatable, so it is
            // `string.match(value, …)`.
            Val::Other(_) if STRING_METHODS.contains(&method) => {
                match member(Builtin::StringLib, method) {
                    Builtin::PureMulti => Val::Spread(Spread::Values(computed(provs))),
                    _ => Val::Other(computed(provs)),
                }
            }
            _ => Val::Spread(Spread::Values(Prov::Unknown)),
        }
    }

    /// For `unpack(p, …)` of a parameter `p` of the function being walked, the
    /// argument expression its caller passed for `p`.
    fn unpacked_param(&self, n: Node<'t>) -> Option<Node<'t>> {
        if n.kind() != K::FunctionCall {
            return None;
        }
        let callee = self.text(n.field(F::Name)?);
        if !matches!(callee, "unpack" | "table.unpack") {
            return None;
        }
        let table = *self.args(n).first()?;
        if table.kind() != K::Identifier {
            return None;
        }
        let d = self.scopes.uses.get(&table.start_byte())?;
        if self.scopes.mutated.contains(d) {
            return None;
        }
        self.frames.last()?.param_nodes.get(d).copied()
    }

    /// The value of field `field` of the record a local names here (see
    /// [`Eval::records`]); `None` when `table` names no record or it has no such field.
    fn record_field(&self, table: Node<'_>, field: &str) -> Option<Val<'t>> {
        let at = self.local_here(table)?;
        let fields = self.records.get(&at)?;
        fields
            .iter()
            .find(|(n, _)| n == field)
            .map(|(_, v)| v.clone())
    }

    /// The table a collected local names here, with its declaration's frame.
    fn collected(&self, n: Node<'_>) -> Option<(DeclId, usize)> {
        let at = self.local_here(n)?;
        self.tables.contains_key(&at).then_some(at)
    }

    /// The local an identifier names here, with the frame its declaration is bound in.
    fn local_here(&self, n: Node<'_>) -> Option<(DeclId, usize)> {
        if n.kind() != K::Identifier {
            return None;
        }
        let d = *self.scopes.uses.get(&n.start_byte())?;
        let frame = self
            .frames
            .iter()
            .rev()
            .find(|f| f.env.contains_key(&d))?
            .id;
        Some((d, frame))
    }

    /// `table.insert(t, v)` on a collected table: `v` is one of its values.
    fn table_insert(&mut self, callee: Node<'t>, arg_nodes: &[Node<'t>]) -> Option<Val<'t>> {
        if self.text(callee) != "table.insert" {
            return None;
        }
        if let (Some(&t), Some(&v), 2..=3) = (arg_nodes.first(), arg_nodes.last(), arg_nodes.len())
        {
            self.note_append(t, v);
        }
        let [t, v] = arg_nodes else {
            return None;
        };
        let at = self.collected(*t)?;
        let val = self.expr(*v);
        let val = self.single(val, *v);
        self.note_varying(at, &val);
        let vals = self.tables.get_mut(&at)?;
        match vals.iter_mut().find(|(s, _)| *s == v.start_byte()) {
            // The same expression walked again (a loop's first walk): its last value.
            Some(slot) => slot.1 = val,
            None => vals.push((v.start_byte(), val)),
        }
        Some(Val::Nil)
    }

    /// Records which holes of a value appended to a collected table vary from pass to
    /// pass of the loop that appends it.
    fn note_varying(&mut self, at: (DeclId, usize), v: &Val<'t>) {
        let varying = match v {
            Val::Str(t) => self.varying_in_loop(t, at.0),
            _ => Vec::new(),
        };
        self.tables_varying.insert(at, varying);
    }

    /// `unpack(t [, i [, j]])`: the values of `KEYS`, `ARGV` or a table from `i` on.
    fn unpack(&mut self, arg_nodes: &[Node<'t>]) -> Val<'t> {
        // A table filled by one `table.insert(t, v)`: every value is written by it.
        if let Some(at) = arg_nodes.first().and_then(|t| self.collected(*t)) {
            if let Some([(_, v @ (Val::Str(_) | Val::Other(Prov::Argv | Prov::Data)))]) =
                self.tables.get(&at).map(Vec::as_slice)
            {
                let v = v.clone();
                self.eval_args(&arg_nodes[1..]);
                let varying = self.tables_varying.get(&at).cloned().unwrap_or_default();
                self.colls.push(v);
                self.colls_varying.push(varying);
                return Val::Spread(Spread::Coll(self.colls.len() - 1));
            }
        }
        let whole = arg_nodes
            .first()
            .is_some_and(|n| n.kind() == K::Identifier && matches!(self.text(*n), "KEYS" | "ARGV"));
        let args = if whole {
            self.shift_aware = true;
            let first = self.expr(arg_nodes[0]);
            self.shift_aware = false;
            let mut args = vec![first];
            args.extend(self.eval_args(&arg_nodes[1..]));
            args
        } else {
            self.eval_args(arg_nodes)
        };
        let start = match (args.get(1), arg_nodes.get(1)) {
            (None, _) => 1,
            (Some(Val::Str(t)), Some(n)) if n.kind() == K::Number => t
                .as_literal()
                .and_then(|b| std::str::from_utf8(&b).ok()?.parse::<usize>().ok())
                .unwrap_or(0),
            _ => 0,
        };
        if args.len() > 2 {
            // `unpack(t, i, j)`: a bounded range.
            return Val::Spread(Spread::Values(match args.first() {
                Some(Val::Keys) => Prov::Declared(0),
                Some(Val::Argv) => Prov::Argv,
                Some(Val::Other(p)) => computed([*p]),
                _ => Prov::Unknown,
            }));
        }
        let at = arg_nodes.first().map_or(0, |n| n.start_byte());
        let shifted = |ev: &Self, keys: bool| match start {
            0 => 0,
            s => s + ev.removed_before(keys, at),
        };
        match args.first() {
            Some(Val::Keys) => Val::Spread(Spread::Keys(shifted(self, true))),
            Some(Val::Argv) => Val::Spread(Spread::Argv(shifted(self, false))),
            Some(Val::Other(p)) => Val::Spread(Spread::Values(computed([*p]))),
            _ => Val::Spread(Spread::Values(Prov::Unknown)),
        }
    }

    /// Evaluates arguments; a `...` in last position inside a variadic function whose
    /// call is known stands for the values (and expressions) that call passed.
    fn expand_args(&mut self, nodes: &[Node<'t>]) -> (Vec<Val<'t>>, Vec<Node<'t>>) {
        if let Some((&last, init)) = nodes.split_last() {
            if last.kind() == K::VarargExpression {
                if let Some((vals, vnodes)) = self.frames.last().and_then(|f| f.varargs.clone()) {
                    let mut args = self.eval_args(init);
                    if let (Some(Val::Spread(_)), false) = (args.last(), init.is_empty()) {
                        // Not in last position: one value.
                        let n = init[init.len() - 1];
                        let v = args.pop().expect("not empty");
                        let v = self.single(v, n);
                        args.push(v);
                    }
                    args.extend(vals);
                    let mut out_nodes = init.to_vec();
                    out_nodes.extend(vnodes);
                    return (args, out_nodes);
                }
            }
        }
        (self.eval_args(nodes), nodes.to_vec())
    }

    fn eval_args(&mut self, nodes: &[Node<'t>]) -> Vec<Val<'t>> {
        let mut out = Vec::with_capacity(nodes.len());
        for (i, &n) in nodes.iter().enumerate() {
            let v = self.expr(n);
            let v = if i + 1 < nodes.len() {
                self.single(v, n)
            } else {
                v
            };
            out.push(v);
        }
        out
    }

    /// Calls a function of this file: walks its body with the arguments bound.
    fn invoke(
        &mut self,
        func: Node<'t>,
        args: Vec<Val<'t>>,
        arg_nodes: Option<&[Node<'t>]>,
    ) -> Val<'t> {
        let id = func.start_byte();
        // A recursive function is walked once more inside itself, with the values of
        // its recursive call (`get(id)` that calls `get(v)` on each value it reads):
        // that call touches keys of another kind than the outer one.
        let running = self.active.iter().filter(|&&a| a == id).count();
        if running >= MAX_RECURSION || self.active.len() >= MAX_DEPTH || self.budget == 0 {
            return Val::Spread(Spread::Values(Prov::Unknown));
        }
        self.run(func, args, arg_nodes, false)
    }

    /// Walks a function's body in a new frame. `standalone`: nobody called it, its
    /// parameters are unknown values, each stable within this walk.
    fn run(
        &mut self,
        func: Node<'t>,
        args: Vec<Val<'t>>,
        arg_nodes: Option<&[Node<'t>]>,
        standalone: bool,
    ) -> Val<'t> {
        let id = func.start_byte();
        self.evaluated.insert(id);
        let params: Vec<Node<'t>> = func
            .field(F::Parameters)
            .into_iter()
            .flat_map(Node::named_children)
            .filter(|p| p.kind() == K::Identifier)
            .collect();
        // Argument values in parameter order; a spread in last position fills the rest.
        let mut values = Vec::with_capacity(params.len());
        let last = args.len().checked_sub(1);
        for (i, p) in params.iter().enumerate() {
            let node = arg_nodes
                .and_then(|a| a.get(i.min(a.len().saturating_sub(1))).copied())
                .unwrap_or(*p);
            let v = match (args.get(i), last) {
                (Some(Val::Spread(s)), Some(l)) if i == l => self.spread_item(*s, 0, node),
                (Some(v), _) => v.clone(),
                (None, Some(l)) => match &args[l] {
                    Val::Spread(s) => self.spread_item(*s, i - l, node),
                    _ => Val::Nil,
                },
                (None, None) => Val::Nil,
            };
            values.push(v);
        }
        // What `...` holds: the arguments beyond the named parameters, when the call and
        // every argument expression are known.
        let variadic = func
            .field(F::Parameters)
            .is_some_and(|p| p.named_children().any(|c| c.kind() == K::VarargExpression));
        let varargs = match arg_nodes {
            Some(nodes) if variadic && !standalone && nodes.len() == args.len() => Some((
                args.get(params.len()..).unwrap_or_default().to_vec(),
                nodes.get(params.len()..).unwrap_or_default().to_vec(),
            )),
            _ => None,
        };
        let mut frame = Frame::new(self.next_frame);
        frame.varargs = varargs;
        frame.func = func.byte_range();
        if let (Some(nodes), false) = (arg_nodes, standalone) {
            for (i, p) in params.iter().enumerate() {
                if let (Some(&n), Some(v)) = (nodes.get(i), args.get(i)) {
                    if !matches!(v, Val::Spread(_)) {
                        frame.param_nodes.insert(p.start_byte(), n);
                    }
                }
            }
        }
        self.frames.push(frame);
        self.next_frame += 1;
        self.active.push(id);
        for (p, v) in params.iter().zip(values) {
            let v = if standalone {
                let name = self.text(*p).to_string();
                let binding = format!("{name}@{}#{}", p.start_byte(), self.frame_id());
                self.provs.insert(binding.clone(), Prov::Unknown);
                Val::Str(tpl::hole(
                    &name,
                    binding,
                    HoleKind::Fragment,
                    Some(p.byte_range()),
                ))
            } else {
                v
            };
            self.bind(*p, v);
        }
        if let Some(b) = func.field(F::Body) {
            self.block(b);
        }
        self.active.pop();
        let frame = self.frames.pop().expect("pushed above");
        match frame.returns.as_slice() {
            [] => Val::Nil,
            [v] => v.clone(),
            many => {
                if let Some(v) = self.common_return(many, id) {
                    return v;
                }
                if let Some(p) = self.part_return(many) {
                    return Val::Other(p);
                }
                let provs: Vec<Prov> = many.iter().map(|v| self.prov_of(v)).collect();
                Val::Spread(Spread::Values(computed(provs)))
            }
        }
    }

    /// What a function with several `return`s gives when each returns a string and they
    /// all begin the same way (`return PREFIX .. id .. ':critical'` under an `if`,
    /// `return PREFIX .. id .. ':normal'` under its `else`): the common beginning, then
    /// one value standing for whichever ending a run takes. The result is one key, built
    /// the same way on every path up to where the paths differ. `None` when the returns
    /// share nothing, when one is no string, or when a declared key is in an ending.
    fn common_return(&mut self, many: &[Val<'t>], func: usize) -> Option<Val<'t>> {
        let mut ts = Vec::new();
        for v in many {
            match v {
                Val::Str(t) => ts.push(t),
                Val::Nil => {}
                _ => return None,
            }
        }
        let (first, rest) = ts.split_first()?;
        if rest.is_empty() {
            return Some(Val::Str((*first).clone()));
        }
        // Whole parts in common, then the common bytes of the next literal.
        let mut n = 0;
        while n < first.parts.len()
            && rest
                .iter()
                .all(|t| match (t.parts.get(n), &first.parts[n]) {
                    (Some(Part::Lit(a)), Part::Lit(b)) => a.bytes == b.bytes,
                    (Some(Part::Hole(a)), Part::Hole(b)) => a.binding == b.binding,
                    _ => false,
                })
        {
            n += 1;
        }
        if rest.iter().all(|t| t.parts.len() == n) && first.parts.len() == n {
            return Some(Val::Str((*first).clone()));
        }
        let mut prefix = KeyTemplate {
            parts: first.parts[..n].to_vec(),
        };
        let mut cut = 0;
        if let Some(Part::Lit(l)) = first.parts.get(n) {
            cut = l.bytes.len();
            for t in rest.iter() {
                let Some(Part::Lit(o)) = t.parts.get(n) else {
                    cut = 0;
                    break;
                };
                cut = cut.min(
                    l.bytes
                        .iter()
                        .zip(&o.bytes)
                        .take_while(|(a, b)| a == b)
                        .count(),
                );
            }
            if cut > 0 {
                prefix.parts.push(Part::Lit(tpl::sub_lit(l, 0..cut)));
            }
        }
        if prefix.parts.is_empty() {
            return None;
        }
        // The endings: their provenance, and whether they are plain text with no brace.
        let mut provs = Vec::new();
        let mut plain = true;
        let mut shown = Vec::new();
        for t in ts.iter() {
            for (i, p) in t.parts.iter().enumerate().skip(n) {
                match p {
                    Part::Lit(l) => {
                        let from = if i == n { cut } else { 0 };
                        let bytes = &l.bytes[from.min(l.bytes.len())..];
                        plain &= !bytes.contains(&b'{') && !bytes.contains(&b'}');
                        if bytes.is_empty() {
                            continue;
                        }
                        provs.push(Prov::Literal);
                        shown.push(format!("{:?}", String::from_utf8_lossy(bytes)));
                    }
                    Part::Hole(h) => {
                        let p = self.prov_of_binding(&h.binding);
                        if matches!(p, Prov::Declared(_)) {
                            return None;
                        }
                        plain = false;
                        provs.push(p);
                        shown.push(h.label.clone());
                    }
                }
            }
        }
        shown.dedup();
        let label = format!("({})", shown.join(" or "));
        let label = if label.chars().count() > MAX_LABEL || shown.is_empty() {
            "…".to_string()
        } else {
            label
        };
        let binding = format!("~return@{func}#{}", self.next_frame);
        self.provs.insert(binding.clone(), computed(provs));
        if ts.iter().any(|t| {
            t.parts[n..]
                .iter()
                .any(|p| matches!(p, Part::Hole(h) if self.varies.contains(&h.binding)))
        }) {
            self.varies.insert(binding.clone());
        }
        let kind = if plain {
            HoleKind::Fragment
        } else {
            HoleKind::Opaque
        };
        let span = self.call_sites.last().cloned();
        Some(Val::Str(tpl::concat(
            prefix,
            tpl::hole(label, binding, kind, span),
        )))
    }

    /// Walks a function once, whatever the budget: a registered function with its
    /// `keys` and `args`, or a function never called with unknown parameters.
    fn walk_function(&mut self, func: Node<'t>, params: Option<Vec<Val<'t>>>) {
        match params {
            Some(p) => self.run(func, p, None, false),
            None => {
                let n = func.field(F::Parameters).map_or(0, Node::named_child_count);
                self.run(func, vec![Val::Other(Prov::Unknown); n], None, true)
            }
        };
    }

    /// Walks every function of the tree that was never called, with unknown
    /// parameters, outermost first. Whatever script calls such a function touches all
    /// of its keys, so with `units` each gets a collector of its own.
    pub(crate) fn walk_uncalled(&mut self, root: Node<'t>, units: bool) -> Vec<Standalone> {
        let mut stack = vec![root];
        let mut found = Vec::new();
        while let Some(n) = stack.pop() {
            if n.is_error() {
                continue;
            }
            if matches!(n.kind(), K::FunctionDefinition | K::FunctionDeclaration) {
                found.push(n);
            }
            let first = stack.len();
            stack.extend(n.named_children());
            stack[first..].reverse();
        }
        found.sort_by_key(|n| n.start_byte());
        let mut out = Vec::new();
        for f in found {
            // An included file's functions are checked where that file is linted.
            if self.evaluated.contains(&f.start_byte()) || f.start_byte() < self.script_start {
                continue;
            }
            let saved = if units {
                self.collector.replace(Collector::default())
            } else {
                self.collector.take()
            };
            self.walk_function(f, None);
            let collected = std::mem::replace(&mut self.collector, saved);
            if let Some(c) = collected.filter(|c| !c.keys.is_empty()) {
                let name = f.field(F::Name);
                out.push(Standalone {
                    name: name.map_or_else(|| "function".to_string(), |n| self.text(n).to_string()),
                    span: f.byte_range(),
                    anchor: name
                        .map_or_else(|| f.start_byte()..f.start_byte() + 8, |n| n.byte_range()),
                    collector: c,
                });
            }
        }
        out
    }

    /// Sets how `KEYS` and `ARGV` are spelled in labels.
    pub(crate) fn set_names(&mut self, keys: &str, argv: &str) {
        self.keys_name = keys.to_string();
        self.argv_name = argv.to_string();
    }

    /// Marks a function as walked (a `no-cluster` function is not modelled).
    pub(crate) fn skip_function(&mut self, func: Node<'t>) {
        self.evaluated.insert(func.start_byte());
    }

    /// Walks a registered function: its first parameter is `KEYS`, its second `ARGV`.
    pub(crate) fn walk_registered(&mut self, func: Node<'t>) {
        self.walk_function(func, Some(vec![Val::Keys, Val::Argv]));
    }

    fn registration(&mut self, node: Node<'t>, arg_nodes: &[Node<'t>]) {
        let mut reg = Registration {
            name: None,
            name_span: node.byte_range(),
            span: node.byte_range(),
            callback: None,
            flags: Some(Vec::new()),
            flags_span: None,
        };
        let callback_val = |me: &mut Self, n: Node<'t>| -> Option<Node<'t>> {
            match me.expr(n) {
                Val::Func(f) => Some(f),
                _ => None,
            }
        };
        match arg_nodes {
            [table] if table.kind() == K::TableConstructor => {
                for field in table.named_children() {
                    if field.kind() != K::Field {
                        continue;
                    }
                    let Some(name) = field.field(F::Name) else {
                        continue;
                    };
                    let Some(value) = field.field(F::Value) else {
                        continue;
                    };
                    match self.text(name) {
                        "function_name" => {
                            reg.name_span = value.byte_range();
                            if let Val::Str(t) = self.expr(value) {
                                reg.name = t
                                    .as_literal()
                                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                            }
                        }
                        "callback" => reg.callback = callback_val(self, value),
                        "flags" => {
                            reg.flags_span = Some(value.byte_range());
                            reg.flags = self.flags(value);
                        }
                        _ => {}
                    }
                }
            }
            [name, callback, ..] => {
                reg.name_span = name.byte_range();
                if let Val::Str(t) = self.expr(*name) {
                    reg.name = t
                        .as_literal()
                        .map(|b| String::from_utf8_lossy(&b).into_owned());
                }
                reg.callback = callback_val(self, *callback);
            }
            _ => {}
        }
        self.registrations.push(reg);
    }

    fn flags(&mut self, node: Node<'t>) -> Option<Vec<String>> {
        if node.kind() != K::TableConstructor {
            return None;
        }
        let mut out = Vec::new();
        for field in node.named_children() {
            if field.kind() != K::Field {
                continue;
            }
            if field.field(F::Name).is_some() {
                return None;
            }
            let v = field.field(F::Value)?;
            match self.expr(v) {
                Val::Str(t) => out.push(String::from_utf8_lossy(&t.as_literal()?).into_owned()),
                _ => return None,
            }
        }
        Some(out)
    }

    // ------------------------------------------------------------------
    // string.format
    // ------------------------------------------------------------------

    fn format(&mut self, fmt: KeyTemplate, args: &[Val<'t>], arg_nodes: &[Node<'t>]) -> Val<'t> {
        let unknown = |me: &mut Self| {
            let provs: Vec<Prov> = args.iter().map(|a| me.prov_of(a)).collect();
            Val::Other(computed(provs))
        };
        let Some(lit) = (match fmt.parts.as_slice() {
            [Part::Lit(l)] => Some(l.clone()),
            [] => None,
            _ => None,
        }) else {
            return unknown(self);
        };
        let b = &lit.bytes;
        let mut out = KeyTemplate::default();
        let mut run_start = 0;
        let mut i = 0;
        let mut next_arg = 0;
        while i < b.len() {
            if b[i] != b'%' {
                i += 1;
                continue;
            }
            out = tpl::concat(
                out,
                KeyTemplate {
                    parts: vec![Part::Lit(tpl::sub_lit(&lit, run_start..i))],
                },
            );
            if b.get(i + 1) == Some(&b'%') {
                out = tpl::concat(
                    out,
                    KeyTemplate {
                        parts: vec![Part::Lit(tpl::sub_lit(&lit, i..i + 1))],
                    },
                );
                i += 2;
                run_start = i;
                continue;
            }
            // %[flags][width][.precision]conversion
            let mut j = i + 1;
            while j < b.len() && b"-+ #0".contains(&b[j]) {
                j += 1;
            }
            let spec_start = j;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            let plain = j == spec_start && spec_start == i + 1;
            let Some(&conv) = b.get(j) else {
                return unknown(self);
            };
            let (Some(arg), Some(&anode)) = (args.get(next_arg), arg_nodes.get(next_arg)) else {
                return unknown(self);
            };
            let arg = arg.clone();
            next_arg += 1;
            let piece = match conv {
                b's' if plain => self.template(&arg, anode),
                b'd' | b'i' if plain => match &arg {
                    Val::Str(t) => match t.as_literal() {
                        Some(v) if is_canonical_int(&v) => t.clone(),
                        Some(_) => {
                            let p = self.prov_of(&arg);
                            self.fresh(anode, p)
                        }
                        // An id from ARGV stays that id (`%d` of "42" is "42").
                        None => t.clone(),
                    },
                    other => {
                        let p = self.prov_of(other);
                        self.fresh(anode, p)
                    }
                },
                b'd' | b'i' | b'u' | b'c' | b'o' | b'x' | b'X' | b'e' | b'E' | b'f' | b'g'
                | b'G' | b'q' | b's' => {
                    // Another rendering of the value: a value of its own.
                    let p = self.prov_of(&arg);
                    let spec = String::from_utf8_lossy(&b[i..=j]).into_owned();
                    let label = format!("string.format(\"{spec}\", {})", self.label(anode));
                    let binding = format!("~{label}@{}#{}", anode.start_byte(), self.frame_id());
                    self.provs.insert(binding.clone(), p);
                    self.mark_varying(&binding, anode);
                    tpl::hole(&label, binding, HoleKind::Opaque, Some(anode.byte_range()))
                }
                _ => return unknown(self),
            };
            out = tpl::concat(out, piece);
            i = j + 1;
            run_start = i;
        }
        out = tpl::concat(
            out,
            KeyTemplate {
                parts: vec![Part::Lit(tpl::sub_lit(&lit, run_start..b.len()))],
            },
        );
        Val::Str(out)
    }

    // ------------------------------------------------------------------
    // redis.call
    // ------------------------------------------------------------------

    /// The `BY` and `GET` patterns of a `SORT`/`SORT_RO` command, for `sort-pattern`:
    /// options read as the server reads them, the arguments whose text is known; a
    /// spread or a value not known where an option word is expected ends the reading.
    fn sort_patterns(&mut self, call: Node<'t>, args: &[Val<'t>], arg_nodes: &[Node<'t>]) {
        let literal: Vec<Option<Vec<u8>>> = args
            .iter()
            .map(|v| match v {
                Val::Str(t) => t.as_literal(),
                _ => None,
            })
            .collect();
        let known: Vec<Option<&[u8]>> = literal.iter().map(|b| b.as_deref()).collect();
        let found = keylint_core::model::sort_pattern_args(&known);
        if found.is_empty() || args.len() < 2 {
            return;
        }
        let command = String::from_utf8_lossy(known[0].unwrap_or_default()).to_ascii_uppercase();
        let sorted_at = self.visible(arg_nodes[1].byte_range());
        let sorted = match &args[1] {
            Val::Str(t) => Some(t.clone()),
            _ => None,
        };
        let span = self.visible(call.byte_range());
        for (option, i) in found {
            let (Some(Val::Str(pattern)), Some(node)) = (args.get(i), arg_nodes.get(i)) else {
                continue;
            };
            // A value that begins the pattern may be a prefix with a tag of its own,
            // as for a key (`add_key`).
            let mut pattern = pattern.clone();
            if let Some(Part::Hole(h)) = pattern.parts.first_mut() {
                h.kind = HoleKind::Opaque;
            }
            let p = keylint_core::model::SortPattern {
                command: command.clone(),
                span: span.clone(),
                sorted: sorted.clone(),
                sorted_at: Some(sorted_at.clone()),
                option,
                pattern,
                at: self.visible(node.byte_range()),
                in_script: true,
            };
            if let Some(c) = self.collector.as_mut() {
                if !c.sort_patterns.contains(&p) {
                    c.sort_patterns.push(p);
                }
            }
        }
    }

    fn redis_command(
        &mut self,
        call: Node<'t>,
        callee: Node<'t>,
        arg_nodes: &[Node<'t>],
    ) -> Val<'t> {
        // `redis.call(cmd, ...)` in a wrapper: the wrapper's caller's arguments.
        let (args, mut arg_nodes) = self.expand_args(arg_nodes);
        // `redis.call(command, unpack(args, i, j))` in a helper: the keys are the
        // table its caller passed, shown there.
        for n in arg_nodes.iter_mut() {
            if let Some(caller) = self.unpacked_param(*n) {
                *n = caller;
            }
        }
        let arg_nodes = &arg_nodes[..];
        let first = self.visible(callee.byte_range());
        if let Some(c) = self.collector.as_mut() {
            if c.first_call.is_none() {
                c.first_call = Some(first);
            }
        }
        let data = |_: &mut Self| Val::Other(Prov::Data);
        let Some(Val::Str(name_t)) = args.first() else {
            return data(self);
        };
        let Some(name) = name_t.as_literal() else {
            return data(self);
        };
        if name.eq_ignore_ascii_case(b"keys") || name.eq_ignore_ascii_case(b"scan") {
            let command = String::from_utf8_lossy(&name).to_ascii_uppercase();
            let at = self.visible(call.byte_range());
            if let Some(c) = self.collector.as_mut() {
                c.listings.push((command, at));
            }
        }
        if name.eq_ignore_ascii_case(b"sort") || name.eq_ignore_ascii_case(b"sort_ro") {
            self.sort_patterns(call, &args, arg_nodes);
        }
        let (fixed, spread) = argv_bytes(name.clone(), &args, arg_nodes);
        let Some((fixed_keys, spread_is_key)) = key_positions(&fixed, spread.is_some()) else {
            return data(self);
        };
        let command = String::from_utf8_lossy(&name).to_ascii_uppercase();
        let (mut unit_keys, possible, families) = self.command_keys(
            &command,
            &args,
            arg_nodes,
            fixed_keys,
            spread_is_key,
            spread,
        );
        unit_keys.dedup();
        let mut distinct = unit_keys.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let constraints = self.constraints();
        let certain = constraints.is_empty() && self.maybe_skipped == 0;
        let (unit_span, unit_anchor) = (
            self.visible(call.byte_range()),
            self.visible(arg_nodes[0].byte_range()),
        );
        let required = unit_keys
            .iter()
            .filter_map(|&k| match self.keys[k].origin {
                KeyOrigin::Declared(i) | KeyOrigin::DerivedFromDeclared(i) if certain => Some(i),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        if let Some(c) = self.collector.as_mut() {
            c.required = c.required.max(required);
            for &k in &possible {
                c.add_possible(k);
            }
            for &k in &unit_keys {
                c.add(k, constraints.clone());
            }
            if distinct.len() >= 2 || !families.is_empty() {
                for (k, varying) in families {
                    c.families.push((c.commands.len(), k, varying));
                }
                c.commands.push(Unit {
                    kind: UnitKind::Command,
                    name: command,
                    span: unit_span,
                    anchor: unit_anchor,
                    keys: unit_keys,
                    // A single command whose keys span slots fails inside any script.
                    policy: CrossSlotPolicy::Refused,
                });
            }
        }
        data(self)
    }

    /// The keys of one command: those at fixed positions (each reaching value of a
    /// local with several, as possible keys that join no unit) and the spread values
    /// when they are keys.
    fn command_keys(
        &mut self,
        command: &str,
        args: &[Val<'t>],
        arg_nodes: &[Node<'t>],
        fixed_keys: Vec<usize>,
        spread_is_key: Option<bool>,
        spread: Option<(usize, Val<'t>)>,
    ) -> CommandKeys {
        let mut unit_keys = Vec::new();
        let mut possible = Vec::new();
        let mut families = Vec::new();
        for i in fixed_keys {
            let (Some(v), Some(&n)) = (args.get(i), arg_nodes.get(i)) else {
                continue;
            };
            if n.kind() == K::Identifier {
                if let Some(alts) = self.alternatives(n).filter(|a| a.len() > 1).cloned() {
                    // A local with several reaching values: each is a possible key,
                    // shown where it is written and where the command touches it.
                    // None of them is certain, so they join no unit.
                    let mut at_use = Vec::new();
                    for (alt, at) in alts {
                        // `nil`, a boolean, a table or a comparison is never a key:
                        // `local k = false` before `k = KEYS[i]` in a loop leaves the
                        // keys the loop assigns (a command given `false` fails). Nor is
                        // the empty string among other values: `local k = ""`, then
                        // `k = prefix .. id` under the test its uses are under, is a
                        // name not set yet, not a key named "".
                        let unset = match &alt {
                            Val::Nil | Val::Other(Prov::Unknown | Prov::Literal) => true,
                            Val::Str(t) => t.as_literal().is_some_and(|l| l.is_empty()),
                            _ => false,
                        };
                        if unset || at.is_empty() {
                            continue;
                        }
                        let t = self.template(&alt, n);
                        possible.push(self.add_key(t.clone(), at, command));
                        at_use.push(t);
                    }
                    for t in at_use {
                        possible.push(self.add_key(t, n.byte_range(), command));
                    }
                    continue;
                }
            }
            let t = self.template(v, n);
            // A value with no text of its own (read from Redis, a table) is named after
            // the parameter, so it is shown where that name is.
            let span = match v {
                Val::Str(_) => self.shown_at(n),
                _ => n.byte_range(),
            };
            let k = self.add_key(t, span, command);
            unit_keys.push(k);
        }
        if let (Some(true), Some((i, v))) = (spread_is_key, spread) {
            let n = arg_nodes[i];
            let varying = match v {
                Val::Spread(Spread::Coll(c)) => self.colls_varying.get(c).cloned(),
                _ => None,
            };
            let t = match v {
                Val::Spread(Spread::Keys(_)) => {
                    let label = self.label(n);
                    let binding = format!("~{label}@{}#{}", n.start_byte(), self.frame_id());
                    self.provs.insert(binding.clone(), Prov::Declared(0));
                    tpl::hole(&label, binding, HoleKind::Opaque, Some(n.byte_range()))
                }
                Val::Spread(Spread::Coll(c)) => match self.colls.get(c).cloned() {
                    Some(v @ Val::Str(_)) => self.template(&v, n),
                    // Values read from Redis or `ARGV` (`t[#t + 1] = popped[i]`).
                    Some(v @ Val::Other(Prov::Argv | Prov::Data)) => {
                        let p = self.prov_of(&v);
                        self.fresh(n, p)
                    }
                    _ => self.fresh(n, Prov::Unknown),
                },
                other => {
                    let p = self.prov_of(&other);
                    self.fresh(n, p)
                }
            };
            let k = self.add_key(t, n.byte_range(), command);
            unit_keys.push(k);
            // The values of a table filled in a loop: one key per pass.
            if let Some(varying) = varying.filter(|v| !v.is_empty()) {
                families.push((k, varying));
            }
        }
        (unit_keys, possible, families)
    }

    /// Where a command's key is shown. When the key is a parameter of the local function
    /// being walked, used as it is (`local function dec_floor0(key) redis.call("DECR",
    /// key)`), it is shown at the argument of the call that passed it
    /// (`dec_floor0(base .. ":inflight")`), through every call in between: the key is
    /// chosen there, and a helper called with several keys shows each at its own call.
    /// A recursive call stops the walk. Only for a key with text of its own
    /// ([`Val::Str`]).
    fn shown_at(&self, n: Node<'t>) -> Span {
        let mut node = n;
        let mut top = self.frames.len();
        while node.kind() == K::Identifier {
            let Some(d) = self.scopes.uses.get(&node.start_byte()) else {
                break;
            };
            if self.scopes.mutated.contains(d) {
                break;
            }
            let Some(i) = (0..top)
                .rev()
                .find(|&i| self.frames[i].param_nodes.contains_key(d))
            else {
                break;
            };
            let arg = self.frames[i].param_nodes[d];
            // A call from inside the function itself (a recursive `get(field)`) passes
            // a value of its own: the key is shown where the function uses it.
            if self.frames[i].func.contains(&arg.start_byte()) {
                break;
            }
            node = arg;
            top = i;
        }
        node.byte_range()
    }

    fn add_key(&mut self, mut t: KeyTemplate, span: Span, command: &str) -> usize {
        // A key touched in code the host pasted before the script (a prelude of
        // helpers) is shown at the call that led there, and noted where it is touched.
        let touched = span.clone();
        let span = self.visible(span);
        let via = (span != touched && self.pasted.iter().any(|r| r.contains(&touched.start)))
            .then_some(touched);
        // A hole that begins a key may be a whole key or a prefix with its own tag.
        if let Some(Part::Hole(h)) = t.parts.first_mut() {
            h.kind = HoleKind::Opaque;
        }
        let origin = self.origin(&t);
        let slot = self.key_index.entry((span.start, span.end)).or_default();
        for &k in slot.iter() {
            if self.keys[k].template == t && self.keys[k].command == command {
                return k;
            }
        }
        let k = self.keys.len();
        slot.push(k);
        self.keys.push(KeyUse {
            template: t,
            span,
            command: command.to_string(),
            origin,
            via,
        });
        k
    }

    fn origin(&self, t: &KeyTemplate) -> KeyOrigin {
        if self.no_keys {
            return KeyOrigin::Undeclared;
        }
        if let Some(o) = self.part_origin(t) {
            return o;
        }
        // A key that begins with `KEYS[i]` itself, followed by literal text, is built
        // from that declared key whatever the rest holds: it is not a declared key.
        if let (Some(Part::Hole(h)), Some(Part::Lit(l))) = (t.parts.first(), t.parts.get(1)) {
            if let (false, Prov::Declared(i @ 1..)) =
                (l.bytes.is_empty(), self.prov_of_binding(&h.binding))
            {
                return KeyOrigin::DerivedFromDeclared(i);
            }
        }
        // A part of a declared key anywhere but at the start is as unknown as any
        // value computed from a declared key.
        let provs: Vec<Prov> = tpl::holes(t)
            .map(|h| match self.prov_of_binding(&h.binding) {
                Prov::Part(_) | Prov::PartOrWhole(_) => Prov::Unknown,
                p => p,
            })
            .collect();
        if provs.contains(&Prov::Unknown) {
            // `KEYS[i] .. tid` with `tid` popped from a table: built from `KEYS[i]`,
            // whatever follows it (like `KEYS[i] .. ARGV[1]`).
            if let Some(Part::Hole(h)) = t.parts.first() {
                if let Prov::Declared(i @ 1..) = self.prov_of_binding(&h.binding) {
                    let later_declared = tpl::holes(t)
                        .skip(1)
                        .any(|h| matches!(self.prov_of_binding(&h.binding), Prov::Declared(_)));
                    if h.binding == format!("KEYS[{i}]") && t.parts.len() > 1 && !later_declared {
                        return KeyOrigin::DerivedFromDeclared(i);
                    }
                }
            }
            return if self.anchored_undeclared(t) {
                KeyOrigin::Undeclared
            } else {
                KeyOrigin::Unknown
            };
        }
        let declared = provs.iter().find_map(|p| match p {
            Prov::Declared(i) => Some(*i),
            _ => None,
        });
        match (declared, t.parts.len()) {
            (Some(i), 1) => KeyOrigin::Declared(i),
            (Some(i), _) => KeyOrigin::DerivedFromDeclared(i),
            (None, _) => KeyOrigin::Undeclared,
        }
    }

    /// True when a key with values of unknown provenance in it is still certainly not
    /// a declared key: it begins with literal text, or with an `ARGV` value or data
    /// read from Redis, and no declared key goes into it. A key is a key whatever its
    /// suffix comes from (`'job:' .. cjson.decode(ARGV[1]).id`, `prefix .. task.key`
    /// with `prefix = ARGV[2]`): it is not one of the `KEYS`, which a script receives
    /// whole. An unknown value inside what may be the key's hash tag (after a `{`)
    /// could be a declared key in braces (`'buf:{' .. k .. '}'`), which shares its
    /// slot: such a key stays unknown.
    fn anchored_undeclared(&self, t: &KeyTemplate) -> bool {
        let anchored = match t.parts.first() {
            Some(Part::Lit(l)) => !l.bytes.is_empty(),
            Some(Part::Hole(h)) => matches!(
                self.prov_of_binding(&h.binding),
                Prov::Argv | Prov::Data | Prov::Literal
            ),
            None => false,
        };
        if !anchored {
            return false;
        }
        let mut brace = false;
        for p in &t.parts {
            match p {
                Part::Lit(l) => brace |= l.bytes.contains(&b'{'),
                Part::Hole(h) => match self.prov_of_binding(&h.binding) {
                    Prov::Declared(_) => return false,
                    Prov::Unknown | Prov::Part(_) | Prov::PartOrWhole(_) if brace => return false,
                    _ => {}
                },
            }
        }
        true
    }
}

/// The keys of one command: those of its unit, the possible keys that join no unit,
/// and the keys of the unit that stand for many (with the bindings that vary).
type CommandKeys = (Vec<usize>, Vec<usize>, Vec<(usize, Vec<String>)>);

/// A value that is certainly one value, even from a call in last position.
fn single_valued(v: &Val<'_>) -> bool {
    !matches!(v, Val::Spread(_))
}

fn is_canonical_int(b: &[u8]) -> bool {
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    !digits.is_empty()
        && digits.iter().all(|c| c.is_ascii_digit())
        && (digits == b"0" || digits[0] != b'0')
        && b != b"-0"
}

/// The string library's functions that a string value's `s:f(…)` calls and that
/// compute a value from it (not `gmatch`, an iterator).
const STRING_METHODS: &[&str] = &[
    "byte", "find", "format", "gsub", "len", "lower", "match", "rep", "reverse", "sub", "upper",
];

fn member(table: Builtin, field: &str) -> Builtin {
    match (table, field) {
        // `redis.pcall` returns a failed command's error instead of raising it; the
        // command fails all the same.
        (Builtin::Redis, "call" | "pcall") => Builtin::Call,
        (Builtin::Redis, "register_function") => Builtin::RegisterFunction,
        (Builtin::StringLib, "format") => Builtin::Format,
        (Builtin::Redis, "sha1hex") => Builtin::Pure,
        (Builtin::StringLib, "gsub" | "find" | "match" | "byte") => Builtin::PureMulti,
        (Builtin::StringLib, "gmatch") => Builtin::Gmatch,
        (Builtin::StringLib, _) => Builtin::Pure,
        (Builtin::TableLib, "unpack") => Builtin::Unpack,
        (Builtin::TableLib, "concat") => Builtin::Pure,
        (Builtin::PureLib, "unpack") => Builtin::PureMulti,
        (Builtin::PureLib, _) => Builtin::Pure,
        _ => Builtin::Other,
    }
}

/// An argument whose bytes are not known: it matches no keyword and no number.
const PLACEHOLDER: &[u8] = b"\x00keylint:unknown\x00";

/// The bytes of a command's arguments: literal where known, else a placeholder that
/// matches no keyword and no number; the last argument apart when it may be several
/// values (a spread or a call in last position).
fn argv_bytes<'t>(
    name: Vec<u8>,
    args: &[Val<'t>],
    arg_nodes: &[Node<'t>],
) -> (Vec<Vec<u8>>, Option<(usize, Val<'t>)>) {
    let mut fixed: Vec<Vec<u8>> = vec![name];
    let mut spread: Option<(usize, Val<'t>)> = None;
    for (i, v) in args.iter().enumerate().skip(1) {
        if i + 1 == args.len() {
            if let Val::Spread(_) = v {
                spread = Some((i, v.clone()));
                break;
            }
            // A call in last position may return several values.
            if arg_nodes[i].kind() == K::FunctionCall && !single_valued(v) {
                spread = Some((i, v.clone()));
                break;
            }
        }
        fixed.push(match v {
            Val::Str(t) => t.as_literal().unwrap_or_else(|| PLACEHOLDER.to_vec()),
            _ => PLACEHOLDER.to_vec(),
        });
    }
    (fixed, spread)
}

/// The key positions among the fixed arguments, and whether the spread values are
/// keys, the same for every number of spread values tried; `None` when they cannot
/// be told.
fn key_positions(fixed: &[Vec<u8>], has_spread: bool) -> Option<(Vec<usize>, Option<bool>)> {
    // Key positions, the same for every number of spread values tried.
    let mut fixed_keys: Option<Vec<usize>> = None;
    let mut spread_is_key: Option<bool> = None;
    let tries: &[usize] = if has_spread { &[0, 1, 2, 3] } else { &[0] };
    let mut any = false;
    for &n in tries {
        let mut argv: Vec<&[u8]> = fixed.iter().map(|v| v.as_slice()).collect();
        argv.extend(std::iter::repeat_n(PLACEHOLDER, n));
        let Ok(ex) = keylint_commands::extract_keys(&argv) else {
            continue;
        };
        any = true;
        let mut fk: Vec<usize> = ex
            .keys
            .iter()
            .map(|k| k.index)
            .filter(|&i| i < fixed.len())
            .collect();
        fk.sort_unstable();
        fk.dedup();
        let sk = ex.keys.iter().any(|k| k.index >= fixed.len());
        if fixed_keys.as_ref().is_some_and(|prev| *prev != fk) {
            return None;
        }
        fixed_keys = Some(fk);
        if n > 0 {
            match spread_is_key {
                Some(prev) if prev != sk => {
                    // Some counts make spread values keys, others not: the keys
                    // cannot be told.
                    return None;
                }
                _ => spread_is_key = Some(sk),
            }
        }
    }
    if !any {
        return None;
    }
    Some((fixed_keys.unwrap_or_default(), spread_is_key))
}

/// The Go template actions that name a field of the template's data (`{{.name}}`,
/// `{{- .a.b -}}`) in a literal's bytes: each one's range and field name.
fn go_actions(b: &[u8]) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if !(b[i] == b'{' && b[i + 1] == b'{') {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 2;
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        if b.get(j) != Some(&b'.') {
            i += 2;
            continue;
        }
        j += 1;
        let name_start = j;
        while b
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
        {
            j += 1;
        }
        let name_end = j;
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        if b.get(j) == Some(&b'-') {
            j += 1;
        }
        let closed = b.get(j) == Some(&b'}') && b.get(j + 1) == Some(&b'}');
        let first_ok = b
            .get(name_start)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_');
        if closed && first_ok {
            let name = String::from_utf8_lossy(&b[name_start..name_end]).into_owned();
            out.push((start..j + 2, name));
            i = j + 2;
        } else {
            i += 2;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_like_names() {
        for n in [
            "key",
            "queueKey",
            "job_key",
            "KEY_PREFIX",
            "prefix",
            "ns",
            "baseKey",
        ] {
            assert!(key_like_name(n), "{n}");
        }
        for n in ["jobId", "tokens", "monkey", "id", "keyword", "nsfw"] {
            assert!(!key_like_name(n), "{n}");
        }
    }

    #[test]
    fn provenance_of_computed_values() {
        assert_eq!(computed([Prov::Argv, Prov::Literal]), Prov::Argv);
        assert_eq!(computed([Prov::Argv, Prov::Data]), Prov::Data);
        assert_eq!(computed([Prov::Literal]), Prov::Data);
        assert_eq!(computed([Prov::Declared(1), Prov::Argv]), Prov::Unknown);
        assert_eq!(computed([]), Prov::Data);
    }
}
