//! Registries of scripts: a dict that holds nothing but registered scripts, however
//! the project fills it.
//!
//! ```python
//! def _eval_script(self, name, keys=None, args=None):
//!     if name not in self._scripts:
//!         with open(path_of(name)) as f:
//!             self._scripts[name] = self.redis.register_script(f.read())
//!     return self._scripts[name](keys=keys, args=args)
//! ```
//!
//! `self._scripts[name]` is a script whatever the name: every value that any code of
//! the file puts in a dict of that name is a script object (`register_script(…)`, an
//! item assignment, `update` with a display, a comprehension or a local dict filled
//! the same way, `setdefault`, a whole assignment of such a dict, `{}` or `None`).
//! Which script is not known (its body is not linked), but a call of it is a script
//! call, refused by a cluster when its keys are in different slots whatever the body
//! does, and a call through a wrapper's `keys` parameter is judged at the wrapper's
//! call sites (`scriptsites.rs`).
//!
//! Nothing is resolved when one use of the dict may put anything else in it or hand it
//! to code that may (an argument of a call, an alias, a `return`), when the dict's name
//! does not say `script`, or when no value is seen at all.

use crate::eval::{ClientKind, Ctx, ScriptId, ScriptInfo, Value};
use crate::index::{text, ClassId, DefKind, FuncId};
use crate::lower::Analyzer;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Uses of one dict looked at before giving up.
const MAX_USES: usize = 128;
/// Local dicts followed through `update(local)` / `self.d = local`, one inside another.
const MAX_NEST: u8 = 2;

/// Where the values a registry holds are written: expressions evaluated in a function
/// (or the module).
type Values<'t> = Vec<(Node<'t>, Option<FuncId>)>;

impl<'t> Analyzer<'t> {
    /// `self._scripts[name]`, `cls._scripts[k]`, `SCRIPTS[k]`: a script object of no
    /// known body when the dict is a registry of scripts (see the module doc).
    pub(crate) fn script_registry_entry(
        &mut self,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let obj = n.field(Field::Value)?;
        self.registry_entry_of(obj, ctx)
    }

    /// The script object that any entry of `obj` is, when `obj` is a registry of
    /// scripts: for `obj[k]` and `obj.get(k)`.
    pub(crate) fn registry_entry_of(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        let src = self.ix.src;
        if !text(obj, src).to_ascii_lowercase().contains("script") || !self.mentions_redis {
            return None;
        }
        let key = match obj.kind_name() {
            // Per class: the uses that matter are those of the classes related to it.
            "attribute" => {
                let class = ctx.func.and_then(|f| self.ix.method_class(f));
                let attr = text(obj.field(Field::Attribute)?, src);
                if let Some(id) = self.attr_registry(class, attr) {
                    return Some(Value::Script(id));
                }
                // `self.context.lua_scripts[name]` of an object whose class, of
                // another module, keeps a registry of scripts there (its facts).
                let owner = obj.field(Field::Object)?;
                let v = self.eval(owner, &ctx.deeper());
                let x = self.typed_ext(owner, &v, ctx)?;
                let client = x.script_registry(attr)?;
                return Some(Value::Script(self.script_of_no_body_at(obj, client)));
            }
            "identifier" => {
                let name = text(obj, src);
                match ctx.func {
                    Some(f) if self.ix.funcs[f].defs.contains_key(name) => format!("{f}:{name}"),
                    _ if self.ix.module_defs.contains_key(name) => {
                        // A registry of another module of the project, imported.
                        if let Some(v) = self.imported_registry(name) {
                            return Some(v);
                        }
                        name.to_string()
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        if let Some(found) = self.registries.get(&key) {
            return found.map(Value::Script);
        }
        // Cycles (a value that reads the registry again) find nothing.
        self.registries.insert(key.clone(), None);
        let found = self.find_registry(obj, ctx);
        self.registries.insert(key, found);
        found.map(Value::Script)
    }

    /// `self.<attr>` read in a method of `class` (or outside any class): the registry
    /// of scripts it is, memoised per class and attribute. When no code of the file
    /// writes the attribute, a base class of another project module that fills it
    /// with scripts (its facts, `project.rs`) makes it one.
    pub(crate) fn attr_registry(&mut self, class: Option<ClassId>, attr: &str) -> Option<usize> {
        let key = format!("{class:?}.{attr}");
        if let Some(found) = self.registries.get(&key) {
            return *found;
        }
        self.registries.insert(key.clone(), None);
        let mut values: Values<'t> = Vec::new();
        let found = match self.attr_values(class, attr, &mut values) {
            Some(()) if values.is_empty() => class.and_then(|c| {
                let client = self.imported_base_registry(c, attr)?;
                Some(self.new_registry(client))
            }),
            Some(()) => self.registry_of(values),
            None => None,
        };
        self.registries.insert(key, found);
        found
    }

    /// The values every use of attribute `attr` in the file writes, for methods of
    /// `class` and the classes related to it (its bases and subclasses) and code
    /// outside any class; `None` when a use may write anything else.
    fn attr_values(
        &self,
        class: Option<ClassId>,
        attr: &str,
        values: &mut Values<'t>,
    ) -> Option<()> {
        let related = |a: &Self, k: crate::index::ClassId| {
            class.is_none_or(|c| {
                k == c || a.ix.class_chain(k).contains(&c) || a.ix.class_chain(c).contains(&k)
            })
        };
        // `_scripts = {}` in a class body.
        for k in 0..self.ix.classes.len() {
            if !related(self, k) {
                continue;
            }
            for d in self.ix.classes[k].defs.get(attr).into_iter().flatten() {
                let DefKind::Expr(e) = d.kind else {
                    return None;
                };
                self.whole_value(e, None, values, 0)?;
            }
        }
        for x in self.attr_uses(attr)? {
            let owner = self
                .ix
                .enclosing_func(x)
                .and_then(|f| self.ix.method_class(f));
            if owner.is_some_and(|k| !related(self, k)) {
                continue;
            }
            self.registry_use(x, values, 0)?;
        }
        Some(())
    }

    fn find_registry(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<usize> {
        let src = self.ix.src;
        let mut values: Values<'t> = Vec::new();
        let name = text(obj, src);
        let scope = match ctx.func {
            Some(f) if self.ix.funcs[f].defs.contains_key(name) => Some(f),
            _ => None,
        };
        self.local_values(scope, name, &mut values, (0, None))?;
        if values.is_empty() {
            return None;
        }
        self.registry_of(values)
    }

    /// A registry whose entries are written by `values`, when every one is a script.
    fn registry_of(&mut self, values: Values<'t>) -> Option<usize> {
        let mut client: Option<ClientKind> = None;
        for (v, func) in values {
            if self.maps_to_scripts(v) {
                client = Some(ClientKind::Unknown);
                continue;
            }
            match self.eval(v, &Ctx::at(func)) {
                Value::Script(s) => {
                    let k = self.scripts[s].client;
                    client = Some(match client {
                        Some(c) if c != k => ClientKind::Unknown,
                        _ => k,
                    });
                }
                _ => return None,
            }
        }
        Some(self.new_registry(client.unwrap_or(ClientKind::Unknown)))
    }

    /// A script object of no known body on a client of kind `client`.
    /// `from app.redis_client import lua_scripts`, a registry of scripts of that
    /// module (its facts), when this file never writes it.
    fn imported_registry(&mut self, name: &str) -> Option<Value<'t>> {
        let scope = self.project?;
        let [d] = self.ix.module_defs.get(name)?.as_slice() else {
            return None;
        };
        if !d.stmt.kind_name().starts_with("import") {
            return None;
        }
        let key = format!("import:{name}");
        if let Some(found) = self.registries.get(&key) {
            return found.map(Value::Script);
        }
        let path = self.ix.imports.get(name)?.clone();
        let found = match scope.lookup(&path) {
            Some(crate::project::Fact::ScriptRegistry(client))
                if !crate::scriptdict::written(self.ix.src, name) =>
            {
                Some(self.new_registry(client))
            }
            _ => None,
        };
        self.registries.insert(key, found);
        found.map(Value::Script)
    }

    /// A new script of no known body on a client of kind `client`.
    pub(crate) fn new_registry(&mut self, client: ClientKind) -> usize {
        let id = self.scripts.len();
        self.scripts.push(ScriptInfo {
            body: None,
            func: None,
            client,
            ext: None,
            wrapper: None,
            preamble: None,
        });
        id
    }

    /// The values of a dict named `name` in function `scope` (or a module global):
    /// its assignments and every use of the name there but `via`, the use that hands
    /// it to the registry being followed.
    fn local_values(
        &self,
        scope: Option<FuncId>,
        name: &str,
        values: &mut Values<'t>,
        (nest, via): (u8, Option<Node<'t>>),
    ) -> Option<()> {
        let src = self.ix.src;
        let (defs, body) = match scope {
            Some(f) => (self.ix.funcs[f].defs.get(name)?, self.ix.funcs[f].body),
            None => (self.ix.module_defs.get(name)?, self.ix.nav.root()),
        };
        for d in defs {
            match (d.kind, d.annotation) {
                (DefKind::Expr(e), _) => self.whole_value(e, scope, values, nest)?,
                // `lua_scripts: dict[str, AsyncScript]`: a parameter declared as a
                // mapping of redis-py scripts holds scripts of no known body.
                (DefKind::Param(_), Some(a)) if self.maps_to_scripts(a) => values.push((a, scope)),
                _ => return None,
            }
        }
        let nav = self.ix.nav;
        let mut stack = vec![body];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            stack.extend(nav.children(x));
            if x.kind_name() != "identifier" || text(x, src) != name {
                continue;
            }
            let Some(parent) = nav.parent(x) else {
                continue;
            };
            // `obj.name`, `name=` of a keyword argument, a parameter: another name.
            let other = match parent.kind_name() {
                "attribute" => parent.field(Field::Attribute) == Some(x),
                "keyword_argument" => parent.field(Field::Name) == Some(x),
                "parameters"
                | "default_parameter"
                | "typed_parameter"
                | "typed_default_parameter" => true,
                _ => false,
            };
            if other || Some(x) == via {
                continue;
            }
            seen += 1;
            if seen > MAX_USES {
                return None;
            }
            self.registry_use(x, values, nest)?;
        }
        Some(())
    }

    /// One use `x` of the dict: the values it writes, `None` when it may write
    /// anything else or hand the dict on.
    fn registry_use(&self, x: Node<'t>, values: &mut Values<'t>, nest: u8) -> Option<()> {
        let nav = self.ix.nav;
        let src = self.ix.src;
        let func = self.ix.enclosing_func(x);
        let parent = nav.parent(x)?;
        match parent.kind_name() {
            "subscript" if parent.field(Field::Value) == Some(x) => {
                let up = nav.parent(parent)?;
                match up.kind_name() {
                    "assignment" if up.field(Field::Left) == Some(parent) => {
                        values.push((up.field(Field::Right)?, func));
                    }
                    "augmented_assignment" if up.field(Field::Left) == Some(parent) => {
                        return None;
                    }
                    // `del d[name]`, and any read.
                    _ => {}
                }
            }
            "attribute" if parent.field(Field::Object) == Some(x) => {
                let m = text(parent.field(Field::Attribute)?, src);
                let call = nav.parent(parent).filter(|c| {
                    c.kind_name() == "call" && c.field(Field::Function) == Some(parent)
                });
                match (m, call) {
                    ("update", Some(call)) => {
                        for a in nav.named_children(call.field(Field::Arguments)?) {
                            match a.kind_name() {
                                "keyword_argument" => values.push((a.field(Field::Value)?, func)),
                                "comment" => {}
                                _ => self.whole_value(a, func, values, nest)?,
                            }
                        }
                    }
                    ("setdefault", Some(call)) => {
                        let args: Vec<Node<'t>> = nav
                            .named_children(call.field(Field::Arguments)?)
                            .filter(|a| a.kind_name() != "comment")
                            .collect();
                        match args.as_slice() {
                            [_, v] if v.kind_name() != "keyword_argument" => {
                                values.push((*v, func))
                            }
                            _ => return None,
                        }
                    }
                    (
                        "get" | "keys" | "values" | "items" | "clear" | "pop" | "popitem" | "copy"
                        | "__contains__" | "__getitem__",
                        _,
                    ) => {}
                    _ => return None,
                }
            }
            "assignment" if parent.field(Field::Left) == Some(x) => {
                self.whole_value(parent.field(Field::Right)?, func, values, nest)?;
            }
            // `for name in d:`: a read.
            "for_statement" if parent.field(Field::Right) == Some(x) => {}
            // Handed on, aliased or changed in place: anything may be put in it.
            "argument_list"
            | "keyword_argument"
            | "return_statement"
            | "assignment"
            | "augmented_assignment"
            | "list"
            | "tuple"
            | "set"
            | "pair"
            | "dictionary"
            | "yield"
            | "named_expression"
            | "lambda"
            | "expression_list"
            | "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "for_statement"
            | "with_item"
            | "as_pattern"
            | "global_statement"
            | "nonlocal_statement" => {
                return None;
            }
            // `name in d`, `if d:`, `len(d)` is an argument (above): reads.
            _ => {}
        }
        Some(())
    }

    /// A value assigned to the dict whole: `{}`, `None`, a display or comprehension
    /// whose values are written down, or a local dict of the same function filled the
    /// same way.
    fn whole_value(
        &self,
        e: Node<'t>,
        func: Option<FuncId>,
        values: &mut Values<'t>,
        nest: u8,
    ) -> Option<()> {
        let src = self.ix.src;
        match e.kind_name() {
            "none" => {}
            "dictionary" => {
                for p in self.ix.nav.named_children(e) {
                    match p.kind_name() {
                        "comment" => {}
                        "pair" => values.push((p.field(Field::Value)?, func)),
                        _ => return None,
                    }
                }
            }
            "dictionary_comprehension" => {
                let body = e.field(Field::Body)?;
                if body.kind_name() != "pair" {
                    return None;
                }
                // Evaluated where the comprehension stands: its loop variables are
                // unknown there, which a registration does not need.
                values.push((body.field(Field::Value)?, func));
            }
            "call" if text(e, src).replace(' ', "") == "dict()" => {}
            "identifier" if nest < MAX_NEST => {
                let name = text(e, src);
                let scope = match func {
                    Some(f) if self.ix.funcs[f].defs.contains_key(name) => Some(f),
                    Some(_) => return None,
                    None => None,
                };
                self.local_values(scope, name, values, (nest + 1, Some(e)))?;
            }
            _ => return None,
        }
        Some(())
    }
}

impl<'t> Analyzer<'t> {
    /// A value annotated as redis-py's script class and nothing else (`script:
    /// RedisScript` with `from redis.commands.core import Script as RedisScript`,
    /// `Optional["redis.commands.core.Script"]`): a script object of no known body.
    pub(crate) fn annotated_script(&mut self, ann: Node<'t>) -> Option<Value<'t>> {
        let raw = text(ann, self.ix.src);
        self.script_annotation(raw, ann)
    }

    /// `self.m(…)[name]` in a method of a class whose method `m` is annotated as
    /// returning a mapping of redis-py scripts (`-> dict[str, Script]`, `Mapping[str,
    /// AsyncScript]`): a script object of no known body, whichever entry it is.
    pub(crate) fn script_of_mapping(
        &mut self,
        n: Node<'t>,
        f: crate::index::FuncId,
    ) -> Option<Value<'t>> {
        if n.kind_name() != "subscript" {
            return None;
        }
        let call = n.field(Field::Value)?;
        if call.kind_name() != "call" {
            return None;
        }
        let callee = call.field(Field::Function)?;
        if callee.kind_name() != "attribute" {
            return None;
        }
        let obj = callee.field(Field::Object)?;
        let info = &self.ix.funcs[f];
        if info.self_name() != Some(text(obj, self.ix.src)) {
            return None;
        }
        let c = info.class?;
        let g = self.defines(c, text(callee.field(Field::Attribute)?, self.ix.src))?;
        let ret = self.ix.funcs[g].node.field(Field::ReturnType)?;
        let raw = text(ret, self.ix.src).trim();
        let raw = raw.trim_matches(|c| c == '"' || c == '\'');
        let value = mapping_value(raw)?;
        self.script_annotation(value, n)
    }

    /// Whether `ann` is an annotation of a mapping of redis-py scripts
    /// (`dict[str, AsyncScript]`, `Mapping[str, Script]`).
    pub(crate) fn maps_to_scripts(&self, ann: Node<'t>) -> bool {
        if ann.kind_name() != "type" {
            return false;
        }
        let raw = text(ann, self.ix.src).trim();
        let raw = raw.trim_matches(|c| c == '"' || c == '\'');
        mapping_value(raw).is_some_and(|v| self.names_script_class(v))
    }

    /// [`Self::annotated_script`] of the annotation text `raw`; the script object
    /// is `node`'s.
    fn script_annotation(&mut self, raw: &str, node: Node<'t>) -> Option<Value<'t>> {
        self.names_script_class(raw)
            .then(|| Value::Script(self.script_of_no_body(node)))
    }

    /// Whether the annotation text `raw` names redis-py's script class and nothing
    /// else (`Optional[...]` and `| None` aside).
    fn names_script_class(&self, raw: &str) -> bool {
        self.script_class_path(raw).is_some()
    }

    /// [`Self::names_script_class`], `None` for false.
    fn script_class_path(&self, raw: &str) -> Option<()> {
        if !raw.contains("Script") {
            return None;
        }
        let cleaned: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
        let mut t = cleaned.trim();
        if let Some(inner) = t
            .strip_prefix("Optional[")
            .and_then(|x| x.strip_suffix(']'))
        {
            t = inner.trim();
        }
        if let Some(left) = t.strip_suffix("None").map(str::trim_end) {
            t = left.strip_suffix('|')?.trim_end();
        }
        if t.is_empty()
            || !t
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            return None;
        }
        let first = t.split('.').next().unwrap_or(t);
        let path = match self.ix.imports.get(first) {
            Some(p) => crate::index::client_path(&format!("{p}{}", &t[first.len()..])).into_owned(),
            None => return None,
        };
        let last = path.rsplit('.').next().unwrap_or("");
        if !path.starts_with("redis.") || !matches!(last, "Script" | "AsyncScript") {
            return None;
        }
        Some(())
    }

    /// The script object of no known body that `node` stands for (an annotation
    /// that declares one, a subclass of redis-py's script class): one per node.
    pub(crate) fn script_of_no_body(&mut self, node: Node<'t>) -> ScriptId {
        self.script_of_no_body_at(node, ClientKind::Unknown)
    }

    /// [`Self::script_of_no_body`] on a client of kind `client`.
    fn script_of_no_body_at(&mut self, node: Node<'t>, client: ClientKind) -> ScriptId {
        if let Some(&id) = self.script_by_node.get(&node.id()) {
            return id;
        }
        let id = self.new_registry(client);
        self.script_by_node.insert(node.id(), id);
        id
    }
}

/// The value type of a mapping annotation's text (`dict[str, AsyncScript]`,
/// `typing.Mapping[str, Script]`): `AsyncScript`, `Script`. `None` for any other
/// annotation.
fn mapping_value(raw: &str) -> Option<&str> {
    let (outer, inner) = raw.split_once('[')?;
    let outer = outer.rsplit('.').next().unwrap_or(outer);
    if !matches!(outer.trim(), "dict" | "Dict" | "Mapping" | "MutableMapping") {
        return None;
    }
    let inner = inner.trim_end().strip_suffix(']')?;
    let (_, value) = inner.rsplit_once(',')?;
    Some(value.trim())
}
