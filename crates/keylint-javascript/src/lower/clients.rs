//! Clients: constructors and their `keyPrefix`, declared types, class members and
//! variables assigned clients later.

use super::*;

impl<'t> Analyzer<'t> {
    /// A variable declared once and assigned later (`let client; … client =
    /// createClient()` in a test's `beforeEach`): a client when its initial value (if
    /// any, besides `null`) and every value assigned to it are clients of one library.
    pub(super) fn assigned_client(
        &mut self,
        name: &str,
        decl: Node<'t>,
        init: Option<Node<'t>>,
    ) -> Value<'t> {
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
                    o.prefix = o.prefix.either(c.prefix);
                    o
                }
            });
        }
        let v = out.map(Value::Client);
        self.member_cache.insert(key, v.clone());
        v.unwrap_or(Value::Unknown)
    }

    /// A value known by its declared type: a client.
    pub(super) fn typed(&mut self, decl: Node<'t>) -> Value<'t> {
        let Some(ty) = decl.child_by_field_name("type") else {
            return Value::Unknown;
        };
        match self.client_type(ty) {
            Some(c) => Value::Client(c),
            None => self.foreign_typed(ty).unwrap_or(Value::Unknown),
        }
    }

    /// The client a type annotation names: one client type, or a union of client
    /// types of one library.
    pub(super) fn client_type(&self, ty: Node<'t>) -> Option<Client> {
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

    pub(super) fn new_client(&mut self, n: Node<'t>) -> Value<'t> {
        let Some(ctor) = n.child_by_field_name("constructor") else {
            return Value::Unknown;
        };
        if let Some(v) = self.foreign_new(ctor) {
            return v;
        }
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
    pub(super) fn ctor_prefix(&mut self, n: Node<'t>, lib: Lib) -> Prefix {
        // node-redis 4 and 5 have no keyPrefix option.
        if lib == Lib::NodeRedis && matches!(self.options.node_redis_major, Some(4 | 5)) {
            return Prefix::None;
        }
        let Some(args) = n.child_by_field_name("arguments") else {
            return Prefix::None;
        };
        let args: Vec<Node<'t>> = named_kids(args);
        let mut found = Prefix::None;
        for a in args {
            match self.options_prefix(a, lib, 0) {
                Prefix::None => {}
                Prefix::Unknown => return unknown_after(found),
                p => found = p,
            }
        }
        found
    }

    /// The `keyPrefix` an argument of a client constructor sets.
    pub(super) fn options_prefix(&mut self, a: Node<'t>, lib: Lib, depth: usize) -> Prefix {
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
                        return unknown_after(found);
                    }
                    match self.options_prefix(e, lib, depth + 1) {
                        Prefix::None => {}
                        Prefix::Unknown => return unknown_after(found),
                        p => found = p,
                    }
                }
                found
            }
            "object" => self.object_prefix(a, lib, depth),
            // A connection URL: ioredis reads options from its query string.
            "string" | "template_string" | "binary_expression" => self.url_prefix(a, lib),
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

    /// The `keyPrefix` an options object sets, itself or in the options it nests.
    fn object_prefix(&mut self, a: Node<'t>, lib: Lib, depth: usize) -> Prefix {
        let mut c = a.walk();
        let props: Vec<Node<'t>> = a.named_children(&mut c).collect();
        let mut found = Prefix::None;
        for p in props {
            match p.kind() {
                "pair" => {
                    let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    else {
                        return unknown_after(found);
                    };
                    let key = match k.kind() {
                        "property_identifier" => text(k, self.src).to_string(),
                        "string" => string_value(k, self.src).unwrap_or_default(),
                        _ => return unknown_after(found),
                    };
                    match key.as_str() {
                        "keyPrefix" => match self.eval(v) {
                            Value::Str(t) => {
                                self.prefixes.push(t);
                                found = Prefix::Lit(self.prefixes.len() - 1);
                            }
                            _ => return unknown_after(found),
                        },
                        // Options nested in options (a cluster's options for
                        // its node clients).
                        "redisOptions" | "defaults" | "options" | "rootNodes" => {
                            match self.options_prefix(v, lib, depth + 1) {
                                Prefix::None => {}
                                Prefix::Unknown => return unknown_after(found),
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
                        return unknown_after(found);
                    }
                }
                "comment" => {}
                _ => return unknown_after(found),
            }
        }
        found
    }

    /// The `keyPrefix` of a connection URL: ioredis reads options from its query
    /// string.
    fn url_prefix(&mut self, a: Node<'t>, lib: Lib) -> Prefix {
        match self.eval(a) {
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
                // A prefix in the query string, percent-encoded: not read.
                if lib == Lib::IoRedis
                    && literal
                        .windows(9)
                        .any(|w| w.eq_ignore_ascii_case(b"keyPrefix"))
                {
                    return Prefix::Opaque;
                }
                let holes = t.as_bytes().is_none();
                if lib == Lib::IoRedis && (has_query || (holes && !url_holes_before_path(&t))) {
                    Prefix::Unknown
                } else {
                    Prefix::None
                }
            }
            _ => Prefix::Unknown,
        }
    }

    /// `this.x` and `obj.x`.
    pub(super) fn member(&mut self, n: Node<'t>) -> Value<'t> {
        let (Some(obj), Some(prop)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("property"),
        ) else {
            return Value::Unknown;
        };
        let name = text(prop, self.src).to_string();
        if obj.kind() == "this" {
            let client = match self.class_of(n) {
                Some(class) => {
                    let key = (class.id(), name.clone());
                    match self.member_cache.get(&key) {
                        Some(v) => v.clone(),
                        None => {
                            // Guard against `this.a = this.a`.
                            self.member_cache.insert(key.clone(), None);
                            let v = self.class_member(class, &name);
                            self.member_cache.insert(key, v.clone());
                            v
                        }
                    }
                }
                None => None,
            };
            return client
                .or_else(|| self.this_object(n, &name))
                .unwrap_or(Value::Unknown);
        }
        self.property(obj, &name).unwrap_or(Value::Unknown)
    }

    /// The class whose `this` a node sees: an ES class (not through a plain
    /// `function`), or the constructor of a prototype-style class when the node is in
    /// it or in one of its `X.prototype.name = function …` methods.
    pub(super) fn class_of(&mut self, n: Node<'t>) -> Option<Node<'t>> {
        match self.this_owner(n)? {
            this::Owner::Class(c) => Some(c),
            this::Owner::Proto(x) => self.prototype_class(x, n),
        }
    }

    /// The values an expression given to a member may have: both sides of `a || b`
    /// and `a ?? b`; a value the code does not show ([`Value::Unknown`]) only when
    /// it is read from a parameter (`client`, `opts.client`, `options.redis.client`),
    /// anything else unknown (`new Map()`, `makeStore()`, a free name) as
    /// [`Value::Object`], which no client merges with.
    fn member_values(&mut self, r: Node<'t>, out: &mut Vec<Value<'t>>, depth: usize) {
        let r = unwrap_expr(r);
        if r.kind() == "binary_expression" && depth < 4 {
            let op = r.child_by_field_name("operator").map(|o| text(o, self.src));
            if let (Some("||" | "??"), Some(a), Some(b)) = (
                op,
                r.child_by_field_name("left"),
                r.child_by_field_name("right"),
            ) {
                self.member_values(a, out, depth + 1);
                self.member_values(b, out, depth + 1);
                return;
            }
        }
        match self.eval(r) {
            Value::Unknown if !self.read_from_parameter(r) => out.push(Value::Object(Vec::new())),
            v => out.push(v),
        }
    }

    /// Whether `n` is a parameter, or a property read from a parameter or from
    /// options merged by a call (`const opts = _.extend({…}, options)`; `opts.client`).
    fn read_from_parameter(&mut self, n: Node<'t>) -> bool {
        let mut cur = unwrap_expr(n);
        let mut property = false;
        for _ in 0..8 {
            match cur.kind() {
                "member_expression" => match cur.child_by_field_name("object") {
                    Some(o) => {
                        cur = unwrap_expr(o);
                        property = true;
                    }
                    None => return false,
                },
                "identifier" => {
                    let name = text(cur, self.src).to_string();
                    return match self.lookup(&name, cur) {
                        Decl::Param(_) => true,
                        // A parameter with a default value (`options = {}`).
                        Decl::Other => self.defaulted_param(&name, cur),
                        Decl::Value(v) => property && unwrap_expr(v).kind() == "call_expression",
                        _ => false,
                    };
                }
                _ => return false,
            }
        }
        false
    }

    /// The constructor `function X(…) { … }` of a prototype-style class whose `this`
    /// is read at `at` ([`Self::this_owner`]), when the file gives `X.prototype` at
    /// least one method (else `this` in a plain function is not known).
    fn prototype_class(&mut self, x: &str, at: Node<'t>) -> Option<Node<'t>> {
        if self.prototypes.get(x).is_none_or(|m| m.is_empty()) {
            return None;
        }
        match self.lookup(x, at) {
            Decl::Func(d) if d.kind() == "function_declaration" => Some(d),
            _ => None,
        }
    }

    /// Whether `name` at `at` is a parameter with a default value of the nearest
    /// function that has a parameter of that name.
    fn defaulted_param(&self, name: &str, at: Node<'t>) -> bool {
        let mut cur = at;
        while let Some(f) = self.function_of(cur) {
            if let Some(params) = f.child_by_field_name("parameters") {
                let mut c = params.walk();
                for p in params.named_children(&mut c) {
                    let left = match p.kind() {
                        "assignment_pattern" => p.child_by_field_name("left"),
                        "identifier" | "required_parameter" | "optional_parameter" => {
                            if self.pattern_mentions(p, name) {
                                return false;
                            }
                            None
                        }
                        _ => None,
                    };
                    if let Some(l) = left {
                        if l.kind() == "identifier" && text(l, self.src) == name {
                            return true;
                        }
                        if self.pattern_mentions(l, name) {
                            return false;
                        }
                    }
                }
            }
            cur = f;
        }
        false
    }

    /// Where a class gives its members values: each field definition, constructor
    /// parameter property and `this.x = …`, by member name, over the class body (and,
    /// for a prototype-style class, the functions assigned to its prototype). One
    /// walk per class.
    pub(super) fn member_sites(&mut self, class: Node<'t>) -> Option<std::rc::Rc<MemberSites<'t>>> {
        if let Some(s) = self.member_sites.get(&class.id()) {
            return Some(s.clone());
        }
        let body = class.child_by_field_name("body")?;
        // A prototype-style class: the constructor and its prototype's methods.
        let mut roots = vec![body];
        if class.kind() == "function_declaration" {
            let cname = text(class.child_by_field_name("name")?, self.src);
            let methods = self.prototypes.get(cname).cloned().unwrap_or_default();
            for m in methods {
                // Only the methods of this declaration (not of a shadowing one).
                let Some(target) = self
                    .parent(m)
                    .and_then(|a| a.child_by_field_name("left"))
                    .and_then(|l| prototype_target(l, self.src))
                else {
                    continue;
                };
                match self.lookup(cname, target) {
                    Decl::Func(d) if d == class => {}
                    _ => continue,
                }
                roots.extend(m.child_by_field_name("body"));
            }
        }
        let mut sites: MemberSites<'t> = HashMap::new();
        let mut stack = roots.clone();
        let mut cursor = body.walk();
        while let Some(n) = stack.pop() {
            match n.kind() {
                "class_declaration"
                | "class"
                | "function_declaration"
                | "function_expression"
                | "function"
                    if !roots.contains(&n) =>
                {
                    continue;
                }
                "field_definition" | "public_field_definition" => {
                    let prop = n
                        .child_by_field_name("property")
                        .or_else(|| n.child_by_field_name("name"));
                    // The value given, or else the type declared.
                    let site = match (
                        n.child_by_field_name("value"),
                        n.child_by_field_name("type"),
                    ) {
                        (Some(v), _) => Some(Site::Value(v)),
                        (None, Some(ty)) => Some(Site::Type(ty)),
                        (None, None) => None,
                    };
                    if let (Some(p), Some(site)) = (prop, site) {
                        let name = text(p, self.src).to_string();
                        sites.entry(name).or_default().push(site);
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
                                if let (true, Some(x)) = (has_modifier, pat) {
                                    let name = text(x, self.src).to_string();
                                    sites.entry(name).or_default().push(Site::Param(p));
                                }
                            }
                        }
                    }
                }
                "assignment_expression" => {
                    let left = n.child_by_field_name("left");
                    let prop = left
                        .filter(|l| {
                            l.kind() == "member_expression"
                                && l.child_by_field_name("object")
                                    .is_some_and(|o| o.kind() == "this")
                        })
                        .and_then(|l| l.child_by_field_name("property"));
                    if let (Some(p), Some(r)) = (prop, n.child_by_field_name("right")) {
                        let name = text(p, self.src).to_string();
                        sites.entry(name).or_default().push(Site::Assign(r));
                    }
                }
                _ => {}
            }
            for c in n.named_children(&mut cursor) {
                stack.push(c);
            }
        }
        // TypeScript merges an interface of the class's name into the class: its
        // property signatures are members of the instance, with their types.
        if class.kind() == "class_declaration" {
            if let Some(cname) = class.child_by_field_name("name") {
                let cname = text(cname, self.src);
                for sig in self.merged_interface_members(cname) {
                    let (Some(p), Some(ty)) = (
                        sig.child_by_field_name("name"),
                        sig.child_by_field_name("type"),
                    ) else {
                        continue;
                    };
                    let name = text(p, self.src).to_string();
                    sites.entry(name).or_default().push(Site::Type(ty));
                }
            }
        }
        let sites = std::rc::Rc::new(sites);
        self.member_sites.insert(class.id(), sites.clone());
        Some(sites)
    }

    /// The property signatures of the file's top-level interfaces named `name`
    /// (`export declare interface Worker { connection: Connection; … }` beside
    /// `class Worker`).
    fn merged_interface_members(&self, name: &str) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let mut c = self.root.walk();
        for top in self.root.named_children(&mut c) {
            let decl = match top.kind() {
                "export_statement" => top.child_by_field_name("declaration"),
                _ => Some(top),
            };
            let Some(decl) = decl else { continue };
            // `declare interface X {…}` is an ambient declaration around it.
            let decl = if decl.kind() == "ambient_declaration" {
                let mut c2 = decl.walk();
                let inner = decl
                    .named_children(&mut c2)
                    .find(|d| d.kind() == "interface_declaration");
                match inner {
                    Some(d) => d,
                    None => continue,
                }
            } else {
                decl
            };
            if decl.kind() != "interface_declaration"
                || decl
                    .child_by_field_name("name")
                    .is_none_or(|n| text(n, self.src) != name)
            {
                continue;
            }
            let Some(body) = decl.child_by_field_name("body") else {
                continue;
            };
            let mut c3 = body.walk();
            out.extend(
                body.named_children(&mut c3)
                    .filter(|m| m.kind() == "property_signature"),
            );
        }
        out
    }

    /// The names of the members a class gives values to, sorted.
    pub(super) fn member_names(&mut self, class: Node<'t>) -> Vec<String> {
        let mut names: Vec<String> = self
            .member_sites(class)
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// What `this.name` holds in every method of `class`: a client when every value
    /// given to it is a client of one library (or null).
    pub(super) fn class_member(&mut self, class: Node<'t>, name: &str) -> Option<Value<'t>> {
        let sites = self.member_sites(class)?;
        let mut values: Vec<Value<'t>> = Vec::new();
        // Declared as an instance of a class of another module: TypeScript checks
        // that every value given is one, so a value the code does not show is too.
        let mut declared_instance = false;
        for site in sites.get(name).into_iter().flatten() {
            match *site {
                Site::Value(v) => {
                    let v = self.eval(v);
                    values.push(v);
                }
                Site::Type(ty) => {
                    if let Some(c) = self.client_type(ty) {
                        values.push(Value::Client(c));
                    } else if let Some(v) = self.foreign_typed(ty) {
                        declared_instance = true;
                        values.push(v);
                    }
                }
                Site::Param(p) => {
                    let v = self.typed(p);
                    values.push(v);
                }
                Site::Assign(r) => self.member_values(r, &mut values, 0),
            }
        }
        values.retain(|v| !matches!(v, Value::Null));
        if declared_instance {
            for v in values.iter_mut() {
                if matches!(v, Value::Object(props) if props.is_empty()) {
                    *v = Value::Unknown;
                }
            }
        }
        if let Some(v) = same_instance(&values) {
            return Some(v);
        }
        merge_clients(&values).map(Value::Client)
    }
}

/// `X` of an assignment target `X.prototype.name`.
pub(super) fn prototype_target<'t>(left: Node<'t>, src: &str) -> Option<Node<'t>> {
    if left.kind() != "member_expression" {
        return None;
    }
    let proto = left.child_by_field_name("object")?;
    if proto.kind() != "member_expression"
        || proto
            .child_by_field_name("property")
            .is_none_or(|p| text(p, src) != "prototype")
    {
        return None;
    }
    proto
        .child_by_field_name("object")
        .filter(|x| x.kind() == "identifier")
}

/// The client a member holds when these are all the values given to it: clients of
/// one library, some of them perhaps values the code does not show (`this.redis =
/// opts.client` beside `this.redis = createClient(opts)`: the same code serves both,
/// so the other is taken as a client of that library too, of unknown kind and
/// prefix). Anything else (a string, an array, clients of both libraries), or no
/// client at all, and the member is not known. A string field may be set from
/// outside the class (`queue.prefix = …`): it stays unknown.
fn merge_clients(values: &[Value<'_>]) -> Option<Client> {
    let mut out: Option<Client> = None;
    let mut unseen = false;
    for v in values {
        match v {
            Value::Client(d) => {
                out = Some(match out {
                    None => *d,
                    Some(o) if o.lib != d.lib => return None,
                    Some(mut o) => {
                        if d.kind != o.kind {
                            o.kind = Kind::Unknown;
                        }
                        o.prefix = o.prefix.either(d.prefix);
                        o
                    }
                });
            }
            Value::Unknown => unseen = true,
            _ => return None,
        }
    }
    let mut out = out?;
    if unseen {
        out.kind = Kind::Unknown;
        out.prefix = out.prefix.either(Prefix::Unknown);
    }
    Some(out)
}

/// What an argument whose `keyPrefix` cannot be seen makes of the prefix found so
/// far: one unknown value, or, after a prefix already seen, no assumption at all.
fn unknown_after(found: Prefix) -> Prefix {
    if found == Prefix::None {
        Prefix::Unknown
    } else {
        Prefix::Opaque
    }
}

/// Where a class gives a member a value.
#[derive(Debug, Clone, Copy)]
pub(super) enum Site<'t> {
    /// A field definition's value.
    Value(Node<'t>),
    /// A field definition's type, without a value.
    Type(Node<'t>),
    /// A constructor parameter property.
    Param(Node<'t>),
    /// The right side of `this.name = …`.
    Assign(Node<'t>),
}

/// The sites of a class's members, by name.
pub(super) type MemberSites<'t> = HashMap<String, Vec<Site<'t>>>;

/// One instance of a class of another module, when every value is one of that
/// class (`this.connection = new Connection(…)`, `connection: Connection`) or a value
/// read from a parameter (`this.connection = opts.connection`), as for clients.
fn same_instance<'t>(values: &[Value<'t>]) -> Option<Value<'t>> {
    let mut out: Option<&std::sync::Arc<crate::modules::ClassFacts>> = None;
    for v in values {
        match v {
            Value::Foreign(crate::modules::Fact::Instance(c)) => match out {
                Some(o) if !std::sync::Arc::ptr_eq(o, c) => return None,
                _ => out = Some(c),
            },
            Value::Unknown => {}
            _ => return None,
        }
    }
    out.map(|c| Value::Foreign(crate::modules::Fact::Instance(c.clone())))
}
