//! Names imported from the project's own modules (`import { redis } from './redis'`,
//! `const keys = require('./keys')`), their values through the project analysis
//! (`crate::modules`), and the summary of a module for its importers.

use super::*;
use crate::modules::{
    detach, substitute, Builder, ClassFacts, Fact, ForeignClient, ForeignPrefix, ModuleFacts, PARAM,
};
use std::sync::Arc;

/// A name bound by an import of a module of the project: the specifier and the
/// export (`None`: the whole module).
pub(super) type ImportRef = (String, Option<String>);

/// Whether a module specifier is a path (`./x`, `../x`), not a package name.
pub(super) fn is_path_spec(s: &str) -> bool {
    s == "." || s == ".." || s.starts_with("./") || s.starts_with("../")
}

impl<'t> Analyzer<'t> {
    /// Records `local` as bound to export `name` of the module `spec` (two different
    /// bindings of one name make it unknown).
    pub(super) fn bind_module_import(&mut self, local: &str, spec: &str, name: Option<&str>) {
        let r = (spec.to_string(), name.map(str::to_string));
        match self.module_imports.get(local) {
            Some(Some(old)) if *old != r => {
                self.module_imports.insert(local.to_string(), None);
            }
            Some(_) => {}
            None => {
                self.module_imports.insert(local.to_string(), Some(r));
            }
        }
    }

    /// `import … from './x'` of a module of the project.
    pub(super) fn import_path_statement(&mut self, n: Node<'t>) {
        let Some(spec) = n
            .child_by_field_name("source")
            .and_then(|s| string_value(s, self.src))
            .filter(|s| is_path_spec(s))
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
                        self.bind_module_import(local, &spec, Some("default"));
                    }
                    "namespace_import" => {
                        if let Some(id) = part.named_child(0) {
                            self.bind_module_import(text(id, self.src), &spec, None);
                        }
                    }
                    "named_imports" => {
                        let mut c3 = part.walk();
                        for s in part.named_children(&mut c3) {
                            if s.kind() != "import_specifier" {
                                continue;
                            }
                            let Some(name) = s.child_by_field_name("name") else {
                                continue;
                            };
                            let name = text(name, self.src).to_string();
                            let local = s
                                .child_by_field_name("alias")
                                .map_or(name.clone(), |a| text(a, self.src).to_string());
                            self.bind_module_import(&local, &spec, Some(&name));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `require('./x')` (or `require('./x').y`): the specifier and the export.
    pub(super) fn required_path(&self, n: Node<'t>) -> Option<ImportRef> {
        self.required_spec(n).filter(|(spec, _)| is_path_spec(spec))
    }

    /// `const x = require('./x')`, `const { a, b: c } = require('./x')`.
    pub(super) fn require_path_declarator(&mut self, n: Node<'t>) {
        let (Some(name), Some(value)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ) else {
            return;
        };
        let Some((spec, export)) = self.required_path(value) else {
            return;
        };
        for (local, export) in self.required_bindings(name, export) {
            self.bind_module_import(&local, &spec, export.as_deref());
        }
    }

    /// What the imported name `name` is, through the project analysis.
    pub(super) fn imported_fact(&mut self, name: &str) -> Option<Fact> {
        let (project, module) = self.project?;
        if let Some(f) = self.imported_facts.get(name) {
            return f.clone();
        }
        let (spec, export) = self.module_imports.get(name)?.clone()?;
        let f = project.import(module, &spec, export.as_deref(), &mut self.module_deps);
        self.imported_facts.insert(name.to_string(), f.clone());
        f
    }

    /// The value of an imported name, when the project analysis knows it.
    pub(super) fn imported(&mut self, name: &str, at: Node<'t>) -> Option<Value<'t>> {
        let f = self.imported_fact(name)?;
        Some(self.foreign_value(f, at))
    }

    /// A fact of another module as a value of this file.
    pub(super) fn foreign_value(&mut self, f: Fact, at: Node<'t>) -> Value<'t> {
        match f {
            Fact::Str(t) => Value::Str(t),
            Fact::Num(i) => Value::Num(i),
            Fact::Client(c) => Value::Client(self.foreign_client(&c)),
            Fact::Object(props) => Value::Object(
                props
                    .into_iter()
                    .map(|(k, v)| {
                        let value = self.foreign_value(v, at);
                        (
                            k,
                            Elem {
                                value,
                                node: at,
                                spread: false,
                            },
                        )
                    })
                    .collect(),
            ),
            f => Value::Foreign(f),
        }
    }

    /// A client of another module as a client of this file (a literal prefix is
    /// recorded as the file's own).
    fn foreign_client(&mut self, c: &ForeignClient) -> Client {
        let prefix = match &c.prefix {
            ForeignPrefix::None => Prefix::None,
            ForeignPrefix::Unknown => Prefix::Unknown,
            ForeignPrefix::Opaque => Prefix::Opaque,
            // One literal prefix is one value, however often it is read.
            ForeignPrefix::Lit(t) => match self.prefixes.iter().position(|p| p == t) {
                Some(i) => Prefix::Lit(i),
                None => {
                    self.prefixes.push(t.clone());
                    Prefix::Lit(self.prefixes.len() - 1)
                }
            },
        };
        Client {
            lib: c.lib,
            kind: c.kind,
            prefix,
        }
    }

    /// `x.name` of a value of another module: an export of a module, a field of an
    /// instance.
    pub(super) fn foreign_member(
        &mut self,
        f: &Fact,
        name: &str,
        at: Node<'t>,
    ) -> Option<Value<'t>> {
        let fact = match f {
            Fact::Module(m) => m.named.get(name)?.clone(),
            Fact::Instance(c) => c.fields.get(name)?.clone(),
            _ => return None,
        };
        Some(self.foreign_value(fact, at))
    }

    /// A call of a value of another module (`f(…)`, `x.m(…)` with `x.m` given as
    /// `(x, Some("m"))`): a key builder's key, a factory's client.
    pub(super) fn foreign_call(
        &mut self,
        f: &Fact,
        method: Option<&str>,
        call: Node<'t>,
    ) -> Value<'t> {
        let target = match (f, method) {
            (f, None) => f.clone(),
            (Fact::Module(m), Some(name)) => match m.named.get(name) {
                Some(x) => x.clone(),
                None => return Value::Unknown,
            },
            (Fact::Instance(c), Some(name)) => match c.methods.get(name) {
                Some(b) => Fact::Builder(b.clone()),
                None => return Value::Unknown,
            },
            _ => return Value::Unknown,
        };
        match target {
            Fact::Factory(c) => Value::Client(self.foreign_client(&c)),
            Fact::Builder(b) => {
                let args = self.args(call);
                if args.iter().any(|a| a.kind() == "spread_element") {
                    return Value::Unknown;
                }
                let tpls: Vec<Tpl> = args
                    .iter()
                    .map(|&a| {
                        let v = self.eval(a);
                        self.as_tpl(v, a)
                    })
                    .collect();
                substitute(&b, &tpls).map_or(Value::Unknown, Value::Str)
            }
            _ => Value::Unknown,
        }
    }

    /// An instance of an imported class named by a type annotation (`connection:
    /// Connection`).
    pub(super) fn foreign_typed(&mut self, ty: Node<'t>) -> Option<Value<'t>> {
        let t = text(ty, self.src).trim_start_matches(':').trim();
        let ok = !t.is_empty()
            && t.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if !ok || !self.module_imports.contains_key(t) {
            return None;
        }
        match self.imported_fact(t)? {
            Fact::Class(c) => Some(Value::Foreign(Fact::Instance(c))),
            Fact::Shape(members) => {
                // Its members share one head the caller gives, named in findings.
                for (_, m) in &members {
                    if let Fact::Str(s) = m {
                        if let Some(TPart::Hole(h)) = s.parts.first() {
                            let origin = format!("the caller's head of every key of `{t}`");
                            if !self
                                .model
                                .prefix_origins
                                .iter()
                                .any(|(b, _)| *b == h.binding)
                            {
                                self.model.prefix_origins.push((h.binding.clone(), origin));
                            }
                            break;
                        }
                    }
                }
                Some(self.foreign_value(Fact::Object(members), ty))
            }
            _ => None,
        }
    }

    /// `new X(…)` of an imported class.
    pub(super) fn foreign_new(&mut self, ctor: Node<'t>) -> Option<Value<'t>> {
        let f = match ctor.kind() {
            "identifier" => {
                let name = text(ctor, self.src);
                if !matches!(self.lookup(name, ctor), Decl::Free) {
                    return None;
                }
                self.imported_fact(name)?
            }
            "member_expression" => {
                let obj = ctor.child_by_field_name("object")?;
                let prop = text(ctor.child_by_field_name("property")?, self.src);
                match self.eval(obj) {
                    Value::Foreign(Fact::Module(m)) => m.named.get(prop)?.clone(),
                    _ => return None,
                }
            }
            _ => return None,
        };
        match f {
            Fact::Class(c) => Some(Value::Foreign(Fact::Instance(c))),
            _ => None,
        }
    }

    // ---- The summary of this file for its importers. ----

    /// The facts this file exports, for the module `module`.
    pub(crate) fn summarise(mut self, module: &str) -> ModuleFacts {
        self.index();
        let mut out = ModuleFacts::default();
        let root = self.root;
        let mut c = root.walk();
        let stmts: Vec<Node<'t>> = root.named_children(&mut c).collect();
        for s in stmts {
            match s.kind() {
                "export_statement" => self.summarise_export(s, module, &mut out),
                "expression_statement" => {
                    let Some((l, r)) = assignment_statement(s) else {
                        continue;
                    };
                    let target = text(l, self.src).replace(char::is_whitespace, "");
                    if target == "module.exports" {
                        let r = unwrap_expr(r);
                        if r.kind() == "object" {
                            let mut c2 = r.walk();
                            let props: Vec<Node<'t>> = r.named_children(&mut c2).collect();
                            for p in props {
                                let (k, v) = match p.kind() {
                                    "pair" => match (
                                        p.child_by_field_name("key"),
                                        p.child_by_field_name("value"),
                                    ) {
                                        (Some(k), Some(v)) if k.kind() == "property_identifier" => {
                                            (text(k, self.src).to_string(), v)
                                        }
                                        _ => continue,
                                    },
                                    "shorthand_property_identifier" => {
                                        (text(p, self.src).to_string(), p)
                                    }
                                    _ => continue,
                                };
                                if let Some(f) = self.fact_of(v, module) {
                                    out.named.insert(k, f);
                                }
                            }
                        } else {
                            out.whole = self.fact_of(r, module);
                        }
                    } else if let Some(k) = target
                        .strip_prefix("module.exports.")
                        .or_else(|| target.strip_prefix("exports."))
                    {
                        if k.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
                        {
                            if let Some(f) = self.fact_of(r, module) {
                                out.named.insert(k.to_string(), f);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn summarise_export(&mut self, s: Node<'t>, module: &str, out: &mut ModuleFacts) {
        let source = s
            .child_by_field_name("source")
            .and_then(|x| string_value(x, self.src));
        if let Some(d) = s.child_by_field_name("declaration") {
            match d.kind() {
                "lexical_declaration" | "variable_declaration" => {
                    let is_const = d.child(0).is_some_and(|k| text(k, self.src) == "const");
                    let mut c = d.walk();
                    let decls: Vec<Node<'t>> = d.named_children(&mut c).collect();
                    for v in decls {
                        let (Some(n), Some(val)) = (
                            v.child_by_field_name("name"),
                            v.child_by_field_name("value"),
                        ) else {
                            continue;
                        };
                        let name = text(n, self.src).to_string();
                        if n.kind() != "identifier" || (!is_const && self.assigned.contains(&name))
                        {
                            continue;
                        }
                        if let Some(f) = self.fact_of(val, module) {
                            out.named.insert(name, f);
                        }
                    }
                }
                "function_declaration" | "class_declaration" | "abstract_class_declaration" => {
                    if let Some(n) = d.child_by_field_name("name") {
                        if let Some(f) = self.fact_of_decl(d, module) {
                            out.named.insert(text(n, self.src).to_string(), f);
                        }
                    }
                }
                // A type whose values one function of the module makes.
                "type_alias_declaration" | "interface_declaration" => {
                    if let Some(n) = d.child_by_field_name("name") {
                        let name = text(n, self.src).to_string();
                        if let Some(f) = self.key_map_type(&name, module) {
                            out.named.insert(name, f);
                        }
                    }
                }
                _ => {}
            }
            return;
        }
        // `export default expr`.
        if let Some(v) = s.child_by_field_name("value") {
            if let Some(f) = self.fact_of(v, module) {
                out.named.insert("default".into(), f);
            }
            return;
        }
        let mut c = s.walk();
        let children: Vec<Node<'t>> = s.children(&mut c).collect();
        for ch in children {
            match ch.kind() {
                "export_clause" => {
                    let mut c2 = ch.walk();
                    let specs: Vec<Node<'t>> = ch.named_children(&mut c2).collect();
                    for sp in specs {
                        if sp.kind() != "export_specifier" {
                            continue;
                        }
                        let Some(name) = sp.child_by_field_name("name") else {
                            continue;
                        };
                        let name = text(name, self.src).to_string();
                        let alias = sp
                            .child_by_field_name("alias")
                            .map_or(name.clone(), |a| text(a, self.src).to_string());
                        match &source {
                            Some(spec) if is_path_spec(spec) => {
                                out.from.insert(alias, (spec.clone(), name));
                            }
                            Some(_) => {}
                            None => {
                                if let Some(f) = self.fact_of_name(&name, sp, module) {
                                    out.named.insert(alias, f);
                                }
                            }
                        }
                    }
                }
                "*" => {
                    if let Some(spec) = source.as_ref().filter(|s| is_path_spec(s)) {
                        let namespaced = s
                            .named_children(&mut s.walk())
                            .any(|x| x.kind() == "namespace_export");
                        if !namespaced {
                            out.star.push(spec.clone());
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The fact of the declaration the name `name` has at `at` (top level).
    fn fact_of_name(&mut self, name: &str, at: Node<'t>, module: &str) -> Option<Fact> {
        match self.lookup(name, at) {
            Decl::Func(d) => self.fact_of_decl(d, module),
            Decl::Value(v) => self.fact_of(v, module),
            Decl::Other => {
                // A class declared at the top level.
                let mut c = self.root.walk();
                let decls: Vec<Node<'t>> = self
                    .root
                    .named_children(&mut c)
                    .filter(|s| {
                        matches!(s.kind(), "class_declaration" | "abstract_class_declaration")
                            && s.child_by_field_name("name")
                                .is_some_and(|n| text(n, self.src) == name)
                    })
                    .collect();
                match decls[..] {
                    [d] => self.fact_of_decl(d, module),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn fact_of_decl(&mut self, d: Node<'t>, module: &str) -> Option<Fact> {
        match d.kind() {
            "class_declaration" | "abstract_class_declaration" | "class" => {
                Some(Fact::Class(Arc::new(self.class_facts(d, module))))
            }
            k if is_function(k) => self.function_fact(d, module),
            _ => None,
        }
    }

    /// The fact of an exported expression.
    fn fact_of(&mut self, n: Node<'t>, module: &str) -> Option<Fact> {
        let n = unwrap_expr(n);
        match n.kind() {
            "identifier" | "shorthand_property_identifier" => {
                let name = text(n, self.src).to_string();
                self.fact_of_name(&name, n, module)
            }
            "class" => self.fact_of_decl(n, module),
            k if is_function(k) => self.function_fact(n, module),
            _ => {
                let v = self.eval(n);
                self.value_fact(v, module, 0)
            }
        }
    }

    fn value_fact(&mut self, v: Value<'t>, module: &str, depth: usize) -> Option<Fact> {
        match v {
            Value::Str(t) => Some(Fact::Str(detach(&t, module))),
            Value::Num(i) => Some(Fact::Num(i)),
            Value::Client(c) => Some(Fact::Client(self.client_fact(c, module))),
            Value::Object(props) if depth < 4 => Some(Fact::Object(
                props
                    .into_iter()
                    .filter_map(|(k, e)| Some((k, self.value_fact(e.value, module, depth + 1)?)))
                    .collect(),
            )),
            _ => None,
        }
    }

    fn client_fact(&self, c: Client, module: &str) -> ForeignClient {
        ForeignClient {
            lib: c.lib,
            kind: c.kind,
            prefix: match c.prefix {
                Prefix::None => ForeignPrefix::None,
                Prefix::Unknown => ForeignPrefix::Unknown,
                Prefix::Opaque => ForeignPrefix::Opaque,
                Prefix::Lit(i) => match self.prefixes.get(i) {
                    Some(t) => ForeignPrefix::Lit(detach(t, module)),
                    None => ForeignPrefix::Opaque,
                },
            },
        }
    }

    /// `expr` evaluated with each of `params` (plain identifiers, or TypeScript
    /// `required_parameter`s around one) bound to the caller's value in its place
    /// (`{PARAM}i`), the bindings undone afterwards; `None`, with nothing bound, when
    /// a parameter is of another form.
    pub(super) fn eval_with_param_holes(
        &mut self,
        params: &[Node<'t>],
        expr: Node<'t>,
    ) -> Option<Value<'t>> {
        let mut names = Vec::new();
        for p in params {
            let id = match p.kind() {
                "identifier" => *p,
                "required_parameter" => p
                    .child_by_field_name("pattern")
                    .filter(|x| x.kind() == "identifier")?,
                _ => return None,
            };
            names.push(text(id, self.src).to_string());
        }
        let mut saved = Vec::new();
        for (i, (p, name)) in params.iter().zip(&names).enumerate() {
            let hole = Tpl::hole(HoleInfo {
                label: name.clone(),
                binding: format!("{PARAM}{i}"),
                span: None,
                keylike: is_keylike_label(name),
            });
            saved.push((p.id(), self.env.insert(p.id(), Value::Str(hole))));
        }
        let v = self.eval(expr);
        for (id, old) in saved {
            match old {
                Some(v) => self.env.insert(id, v),
                None => self.env.remove(&id),
            };
        }
        Some(v)
    }

    /// A function of this module: a key builder or a client factory.
    fn function_fact(&mut self, func: Node<'t>, module: &str) -> Option<Fact> {
        let plain = {
            let mut c = func.walk();
            let p = func
                .children(&mut c)
                .all(|k| !matches!(k.kind(), "async" | "*" | "get" | "set" | "static"));
            p
        };
        if !plain {
            return None;
        }
        let body = func.child_by_field_name("body")?;
        let expr = lone_statement(body, "return_statement")?;
        let params: Vec<Node<'t>> = match func.child_by_field_name("parameter") {
            Some(p) => vec![p],
            None => {
                let ps = func.child_by_field_name("parameters")?;
                let v: Vec<Node<'t>> = named_kids(ps);
                v
            }
        };
        match self.eval_with_param_holes(&params, expr)? {
            Value::Str(t) => Some(Fact::Builder(Arc::new(Builder {
                params: params.len(),
                body: detach(&t, module),
                joined: None,
            }))),
            Value::Client(c) => Some(Fact::Factory(self.client_fact(c, module))),
            _ => None,
        }
    }

    /// The fields that hold clients and the key-builder methods of a class.
    fn class_facts(&mut self, class: Node<'t>, module: &str) -> ClassFacts {
        let mut out = ClassFacts::default();
        let Some(body) = class.child_by_field_name("body") else {
            return out;
        };
        // Every member the class gives a value: declared, parameter properties,
        // `this.x = …`.
        let cname = class.child_by_field_name("name").map(|n| text(n, self.src));
        let subclassed = cname.is_some_and(|c| self.has_subclass(c));
        let names = self.member_names(class);
        let sites = self.member_sites(class);
        for name in names {
            if let Some(Value::Client(c)) = self.class_member(class, &name) {
                out.fields
                    .insert(name, Fact::Client(self.client_fact(c, module)));
                continue;
            }
            // A key or a prefix the class gives once (`this.key = \`q:${name}\``),
            // when the module assigns it nowhere else and never its properties.
            let once = match sites.as_ref().and_then(|s| s.get(&name)).map(|v| &v[..]) {
                Some([super::clients::Site::Value(v) | super::clients::Site::Assign(v)]) => {
                    Some(*v)
                }
                _ => None,
            };
            // (A subclass of the module may give it another value.)
            let untouched = !subclassed
                && !self.assigned_fields.contains(&name)
                && !self.mutated_fields.contains(&name)
                && !self.mutated_fields.contains("*");
            if let (Some(v), true) = (once, untouched) {
                let value = self.eval(v);
                if let Some(f @ (Fact::Str(_) | Fact::Object(_))) =
                    self.value_fact(value, module, 0)
                {
                    out.fields.insert(name, f);
                }
            }
        }
        // Plain instance methods that build keys.
        let mut c = body.walk();
        let methods: Vec<Node<'t>> = body
            .named_children(&mut c)
            .filter(|d| d.kind() == "method_definition")
            .collect();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for m in &methods {
            if let Some(n) = m.child_by_field_name("name") {
                *seen.entry(text(n, self.src).to_string()).or_default() += 1;
            }
        }
        for m in methods {
            let Some(n) = m.child_by_field_name("name") else {
                continue;
            };
            let name = text(n, self.src).to_string();
            if name == "constructor" || seen.get(&name) != Some(&1) {
                continue;
            }
            if subclassed && cname.is_some_and(|c| self.overridden_in_subclass(c, &name)) {
                continue;
            }
            // `get key() { return \`…\`; }`: read as a field.
            if let Some(f) = self.getter_fact(m, module) {
                out.fields.entry(name).or_insert(f);
                continue;
            }
            if let Some(Fact::Builder(b)) = self.function_fact(m, module) {
                out.methods.insert(name, b);
            } else if let Some(b) = self.joined_builder(m, module) {
                out.methods.insert(name, Arc::new(b));
            }
        }
        out
    }
}

impl<'t> Analyzer<'t> {
    /// `require('./x')` as a value: the whole module.
    pub(super) fn imported_module(&mut self, spec: &str, at: Node<'t>) -> Option<Value<'t>> {
        let (project, module) = self.project?;
        let f = project.import(module, spec, None, &mut self.module_deps)?;
        Some(self.foreign_value(f, at))
    }
}

impl<'t> Analyzer<'t> {
    /// Whether a class of the file extends the class named `class` (one walk).
    pub(super) fn has_subclass(&self, class: &str) -> bool {
        let mut stack = vec![self.root];
        let mut c = self.root.walk();
        while let Some(n) = stack.pop() {
            if n.kind() == "class_heritage" {
                let names = text(n, self.src)
                    .split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
                    .any(|w| w == class);
                if names {
                    return true;
                }
                continue;
            }
            stack.extend(n.named_children(&mut c));
        }
        false
    }
}

impl<'t> Analyzer<'t> {
    /// A getter whose one `return` is a string or an object of strings.
    fn getter_fact(&mut self, m: Node<'t>, module: &str) -> Option<Fact> {
        let mut c = m.walk();
        let kinds: Vec<&str> = m.children(&mut c).map(|k| k.kind()).collect();
        if !kinds.contains(&"get") || kinds.contains(&"static") {
            return None;
        }
        let expr = lone_statement(m.child_by_field_name("body")?, "return_statement")?;
        let v = self.eval(expr);
        match self.value_fact(v, module, 0)? {
            f @ (Fact::Str(_) | Fact::Object(_)) => Some(f),
            _ => None,
        }
    }
}
