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
    body: Option<Node<'t>>,
    call: Node<'t>,
    keys: Vec<Option<usize>>,
    key_spans: Vec<Span>,
    passed: Option<(usize, Span)>,
    numkeys: Option<(Numkeys, Span)>,
}

/// A script defined with ioredis `defineCommand(name, { numberOfKeys, lua })`.
#[derive(Clone, Copy)]
struct Defined<'t> {
    numkeys: Option<usize>,
    body: Option<Node<'t>>,
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
    /// Every assignment to a name: the target and the value (`None`: not known).
    assignments: HashMap<String, Vec<(Node<'t>, Option<Node<'t>>)>>,
    /// The parent of every named node (tree-sitter finds a parent by walking down
    /// from the root, which costs the node's depth on every step up).
    parents: HashMap<usize, Node<'t>>,
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
            assignments: HashMap::new(),
            parents: HashMap::new(),
        }
    }

    pub(crate) fn run(mut self) -> FileModel {
        self.index();
        if self.imports.any() {
            let calls = std::mem::take(&mut self.calls);
            // Scripts defined with defineCommand are known before their calls.
            for &c in &calls {
                self.define_command(c);
            }
            for &c in &calls {
                self.lower_call(c);
            }
            self.link_scripts();
        }
        self.model
    }

    // ---------------------------------------------------------------- index

    /// One walk over the tree: imports, assigned names, calls.
    fn index(&mut self) {
        let mut var_names: HashSet<String> = HashSet::new();
        let mut cursor = self.root.walk();
        let mut stack = vec![self.root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "import_statement" => self.import_statement(n),
                "variable_declarator" => self.require_declarator(n),
                "import_alias" | "import_require_clause" => self.import_require(n),
                "assignment_expression" | "augmented_assignment_expression" => {
                    if let Some(l) = n.child_by_field_name("left") {
                        self.assigned_in(l);
                        // `x = value` (an augmented one is never a client).
                        let plain = n.kind() == "assignment_expression";
                        let right = n.child_by_field_name("right").filter(|_| plain);
                        if l.kind() == "identifier" {
                            self.assignments
                                .entry(text(l, self.src).to_string())
                                .or_default()
                                .push((l, right));
                        } else {
                            // A destructuring assignment: values not known.
                            let mut names = Vec::new();
                            let mut st = vec![l];
                            let mut c = l.walk();
                            while let Some(x) = st.pop() {
                                match x.kind() {
                                    "identifier" | "shorthand_property_identifier_pattern" => {
                                        names.push(x)
                                    }
                                    "member_expression" | "subscript_expression" => {}
                                    _ => st.extend(x.named_children(&mut c)),
                                }
                            }
                            for x in names {
                                self.assignments
                                    .entry(text(x, self.src).to_string())
                                    .or_default()
                                    .push((x, None));
                            }
                        }
                    }
                }
                "for_in_statement" => {
                    // `for (x of xs)` with `x` declared before.
                    if let Some(l) = n.child_by_field_name("left") {
                        if n.child_by_field_name("kind").is_none() {
                            self.assigned_in(l);
                            if l.kind() == "identifier" {
                                self.assignments
                                    .entry(text(l, self.src).to_string())
                                    .or_default()
                                    .push((l, None));
                            }
                        }
                    }
                }
                "variable_declaration" => {
                    // `var x` declared twice is assigned twice.
                    let mut c = n.walk();
                    for d in n.named_children(&mut c) {
                        if let Some(name) = d.child_by_field_name("name") {
                            if name.kind() == "identifier" {
                                let name = text(name, self.src).to_string();
                                if !var_names.insert(name.clone()) {
                                    self.assigned.insert(name);
                                }
                            }
                        }
                    }
                }
                "update_expression" => {
                    if let Some(a) = n.child_by_field_name("argument") {
                        if a.kind() == "identifier" {
                            let name = text(a, self.src).to_string();
                            self.assigned.insert(name.clone());
                            self.assignments.entry(name).or_default().push((a, None));
                        }
                    }
                }
                "call_expression" => self.calls.push(n),
                _ => {}
            }
            let mark = stack.len();
            for c in n.named_children(&mut cursor) {
                self.parents.insert(c.id(), n);
                stack.push(c);
            }
            stack[mark..].reverse();
        }
    }

    fn parent(&self, n: Node<'t>) -> Option<Node<'t>> {
        self.parents.get(&n.id()).copied()
    }

    /// Records every name an assignment target binds (`x`, `[x, y]`, `{ x }`).
    fn assigned_in(&mut self, target: Node<'t>) {
        let mut stack = vec![target];
        let mut c = target.walk();
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    self.assigned.insert(text(n, self.src).to_string());
                }
                // `obj.x = …` assigns no name.
                "member_expression" | "subscript_expression" => {}
                _ => stack.extend(n.named_children(&mut c)),
            }
        }
    }

    fn module_lib(source: &str) -> Option<Lib> {
        match source {
            "ioredis" => Some(Lib::IoRedis),
            "redis" | "@redis/client" | "@node-redis/client" => Some(Lib::NodeRedis),
            _ => None,
        }
    }

    /// Records `local` as the export `name` of `lib` (`default` for the default one).
    fn bind_import(&mut self, lib: Lib, name: &str, local: &str) {
        let local = local.to_string();
        match (lib, name) {
            (Lib::IoRedis, "default" | "Redis") => {
                self.imports.io_default.insert(local.clone());
                self.imports.types.insert(
                    local,
                    Client {
                        lib,
                        kind: Kind::Standalone,
                        prefix: Prefix::Unknown,
                    },
                );
            }
            (Lib::IoRedis, "Cluster") => {
                self.imports.io_cluster.insert(local.clone());
                self.imports.types.insert(
                    local,
                    Client {
                        lib,
                        kind: Kind::Cluster,
                        prefix: Prefix::Unknown,
                    },
                );
            }
            (Lib::NodeRedis, "createClient") => {
                self.imports.node_fns.insert(local, Kind::Standalone);
            }
            (Lib::NodeRedis, "createCluster") => {
                self.imports.node_fns.insert(local, Kind::Cluster);
            }
            (Lib::NodeRedis, "defineScript") => {
                self.imports.node_script = true;
            }
            (Lib::NodeRedis, "RedisClientType") => {
                self.imports.types.insert(
                    local,
                    Client {
                        lib,
                        kind: Kind::Standalone,
                        prefix: Prefix::Unknown,
                    },
                );
            }
            (Lib::NodeRedis, "RedisClusterType") => {
                self.imports.types.insert(
                    local,
                    Client {
                        lib,
                        kind: Kind::Cluster,
                        prefix: Prefix::Unknown,
                    },
                );
            }
            _ => {}
        }
    }

    /// The whole module bound to `local` (`import * as X`, `const X = require(…)`).
    fn bind_module(&mut self, lib: Lib, local: &str) {
        match lib {
            Lib::IoRedis => {
                // `require('ioredis')` is the Redis class with `.Cluster` on it.
                self.bind_import(lib, "default", local);
                self.imports.io_ns.insert(local.to_string());
            }
            Lib::NodeRedis => {
                self.imports.node_ns.insert(local.to_string());
            }
        }
    }

    fn import_statement(&mut self, n: Node<'t>) {
        let Some(lib) = n
            .child_by_field_name("source")
            .and_then(|s| string_value(s, self.src))
            .and_then(|s| Self::module_lib(&s))
        else {
            return;
        };
        let mut cursor = n.walk();
        let clauses: Vec<Node<'t>> = n
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "import_clause")
            .collect();
        for clause in clauses {
            let mut c2 = clause.walk();
            for part in clause.named_children(&mut c2) {
                match part.kind() {
                    "identifier" => {
                        let local = text(part, self.src);
                        self.bind_import(lib, "default", local);
                    }
                    "namespace_import" => {
                        if let Some(id) = part.named_child(0) {
                            let local = text(id, self.src).to_string();
                            match lib {
                                Lib::IoRedis => {
                                    self.imports.io_ns.insert(local);
                                }
                                Lib::NodeRedis => {
                                    self.imports.node_ns.insert(local);
                                }
                            }
                        }
                    }
                    "named_imports" => {
                        let mut c3 = part.walk();
                        for spec in part.named_children(&mut c3) {
                            if spec.kind() != "import_specifier" {
                                continue;
                            }
                            let Some(name) = spec.child_by_field_name("name") else {
                                continue;
                            };
                            let name = text(name, self.src).to_string();
                            let local = spec
                                .child_by_field_name("alias")
                                .map_or(name.clone(), |a| text(a, self.src).to_string());
                            self.bind_import(lib, &name, &local);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// TS `import X = require('ioredis')`.
    fn import_require(&mut self, n: Node<'t>) {
        let Some(lib) = n
            .child_by_field_name("source")
            .and_then(|s| string_value(s, self.src))
            .and_then(|s| Self::module_lib(&s))
        else {
            return;
        };
        if let Some(id) = n.named_child(0).filter(|c| c.kind() == "identifier") {
            let local = text(id, self.src).to_string();
            self.bind_module(lib, &local);
        }
    }

    /// The library a `require('…')` expression (or `require('…').default`, or
    /// `require('…').Cluster`) loads, and the export it names.
    fn required(&self, n: Node<'t>) -> Option<(Lib, Option<String>)> {
        let n = unwrap_expr(n);
        match n.kind() {
            "call_expression" => {
                let f = n.child_by_field_name("function")?;
                if text(f, self.src) != "require" {
                    return None;
                }
                let arg = n.child_by_field_name("arguments")?.named_child(0)?;
                let lib = Self::module_lib(&string_value(arg, self.src)?)?;
                Some((lib, None))
            }
            "member_expression" => {
                let (lib, inner) = self.required(n.child_by_field_name("object")?)?;
                if inner.is_some() {
                    return None;
                }
                let prop = text(n.child_by_field_name("property")?, self.src).to_string();
                Some((lib, Some(prop)))
            }
            _ => None,
        }
    }

    fn require_declarator(&mut self, n: Node<'t>) {
        let (Some(name), Some(value)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ) else {
            return;
        };
        let Some((lib, export)) = self.required(value) else {
            return;
        };
        match (name.kind(), export) {
            ("identifier", None) => {
                let local = text(name, self.src).to_string();
                self.bind_module(lib, &local);
            }
            ("identifier", Some(e)) => {
                let local = text(name, self.src).to_string();
                self.bind_import(lib, &e, &local);
            }
            ("object_pattern", None) => {
                let mut c = name.walk();
                for p in name.named_children(&mut c) {
                    match p.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let local = text(p, self.src).to_string();
                            self.bind_import(lib, &local.clone(), &local);
                        }
                        "pair_pattern" => {
                            let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            else {
                                continue;
                            };
                            if v.kind() == "identifier" {
                                let key = text(k, self.src).to_string();
                                let local = text(v, self.src).to_string();
                                self.bind_import(lib, &key, &local);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    // ---------------------------------------------------------------- scopes

    /// What `name` is bound to at `at`.
    fn lookup(&mut self, name: &str, at: Node<'t>) -> Decl<'t> {
        let mut cur = at;
        let mut steps = 0;
        while let Some(p) = self.parent(cur) {
            steps += 1;
            if steps > 400 {
                return Decl::Other;
            }
            if let Some(d) = self.declared_in(p, cur, name) {
                return d;
            }
            cur = p;
        }
        Decl::Free
    }

    /// A declaration of `name` made by scope node `scope` (reached from its child
    /// `from`).
    fn declared_in(&mut self, scope: Node<'t>, from: Node<'t>, name: &str) -> Option<Decl<'t>> {
        let kind = scope.kind();
        if is_function(kind) {
            if let Some(params) = scope.child_by_field_name("parameters") {
                let mut c = params.walk();
                for p in params.named_children(&mut c) {
                    if let Some(d) = self.param_binds(p, name) {
                        return Some(d);
                    }
                }
            }
            if let Some(p) = scope.child_by_field_name("parameter") {
                if text(p, self.src) == name {
                    return Some(Decl::Param(p));
                }
            }
            if matches!(kind, "function_expression" | "function") {
                if let Some(n) = scope.child_by_field_name("name") {
                    if text(n, self.src) == name {
                        return Some(Decl::Other);
                    }
                }
            }
            return None;
        }
        match kind {
            "statement_block" | "program" | "class_static_block" | "switch_case"
            | "switch_default" => {
                let key = (scope.id(), name.to_string());
                if let Some(d) = self.decl_cache.get(&key) {
                    return *d;
                }
                let d = self.scan_block(scope, name);
                self.decl_cache.insert(key, d);
                d
            }
            // A loop that declares the name (`for (const x of xs)`, `for (let i = 0; …)`).
            "for_in_statement" => {
                let _ = from;
                let declares = scope.child_by_field_name("kind").is_some();
                let left = scope.child_by_field_name("left")?;
                (declares && self.pattern_mentions(left, name)).then_some(Decl::Other)
            }
            "for_statement" => {
                let init = scope.child_by_field_name("initializer")?;
                let declares =
                    matches!(init.kind(), "lexical_declaration" | "variable_declaration");
                (declares && self.pattern_mentions(init, name)).then_some(Decl::Other)
            }
            "catch_clause" => scope
                .child_by_field_name("parameter")
                .filter(|p| text(*p, self.src).contains(name))
                .map(|_| Decl::Other),
            "class_declaration" | "class" => None,
            _ => None,
        }
    }

    fn param_binds(&self, p: Node<'t>, name: &str) -> Option<Decl<'t>> {
        match p.kind() {
            "identifier" => (text(p, self.src) == name).then_some(Decl::Param(p)),
            "required_parameter" | "optional_parameter" => {
                let pat = p
                    .child_by_field_name("pattern")
                    .or_else(|| p.child_by_field_name("name"))?;
                if pat.kind() == "identifier" {
                    if text(pat, self.src) == name {
                        return Some(Decl::Param(p));
                    }
                    return None;
                }
                self.pattern_mentions(pat, name).then_some(Decl::Other)
            }
            "assignment_pattern" => {
                let left = p.child_by_field_name("left")?;
                if left.kind() == "identifier" && text(left, self.src) == name {
                    return Some(Decl::Other);
                }
                self.pattern_mentions(left, name).then_some(Decl::Other)
            }
            _ => self.pattern_mentions(p, name).then_some(Decl::Other),
        }
    }

    fn pattern_mentions(&self, p: Node<'t>, name: &str) -> bool {
        text(p, self.src)
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .any(|w| w == name)
    }

    /// The declaration of `name` among the statements of a block.
    fn scan_block(&mut self, block: Node<'t>, name: &str) -> Option<Decl<'t>> {
        let mut c = block.walk();
        let mut found: Option<Decl<'t>> = None;
        for s in block.named_children(&mut c) {
            let s = if s.kind() == "export_statement" {
                match s.child_by_field_name("declaration") {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                s
            };
            let d = match s.kind() {
                "lexical_declaration" | "variable_declaration" => {
                    let is_const = s.child(0).is_some_and(|k| text(k, self.src) == "const");
                    let mut c2 = s.walk();
                    let mut d = None;
                    for decl in s.named_children(&mut c2) {
                        if decl.kind() != "variable_declarator" {
                            continue;
                        }
                        let Some(n) = decl.child_by_field_name("name") else {
                            continue;
                        };
                        let value = decl.child_by_field_name("value");
                        if value.is_some_and(|v| self.required(v).is_some())
                            && self.pattern_mentions(n, name)
                        {
                            // `const X = require('ioredis')`: an import.
                            d = Some(Decl::Free);
                            continue;
                        }
                        if n.kind() == "identifier" {
                            if text(n, self.src) != name {
                                continue;
                            }
                            d = Some(match value {
                                Some(v) if is_const || !self.assigned.contains(name) => {
                                    Decl::Value(v)
                                }
                                _ if !is_const => Decl::Assigned(n, value),
                                _ => Decl::Other,
                            });
                        } else if self.pattern_mentions(n, name) {
                            d = Some(Decl::Other);
                        }
                    }
                    d
                }
                "function_declaration" => s
                    .child_by_field_name("name")
                    .filter(|n| text(*n, self.src) == name)
                    .map(|_| Decl::Func(s)),
                "generator_function_declaration"
                | "class_declaration"
                | "abstract_class_declaration" => s
                    .child_by_field_name("name")
                    .filter(|n| text(*n, self.src) == name)
                    .map(|_| Decl::Other),
                "import_statement" => self.pattern_mentions(s, name).then_some(Decl::Free),
                _ => None,
            };
            if let Some(d) = d {
                if found.is_some() {
                    // Declared twice (`var`): not one value.
                    return Some(Decl::Other);
                }
                found = Some(d);
            }
        }
        found
    }

    // ---------------------------------------------------------------- values

    fn hole(&mut self, n: Node<'t>) -> Tpl {
        // A name bound once stands for the expression it is bound to, so that
        // `const a = id` and `id` are one value.
        let written = unwrap_expr(n).byte_range();
        let mut n = unwrap_expr(n);
        for _ in 0..8 {
            if n.kind() != "identifier" {
                break;
            }
            let name = text(n, self.src).to_string();
            match self.lookup(&name, n) {
                Decl::Value(v) => n = unwrap_expr(v),
                _ => break,
            }
        }
        let raw = text(n, self.src);
        let label: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        let label = if label.len() > 60 {
            let mut cut = 57;
            while !label.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}...", &label[..cut])
        } else {
            label
        };
        // The same expression in one function holds the same value.
        let scope = self.function_of(n).map_or(0, |f| f.start_byte());
        Tpl::hole(HoleInfo {
            binding: format!("{label}@{scope}"),
            keylike: is_keylike_label(&label),
            label,
            span: Some(written),
        })
    }

    fn function_of(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut cur = n;
        let mut steps = 0;
        while let Some(p) = self.parent(cur) {
            steps += 1;
            if steps > 400 {
                return None;
            }
            if is_function(p.kind()) {
                return Some(p);
            }
            cur = p;
        }
        None
    }

    /// A string template for `n`: its value when it is a string, else a hole.
    fn tpl(&mut self, n: Node<'t>) -> Tpl {
        match self.eval(n) {
            Value::Str(t) => t,
            Value::Num(i) => Tpl::text(i.to_string().as_bytes()),
            _ => self.hole(unwrap_expr(n)),
        }
    }

    fn eval(&mut self, n: Node<'t>) -> Value<'t> {
        if self.depth >= MAX_DEPTH {
            return Value::Unknown;
        }
        self.depth += 1;
        let v = self.eval_inner(n);
        self.depth -= 1;
        v
    }

    fn eval_inner(&mut self, n: Node<'t>) -> Value<'t> {
        let n = unwrap_expr(n);
        match n.kind() {
            "string" => {
                match decode(self.src, n.start_byte() + 1, n.end_byte().saturating_sub(1)) {
                    Some((b, o)) if n.end_byte() >= n.start_byte() + 2 => {
                        Value::Str(Tpl::lit(b, o))
                    }
                    _ => Value::Unknown,
                }
            }
            "template_string" => self.template(n),
            "number" => text(n, self.src)
                .parse::<i64>()
                .map_or(Value::Unknown, Value::Num),
            "null" | "undefined" => Value::Null,
            "binary_expression" => self.binary(n),
            "array" => {
                let mut c = n.walk();
                let mut items = Vec::new();
                let mut exact = true;
                let children: Vec<Node<'t>> = n.named_children(&mut c).collect();
                for e in children {
                    if e.kind() == "comment" {
                        continue;
                    }
                    if e.kind() == "spread_element" {
                        exact = false;
                        items.push(Elem {
                            value: Value::Unknown,
                            node: e,
                            spread: true,
                        });
                        continue;
                    }
                    let value = self.eval(e);
                    items.push(Elem {
                        value,
                        node: e,
                        spread: false,
                    });
                }
                Value::Array(items, exact)
            }
            "object" => self.object(n),
            "identifier" => self.identifier(n),
            "member_expression" => self.member(n),
            "new_expression" => self.new_client(n),
            "call_expression" => self.call_value(n),
            _ => Value::Unknown,
        }
    }

    fn template(&mut self, n: Node<'t>) -> Value<'t> {
        let mut t = Tpl::default();
        let mut pos = n.start_byte() + 1;
        let end = n.end_byte().saturating_sub(1);
        let mut c = n.walk();
        let subs: Vec<Node<'t>> = n
            .named_children(&mut c)
            .filter(|s| s.kind() == "template_substitution")
            .collect();
        for s in subs {
            let Some((b, o)) = decode(self.src, pos, s.start_byte()) else {
                return Value::Unknown;
            };
            t.push(Tpl::lit(b, o));
            match s.named_child(0) {
                Some(e) => {
                    let part = self.tpl(e);
                    t.push(part);
                }
                None => return Value::Unknown,
            }
            pos = s.end_byte();
        }
        if pos > end {
            return Value::Unknown;
        }
        let Some((b, o)) = decode(self.src, pos, end) else {
            return Value::Unknown;
        };
        t.push(Tpl::lit(b, o));
        Value::Str(t)
    }

    fn binary(&mut self, n: Node<'t>) -> Value<'t> {
        let op = n
            .child_by_field_name("operator")
            .map(|o| text(o, self.src))
            .unwrap_or("");
        let (Some(l), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return Value::Unknown;
        };
        if op != "+" {
            return Value::Unknown;
        }
        let lv = self.eval(l);
        let rv = self.eval(r);
        match (&lv, &rv) {
            (Value::Num(a), Value::Num(b)) => a.checked_add(*b).map_or(Value::Unknown, Value::Num),
            (Value::Str(_), _) | (_, Value::Str(_)) => {
                let mut t = self.as_tpl(lv, l);
                let rt = self.as_tpl(rv, r);
                t.push(rt);
                Value::Str(t)
            }
            _ => Value::Unknown,
        }
    }

    fn as_tpl(&mut self, v: Value<'t>, n: Node<'t>) -> Tpl {
        match v {
            Value::Str(t) => t,
            Value::Num(i) => Tpl::text(i.to_string().as_bytes()),
            _ => self.hole(unwrap_expr(n)),
        }
    }

    fn object(&mut self, n: Node<'t>) -> Value<'t> {
        let mut c = n.walk();
        let mut props = Vec::new();
        let children: Vec<Node<'t>> = n.named_children(&mut c).collect();
        for p in children {
            match p.kind() {
                "pair" => {
                    let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let key = match k.kind() {
                        "property_identifier" => text(k, self.src).to_string(),
                        "string" => match string_value(k, self.src) {
                            Some(s) => s,
                            None => return Value::Unknown,
                        },
                        _ => return Value::Unknown,
                    };
                    let value = self.eval(v);
                    props.push((
                        key,
                        Elem {
                            value,
                            node: v,
                            spread: false,
                        },
                    ));
                }
                "shorthand_property_identifier" => {
                    let key = text(p, self.src).to_string();
                    let value = match self.lookup(&key, p) {
                        Decl::Value(v) => self.eval(v),
                        _ => Value::Unknown,
                    };
                    props.push((
                        key,
                        Elem {
                            value,
                            node: p,
                            spread: false,
                        },
                    ));
                }
                "comment" | "method_definition" => {}
                _ => return Value::Unknown,
            }
        }
        Value::Object(props)
    }

    fn identifier(&mut self, n: Node<'t>) -> Value<'t> {
        let name = text(n, self.src).to_string();
        match self.lookup(&name, n) {
            Decl::Value(v) => self.eval(v),
            Decl::Param(p) => match self.env.get(&p.id()) {
                Some(v) => v.clone(),
                None => self.typed(p),
            },
            Decl::Assigned(decl, init) => self.assigned_client(&name, decl, init),
            Decl::Func(_) | Decl::Other | Decl::Free => Value::Unknown,
        }
    }

    /// A variable declared once and assigned later (`let client; … client =
    /// createClient()` in a test's `beforeEach`): a client when its initial value (if
    /// any, besides `null`) and every value assigned to it are clients of one library.
    fn assigned_client(&mut self, name: &str, decl: Node<'t>, init: Option<Node<'t>>) -> Value<'t> {
        let key = (decl.id(), String::new());
        if let Some(v) = self.member_cache.get(&key) {
            return v.clone().unwrap_or(Value::Unknown);
        }
        self.member_cache.insert(key.clone(), None);
        let targets = self.assignments.get(name).cloned().unwrap_or_default();
        let mut values: Vec<Value<'t>> = init.into_iter().map(|i| self.eval(i)).collect();
        for (target, right) in targets {
            // Only assignments of this declaration (not of a shadowing one).
            match self.lookup(name, target) {
                Decl::Assigned(d, _) if d == decl => {}
                _ => continue,
            }
            match right {
                Some(r) => values.push(self.eval(r)),
                None => values.push(Value::Unknown),
            }
        }
        values.retain(|v| !matches!(v, Value::Null));
        let mut out: Option<Client> = None;
        for v in &values {
            let Value::Client(c) = v else {
                out = None;
                break;
            };
            out = Some(match out {
                None => *c,
                Some(o) if o.lib != c.lib => {
                    out = None;
                    break;
                }
                Some(mut o) => {
                    if o.kind != c.kind {
                        o.kind = Kind::Unknown;
                    }
                    if o.prefix != c.prefix {
                        o.prefix = Prefix::Unknown;
                    }
                    o
                }
            });
        }
        let v = out.map(Value::Client);
        self.member_cache.insert(key, v.clone());
        v.unwrap_or(Value::Unknown)
    }

    /// A call of a key-builder function of the file (`function jobKey(id) { return
    /// `job:${id}`; }`, `const jobKey = (id) => …`): its one returned expression,
    /// with the parameters bound to the call's arguments.
    fn builder(&mut self, func: Node<'t>, call: Node<'t>) -> Value<'t> {
        let Some(body) = func.child_by_field_name("body") else {
            return Value::Unknown;
        };
        let expr = if body.kind() == "statement_block" {
            let mut c = body.walk();
            let stmts: Vec<Node<'t>> = body
                .named_children(&mut c)
                .filter(|s| s.kind() != "comment")
                .collect();
            match stmts[..] {
                [ret] if ret.kind() == "return_statement" => match ret.named_child(0) {
                    Some(e) => e,
                    None => return Value::Unknown,
                },
                _ => return Value::Unknown,
            }
        } else {
            body
        };
        let params: Vec<Node<'t>> = match func.child_by_field_name("parameter") {
            Some(p) => vec![p],
            None => match func.child_by_field_name("parameters") {
                Some(ps) => {
                    let mut c = ps.walk();
                    ps.named_children(&mut c)
                        .filter(|p| p.kind() != "comment")
                        .collect()
                }
                None => return Value::Unknown,
            },
        };
        let simple = params.iter().all(|p| match p.kind() {
            "identifier" => true,
            "required_parameter" => p
                .child_by_field_name("pattern")
                .is_some_and(|x| x.kind() == "identifier"),
            _ => false,
        });
        let args = self.args(call);
        if !simple
            || args.len() != params.len()
            || args.iter().any(|a| a.kind() == "spread_element")
        {
            return Value::Unknown;
        }
        // The arguments' values, in the caller's scope.
        let values: Vec<Value<'t>> = args
            .iter()
            .map(|&a| match self.eval(a) {
                Value::Unknown => Value::Str(self.hole(a)),
                v => v,
            })
            .collect();
        let mut saved = Vec::new();
        for (p, v) in params.iter().zip(values) {
            saved.push((p.id(), self.env.insert(p.id(), v)));
        }
        let out = match self.eval(expr) {
            v @ (Value::Str(_) | Value::Num(_)) => v,
            _ => Value::Unknown,
        };
        for (id, old) in saved {
            match old {
                Some(v) => self.env.insert(id, v),
                None => self.env.remove(&id),
            };
        }
        out
    }

    /// A value known by its declared type: a client.
    fn typed(&self, decl: Node<'t>) -> Value<'t> {
        let Some(ty) = decl.child_by_field_name("type") else {
            return Value::Unknown;
        };
        self.client_type(ty).map_or(Value::Unknown, Value::Client)
    }

    /// The client a type annotation names: one client type, or a union of client
    /// types of one library.
    fn client_type(&self, ty: Node<'t>) -> Option<Client> {
        let t = text(ty, self.src).trim_start_matches(':').trim();
        let mut out: Option<Client> = None;
        for part in t.split('|') {
            let part = part.trim();
            let base = part.split('<').next().unwrap_or("").trim();
            let base = base.rsplit('.').next().unwrap_or(base);
            let c = *self.imports.types.get(base).or_else(|| {
                // `IORedis.Cluster`, `IORedis.Redis` through a namespace import.
                let ns = part.split('.').next()?;
                if !self.imports.io_ns.contains(ns) {
                    return None;
                }
                static IO: [(&str, Client); 2] = [
                    (
                        "Redis",
                        Client {
                            lib: Lib::IoRedis,
                            kind: Kind::Standalone,
                            prefix: Prefix::Unknown,
                        },
                    ),
                    (
                        "Cluster",
                        Client {
                            lib: Lib::IoRedis,
                            kind: Kind::Cluster,
                            prefix: Prefix::Unknown,
                        },
                    ),
                ];
                IO.iter().find(|(n, _)| *n == base).map(|(_, c)| c)
            })?;
            out = Some(match out {
                None => c,
                Some(o) if o.lib != c.lib => return None,
                Some(o) if o.kind != c.kind => Client {
                    lib: o.lib,
                    kind: Kind::Unknown,
                    prefix: Prefix::Unknown,
                },
                Some(o) => o,
            });
        }
        out
    }

    fn new_client(&mut self, n: Node<'t>) -> Value<'t> {
        let Some(ctor) = n.child_by_field_name("constructor") else {
            return Value::Unknown;
        };
        let prefix = self.ctor_prefix(n, Lib::IoRedis);
        let io = |kind| {
            Value::Client(Client {
                lib: Lib::IoRedis,
                kind,
                prefix,
            })
        };
        match ctor.kind() {
            "identifier" => {
                let name = text(ctor, self.src);
                if !matches!(self.lookup(name, ctor), Decl::Free) {
                    return Value::Unknown;
                }
                if self.imports.io_default.contains(name) {
                    io(Kind::Standalone)
                } else if self.imports.io_cluster.contains(name) {
                    io(Kind::Cluster)
                } else {
                    Value::Unknown
                }
            }
            "member_expression" => {
                let (Some(obj), Some(prop)) = (
                    ctor.child_by_field_name("object"),
                    ctor.child_by_field_name("property"),
                ) else {
                    return Value::Unknown;
                };
                let obj_name = text(obj, self.src);
                let ns = obj.kind() == "identifier"
                    && (self.imports.io_default.contains(obj_name)
                        || self.imports.io_ns.contains(obj_name));
                if !ns || !matches!(self.lookup(obj_name, obj), Decl::Free) {
                    return Value::Unknown;
                }
                match text(prop, self.src) {
                    "Cluster" => io(Kind::Cluster),
                    "Redis" | "default" if self.imports.io_ns.contains(obj_name) => {
                        io(Kind::Standalone)
                    }
                    _ => Value::Unknown,
                }
            }
            _ => Value::Unknown,
        }
    }

    /// The `keyPrefix` of a client made by the call or `new` expression `n`, as far as
    /// its arguments show: every argument must be visible (literals, object literals
    /// without spreads) for the client to have no prefix or a known one.
    fn ctor_prefix(&mut self, n: Node<'t>, lib: Lib) -> Prefix {
        // node-redis 4 and 5 have no keyPrefix option.
        if lib == Lib::NodeRedis && matches!(self.options.node_redis_major, Some(4 | 5)) {
            return Prefix::None;
        }
        let Some(args) = n.child_by_field_name("arguments") else {
            return Prefix::None;
        };
        let mut c = args.walk();
        let args: Vec<Node<'t>> = args
            .named_children(&mut c)
            .filter(|a| a.kind() != "comment")
            .collect();
        let mut found = Prefix::None;
        for a in args {
            match self.options_prefix(a, lib, 0) {
                Prefix::None => {}
                Prefix::Unknown => return Prefix::Unknown,
                p => found = p,
            }
        }
        found
    }

    /// The `keyPrefix` an argument of a client constructor sets.
    fn options_prefix(&mut self, a: Node<'t>, lib: Lib, depth: usize) -> Prefix {
        if depth > 4 {
            return Prefix::Unknown;
        }
        let a = unwrap_expr(a);
        match a.kind() {
            "number" | "true" | "false" | "null" | "undefined" => Prefix::None,
            "array" => {
                let mut c = a.walk();
                let items: Vec<Node<'t>> = a.named_children(&mut c).collect();
                let mut found = Prefix::None;
                for e in items {
                    if e.kind() == "spread_element" {
                        return Prefix::Unknown;
                    }
                    match self.options_prefix(e, lib, depth + 1) {
                        Prefix::None => {}
                        Prefix::Unknown => return Prefix::Unknown,
                        p => found = p,
                    }
                }
                found
            }
            "object" => {
                let mut c = a.walk();
                let props: Vec<Node<'t>> = a.named_children(&mut c).collect();
                let mut found = Prefix::None;
                for p in props {
                    match p.kind() {
                        "pair" => {
                            let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            else {
                                return Prefix::Unknown;
                            };
                            let key = match k.kind() {
                                "property_identifier" => text(k, self.src).to_string(),
                                "string" => string_value(k, self.src).unwrap_or_default(),
                                _ => return Prefix::Unknown,
                            };
                            match key.as_str() {
                                "keyPrefix" => match self.eval(v) {
                                    Value::Str(t) => {
                                        self.prefixes.push(t);
                                        found = Prefix::Lit(self.prefixes.len() - 1);
                                    }
                                    _ => return Prefix::Unknown,
                                },
                                // Options nested in options (a cluster's options for
                                // its node clients).
                                "redisOptions" | "defaults" | "options" | "rootNodes" => {
                                    match self.options_prefix(v, lib, depth + 1) {
                                        Prefix::None => {}
                                        Prefix::Unknown => return Prefix::Unknown,
                                        p => found = p,
                                    }
                                }
                                _ => {}
                            }
                        }
                        "shorthand_property_identifier" => {
                            if matches!(
                                text(p, self.src),
                                "keyPrefix" | "redisOptions" | "defaults" | "options" | "rootNodes"
                            ) {
                                return Prefix::Unknown;
                            }
                        }
                        "comment" => {}
                        _ => return Prefix::Unknown,
                    }
                }
                found
            }
            // A connection URL: ioredis reads options from its query string.
            "string" | "template_string" | "binary_expression" => match self.eval(a) {
                Value::Str(t) => {
                    let literal: Vec<u8> = t
                        .parts
                        .iter()
                        .flat_map(|p| match p {
                            TPart::Lit { bytes, .. } => bytes.clone(),
                            TPart::Hole(_) => Vec::new(),
                        })
                        .collect();
                    let has_query = literal.contains(&b'?');
                    let holes = t.as_bytes().is_none();
                    if lib == Lib::IoRedis && (has_query || (holes && !url_holes_before_path(&t))) {
                        Prefix::Unknown
                    } else {
                        Prefix::None
                    }
                }
                _ => Prefix::Unknown,
            },
            "identifier" | "member_expression" => match self.eval(a) {
                Value::Num(_) | Value::Null => Prefix::None,
                Value::Str(_) => {
                    // Evaluated again as a string expression (a URL).
                    let name = text(a, self.src).to_string();
                    match self.lookup(&name, a) {
                        Decl::Value(v) => self.options_prefix(v, lib, depth + 1),
                        _ => Prefix::Unknown,
                    }
                }
                Value::Object(_) | Value::Array(..) => {
                    let name = text(a, self.src).to_string();
                    match self.lookup(&name, a) {
                        Decl::Value(v) => self.options_prefix(v, lib, depth + 1),
                        _ => Prefix::Unknown,
                    }
                }
                _ => Prefix::Unknown,
            },
            _ => Prefix::Unknown,
        }
    }

    fn call_value(&mut self, n: Node<'t>) -> Value<'t> {
        let Some(f) = n.child_by_field_name("function") else {
            return Value::Unknown;
        };
        let is_ctor = match f.kind() {
            "identifier" => self.imports.node_fns.contains_key(text(f, self.src)),
            "member_expression" => f
                .child_by_field_name("property")
                .is_some_and(|p| matches!(text(p, self.src), "createClient" | "createCluster")),
            _ => false,
        };
        let prefix = if is_ctor {
            self.ctor_prefix(n, Lib::NodeRedis)
        } else {
            Prefix::Unknown
        };
        let node = |kind| {
            Value::Client(Client {
                lib: Lib::NodeRedis,
                kind,
                prefix,
            })
        };
        match f.kind() {
            "identifier" => {
                let name = text(f, self.src);
                if let Some(&k) = self.imports.node_fns.get(name) {
                    if matches!(self.lookup(name, f), Decl::Free) {
                        return node(k);
                    }
                }
                match self.lookup(name, f) {
                    Decl::Func(d) => self.builder(d, n),
                    Decl::Value(v)
                        if matches!(
                            unwrap_expr(v).kind(),
                            "arrow_function" | "function_expression" | "function"
                        ) =>
                    {
                        self.builder(unwrap_expr(v), n)
                    }
                    _ => Value::Unknown,
                }
            }
            "member_expression" => {
                let (Some(obj), Some(prop)) = (
                    f.child_by_field_name("object"),
                    f.child_by_field_name("property"),
                ) else {
                    return Value::Unknown;
                };
                let method = text(prop, self.src);
                let obj_name = text(obj, self.src);
                if obj.kind() == "identifier"
                    && self.imports.node_ns.contains(obj_name)
                    && matches!(self.lookup(obj_name, obj), Decl::Free)
                {
                    return match method {
                        "createClient" => node(Kind::Standalone),
                        "createCluster" => node(Kind::Cluster),
                        _ => Value::Unknown,
                    };
                }
                if method == "readFileSync" {
                    return self.read_file(n);
                }
                match (method, self.eval(obj)) {
                    ("duplicate", Value::Client(c)) => Value::Client(c),
                    ("connect", Value::Client(c)) if c.lib == Lib::NodeRedis => Value::Client(c),
                    ("multi", Value::Client(c)) => Value::Batch(c, Batch::Multi),
                    ("pipeline", Value::Client(c)) if c.lib == Lib::IoRedis => {
                        Value::Batch(c, Batch::Pipeline)
                    }
                    // A command queued on a batch returns the batch.
                    (m, Value::Batch(c, b)) if m != "exec" && m != "execAsPipeline" => {
                        Value::Batch(c, b)
                    }
                    ("join", Value::Array(items, true)) => self.join(n, items),
                    _ => Value::Unknown,
                }
            }
            _ => Value::Unknown,
        }
    }

    /// `[a, b].join(sep)` with every element a string.
    fn join(&mut self, call: Node<'t>, items: Vec<Elem<'t>>) -> Value<'t> {
        let args = call.child_by_field_name("arguments");
        let sep = match args.and_then(|a| a.named_child(0)) {
            None => Tpl::text(b","),
            Some(s) => match self.eval(s) {
                Value::Str(t) if t.as_bytes().is_some() => t,
                _ => return Value::Unknown,
            },
        };
        let mut out = Tpl::default();
        for (i, e) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(sep.clone());
            }
            match e.value {
                Value::Str(t) => out.push(t),
                Value::Num(x) => out.push(Tpl::text(x.to_string().as_bytes())),
                Value::Unknown => out.push(self.hole(e.node)),
                _ => return Value::Unknown,
            }
        }
        Value::Str(out)
    }

    /// `fs.readFileSync(path.join(__dirname, 'x.lua'), 'utf8')`: the file's text.
    fn read_file(&mut self, call: Node<'t>) -> Value<'t> {
        let Some(loader) = self.loader else {
            return Value::Unknown;
        };
        let Some(arg) = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            return Value::Unknown;
        };
        let Some(rel) = self.module_path(arg) else {
            return Value::Unknown;
        };
        if !rel.ends_with(".lua") {
            return Value::Unknown;
        }
        loader
            .load(&rel, true)
            .map_or(Value::Unknown, Value::FileText)
    }

    /// A path relative to the module's directory: `path.join(__dirname, 'a', 'x.lua')`,
    /// `path.resolve(__dirname, …)`, `` `${__dirname}/x.lua` ``, `__dirname + '/x.lua'`.
    fn module_path(&mut self, n: Node<'t>) -> Option<String> {
        let n = unwrap_expr(n);
        match n.kind() {
            "call_expression" => {
                let f = n.child_by_field_name("function")?;
                let name = text(f, self.src);
                let last = name.rsplit('.').next().unwrap_or(name);
                if !matches!(last, "join" | "resolve") {
                    return None;
                }
                let args = n.child_by_field_name("arguments")?;
                let mut c = args.walk();
                let items: Vec<Node<'t>> = args.named_children(&mut c).collect();
                let (first, rest) = items.split_first()?;
                if text(*first, self.src) != "__dirname" {
                    return None;
                }
                let mut parts = Vec::new();
                for r in rest {
                    let Value::Str(t) = self.eval(*r) else {
                        return None;
                    };
                    parts.push(String::from_utf8(t.as_bytes()?).ok()?);
                }
                let joined = parts.join("/");
                Some(joined.trim_start_matches("./").to_string())
            }
            "template_string" | "binary_expression" => {
                let Value::Str(t) = self.eval(n) else {
                    return None;
                };
                let (first, rest) = t.parts.split_first()?;
                let TPart::Hole(h) = first else { return None };
                if h.label != "__dirname" {
                    return None;
                }
                let mut s = Vec::new();
                for p in rest {
                    match p {
                        TPart::Lit { bytes, .. } => s.extend_from_slice(bytes),
                        TPart::Hole(_) => return None,
                    }
                }
                let s = String::from_utf8(s).ok()?;
                Some(
                    s.trim_start_matches('/')
                        .trim_start_matches("./")
                        .to_string(),
                )
            }
            _ => None,
        }
    }

    /// `this.x` and `obj.x`.
    fn member(&mut self, n: Node<'t>) -> Value<'t> {
        let (Some(obj), Some(prop)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("property"),
        ) else {
            return Value::Unknown;
        };
        let name = text(prop, self.src).to_string();
        if obj.kind() == "this" {
            let Some(class) = self.class_of(n) else {
                return Value::Unknown;
            };
            let key = (class.id(), name.clone());
            if let Some(v) = self.member_cache.get(&key) {
                return v.clone().unwrap_or(Value::Unknown);
            }
            // Guard against `this.a = this.a`.
            self.member_cache.insert(key.clone(), None);
            let v = self.class_member(class, &name);
            self.member_cache.insert(key, v.clone());
            return v.unwrap_or(Value::Unknown);
        }
        Value::Unknown
    }

    /// The class whose `this` a node sees (not through a plain `function`).
    fn class_of(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut cur = n;
        let mut steps = 0;
        while let Some(p) = self.parent(cur) {
            steps += 1;
            if steps > 400 {
                return None;
            }
            match p.kind() {
                "function_declaration"
                | "function_expression"
                | "function"
                | "generator_function_declaration"
                | "generator_function" => return None,
                "class_declaration" | "class" | "abstract_class_declaration" => return Some(p),
                _ => {}
            }
            cur = p;
        }
        None
    }

    /// What `this.name` holds in every method of `class`: a client when every value
    /// given to it is a client of one library (or null).
    fn class_member(&mut self, class: Node<'t>, name: &str) -> Option<Value<'t>> {
        let body = class.child_by_field_name("body")?;
        let mut values: Vec<Value<'t>> = Vec::new();
        let mut stack = vec![body];
        let mut cursor = body.walk();
        while let Some(n) = stack.pop() {
            match n.kind() {
                "class_declaration" | "class" | "function_declaration" | "function_expression"
                    if n != body =>
                {
                    continue;
                }
                "field_definition" | "public_field_definition" => {
                    let prop = n
                        .child_by_field_name("property")
                        .or_else(|| n.child_by_field_name("name"));
                    if prop.is_some_and(|p| text(p, self.src) == name) {
                        // The value given, or else the type declared.
                        if let Some(v) = n.child_by_field_name("value") {
                            values.push(self.eval(v));
                        } else if let Some(ty) = n.child_by_field_name("type") {
                            if let Some(c) = self.client_type(ty) {
                                values.push(Value::Client(c));
                            }
                        }
                    }
                }
                "method_definition" => {
                    // `constructor(private redis: Redis)`.
                    let is_ctor = n
                        .child_by_field_name("name")
                        .is_some_and(|m| text(m, self.src) == "constructor");
                    if is_ctor {
                        if let Some(params) = n.child_by_field_name("parameters") {
                            let mut c = params.walk();
                            for p in params.named_children(&mut c) {
                                let has_modifier = {
                                    let mut c2 = p.walk();
                                    let found = p.named_children(&mut c2).any(|m| {
                                        matches!(m.kind(), "accessibility_modifier" | "readonly")
                                    });
                                    found
                                };
                                let pat = p.child_by_field_name("pattern");
                                if has_modifier && pat.is_some_and(|x| text(x, self.src) == name) {
                                    values.push(self.typed(p));
                                }
                            }
                        }
                    }
                }
                "assignment_expression" => {
                    let left = n.child_by_field_name("left");
                    let is_this = left.is_some_and(|l| {
                        l.kind() == "member_expression"
                            && l.child_by_field_name("object")
                                .is_some_and(|o| o.kind() == "this")
                            && l.child_by_field_name("property")
                                .is_some_and(|p| text(p, self.src) == name)
                    });
                    if is_this {
                        if let Some(r) = n.child_by_field_name("right") {
                            values.push(self.eval(r));
                        }
                    }
                }
                _ => {}
            }
            for c in n.named_children(&mut cursor) {
                stack.push(c);
            }
        }
        values.retain(|v| !matches!(v, Value::Null));
        let first = values.first()?.clone();
        match first {
            Value::Client(c) => {
                let mut out = c;
                for v in &values[1..] {
                    match v {
                        Value::Client(d) if d.lib == out.lib => {
                            if d.kind != out.kind {
                                out.kind = Kind::Unknown;
                            }
                            if d.prefix != out.prefix {
                                out.prefix = Prefix::Unknown;
                            }
                        }
                        _ => return None,
                    }
                }
                Some(Value::Client(out))
            }
            // A string field may be set from outside the class (`queue.prefix = …`):
            // it stays unknown.
            _ => None,
        }
    }

    // ---------------------------------------------------------------- commands

    /// The method name and receiver of a call `recv.method(…)`.
    fn method_call(&self, call: Node<'t>) -> Option<(Node<'t>, &'t str, Node<'t>)> {
        let f = call.child_by_field_name("function")?;
        if f.kind() != "member_expression" {
            return None;
        }
        let obj = f.child_by_field_name("object")?;
        let prop = f.child_by_field_name("property")?;
        Some((obj, text(prop, self.src), f))
    }

    fn args(&self, call: Node<'t>) -> Vec<Node<'t>> {
        let Some(a) = call.child_by_field_name("arguments") else {
            return Vec::new();
        };
        let mut c = a.walk();
        a.named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect()
    }

    /// Whether a method name may be a command, a batch end or a script call, before
    /// the receiver is evaluated.
    fn interesting(&self, m: &str) -> bool {
        matches!(
            m,
            "exec" | "execAsPipeline" | "call" | "sendCommand" | "send_command"
        ) || m.starts_with("eval")
            || m.starts_with("EVAL")
            || methods::ioredis(m).is_some()
            || methods::node_redis(m).is_some()
            || methods::single_key(m).is_some()
            || self.defined.contains_key(m.trim_end_matches("Buffer"))
    }

    fn lower_call(&mut self, call: Node<'t>) {
        let Some((recv, m, _)) = self.method_call(call) else {
            return;
        };
        if !self.interesting(m) {
            return;
        }
        let rv = self.eval(recv);
        match (m, rv) {
            ("exec" | "execAsPipeline", Value::Batch(c, b)) => {
                self.batch(call, recv, c, b, m == "execAsPipeline");
            }
            (_, Value::Client(c)) => {
                self.command(call, c, None);
            }
            _ => {}
        }
    }

    /// A command on client `c` (inside a batch when `batch` says which): its key uses,
    /// and its unit when it takes several keys. Returns the key uses.
    fn command(&mut self, call: Node<'t>, c: Client, batch: Option<(Batch, bool)>) -> Vec<usize> {
        let Some((_, m, f)) = self.method_call(call) else {
            return Vec::new();
        };
        let args = self.args(call);
        if let Some(d) = self.defined.get(m.trim_end_matches("Buffer")).copied() {
            if c.lib == Lib::IoRedis {
                return self.defined_call(c, call, f, &args, d, batch.is_some());
            }
        }
        if m.to_ascii_lowercase().starts_with("eval") {
            return self.eval_call(call, f, m, &args, c, batch.is_some());
        }
        let (command, keys, cluster) = match c.lib {
            Lib::IoRedis => {
                if matches!(m, "call" | "send_command") {
                    match self.raw_command(&args) {
                        Some(x) => x,
                        None => return Vec::new(),
                    }
                } else {
                    match self.io_keys(m, &args) {
                        Some(x) => x,
                        None => return Vec::new(),
                    }
                }
            }
            Lib::NodeRedis => {
                if m == "sendCommand" {
                    // `client.sendCommand([…])`, `cluster.sendCommand(key, ro, […])`.
                    let argv = args
                        .iter()
                        .rev()
                        .find(|a| unwrap_expr(**a).kind() == "array");
                    let Some(argv) = argv.copied() else {
                        return Vec::new();
                    };
                    let Value::Array(items, exact) = self.eval(argv) else {
                        return Vec::new();
                    };
                    let nodes: Vec<Node<'t>> = items.iter().map(|e| e.node).collect();
                    if !exact {
                        return Vec::new();
                    }
                    match self.raw_command(&nodes) {
                        Some(x) => x,
                        None => return Vec::new(),
                    }
                } else {
                    match self.node_keys(m, &args) {
                        Some(x) => x,
                        None => return Vec::new(),
                    }
                }
            }
        };
        let mut uses = Vec::new();
        for k in &keys {
            if let Some((body, varying)) = self.map_family(*k) {
                let t = self.tpl(body);
                let u = self.key_use(t, body, command, c);
                self.family_of.insert(u, varying);
                uses.push(u);
                continue;
            }
            let t = self.tpl(*k);
            uses.push(self.key_use(t, *k, command, c));
        }
        let multi = methods::single_key(&command.to_ascii_lowercase()) != Some(command);
        if multi && !uses.is_empty() {
            let policy = self.policy(c, cluster, batch);
            self.push_unit(Unit {
                kind: UnitKind::Command,
                name: command.to_string(),
                span: call.byte_range(),
                anchor: f.byte_range(),
                keys: uses.clone(),
                policy,
            });
            if c.lib == Lib::NodeRedis
                && cluster == Cluster::Split
                && policy == CrossSlotPolicy::Refused
                && batch.is_none()
            {
                let note = match self.options.node_redis_major {
                    Some(m @ (4 | 5)) => format!(
                        "node-redis {m} (the project's package.json) sends it whole to the \
                         first key's node; node-redis 6 splits it by slot"
                    ),
                    _ => "a standalone node-redis client sends it whole; node-redis 6's \
                          cluster client splits it by slot"
                        .to_string(),
                };
                self.model.unit_notes.push(UnitNote {
                    unit: self.model.units.len() - 1,
                    note,
                });
            }
        }
        uses
    }

    /// Adds a unit, with the families its keys stand for.
    fn push_unit(&mut self, unit: Unit) {
        let ui = self.model.units.len();
        for &k in &unit.keys {
            if let Some(v) = self.family_of.get(&k) {
                self.model.families.push(KeyFamily {
                    unit: ui,
                    key: k,
                    varying: vec![v.clone()],
                    source: "the results of a `map`".into(),
                });
            }
        }
        self.model.units.push(unit);
    }

    /// `xs.map(x => expr)` or `xs.map((x) => { return expr; })`: the expression that
    /// gives each element and the binding of the parameter, which differs from element
    /// to element.
    fn map_family(&self, n: Node<'t>) -> Option<(Node<'t>, String)> {
        let n = unwrap_expr(n);
        if n.kind() != "call_expression" {
            return None;
        }
        let (_, m, _) = self.method_call(n)?;
        if m != "map" {
            return None;
        }
        let args = self.args(n);
        let [f] = args[..] else { return None };
        if f.kind() != "arrow_function" {
            return None;
        }
        let param = match f.child_by_field_name("parameter") {
            Some(p) => p,
            None => {
                let params = f.child_by_field_name("parameters")?;
                let mut c = params.walk();
                let ps: Vec<Node<'t>> = params.named_children(&mut c).collect();
                let [p] = ps[..] else { return None };
                match p.kind() {
                    "identifier" => p,
                    "required_parameter" => p
                        .child_by_field_name("pattern")
                        .filter(|x| x.kind() == "identifier")?,
                    _ => return None,
                }
            }
        };
        let body = f.child_by_field_name("body")?;
        let expr = if body.kind() == "statement_block" {
            let mut c = body.walk();
            let stmts: Vec<Node<'t>> = body
                .named_children(&mut c)
                .filter(|s| s.kind() != "comment")
                .collect();
            let [ret] = stmts[..] else { return None };
            if ret.kind() != "return_statement" {
                return None;
            }
            ret.named_child(0)?
        } else {
            body
        };
        let binding = format!("{}@{}", text(param, self.src), f.start_byte());
        Some((expr, binding))
    }

    /// What a cluster does with a command whose keys span slots.
    fn policy(&self, c: Client, cluster: Cluster, batch: Option<(Batch, bool)>) -> CrossSlotPolicy {
        if c.lib == Lib::IoRedis || cluster == Cluster::Routed {
            return CrossSlotPolicy::Refused;
        }
        match batch {
            // A transaction is sent whole to one node.
            Some((Batch::Multi, false)) => CrossSlotPolicy::Refused,
            Some(_) => CrossSlotPolicy::Split,
            None => match (c.kind, self.options.node_redis_major) {
                (Kind::Standalone, _) => CrossSlotPolicy::Refused,
                (_, Some(4 | 5)) => CrossSlotPolicy::Refused,
                // node-redis 6 splits it by slot; an unknown major may too.
                _ => CrossSlotPolicy::Split,
            },
        }
    }

    fn key_use(&mut self, t: Tpl, n: Node<'t>, command: &str, c: Client) -> usize {
        let t = match c.prefix {
            Prefix::None => t,
            Prefix::Lit(i) => {
                let mut p = self.prefixes[i].clone();
                p.push(t);
                p
            }
            Prefix::Unknown => {
                let mut p = Tpl::hole(HoleInfo {
                    label: "keyPrefix".into(),
                    binding: "keyPrefix".into(),
                    span: None,
                    keylike: true,
                });
                p.push(t);
                p
            }
        };
        let span = n.byte_range();
        self.model.keys.push(KeyUse {
            template: t.to_key_template(&span),
            span,
            command: command.to_string(),
            origin: KeyOrigin::Direct,
        });
        self.model.keys.len() - 1
    }

    /// ioredis arguments flattened one level: each element with whether its position
    /// is known (no array of unknown length before it).
    fn flatten(&mut self, args: &[Node<'t>]) -> Vec<Flat<'t>> {
        let mut out = Vec::new();
        for &a in args {
            let u = unwrap_expr(a);
            let inner = if u.kind() == "spread_element" {
                u.named_child(0).map(unwrap_expr)
            } else {
                Some(u)
            };
            if let Some(m) = inner.filter(|m| self.map_family(*m).is_some()) {
                out.push(Flat::Family(m));
                continue;
            }
            if u.kind() == "spread_element" {
                out.push(Flat::Many);
                continue;
            }
            if u.kind() == "array" {
                let Value::Array(items, _) = self.eval(u) else {
                    out.push(Flat::Many);
                    continue;
                };
                for e in items {
                    if e.spread || matches!(e.value, Value::Array(..) | Value::Object(_)) {
                        out.push(Flat::Many);
                    } else {
                        out.push(Flat::One(e.node));
                    }
                }
                continue;
            }
            match u.kind() {
                "string" | "template_string" | "number" | "binary_expression"
                | "unary_expression" => out.push(Flat::One(u)),
                _ => match self.eval(u) {
                    Value::Str(_) | Value::Num(_) => out.push(Flat::One(u)),
                    _ => out.push(Flat::Many),
                },
            }
        }
        out
    }

    /// The keys of an ioredis multi-key or single-key method.
    fn io_keys(
        &mut self,
        m: &str,
        args: &[Node<'t>],
    ) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        if let Some(im) = methods::ioredis(m) {
            let IoKeys::Range { first, last, step } = im.keys else {
                return None;
            };
            let flat = self.flatten(args);
            return Some((
                im.command,
                range_keys(&flat, first, last, step)?,
                im.cluster,
            ));
        }
        let cmd = methods::single_key(m)?;
        if m != m.to_ascii_lowercase() {
            return None;
        }
        let first = unwrap_expr(*args.first()?);
        if matches!(first.kind(), "array" | "spread_element") {
            return None;
        }
        Some((cmd, vec![first], Cluster::Routed))
    }

    /// `call('MGET', a, b)` / `sendCommand(['MGET', a, b])`: the command's keys by the
    /// ioredis table's positions (the server's key specs), or its one key.
    fn raw_command(&mut self, args: &[Node<'t>]) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        let (name, rest) = args.split_first()?;
        let Value::Str(t) = self.eval(*name) else {
            return None;
        };
        let name = String::from_utf8(t.as_bytes()?).ok()?.to_ascii_lowercase();
        let cluster =
            methods::node_redis(&name.to_ascii_uppercase()).map_or(Cluster::Routed, |n| n.cluster);
        if let Some(im) = methods::ioredis(&name) {
            let IoKeys::Range { first, last, step } = im.keys else {
                return None;
            };
            let flat = self.flatten(rest);
            return Some((im.command, range_keys(&flat, first, last, step)?, cluster));
        }
        let cmd = methods::single_key(&name)?;
        let first = unwrap_expr(*rest.first()?);
        if matches!(first.kind(), "array" | "spread_element") {
            return None;
        }
        Some((cmd, vec![first], cluster))
    }

    /// The keys of a node-redis method, from the parameters its table row names.
    fn node_keys(
        &mut self,
        m: &str,
        args: &[Node<'t>],
    ) -> Option<(&'static str, Vec<Node<'t>>, Cluster)> {
        let Some(nm) = methods::node_redis(m) else {
            let cmd = methods::single_key(m)?;
            let first = unwrap_expr(*args.first()?);
            if first.kind() == "spread_element" {
                return None;
            }
            return Some((cmd, vec![first], Cluster::Routed));
        };
        let mut keys = Vec::new();
        for p in &nm.params {
            let Some(&a) = args.get(p.index) else {
                continue;
            };
            if args[..p.index.min(args.len())]
                .iter()
                .any(|x| x.kind() == "spread_element")
            {
                return None;
            }
            let a = unwrap_expr(a);
            match p.kind {
                ParamKind::Key => keys.push(a),
                ParamKind::Keys if self.map_family(a).is_some() => keys.push(a),
                ParamKind::Keys => match self.eval(a) {
                    Value::Array(items, _) => {
                        keys.extend(items.iter().filter(|e| !e.spread).map(|e| e.node))
                    }
                    Value::Str(_) => keys.push(a),
                    _ => {}
                },
                ParamKind::Pairs => match self.eval(a) {
                    Value::Array(items, exact) => {
                        if items
                            .iter()
                            .all(|e| matches!(e.value, Value::Array(..)) && !e.spread)
                        {
                            for e in &items {
                                if let Value::Array(kv, _) = &e.value {
                                    if let Some(k) = kv.first().filter(|k| !k.spread) {
                                        keys.push(k.node);
                                    }
                                }
                            }
                        } else if exact
                            && items
                                .iter()
                                .all(|e| matches!(e.value, Value::Str(_) | Value::Num(_)))
                        {
                            keys.extend(items.iter().step_by(2).map(|e| e.node));
                        }
                    }
                    // `{ k: v }`: property names are keys.
                    Value::Object(_) if a.kind() == "object" => {
                        let mut c = a.walk();
                        for p in a.named_children(&mut c) {
                            if p.kind() == "pair" {
                                if let Some(k) = p.child_by_field_name("key") {
                                    if k.kind() == "string" {
                                        keys.push(k);
                                    }
                                }
                            }
                        }
                    }
                    _ => {}
                },
                ParamKind::Streams | ParamKind::OptionsKeys => {}
            }
        }
        Some((nm.command, keys, nm.cluster))
    }

    // ---------------------------------------------------------------- batches

    /// A batch ended by `exec()` / `execAsPipeline()` at `call`, whose receiver
    /// `recv` evaluates to the batch.
    fn batch(&mut self, call: Node<'t>, recv: Node<'t>, c: Client, b: Batch, as_pipeline: bool) {
        let Some((start, queued)) = self.queued(recv) else {
            return;
        };
        let mode = Some((b, as_pipeline));
        let mut keys = Vec::new();
        for q in queued {
            keys.extend(self.command(q, c, mode));
        }
        // What a cluster does with the batch as a whole: a transaction is refused when
        // its keys span slots (node-redis sends it to one node, ioredis checks it
        // first); a pipeline runs per node, which is a hazard, not a refusal.
        if b != Batch::Multi || as_pipeline || keys.len() < 2 {
            return;
        }
        self.push_unit(Unit {
            kind: UnitKind::Transaction,
            name: "MULTI".into(),
            span: start.start_byte()..call.end_byte(),
            anchor: start.byte_range(),
            keys,
            policy: CrossSlotPolicy::Refused,
        });
        let note = match c.lib {
            Lib::IoRedis => {
                "ioredis checks a transaction before sending it: keys on two nodes are \
                 rejected by the client (`All keys in the pipeline should belong to the same \
                 slots allocation group`), nothing written; keys in two slots of one node get \
                 `CROSSSLOT` at `EXEC`"
            }
            Lib::NodeRedis => {
                "node-redis sends the transaction to the first key's node: another slot of \
                 that node gets `CROSSSLOT`, another node ends in `Too many Cluster \
                 redirections` (node-redis 6), with nothing written"
            }
        };
        self.model.unit_notes.push(UnitNote {
            unit: self.model.units.len() - 1,
            note: note.to_string(),
        });
    }

    /// The calls queued on a batch, in order, and the call that started it: the chain
    /// down to `multi()`, through a `const` holding the batch and the statements
    /// that queue on it in the same block before the end.
    fn queued(&mut self, recv: Node<'t>) -> Option<(Node<'t>, Vec<Node<'t>>)> {
        let mut chain = Vec::new();
        let mut cur = unwrap_expr(recv);
        loop {
            match cur.kind() {
                "call_expression" => {
                    let (obj, m, _) = self.method_call(cur)?;
                    if matches!(m, "multi" | "pipeline")
                        && matches!(self.eval(obj), Value::Client(_))
                    {
                        chain.reverse();
                        return Some((cur, chain));
                    }
                    chain.push(cur);
                    cur = unwrap_expr(obj);
                }
                "identifier" => {
                    let name = text(cur, self.src).to_string();
                    let Decl::Value(v) = self.lookup(&name, cur) else {
                        return None;
                    };
                    let (start, mut before) = self.queued(v)?;
                    // Statements `name.cmd(…)…;` between the declaration and the end.
                    let decl_stmt = self.statement_of(v)?;
                    let end_stmt = self.statement_of(recv)?;
                    let block = self.parent(decl_stmt)?;
                    if self.parent(end_stmt) != Some(block) {
                        return None;
                    }
                    let mut c = block.walk();
                    let stmts: Vec<Node<'t>> = block.named_children(&mut c).collect();
                    let mut inside = false;
                    for s in stmts {
                        if s == decl_stmt {
                            inside = true;
                            continue;
                        }
                        if s == end_stmt {
                            break;
                        }
                        if !inside || s.kind() != "expression_statement" {
                            continue;
                        }
                        let Some(e) = s.named_child(0) else { continue };
                        let mut calls = Vec::new();
                        if self.chain_on(unwrap_expr(e), &name, &mut calls) {
                            calls.reverse();
                            before.extend(calls);
                        }
                    }
                    chain.reverse();
                    before.extend(chain);
                    return Some((start, before));
                }
                _ => return None,
            }
        }
    }

    /// Whether `e` is a chain of calls on the identifier `name` (`tx.set(…).get(…)`);
    /// collects the calls, outermost first.
    fn chain_on(&self, e: Node<'t>, name: &str, out: &mut Vec<Node<'t>>) -> bool {
        let mut cur = e;
        loop {
            match cur.kind() {
                "call_expression" => {
                    let Some((obj, _, _)) = self.method_call(cur) else {
                        return false;
                    };
                    out.push(cur);
                    cur = unwrap_expr(obj);
                }
                "identifier" => return text(cur, self.src) == name,
                _ => return false,
            }
        }
    }

    /// The statement that contains `n`.
    fn statement_of(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut cur = n;
        let mut steps = 0;
        loop {
            let p = self.parent(cur)?;
            steps += 1;
            if steps > 400 {
                return None;
            }
            if matches!(p.kind(), "statement_block" | "program" | "switch_case") {
                return Some(cur);
            }
            cur = p;
        }
    }

    // ---------------------------------------------------------------- scripts

    /// `client.defineCommand(name, { numberOfKeys, lua })` on an ioredis client.
    fn define_command(&mut self, call: Node<'t>) {
        self.define_script(call);
        let Some((recv, m, _)) = self.method_call(call) else {
            return;
        };
        if m != "defineCommand" {
            return;
        }
        let Value::Client(c) = self.eval(recv) else {
            return;
        };
        if c.lib != Lib::IoRedis {
            return;
        }
        let args = self.args(call);
        let (Some(&name), Some(&def)) = (args.first(), args.get(1)) else {
            return;
        };
        let Value::Str(t) = self.eval(name) else {
            return;
        };
        let Some(name) = t.as_bytes().and_then(|b| String::from_utf8(b).ok()) else {
            return;
        };
        let Value::Object(props) = self.eval(def) else {
            return;
        };
        let numkeys = props
            .iter()
            .find(|(k, _)| k == "numberOfKeys")
            .and_then(|(_, e)| match e.value {
                Value::Num(n) => usize::try_from(n).ok(),
                _ => None,
            });
        let body = props.iter().find(|(k, _)| k == "lua").map(|(_, e)| e.node);
        self.registered.extend(body);
        let d = Defined { numkeys, body };
        if self.defined.insert(name.clone(), d).is_some() {
            // Defined twice: which one a call runs is not known.
            self.defined.insert(
                name,
                Defined {
                    numkeys: None,
                    body: None,
                },
            );
        }
    }

    /// node-redis `defineScript({ NUMBER_OF_KEYS, SCRIPT, … })`: the body is linted
    /// where it is written. (Its calls pass keys through the script's own
    /// `transformArguments`/`parseCommand`, which are not read.)
    fn define_script(&mut self, call: Node<'t>) {
        let Some(f) = call.child_by_field_name("function") else {
            return;
        };
        let name = match f.kind() {
            "identifier" => text(f, self.src),
            "member_expression" => f
                .child_by_field_name("property")
                .map_or("", |p| text(p, self.src)),
            _ => return,
        };
        let imported = self.imports.node_script
            || (f.kind() == "member_expression"
                && f.child_by_field_name("object")
                    .is_some_and(|o| self.imports.node_ns.contains(text(o, self.src))));
        if name != "defineScript" || !imported {
            return;
        }
        let Some(&def) = self.args(call).first() else {
            return;
        };
        let Value::Object(props) = self.eval(def) else {
            return;
        };
        if let Some((_, e)) = props.iter().find(|(k, _)| k == "SCRIPT") {
            self.registered.push(e.node);
        }
    }

    /// A call of a command defined with `defineCommand`.
    fn defined_call(
        &mut self,
        c: Client,
        call: Node<'t>,
        f: Node<'t>,
        args: &[Node<'t>],
        d: Defined<'t>,
        in_batch: bool,
    ) -> Vec<usize> {
        let Some(n) = d.numkeys else {
            return Vec::new();
        };
        let flat = self.flatten(args);
        let known: Vec<Node<'t>> = flat
            .iter()
            .take_while(|x| matches!(x, Flat::One(_)))
            .filter_map(|x| match x {
                Flat::One(n) => Some(*n),
                _ => None,
            })
            .collect();
        let exact = known.len() == flat.len();
        if known.len() < n && !exact {
            return Vec::new();
        }
        let key_nodes: Vec<Node<'t>> = known.iter().take(n).copied().collect();
        let passed = exact.then(|| (key_nodes.len(), call.byte_range()));
        self.script_unit(c, call, f, key_nodes, passed, None, d.body, in_batch)
    }

    /// `eval`/`evalsha` (and `_ro`) on a client.
    fn eval_call(
        &mut self,
        call: Node<'t>,
        f: Node<'t>,
        m: &str,
        args: &[Node<'t>],
        c: Client,
        in_batch: bool,
    ) -> Vec<usize> {
        let lower = m.to_ascii_lowercase();
        let lower = lower.trim_end_matches("buffer");
        let is_sha = lower.starts_with("evalsha");
        if !matches!(
            lower,
            "eval" | "evalsha" | "eval_ro" | "evalsha_ro" | "evalro" | "evalsharo"
        ) {
            return Vec::new();
        }
        let body = if is_sha { None } else { args.first().copied() };
        match c.lib {
            Lib::IoRedis => {
                // The script (or sha), then numkeys, then keys and arguments.
                if args.is_empty() {
                    return Vec::new();
                }
                let flat = self.flatten(&args[1..]);
                let Some(Flat::One(nk)) = flat.first() else {
                    return Vec::new();
                };
                let nk = *nk;
                let rest = &flat[1..];
                let exact = rest.iter().all(|x| matches!(x, Flat::One(_)));
                let n = match self.eval(nk) {
                    Value::Num(n) => n,
                    _ => match negative(nk, self.src) {
                        Some(n) => n,
                        None => return Vec::new(),
                    },
                };
                let Ok(n) = usize::try_from(n) else {
                    let fact = exact.then(|| {
                        (
                            Numkeys::Refused {
                                why: BadNumkeys::Negative,
                                shown: text(nk, self.src).to_string(),
                            },
                            nk.byte_range(),
                        )
                    });
                    return self.script_unit(c, call, f, Vec::new(), None, fact, None, in_batch);
                };
                let known: Vec<Node<'t>> = rest
                    .iter()
                    .take_while(|x| matches!(x, Flat::One(_)))
                    .filter_map(|x| match x {
                        Flat::One(n) => Some(*n),
                        _ => None,
                    })
                    .collect();
                if known.len() < n && !exact {
                    return Vec::new();
                }
                let fact = exact.then(|| {
                    (
                        Numkeys::Count {
                            n,
                            after: rest.len(),
                        },
                        nk.byte_range(),
                    )
                });
                let key_nodes: Vec<Node<'t>> = known.iter().take(n).copied().collect();
                let passed = (exact && n <= rest.len()).then(|| (n, nk.byte_range()));
                self.script_unit(c, call, f, key_nodes, passed, fact, body, in_batch)
            }
            Lib::NodeRedis => {
                // `eval(script, { keys: […], arguments: […] })`.
                let Some(&opts) = args.get(1) else {
                    return self.script_unit(c, call, f, Vec::new(), None, None, body, in_batch);
                };
                let Value::Object(props) = self.eval(opts) else {
                    return Vec::new();
                };
                let Some((_, keys)) = props.iter().find(|(k, _)| k == "keys") else {
                    return self.script_unit(
                        c,
                        call,
                        f,
                        Vec::new(),
                        Some((0, opts.byte_range())),
                        None,
                        body,
                        in_batch,
                    );
                };
                let Value::Array(items, exact) = &keys.value else {
                    return Vec::new();
                };
                let key_nodes: Vec<Node<'t>> = items
                    .iter()
                    .take_while(|e| !e.spread)
                    .map(|e| e.node)
                    .collect();
                let passed = exact.then(|| (key_nodes.len(), keys.node.byte_range()));
                self.script_unit(c, call, f, key_nodes, passed, None, body, in_batch)
            }
        }
    }

    /// The unit of a script call with the keys it passes, and its link to the body.
    #[allow(clippy::too_many_arguments)]
    fn script_unit(
        &mut self,
        c: Client,
        call: Node<'t>,
        f: Node<'t>,
        key_nodes: Vec<Node<'t>>,
        passed: Option<(usize, Span)>,
        numkeys: Option<(Numkeys, Span)>,
        body: Option<Node<'t>>,
        in_batch: bool,
    ) -> Vec<usize> {
        let mut keys = Vec::new();
        for &k in &key_nodes {
            let t = self.tpl(k);
            keys.push(self.key_use(t, k, "EVALSHA", c));
        }
        if in_batch {
            return keys;
        }
        self.push_unit(Unit {
            kind: UnitKind::Script,
            name: "script".into(),
            span: call.byte_range(),
            anchor: f.byte_range(),
            keys: keys.clone(),
            policy: CrossSlotPolicy::Refused,
        });
        let unit = self.model.units.len() - 1;
        self.links.push(Link {
            unit,
            body,
            call,
            keys: keys.iter().copied().map(Some).collect(),
            key_spans: key_nodes.iter().map(|n| n.byte_range()).collect(),
            passed,
            numkeys,
        });
        keys
    }

    /// Links every script call with its body; a body written in this file is
    /// lowered by the Lua frontend and merged with its spans in the string.
    fn link_scripts(&mut self) {
        let links = std::mem::take(&mut self.links);
        let registered = std::mem::take(&mut self.registered);
        let mut lowered: Vec<LinkedBody> = Vec::new();
        let mut by_body: HashMap<(String, Option<usize>), usize> = HashMap::new();
        let mut merged_bytes: HashSet<usize> = HashSet::new();
        // Bodies of defined scripts are linted where they are written, called or not.
        let sources: Vec<Option<Node<'t>>> = registered
            .iter()
            .map(|&b| Some(b))
            .chain(links.iter().map(|l| l.body))
            .collect();
        let mut body_index = Vec::new();
        for source in sources {
            let body = source.and_then(|b| self.body_of(b));
            let bi = body.map(|(text, offs, node)| {
                let key = (text.clone(), offs.as_ref().and_then(|o| o.first().copied()));
                if let Some(&i) = by_body.get(&key) {
                    return i;
                }
                let lua = keylint_lua::lower(&text);
                let fresh = offs
                    .as_ref()
                    .is_some_and(|o| !o.iter().any(|x| merged_bytes.contains(x)));
                let merged_keys = match (&offs, fresh) {
                    (Some(o), true) => {
                        merged_bytes.extend(o.iter().copied());
                        let m = Mapper {
                            offs: o,
                            fallback: node.byte_range(),
                        };
                        Some(script_link::merge(&mut self.model, &lua, &m))
                    }
                    _ => None,
                };
                lowered.push(LinkedBody { lua, merged_keys });
                by_body.insert(key, lowered.len() - 1);
                lowered.len() - 1
            });
            body_index.push(bi);
        }
        for (link, bi) in links
            .iter()
            .zip(body_index.into_iter().skip(registered.len()))
        {
            let call = ScriptCall {
                anchor: self.model.units[link.unit].anchor.clone(),
                span: link.call.byte_range(),
                keys: link.keys.clone(),
                key_spans: link.key_spans.clone(),
                passed: link.passed.clone(),
                numkeys: link.numkeys.clone(),
            };
            script_link::link_call(&mut self.model, &call, bi.map(|i| &lowered[i]));
        }
    }

    /// A script body known at lint time: its text, the source offset of each byte
    /// when it is written in this file, and the expression.
    fn body_of(&mut self, n: Node<'t>) -> Option<(String, Option<Vec<usize>>, Node<'t>)> {
        match self.eval(n) {
            Value::FileText(t) => Some((t, None, n)),
            Value::Str(t) => {
                let mut bytes = Vec::new();
                let mut offs = Vec::new();
                let mut all = true;
                for p in &t.parts {
                    match p {
                        TPart::Lit { bytes: b, offs: o } => {
                            bytes.extend_from_slice(b);
                            for x in o {
                                match x {
                                    Some(x) => offs.push(*x),
                                    None => all = false,
                                }
                            }
                        }
                        TPart::Hole(_) => return None,
                    }
                }
                let text = String::from_utf8(bytes).ok()?;
                Some((text, all.then_some(offs), n))
            }
            _ => None,
        }
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
    // With arguments of unknown length, only "every argument from `first` on" (or
    // all but the last, when the last is written) can still be read.
    if step != 1 {
        return None;
    }
    let lead = flat
        .iter()
        .take_while(|x| matches!(x, Flat::One(_)))
        .count();
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
