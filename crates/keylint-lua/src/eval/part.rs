//! Values that are a part of a declared key.
//!
//! A script handed one anchor key (`{queue}:meta` in `KEYS[1]`) often cuts it
//! (`string.sub(KEYS[1], 1, -6)`, `KEYS[1]:gsub(':meta$', '')`, a capture of
//! `string.match`, or a local function whose every `return` is its argument or such a
//! part of it) and builds other keys from what it keeps (`base .. ':job:' .. id`).
//! Such a value has the provenance [`Prov::Part`] (certainly a part) or
//! [`Prov::PartOrWhole`] (`KEYS[i]` itself or a part of it): a key that begins with it
//! followed by literal text is derived from `KEYS[i]` and is not one of the `KEYS`.
//! A value computed from two declared keys, or from a part and anything unknown,
//! stays unknown (see `computed`).

use super::{Builtin, Eval, Prov, Spread, Val};
use crate::ast::{Node, F, K};
use crate::template as tpl;
use keylint_core::model::KeyOrigin;
use keylint_core::template::{KeyTemplate, Part};

/// What a value is of the declared key it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Whole,
    Part,
    Either,
}

/// Whether these argument texts of `string.sub` keep the whole string.
fn keeps_whole(args: &[&str]) -> bool {
    matches!(args, ["1"] | ["1", "-1"])
}

impl<'t> Eval<'t, '_> {
    /// `KEYS[i]` itself or a part of it, as one value: its `i` and what it is of it.
    fn root_of(&self, v: &Val<'t>) -> Option<(usize, Root)> {
        let t = match v {
            Val::Str(t) => t,
            // What a call returns (`return string.sub(a, 1, -6)`).
            Val::Other(p) | Val::Spread(Spread::Values(p)) => {
                return match *p {
                    Prov::Part(i) => Some((i, Root::Part)),
                    Prov::PartOrWhole(i) => Some((i, Root::Either)),
                    _ => None,
                }
            }
            _ => return None,
        };
        let [Part::Hole(h)] = t.parts.as_slice() else {
            return None;
        };
        match self.prov_of_binding(&h.binding) {
            Prov::Declared(i @ 1..) if h.binding == format!("KEYS[{i}]") => Some((i, Root::Whole)),
            Prov::Part(i) => Some((i, Root::Part)),
            Prov::PartOrWhole(i) => Some((i, Root::Either)),
            _ => None,
        }
    }

    /// The provenance of a value that is a part of a declared key (what a `return` of a
    /// call keeps of it).
    pub(super) fn part_prov(&self, v: &Val<'t>) -> Option<Prov> {
        match self.root_of(v)? {
            (i, Root::Part) => Some(Prov::Part(i)),
            (i, Root::Either) => Some(Prov::PartOrWhole(i)),
            (_, Root::Whole) => None,
        }
    }

    /// The name of `string.sub`, `string.gsub` or `string.match` when the callee is one.
    pub(super) fn string_fn(&mut self, callee: Node<'t>) -> Option<&'static str> {
        if callee.kind() != K::DotIndexExpression {
            return None;
        }
        let name = match self.text(callee.field(F::Field)?) {
            "sub" => "sub",
            "gsub" => "gsub",
            "match" => "match",
            _ => return None,
        };
        let table = callee.field(F::Table)?;
        matches!(self.expr(table), Val::Builtin(Builtin::StringLib)).then_some(name)
    }

    /// `string.sub(k, …)`, `string.gsub(k, …)`, `string.match(k, …)` (or the method
    /// forms) of a declared key `k` or a part of it: one value standing for the part,
    /// labelled with the call as written. `None` for any other call or subject.
    pub(super) fn part_of_key(
        &mut self,
        func: &str,
        subject: &Val<'t>,
        rest: &[Node<'t>],
        node: Node<'t>,
    ) -> Option<Val<'t>> {
        let (i, _) = self.root_of(subject)?;
        let prov = match func {
            "sub" => {
                let texts: Vec<&str> = rest.iter().map(|n| self.text(*n).trim()).collect();
                if keeps_whole(&texts) {
                    return None;
                }
                // Constant bounds that keep less than the whole: certainly a part.
                let constant = !texts.is_empty()
                    && texts.iter().all(|t| {
                        let d = t.strip_prefix('-').unwrap_or(t);
                        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
                    });
                if constant {
                    Prov::Part(i)
                } else {
                    Prov::PartOrWhole(i)
                }
            }
            // A pattern may not match: the value may be the key unchanged.
            "gsub" | "match" => Prov::PartOrWhole(i),
            _ => return None,
        };
        Some(Val::Str(self.fresh(node, prov)))
    }

    /// The value of a function with several `return`s when each returns `KEYS[i]`, a
    /// part of it, an empty string or nothing, and one returns a part: a part of
    /// `KEYS[i]`, or possibly `KEYS[i]` itself when one return is the whole key.
    pub(super) fn part_return(&self, many: &[Val<'t>]) -> Option<Prov> {
        let mut root = None;
        let (mut part, mut whole) = (false, false);
        for v in many {
            match v {
                Val::Nil => continue,
                Val::Str(t) if t.as_literal().is_some_and(|b| b.is_empty()) => {
                    part = true;
                    continue;
                }
                _ => {}
            }
            let (i, r) = self.root_of(v)?;
            if root.is_some_and(|j| j != i) {
                return None;
            }
            root = Some(i);
            part |= r != Root::Whole;
            whole |= r != Root::Part;
        }
        let i = root?;
        if !part {
            return None;
        }
        Some(if whole {
            Prov::PartOrWhole(i)
        } else {
            Prov::Part(i)
        })
    }

    /// A call's value that is a part of a declared key, named after the call as
    /// written (`derive_base(KEYS[1])`); any other value unchanged.
    pub(super) fn named_part(&mut self, v: Val<'t>, node: Node<'t>) -> Val<'t> {
        match v {
            Val::Other(p @ (Prov::Part(_) | Prov::PartOrWhole(_)))
            | Val::Spread(Spread::Values(p @ (Prov::Part(_) | Prov::PartOrWhole(_)))) => {
                Val::Str(self.fresh(node, p))
            }
            v => v,
        }
    }

    /// The origin of a key that begins with a part of `KEYS[i]`: derived from it when
    /// literal text follows the part, or when the part alone is certainly a part;
    /// unknown when the rest could make it `KEYS[i]` again or another declared key
    /// goes into it. `None` when the key does not begin with such a part.
    pub(super) fn part_origin(&self, t: &KeyTemplate) -> Option<KeyOrigin> {
        let Some(Part::Hole(h)) = t.parts.first() else {
            return None;
        };
        let (i, whole) = match self.prov_of_binding(&h.binding) {
            Prov::Part(i) => (i, false),
            Prov::PartOrWhole(i) => (i, true),
            _ => return None,
        };
        let other_declared = tpl::holes(t).skip(1).any(|h| {
            matches!(
                self.prov_of_binding(&h.binding),
                Prov::Declared(_) | Prov::Part(_) | Prov::PartOrWhole(_)
            )
        });
        if other_declared {
            return Some(KeyOrigin::Unknown);
        }
        Some(match t.parts.get(1) {
            None if !whole => KeyOrigin::DerivedFromDeclared(i),
            Some(Part::Lit(l)) if !l.bytes.is_empty() => KeyOrigin::DerivedFromDeclared(i),
            _ => KeyOrigin::Unknown,
        })
    }
}
