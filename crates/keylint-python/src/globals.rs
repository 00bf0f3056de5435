//! Module names that a function rewrites through `globals()`, and constants read from
//! a module-level dict that nothing writes.
//!
//! rpqueue keeps its key prefixes in a dict and copies each entry into a module name
//! (`QUEUE_KEY = _NAME_KEYS['QUEUE_KEY']`); `set_key_prefix(pfix)` then rewrites those
//! names with `globals().update((k, pfix + v) for k, v in _NAME_KEYS.items())`. Such a
//! name is its literal after a prefix the code does not show: an opaque hole that every
//! key built from those names shares (a [`keylint_core::FileModel::client_prefixes`]
//! binding), so two of them that differ after it are likely in different slots unless
//! the prefix carries a hash tag. Any other write through `globals()` (`globals()[n] =
//! v`, `exec(code, globals())`) may give a module name any value: string values of
//! module names are then unknown.

use crate::eval::{ClientKind, Value};
use crate::index::{text, DefKind};
use crate::syntax::{Field, NodeExt};
use crate::tpl::{HoleInfo, Tpl};
use tree_sitter::Node;

/// The binding of the prefix hole that a `globals()` rewrite puts before the names
/// keyed in dict `D`: this marker followed by `D`.
pub(crate) const GLOBALS_PREFIX: &str = "globals-prefix@";

/// What the file does to its module names through `globals()`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Rewrite {
    /// Nothing, or only reads.
    #[default]
    None,
    /// `globals().update((k, P + v) for k, v in D.items())`: every name keyed in `D`
    /// gets the prefix `P` before its value.
    Prefix {
        /// The module dict whose keys name the rewritten globals.
        dict: String,
        /// How the prefix is written (`pfix`).
        label: String,
        /// The function that rewrites them (`set_key_prefix`), if any.
        func: Option<String>,
    },
    /// A write the analysis does not follow.
    Unknown,
}

/// Attribute reads of a dict (or of `globals()`) that never write it.
pub(crate) const DICT_READS: &[&str] = &["get", "items", "keys", "values", "copy"];

impl<'t> crate::lower::Analyzer<'t> {
    /// What the file does to its module names through `globals()` (computed once).
    pub(crate) fn globals_rewrite(&self) -> &Rewrite {
        self.globals_rewrite
            .get_or_init(|| self.find_globals_rewrite())
    }

    fn find_globals_rewrite(&self) -> Rewrite {
        let src = self.ix.src;
        if !src.contains("globals") {
            return Rewrite::None;
        }
        let nav = self.ix.nav;
        let mut found = Rewrite::None;
        for (call, _) in nav.calls(|_| None::<()>) {
            let Some(f) = call.field(Field::Function) else {
                continue;
            };
            if f.kind_name() != "identifier" || text(f, src) != "globals" {
                continue;
            }
            let this = match self.globals_use(call) {
                Some(r) => r,
                None => Rewrite::Unknown,
            };
            found = match (found, this) {
                (a, Rewrite::None) => a,
                (Rewrite::None, b) => b,
                (a, b) if a == b => a,
                _ => Rewrite::Unknown,
            };
        }
        found
    }

    /// One `globals()` call: a read (`Rewrite::None`), the prefix rewrite, or `None`
    /// for anything else.
    fn globals_use(&self, call: Node<'t>) -> Option<Rewrite> {
        let (nav, src) = (self.ix.nav, self.ix.src);
        let parent = nav.parent(call)?;
        match parent.kind_name() {
            "attribute" if parent.field(Field::Object) == Some(call) => {
                let attr = text(parent.field(Field::Attribute)?, src);
                if DICT_READS.contains(&attr) {
                    return Some(Rewrite::None);
                }
                if attr != "update" {
                    return None;
                }
                let upd = nav.parent(parent)?;
                if upd.kind_name() != "call" || upd.field(Field::Function) != Some(parent) {
                    return None;
                }
                let args = upd.field(Field::Arguments)?;
                let gen = match args.kind_name() {
                    "generator_expression" => args,
                    "argument_list" => {
                        let all: Vec<Node<'t>> = nav.named_children(args).collect();
                        match all.as_slice() {
                            [one]
                                if matches!(
                                    one.kind_name(),
                                    "generator_expression" | "list_comprehension"
                                ) =>
                            {
                                *one
                            }
                            _ => return None,
                        }
                    }
                    _ => return None,
                };
                self.prefix_update(gen, call)
            }
            "subscript" if parent.field(Field::Value) == Some(call) => {
                (!self.is_written(parent)).then_some(Rewrite::None)
            }
            _ => None,
        }
    }

    /// `(k, P + v) for k, v in D.items()`.
    fn prefix_update(&self, gen: Node<'t>, call: Node<'t>) -> Option<Rewrite> {
        let (nav, src) = (self.ix.nav, self.ix.src);
        let (body, clause) = nav.sole_for_clause(gen)?;
        let targets: Vec<&str> = nav
            .named_children(clause.field(Field::Left)?)
            .map(|t| text(t, src))
            .collect();
        let [k, v] = targets.as_slice() else {
            return None;
        };
        let items = clause.field(Field::Right)?;
        let items_of = items.field(Field::Function)?;
        if items.kind_name() != "call"
            || items_of.kind_name() != "attribute"
            || text(items_of.field(Field::Attribute)?, src) != "items"
        {
            return None;
        }
        let dict = items_of.field(Field::Object)?;
        if dict.kind_name() != "identifier" {
            return None;
        }
        let pair: Vec<Node<'t>> = nav.named_children(body).collect();
        let [name, value] = pair.as_slice() else {
            return None;
        };
        if body.kind_name() != "tuple"
            || text(*name, src) != *k
            || value.kind_name() != "binary_operator"
            || value.field(Field::Operator).map(|o| text(o, src)) != Some("+")
            || value.field(Field::Right).map(|r| text(r, src)) != Some(*v)
        {
            return None;
        }
        let prefix = value.field(Field::Left)?;
        Some(Rewrite::Prefix {
            dict: text(dict, src).to_string(),
            label: text(prefix, src).to_string(),
            func: self
                .ix
                .enclosing_func(call)
                .map(|f| self.ix.funcs[f].name.clone()),
        })
    }

    /// Whether a subscript or name is written: an assignment's target, `+=`, `del`.
    fn is_written(&self, n: Node<'t>) -> bool {
        let nav = self.ix.nav;
        let mut cur = n;
        while let Some(p) = nav.parent(cur) {
            match p.kind_name() {
                "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
                    cur = p;
                }
                "assignment" | "augmented_assignment" => {
                    return p.field(Field::Left) == Some(cur);
                }
                "delete_statement" => return true,
                _ => return false,
            }
        }
        false
    }

    /// A module name's value after what `globals()` writes do to it: the prefix
    /// before a name keyed in the rewritten dict, an unknown for a string when the
    /// writes are not followed.
    pub(crate) fn rewritten_global(&mut self, name: &str, v: Value<'t>, n: Node<'t>) -> Value<'t> {
        match self.globals_rewrite().clone() {
            Rewrite::None => v,
            Rewrite::Unknown => match v {
                Value::Str(_) | Value::Int(_) => Value::Opaque(HoleInfo {
                    label: name.to_string(),
                    binding: format!("{GLOBALS_PREFIX}?{name}"),
                    span: Some(n.byte_range()),
                    keylike: true,
                }),
                other => other,
            },
            Rewrite::Prefix { dict, label, func } => {
                let Value::Str(t) = v else {
                    return v;
                };
                if !self.dict_keys(&dict).iter().any(|k| k == name) {
                    return Value::Str(t);
                }
                let binding = format!("{GLOBALS_PREFIX}{dict}");
                if !self.model.client_prefixes.contains(&binding) {
                    self.model.client_prefixes.push(binding.clone());
                    let whose = match func {
                        Some(f) => format!("the prefix that `{f}` puts before"),
                        None => "the prefix that `globals().update` puts before".to_string(),
                    };
                    self.model
                        .prefix_origins
                        .push((binding.clone(), format!("{whose} the module's key names")));
                }
                let mut out = Tpl::hole(HoleInfo {
                    label,
                    binding,
                    span: None,
                    keylike: true,
                });
                out.push(t);
                Value::Str(out)
            }
        }
    }

    /// The names a module dict is built with (`dict(A=…, B=…)`, `{"A": …}`).
    fn dict_keys(&mut self, dict: &str) -> Vec<String> {
        let Some(node) = self.module_dict(dict) else {
            return Vec::new();
        };
        self.dict_entries(node)
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    /// The one module-level definition of `name` when it is a dict literal or a
    /// `dict(...)` call.
    fn module_dict(&self, name: &str) -> Option<Node<'t>> {
        let [def] = self.ix.module_defs.get(name)?.as_slice() else {
            return None;
        };
        let DefKind::Expr(v) = def.kind else {
            return None;
        };
        match v.kind_name() {
            "dictionary" => Some(v),
            "call" => {
                let f = v.field(Field::Function)?;
                (f.kind_name() == "identifier"
                    && text(f, self.ix.src) == "dict"
                    && !self.ix.module_defs.contains_key("dict"))
                .then_some(v)
            }
            _ => None,
        }
    }

    /// The entries of a dict literal or `dict(...)` call whose keys are all known
    /// (string literals, keyword arguments): name → value node. Empty when any entry
    /// is not (`**other`, a computed key).
    pub(crate) fn dict_entries(&mut self, node: Node<'t>) -> Vec<(String, Node<'t>)> {
        let nav = self.ix.nav;
        let src = self.ix.src;
        let mut out = Vec::new();
        let items: Vec<Node<'t>> = match node.kind_name() {
            "call" => match node.field(Field::Arguments) {
                Some(a) if a.kind_name() == "argument_list" => nav.named_children(a).collect(),
                _ => return Vec::new(),
            },
            _ => nav.named_children(node).collect(),
        };
        for it in items {
            match it.kind_name() {
                "comment" => {}
                "keyword_argument" => {
                    let (Some(k), Some(v)) = (it.field(Field::Name), it.field(Field::Value)) else {
                        return Vec::new();
                    };
                    out.push((text(k, src).to_string(), v));
                }
                "pair" => {
                    let (Some(k), Some(v)) = (it.field(Field::Key), it.field(Field::Value)) else {
                        return Vec::new();
                    };
                    if k.kind_name() != "string" {
                        return Vec::new();
                    }
                    let crate::eval::Value::Str(t) = self.eval(k, &crate::eval::Ctx::at(None))
                    else {
                        return Vec::new();
                    };
                    let Some(b) = t.as_bytes() else {
                        return Vec::new();
                    };
                    out.push((String::from_utf8_lossy(&b).into_owned(), v));
                }
                _ => return Vec::new(),
            }
        }
        out
    }

    /// The subscripted name of `sub` (`D` of `D[k]`) and its text, when it is a module
    /// name where `ctx_func` reads it (no local or parameter of that name shadows it).
    fn module_name_read(
        &self,
        sub: Node<'t>,
        ctx_func: Option<usize>,
    ) -> Option<(Node<'t>, &'t str)> {
        let value = sub.field(Field::Value)?;
        if value.kind_name() != "identifier" {
            return None;
        }
        let name = text(value, self.ix.src);
        let mut f = ctx_func;
        while let Some(id) = f {
            let info = &self.ix.funcs[id];
            if info.defs.contains_key(name) || info.params.iter().any(|p| p.name == name) {
                return None;
            }
            f = info.parent;
        }
        Some((value, name))
    }

    /// `D["K"]` where `D` is a module dict that nothing writes: the entry's value
    /// (`None` when it is not such a read).
    pub(crate) fn frozen_dict_entry(
        &mut self,
        sub: Node<'t>,
        ctx_func: Option<usize>,
    ) -> Option<Node<'t>> {
        let (value, name) = self.module_name_read(sub, ctx_func)?;
        let index = self.ix.nav.named_children(sub).find(|c| *c != value)?;
        if index.kind_name() != "string" {
            return None;
        }
        let node = self.module_dict(name)?;
        if *self.globals_rewrite() == Rewrite::Unknown || !self.never_written(name) {
            return None;
        }
        let Value::Str(t) = self.eval(index, &crate::eval::Ctx::at(None)) else {
            return None;
        };
        let want = String::from_utf8_lossy(&t.as_bytes()?).into_owned();
        self.dict_entries(node)
            .into_iter()
            .find(|(k, _)| *k == want)
            .map(|(_, v)| v)
    }

    /// `D[k]` where `D` is a module dict of clients, a registry of the application's
    /// servers (`SYSTEMS = {"default": redis.Redis(...)}`, read by `get_redis(system)`
    /// as `SYSTEMS[system]`): every value the dict is written with is a client, and
    /// the file only reads it or stores values into it (`SYSTEMS[name] =
    /// redis_instance` in a setup function). Stored values are not evaluated: a store
    /// leaves the client's kind unknown. `None` when it is not such a read.
    pub(crate) fn client_registry_entry(
        &mut self,
        sub: Node<'t>,
        ctx_func: Option<usize>,
    ) -> Option<Value<'t>> {
        let (_, name) = self.module_name_read(sub, ctx_func)?;
        let node = self.module_dict(name)?;
        if let Some(k) = self.client_registries.get(name) {
            return k.map(Value::Client);
        }
        let entries = self.dict_entries(node);
        let mut kind: Option<ClientKind> = None;
        for (_, v) in &entries {
            match self.eval(*v, &crate::eval::Ctx::at(None)) {
                Value::Client(k) => kind = Some(kind.map_or(k, |o| o.merge(k))),
                _ => {
                    kind = None;
                    break;
                }
            }
        }
        let kind = if entries.is_empty() { None } else { kind };
        let kind = kind.and_then(|k| match self.dict_uses(name)? {
            true => Some(k.merge(ClientKind::Unknown)),
            false => Some(k),
        });
        self.client_registries.insert(name.to_string(), kind);
        kind.map(Value::Client)
    }

    /// Whether every use of module name `name` in the file only reads it as a dict
    /// (`name[k]`, `name.get(k)`, `name.items()`): then its one definition holds.
    fn never_written(&mut self, name: &str) -> bool {
        if let Some(&ok) = self.frozen_dicts.get(name) {
            return ok;
        }
        let ok = self.dict_uses(name) == Some(false);
        self.frozen_dicts.insert(name.to_string(), ok);
        ok
    }

    /// How the file uses module name `name`, a dict: `Some(false)` when every use
    /// reads it (`name[k]`, `name.get(k)`, `name.items()`) or is its one definition,
    /// `Some(true)` when besides it stores values into it (`name[k] = v`, `v` no
    /// literal or container), `None` on any other use.
    fn dict_uses(&self, name: &str) -> Option<bool> {
        let (nav, src) = (self.ix.nav, self.ix.src);
        let root = nav.root();
        let bytes = src.as_bytes();
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut from = 0;
        let mut stores = false;
        while let Some(i) = src[from..].find(name) {
            let at = from + i;
            from = at + name.len();
            if (at > 0 && is_word(bytes[at - 1])) || bytes.get(from).copied().is_some_and(is_word) {
                continue;
            }
            let Some(id) = root.descendant_for_byte_range(at, from) else {
                continue;
            };
            if id.kind_name() != "identifier" || id.byte_range() != (at..from) {
                // Inside a string or a comment.
                continue;
            }
            let p = nav.parent(id)?;
            let ok = match p.kind_name() {
                "subscript" if p.field(Field::Value) == Some(id) && self.is_written(p) => {
                    // Only `name[k] = v` with a value that is no literal.
                    let a = nav.parent(p)?;
                    let right = (a.kind_name() == "assignment" && a.field(Field::Left) == Some(p))
                        .then(|| a.field(Field::Right))
                        .flatten()?;
                    stores = true;
                    !matches!(
                        right.kind_name(),
                        "string"
                            | "integer"
                            | "float"
                            | "true"
                            | "false"
                            | "none"
                            | "concatenated_string"
                            | "dictionary"
                            | "list"
                            | "tuple"
                    )
                }
                "subscript" if p.field(Field::Value) == Some(id) => true,
                "attribute" if p.field(Field::Object) == Some(id) => p
                    .field(Field::Attribute)
                    .is_some_and(|a| DICT_READS.contains(&text(a, src))),
                // The definition itself (its only one: see `module_dict`).
                "assignment" if p.field(Field::Left) == Some(id) => {
                    nav.parent(p).is_some_and(|s| {
                        s.kind_name() == "expression_statement"
                            && nav.parent(s).is_some_and(|m| m.kind_name() == "module")
                    })
                }
                // `global name` declares, a later assignment would be a second def.
                "global_statement" => true,
                _ => false,
            };
            if !ok {
                return None;
            }
        }
        Some(stores)
    }
}
