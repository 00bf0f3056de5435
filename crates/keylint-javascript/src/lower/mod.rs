//! The analysis of one file: which names are clients, what expressions evaluate to,
//! and every command, transaction and script call on a client, lowered to keys and
//! units.

use crate::methods::{self, Cluster, IoKeys, ParamKind};
use crate::tpl::{decode, is_keylike_label, HoleInfo, TPart, Tpl};
use crate::{FileLoader, Options};
use keylint_core::model::{
    BadNumkeys, CrossSlotPolicy, KeyFamily, KeyOrigin, KeyUse, Numkeys, Unit, UnitKind, UnitNote,
};
use keylint_core::script_link::{self, LinkedBody, Mapper, ScriptCall};
use keylint_core::{FileModel, Span};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// Deepest expression nesting evaluated; deeper values are unknown.
const MAX_DEPTH: usize = 64;
/// Most values the analyzer evaluates for one file; beyond, values are unknown. A
/// value read twice in each of a chain of names (`let b = a + a; let c = b + b; …`)
/// is evaluated twice as often at each link, so depth alone does not bound the work.
const MAX_STEPS: usize = 2_000_000;

/// Which client library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lib {
    IoRedis,
    NodeRedis,
}

/// Which kind of client, as far as the code shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Standalone,
    Cluster,
    Unknown,
}

/// The `keyPrefix` a client prepends to every key (ioredis, node-redis 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prefix {
    /// The code shows every option: no prefix.
    None,
    /// Options the code does not show (a variable, a URL with holes, a client made
    /// elsewhere): a prefix may carry a hash tag of its own.
    Unknown,
    /// This one, an index into [`Analyzer::prefixes`].
    Lit(usize),
    /// A prefix the code sets but that cannot be read (a connection URL's query that
    /// names it), or one of several clients' prefixes one of which is known: no
    /// assumption is made about it.
    Opaque,
}

impl Prefix {
    /// The prefix of a value that is one of two clients.
    pub(crate) fn either(self, other: Prefix) -> Prefix {
        match (self, other) {
            (a, b) if a == b => a,
            (Prefix::None | Prefix::Unknown, Prefix::None | Prefix::Unknown) => Prefix::Unknown,
            _ => Prefix::Opaque,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Client {
    lib: Lib,
    kind: Kind,
    prefix: Prefix,
}

/// A batch started on a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Batch {
    /// `multi()`.
    Multi,
    /// ioredis `pipeline()`.
    Pipeline,
    /// node-redis 3 `batch()`: a pipeline sent to the node the client is connected to.
    Grouped,
}

/// What an expression may evaluate to.
#[derive(Debug, Clone)]
enum Value<'t> {
    Str(Tpl),
    Num(i64),
    /// An array literal: its elements, and whether it has no spread.
    Array(Vec<Elem<'t>>, bool),
    /// An object literal: its named properties.
    Object(Vec<(String, Elem<'t>)>),
    Client(Client),
    /// `client.multi()` / `client.pipeline()` and commands queued on it (the calls,
    /// outermost last).
    Batch(Client, Batch),
    /// The text of a file read at lint time.
    FileText(String),
    /// A value of another module of the project that is not a string, number,
    /// client or object (a key builder, a class, an instance, a module).
    Foreign(crate::modules::Fact),
    Null,
    Unknown,
}

#[derive(Debug, Clone)]
struct Elem<'t> {
    value: Value<'t>,
    node: Node<'t>,
    /// A spread (`...x`).
    spread: bool,
}

/// What a name is bound to where it is used.
#[derive(Debug, Clone, Copy)]
enum Decl<'t> {
    /// Bound once to this expression (`const`, or never assigned again).
    Value(Node<'t>),
    /// A parameter (the parameter node, with its type when it has one).
    Param(Node<'t>),
    /// A function declared with this name.
    Func(Node<'t>),
    /// A `let` or `var` assigned after its declaration (its name, its initial value).
    Assigned(Node<'t>, Option<Node<'t>>),
    /// Something else (a loop variable, a destructured or reassigned name, a class).
    Other,
    /// Not declared in the file's scopes (an import or a global).
    Free,
}

/// A script called with keys, to link with its body once every call is seen.
struct Link<'t> {
    unit: usize,
    body: Option<Body<'t>>,
    call: Node<'t>,
    keys: Vec<Option<usize>>,
    key_spans: Vec<Span>,
    passed: Option<(usize, Span)>,
    numkeys: Option<(Numkeys, Span)>,
}

/// A script defined with ioredis `defineCommand(name, { numberOfKeys, lua })`, or by
/// a loader from a script file (see `scriptdir`).
#[derive(Clone)]
struct Defined<'t> {
    numkeys: Option<usize>,
    body: Option<Body<'t>>,
}

/// Where a script's Lua body is.
#[derive(Debug, Clone)]
enum Body<'t> {
    /// An expression of the file (a string, a constant, `fs.readFileSync(…)`).
    Expr(Node<'t>),
    /// A script file (relative to the file's directory) that a loader reads at run
    /// time; its `--- @include` lines are followed.
    File(String),
}

/// What the file imports from the client libraries.
#[derive(Debug, Default)]
struct Imports {
    /// ioredis's default export (`Redis`): `new X()` is a client, `X.Cluster` the
    /// cluster class.
    io_default: HashSet<String>,
    /// ioredis's `Cluster`.
    io_cluster: HashSet<String>,
    /// `import * as X from 'ioredis'`.
    io_ns: HashSet<String>,
    /// node-redis functions that make clients.
    node_fns: HashMap<String, Kind>,
    /// The node-redis module as a whole (`const redis = require('redis')`).
    node_ns: HashSet<String>,
    /// Type names of clients.
    types: HashMap<String, Client>,
    /// node-redis' `defineScript` is imported.
    node_script: bool,
}

impl Imports {
    fn any(&self) -> bool {
        !self.io_default.is_empty()
            || !self.io_cluster.is_empty()
            || !self.io_ns.is_empty()
            || !self.node_fns.is_empty()
            || !self.node_ns.is_empty()
            || !self.types.is_empty()
            || self.node_script
    }
}

pub(crate) struct Analyzer<'t> {
    src: &'t str,
    root: Node<'t>,
    options: &'t Options,
    loader: Option<&'t dyn FileLoader>,
    model: FileModel,
    imports: Imports,
    depth: usize,
    /// Values evaluated so far for this file (see [`MAX_STEPS`]).
    steps: usize,
    /// Names assigned somewhere in the file (`x = …`, `x++`): not constants.
    assigned: HashSet<String>,
    decl_cache: HashMap<(usize, String), Option<Decl<'t>>>,
    member_cache: HashMap<(usize, String), Option<Value<'t>>>,
    defined: HashMap<String, Defined<'t>>,
    links: Vec<Link<'t>>,
    /// Calls every node of the file, in source order.
    calls: Vec<Node<'t>>,
    /// The key prefixes of clients made with a literal `keyPrefix`.
    prefixes: Vec<Tpl>,
    /// Bodies of scripts defined with `defineCommand` or `defineScript`.
    registered: Vec<Node<'t>>,
    /// Key uses that stand for the elements of a `.map()`, with the binding that varies.
    family_of: HashMap<usize, String>,
    /// Parameters bound to a call's arguments while a key builder is evaluated.
    env: HashMap<usize, Value<'t>>,
    /// The elements of a literal list mapped where it is written
    /// (`['wait', 'paused'].map(n => toKey(n))`): what the map makes of each.
    mapped: HashMap<usize, Value<'t>>,
    /// Every assignment to a name: the target and the value (`None`: not known).
    assignments: HashMap<String, Vec<(Node<'t>, Option<Node<'t>>)>>,
    /// The functions assigned to `X.prototype.name`, by `X`.
    prototypes: HashMap<String, Vec<Node<'t>>>,
    /// The parent of every named node (tree-sitter finds a parent by walking down
    /// from the root, which costs the node's depth on every step up).
    parents: HashMap<usize, Node<'t>>,
    /// While a batch of a receiver known by use is read: the client it is taken for.
    by_use: Option<Client>,
    /// Redis-only commands on receivers the code does not resolve, read once every
    /// batch is (see `commands_by_use`).
    by_use_calls: Vec<Node<'t>>,
    /// The calls queued on batches of clients known by use.
    queued_by_use: HashSet<usize>,
    /// Names whose properties the file assigns (`keys[k] = …`, `o.x = …`).
    mutated_names: HashSet<String>,
    /// Properties whose own properties the file assigns (`this.keys.x = …`).
    mutated_fields: HashSet<String>,
    /// Properties the file assigns on objects other than `this` (`q.keys = …`).
    assigned_fields: HashSet<String>,
    /// Objects kept on `this`, by owner and property.
    object_cache: HashMap<(String, String), Option<Value<'t>>>,
    /// The project analysis and this file's module name, when the file is a module
    /// of a project.
    project: Option<(&'t crate::modules::Project, &'t str)>,
    /// What the analysis asked the project's module loader.
    module_deps: Vec<keylint_core::frontend::ModuleDep>,
    /// Names bound by imports of the project's modules (`None`: bound twice).
    module_imports: HashMap<String, Option<imports::ImportRef>>,
    /// What each imported name was found to be.
    imported_facts: HashMap<String, Option<crate::modules::Fact>>,
    /// Where each class (by node id) gives its members values.
    member_sites: HashMap<usize, std::rc::Rc<clients::MemberSites<'t>>>,
    /// Script files of the directories a loader may read, by command name (read once,
    /// when a call may need them).
    dir_scripts: Option<HashMap<String, scriptdir::DirScript>>,
    /// Properties of `this` that keep the SHA of a script loaded with `SCRIPT LOAD`,
    /// with its body (`None`: several bodies) and how many assignments keep it.
    sha_fields: HashMap<String, (Option<Node<'t>>, usize)>,
    /// Callback parameters that receive the SHA of a loaded script, with its body.
    sha_params: HashMap<usize, Node<'t>>,
    /// Scripts of node-redis clients' `scripts` options, by name (`None`: defined
    /// twice, or not read).
    node_scripts: HashMap<String, Option<nodescripts::NodeScript<'t>>>,
    /// Parameters (by node id) whose function sets their properties (`keys.x = …`).
    mutated_params: HashMap<usize, bool>,
}

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "generator_function_declaration"
            | "generator_function"
    )
}

/// The named children of `n`, comments aside.
fn named_kids(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| k.kind() != "comment")
        .collect()
}

/// The one plain parameter of a function written `x => …`, `(x) => …` or `(x: T) => …`
/// (comments aside): the parameter as declared, and the identifier that names it.
fn sole_plain_param(f: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    if let Some(p) = f.child_by_field_name("parameter") {
        return Some((p, p));
    }
    let params = f.child_by_field_name("parameters")?;
    let ps: Vec<Node<'_>> = named_kids(params);
    let [p] = ps[..] else { return None };
    let ident = match p.kind() {
        "identifier" => p,
        "required_parameter" => p
            .child_by_field_name("pattern")
            .filter(|x| x.kind() == "identifier")?,
        _ => return None,
    };
    Some((p, ident))
}

fn unwrap_expr(mut n: Node<'_>) -> Node<'_> {
    loop {
        match n.kind() {
            "parenthesized_expression"
            | "await_expression"
            | "non_null_expression"
            | "as_expression"
            | "satisfies_expression"
            | "type_assertion" => match n.named_child(0) {
                Some(c) if c.kind() != "type_arguments" => n = c,
                _ => match n.named_child(1) {
                    Some(c) => n = c,
                    None => return n,
                },
            },
            _ => return n,
        }
    }
}

/// The string a `string` node holds, when it has no escapes the linter cannot know.
fn string_value(n: Node<'_>, src: &str) -> Option<String> {
    if n.kind() != "string" || n.end_byte() < n.start_byte() + 2 {
        return None;
    }
    let (b, _) = decode(src, n.start_byte() + 1, n.end_byte() - 1)?;
    String::from_utf8(b).ok()
}

mod batches;
mod clients;
mod commands;
mod imports;
mod index;
mod joined;
mod keymaps;
mod lists;
mod nodescripts;
mod objects;
mod scopes;
mod scriptdir;
#[cfg(test)]
pub(crate) use scriptdir::script_file_name;
mod scripts;
mod this;
#[cfg(test)]
pub(crate) use this::is_prefix_label;
mod values;

impl<'t> Analyzer<'t> {
    pub(crate) fn new(
        root: Node<'t>,
        src: &'t str,
        options: &'t Options,
        loader: Option<&'t dyn FileLoader>,
    ) -> Analyzer<'t> {
        Analyzer {
            src,
            root,
            options,
            loader,
            model: FileModel::new(crate::LANG),
            imports: Imports::default(),
            depth: 0,
            steps: 0,
            assigned: HashSet::new(),
            decl_cache: HashMap::new(),
            member_cache: HashMap::new(),
            defined: HashMap::new(),
            links: Vec::new(),
            calls: Vec::new(),
            prefixes: Vec::new(),
            registered: Vec::new(),
            family_of: HashMap::new(),
            env: HashMap::new(),
            mapped: HashMap::new(),
            assignments: HashMap::new(),
            parents: HashMap::new(),
            prototypes: HashMap::new(),
            by_use: None,
            by_use_calls: Vec::new(),
            queued_by_use: HashSet::new(),
            mutated_names: HashSet::new(),
            mutated_fields: HashSet::new(),
            assigned_fields: HashSet::new(),
            object_cache: HashMap::new(),
            project: None,
            module_deps: Vec::new(),
            module_imports: HashMap::new(),
            imported_facts: HashMap::new(),
            member_sites: HashMap::new(),
            dir_scripts: None,
            sha_fields: HashMap::new(),
            sha_params: HashMap::new(),
            node_scripts: HashMap::new(),
            mutated_params: HashMap::new(),
        }
    }

    /// The analysis of a module of a project, which reads the modules it imports.
    pub(crate) fn in_project(
        mut self,
        project: &'t crate::modules::Project,
        module: &'t str,
    ) -> Self {
        self.project = Some((project, module));
        self
    }

    /// The model, and what the analysis asked the project's module loader.
    pub(crate) fn run_with_deps(mut self) -> (FileModel, Vec<keylint_core::frontend::ModuleDep>) {
        let deps = std::mem::take(&mut self.module_deps);
        let (model, more) = self.run_inner();
        let mut all = deps;
        for d in more {
            if !all.contains(&d) {
                all.push(d);
            }
        }
        (model, all)
    }

    pub(crate) fn run(self) -> FileModel {
        self.run_inner().0
    }

    fn run_inner(mut self) -> (FileModel, Vec<keylint_core::frontend::ModuleDep>) {
        self.index();
        let imports_modules = self.project.is_some() && !self.module_imports.is_empty();
        if self.imports.any() || self.options.library.is_some() || imports_modules {
            let calls = std::mem::take(&mut self.calls);
            // Scripts defined with defineCommand are known before their calls.
            for &c in &calls {
                self.define_command(c);
            }
            // Then the scripts a loader defines from script files.
            self.define_dir_scripts();
            for &c in &calls {
                self.lower_call(c);
            }
            self.commands_by_use();
            self.link_scripts();
        }
        (self.model, self.module_deps)
    }
}

/// One flattened ioredis argument.
#[derive(Debug, Clone, Copy)]
enum Flat<'t> {
    /// One argument.
    One(Node<'t>),
    /// Any number of arguments (a spread, or a value that may be an array).
    Many,
    /// `xs.map(x => key)` (or its spread): any number of keys of one family.
    Family(Node<'t>),
}

/// The arguments before the first one of unknown length (a spread, a family).
fn leading_known<'t>(flat: &[Flat<'t>]) -> Vec<Node<'t>> {
    flat.iter()
        .map_while(|x| match x {
            Flat::One(n) => Some(*n),
            _ => None,
        })
        .collect()
}

/// The key arguments of a `first:last:step` range over flattened arguments; `None`
/// when their positions cannot be known.
fn range_keys<'t>(
    flat: &[Flat<'t>],
    first: usize,
    last: i32,
    step: usize,
) -> Option<Vec<Node<'t>>> {
    let first = first.checked_sub(1)?;
    let exact = flat.iter().all(|x| matches!(x, Flat::One(_)));
    if exact {
        let n = flat.len();
        let end = match last {
            // `last` is a 1-based position too.
            0 => return None,
            l if l > 0 => (l as usize - 1).min(n.saturating_sub(1)),
            l => {
                let back = (-l) as usize;
                if n < back {
                    return Some(Vec::new());
                }
                n - back
            }
        };
        let mut out = Vec::new();
        let mut i = first;
        while i <= end && i < n {
            if let Flat::One(x) = flat[i] {
                out.push(x);
            }
            i += step.max(1);
        }
        return Some(out);
    }
    // With arguments of unknown length, a range that ends at a fixed position before
    // the first of them is still known (`brpoplpush(a, b, 0, ...rest)`).
    let lead = leading_known(flat).len();
    if last > 0 && (last as usize) <= lead {
        let lead = leading_known(flat);
        return Some(
            (first..last as usize)
                .step_by(step.max(1))
                .map(|i| lead[i])
                .collect(),
        );
    }
    // Otherwise only "every argument from `first` on" (or all but the last, when the
    // last is written) can still be read.
    if step != 1 {
        return None;
    }
    if lead < first {
        return None;
    }
    let take = match last {
        -1 => flat.len(),
        -2 if matches!(flat.last(), Some(Flat::One(_))) => flat.len() - 1,
        _ => return None,
    };
    Some(
        flat[first..take]
            .iter()
            .filter_map(|x| match x {
                Flat::One(n) | Flat::Family(n) => Some(*n),
                Flat::Many => None,
            })
            .collect(),
    )
}

/// A negative integer literal (`-1`).
fn negative(n: Node<'_>, src: &str) -> Option<i64> {
    let n = unwrap_expr(n);
    if n.kind() != "unary_expression" {
        return None;
    }
    text(n, src).replace(' ', "").parse::<i64>().ok()
}

/// Whether every hole of a connection URL comes before its path (`redis://host:${port}`
/// with no `/` after the hole): such a hole is a host or a port, not options.
fn url_holes_before_path(t: &Tpl) -> bool {
    let mut seen_hole = false;
    for p in &t.parts {
        match p {
            TPart::Hole(_) => seen_hole = true,
            TPart::Lit { bytes, .. } if seen_hole && bytes.contains(&b'/') => return false,
            TPart::Lit { .. } => {}
        }
    }
    // The last hole must be the end of the URL or be followed by literal text only.
    !matches!(t.parts.last(), Some(TPart::Hole(_)) if t.parts.len() == 1)
}

/// A function body that is one statement of `kind` (comments aside): that statement's
/// expression (`{ return x; }` gives `x`); an arrow function's expression body is
/// itself. `None` for any other body.
pub(super) fn lone_statement<'t>(body: Node<'t>, kind: &str) -> Option<Node<'t>> {
    if body.kind() != "statement_block" {
        return Some(body);
    }
    let stmts: Vec<Node<'t>> = named_kids(body);
    let [st] = stmts[..] else { return None };
    if st.kind() != kind {
        return None;
    }
    st.named_child(0)
}

/// A statement that is one assignment (`a.b = c;`): its left and right sides.
pub(super) fn assignment_statement(s: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    if s.kind() != "expression_statement" {
        return None;
    }
    let a = s
        .named_child(0)
        .filter(|a| a.kind() == "assignment_expression")?;
    Some((
        a.child_by_field_name("left")?,
        a.child_by_field_name("right")?,
    ))
}
