//! Shared heads: one unknown value that several keys begin with.
//!
//! Keys built on the same unknown head and differing after it (`{P}:task:<id>` next
//! to `{P}:queued:<q>`, `<project>.<queue>.messages` next to `<project>.<queue>.claims`)
//! are in different slots unless the head itself carries a hash tag. The frontend
//! marks the heads it can name:
//!
//! - a read of configuration with no default in view, under a name like a key or a
//!   prefix: `self.config["REDIS_PREFIX"]`, `cfg.get("redis_prefix")`,
//!   `app.conf.key_prefix`, `settings.CACHE_PREFIX`, `os.environ["APP_PREFIX"]`,
//!   `os.getenv("APP_PREFIX")`; the hole's binding carries a marker, so that it survives
//!   being copied into another module's facts (a module constant `PREFIX =
//!   cfg.get("prefix")` read through an imported key builder); a name or an attribute
//!   bound to such a read (a module constant, a local, `self.prefix` set once) holds
//!   that same head under its own name ([`bound_head`]);
//! - a parameter of the function the keys are built in, also through the key builders
//!   it calls with it (a project id, a queue's name).
//!
//! [`heads_of`] lists the bindings of the heads that keys of the file begin with, as
//! [`keylint_core::FileModel::client_prefixes`] with what each is
//! ([`keylint_core::FileModel::prefix_origins`]): the shared engine judges a unit
//! whose keys all begin with one of them after it, and reports keys in different slots
//! there as `cross-slot-likely` with the caveat that a tag in the head makes them one.

use crate::eval::{arg_nodes, Env, Value};
use crate::index::text;
use crate::syntax::{Field, Nav, NodeExt};
use crate::tpl::{is_keylike_label, TPart};
use keylint_core::template::Part;
use keylint_core::KeyUse;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// The marker that begins a configured head's binding (after the qualifier that
/// another module's facts put before it).
const CONFIG_HEAD: &str = "\u{5}config-head\u{5}";

/// The binding of a configured head whose own identity is `id`.
pub(crate) fn mark_config(id: String) -> String {
    format!("{CONFIG_HEAD}{id}")
}

/// Whether `binding` is that of a configured head (a setting named like a key or a
/// prefix, read with no default in view).
pub(crate) fn is_config_head(binding: &str) -> bool {
    binding.contains(CONFIG_HEAD)
}

/// The value of a name or an attribute (`name`, written at `span`) bound to `v`:
/// when `v` is a configured head, that same head under the name (`PREFIX =
/// cfg.get("redis_prefix")`, `prefix = settings.CACHE_PREFIX`, `self.prefix =
/// conf["key_prefix"]`): every read of the binding is the one setting it holds.
pub(crate) fn bound_head<'t>(
    v: &Value<'t>,
    name: &str,
    span: std::ops::Range<usize>,
) -> Option<Value<'t>> {
    match v {
        Value::Opaque(h) if is_config_head(&h.binding) => {
            Some(Value::Opaque(crate::tpl::HoleInfo {
                label: name.to_string(),
                binding: h.binding.clone(),
                span: Some(span),
                keylike: h.keylike || is_keylike_label(name),
            }))
        }
        _ => None,
    }
}

/// Names of objects that hold configuration (compared lower-case, leading `_` aside).
const CONFIG_NAMES: &[&str] = &[
    "config",
    "conf",
    "cfg",
    "settings",
    "environ",
    "options",
    "opts",
    "configuration",
];

/// Suffixes of names of objects that hold configuration (`app_config`, `redis_conf`).
const CONFIG_SUFFIXES: &[&str] = &["_config", "_conf", "_cfg", "_settings", "_options"];

/// Whether `n` (an identifier or an attribute) names an object that holds
/// configuration by its last name: `self.config`, `app.conf`, `settings`, `os.environ`.
pub(crate) fn is_config_object(n: Node<'_>, src: &str) -> bool {
    let last = match n.kind_name() {
        "identifier" => n,
        "attribute" => match n.field(Field::Attribute) {
            Some(a) => a,
            None => return false,
        },
        _ => return false,
    };
    let name = text(last, src).trim_start_matches('_').to_ascii_lowercase();
    CONFIG_NAMES.contains(&name.as_str()) || CONFIG_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Whether the file imports the standard library's settings reader (`configparser`,
/// Python 2's `ConfigParser`, or either through `six.moves`), whose `get(section,
/// option)` takes no default as its second argument.
fn imports_configparser(imports: &HashMap<String, String>) -> bool {
    imports.values().any(|p| {
        let module = p.strip_prefix("six.moves.").unwrap_or(p);
        let first = module.split('.').next().unwrap_or(module);
        first == "configparser" || first == "ConfigParser"
    })
}

/// The text of a plain string literal (no interpolation), without its quotes.
pub(crate) fn plain_string<'t>(nav: &Nav<'t>, n: Node<'t>, src: &'t str) -> Option<&'t str> {
    if n.kind_name() != "string"
        || nav
            .named_children(n)
            .any(|c| c.kind_name() == "interpolation")
    {
        return None;
    }
    let t = text(n, src);
    let body = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let q = body.chars().next()?;
    if q != '"' && q != '\'' {
        return None;
    }
    let body = body.trim_start_matches(q).trim_end_matches(q);
    Some(body)
}

/// Whether `n` reads a setting named like a key or a prefix from configuration, with
/// no default in view: `X[“name”]`, `X.get(“name”)` (one argument), `X.name` with `X`
/// an object that holds configuration, or `os.getenv(“name”)`.
pub(crate) fn is_config_read<'t>(
    nav: &Nav<'t>,
    n: Node<'t>,
    src: &'t str,
    imports: &HashMap<String, String>,
) -> bool {
    match n.kind_name() {
        "subscript" => {
            let kids: Vec<Node<'t>> = nav.named_children(n).collect();
            let [obj, entry] = kids.as_slice() else {
                return false;
            };
            is_config_object(*obj, src)
                && plain_string(nav, *entry, src).is_some_and(is_keylike_label)
        }
        "attribute" => {
            let (Some(obj), Some(attr)) = (n.field(Field::Object), n.field(Field::Attribute))
            else {
                return false;
            };
            is_config_object(obj, src) && is_keylike_label(text(attr, src))
        }
        "call" => {
            let Some(f) = n.field(Field::Function) else {
                return false;
            };
            let args = arg_nodes(nav, n.field(Field::Arguments));
            let entry = match args.as_slice() {
                [entry] => *entry,
                // `config.get("redis", "key_prefix")` of a `configparser` parser: a
                // section and an option, no default (with a dict, the second
                // argument would be a default, so the file must import the module).
                [section, entry]
                    if plain_string(nav, *section, src).is_some()
                        && n.field(Field::Arguments).is_some_and(|a| {
                            nav.named_children(a).all(|k| k.kind_name() == "string")
                        })
                        && imports_configparser(imports) =>
                {
                    *entry
                }
                _ => return false,
            };
            let Some(name) = plain_string(nav, entry, src) else {
                return false;
            };
            if !is_keylike_label(name) {
                return false;
            }
            let getenv = matches!(text(f, src), "os.getenv" | "getenv");
            let get = f.kind_name() == "attribute"
                && f.field(Field::Attribute)
                    .is_some_and(|a| text(a, src) == "get")
                && f.field(Field::Object)
                    .is_some_and(|o| is_config_object(o, src));
            getenv || get
        }
        _ => false,
    }
}

/// The heads that keys of the file begin with: configured values, the caller's values
/// (`callers`, the bindings of parameters read as they are; `caller_attrs`, attributes
/// read on them, `model._namespace`) and constructor arguments
/// stored on `self` (`ctor`, each binding with what it is; only these may follow
/// literal text with no `{`), each with what it is as findings name it.
pub(crate) fn heads_of(
    keys: &[KeyUse],
    callers: &HashSet<String>,
    (caller_attrs, caller_items): (&HashSet<String>, &HashSet<String>),
    ctor: &[(String, String)],
) -> Vec<(String, String)> {
    fn head(k: &KeyUse) -> Option<&keylint_core::template::Hole> {
        match k
            .template
            .parts
            .iter()
            .find(|p| !matches!(p, Part::Lit(l) if !l.bytes.contains(&b'{')))
        {
            Some(Part::Hole(h)) => Some(h),
            _ => None,
        }
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for k in keys {
        let Some(h) = head(k) else {
            continue;
        };
        if out.iter().any(|(b, _)| *b == h.binding) {
            continue;
        }
        // After literal text, only a constructor's argument (see `ctor_head`).
        let first = k
            .template
            .parts
            .iter()
            .find(|p| !matches!(p, Part::Lit(l) if l.bytes.is_empty()));
        if !matches!(first, Some(Part::Hole(_))) && !ctor.iter().any(|(b, _)| *b == h.binding) {
            continue;
        }
        let origin = if is_config_head(&h.binding) && h.binding.contains("global-rebound:") {
            "a module value that a setter function assigns at run time".to_string()
        } else if is_config_head(&h.binding) {
            "a setting read from configuration".to_string()
        } else if let Some((_, o)) = ctor.iter().find(|(b, _)| *b == h.binding) {
            o.clone()
        } else if callers.contains(&h.binding)
            || h.binding
                .strip_suffix(crate::lower::ELEMENT_OF)
                .is_some_and(|b| callers.contains(b))
            || root_of(&h.binding).is_some_and(|r| callers.contains(r))
            || held_by(&h.binding).is_some_and(|r| callers.contains(r))
        {
            "a value the caller passes in".to_string()
        } else if caller_attrs.contains(&h.binding) {
            "an attribute of an object the caller passes in".to_string()
        } else if caller_items.contains(&h.binding) {
            "an item of a value the caller passes in".to_string()
        } else {
            continue;
        };
        out.push((h.binding.clone(), origin));
    }
    out
}

/// The binding of the caller's value whose constructor argument `binding` is: an
/// object the caller passes in, of a class of the project (`name: KeyPrefix`), whose
/// `self.prefix` a key builder of the class puts first (`name.of(":queue")`). The
/// same object gives the same value to every key built on it.
fn held_by(binding: &str) -> Option<&str> {
    let rest = binding.strip_prefix(crate::project::PARAM_IDENT)?;
    let (owner, i) = rest.rsplit_once(".c")?;
    (!i.is_empty() && i.bytes().all(|b| b.is_ascii_digit())).then_some(owner)
}

/// The markers around the binding of the caller's value that a value a followed key
/// builder computes from it alone was built from (`normalize(project)` inside
/// `scope(queue, project)`), before that value's own identity.
const FROM: &str = "\u{5}from\u{6}";
const FROM_END: &str = "\u{6}from\u{5}";

/// The binding of a value computed from the value bound as `root` alone, whose own
/// identity is `id`.
pub(crate) fn derived(root: &str, id: String) -> String {
    let root = root_of(root).unwrap_or(root);
    format!("{FROM}{root}{FROM_END}{id}")
}

/// The binding of the value a derived value was computed from.
fn root_of(binding: &str) -> Option<&str> {
    let at = binding.find(FROM)? + FROM.len();
    let rest = &binding[at..];
    Some(&rest[..rest.find(FROM_END)?])
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The configured head that `e` reads (see [`is_config_read`]), as an unknown
    /// value marked as such: what a name or attribute bound to `e` holds.
    pub(crate) fn config_head(
        &mut self,
        e: Node<'t>,
        ctx: &crate::eval::Ctx<'t>,
    ) -> Option<Value<'t>> {
        if !is_config_read(self.ix.nav, e, self.src(), &self.ix.imports) {
            return None;
        }
        // `settings.NAME` of Django's settings, when the project's settings modules
        // bind it to one string (`project.rs` `django_setting`): that string.
        if e.kind_name() == "attribute" {
            if let Some(obj) = e.field(Field::Object) {
                let base = self.eval(obj, &ctx.deeper());
                if matches!(&base, crate::eval::Value::Symbol(p) if p == "django.conf.settings")
                    && matches!(self.eval(e, &ctx.deeper()), crate::eval::Value::Str(_))
                {
                    return None;
                }
            }
        }
        let v = self.opaque(e, ctx);
        matches!(&v, Value::Opaque(h) if is_config_head(&h.binding)).then_some(v)
    }

    /// Inside a followed key builder (`env`), the value that `n` computes from alone,
    /// as its label and binding: `n` reads one parameter the call binds, and that
    /// parameter holds one unknown value. Such a value is the same wherever it is
    /// built from the same argument, so when that argument is a value the caller
    /// passes in, it is a head the keys may share.
    pub(crate) fn derived_from_arg(&self, n: Node<'t>, env: &Env<'t>) -> Option<(String, String)> {
        let read: Vec<&str> = self
            .params_read(n, env, true)?
            .into_iter()
            .filter(|p| !matches!(env.params[*p], Value::SelfObj(_) | Value::ClsObj(_)))
            .collect();
        let [read] = read.as_slice() else {
            return None;
        };
        let h = single_hole(env.params.get(*read)?)?;
        Some((h.label.clone(), h.binding.clone()))
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// Whether the expression `n` holds arithmetic that may map two values to one:
    /// `//`, `%`, `/`, `&`, `>>`, a comparison, or a call of `round`, `min`, `max`,
    /// `abs`, `len`, `bool`, `hash`, `divmod`, `floor` or `ceil`.
    pub(crate) fn lossy(&self, n: Node<'t>) -> bool {
        const OPS: [&str; 6] = ["//", "%", "/", "&", ">>", "|"];
        const CALLS: [&str; 10] = [
            "round", "min", "max", "abs", "len", "bool", "hash", "divmod", "floor", "ceil",
        ];
        let nav = self.ix.nav;
        let src = self.src();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            match x.kind_name() {
                "binary_operator" | "augmented_assignment"
                    if x.field(Field::Operator)
                        .is_some_and(|o| OPS.contains(&text(o, src).trim_end_matches('='))) =>
                {
                    return true;
                }
                "comparison_operator" | "boolean_operator" | "not_operator" => return true,
                "call"
                    if x.field(Field::Function).is_some_and(|f| {
                        let name = text(f, src);
                        CALLS.contains(&name.rsplit('.').next().unwrap_or(name))
                    }) =>
                {
                    return true;
                }
                _ => {}
            }
            stack.extend(nav.named_children(x));
        }
        false
    }
}

/// Whether `text` calls `class` (`Job(…)`, `jobs.Job(…)`) with arguments whose text
/// holds a `{`; `None` when it cannot tell: a call whose parentheses do not close, a
/// subclass of the class (`class Sub(Job)`, which may pass anything to it).
pub(crate) fn tagged_calls(text: &str, class: &str) -> Option<bool> {
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(at) = text[from..].find(class).map(|i| i + from) {
        from = at + class.len();
        let end = at + class.len();
        if (at > 0 && ident(bytes[at - 1])) || bytes.get(end).is_some_and(|b| ident(*b)) {
            continue;
        }
        let before = text[..at]
            .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
        let after = text[end..].trim_start_matches([' ', '\t']);
        if line.trim_start().starts_with("class ") {
            // The class's own definition; or `class Sub(Job):`, naming it as a base.
            if before.trim_end().ends_with("class") {
                continue;
            }
            return None;
        }
        if !after.starts_with('(') {
            continue;
        }
        let open = text.len() - after.len();
        let mut depth = 0usize;
        let mut close = None;
        for (i, b) in bytes[open..].iter().enumerate() {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        if text[open..close?].contains('{') {
            return Some(true);
        }
    }
    Some(false)
}

/// Names of the functions that construct an object again from inside its class.
fn self_construction(f: &str) -> bool {
    matches!(f, "cls" | "type(self)" | "self.__class__" | "type(cls)")
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The head that keys built on `self.attr` share (its binding) and what it is,
    /// when the attribute's one assignment `a`, whose value is `v`, stores a
    /// constructor argument: in `__init__` of a class of `c`'s chain, a parameter of
    /// it with no default but `None`, never rebound there, either alone (the head is
    /// the parameter's own value when `__init__` reads it as one, which the attribute
    /// then holds: keys built from `name` in `__init__` share it; else the attribute,
    /// bound as `binding`) or after literal text with no `{` (`"q:" + name`: the
    /// parameter's own value). Nothing else in the file writes the
    /// attribute, and no construction of the class that the project shows passes a
    /// value with a `{`: keys that differ after the head are then in different slots
    /// unless the callers' values carry a hash tag, which is what the finding says.
    /// Whether a constructor parameter's default keeps its keys' relation: `None`, or
    /// a string the code shows, with no `{` (a tagged default would put the keys
    /// built around it in one slot).
    fn untagged_default(&mut self, d: Node<'t>, init: crate::index::FuncId) -> bool {
        if d.kind_name() == "none" {
            return true;
        }
        // A literal or a constant that is one.
        self.default_braces(d, init) == Some(false)
    }

    pub(crate) fn ctor_head(
        &mut self,
        c: crate::index::ClassId,
        attr: &str,
        a: &crate::index::SelfAssign<'t>,
        v: &Value<'t>,
        binding: &str,
    ) -> Option<(String, String)> {
        let f = &self.ix.funcs[a.func];
        let k = f.class?;
        if f.name != "__init__" || !self.ix.class_chain(c).contains(&k) {
            return None;
        }
        let scope = format!("f{}:", f.node.start_byte());
        let (head, name) = match v {
            // The parameter as it is (read in `__init__` as an unknown value): the
            // parameter's own value, which keys the constructor builds around it hold
            // too (`self._name = name` next to `self._noti = name + "_noti"`).
            Value::Opaque(_) | Value::Unknown if a.value?.kind_name() == "identifier" => {
                let name = text(a.value?, self.src()).to_string();
                let at = crate::eval::Ctx {
                    func: Some(a.func),
                    env: None,
                    depth: 0,
                };
                match self.eval(a.value?, &at) {
                    Value::Opaque(h) if h.binding.starts_with(&scope) => (h.binding, name),
                    _ => (binding.to_string(), name),
                }
            }
            Value::Str(t) => {
                let h = t.parts.iter().find_map(|p| match p {
                    TPart::Lit { bytes, .. } if !bytes.contains(&b'{') => None,
                    TPart::Hole(h) => Some(Some(h)),
                    TPart::Lit { .. } => Some(None),
                })??;
                let rest = h.binding.strip_prefix(&scope)?;
                let (name, _) = rest.split_once('#')?;
                (h.binding.clone(), name.to_string())
            }
            _ => return None,
        };
        let p = self.ix.funcs[a.func]
            .params
            .iter()
            .skip(1)
            .find(|p| p.name == name && !p.star)?
            .clone();
        if self
            .param_override
            .contains_key(&(a.func, p.node.start_byte()))
            || p.default.is_some_and(|d| !self.untagged_default(d, a.func))
        {
            return None;
        }
        let f = &self.ix.funcs[a.func];
        let defs = f.defs.get(&name)?;
        if defs.len() != 1 || !matches!(defs[0].kind, crate::index::DefKind::Param(_)) {
            return None;
        }
        // The one write of the attribute in the file.
        let chain = self.ix.class_chain(c);
        let assigns: usize = chain
            .iter()
            .filter_map(|&x| self.ix.classes[x].self_assigns.get(attr))
            .map(Vec::len)
            .sum();
        if assigns != 1 || self.overridden_below(c, attr) {
            return None;
        }
        // Writes of `self.attr` in classes apart from this one's are of their own
        // objects; any other write may be of this one.
        let apart: Vec<std::ops::Range<usize>> = (0..self.ix.classes.len())
            .filter(|&x| {
                !self.ix.class_chain(x).contains(&k) && !self.ix.class_chain(k).contains(&x)
            })
            .map(|x| self.ix.classes[x].node.byte_range())
            .collect();
        let (nav, src) = (self.ix.nav, self.src());
        if src.contains("setattr(")
            && (src.contains(&format!("\"{attr}\"")) || src.contains(&format!("'{attr}'")))
        {
            return None;
        }
        let all = self.attr_writes.get_or_init(|| writes(nav, src));
        let others = all
            .get(attr)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|(at, of_self)| !(*of_self && apart.iter().any(|r| r.contains(at))))
            .count();
        if others != 1 {
            return None;
        }
        if !self.untagged_constructions(k) {
            return None;
        }
        let origin = if !matches!(v, Value::Str(_)) {
            format!("the constructor's `{name}` argument stored as it is")
        } else {
            format!(
                "the constructor's `{name}` argument, stored in `self.{attr}` after literal text"
            )
        };
        Some((head, origin))
    }

    /// Whether no construction of class `k` (or of a class of this file derived from
    /// it) that the project shows passes a value with a `{`; false when the project
    /// cannot be searched.
    pub(crate) fn untagged_constructions(&mut self, k: crate::index::ClassId) -> bool {
        if let Some(&v) = self.untagged_ctors.get(&k) {
            return v;
        }
        let v = self.untagged_constructions_inner(k);
        self.untagged_ctors.insert(k, v);
        v
    }

    fn untagged_constructions_inner(&mut self, k: crate::index::ClassId) -> bool {
        let family: Vec<crate::index::ClassId> = (0..self.ix.classes.len())
            .filter(|&x| self.ix.class_chain(x).contains(&k))
            .collect();
        let names: Vec<String> = family
            .iter()
            .map(|&x| self.ix.classes[x].name.clone())
            .collect();
        let src = self.src();
        let nav = self.ix.nav;
        // Other files of the project.
        if let Some(s) = self.project {
            if s.tagged_elsewhere(&names) != Some(false) {
                return false;
            }
        }
        // This file: every construction, by name, from inside the class, or through
        // `super().__init__(…)` of a derived class.
        let mut stack = vec![nav.root()];
        let mut args = Vec::new();
        while let Some(n) = stack.pop() {
            stack.extend(nav.named_children(n));
            if n.kind_name() != "call" {
                continue;
            }
            let Some(func) = n.field(Field::Function) else {
                continue;
            };
            let ftext = text(func, src);
            let last = ftext.rsplit('.').next().unwrap_or(ftext);
            let within = self.ix.enclosing_func(n);
            let constructs = names.iter().any(|x| x == last)
                || self_construction(ftext)
                || (last == "__init__"
                    && within
                        .and_then(|f| self.ix.funcs[f].class)
                        .is_some_and(|c| family.contains(&c)));
            if constructs {
                for a in arg_nodes(nav, n.field(Field::Arguments)) {
                    args.push((a, within));
                }
            }
        }
        for (arg, within) in args {
            if text(arg, src).contains('{') {
                return false;
            }
            let arg = match arg.kind_name() {
                "keyword_argument" => match arg.field(Field::Value) {
                    Some(v) => v,
                    None => continue,
                },
                _ => arg,
            };
            if let Value::Str(t) = self.eval(arg, &crate::eval::Ctx::at(within)) {
                if t.parts
                    .iter()
                    .any(|p| matches!(p, TPart::Lit { bytes, .. } if bytes.contains(&b'{')))
                {
                    return false;
                }
            }
        }
        true
    }
}

/// Where the file (`nav`, `src`) writes each attribute name (`x.attr = …`, `x.attr +=
/// …`, a target of a tuple), each with whether the object is `self`: one walk of the
/// file, read for every attribute.
fn writes(nav: &Nav<'_>, src: &str) -> HashMap<String, Vec<(usize, bool)>> {
    let mut out: HashMap<String, Vec<(usize, bool)>> = HashMap::new();
    let mut stack = vec![nav.root()];
    while let Some(n) = stack.pop() {
        stack.extend(nav.named_children(n));
        if !matches!(n.kind_name(), "assignment" | "augmented_assignment") {
            continue;
        }
        let Some(left) = n.field(Field::Left) else {
            continue;
        };
        let mut targets = vec![left];
        while let Some(t) = targets.pop() {
            match t.kind_name() {
                "attribute" => {
                    let (Some(obj), Some(a)) = (t.field(Field::Object), t.field(Field::Attribute))
                    else {
                        continue;
                    };
                    let of_self = obj.kind_name() == "identifier" && text(obj, src) == "self";
                    out.entry(text(a, src).to_string())
                        .or_default()
                        .push((t.start_byte(), of_self));
                }
                "pattern_list" | "tuple_pattern" | "list_pattern" | "parenthesized_expression" => {
                    targets.extend(nav.named_children(t));
                }
                _ => {}
            }
        }
    }
    out
}

/// The one unknown value `v` is, if it is one.
fn single_hole<'a>(v: &'a Value<'_>) -> Option<&'a crate::tpl::HoleInfo> {
    match v {
        Value::Opaque(h) => Some(h),
        Value::Str(t) => match t.parts.as_slice() {
            [TPart::Hole(h)] => Some(h),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_values_keep_the_binding_they_come_from() {
        let d = derived("f10:project#1", "utils.py::f3[x=<f10:project#1>]:y".into());
        assert_eq!(root_of(&d), Some("f10:project#1"));
        // Derived again (a builder that calls another): the first value stays.
        let dd = derived(&d, "f20:z".into());
        assert_eq!(root_of(&dd), Some("f10:project#1"));
        assert_eq!(root_of("f10:project#1"), None);
        assert_eq!(held_by("param:f10:name#1.c0"), Some("f10:name#1"));
        assert_eq!(held_by("param:f10:name#1.cx"), None);
        assert_eq!(held_by("f10:name#1.c0"), None);
        assert!(mark_config("mod:cfg.get('prefix')".into()).contains(CONFIG_HEAD));
    }
}
