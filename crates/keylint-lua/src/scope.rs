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

use crate::ast::{Node, F, K};
use crate::hash::{FastMap, FastSet, OffsetMap, OffsetSet};
use std::borrow::Cow;

/// Deepest nesting resolved; deeper code is handled like broken text (see
/// `Resolver::error`). Above the evaluator's limit, so what it walks is resolved.
pub(crate) const MAX_NEST: usize = 400;

/// A declaration, identified by the start byte of its declaring identifier.
pub(crate) type DeclId = usize;

/// The result of resolving a file.
#[derive(Debug, Default)]
pub(crate) struct Scopes {
    /// Identifier use (start byte) → the local it refers to. Globals are absent.
    pub uses: OffsetMap<DeclId>,
    /// Locals assigned somewhere other than their declaration.
    pub mutated: OffsetSet,
    /// Mutated locals whose assignments the evaluator cannot follow in order: assigned
    /// from inside a function nested in the declaring one (a closure), by a function
    /// declaration, or inside broken text.
    pub captured: OffsetSet,
    /// Locals whose fields are assigned (`t[k] = v`, `t.x = v`, `table.insert(t, v)`):
    /// a field read from them may be any value.
    pub field_written: OffsetSet,
    /// Locals whose only field writes are `table.insert(t, v)` (values appended): a
    /// subset of `field_written`.
    pub appended: OffsetSet,
    /// Locals with a field write other than `table.insert(t, v)`.
    pub field_set: OffsetSet,
    /// For locals whose every field write names its field (`key.message = …`), the
    /// names written: the other fields keep their constructor's values.
    pub named_writes: OffsetMap<Vec<String>>,
    /// Locals with a field write that names no field (`t[k] = v`, `table.insert(t, v)`).
    pub unnamed_writes: OffsetSet,
    /// Locals handed to code that may keep or change them: an argument of a function
    /// other than the few known to only read (`ipairs`, `unpack`, …), or the whole value
    /// of an assignment or table field (an alias).
    pub escaped: OffsetSet,
    /// Global names that the script assigns (`KEYS = …`, `function foo() end`), or
    /// whose fields it assigns (`KEYS[1] = …`): their values cannot be trusted.
    pub tainted_globals: FastSet<String>,
    /// Each `table.remove(KEYS, 1)` written among the top-level statements of the
    /// chunk or of a function the chunk defines (`local namespace = table.remove(KEYS,
    /// 1)`), in order: the byte range of that chunk or function, and where the call
    /// starts. After it, within that range, `KEYS[i]` is the key the caller passed at
    /// `i + 1`. A removal anywhere else, or of another index, taints `KEYS` instead.
    pub keys_removed: Vec<(usize, usize, usize)>,
    /// The same for `ARGV`.
    pub argv_removed: Vec<(usize, usize, usize)>,
}

struct Resolver<'a> {
    src: &'a [u8],
    /// Every name in scope → its declarations, innermost (latest) last.
    visible: FastMap<Cow<'a, str>, Vec<DeclId>>,
    /// The names declared in each open scope, innermost scope last.
    scopes: Vec<Vec<Cow<'a, str>>>,
    out: Scopes,
    nest: usize,
    /// How many function bodies enclose the current point.
    depth: usize,
    /// The function depth of each declaration.
    decl_depth: OffsetMap<usize>,
    /// The functions being resolved, innermost last: their byte range and the number
    /// of open scopes at their body's top level.
    funcs: Vec<(usize, usize, usize)>,
}

/// Resolves every name in the tree rooted at `root`.
pub(crate) fn resolve(root: Node<'_>, identifiers: usize, src: &[u8]) -> Scopes {
    let mut out = Scopes::default();
    // At most one use per identifier: no rehashing on a file of thousands.
    out.uses.reserve(identifiers);
    let mut r = Resolver {
        src,
        visible: FastMap::default(),
        scopes: vec![Vec::new()],
        out,
        nest: 0,
        depth: 0,
        decl_depth: OffsetMap::default(),
        funcs: Vec::new(),
    };
    r.statements(root);
    r.out
}

impl<'a> Resolver<'a> {
    fn text(&self, node: Node<'_>) -> Cow<'a, str> {
        String::from_utf8_lossy(&self.src[node.byte_range()])
    }

    /// The innermost declaration of a name in scope: the latest one still visible.
    fn lookup(&self, name: &str) -> Option<DeclId> {
        self.visible.get(name).and_then(|d| d.last().copied())
    }

    fn declare(&mut self, ident: Node<'_>) {
        let name = self.text(ident);
        if let Some(scope) = self.scopes.last_mut() {
            self.visible
                .entry(name.clone())
                .or_default()
                .push(ident.start_byte());
            scope.push(name);
            self.decl_depth.insert(ident.start_byte(), self.depth);
        }
    }

    fn with_scope(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        f(self);
        if let Some(names) = self.scopes.pop() {
            for name in names {
                if let Some(d) = self.visible.get_mut(&name) {
                    d.pop();
                }
            }
        }
    }

    /// The statements of a chunk or block, in the current scope.
    fn statements(&mut self, node: Node<'_>) {
        for child in node.named_children() {
            self.statement(child);
        }
    }

    fn block_field(&mut self, node: Node<'_>, field: F) {
        if let Some(b) = node.field(field) {
            self.with_scope(|r| r.statements(b));
        }
    }

    fn error(&mut self, node: Node<'_>) {
        // An identifier inside broken text that looks like an assignment target
        // (`k = …`, `t[1] = …`, `t.x = …`, `function k`) may be one.
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == K::Identifier && looks_assigned(self.src, n.start_byte(), n.end_byte()) {
                let name = self.text(n);
                match self.lookup(&name) {
                    Some(d) => {
                        self.out.mutated.insert(d);
                        self.out.captured.insert(d);
                    }
                    None => {
                        self.out.tainted_globals.insert(name.into_owned());
                    }
                }
            }
            stack.extend(n.children());
        }
    }

    /// Runs `inner` on `node` one level deeper; a node past the nesting limit, or a
    /// syntax error, is an error of the scope analysis instead.
    fn nested(&mut self, node: Node<'_>, inner: fn(&mut Self, Node<'_>)) {
        if self.nest >= MAX_NEST || node.is_error() {
            self.error(node);
            return;
        }
        self.nest += 1;
        inner(self, node);
        self.nest -= 1;
    }

    fn statement(&mut self, node: Node<'_>) {
        self.nested(node, Self::statement_inner);
    }

    fn statement_inner(&mut self, node: Node<'_>) {
        match node.kind() {
            K::VariableDeclaration => {
                match node.named_children().next() {
                    Some(a) if a.kind() == K::AssignmentStatement => {
                        // Values are evaluated before the names come into scope.
                        if let Some(values) = child_of_kind(a, K::ExpressionList) {
                            self.expressions(values);
                        }
                        if let Some(names) = child_of_kind(a, K::VariableList) {
                            self.declare_names(names);
                        }
                    }
                    Some(names) if names.kind() == K::VariableList => self.declare_names(names),
                    _ => {}
                }
            }
            K::FunctionDeclaration => self.function_declaration(node),
            K::AssignmentStatement => self.assignment(node),
            K::FunctionCall => self.expression(node),
            K::DoStatement => self.block_field(node, F::Body),
            K::WhileStatement => {
                if let Some(c) = node.field(F::Condition) {
                    self.expression(c);
                }
                self.block_field(node, F::Body);
            }
            K::RepeatStatement => self.with_scope(|r| {
                // The condition sees the body's locals.
                if let Some(b) = node.field(F::Body) {
                    r.statements(b);
                }
                if let Some(c) = node.field(F::Condition) {
                    r.expression(c);
                }
            }),
            K::IfStatement => {
                if let Some(c) = node.field(F::Condition) {
                    self.expression(c);
                }
                self.block_field(node, F::Consequence);
                for alt in node.children_by_field(F::Alternative) {
                    if let Some(c) = alt.field(F::Condition) {
                        self.expression(c);
                    }
                    self.block_field(alt, F::Consequence);
                    self.block_field(alt, F::Body);
                }
            }
            K::ForStatement => self.for_statement(node),
            K::ReturnStatement => {
                for e in node.named_children() {
                    if e.kind() == K::ExpressionList {
                        self.expressions(e);
                    } else {
                        self.expression(e);
                    }
                }
            }
            K::HashBangLine
            | K::Comment
            | K::EmptyStatement
            | K::BreakStatement
            | K::GotoStatement
            | K::LabelStatement => {}
            _ => {
                // Anything unexpected (`global` declarations of newer Lua): resolve the
                // names it mentions conservatively.
                self.error(node);
            }
        }
    }

    /// `a, t[k] = …`: the values, then the targets.
    fn assignment(&mut self, node: Node<'_>) {
        if let Some(values) = child_of_kind(node, K::ExpressionList) {
            self.expressions(values);
        }
        if let Some(targets) = child_of_kind(node, K::VariableList) {
            for t in targets.named_children() {
                self.assign_target(t);
                if node.has_error() {
                    // A broken assignment: its value cannot be followed.
                    if let Some(d) = self.out.uses.get(&t.start_byte()).copied() {
                        self.out.captured.insert(d);
                    }
                }
            }
        }
    }

    /// A numeric or generic `for`: its control values, then its names in a scope of
    /// their own with the body.
    fn for_statement(&mut self, node: Node<'_>) {
        let clause = node.field(F::Clause);
        self.with_scope(|r| {
            if let Some(clause) = clause {
                match clause.kind() {
                    K::ForNumericClause => {
                        for f in [F::Start, F::End, F::Step] {
                            if let Some(e) = clause.field(f) {
                                r.expression(e);
                            }
                        }
                        if let Some(n) = clause.field(F::Name) {
                            r.declare(n);
                        }
                    }
                    K::ForGenericClause => {
                        if let Some(values) = child_of_kind(clause, K::ExpressionList) {
                            r.expressions(values);
                        }
                        if let Some(names) = child_of_kind(clause, K::VariableList) {
                            r.declare_names(names);
                        }
                    }
                    _ => r.error(clause),
                }
            }
            r.block_field(node, F::Body);
        });
    }

    fn declare_names(&mut self, list: Node<'_>) {
        for n in list.named_children() {
            if n.kind() == K::Identifier {
                self.declare(n);
            }
        }
    }

    fn function_declaration(&mut self, node: Node<'_>) {
        let is_local = node.first_child().is_some_and(|c| c.kind() == K::Local);
        let name = node.field(F::Name);
        if is_local {
            // `local function f` is visible inside its own body.
            if let Some(n) = name {
                self.declare(n);
            }
        } else if let Some(n) = name {
            self.assign_target(n);
            if let Some(d) = self.out.uses.get(&n.start_byte()).copied() {
                self.out.captured.insert(d);
            }
        }
        self.function_body(node);
    }

    fn function_body(&mut self, node: Node<'_>) {
        self.depth += 1;
        self.with_scope(|r| {
            if let Some(params) = node.field(F::Parameters) {
                for p in params.named_children() {
                    if p.kind() == K::Identifier {
                        r.declare(p);
                    }
                }
            }
            if let Some(b) = node.field(F::Body) {
                r.funcs
                    .push((node.start_byte(), node.end_byte(), r.scopes.len()));
                r.statements(b);
                r.funcs.pop();
            }
        });
        self.depth -= 1;
    }

    fn assign_target(&mut self, target: Node<'_>) {
        match target.kind() {
            K::Identifier => {
                let name = self.text(target);
                match self.lookup(&name) {
                    Some(d) => {
                        self.out.mutated.insert(d);
                        self.out.uses.insert(target.start_byte(), d);
                        if self.decl_depth.get(&d) != Some(&self.depth) {
                            self.out.captured.insert(d);
                        }
                    }
                    None => {
                        self.out.tainted_globals.insert(name.into_owned());
                    }
                }
            }
            K::BracketIndexExpression | K::DotIndexExpression | K::MethodIndexExpression => {
                if let Some(t) = target.field(F::Table) {
                    if let Some(d) = (t.kind() == K::Identifier)
                        .then(|| self.lookup(&self.text(t)))
                        .flatten()
                    {
                        self.out.field_written.insert(d);
                        let named = (target.kind() == K::DotIndexExpression)
                            .then(|| target.field(F::Field))
                            .flatten()
                            .filter(|f| f.kind() == K::Identifier);
                        match named {
                            Some(f) => {
                                let name = self.text(f).into_owned();
                                let names = self.out.named_writes.entry(d).or_default();
                                if !names.contains(&name) {
                                    names.push(name);
                                }
                            }
                            None => {
                                self.out.unnamed_writes.insert(d);
                            }
                        }
                        // `t[#t + 1] = v` appends, like `table.insert(t, v)`.
                        if !is_append(target, t, self.src) {
                            self.out.field_set.insert(d);
                        } else {
                            self.out.appended.insert(d);
                        }
                    }
                    // `KEYS[1] = …` changes what `KEYS[1]` means.
                    if t.kind() == K::Identifier && self.lookup(&self.text(t)).is_none() {
                        self.out.tainted_globals.insert(self.text(t).into_owned());
                    }
                    self.expression(t);
                }
                if target.kind() == K::BracketIndexExpression {
                    if let Some(f) = target.field(F::Field) {
                        self.expression(f);
                    }
                }
            }
            _ => self.error(target),
        }
    }

    fn expressions(&mut self, list: Node<'_>) {
        for e in list.named_children() {
            self.escape(e);
            self.expression(e);
        }
    }

    /// `table.remove(KEYS, 1)` (or of `ARGV`): recorded in order at the chunk's top
    /// level, else the global is tainted (its indices no longer say which key).
    fn shift_of(&mut self, call: Node<'_>, args: Node<'_>) {
        let a: Vec<Node<'_>> = args
            .named_children()
            .filter(|c| c.kind() != K::Comment)
            .collect();
        let Some(&t) = a.first() else {
            return;
        };
        let name = self.text(t).into_owned();
        if t.kind() != K::Identifier
            || !(name == "KEYS" || name == "ARGV")
            || self.lookup(&name).is_some()
        {
            return;
        }
        let first = a.len() == 2 && self.text(a[1]) == "1";
        let range = match (self.depth, self.funcs.last()) {
            (0, _) if self.scopes.len() == 1 => Some((0, usize::MAX)),
            (1, Some(&(from, to, open))) if self.scopes.len() == open => Some((from, to)),
            _ => None,
        };
        if let (true, Some((from, to))) = (first, range) {
            let list = if name == "KEYS" {
                &mut self.out.keys_removed
            } else {
                &mut self.out.argv_removed
            };
            list.push((from, to, call.start_byte()));
        } else {
            self.out.tainted_globals.insert(name);
        }
    }

    /// Marks a local used as a whole value where it may be kept or changed.
    fn escape(&mut self, e: Node<'_>) {
        if e.kind() == K::Identifier {
            if let Some(d) = self.lookup(&self.text(e)) {
                self.out.escaped.insert(d);
            }
        }
    }

    /// The arguments of a call: which locals it may change.
    fn call_arguments(&mut self, call: Node<'_>) {
        let callee = call.field(F::Name).map(|n| {
            self.text(n)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
        });
        let Some(args) = call.field(F::Arguments) else {
            return;
        };
        if callee.as_deref() == Some("table.remove") {
            self.shift_of(call, args);
        }
        for (i, a) in args.named_children().enumerate() {
            if a.kind() != K::Identifier {
                continue;
            }
            let Some(d) = self.lookup(&self.text(a)) else {
                continue;
            };
            match callee.as_deref() {
                Some(
                    "ipairs" | "pairs" | "unpack" | "table.unpack" | "table.concat" | "next"
                    | "select" | "type" | "tostring" | "tonumber" | "table.getn" | "cjson.encode"
                    | "cmsgpack.pack" | "redis.call" | "redis.pcall",
                ) => {}
                // The table they change is the first argument; the others are read.
                Some("table.insert" | "table.remove" | "table.sort" | "rawset") => {
                    if i == 0 {
                        self.out.field_written.insert(d);
                        self.out.unnamed_writes.insert(d);
                        let n = args
                            .named_children()
                            .filter(|c| c.kind() != K::Comment)
                            .count();
                        if callee.as_deref() == Some("table.insert") && n == 2 {
                            self.out.appended.insert(d);
                        } else {
                            self.out.field_set.insert(d);
                        }
                    }
                }
                _ => {
                    self.out.escaped.insert(d);
                }
            }
        }
    }

    fn expression(&mut self, node: Node<'_>) {
        self.nested(node, Self::expression_inner);
    }

    fn expression_inner(&mut self, node: Node<'_>) {
        match node.kind() {
            K::Identifier => {
                let name = self.text(node);
                if let Some(d) = self.lookup(&name) {
                    self.out.uses.insert(node.start_byte(), d);
                }
            }
            K::DotIndexExpression | K::MethodIndexExpression => {
                if let Some(t) = node.field(F::Table) {
                    self.expression(t);
                }
            }
            K::FunctionDefinition => self.function_body(node),
            K::FunctionCall => {
                self.call_arguments(node);
                for c in node.named_children() {
                    self.expression(c);
                }
            }
            K::TableConstructor => {
                for field in node.named_children() {
                    if field.kind() != K::Field {
                        self.expression(field);
                        continue;
                    }
                    let bracketed = field.first_child().is_some_and(|c| c.kind() == K::LBracket);
                    if bracketed {
                        if let Some(n) = field.field(F::Name) {
                            self.expression(n);
                        }
                    }
                    if let Some(v) = field.field(F::Value) {
                        self.escape(v);
                        self.expression(v);
                    }
                }
            }
            K::String
            | K::Number
            | K::Nil
            | K::True
            | K::False
            | K::VarargExpression
            | K::Comment => {}
            _ => {
                for c in node.named_children() {
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
pub(crate) fn child_of_kind(node: Node<'_>, kind: K) -> Option<Node<'_>> {
    node.child_of_kind(kind)
}

/// True for the target `t[#t + 1]` of an assignment to the table `t`: a value
/// appended at its end.
pub(crate) fn is_append(target: Node<'_>, table: Node<'_>, src: &[u8]) -> bool {
    if target.kind() != K::BracketIndexExpression || table.kind() != K::Identifier {
        return false;
    }
    let Some(field) = target.field(F::Field) else {
        return false;
    };
    let squeeze = |n: Node<'_>| -> Vec<u8> {
        src[n.byte_range()]
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect()
    };
    let mut want = b"#".to_vec();
    want.extend(squeeze(table));
    want.extend(b"+1");
    field.kind() == K::BinaryExpression && squeeze(field) == want
}
