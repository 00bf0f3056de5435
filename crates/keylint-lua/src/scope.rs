//! Name resolution: which declaration every identifier refers to, and which locals are
//! ever assigned after their declaration.
//!
//! The evaluator trusts a local's value only when the local is assigned exactly once,
//! by its own declaration (`local k = KEYS[1] .. ':x'`). A local that is assigned again
//! anywhere (in a branch, in a loop, in a closure) may hold different values at
//! different uses, so its uses become unknown. Resolving names first, over the whole
//! file, is what makes that decision sound: an assignment later in the file, or inside
//! a nested function, is seen before any value is trusted.
//!
//! Broken syntax: tree-sitter wraps what it cannot parse in `ERROR` nodes. Any local
//! whose name appears inside one is treated as reassigned, since the broken text might
//! assign it.

use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// Deepest nesting resolved; deeper code is handled like broken text (see
/// `Resolver::error`). Above the evaluator's limit, so what it walks is resolved.
pub(crate) const MAX_NEST: usize = 400;

/// A declaration, identified by the start byte of its declaring identifier.
pub(crate) type DeclId = usize;

/// The result of resolving a file.
#[derive(Debug, Default)]
pub(crate) struct Scopes {
    /// Identifier use (start byte) → the local it refers to. Globals are absent.
    pub uses: HashMap<usize, DeclId>,
    /// Locals assigned somewhere other than their declaration.
    pub mutated: HashSet<DeclId>,
    /// Global names that the script assigns (`KEYS = …`, `function foo() end`), or
    /// whose fields it assigns (`KEYS[1] = …`): their values cannot be trusted.
    pub tainted_globals: HashSet<String>,
}

struct Resolver<'a> {
    src: &'a [u8],
    scopes: Vec<Vec<(String, DeclId)>>,
    out: Scopes,
    nest: usize,
}

/// Resolves every name in the tree rooted at `root`.
pub(crate) fn resolve(root: Node<'_>, src: &[u8]) -> Scopes {
    let mut r = Resolver {
        src,
        scopes: vec![Vec::new()],
        out: Scopes::default(),
        nest: 0,
    };
    r.statements(root);
    r.out
}

fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.named_children(&mut c).collect()
}

impl Resolver<'_> {
    fn text(&self, node: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[node.byte_range()]).into_owned()
    }

    fn lookup(&self, name: &str) -> Option<DeclId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, d)| *d)
    }

    fn declare(&mut self, ident: Node<'_>) {
        let name = self.text(ident);
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, ident.start_byte()));
        }
    }

    fn with_scope(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        f(self);
        self.scopes.pop();
    }

    /// The statements of a chunk or block, in the current scope.
    fn statements(&mut self, node: Node<'_>) {
        for child in named_children(node) {
            self.statement(child);
        }
    }

    fn block_field(&mut self, node: Node<'_>, field: &str) {
        if let Some(b) = node.child_by_field_name(field) {
            self.with_scope(|r| r.statements(b));
        }
    }

    fn error(&mut self, node: Node<'_>) {
        // An identifier inside broken text that looks like an assignment target
        // (`k = …`, `t[1] = …`, `t.x = …`, `function k`) may be one.
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" && looks_assigned(self.src, n.start_byte(), n.end_byte()) {
                let name = self.text(n);
                match self.lookup(&name) {
                    Some(d) => {
                        self.out.mutated.insert(d);
                    }
                    None => {
                        self.out.tainted_globals.insert(name);
                    }
                }
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }

    fn statement(&mut self, node: Node<'_>) {
        if self.nest >= MAX_NEST {
            self.error(node);
            return;
        }
        self.nest += 1;
        self.statement_inner(node);
        self.nest -= 1;
    }

    fn statement_inner(&mut self, node: Node<'_>) {
        if node.is_error() {
            self.error(node);
            return;
        }
        match node.kind() {
            "variable_declaration" => {
                let children = named_children(node);
                match children.first() {
                    Some(a) if a.kind() == "assignment_statement" => {
                        // Values are evaluated before the names come into scope.
                        if let Some(values) = child_of_kind(*a, "expression_list") {
                            self.expressions(values);
                        }
                        if let Some(names) = child_of_kind(*a, "variable_list") {
                            self.declare_names(names);
                        }
                    }
                    Some(names) if names.kind() == "variable_list" => self.declare_names(*names),
                    _ => {}
                }
            }
            "function_declaration" => self.function_declaration(node),
            "assignment_statement" => {
                if let Some(values) = child_of_kind(node, "expression_list") {
                    self.expressions(values);
                }
                if let Some(targets) = child_of_kind(node, "variable_list") {
                    for t in named_children(targets) {
                        self.assign_target(t);
                    }
                }
            }
            "function_call" => self.expression(node),
            "do_statement" => self.block_field(node, "body"),
            "while_statement" => {
                if let Some(c) = node.child_by_field_name("condition") {
                    self.expression(c);
                }
                self.block_field(node, "body");
            }
            "repeat_statement" => self.with_scope(|r| {
                // The condition sees the body's locals.
                if let Some(b) = node.child_by_field_name("body") {
                    r.statements(b);
                }
                if let Some(c) = node.child_by_field_name("condition") {
                    r.expression(c);
                }
            }),
            "if_statement" => {
                if let Some(c) = node.child_by_field_name("condition") {
                    self.expression(c);
                }
                self.block_field(node, "consequence");
                let mut cur = node.walk();
                let alternatives: Vec<Node<'_>> = node
                    .children_by_field_name("alternative", &mut cur)
                    .collect();
                for alt in alternatives {
                    if let Some(c) = alt.child_by_field_name("condition") {
                        self.expression(c);
                    }
                    self.block_field(alt, "consequence");
                    self.block_field(alt, "body");
                }
            }
            "for_statement" => {
                let clause = node.child_by_field_name("clause");
                self.with_scope(|r| {
                    if let Some(clause) = clause {
                        match clause.kind() {
                            "for_numeric_clause" => {
                                for f in ["start", "end", "step"] {
                                    if let Some(e) = clause.child_by_field_name(f) {
                                        r.expression(e);
                                    }
                                }
                                if let Some(n) = clause.child_by_field_name("name") {
                                    r.declare(n);
                                }
                            }
                            "for_generic_clause" => {
                                if let Some(values) = child_of_kind(clause, "expression_list") {
                                    r.expressions(values);
                                }
                                if let Some(names) = child_of_kind(clause, "variable_list") {
                                    r.declare_names(names);
                                }
                            }
                            _ => r.error(clause),
                        }
                    }
                    r.block_field(node, "body");
                });
            }
            "return_statement" => {
                for e in named_children(node) {
                    if e.kind() == "expression_list" {
                        self.expressions(e);
                    } else {
                        self.expression(e);
                    }
                }
            }
            "hash_bang_line" | "comment" | "empty_statement" | "break_statement"
            | "goto_statement" | "label_statement" => {}
            _ => {
                // Anything unexpected (`global` declarations of newer Lua): resolve the
                // names it mentions conservatively.
                self.error(node);
            }
        }
    }

    fn declare_names(&mut self, list: Node<'_>) {
        for n in named_children(list) {
            if n.kind() == "identifier" {
                self.declare(n);
            }
        }
    }

    fn function_declaration(&mut self, node: Node<'_>) {
        let is_local = node.child(0).is_some_and(|c| c.kind() == "local");
        let name = node.child_by_field_name("name");
        if is_local {
            // `local function f` is visible inside its own body.
            if let Some(n) = name {
                self.declare(n);
            }
        } else if let Some(n) = name {
            self.assign_target(n);
        }
        self.function_body(node);
    }

    fn function_body(&mut self, node: Node<'_>) {
        self.with_scope(|r| {
            if let Some(params) = node.child_by_field_name("parameters") {
                for p in named_children(params) {
                    if p.kind() == "identifier" {
                        r.declare(p);
                    }
                }
            }
            if let Some(b) = node.child_by_field_name("body") {
                r.statements(b);
            }
        });
    }

    fn assign_target(&mut self, target: Node<'_>) {
        match target.kind() {
            "identifier" => {
                let name = self.text(target);
                match self.lookup(&name) {
                    Some(d) => {
                        self.out.mutated.insert(d);
                        self.out.uses.insert(target.start_byte(), d);
                    }
                    None => {
                        self.out.tainted_globals.insert(name);
                    }
                }
            }
            "bracket_index_expression" | "dot_index_expression" | "method_index_expression" => {
                if let Some(t) = target.child_by_field_name("table") {
                    // `KEYS[1] = …` changes what `KEYS[1]` means.
                    if t.kind() == "identifier" && self.lookup(&self.text(t)).is_none() {
                        self.out.tainted_globals.insert(self.text(t));
                    }
                    self.expression(t);
                }
                if target.kind() == "bracket_index_expression" {
                    if let Some(f) = target.child_by_field_name("field") {
                        self.expression(f);
                    }
                }
            }
            _ => self.error(target),
        }
    }

    fn expressions(&mut self, list: Node<'_>) {
        for e in named_children(list) {
            self.expression(e);
        }
    }

    fn expression(&mut self, node: Node<'_>) {
        if self.nest >= MAX_NEST {
            self.error(node);
            return;
        }
        self.nest += 1;
        self.expression_inner(node);
        self.nest -= 1;
    }

    fn expression_inner(&mut self, node: Node<'_>) {
        if node.is_error() {
            self.error(node);
            return;
        }
        match node.kind() {
            "identifier" => {
                let name = self.text(node);
                if let Some(d) = self.lookup(&name) {
                    self.out.uses.insert(node.start_byte(), d);
                }
            }
            "dot_index_expression" | "method_index_expression" => {
                if let Some(t) = node.child_by_field_name("table") {
                    self.expression(t);
                }
            }
            "function_definition" => self.function_body(node),
            "table_constructor" => {
                for field in named_children(node) {
                    if field.kind() != "field" {
                        self.expression(field);
                        continue;
                    }
                    let bracketed = field.child(0).is_some_and(|c| c.kind() == "[");
                    if bracketed {
                        if let Some(n) = field.child_by_field_name("name") {
                            self.expression(n);
                        }
                    }
                    if let Some(v) = field.child_by_field_name("value") {
                        self.expression(v);
                    }
                }
            }
            "string" | "number" | "nil" | "true" | "false" | "vararg_expression" | "comment" => {}
            _ => {
                for c in named_children(node) {
                    self.expression(c);
                }
            }
        }
    }
}

/// True when the text around an identifier reads like an assignment to it (or to one
/// of its fields), or like a function declaration of that name.
fn looks_assigned(src: &[u8], start: usize, end: usize) -> bool {
    let before = src[..start].trim_ascii_end();
    if before.ends_with(b"function") {
        return true;
    }
    let mut i = end;
    let skip_ws = |i: &mut usize| {
        while *i < src.len() && src[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        match src.get(i) {
            Some(b'[') => {
                let mut depth = 0;
                while i < src.len() {
                    match src[i] {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            Some(b'.') if src.get(i + 1) != Some(&b'.') => {
                i += 1;
                skip_ws(&mut i);
                while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                    i += 1;
                }
            }
            Some(b',') => return true,
            Some(b'=') => return src.get(i + 1) != Some(&b'='),
            _ => return false,
        }
    }
}

/// The first named child of a kind.
pub(crate) fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut c = node.walk();
    let found = node.named_children(&mut c).find(|n| n.kind() == kind);
    found
}
