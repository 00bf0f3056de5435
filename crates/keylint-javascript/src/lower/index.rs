//! The index walk: imports of the client libraries, names assigned anywhere, parents
//! and calls.

use super::*;

impl<'t> Analyzer<'t> {
    /// One walk over the tree: imports, assigned names, calls.
    pub(super) fn index(&mut self) {
        let mut var_names: HashSet<String> = HashSet::new();
        let mut cursor = self.root.walk();
        let mut stack = vec![self.root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "import_statement" => {
                    self.import_statement(n);
                    self.import_path_statement(n);
                }
                "variable_declarator" => {
                    self.require_declarator(n);
                    self.require_path_declarator(n);
                }
                "import_alias" | "import_require_clause" => self.import_require(n),
                "assignment_expression" | "augmented_assignment_expression" => {
                    if let Some(l) = n.child_by_field_name("left") {
                        self.mutated_in(l);
                        self.assigned_in(l);
                        // `x = value` (an augmented one is never a client).
                        let plain = n.kind() == "assignment_expression";
                        let right = n.child_by_field_name("right").filter(|_| plain);
                        // `X.prototype.name = function (…) { … }`.
                        if let (Some(x), Some(r)) = (clients::prototype_target(l, self.src), right)
                        {
                            if matches!(r.kind(), "function_expression" | "function") {
                                self.prototypes
                                    .entry(text(x, self.src).to_string())
                                    .or_default()
                                    .push(r);
                            }
                        }
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

    /// Records the object whose property an assignment target sets: `o.x`, `o[k]`
    /// (the name `o`), `a.o.x` (the property `o`).
    fn mutated_in(&mut self, target: Node<'t>) {
        let t = unwrap_expr(target);
        if !matches!(t.kind(), "member_expression" | "subscript_expression") {
            return;
        }
        // `q.keys = …` from outside the object's own code.
        if t.kind() == "member_expression"
            && t.child_by_field_name("object")
                .is_some_and(|o| o.kind() != "this")
        {
            if let Some(p) = t.child_by_field_name("property") {
                self.assigned_fields.insert(text(p, self.src).to_string());
            }
        }
        let Some(o) = t.child_by_field_name("object").map(unwrap_expr) else {
            return;
        };
        match o.kind() {
            "identifier" => {
                self.mutated_names.insert(text(o, self.src).to_string());
            }
            "member_expression" => {
                if let Some(p) = o.child_by_field_name("property") {
                    self.mutated_fields.insert(text(p, self.src).to_string());
                }
            }
            "subscript_expression" => {
                // `a['o'].x = …`: any property may be meant.
                self.mutated_fields.insert("*".to_string());
            }
            _ => {}
        }
    }

    pub(super) fn parent(&self, n: Node<'t>) -> Option<Node<'t>> {
        self.parents.get(&n.id()).copied()
    }

    /// The ancestors of `n`, nearest first, each after the child it was reached from
    /// (`(child, parent)`); at most 400 (deeper nesting is not followed).
    pub(super) fn ancestry(&self, n: Node<'t>) -> impl Iterator<Item = (Node<'t>, Node<'t>)> + '_ {
        std::iter::successors(self.parent(n).map(|p| (n, p)), move |&(_, p)| {
            self.parent(p).map(|q| (p, q))
        })
        .take(400)
    }

    /// Records every name an assignment target binds (`x`, `[x, y]`, `{ x }`).
    pub(super) fn assigned_in(&mut self, target: Node<'t>) {
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

    pub(super) fn module_lib(source: &str) -> Option<Lib> {
        match source {
            "ioredis" => Some(Lib::IoRedis),
            "redis" | "@redis/client" | "@node-redis/client" => Some(Lib::NodeRedis),
            _ => None,
        }
    }

    /// Records `local` as the export `name` of `lib` (`default` for the default one).
    pub(super) fn bind_import(&mut self, lib: Lib, name: &str, local: &str) {
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
    pub(super) fn bind_module(&mut self, lib: Lib, local: &str) {
        match lib {
            Lib::IoRedis => {
                // `require('ioredis')` is the Redis class with `.Cluster` on it.
                self.bind_import(lib, "default", local);
                self.bind_namespace(lib, local);
            }
            Lib::NodeRedis => self.bind_namespace(lib, local),
        }
    }

    /// A namespace of the library bound to `local` (`import * as X`).
    fn bind_namespace(&mut self, lib: Lib, local: &str) {
        let set = match lib {
            Lib::IoRedis => &mut self.imports.io_ns,
            Lib::NodeRedis => &mut self.imports.node_ns,
        };
        set.insert(local.to_string());
    }

    /// The Redis library an import statement's `source` names.
    fn source_lib(&self, n: Node<'t>) -> Option<Lib> {
        n.child_by_field_name("source")
            .and_then(|s| string_value(s, self.src))
            .and_then(|s| Self::module_lib(&s))
    }

    pub(super) fn import_statement(&mut self, n: Node<'t>) {
        let Some(lib) = self.source_lib(n) else {
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
                            self.bind_namespace(lib, text(id, self.src));
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
    pub(super) fn import_require(&mut self, n: Node<'t>) {
        let Some(lib) = self.source_lib(n) else {
            return;
        };
        if let Some(id) = n.named_child(0).filter(|c| c.kind() == "identifier") {
            let local = text(id, self.src).to_string();
            self.bind_module(lib, &local);
        }
    }

    /// The library a `require('…')` expression (or `require('…').default`, or
    /// `require('…').Cluster`) loads, and the export it names.
    pub(super) fn required(&self, n: Node<'t>) -> Option<(Lib, Option<String>)> {
        let (spec, export) = self.required_spec(n)?;
        Some((Self::module_lib(&spec)?, export))
    }

    /// The specifier of a `require('…')` expression (or `require('…').x`), and the
    /// export it names.
    pub(super) fn required_spec(&self, n: Node<'t>) -> Option<super::imports::ImportRef> {
        let n = unwrap_expr(n);
        match n.kind() {
            "call_expression" => {
                let f = n.child_by_field_name("function")?;
                if text(f, self.src) != "require" {
                    return None;
                }
                let arg = n.child_by_field_name("arguments")?.named_child(0)?;
                Some((string_value(arg, self.src)?, None))
            }
            "member_expression" => {
                let (spec, inner) = self.required_spec(n.child_by_field_name("object")?)?;
                if inner.is_some() {
                    return None;
                }
                let prop = text(n.child_by_field_name("property")?, self.src).to_string();
                Some((spec, Some(prop)))
            }
            _ => None,
        }
    }

    /// The names a `require` declarator binds, each with the export it names:
    /// `x` gets `export` (`None`: the module itself), `{ a, b: c }` (only when the
    /// whole module is required) gets `a` as `a` and `c` as `b`.
    pub(super) fn required_bindings(
        &self,
        name: Node<'t>,
        export: Option<String>,
    ) -> Vec<(String, Option<String>)> {
        match name.kind() {
            "identifier" => vec![(text(name, self.src).to_string(), export)],
            "object_pattern" if export.is_none() => {
                let mut out = Vec::new();
                let mut c = name.walk();
                for p in name.named_children(&mut c) {
                    match p.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let local = text(p, self.src).to_string();
                            out.push((local.clone(), Some(local)));
                        }
                        "pair_pattern" => {
                            let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            else {
                                continue;
                            };
                            if v.kind() == "identifier" {
                                let key = text(k, self.src).to_string();
                                out.push((text(v, self.src).to_string(), Some(key)));
                            }
                        }
                        _ => {}
                    }
                }
                out
            }
            _ => Vec::new(),
        }
    }

    pub(super) fn require_declarator(&mut self, n: Node<'t>) {
        let (Some(name), Some(value)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ) else {
            return;
        };
        let Some((lib, export)) = self.required(value) else {
            return;
        };
        for (local, export) in self.required_bindings(name, export) {
            match export {
                None => self.bind_module(lib, &local),
                Some(e) => self.bind_import(lib, &e, &local),
            }
        }
    }
}
