//! Facts of a base class of another module that the objects of its subclasses keep.
//!
//! `self.key = key or self._new_key()` in the constructor of a class of another
//! module (the method returning `uuid4().hex`): the summary keeps the attribute as
//! a value with a fresh default, one per object, and which constructor parameter it
//! comes from. A subclass that passes the base a literal key (`super().__init__(
//! client, "tags:live")`) has that key; any other argument, or none the code shows,
//! leaves the fresh default (the caveat says the caller may give a tagged key).

use crate::tpl::{HoleInfo, TPart, Tpl};

/// The key of each object of class `class` (of the module `qual`) set from a
/// constructor parameter with a fresh fallback: a value with a fresh default.
pub(crate) fn fresh_key(class: &str, attr: &str, qual: &str) -> Tpl {
    Tpl::hole(HoleInfo {
        label: format!("self.{attr}"),
        binding: format!(
            "{qual}{}",
            keylint_core::template::fresh_default_binding(&format!("{class}.self.{attr}"))
        ),
        span: None,
        keylike: true,
    })
}

/// The key a constructor argument gives when it is all literal and not empty (an
/// empty one falls back to the fresh value).
pub(crate) fn given_literal(arg: &(Tpl, String)) -> Option<Tpl> {
    let bytes = arg.0.as_bytes()?;
    (!bytes.is_empty()).then(|| arg.0.clone())
}

/// `t` (one value with a fresh default) as the value of each object: its binding
/// behind `prefix`, which the object's identity replaces where it is read.
pub(crate) fn per_object(t: &Tpl, prefix: &str) -> Tpl {
    let mut out = t.clone();
    for p in &mut out.parts {
        if let TPart::Hole(h) = p {
            h.span = None;
            h.binding = format!("{prefix}{}", h.binding);
        }
    }
    out
}
