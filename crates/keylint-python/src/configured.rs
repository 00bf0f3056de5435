//! Configured values with a literal default the code shows.
//!
//! A key name or prefix that a deployment may configure is unknown, but the code often
//! says what it is when nobody configures it: a constructor parameter with a default
//! stored on `self` (`def __init__(self, jobs_key="app.jobs"): self.jobs_key =
//! jobs_key`, also `self.prefix = prefix or "app"`), or a setting read with
//! `getattr(settings, "APP_PREFIX", "app")`. Such a value is an opaque hole (it may
//! carry a hash tag) whose binding carries its default; the model lists those
//! bindings with their defaults ([`keylint_core::FileModel::configured_defaults`]),
//! and keys in different slots with the defaults are `cross-slot-likely`.
//!
//! The binding is `CONFIGURED`, the default's bytes in hexadecimal, `\u{7}`, then the
//! value's identity, so that it survives being copied into another module's facts
//! (`\u{2}` would not: it marks the binding of an instance's value there).

use crate::eval::{arg_nodes, Ctx, Value};
use crate::index::{text, ClassId, DefKind, SelfAssign};
use crate::syntax::{Field, NodeExt};
use crate::tpl::{is_keylike_label, HoleInfo, Tpl};
use keylint_core::template::{fresh_default_binding, is_fresh_binding, Part};
use keylint_core::KeyUse;
use tree_sitter::Node;

/// The marker that begins the default in a binding.
const CONFIGURED: &str = "\u{7}configured:";

/// The binding of a configured value `id` whose default is `default`.
fn binding(default: &[u8], id: &str) -> String {
    let hex: String = default.iter().map(|b| format!("{b:02x}")).collect();
    format!("{CONFIGURED}{hex}\u{7}{id}")
}

/// The default a binding carries, if it is a configured value's.
pub(crate) fn default_of(binding: &str) -> Option<Vec<u8>> {
    let at = binding.find(CONFIGURED)?;
    // One of several values, one of which is configured (`name:one-of[…]`), is not
    // that value.
    if binding[..at].contains("one-of[") {
        return None;
    }
    let at = at + CONFIGURED.len();
    let rest = &binding[at..];
    let hex = &rest[..rest.find('\u{7}')?];
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The configured values that the keys of a file hold, with their defaults.
pub(crate) fn configured_defaults(keys: &[KeyUse]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for k in keys {
        for p in &k.template.parts {
            if let Part::Hole(h) = p {
                if out.iter().any(|(b, _)| *b == h.binding) {
                    continue;
                }
                if let Some(d) = default_of(&h.binding) {
                    out.push((h.binding.clone(), d));
                }
            }
        }
    }
    out
}

/// A module name whose value is a configured value alone (`PREFIX = getattr(…)`):
/// labelled by that name, as its uses write it.
pub(crate) fn relabel<'t>(v: Value<'t>, name: &str) -> Value<'t> {
    match v {
        Value::Str(mut t) => {
            if let [crate::tpl::TPart::Hole(h)] = t.parts.as_mut_slice() {
                if h.binding.contains(CONFIGURED) {
                    h.label = name.to_string();
                }
            }
            Value::Str(t)
        }
        v => v,
    }
}

/// A value with a fresh default alone (an object's key), labelled `name`.
pub(crate) fn relabel_fresh_default<'t>(v: Value<'t>, name: &str) -> Value<'t> {
    match v {
        Value::Str(mut t) => {
            if let [crate::tpl::TPart::Hole(h)] = t.parts.as_mut_slice() {
                if keylint_core::template::has_fresh_default(&h.binding) {
                    h.label = name.to_string();
                }
            }
            Value::Str(t)
        }
        v => v,
    }
}

/// A configured value: its label as written, its identity and its default.
pub(crate) fn configured(label: &str, id: &str, default: &[u8]) -> Value<'static> {
    Value::Str(Tpl::hole(HoleInfo {
        label: label.to_string(),
        binding: binding(default, id),
        span: None,
        keylike: true,
    }))
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The bytes of a string that is all literal (a literal or a module constant).
    fn literal_bytes(
        &mut self,
        n: Node<'t>,
        func: Option<crate::index::FuncId>,
    ) -> Option<Vec<u8>> {
        match self.eval(n, &Ctx::at(func)) {
            Value::Str(t) => t.as_bytes(),
            _ => None,
        }
    }

    /// `getattr(settings, "APP_PREFIX", "app")`: a setting read with a literal
    /// upper-case name named like a key or a prefix, and a literal default (also through the
    /// parameters of a wrapper followed with its arguments bound: `def
    /// get_setting(name, default): return getattr(settings, name, default)`).
    pub(crate) fn getattr_default(
        &mut self,
        args: Option<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if self.ix.module_defs.contains_key("getattr") {
            return None;
        }
        let [_, name, default] = arg_nodes(self.ix.nav, args)[..] else {
            return None;
        };
        let literal = |me: &mut Self, n: Node<'t>| match me.eval(n, &ctx.deeper()) {
            Value::Str(t) => t.as_bytes(),
            _ => None,
        };
        let name = String::from_utf8(literal(self, name)?).ok()?;
        let default = literal(self, default)?;
        // A setting (upper case by convention), named like a key or a prefix: an
        // attribute of an object read with a fallback is usually there.
        if name.chars().any(|c| c.is_ascii_lowercase()) || !is_keylike_label(&name) {
            return None;
        }
        Some(configured(&name, &format!("getattr:{name}"), &default))
    }

    /// `self.attr`, the one assignment of which (`a`) is, in `__init__`, a parameter
    /// with a literal default (`jobs_key="app.jobs"`) or `param or "app"`, either
    /// named like a key or a prefix (`server="localhost:6379"` is not): a value
    /// the code that makes the object configures, with that default. `label` is how
    /// the use is written.
    pub(crate) fn init_param_default(
        &mut self,
        a: &SelfAssign<'t>,
        c: ClassId,
        attr: &str,
        label: &str,
    ) -> Option<Value<'t>> {
        let f = &self.ix.funcs[a.func];
        if f.name != "__init__" || f.class != Some(c) {
            return None;
        }
        self.init_param_default_plain(a, c, attr, label)
            .or_else(|| self.init_chain_default(a, c, attr, label))
    }

    /// [`Self::init_param_default`] for a parameter, `param or "app"`, `param if
    /// param else "app"` and `options.get("namespace", "app")` (`a` is in `__init__`).
    fn init_param_default_plain(
        &mut self,
        a: &SelfAssign<'t>,
        c: ClassId,
        attr: &str,
        label: &str,
    ) -> Option<Value<'t>> {
        let f = &self.ix.funcs[a.func];
        let v = a.value?;
        if v.kind_name() == "call" {
            return self.options_get_default(v, a, c, attr, label);
        }
        let (param, fallback) = match v.kind_name() {
            "identifier" => (v, None),
            "boolean_operator" => {
                let op = v.field(Field::Operator)?;
                if text(op, self.src()) != "or" {
                    return None;
                }
                (v.field(Field::Left)?, Some(v.field(Field::Right)?))
            }
            // `namespace if namespace else "app"`
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = self.ix.nav.named_children(v).collect();
                let [x, cond, other] = kids.as_slice() else {
                    return None;
                };
                if x.kind_name() != "identifier"
                    || cond.kind_name() != "identifier"
                    || text(*x, self.src()) != text(*cond, self.src())
                {
                    return None;
                }
                (*x, Some(*other))
            }
            _ => return None,
        };
        if param.kind_name() != "identifier" {
            return None;
        }
        let name = text(param, self.src());
        // Named like a key or a prefix: a server address or a client is no key.
        if !is_keylike_label(attr) && !is_keylike_label(name) {
            return None;
        }
        let p = f.params.iter().find(|p| p.name == name && !p.star)?.clone();
        // Summarised for other modules, the constructor's parameters stand for the
        // arguments each call passes: those are used, not the default.
        if self
            .param_override
            .contains_key(&(a.func, p.node.start_byte()))
        {
            return None;
        }
        // The parameter itself, never rebound in `__init__`.
        let defs = f.defs.get(name)?;
        if defs.len() != 1 || !matches!(defs[0].kind, DefKind::Param(_)) {
            return None;
        }
        let parent = f.parent;
        // A literal, or a constant that is one (`DEFAULT_NAMESPACE`, also imported).
        let literal_like =
            |n: Node<'t>| matches!(n.kind_name(), "string" | "identifier" | "attribute");
        let class = self.ix.classes[c].name.clone();
        let default = match fallback {
            Some(r) if literal_like(r) => self.literal_bytes(r, Some(a.func))?,
            // `key or self._create_key()` with a method returning `uuid4().hex`: a
            // random key for every object made without one.
            Some(r) if self.fresh_fallback(r, a.func) => {
                return Some(Value::Str(Tpl::hole(HoleInfo {
                    label: label.to_string(),
                    binding: fresh_default_binding(&format!("{class}.self.{attr}")),
                    span: None,
                    keylike: true,
                })));
            }
            Some(_) => return None,
            None => {
                let d = p.default?;
                if !literal_like(d) {
                    return None;
                }
                self.literal_bytes(d, parent)?
            }
        };
        Some(configured(label, &format!("{class}.self.{attr}"), &default))
    }

    /// The constructor parameter (index after `self`) that `self.attr = param or
    /// <fresh>` of a class of `c`'s chain takes, the fallback a fresh random value
    /// (`self._new_key()` returning `uuid4().hex`): the object of another module
    /// reads the caller's literal there, else the fresh default.
    pub(crate) fn fresh_default_param(&mut self, c: ClassId, attr: &str) -> Option<usize> {
        let chain = self.ix.class_chain(c);
        let assigns = chain
            .iter()
            .find_map(|&k| self.ix.classes[k].self_assigns.get(attr))?;
        let [a] = assigns.as_slice() else {
            return None;
        };
        let f = &self.ix.funcs[a.func];
        if f.name != "__init__" {
            return None;
        }
        let v = a.value?;
        if v.kind_name() != "boolean_operator"
            || v.field(Field::Operator)
                .is_none_or(|o| text(o, self.src()) != "or")
        {
            return None;
        }
        let left = v.field(Field::Left)?;
        if left.kind_name() != "identifier" {
            return None;
        }
        let name = text(left, self.src());
        // Named like a key, as a configured key is.
        if !is_keylike_label(attr) && !is_keylike_label(name) {
            return None;
        }
        // The parameter itself, never rebound in `__init__`.
        if f.defs.get(name).is_none_or(|d| d.len() != 1) {
            return None;
        }
        let i = f
            .params
            .iter()
            .skip(1)
            .position(|p| p.name == name && !p.star)?;
        let (func, right) = (a.func, v.field(Field::Right)?);
        self.fresh_fallback(right, func).then_some(i)
    }

    /// Whether `r`, the fallback of a constructor parameter, evaluated in the
    /// constructor `func`, is a fresh random value (a uuid, a random token), written
    /// there or returned by a method or function of the file.
    fn fresh_fallback(&mut self, r: Node<'t>, func: crate::index::FuncId) -> bool {
        if !matches!(r.kind_name(), "call" | "attribute" | "subscript") {
            return false;
        }
        let v = self.eval(r, &Ctx::at(Some(func)));
        let hole = match &v {
            Value::Opaque(h) => Some(h),
            Value::Str(t) => match t.parts.as_slice() {
                [crate::tpl::TPart::Hole(h)] => Some(h),
                _ => None,
            },
            _ => None,
        };
        hole.is_some_and(|h| is_fresh_binding(&h.binding))
    }

    /// `self.attr` assigned once in `__init__` from a chain of settings that ends in a
    /// literal: `prefix = cfg.key_prefix if cfg.key_prefix is not None else
    /// "app"`, `cfg.prefix or opts.prefix or "app"`, nested conditionals, through a
    /// local assigned once there and `.rstrip(":")`/`.strip()`/`.lower()`-like
    /// normalisations. Every arm but the last reads a parameter of `__init__` (or an
    /// attribute path on one) and the condition of a conditional arm tests that arm
    /// (or an object on its path); the last arm is the default. Named like a key or a
    /// prefix, as the other configured values are (`a` is in `__init__`).
    fn init_chain_default(
        &mut self,
        a: &SelfAssign<'t>,
        c: ClassId,
        attr: &str,
        label: &str,
    ) -> Option<Value<'t>> {
        let mut names = vec![attr.to_string()];
        let (default, arms) = self.chain_default(a.value?, a.func, 0, &mut names)?;
        if arms == 0 || !names.iter().any(|n| is_keylike_label(n)) {
            return None;
        }
        let class = self.ix.classes[c].name.clone();
        Some(configured(label, &format!("{class}.self.{attr}"), &default))
    }

    /// The default of a settings chain `n` evaluated in `func` (see
    /// [`Self::init_chain_default`]) and how many configured arms it has; the names
    /// met (locals, the attributes read) are pushed on `names`.
    fn chain_default(
        &mut self,
        n: Node<'t>,
        func: crate::index::FuncId,
        depth: usize,
        names: &mut Vec<String>,
    ) -> Option<(Vec<u8>, usize)> {
        if depth > 6 {
            return None;
        }
        match n.kind_name() {
            "parenthesized_expression" => {
                let inner = self.ix.nav.named_children(n).next()?;
                self.chain_default(inner, func, depth + 1, names)
            }
            "string" => Some((self.literal_bytes(n, Some(func))?, 0)),
            "identifier" => {
                let name = text(n, self.src());
                let f = &self.ix.funcs[func];
                match f.defs.get(name).map(|d| d.as_slice()) {
                    // A local assigned once in `__init__`.
                    Some([d]) => match d.kind {
                        DefKind::Expr(v) => {
                            names.push(name.to_string());
                            self.chain_default(v, func, depth + 1, names)
                        }
                        _ => None,
                    },
                    // A module constant that is a literal (the last arm).
                    None => Some((self.literal_bytes(n, Some(func))?, 0)),
                    _ => None,
                }
            }
            "call" => {
                // A normalisation of the chain's value: `.rstrip(":")`, `.lower()`.
                let callee = n.field(Field::Function)?;
                if callee.kind_name() != "attribute" {
                    return None;
                }
                let method = text(callee.field(Field::Attribute)?, self.src()).to_string();
                let args = arg_nodes(self.ix.nav, n.field(Field::Arguments));
                let chars = match args.as_slice() {
                    [] => None,
                    [x] if x.kind_name() == "string" => Some(self.literal_bytes(*x, Some(func))?),
                    _ => return None,
                };
                let (d, arms) =
                    self.chain_default(callee.field(Field::Object)?, func, depth + 1, names)?;
                Some((normalise(&method, chars.as_deref(), d)?, arms))
            }
            "boolean_operator" => {
                if text(n.field(Field::Operator)?, self.src()) != "or" {
                    return None;
                }
                // `a or b or "app"` is `(a or b) or "app"`: settings on the left.
                let mut left = vec![n.field(Field::Left)?];
                let mut arms = 0;
                while let Some(l) = left.pop() {
                    let is_or = l.kind_name() == "boolean_operator"
                        && l.field(Field::Operator)
                            .is_some_and(|o| text(o, self.src()) == "or");
                    if is_or {
                        left.push(l.field(Field::Left)?);
                        left.push(l.field(Field::Right)?);
                        continue;
                    }
                    self.setting_read(l, func, names)?;
                    arms += 1;
                }
                let (d, more) =
                    self.chain_default(n.field(Field::Right)?, func, depth + 1, names)?;
                Some((d, arms + more))
            }
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = self.ix.nav.named_children(n).collect();
                let [x, cond, other] = kids.as_slice() else {
                    return None;
                };
                let path = self.setting_read(*x, func, names)?;
                if !self.tests_path(*cond, &path) {
                    return None;
                }
                let (d, arms) = self.chain_default(*other, func, depth + 1, names)?;
                Some((d, arms + 1))
            }
            _ => None,
        }
    }

    /// `n` read as a setting in `__init__` `func`: a parameter, or an attribute path on
    /// one (`backend_config.key_prefix`, `config.names.root`), whose value the caller
    /// chooses. The dotted path, with its attribute names pushed on `names`.
    fn setting_read(
        &mut self,
        n: Node<'t>,
        func: crate::index::FuncId,
        names: &mut Vec<String>,
    ) -> Option<String> {
        let mut root = n;
        let mut attrs = Vec::new();
        while root.kind_name() == "attribute" {
            attrs.push(text(root.field(Field::Attribute)?, self.src()).to_string());
            root = root.field(Field::Object)?;
        }
        if root.kind_name() != "identifier" {
            return None;
        }
        let name = text(root, self.src());
        let f = &self.ix.funcs[func];
        let p = f.params.iter().find(|p| p.name == name && !p.star)?;
        // Summarised for other modules, the constructor's parameters stand for the
        // arguments each call passes: those are used, not the default.
        if self
            .param_override
            .contains_key(&(func, p.node.start_byte()))
        {
            return None;
        }
        let defs = f.defs.get(name)?;
        if !defs.iter().any(|d| matches!(d.kind, DefKind::Param(_))) {
            return None;
        }
        // A bare parameter is the caller's value only if never rebound; an object it
        // names may be replaced by a default object (`cfg = cfg or Config()`), whose
        // attributes are settings all the same.
        if attrs.is_empty() && defs.len() != 1 {
            return None;
        }
        if attrs.is_empty() {
            names.push(name.to_string());
        }
        names.extend(attrs.iter().cloned());
        Some(text(n, self.src()).to_string())
    }

    /// Whether `cond` tests the setting at `path` or an object on its way: `x`, `x is
    /// not None`, `cfg is not None` for `cfg.prefix`.
    fn tests_path(&self, cond: Node<'t>, path: &str) -> bool {
        let on_path = |t: &str| path == t || path.starts_with(&format!("{t}."));
        match cond.kind_name() {
            "identifier" | "attribute" => on_path(text(cond, self.src())),
            "comparison_operator" => {
                let t = text(cond, self.src());
                let Some(lhs) = t.strip_suffix("is not None") else {
                    return false;
                };
                on_path(lhs.trim())
            }
            _ => false,
        }
    }

    /// `self.attr = options.get("namespace", DEFAULT)` (or `.pop`) in `__init__`, `options` a
    /// parameter never rebound there, the entry's name a literal and the default a
    /// literal or a constant that is one, either named like a key or a prefix.
    fn options_get_default(
        &mut self,
        call: Node<'t>,
        a: &SelfAssign<'t>,
        c: ClassId,
        attr: &str,
        label: &str,
    ) -> Option<Value<'t>> {
        let func = call.field(Field::Function)?;
        // `options.pop("namespace", DEFAULT)` of `**options` reads it the same way.
        if func.kind_name() != "attribute"
            || !matches!(
                text(func.field(Field::Attribute)?, self.src()),
                "get" | "pop"
            )
        {
            return None;
        }
        let obj = func.field(Field::Object)?;
        if obj.kind_name() != "identifier" {
            return None;
        }
        let f = &self.ix.funcs[a.func];
        let owner = text(obj, self.src());
        let p = f.params.iter().find(|p| p.name == owner)?.clone();
        // The mapping the caller passes, never rebound in `__init__`.
        let defs = f.defs.get(owner)?;
        if defs.len() != 1 || !matches!(defs[0].kind, DefKind::Param(_)) {
            return None;
        }
        if self
            .param_override
            .contains_key(&(a.func, p.node.start_byte()))
        {
            return None;
        }
        let [entry, default] = arg_nodes(self.ix.nav, call.field(Field::Arguments))[..] else {
            return None;
        };
        if entry.kind_name() != "string"
            || !matches!(default.kind_name(), "string" | "identifier" | "attribute")
        {
            return None;
        }
        let entry = String::from_utf8(self.literal_bytes(entry, Some(a.func))?).ok()?;
        if !is_keylike_label(attr) && !is_keylike_label(&entry) {
            return None;
        }
        let default = self.literal_bytes(default, Some(a.func))?;
        let class = self.ix.classes[c].name.clone();
        Some(configured(label, &format!("{class}.self.{attr}"), &default))
    }
}

/// A string method that normalises a setting, applied to its default: `strip`,
/// `lstrip`, `rstrip` (with no argument or literal characters), `lower`, `upper`.
fn normalise(method: &str, chars: Option<&[u8]>, d: Vec<u8>) -> Option<Vec<u8>> {
    let strip = |b: &u8| match chars {
        Some(cs) => cs.contains(b),
        None => b.is_ascii_whitespace(),
    };
    let start = |d: &[u8]| d.iter().position(|b| !strip(b)).unwrap_or(d.len());
    let end = |d: &[u8]| d.iter().rposition(|b| !strip(b)).map_or(0, |i| i + 1);
    match (method, chars) {
        ("rstrip", _) => Some(d[..end(&d)].to_vec()),
        ("lstrip", _) => Some(d[start(&d)..].to_vec()),
        ("strip", _) => {
            let s = start(&d);
            Some(d[s..end(&d).max(s)].to_vec())
        }
        ("lower", None) => Some(d.to_ascii_lowercase()),
        ("upper", None) => Some(d.to_ascii_uppercase()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_round_trips_through_binding() {
        let b = binding(b"app.jobs", "Store.self.jobs_key");
        assert_eq!(default_of(&b).as_deref(), Some(&b"app.jobs"[..]));
        // Facts of another module put a qualifier before it.
        let q = format!("mod:x/{b}");
        assert_eq!(default_of(&q).as_deref(), Some(&b"app.jobs"[..]));
        assert_eq!(default_of("Store.self.jobs_key"), None);
        assert_eq!(default_of(&binding(b"", "x")).as_deref(), Some(&b""[..]));
        // One of several values, one of them configured, has no default of its own.
        let one_of = format!("_key:one-of[<{b}>|\"global\"]");
        assert_eq!(default_of(&one_of), None);
    }

    #[test]
    fn normalised_defaults() {
        let n = |m: &str, c: Option<&str>, d: &str| {
            normalise(m, c.map(str::as_bytes), d.as_bytes().to_vec())
                .map(|v| String::from_utf8(v).unwrap())
        };
        assert_eq!(n("rstrip", Some(":"), "app::").as_deref(), Some("app"));
        assert_eq!(n("lstrip", Some(":"), ":app:").as_deref(), Some("app:"));
        assert_eq!(n("strip", None, "  app ").as_deref(), Some("app"));
        assert_eq!(n("strip", Some(":"), ":::").as_deref(), Some(""));
        assert_eq!(n("lower", None, "App").as_deref(), Some("app"));
        assert_eq!(n("lower", Some("x"), "App"), None);
        assert_eq!(n("replace", None, "App"), None);
    }
}
