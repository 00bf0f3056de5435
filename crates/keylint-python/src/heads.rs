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
use std::collections::HashSet;
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
pub(crate) fn is_config_read<'t>(nav: &Nav<'t>, n: Node<'t>, src: &'t str) -> bool {
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
            let [entry] = args.as_slice() else {
                return false;
            };
            let Some(name) = plain_string(nav, *entry, src) else {
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

/// The heads that keys of the file begin with: configured values and the caller's
/// values (`callers`, the bindings of parameters read as they are), each with what it
/// is as findings name it.
pub(crate) fn heads_of(keys: &[KeyUse], callers: &HashSet<String>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for k in keys {
        let Some(Part::Hole(h)) = k
            .template
            .parts
            .iter()
            .find(|p| !matches!(p, Part::Lit(l) if l.bytes.is_empty()))
        else {
            continue;
        };
        if out.iter().any(|(b, _)| *b == h.binding) {
            continue;
        }
        let origin = if is_config_head(&h.binding) && h.binding.contains("global-rebound:") {
            "a module value that a setter function assigns at run time"
        } else if is_config_head(&h.binding) {
            "a setting read from configuration"
        } else if callers.contains(&h.binding)
            || root_of(&h.binding).is_some_and(|r| callers.contains(r))
            || held_by(&h.binding).is_some_and(|r| callers.contains(r))
        {
            "a value the caller passes in"
        } else {
            continue;
        };
        out.push((h.binding.clone(), origin.to_string()));
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
    pub(crate) fn config_head(&self, e: Node<'t>, ctx: &crate::eval::Ctx<'t>) -> Option<Value<'t>> {
        if !is_config_read(self.ix.nav, e, self.src()) {
            return None;
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
