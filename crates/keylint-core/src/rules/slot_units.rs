//! The analysis behind `cross-slot` and `cross-slot-likely`: for each atomic unit,
//! find two keys that are (or almost certainly are) in different slots, or one key
//! that stands for many keys whose slots differ; then explain the finding and suggest
//! a hash tag.
//!
//! One analysis decides between the two rules, because a unit gets one finding: the
//! proven pair when there is one ([`cross_slot::proven`]), else a likely one
//! ([`cross_slot_likely::symbolic`], [`cross_slot_likely::family_key`]). What each rule
//! says on its own is in its file; the anatomy of the finding (labels, the client's
//! notes, the suggestion) is here.

use super::unknown_tail::{self, Tail};
use super::{cross_slot, cross_slot_likely, fresh_key, Context, FSTRING_TRAP};
use crate::diagnostic::{Edit, Finding, Fix, Label, Severity};
use crate::model::{
    ClientRefusal, CrossSlotPolicy, FileModel, KeyFamily, Unit, UnitKind, UnitLabel,
};
use crate::rule::Rule;
use crate::suggest::{suggest_tag_with, NoSuggestion, TagSuggestion};
use crate::template::{HashInput, KeyTemplate, SymPart};
use crate::Span;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// Most labels shown on one finding; the rest are counted in a note.
const MAX_LABELS: usize = 8;

/// Most distinct keys a hash-tag suggestion is computed for.
const MAX_SUGGESTED_KEYS: usize = 32;

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let model = cx.model;
    let inputs: Vec<HashInput> = model.keys.iter().map(|k| k.template.hash_input()).collect();
    // The hash input of each key after a client prefix the code does not show.
    let after_prefix: Vec<Option<(String, Vec<u8>, HashInput)>> = model
        .keys
        .iter()
        .map(|k| {
            if model.client_prefixes.is_empty() {
                return None;
            }
            let (rest, binding, lead) = k
                .template
                .strip_leading_hole(&model.client_prefixes, &model.lead_prefixes)?;
            Some((binding, lead, rest.hash_input()))
        })
        .collect();
    let mut facts = UnitFacts::default();
    for f in &model.families {
        facts.families.insert((f.unit, f.key), f);
    }
    for n in &model.unit_notes {
        facts.notes.entry(n.unit).or_default().push(&n.note);
    }
    for l in &model.unit_labels {
        facts.labels.entry(l.unit).or_default().push(l);
    }
    // Each key of a reported unit, with the finding (its index in `out`) that
    // reported it and the unit.
    let mut reported: HashMap<usize, (usize, usize)> = HashMap::new();
    // Each key of a unit listed by `cross-slot-unknown`.
    let mut listed: HashSet<usize> = HashSet::new();
    for (ui, unit) in model.units.iter().enumerate() {
        if unit.policy == CrossSlotPolicy::Split {
            // The client splits the call per slot: it works, only atomicity is lost.
            continue;
        }
        // A block whose own command was already reported would repeat that finding.
        if unit.kind != UnitKind::Command && unit.keys.iter().any(|k| reported.contains_key(k)) {
            // Another path through the same block (the other arm of an `if`): a
            // rewrite that leaves one of its keys as it is would cure one path and
            // break the other, so it is not offered.
            for k in &unit.keys {
                let Some(&(i, by)) = reported.get(k) else {
                    continue;
                };
                if model.units[by].span != unit.span || model.units[by].kind != unit.kind {
                    continue;
                }
                let covers = |f: &Finding| {
                    f.fix.as_ref().is_none_or(|fix| {
                        unit.keys
                            .iter()
                            .all(|&o| fix.edits.iter().any(|e| e.span == model.keys[o].span))
                    })
                };
                if !covers(&out[i]) {
                    out[i].fix = None;
                }
            }
            continue;
        }
        let u = UnitView {
            cx,
            ui,
            unit,
            inputs: &inputs,
            after_prefix: &after_prefix,
            facts: &facts,
        };
        if let Some(d) = detect(&u) {
            let f = explain(&u, &d);
            reported.extend(unit.keys.iter().map(|&k| (k, (out.len(), ui))));
            out.push(suggest(&u, &d, f));
        } else if let Some((world, d, chosen)) = over_options(&u) {
            let w = UnitView { unit: &world, ..u };
            let mut f = explain(&w, &d);
            f.notes.push(chosen);
            reported.extend(unit.keys.iter().map(|&k| (k, (out.len(), ui))));
            // The keys shown are not the text written at their spans: no rewrite.
            let mut f = suggest(&w, &d, f);
            f.fix = None;
            out.push(f);
        } else if unit.kind == UnitKind::Command || !unit.keys.iter().all(|k| listed.contains(k)) {
            // A block whose keys its own commands already list would repeat them.
            if let Some(f) = super::cross_slot_unknown::undecided(&u) {
                listed.extend(unit.keys.iter().copied());
                out.push(f);
            }
        }
    }
}

/// Most combinations of key options a unit is judged over; past that it stays silent.
const MAX_WORLDS: usize = 256;

/// A unit some of whose keys are one of several keys ([`crate::model::KeyOptions`]),
/// judged once per combination of options: a finding only when every combination has
/// one, and then the weakest (a likely finding when one combination is only likely).
/// The unit of the combination reported, its detection, and the note that says so.
fn over_options<'m>(u: &UnitView<'_, 'm>) -> Option<(Unit, Detection<'m>, String)> {
    let model = u.cx.model;
    if model.key_options.is_empty() {
        return None;
    }
    // One choice per distinct key: two uses of one value (the same template, with
    // the same bindings) take the same option in a run.
    let mut choices: Vec<(Vec<usize>, &Vec<usize>)> = Vec::new();
    for (i, &k) in u.unit.keys.iter().enumerate() {
        let Some(o) = model.key_options.iter().find(|o| o.key == k) else {
            continue;
        };
        if o.options.is_empty() {
            continue;
        }
        let t = &model.keys[k].template;
        let same = |a: usize, b: usize| model.keys[a].template.same_text(&model.keys[b].template);
        match choices.iter_mut().find(|(at, opts)| {
            model.keys[u.unit.keys[at[0]]].template.same_text(t)
                && opts.len() == o.options.len()
                && opts.iter().zip(&o.options).all(|(&a, &b)| same(a, b))
        }) {
            Some((at, _)) => at.push(i),
            None => choices.push((vec![i], &o.options)),
        }
    }
    if choices.is_empty() {
        return None;
    }
    let mut worlds = 1usize;
    for (_, opts) in &choices {
        worlds = worlds.checked_mul(opts.len())?;
        if worlds > MAX_WORLDS {
            return None;
        }
    }
    let mut found: Option<(Unit, Detection<'m>)> = None;
    for n in 0..worlds {
        let mut unit = u.unit.clone();
        let mut rest = n;
        for (at, opts) in &choices {
            for &i in at {
                unit.keys[i] = opts[rest % opts.len()];
            }
            rest /= opts.len();
        }
        let d = {
            let w = UnitView { unit: &unit, ..*u };
            detect(&w)?
        };
        let weaker = match &found {
            None => true,
            Some((_, f)) => f.rule == Rule::CrossSlot && d.rule != Rule::CrossSlot,
        };
        if weaker {
            found = Some((unit, d));
        }
    }
    let (unit, d) = found?;
    // Each key and the keys it may be: "`k(…)` is one of `a:<x>` or `b:<x>`".
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    for (at, opts) in &choices {
        let n = format!("`{}`", u.cx.shown(u.unit.keys[at[0]]));
        let shown: Vec<String> = opts
            .iter()
            .map(|&o| format!("`{}`", u.cx.shown(o)))
            .collect();
        let list = match shown.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => shown.join(""),
        };
        if seen.iter().any(|(a, b)| *a == n && *b == list) {
            continue;
        }
        said.push(match seen.is_empty() {
            true => format!("{n} is one of {list}"),
            false => format!("and {n} one of {list}"),
        });
        seen.push((n, list));
    }
    let one = seen.len() == 1;
    let chosen = format!(
        "{}, whichever arm of the code that builds {} a run takes; \
         every {} gives this verdict, and one is shown",
        said.join(" "),
        if one { "it" } else { "them" },
        if one {
            "one of them"
        } else {
            "combination of them"
        },
    );
    Some((unit, d, chosen))
}

/// Facts the frontends give about units beyond their keys.
#[derive(Default)]
pub(super) struct UnitFacts<'m> {
    /// (unit, key) → the family that key stands for in that unit.
    pub(super) families: HashMap<(usize, usize), &'m KeyFamily>,
    /// unit → what the client does with it.
    notes: HashMap<usize, Vec<&'m str>>,
    /// unit → more places its findings point at.
    labels: HashMap<usize, Vec<&'m UnitLabel>>,
}

/// One unit with everything its finding is made from.
pub(super) struct UnitView<'a, 'm> {
    pub(super) cx: &'a Context<'m>,
    /// Its index in [`FileModel::units`].
    pub(super) ui: usize,
    pub(super) unit: &'a Unit,
    /// The hash input of every key of the model.
    pub(super) inputs: &'a [HashInput],
    /// Per key: the client prefix it begins with (see [`FileModel::client_prefixes`]),
    /// the literal text before it and the hash input of the rest.
    pub(super) after_prefix: &'a [Option<(String, Vec<u8>, HashInput)>],
    pub(super) facts: &'a UnitFacts<'m>,
}

/// A key that stands for many keys whose slots differ from member to member.
pub(super) struct FamilyKey<'m> {
    /// The key use.
    pub(super) key: usize,
    /// The family it stands for.
    pub(super) family: &'m KeyFamily,
    /// The labels of the varying holes that are hashed.
    pub(super) labels: Vec<String>,
    /// Holes assumed to carry no hash tag of their own (a prefix the code does not show).
    pub(super) assumed: Vec<String>,
    /// Whether a value that begins the key is assumed untagged because the project
    /// writes no tag.
    pub(super) by_project: bool,
}

/// What [`detect`] found in a unit.
struct Detection<'m> {
    rule: Rule,
    /// The key the others are compared with; also the key whose syntax the unit is
    /// written in (a command inside a script is a script's command).
    anchor: usize,
    /// The key reported; the same as `anchor` when one family is reported alone.
    culprit: usize,
    family: Option<FamilyKey<'m>>,
    /// Every key of the pair is queued by helpers: point at the transaction's start.
    at_start: bool,
    /// The pair differs after a client prefix the code does not show: its label.
    under_prefix: Option<String>,
    /// The pair is built around values the caller passes in (or a constructor's
    /// argument stored on the object): their labels, the tag the code writes before
    /// one of them, and what stores a constructor's argument.
    around: Option<(Vec<String>, Option<String>, Option<String>)>,
    /// What puts that prefix before the keys, when it is not the client.
    prefix_origin: Option<String>,
    /// The literal text every key of the unit has before that prefix, if any.
    prefix_lead: Option<String>,
    /// The pair differs with the defaults of configured values: their labels and
    /// defaults.
    configured: Option<Vec<(String, String)>>,
    /// With the defaults of the configured values, the pair's slots are proven
    /// different (not only hashed from different bytes).
    configured_apart: bool,
    /// A key of the pair is hashed from a fresh random value: its label.
    fresh: Option<String>,
    /// The pair is a key after values the code does not show next to a key whose
    /// hashed text it shows: what the verdict rests on.
    tail: Option<Tail>,
    /// The pair differs once values the code does not show are taken as untagged, in
    /// a project that writes no hash tag: their labels.
    untagged: Option<Vec<String>>,
}

impl Detection<'_> {
    fn family_only(&self) -> bool {
        self.anchor == self.culprit
    }
}

fn detect<'m>(u: &UnitView<'_, 'm>) -> Option<Detection<'m>> {
    let keys = &u.unit.keys;
    let family = cross_slot_likely::family_key(u);
    if keys.len() < 2 && family.is_none() {
        return None;
    }
    let mut under_prefix = None;
    let mut around = None;
    let mut prefix_origin = None;
    let mut prefix_lead = None;
    let mut configured = None;
    let mut configured_apart = true;
    let mut tail = None;
    let mut untagged = None;
    let (rule, anchor, culprit) = if let Some((a, b)) = cross_slot::proven(keys, u.inputs) {
        (Rule::CrossSlot, a, b)
    } else if u.unit.kind == UnitKind::Transaction && u.unit.policy == CrossSlotPolicy::SameNode {
        // A batch that works while its slots share a node: two slots that differ
        // almost surely may still share one, so only proven slots are reported.
        return None;
    } else if let Some((a, b)) = cross_slot_likely::symbolic(keys, u.inputs) {
        (Rule::CrossSlotLikely, a, b)
    } else if let Some((a, b, _)) = fresh_key::apart(u) {
        // Likely: a key hashed from a fresh random value, and another key.
        (Rule::CrossSlotLikely, a, b)
    } else if let Some(fk) = &family {
        // Likely: two members of one family.
        (Rule::CrossSlotLikely, fk.key, fk.key)
    } else if let Some((a, b, labels, tag, stored)) = cross_slot_likely::around_caller_value(u) {
        // Likely: keys built around one value the caller passes in (one of them that
        // value alone: the finding says so and offers the tag around it).
        around = Some((labels, tag, stored));
        (Rule::CrossSlotLikely, a, b)
    } else if let Some((a, b, label, binding, lead)) = cross_slot_likely::after_prefix(u) {
        // Likely: keys that differ after the one prefix the client gives them all.
        under_prefix = Some(label);
        prefix_lead = (!lead.is_empty()).then(|| String::from_utf8_lossy(&lead).into_owned());
        prefix_origin =
            u.cx.model
                .prefix_origins
                .iter()
                .find(|(b, _)| *b == binding)
                .map(|(_, o)| o.clone());
        (Rule::CrossSlotLikely, a, b)
    } else if let Some((a, b, named, apart)) = cross_slot_likely::with_defaults(u) {
        // Likely: keys in different slots with the defaults of configured values.
        configured = Some(named);
        configured_apart = apart;
        (Rule::CrossSlotLikely, a, b)
    } else if let Some((a, b, t)) = unknown_tail::apart(u) {
        // Likely: a key after values the code does not show, next to a key whose
        // hashed text is known and holds no tag.
        if !t.configured.is_empty() {
            configured = Some(t.configured.clone());
        }
        tail = Some(t);
        (Rule::CrossSlotLikely, a, b)
    } else if let Some((a, b, labels, named)) = cross_slot_likely::untagged_project(u) {
        // Likely: keys that differ once the values the code does not show are taken
        // as untagged, in a project that writes no hash tag (and configured values
        // as their defaults).
        untagged = Some(labels);
        if !named.is_empty() {
            configured = Some(named);
        }
        (Rule::CrossSlotLikely, a, b)
    } else {
        return None;
    };
    // A transaction that continues in helpers (a frontend followed the pipeline into
    // a function the caller passes it to) is reported in the caller's transaction:
    // at one of its own keys, or at its start when every key of the pair is in a
    // helper, so that each caller's transaction has its own finding.
    let unit = u.unit;
    let in_unit = |k: usize| {
        let s = &u.cx.model.keys[k].span;
        unit.span.start <= s.start && s.end <= unit.span.end
    };
    let is_tx = unit.kind == UnitKind::Transaction;
    let (anchor, culprit) = if is_tx && !in_unit(culprit) && in_unit(anchor) {
        (culprit, anchor)
    } else {
        (anchor, culprit)
    };
    let fresh = (rule == Rule::CrossSlotLikely && anchor != culprit)
        .then(|| fresh_key::label_of_pair(u, anchor, culprit))
        .flatten();
    Some(Detection {
        rule,
        anchor,
        culprit,
        fresh,
        family,
        at_start: is_tx && !in_unit(culprit) && unit.anchor != unit.span,
        under_prefix,
        around,
        prefix_origin,
        prefix_lead,
        configured,
        configured_apart,
        tail,
        untagged,
    })
}

/// How findings name a unit's keys.
pub(super) fn what(unit: &Unit) -> String {
    match unit.kind {
        UnitKind::Command => format!("keys of `{}`", unit.name),
        UnitKind::Transaction if unit.policy == CrossSlotPolicy::NotAtomic => {
            format!("keys of this `{}()`", unit.name)
        }
        // A batch sent to one node, not a transaction (a Node.js client's pipeline).
        UnitKind::Transaction if unit.policy == CrossSlotPolicy::SameNode => {
            format!("keys of this `{}()`", unit.name)
        }
        UnitKind::Transaction => format!("keys of this `{}` transaction", unit.name),
        UnitKind::Script if unit.name == "script" || unit.name.is_empty() => {
            "keys of this script".to_string()
        }
        UnitKind::Script => format!("keys of function `{}`", unit.name),
    }
}

/// The finding's headline, its labels and its notes.
fn explain(u: &UnitView<'_, '_>, d: &Detection<'_>) -> Finding {
    let f = labels(u, d);
    let f = match &d.family {
        Some(fk) => cross_slot_likely::family_notes(u.cx, fk, f),
        None => f,
    };
    notes(u, d, f)
}

/// The headline, the key reported and the other keys with their slots.
fn labels(u: &UnitView<'_, '_>, d: &Detection<'_>) -> Finding {
    let (cx, unit, inputs) = (u.cx, u.unit, u.inputs);
    let keys = &cx.model.keys;
    let verb = match d.rule {
        Rule::CrossSlot => cross_slot::verb(unit.policy),
        _ => cross_slot_likely::verb(unit.policy),
    };
    // After a client prefix: a tag of the key's own is hashed alone (while the prefix
    // has none), else the whole key, prefix included.
    let describe = |k: usize| match (&d.under_prefix, &u.after_prefix[k]) {
        (Some(label), Some((_, _, rest))) => match rest {
            HashInput::Concrete { whole: true, .. } | HashInput::Symbolic { whole: true, .. } => {
                format!("hashed whole, `{label}` included")
            }
            _ => rest.describe(cx.syntax(k)),
        },
        // Around the caller's values: hashed as it would be if they carry no tag.
        _ if (d.around.is_some() || d.untagged.is_some()) && inputs[k] == HashInput::Unknown => {
            match keys[k].template.hash_input_if_untagged(&[]) {
                Some((i @ HashInput::Symbolic { .. }, _)) => {
                    format!("{} if untagged", i.describe(cx.syntax(k)))
                }
                _ => inputs[k].describe(cx.syntax(k)),
            }
        }
        // With the defaults of configured values: hashed as it would be with them.
        _ if d.configured.is_some() && inputs[k] == HashInput::Unknown => {
            match cross_slot_likely::with_default_values(cx.model, &keys[k].template) {
                Some((i, _)) if i != HashInput::Unknown => {
                    format!("{} with the defaults", i.describe(cx.syntax(k)))
                }
                _ => inputs[k].describe(cx.syntax(k)),
            }
        }
        _ => inputs[k].describe(cx.syntax(k)),
    };
    let culprit_label = if d.family_only() {
        format!(
            "stands for many keys; {}",
            inputs[d.culprit].describe(cx.syntax(d.culprit))
        )
    } else {
        describe(d.culprit)
    };
    let start_label = match unit.policy {
        CrossSlotPolicy::NotAtomic => "a transaction only on a standalone client",
        CrossSlotPolicy::SameNode => "the batch starts here",
        _ => "transaction starts here",
    };
    let culprit_span = keys[d.culprit].span.clone();
    let extra = u.facts.labels.get(&u.ui);
    // What the frontend says of the unit's anchor (the call of a function that makes
    // the transaction), if anything.
    let anchor_said = extra
        .into_iter()
        .flatten()
        .find(|l| l.span == unit.anchor)
        .map(|l| l.label.clone());
    let primary = if d.at_start {
        Label::new(
            unit.anchor.clone(),
            anchor_said.clone().unwrap_or_else(|| {
                format!("{start_label}; its keys are queued by the functions it calls")
            }),
        )
    } else {
        Label::new(culprit_span.clone(), culprit_label.clone())
    };
    let mut f = Finding::new(d.rule, format!("{} {verb}", what(unit)), primary)
        .with_unit(unit.span.clone());

    let mut shown = 1;
    let mut hidden = 0;
    let mut seen_spans = HashSet::new();
    if d.at_start {
        seen_spans.insert(unit.anchor.clone());
        f = f.with_secondary(Label::new(culprit_span.clone(), culprit_label));
    }
    seen_spans.insert(culprit_span);
    for &k in std::iter::once(&d.anchor).chain(unit.keys.iter()) {
        if k == d.culprit || !seen_spans.insert(keys[k].span.clone()) {
            continue;
        }
        if shown >= MAX_LABELS {
            hidden += 1;
            continue;
        }
        shown += 1;
        f = f.with_secondary(Label::new(keys[k].span.clone(), describe(k)));
    }
    if hidden > 0 {
        f = f.with_note(format!("and {hidden} more keys"));
    }
    if unit.kind == UnitKind::Transaction && unit.anchor != unit.span && !d.at_start {
        f = f.with_secondary(Label::new(unit.anchor.clone(), start_label));
    }
    // A family is often built before the command, or on another line: show the
    // command that takes it.
    if d.family_only()
        && unit.kind == UnitKind::Command
        && !unit.anchor.is_empty()
        && extra.is_none()
    {
        f = f.with_secondary(Label::new(
            unit.anchor.clone(),
            format!("`{}` takes every member", unit.name),
        ));
    }
    // Keys gathered before the call (a list filled in a loop, keys bound lines above)
    // leave the call itself unlabelled: point at it, so that the reader sees which
    // call is refused.
    let said = match unit.kind {
        UnitKind::Command => format!("the `{}` is sent here", unit.name),
        UnitKind::Transaction => start_label.to_string(),
        UnitKind::Script => "the script is run here".to_string(),
    };
    if extra.is_none() && !unit.anchor.is_empty() && !shows(&f, &unit.span) {
        f = f.with_secondary(Label::new(unit.anchor.clone(), said.clone()));
    }
    for l in extra.into_iter().flatten() {
        if d.at_start && anchor_said.is_some() && l.span == unit.anchor {
            continue;
        }
        f = f.with_secondary(Label::new(l.span.clone(), l.label.clone()));
    }
    point_at_call(f, unit, said)
}

/// A finding whose key lies outside the unit (keys gathered before the call: a list
/// filled in a loop, keys bound lines above) points at the call: the command, the
/// script call or the caller's call of a wrapper. The key becomes the first secondary
/// label, so the finding still shows it, and the reader lands on what is refused;
/// `said` is what the call's label says when no label marks it yet.
fn point_at_call(mut f: Finding, unit: &Unit, said: String) -> Finding {
    let inside = |s: &Span| unit.span.start <= s.start && s.end <= unit.span.end;
    if inside(&f.primary.span) || unit.anchor.is_empty() {
        return f;
    }
    // The label of the call itself, else (a wrapper the frontend labelled) the first
    // label inside the unit.
    let at = f
        .secondary
        .iter()
        .position(|l| l.span == unit.anchor)
        .or_else(|| f.secondary.iter().position(|l| inside(&l.span)));
    let call = match at {
        Some(i) => f.secondary.remove(i),
        None => Label::new(unit.anchor.clone(), said),
    };
    let key = std::mem::replace(&mut f.primary, call);
    f.secondary.insert(0, key);
    f
}

/// True when a label of `f` lies inside `span`.
fn shows(f: &Finding, span: &Span) -> bool {
    std::iter::once(&f.primary)
        .chain(&f.secondary)
        .any(|l| span.start <= l.span.start && l.span.end <= span.end)
}

/// Why the keys must share a slot, what the client does with the unit, and the
/// f-string trap where a key looks like it.
fn notes(u: &UnitView<'_, '_>, d: &Detection<'_>, f: Finding) -> Finding {
    let (cx, unit) = (u.cx, u.unit);
    // A command of a script is refused by the server inside the script, whatever
    // client sent the script.
    let in_script = cx.in_script(d.anchor);
    let mut f = match (d.rule, unit.policy) {
        // Nothing is refused; what is lost is said in the unit's notes.
        // (What a verdict after a prefix or around the caller's values assumes is said
        // all the same.)
        (_, CrossSlotPolicy::NotAtomic) if d.tail.is_some() => f.with_severity(Severity::Warning),
        (_, CrossSlotPolicy::NotAtomic) => match (&d.under_prefix, &d.around, &d.configured) {
            (Some(label), _, _) => cross_slot_likely::explain_after_prefix(
                f,
                label,
                d.prefix_origin.as_deref(),
                d.prefix_lead.as_deref(),
            ),
            (None, Some((labels, tag, stored)), _) => {
                cross_slot_likely::explain_around(f, labels, tag.as_deref(), stored.as_deref())
            }
            (None, None, Some(named)) => match &d.untagged {
                Some(labels) => cross_slot_likely::explain_untagged(
                    cross_slot_likely::explain_with_defaults(f, named, d.configured_apart),
                    labels,
                ),
                None => cross_slot_likely::explain_with_defaults(f, named, d.configured_apart),
            },
            (None, None, None) => match &d.untagged {
                Some(labels) => cross_slot_likely::explain_untagged(f, labels),
                None => f,
            },
        }
        .with_severity(Severity::Warning),
        (Rule::CrossSlot, _) => cross_slot::explain(f, unit, in_script),
        _ if d.family_only() => {
            // A command the client sends whole where a cluster client would split
            // it: only the server refuses it.
            let whole = u
                .facts
                .notes
                .get(&u.ui)
                .is_some_and(|n| n.iter().any(|n| n.starts_with(crate::model::SENT_WHOLE)));
            let client = cx.model.facts.client.refuses_cross_slot.filter(|_| !whole);
            f.with_note(refusal(&unit.kind, in_script, client.as_ref()))
        }
        _ if d.tail.is_some() => f,
        _ => match (&d.under_prefix, &d.around) {
            (Some(label), _) => cross_slot_likely::explain_after_prefix(
                f,
                label,
                d.prefix_origin.as_deref(),
                d.prefix_lead.as_deref(),
            ),
            (None, Some((labels, tag, stored))) => {
                cross_slot_likely::explain_around(f, labels, tag.as_deref(), stored.as_deref())
            }
            (None, None) => match (&d.configured, &d.untagged) {
                (Some(named), Some(labels)) => cross_slot_likely::explain_untagged(
                    cross_slot_likely::explain_with_defaults(f, named, d.configured_apart),
                    labels,
                ),
                (Some(named), None) => {
                    cross_slot_likely::explain_with_defaults(f, named, d.configured_apart)
                }
                (None, Some(labels)) => cross_slot_likely::explain_untagged(f, labels),
                (None, None) => cross_slot_likely::explain(f),
            },
        },
    };
    if let Some(label) = &d.fresh {
        f = fresh_key::explain(f, label);
    }
    // Two keys shown alike whose values differ (two objects' keys, a name assigned
    // again between them): say so, or the finding reads as a key against itself.
    if !d.family_only() && d.fresh.is_none() && cx.shown(d.anchor) == cx.shown(d.culprit) {
        f = f.with_note(format!(
            "both keys read `{}` here, but they are built from different values (such as \
             one helper called with different arguments, two objects' attributes, or a \
             name assigned again between them)",
            cx.shown(d.anchor)
        ));
    }
    if let Some(t) = &d.tail {
        f = unknown_tail::explain(f, t, &cx.shown(t.keys.0), &cx.shown(t.keys.1));
    }
    if cx.fstring(d.anchor) && !d.family_only() && looks_like_fstring_trap(u) {
        f = f.with_note(FSTRING_TRAP);
    }
    for note in u.facts.notes.get(&u.ui).into_iter().flatten() {
        f = f.with_note(*note);
    }
    f
}

/// `f"user:{uid}"` (no tag) and `f"user:{{uid}}"` (the constant tag `uid`) are the
/// f-string trap: true when a key of the unit looks like either.
fn looks_like_fstring_trap(u: &UnitView<'_, '_>) -> bool {
    u.unit.keys.iter().any(|&k| match &u.inputs[k] {
        HashInput::Symbolic { whole: true, .. } => true,
        HashInput::Concrete {
            whole: false,
            bytes,
            ..
        } => {
            bytes
                .first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        _ => false,
    })
}

/// What refuses a unit whose keys span slots: the server (inside a script, or
/// `CROSSSLOT`), or the client before it sends the command when its profile says so.
pub(super) fn refusal(kind: &UnitKind, in_script: bool, client: Option<&ClientRefusal>) -> String {
    match kind {
        UnitKind::Command if in_script => "inside a script, a command whose keys span slots \
             fails: `Script attempted to access a non local key in a cluster node`"
            .to_string(),
        UnitKind::Command => match client {
            Some(c) => format!(
                "Redis Cluster refuses a command whose keys span slots: {} before sending it \
                 (`{}`), the server with `CROSSSLOT Keys in request don't hash to the same slot`",
                c.by, c.error
            ),
            None => "Redis Cluster refuses a command whose keys span slots: \
                 `CROSSSLOT Keys in request don't hash to the same slot`"
                .to_string(),
        },
        UnitKind::Transaction => "the cluster aborts a transaction whose keys span slots \
             (`CROSSSLOT` or `EXECABORT`), and a `WATCH` guards it only on the transaction's \
             own slot"
            .to_string(),
        UnitKind::Script => {
            "a script runs on one node and every key it touches must be in one slot".to_string()
        }
    }
}

/// The help line, and a rewrite with a hash tag when one is safe to offer.
fn suggest(u: &UnitView<'_, '_>, d: &Detection<'_>, f: Finding) -> Finding {
    let cx = u.cx;
    if d.family_only() {
        return f.with_help(
            "keys of one family meet in one slot only under a hash tag on what all \
             members share; if they share nothing, split the call into one call per key \
             (no longer atomic)",
        );
    }
    let keys = &u.unit.keys;
    // Keys after a client prefix: the tag goes after the prefix, in the code's part.
    let stripped: Vec<KeyTemplate> = match &d.under_prefix {
        Some(_) => keys
            .iter()
            .filter_map(|&k| {
                let t = &cx.model.keys[k].template;
                Some(
                    t.strip_leading_hole(&cx.model.client_prefixes, &cx.model.lead_prefixes)?
                        .0,
                )
            })
            .collect(),
        None => Vec::new(),
    };
    // One template per distinct key text keeps the suggestion short; past a few dozen
    // distinct keys a rewrite is not a useful suggestion (and would cost quadratic time).
    let mut distinct: Vec<&KeyTemplate> = Vec::new();
    let mut index: HashMap<Vec<SymPart>, usize> = HashMap::new();
    for (i, &k) in keys.iter().enumerate() {
        let t = match d.under_prefix {
            Some(_) => &stripped[i],
            None => &cx.model.keys[k].template,
        };
        if let Entry::Vacant(e) = index.entry(t.text_parts()) {
            e.insert(distinct.len());
            distinct.push(t);
            if distinct.len() > MAX_SUGGESTED_KEYS {
                break;
            }
        }
    }
    let suggestion = if distinct.len() > MAX_SUGGESTED_KEYS {
        Err(NoSuggestion::NotRewritable)
    } else {
        // A configured value is one value for the whole deployment: a tag on it
        // alone would be a constant tag.
        let configured = |b: &str| {
            cx.model
                .configured_defaults
                .iter()
                .find(|(x, _)| x == b)
                .map(|(_, d)| d.contains(&b'{') || d.contains(&b'}'))
        };
        suggest_tag_with(&distinct, cx.syntax(d.anchor), &configured)
    };
    match suggestion {
        Ok(s) => {
            // A rewrite of a script's keys inside another file's string would have to
            // re-quote them for that file too: no edit is offered there, only the help.
            // A rewrite after a prefix the code does not show is left to the reader.
            // So is one around a value the caller passes in: its callers choose it.
            let fix = (!cx.in_embedded_script(d.anchor)
                && d.under_prefix.is_none()
                && d.around.is_none()
                && d.untagged.is_none())
            .then(|| tag_fix(cx.model, keys, &index, &s))
            .flatten();
            let f = match fix {
                Some(fix) => f.with_fix(fix),
                None => f,
            };
            f.with_help(format!(
                "co-locate the keys with a hash tag on what they share, `{}`: {}",
                s.tag,
                s.rewritten
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + "; renaming keys is a data migration: existing keys must be moved"
            ))
        }
        // A configured value alone (`<self.namespace>`): one value for the deployment.
        Err(NoSuggestion::OnlyConstant(c))
            if c.len() > 2 && c.starts_with('<') && c.ends_with('>') && !c[1..].contains('<') =>
        {
            f.with_help(format!(
                "the keys share only `{}`, one value for the whole deployment; a tag on it \
                 would put that whole family on one slot, so split the operation per key or \
                 give the keys a real shared identity",
                &c[1..c.len() - 1]
            ))
        }
        Err(NoSuggestion::OnlyConstant(c)) => f.with_help(format!(
            "the keys share only the constant `{c}`; a `{{{c}}}` tag would put that whole \
             family on one slot, so split the operation per key or give the keys a real \
             shared identity"
        )),
        // After a shared head the code does not show, what is left shares nothing, but
        // the head itself may be tagged where it is chosen.
        Err(NoSuggestion::NothingShared) if d.under_prefix.is_some() => f.with_help(format!(
            "after `{}` these keys share nothing; if that value names one entity \
                 whose keys belong together, give it a hash tag (`{{…}}`) where it is \
                 chosen, otherwise split the operation per key",
            d.under_prefix.as_deref().unwrap_or_default()
        )),
        // Built around a value the code is given: that value is what they share, and
        // it is chosen where the code is called.
        Err(NoSuggestion::NothingShared) if d.around.as_ref().is_some_and(|a| a.0.len() == 1) => {
            let label = d
                .around
                .as_ref()
                .map(|a| a.0[0].as_str())
                .unwrap_or_default();
            f.with_help(format!(
                "these keys share only `{label}`; if that value names one entity whose keys \
                 belong together, give it a hash tag (`{{…}}`) where it is chosen, otherwise \
                 split the operation per key"
            ))
        }
        Err(NoSuggestion::NothingShared) => f.with_help(
            "these keys share no identity that a hash tag could co-locate; split the \
             operation per key, or rename the keys around a shared identity",
        ),
        Err(NoSuggestion::NotRewritable) => f.with_help(
            "give every key the same hash tag, the part between `{` and `}`, so that they \
             hash to one slot",
        ),
    }
}

/// Edits that rewrite every key of the unit with the suggested tag, when each key is
/// written out in full where it is used (a literal, an f-string, a concatenation).
/// A key that comes from a variable defined elsewhere gets no edit, and then the fix
/// is not offered at all: half a rename is worse than none.
fn tag_fix(
    model: &FileModel,
    keys: &[usize],
    index: &HashMap<Vec<SymPart>, usize>,
    s: &TagSuggestion,
) -> Option<Fix> {
    let mut edits: Vec<Edit> = Vec::new();
    let mut seen = HashSet::new();
    for &k in keys {
        let key = &model.keys[k];
        if !seen.insert(key.span.clone()) {
            continue;
        }
        if !key.template.is_written_within(&key.span) {
            return None;
        }
        let i = *index.get(&key.template.text_parts())?;
        edits.push(Edit {
            span: key.span.clone(),
            replacement: s.templates[i].replacement(model.lang)?,
        });
    }
    edits.sort_by_key(|e| e.span.start);
    if edits.windows(2).any(|w| w[0].span.end > w[1].span.start) {
        return None;
    }
    Some(Fix {
        title: format!("add the hash tag `{}`", s.tag),
        edits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::frontend::testing::PY;
    use crate::model::KeyFamily;
    use crate::rules::testing;
    use crate::template::tests::{hole, lit};
    use crate::template::{HoleKind, Part};

    /// One `MGET` unit over `keys`; `family` marks key 0 as standing for many keys
    /// whose hole `name` varies.
    fn run(keys: Vec<Vec<Part>>, family: bool, policy: CrossSlotPolicy) -> Vec<Finding> {
        let mut m = testing::model(PY, "MGET", keys);
        m.units.push(mget((0..m.keys.len()).collect(), policy));
        if family {
            m.families.push(KeyFamily {
                unit: 0,
                key: 0,
                varying: vec!["name".into()],
                source: "the elements of a comprehension".into(),
            });
        }
        m.facts.fstring_keys = true;
        testing::run(check, &m)
    }

    /// One `MGET` command unit over `keys`.
    pub(super) fn mget(keys: Vec<usize>, policy: CrossSlotPolicy) -> Unit {
        Unit {
            kind: UnitKind::Command,
            name: "MGET".into(),
            span: 0..100,
            anchor: 0..4,
            keys,
            policy,
        }
    }

    #[test]
    fn keys_built_before_the_call_point_at_the_call() {
        let keys = || vec![vec![lit("a:{1}")], vec![lit("b:{2}")]];
        let one = |m: &FileModel| -> Finding {
            let mut out = testing::run(check, m);
            assert_eq!(out.len(), 1);
            out.remove(0)
        };
        // Keys inside the call: the finding points at a key, and no label marks the
        // call.
        let mut m = testing::model(PY, "MGET", keys());
        m.units.push(mget(vec![0, 1], CrossSlotPolicy::Refused));
        let f = one(&m);
        assert!(f.primary.message.starts_with("slot "), "{:?}", f.primary);
        assert!(!f
            .secondary
            .iter()
            .any(|l| l.message.contains("is sent here")));
        // Keys built before the call (ten bytes apart, at 0 and 10): the finding
        // points at the call, and both keys are secondary labels, the reported one
        // first.
        let mut m = testing::model(PY, "MGET", keys());
        let mut unit = mget(vec![0, 1], CrossSlotPolicy::Refused);
        unit.span = 40..60;
        unit.anchor = 40..44;
        m.units.push(unit);
        let f = one(&m);
        assert_eq!(f.primary.span, 40..44);
        assert_eq!(f.primary.message, "the `MGET` is sent here");
        assert_eq!(f.secondary.len(), 2, "{:?}", f.secondary);
        assert!(f.secondary.iter().all(|l| l.message.starts_with("slot ")));
    }

    #[test]
    fn an_untagged_family_alone_is_likely_cross_slot() {
        let out = run(
            vec![vec![lit("q:queue:"), hole("name", HoleKind::Fragment)]],
            true,
            CrossSlotPolicy::Refused,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
        assert!(
            out[0]
                .notes
                .iter()
                .any(|n| n.contains("keys of one family `f\"q:queue:{name}\"` differ in `name`")),
            "{:?}",
            out[0].notes
        );
    }

    #[test]
    fn a_family_tagged_by_the_member_is_likely_cross_slot() {
        let out = run(
            vec![vec![
                lit("user:{"),
                hole("name", HoleKind::Fragment),
                lit("}:profile"),
            ]],
            true,
            CrossSlotPolicy::Refused,
        );
        assert_eq!(out.len(), 1);
    }

    /// A fresh random value (a uuid) named `name`, as a hole of a key.
    fn fresh(name: &str) -> Part {
        Part::Hole(crate::template::Hole {
            label: name.into(),
            binding: crate::template::fresh_binding(name),
            kind: HoleKind::Fragment,
            span: None,
        })
    }

    #[test]
    fn a_fresh_key_is_apart_from_any_key_that_cannot_hold_its_value() {
        // Next to a key whose slot is unknown (it begins with an unknown prefix).
        let out = run(
            vec![
                vec![fresh("tmp")],
                vec![hole("prefix", HoleKind::Opaque), lit(":idx")],
            ],
            false,
            CrossSlotPolicy::Refused,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
        assert!(
            out[0]
                .notes
                .iter()
                .any(|n| n.contains("`tmp` is a fresh random value")),
            "{:?}",
            out[0].notes
        );
        // Two fresh values.
        let out = run(
            vec![vec![lit("tmp:"), fresh("a")], vec![fresh("b")]],
            false,
            CrossSlotPolicy::Refused,
        );
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn one_fresh_value_or_a_fresh_value_after_an_unknown_prefix_is_silent() {
        // The same value twice, and a key computed from it.
        let out = run(
            vec![
                vec![fresh("tmp")],
                vec![fresh("tmp")],
                vec![hole("prefix", HoleKind::Opaque), lit(":"), fresh("tmp")],
            ],
            false,
            CrossSlotPolicy::Refused,
        );
        assert!(out.is_empty(), "{out:?}");
        // After a prefix that may carry a tag.
        let out = run(
            vec![
                vec![hole("prefix", HoleKind::Opaque), lit(":"), fresh("tmp")],
                vec![hole("prefix", HoleKind::Opaque), lit(":all")],
            ],
            false,
            CrossSlotPolicy::Refused,
        );
        assert!(out.is_empty(), "{out:?}");
        // Inside one tag.
        let out = run(
            vec![
                vec![lit("{"), fresh("u"), lit("}:a")],
                vec![lit("{"), fresh("u"), lit("}:b")],
            ],
            false,
            CrossSlotPolicy::Refused,
        );
        assert!(out.is_empty(), "{out:?}");
    }

    /// One `MGET` unit over `keys`, whose holes named in `given` are values the caller
    /// passes in.
    fn around(keys: Vec<Vec<Part>>, given: &[&str]) -> Vec<Finding> {
        let mut m = testing::model(PY, "MGET", keys);
        m.units.push(Unit {
            kind: UnitKind::Command,
            name: "MGET".into(),
            span: 0..100,
            anchor: 0..4,
            keys: (0..m.keys.len()).collect(),
            policy: CrossSlotPolicy::Refused,
        });
        m.caller_values = given.iter().map(|g| g.to_string()).collect();
        testing::run(check, &m)
    }

    /// One `MGET` unit over `keys` in a project whose sources say `tags`.
    fn in_project(keys: Vec<Vec<Part>>, tags: crate::model::ProjectTags) -> Vec<Finding> {
        let mut m = testing::model(PY, "MGET", keys);
        m.units
            .push(mget((0..m.keys.len()).collect(), CrossSlotPolicy::Refused));
        m.facts.project_tags = tags;
        testing::run(check, &m)
    }

    #[test]
    fn keys_whose_slots_cannot_be_told_are_listed_only_when_asked() {
        let src = || hole("src", HoleKind::Opaque);
        let dst = || hole("dst", HoleKind::Opaque);
        let mut m = testing::model(PY, "RENAME", vec![vec![src()], vec![dst()]]);
        m.units
            .push(mget((0..m.keys.len()).collect(), CrossSlotPolicy::Refused));
        // Off by default.
        assert!(testing::run(check, &m).is_empty());
        let out = testing::run_all(check, &m);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].rule, Rule::CrossSlotUnknown);
        assert!(out[0].notes[0].contains("`src`, `dst`"), "{out:?}");
        // One key twice is one key: nothing to tell.
        let mut m = testing::model(PY, "MGET", vec![vec![src()], vec![src()]]);
        m.units
            .push(mget((0..m.keys.len()).collect(), CrossSlotPolicy::Refused));
        assert!(testing::run_all(check, &m).is_empty());
        // A command the client splits per slot is not listed.
        let mut m = testing::model(PY, "MGET", vec![vec![src()], vec![dst()]]);
        m.units
            .push(mget((0..m.keys.len()).collect(), CrossSlotPolicy::Split));
        assert!(testing::run_all(check, &m).is_empty());
    }

    #[test]
    fn unseen_values_are_untagged_only_in_a_project_that_writes_no_tag() {
        use crate::model::ProjectTags;
        let project = || hole("project", HoleKind::Opaque);
        let keys = || vec![vec![lit("flavors")], vec![project(), lit(".flavors")]];
        let out = in_project(keys(), ProjectTags::NoneWritten);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
        assert!(
            out[0].notes.iter().any(|n| n.contains("`project`")),
            "{out:?}"
        );
        // Silent where the project writes tags, or was not searched.
        assert!(in_project(keys(), ProjectTags::Written).is_empty());
        assert!(in_project(keys(), ProjectTags::Unknown).is_empty());
        // Silent for keys that differ only in which value fills the hole.
        let src = hole("src", HoleKind::Opaque);
        let dst = hole("dst", HoleKind::Opaque);
        let out = in_project(
            vec![vec![src.clone(), lit(":q")], vec![dst.clone(), lit(":q")]],
            ProjectTags::NoneWritten,
        );
        assert!(out.is_empty(), "{out:?}");
        // Silent for two values alone (a source and a destination the caller chooses).
        let out = in_project(vec![vec![src], vec![dst]], ProjectTags::NoneWritten);
        assert!(out.is_empty(), "{out:?}");
        // Silent when a key of the file writes a brace: the file writes tags.
        let out = in_project(
            vec![
                vec![lit("flavors")],
                vec![project(), lit(".flavors")],
                vec![lit("{all}:x")],
            ],
            ProjectTags::NoneWritten,
        );
        assert!(
            out.iter()
                .all(|f| !f.notes.iter().any(|n| n.contains("`project`"))),
            "{out:?}"
        );
    }

    #[test]
    fn a_caller_value_next_to_a_key_built_around_it_is_likely_cross_slot() {
        let name = || hole("name", HoleKind::Opaque);
        let out = around(
            vec![vec![name()], vec![name(), lit(":member_data")]],
            &["name"],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
        assert_eq!(out[0].severity, Severity::Warning);
        assert!(
            out[0]
                .notes
                .iter()
                .any(|n| n.contains("unless `name`, a value the caller passes in, carries")),
            "{:?}",
            out[0].notes
        );
        // No rewrite is offered: the callers choose the value.
        assert!(out[0].fix.is_none());
        // With an opaque part of its own after the value (a configured namespace).
        let ns = hole("self.ns", HoleKind::Opaque);
        let out = around(vec![vec![name()], vec![name(), lit(":"), ns]], &["name"]);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn keys_around_a_value_stay_silent_when_they_may_be_one_key_or_share_a_tag() {
        let name = || hole("name", HoleKind::Opaque);
        // Not a value the caller passes in (a prefix the code computes).
        assert!(around(vec![vec![name()], vec![name(), lit(":x")]], &[]).is_empty());
        // The suffix may be empty: the keys may be one key.
        let suffix = hole("suffix", HoleKind::Opaque);
        assert!(around(
            vec![vec![name()], vec![name(), suffix]],
            &["name", "suffix"]
        )
        .is_empty());
        // Only a shared prefix: a namespace a project tags for a cluster.
        let a = vec![name(), lit(":a")];
        let b = vec![name(), lit(":b")];
        assert!(around(vec![a, b], &["name"]).is_empty());
        // Two values chosen apart.
        let other = hole("other", HoleKind::Opaque);
        assert!(around(vec![vec![name()], vec![other]], &["name", "other"]).is_empty());
        // A tag the code writes around the value co-locates the keys.
        let tagged = vec![lit("{"), name(), lit("}")];
        let tagged_x = vec![lit("{"), name(), lit("}:x")];
        assert!(around(vec![tagged, tagged_x], &["name"]).is_empty());
    }

    /// One `MGET` unit over `keys`, under the unknown heads `heads`.
    fn under_heads(keys: Vec<Vec<Part>>, heads: &[&str]) -> Vec<Finding> {
        let mut m = testing::model(PY, "MGET", keys);
        m.units
            .push(mget((0..m.keys.len()).collect(), CrossSlotPolicy::Refused));
        m.client_prefixes = heads.iter().map(|h| h.to_string()).collect();
        testing::run(check, &m)
    }

    #[test]
    fn a_value_after_text_next_to_a_known_untagged_key_is_a_likely_warning() {
        let key = || hole("key", HoleKind::Opaque);
        let out = under_heads(
            vec![vec![lit("cache:"), key()], vec![lit("cache-index")]],
            &[],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
        assert_eq!(out[0].severity, Severity::Warning);
        assert!(
            out[0]
                .notes
                .iter()
                .any(|n| n.contains("holds `key`, a value the code does not show")),
            "{:?}",
            out[0].notes
        );
        assert!(out[0]
            .notes
            .iter()
            .any(|n| n.contains("unless `key` carries")));
        // Under one unknown head, the head is named too.
        let ns = || hole("ns", HoleKind::Opaque);
        let out = under_heads(
            vec![vec![ns(), lit(":"), key()], vec![ns(), lit("-keys")]],
            &["ns"],
        );
        assert_eq!(out.len(), 1);
        assert!(
            out[0]
                .notes
                .iter()
                .any(|n| n.contains("both keys begin with `ns`")),
            "{:?}",
            out[0].notes
        );
        // Silent: the value alone, both keys with values, a tag in the literal key.
        assert!(under_heads(vec![vec![key()], vec![lit("cache-index")]], &[]).is_empty());
        let other = hole("other", HoleKind::Opaque);
        assert!(under_heads(vec![vec![lit("a:"), key()], vec![lit("b:"), other]], &[]).is_empty());
        assert!(under_heads(vec![vec![lit("a:"), key()], vec![lit("{x}:index")]], &[]).is_empty());
    }

    #[test]
    fn texts_that_differ_whatever_the_values() {
        let t = |parts| KeyTemplate { parts };
        let name = || hole("name", HoleKind::Opaque);
        let x = || hole("x", HoleKind::Opaque);
        let differ = |a: Vec<Part>, b: Vec<Part>| cross_slot_likely::texts_differ(&t(a), &t(b));
        assert!(differ(vec![name()], vec![name(), lit(":a")]));
        assert!(differ(vec![name(), lit(":a")], vec![name(), lit(":b")]));
        assert!(differ(vec![lit("a:"), name()], vec![lit("b:"), name()]));
        assert!(!differ(vec![name()], vec![name(), x()]));
        assert!(!differ(vec![name(), lit(":a")], vec![name(), lit(":a")]));
        assert!(!differ(
            vec![name(), lit(":a")],
            vec![name(), x(), lit(":a")]
        ));
        assert!(!differ(vec![lit("a"), x()], vec![lit("ab")]));
    }

    #[test]
    fn co_located_split_and_unknown_families_are_silent() {
        // The tag holds a value that does not vary.
        let tagged = vec![
            lit("{user:"),
            hole("uid", HoleKind::Fragment),
            lit("}:"),
            hole("name", HoleKind::Fragment),
        ];
        assert!(run(vec![tagged], true, CrossSlotPolicy::Refused).is_empty());
        // The client splits the call per slot.
        let whole = vec![lit("q:queue:"), hole("name", HoleKind::Fragment)];
        assert!(run(vec![whole.clone()], true, CrossSlotPolicy::Split).is_empty());
        // One key that is not a family.
        assert!(run(vec![whole], false, CrossSlotPolicy::Refused).is_empty());
        // A key that may carry its own tag.
        let opaque = vec![hole("name", HoleKind::Opaque), lit(":x")];
        assert!(run(vec![opaque], true, CrossSlotPolicy::Refused).is_empty());
    }
}

#[cfg(test)]
mod option_tests {
    use super::*;
    use crate::frontend::testing::PY;
    use crate::model::KeyOptions;
    use crate::rules::testing;
    use crate::template::tests::{hole, lit};
    use crate::template::{HoleKind, Part};

    /// One `MGET` over keys 0 and 1, key 0 being one of `options` (keys 2…).
    fn run(other: Vec<Part>, options: Vec<Vec<Part>>) -> Vec<Finding> {
        let mut keys = vec![vec![hole("mkey(…)", HoleKind::Opaque)], other];
        let n = options.len();
        keys.extend(options);
        let mut m = testing::model(PY, "MGET", keys);
        m.units
            .push(super::tests::mget(vec![0, 1], CrossSlotPolicy::Refused));
        m.key_options.push(KeyOptions {
            key: 0,
            options: (2..2 + n).collect(),
        });
        testing::run(check, &m)
    }

    fn q() -> Part {
        hole("q", HoleKind::Fragment)
    }

    #[test]
    fn a_key_of_several_arms_is_judged_over_every_arm() {
        let out = run(
            vec![lit("vis:"), q()],
            vec![vec![lit("messages:"), q()], vec![lit("datam:"), q()]],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
        assert!(out[0].fix.is_none());
        assert!(out[0]
            .notes
            .iter()
            .any(|n| n.contains("whichever arm of the code")));
    }

    #[test]
    fn an_arm_that_may_share_the_slot_keeps_the_unit_silent() {
        // One arm is the other key itself.
        let out = run(
            vec![lit("vis:"), q()],
            vec![vec![lit("messages:"), q()], vec![lit("vis:"), q()]],
        );
        assert!(out.is_empty());
        // One arm cannot be judged (a key the caller chooses next to a literal).
        let out = run(
            vec![hole("name", HoleKind::Opaque)],
            vec![
                vec![hole("name", HoleKind::Opaque), lit(":data")],
                vec![lit("data")],
            ],
        );
        assert!(out.is_empty());
    }

    #[test]
    fn proven_in_every_arm_is_an_error_and_likely_in_one_is_a_warning() {
        let out = run(vec![lit("c")], vec![vec![lit("a")], vec![lit("b")]]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlot);
        let out = run(
            vec![lit("c:"), q()],
            vec![vec![lit("c:x")], vec![lit("a:"), q()]],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::CrossSlotLikely);
    }
}
