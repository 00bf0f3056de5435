//! `cross-slot-likely`: keys of one atomic unit that almost certainly hash to
//! different slots: two known hash inputs that differ symbolically (`user:{uid}` and
//! `cart:{cid}`), or one key that stands for many keys whose hashed part varies from
//! member to member. The unit analysis is shared with `cross-slot`
//! ([`super::slot_units`]).

use super::slot_units::{FamilyKey, UnitView};
use super::Context;
use crate::diagnostic::{Finding, Severity};
use crate::model::{CrossSlotPolicy, FileModel, KeyFamily, UnitKind};
use crate::rule::RuleMeta;
use crate::template::{
    compare, fresh_binding, has_fresh_default, HashInput, Hole, HoleKind, KeyTemplate, Lit,
    Part, SourceMap, SymPart, Verdict,
};

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
/// unit must begin with that same prefix, after the same literal text if any (`"q:" +
/// name`, text with no `{`). Without a `{` in the prefix, the keys are
/// hashed from their own tags, or whole with different bytes: different slots but
/// for a 1-in-16384 chance. Keys in one slot without it stay silent.
pub(super) fn after_prefix(
    u: &UnitView<'_, '_>,
) -> Option<(usize, usize, String, String, Vec<u8>)> {
    let keys = &u.unit.keys;
    let first = u.after_prefix[*keys.first()?].as_ref()?;
    if keys.len() < 2
        || !keys
            .iter()
            .all(|&k| matches!(&u.after_prefix[k], Some((b, lead, _)) if *b == first.0 && *lead == first.1))
    {
        return None;
    }
    let rest: Vec<HashInput> = u
        .after_prefix
        .iter()
        .map(|a| a.as_ref().map_or(HashInput::Unknown, |(_, _, i)| i.clone()))
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
    Some((a, b, label, first.0.clone(), first.1.clone()))
}

/// Why keys that differ after a client prefix the code does not show fail, and what
/// is assumed.
/// `origin` names what puts the prefix there when the code says it; `lead` is the
/// literal text every key has before it, if any.
pub(super) fn explain_after_prefix(
    f: Finding,
    label: &str,
    origin: Option<&str>,
    lead: Option<&str>,
) -> Finding {
    let begins = match origin {
        Some(o) => format!("`{label}`, {o}, whose value"),
        None => format!("`{label}`, a prefix whose value"),
    };
    let begins = match lead {
        Some(l) => format!("`{l}` and then {begins}"),
        None => begins,
    };
    f.with_note(format!(
        "every key here begins with {begins} the code does not \
         show; after it these keys are hashed from different bytes, so they share a slot \
         only by a 1-in-16384 chance"
    ))
    .with_note(format!(
        "this holds unless `{label}` carries a hash tag (`{{…}}`): with a tag in it, \
         every key that begins with it hashes only that tag"
    ))
}

/// Configured values as findings name them: each one's label and default, as shown
/// (a literal quoted, or [`FRESH_SHOWN`]).
pub(super) type Configured = Vec<(String, String)>;

/// How a fresh default is shown (see [`crate::template::fresh_default_binding`]).
const FRESH_SHOWN: &str = "a fresh random value";

/// Most keys of one unit given the defaults of their configured values.
const MAX_CONFIGURED: usize = 64;

/// Two keys in different slots once every configured value they hold takes the
/// literal default the code gives it (`jobs_key="app.jobs"` next to
/// `run_times_key="app.run_times"`, or `<prefix>:failed` next to `<prefix>:blocked`
/// under a prefix read with a default of `"defender"`): a deployment that keeps the
/// defaults fails. At least one key of the pair holds such a value (a pair without
/// one is judged as it is). With each configured value of the pair: its label and
/// default, as findings name them; and whether the defaults prove the slots apart
/// (both keys known whole) or only leave the keys hashed from different bytes.
pub(super) fn with_defaults(u: &UnitView<'_, '_>) -> Option<(usize, usize, Configured, bool)> {
    let model = u.cx.model;
    let keys: Vec<usize> = u.unit.keys.iter().copied().take(MAX_CONFIGURED).collect();
    let fresh_default = || {
        keys.iter().any(|&k| {
            model.keys[k]
                .template
                .parts
                .iter()
                .any(|p| matches!(p, Part::Hole(h) if has_fresh_default(&h.binding)))
        })
    };
    if model.configured_defaults.is_empty() && !fresh_default() {
        return None;
    }
    let mut configured: Vec<Configured> = Vec::with_capacity(keys.len());
    let mut inputs: Vec<HashInput> = Vec::with_capacity(keys.len());
    for &k in &keys {
        match with_default_values(model, &model.keys[k].template) {
            Some((input, named)) => {
                inputs.push(input);
                configured.push(named);
            }
            None => {
                inputs.push(u.inputs[k].clone());
                configured.push(Vec::new());
            }
        }
    }
    if configured.iter().all(Vec::is_empty) {
        return None;
    }
    let local: Vec<usize> = (0..keys.len()).collect();
    let proven = super::cross_slot::proven(&local, &inputs);
    let (a, b) = proven.or_else(|| symbolic(&local, &inputs))?;
    if configured[a].is_empty() && configured[b].is_empty() {
        return None;
    }
    let mut named = configured[a].clone();
    for x in &configured[b] {
        if !named.contains(x) {
            named.push(x.clone());
        }
    }
    Some((keys[a], keys[b], named, proven.is_some()))
}

/// The hash input of a key once each configured value it holds takes its default,
/// with those values' labels and defaults; `None` when it holds none. A value with a
/// fresh default takes a fresh value of its own identity: two objects' keys are two
/// random values, one object's key is one.
pub(super) fn with_default_values(
    model: &FileModel,
    t: &KeyTemplate,
) -> Option<(HashInput, Configured)> {
    let (out, named) = template_with_defaults(model, t)?;
    Some((out.hash_input(), named))
}

/// The template of a key once each configured value it holds takes its default, with
/// those values' labels and defaults; `None` when it holds none.
pub(super) fn template_with_defaults(
    model: &FileModel,
    t: &KeyTemplate,
) -> Option<(KeyTemplate, Configured)> {
    let default_of = |b: &str| {
        model
            .configured_defaults
            .iter()
            .find(|(x, _)| x == b)
            .map(|(_, d)| d)
    };
    let mut named: Vec<(String, String)> = Vec::new();
    let mut out = KeyTemplate::default();
    for p in &t.parts {
        match p {
            Part::Hole(h) if has_fresh_default(&h.binding) => {
                let shown = (h.label.clone(), FRESH_SHOWN.to_string());
                if !named.contains(&shown) {
                    named.push(shown);
                }
                out.parts.push(Part::Hole(Hole {
                    binding: fresh_binding(&h.binding),
                    kind: HoleKind::Fragment,
                    ..h.clone()
                }));
            }
            Part::Hole(h) => match default_of(&h.binding) {
                Some(d) => {
                    let shown = (
                        h.label.clone(),
                        format!("{:?}", String::from_utf8_lossy(d).into_owned()),
                    );
                    if !named.contains(&shown) {
                        named.push(shown);
                    }
                    out.parts.push(Part::Lit(Lit {
                        bytes: d.clone(),
                        map: SourceMap::None,
                    }));
                }
                None => out.parts.push(p.clone()),
            },
            Part::Lit(_) => out.parts.push(p.clone()),
        }
    }
    if named.is_empty() {
        return None;
    }
    Some((out, named))
}

/// Why keys that differ with the defaults of configured values fail, and what is
/// assumed.
/// `apart` says the defaults prove the slots different; otherwise the keys are only
/// hashed from different bytes with them.
pub(super) fn explain_with_defaults(
    f: Finding,
    named: &[(String, String)],
    apart: bool,
) -> Finding {
    let values = named
        .iter()
        .map(|(l, d)| {
            if d == FRESH_SHOWN {
                format!("`{l}` (by default {d})")
            } else {
                format!("`{l}` (default `{d}`)")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    let fresh = named.iter().any(|(_, d)| d == FRESH_SHOWN);
    let (it, them) = if named.len() == 1 {
        ("this value", "it")
    } else {
        ("these values", "them")
    };
    let f = f.with_note(format!(
        "these keys hold {values}, configured where the code does not show; with the \
         default{} the code gives, {}",
        if named.len() == 1 { "" } else { "s" },
        if apart {
            "the keys are in different slots"
        } else {
            "the keys are hashed from different bytes, so they share a slot only by a \
             1-in-16384 chance"
        }
    ));
    if fresh {
        // A random key per object: what the caller may do instead is give the keys
        // one tag, or hand the same object twice.
        return f.with_note(
            "a fresh default is a random key of each object, with no hash tag: it shares \
             a slot with another key only by a 1-in-16384 chance, unless the code that \
             makes the objects gives their keys one hash tag (`{…}`) on purpose, or \
             both keys are those of one object"
                .to_string(),
        );
    }
    f.with_note(format!(
        "this holds unless {it} {} configured with a hash tag (`{{…}}`) that puts the keys \
         in one slot; a deployment that keeps {them} as written fails",
        if named.len() == 1 { "is" } else { "are" }
    ))
}

/// Most keys of one unit compared pairwise around the caller's values.
const MAX_AROUND: usize = 64;

/// A key that is a value the caller passes in (a parameter used as the key, such as a
/// leaderboard's name or a cache key) next to a key the code builds around it, with
/// text that differs whatever the values: `name` and `name + ":member_data"`. Their
/// slots are unknown only because that value may carry a hash tag; without one, the
/// keys are hashed from different bytes. Keys that only share a value as their prefix
/// (`f"{prefix}:a"`, `f"{prefix}:b"`) stay unknown: a namespace is what a project tags
/// for a cluster. With the label of the caller's value, which the finding names.
#[allow(clippy::type_complexity)]
pub(super) fn around_caller_value(
    u: &UnitView<'_, '_>,
) -> Option<(usize, usize, Vec<String>, Option<String>, Option<String>)> {
    let model = u.cx.model;
    if model.caller_values.is_empty() && model.lead_prefixes.is_empty() {
        return None;
    }
    let opaque = |k: usize| -> Vec<(&str, &str)> {
        model.keys[k]
            .template
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Hole(h) if h.kind == HoleKind::Opaque => {
                    Some((h.binding.as_str(), h.label.as_str()))
                }
                _ => None,
            })
            .collect()
    };
    // A value the caller passes in, or a constructor's argument stored as it is on
    // the object (`self.name = name`, with what stores it): the same value in every
    // key built on it.
    let stored = |b: &str| -> Option<&str> {
        if !model.lead_prefixes.iter().any(|c| c == b) {
            return None;
        }
        model
            .prefix_origins
            .iter()
            .find(|(x, _)| x == b)
            .map(|(_, o)| o.as_str())
    };
    let is_caller = |b: &str| model.caller_values.iter().any(|c| c == b) || stored(b).is_some();
    // The keys that are a caller's value alone.
    let keys: Vec<usize> = u
        .unit
        .keys
        .iter()
        .copied()
        .filter(|&k| {
            matches!(model.keys[k].template.text_parts().as_slice(),
                [SymPart::Hole { binding, .. }] if is_caller(binding))
                && opaque(k).len() == 1
        })
        .take(MAX_AROUND)
        .collect();
    let all: Vec<usize> = u.unit.keys.iter().copied().take(MAX_AROUND).collect();
    for &a in &keys {
        let oa = opaque(a);
        for &b in &all {
            if a == b || (u.inputs[a] != HashInput::Unknown && u.inputs[b] != HashInput::Unknown)
            {
                continue;
            }
            // The other key may hold the value as a fragment (`f"unack_{name}"`,
            // read as holding no brace there): it is still the same value.
            let ob: Vec<&str> = model.keys[b]
                .template
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Hole(h) => Some(h.binding.as_str()),
                    _ => None,
                })
                .collect();
            let shared: Vec<(&str, &str)> = oa
                .iter()
                .copied()
                .filter(|(x, _)| ob.iter().any(|y| x == y))
                .collect();
            if shared.is_empty() || shared.iter().any(|(x, _)| !is_caller(x)) {
                continue;
            }
            let ta = &model.keys[a].template;
            let tb = &model.keys[b].template;
            // As hashed if the value carries no tag (a key that holds it only as a
            // fragment is hashed so already).
            let untagged = |t: &KeyTemplate, k: usize| {
                t.hash_input_if_untagged(&[])
                    .map(|(i, _)| i)
                    .or_else(|| (u.inputs[k] != HashInput::Unknown).then(|| u.inputs[k].clone()))
            };
            let (Some(ia), Some(ib)) = (untagged(ta, a), untagged(tb, b)) else {
                continue;
            };
            if compare(&ia, &ib) != Verdict::LikelyDifferent || !texts_differ(ta, tb) {
                continue;
            }
            let mut labels: Vec<String> = Vec::new();
            let mut whose: Option<String> = None;
            for (x, l) in shared {
                if !labels.iter().any(|y| y == l) {
                    labels.push(l.to_string());
                }
                if !model.caller_values.iter().any(|c| c == x) {
                    whose = stored(x).map(str::to_string);
                }
            }
            if labels.len() > 1 {
                whose = None;
            }
            // The other key may hash a tag the code writes before the value: it is
            // then in that tag's slot whatever the value holds.
            let tag = match &u.inputs[b] {
                HashInput::Concrete {
                    bytes,
                    whole: false,
                    ..
                } => Some(String::from_utf8_lossy(bytes).into_owned()),
                _ => None,
            };
            return Some((a, b, labels, tag, whose));
        }
    }
    None
}

/// Whether two templates evaluate to different text whatever their holes hold: after
/// the parts they share at the start (and at the end), one has nothing left and the
/// other literal bytes, or both go on with literal bytes that differ.
pub(super) fn texts_differ(a: &KeyTemplate, b: &KeyTemplate) -> bool {
    let (pa, pb) = (a.text_parts(), b.text_parts());
    let front = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&pa[front..], &pb[front..]);
    let back = ra
        .iter()
        .rev()
        .zip(rb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ra, rb) = (&ra[..ra.len() - back], &rb[..rb.len() - back]);
    let has_bytes = |r: &[SymPart]| r.iter().any(|p| matches!(p, SymPart::Bytes(b) if !b.is_empty()));
    if ra.is_empty() || rb.is_empty() {
        return has_bytes(ra) || has_bytes(rb);
    }
    // Bytes that conflict where neither is a prefix (or suffix) of the other.
    let clash = |x: &[u8], y: &[u8], from_end: bool| {
        let n = x.len().min(y.len());
        if from_end {
            x[x.len() - n..] != y[y.len() - n..]
        } else {
            x[..n] != y[..n]
        }
    };
    let starts = match (&ra[0], &rb[0]) {
        (SymPart::Bytes(x), SymPart::Bytes(y)) => clash(x, y, false),
        _ => false,
    };
    let ends = match (ra.last(), rb.last()) {
        (Some(SymPart::Bytes(x)), Some(SymPart::Bytes(y))) => clash(x, y, true),
        _ => false,
    };
    starts || ends
}

/// Why two keys built around the caller's values fail, and what is assumed. `tag`:
/// the constant hash tag that the other key writes before the value, if any.
pub(super) fn explain_around(
    f: Finding,
    labels: &[String],
    tag: Option<&str>,
    stored: Option<&str>,
) -> Finding {
    let (which, whose) = match labels {
        [one] => (
            format!("`{one}`"),
            stored.unwrap_or("a value the caller passes in"),
        ),
        many => (
            many.iter()
                .map(|l| format!("`{l}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            "values the caller passes in",
        ),
    };
    if let Some(tag) = tag {
        return f
            .with_note(format!(
                "these keys are built around {which}: one is hashed whole (or by a tag in \
                 it), the other by the constant tag `{{{tag}}}` the code writes before it, \
                 so they share a slot only by a 1-in-16384 chance"
            ))
            .with_note(format!(
                "this holds unless {which}, {whose}, carries that very tag, `{{{tag}}}`"
            ));
    }
    f.with_note(format!(
        "these keys are built around {which} and differ in the text the code adds, so \
         without a hash tag they are hashed from different bytes and share a slot only by \
         a 1-in-16384 chance"
    ))
    .with_note(format!(
        "this holds unless {which}, {whose}, carries a hash tag (`{{…}}`): with a tag in \
         it, every key built around it hashes only that tag"
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
            by_project: false,
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
    // prefix carries a hash tag, which the finding says. In a project that writes no
    // tag, a varying value that begins a key built on it (`f"{asn}|clean_set"`) is
    // taken as untagged as well.
    let lead = untagged_here(u.cx);
    keys.iter().copied().find_map(|k| {
        let family = *u.facts.families.get(&(u.ui, k))?;
        if u.inputs[k] != HashInput::Unknown {
            return None;
        }
        let template = &u.cx.model.keys[k].template;
        let (input, assumed, by_project) = match template.hash_input_if_untagged(&family.varying) {
            Some((i, a)) => (i, a, false),
            None if lead => {
                let (i, a) = template.hash_input_if_untagged_led(&family.varying, true)?;
                (i, a, true)
            }
            None => return None,
        };
        let labels = varying_in_hash(family, &input);
        (!labels.is_empty()).then_some(FamilyKey {
            key: k,
            family,
            labels,
            assumed,
            by_project,
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
        if fk.by_project {
            f = f.with_note(
                "no source file of this project writes or mentions a hash tag, so a value \
                 that begins a key built on it is taken as carrying none; if such values \
                 are tagged where they are passed in, set `untagged-values = false` under \
                 `[cross-slot-likely]` in the configuration",
            );
        }
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

/// Labels in backticks, comma-separated.
pub(super) fn quoted(labels: &[String]) -> String {
    labels
        .iter()
        .map(|l| format!("`{l}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the values the code does not show may be taken as untagged here: the
/// option is on, the project writes no tag, and neither does this file (a file that
/// writes a brace in a key writes tags, whatever the project scan said).
pub(super) fn untagged_here(cx: &Context<'_>) -> bool {
    cx.settings.untagged_values
        && cx.model.facts.project_tags == crate::model::ProjectTags::NoneWritten
        && !cx.writes_brace()
}

/// Two keys that differ once every value the code does not show is taken as
/// carrying no hash tag, in a project that writes none
/// ([`crate::model::ProjectTags::NoneWritten`]): `f"{prefix}:failures"` next to
/// `f"{prefix}:last_failure"`, `"pools"` next to `f"{flavor}.pools"`. Their slots are
/// unknown only because such a value might carry a tag; where nothing in the project
/// writes one, a namespace, a name or an id is hashed as the plain text it is.
///
/// Only keys the client sends (not keys a script builds), only pairs whose literal
/// text differs (two keys that differ only in which value fills a hole may be one
/// key), and never two keys that are each a value alone (a source and a destination
/// the caller chooses). With the labels of the values assumed untagged.
#[allow(clippy::type_complexity)]
pub(super) fn untagged_project(
    u: &UnitView<'_, '_>,
) -> Option<(usize, usize, Vec<String>, Configured)> {
    let cx = u.cx;
    let model = cx.model;
    if !untagged_here(cx) {
        return None;
    }
    struct Cand {
        key: usize,
        input: HashInput,
        labels: Vec<String>,
        skeleton: Vec<Option<Vec<u8>>>,
        alone: bool,
        configured: Configured,
    }
    let mut cands: Vec<Cand> = Vec::new();
    for &k in u.unit.keys.iter().take(MAX_AROUND) {
        if cx.in_script(k) || model.keys[k].origin != crate::model::KeyOrigin::Direct {
            continue;
        }
        // A configured value takes the default the code gives it (`self.ns` of
        // `options.pop("member_data_namespace", "member_data")`): it is literal text
        // then, not a value alone.
        let (t, configured) = match template_with_defaults(model, &model.keys[k].template) {
            Some((t, named)) => (std::borrow::Cow::Owned(t), named),
            None => (
                std::borrow::Cow::Borrowed(&model.keys[k].template),
                Vec::new(),
            ),
        };
        let (input, labels) = match t.hash_input_if_untagged(&[]) {
            Some((i, labels)) => (i, labels),
            None if configured.is_empty() => (u.inputs[k].clone(), Vec::new()),
            None => (t.hash_input(), Vec::new()),
        };
        if input == HashInput::Unknown {
            continue;
        }
        let parts = t.text_parts();
        let alone = matches!(parts.as_slice(), [SymPart::Hole { .. }]);
        let skeleton = parts
            .into_iter()
            .map(|p| match p {
                SymPart::Bytes(b) => Some(b),
                SymPart::Hole { .. } => None,
            })
            .collect();
        cands.push(Cand {
            key: k,
            input,
            labels,
            skeleton,
            alone,
            configured,
        });
    }
    for (i, a) in cands.iter().enumerate() {
        for b in &cands[i + 1..] {
            if (a.alone && b.alone)
                || (a.labels.is_empty() && b.labels.is_empty())
                || a.skeleton == b.skeleton
            {
                continue;
            }
            if !matches!(
                compare(&a.input, &b.input),
                Verdict::Different | Verdict::LikelyDifferent
            ) {
                continue;
            }
            let mut labels = a.labels.clone();
            for l in &b.labels {
                if !labels.contains(l) {
                    labels.push(l.clone());
                }
            }
            let mut configured = a.configured.clone();
            for x in &b.configured {
                if !configured.contains(x) {
                    configured.push(x.clone());
                }
            }
            return Some((a.key, b.key, labels, configured));
        }
    }
    None
}

/// Why keys that differ once the project's unseen values are taken as untagged fail,
/// and what is assumed.
pub(super) fn explain_untagged(f: Finding, labels: &[String]) -> Finding {
    let named = quoted(labels);
    let (it, is, carries) = match labels {
        [_] => ("it", "is", "carries"),
        _ => ("they", "are", "carry"),
    };
    f.with_note(format!(
        "the code does not show the value of {named}; no source file of this project \
         writes or mentions a hash tag, so {it} {is} taken as carrying none, and these keys are \
         hashed from different bytes: they share a slot only by a 1-in-16384 chance"
    ))
    .with_note(format!(
        "this holds unless {named} {carries} a hash tag (`{{…}}`) where {it} {is} \
         configured or passed in; if so, set `untagged-values = false` under \
         `[cross-slot-likely]` in the configuration"
    ))
}
