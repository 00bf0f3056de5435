//! `cross-slot-likely`: keys of one atomic unit that almost certainly hash to
//! different slots: two known hash inputs that differ symbolically (`user:{uid}` and
//! `cart:{cid}`), or one key that stands for many keys whose hashed part varies from
//! member to member. The unit analysis is shared with `cross-slot`
//! ([`super::slot_units`]).

use super::slot_units::{FamilyKey, UnitView};
use super::Context;
use crate::diagnostic::{Finding, Severity};
use crate::model::{CrossSlotPolicy, KeyFamily, UnitKind};
use crate::rule::RuleMeta;
use crate::template::{compare, HashInput, KeyTemplate, Part, SymPart, Verdict};

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK002",
    name: "cross-slot-likely",
    severity: Severity::Warning,
    summary: "keys of one atomic operation almost certainly hash to different slots",
};

/// Two known hash inputs that differ symbolically: the first known key, and the first
/// that likely differs from it.
pub(super) fn symbolic(keys: &[usize], inputs: &[HashInput]) -> Option<(usize, usize)> {
    let mut known = keys
        .iter()
        .copied()
        .filter(|&k| inputs[k] != HashInput::Unknown);
    let a = known.next()?;
    let b = known.find(|&k| compare(&inputs[a], &inputs[k]) == Verdict::LikelyDifferent)?;
    Some((a, b))
}

/// Two keys that differ after the one prefix the client prepends to every key and
/// the code does not show (an ioredis `keyPrefix` set out of view): a pair proven or
/// likely in different slots without it, with the prefix's label. Every key of the
/// unit must begin with that same prefix. Without a `{` in the prefix, the keys are
/// hashed from their own tags, or whole with different bytes: different slots but
/// for a 1-in-16384 chance. Keys in one slot without it stay silent.
pub(super) fn after_prefix(u: &UnitView<'_, '_>) -> Option<(usize, usize, String)> {
    let keys = &u.unit.keys;
    let first = u.after_prefix[*keys.first()?].as_ref()?;
    if keys.len() < 2
        || !keys
            .iter()
            .all(|&k| matches!(&u.after_prefix[k], Some((b, _)) if *b == first.0))
    {
        return None;
    }
    let rest: Vec<HashInput> = u
        .after_prefix
        .iter()
        .map(|a| a.as_ref().map_or(HashInput::Unknown, |(_, i)| i.clone()))
        .collect();
    let (a, b) = super::cross_slot::proven(keys, &rest).or_else(|| symbolic(keys, &rest))?;
    let label = u.cx.model.keys[a]
        .template
        .parts
        .iter()
        .find_map(|p| match p {
            Part::Hole(h) if h.binding == first.0 => Some(h.label.clone()),
            _ => None,
        })?;
    Some((a, b, label))
}

/// Why keys that differ after a client prefix the code does not show fail, and what
/// is assumed.
pub(super) fn explain_after_prefix(f: Finding, label: &str) -> Finding {
    f.with_note(format!(
        "every key here begins with `{label}`, a prefix whose value the code does not \
         show; after it these keys are hashed from different bytes, so they share a slot \
         only by a 1-in-16384 chance"
    ))
    .with_note(format!(
        "this holds unless `{label}` carries a hash tag (`{{…}}`): with a tag in it, \
         every key that begins with it hashes only that tag"
    ))
}

/// The labels of the holes of a family key's hash input that vary from member to
/// member: two members then almost surely hash differently. Empty when the family is
/// co-located (its tag is constant, or holds no varying value) or its slot unknown.
fn varying_in_hash(family: &KeyFamily, input: &HashInput) -> Vec<String> {
    let HashInput::Symbolic { parts, .. } = input else {
        return Vec::new();
    };
    let mut labels: Vec<String> = Vec::new();
    for p in parts {
        if let SymPart::Hole { binding, label } = p {
            if family.varying.iter().any(|v| v == binding) && !labels.contains(label) {
                labels.push(label.clone());
            }
        }
    }
    labels
}

/// A key of the unit that stands for many keys whose slots differ from member to
/// member.
pub(super) fn family_key<'m>(u: &UnitView<'_, 'm>) -> Option<FamilyKey<'m>> {
    let keys = &u.unit.keys;
    let found = keys.iter().copied().find_map(|k| {
        let family = *u.facts.families.get(&(u.ui, k))?;
        let labels = varying_in_hash(family, &u.inputs[k]);
        (!labels.is_empty()).then_some(FamilyKey {
            key: k,
            family,
            labels,
            assumed: Vec::new(),
        })
    });
    // Next to other keys only in a multi-key command: a transaction over several
    // kinds of keys under one opaque prefix is what a project tags that prefix for.
    // (Several uses of the one family, `pipe.llen(k).delete(k)`, are one kind.)
    let one_kind = keys.windows(2).all(|w| {
        same_shape(
            &u.cx.model.keys[w[0]].template,
            &u.cx.model.keys[w[1]].template,
        )
    });
    if found.is_some() || (!one_kind && u.unit.kind != UnitKind::Command) {
        return found;
    }
    // A family whose slot is unknown only because its hashed part begins with a prefix
    // the code does not show (`<prefix>:job:<id>`): its members differ unless that
    // prefix carries a hash tag, which the finding says.
    keys.iter().copied().find_map(|k| {
        let family = *u.facts.families.get(&(u.ui, k))?;
        if u.inputs[k] != HashInput::Unknown {
            return None;
        }
        let (input, assumed) = u.cx.model.keys[k]
            .template
            .hash_input_if_untagged(&family.varying)?;
        let labels = varying_in_hash(family, &input);
        (!labels.is_empty()).then_some(FamilyKey {
            key: k,
            family,
            labels,
            assumed,
        })
    })
}

/// Whether two templates are built the same way: the same bytes and the same holes
/// (by binding and kind), wherever they are written.
fn same_shape(a: &KeyTemplate, b: &KeyTemplate) -> bool {
    a.parts.len() == b.parts.len()
        && a.parts.iter().zip(&b.parts).all(|(x, y)| match (x, y) {
            (Part::Lit(l), Part::Lit(m)) => l.bytes == m.bytes,
            (Part::Hole(h), Part::Hole(g)) => h.binding == g.binding && h.kind == g.kind,
            _ => false,
        })
}

/// What the headline says of the keys.
pub(super) fn verb(policy: CrossSlotPolicy) -> &'static str {
    match policy {
        CrossSlotPolicy::NotAtomic => {
            "almost certainly hash to different slots: on a cluster it is not atomic"
        }
        _ => "almost certainly hash to different slots",
    }
}

/// Why two keys of a family almost surely differ, and what is assumed.
pub(super) fn family_notes(cx: &Context<'_>, fk: &FamilyKey<'_>, f: Finding) -> Finding {
    let shown = cx.shown(fk.key);
    let which = quoted(&fk.labels);
    let mut f = f.with_note(format!(
        "`{shown}` stands for many keys ({}): keys of one family `{shown}` differ in \
         {which}, which is hashed, so two of them share a slot only by a 1-in-16384 chance",
        fk.family.source
    ));
    if !fk.assumed.is_empty() {
        let (which, whose) = match fk.assumed.as_slice() {
            [one] => (format!("`{one}`"), "whose value"),
            many => (
                many.iter()
                    .map(|l| format!("`{l}`"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                "whose values",
            ),
        };
        f = f.with_note(format!(
            "this holds unless {which}, {whose} the code does not show, carries a \
             hash tag (`{{…}}`): with a tag in it, every member hashes only that tag"
        ));
    }
    f
}

/// Why a likely pair of distinct keys fails.
pub(super) fn explain(f: Finding) -> Finding {
    f.with_note(
        "these keys are hashed from different bytes, so they share a slot only by a \
         1-in-16384 chance",
    )
}

fn quoted(labels: &[String]) -> String {
    labels
        .iter()
        .map(|l| format!("`{l}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
