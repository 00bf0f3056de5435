//! `cross-slot` and `cross-slot-likely`: keys of one atomic unit in different slots.

use crate::diagnostic::{Edit, Fix};
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::{CrossSlotPolicy, FileModel, KeyFamily, Unit, UnitKind};
use crate::rule::Rule;
use crate::suggest::{suggest_tag, NoSuggestion, TagSuggestion};
use crate::template::KeyTemplate;
use crate::template::{compare, HashInput, Lang, SymPart, Verdict};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// Most labels shown on one finding; the rest are counted in a note.
const MAX_LABELS: usize = 8;

/// Most distinct keys a hash-tag suggestion is computed for.
const MAX_SUGGESTED_KEYS: usize = 32;

pub(crate) fn check(model: &FileModel, out: &mut Vec<Finding>) {
    let inputs: Vec<HashInput> = model.keys.iter().map(|k| k.template.hash_input()).collect();
    let mut facts = Facts::default();
    for f in &model.families {
        facts.families.insert((f.unit, f.key), f);
    }
    for n in &model.unit_notes {
        facts.notes.entry(n.unit).or_default().push(&n.note);
    }
    for l in &model.unit_labels {
        facts.labels.entry(l.unit).or_default().push(l);
    }
    let mut reported: HashSet<usize> = HashSet::new();
    for (ui, unit) in model.units.iter().enumerate() {
        if unit.policy == CrossSlotPolicy::Split {
            // The client splits the call per slot: it works, only atomicity is lost.
            continue;
        }
        // A block whose own command was already reported would repeat that finding.
        if unit.kind != UnitKind::Command && unit.keys.iter().any(|k| reported.contains(k)) {
            continue;
        }
        if let Some(f) = check_unit(model, ui, unit, &inputs, &facts) {
            reported.extend(unit.keys.iter().copied());
            out.push(f);
        }
    }
}

fn what(unit: &Unit) -> String {
    match unit.kind {
        UnitKind::Command => format!("keys of `{}`", unit.name),
        UnitKind::Transaction if unit.policy == CrossSlotPolicy::NotAtomic => {
            format!("keys of this `{}()`", unit.name)
        }
        UnitKind::Transaction => format!("keys of this `{}` transaction", unit.name),
        UnitKind::Script if unit.name == "script" || unit.name.is_empty() => {
            "keys of this script".to_string()
        }
        UnitKind::Script => format!("keys of function `{}`", unit.name),
    }
}

/// Facts the frontends give about units beyond their keys.
#[derive(Default)]
struct Facts<'m> {
    /// (unit, key) → the family that key stands for in that unit.
    families: HashMap<(usize, usize), &'m KeyFamily>,
    /// unit → what the client does with it.
    notes: HashMap<usize, Vec<&'m str>>,
    /// unit → more places its findings point at.
    labels: HashMap<usize, Vec<&'m crate::model::UnitLabel>>,
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

fn check_unit(
    model: &FileModel,
    ui: usize,
    unit: &Unit,
    inputs: &[HashInput],
    facts: &Facts<'_>,
) -> Option<Finding> {
    let keys: Vec<usize> = unit.keys.clone();
    // A key that stands for many keys whose slots differ from member to member.
    let family_key = keys.iter().copied().find_map(|k| {
        let fam = facts.families.get(&(ui, k))?;
        let labels = varying_in_hash(fam, &inputs[k]);
        (!labels.is_empty()).then_some((k, *fam, labels, Vec::new()))
    });
    // A family whose slot is unknown only because its hashed part begins with a prefix
    // the code does not show (`<prefix>:job:<id>`): its members differ unless that
    // prefix carries a hash tag, which the finding says.
    // Next to other keys only in a multi-key command: a transaction over several
    // keys under one opaque prefix is what a project tags that prefix for.
    let family_key = family_key.or_else(|| {
        if keys.len() != 1 && unit.kind != UnitKind::Command {
            return None;
        }
        keys.iter().copied().find_map(|k| {
            let fam = facts.families.get(&(ui, k))?;
            if inputs[k] != HashInput::Unknown {
                return None;
            }
            let (input, assumed) = model.keys[k]
                .template
                .hash_input_if_untagged(&fam.varying)?;
            let labels = varying_in_hash(fam, &input);
            (!labels.is_empty()).then_some((k, *fam, labels, assumed))
        })
    });
    if keys.len() < 2 && family_key.is_none() {
        return None;
    }
    // A script's keys are printed in Lua, also when the script is embedded in Python.
    let langs = super::key_langs(model);
    // Proven: two concrete slots differ.
    let first_concrete = keys.iter().copied().find(|&k| inputs[k].slot().is_some());
    let proven_other = first_concrete.and_then(|a| {
        keys.iter()
            .copied()
            .find(|&k| compare(&inputs[a], &inputs[k]) == Verdict::Different)
    });
    // Likely: two known hash inputs that differ symbolically.
    let likely = || {
        let mut known = keys
            .iter()
            .copied()
            .filter(|&k| inputs[k] != HashInput::Unknown);
        let a = known.next()?;
        let b = known.find(|&k| compare(&inputs[a], &inputs[k]) == Verdict::LikelyDifferent)?;
        Some((a, b))
    };
    let (rule, anchor, culprit) = if let (Some(a), Some(b)) = (first_concrete, proven_other) {
        (Rule::CrossSlot, a, b)
    } else if let Some((a, b)) = likely() {
        (Rule::CrossSlotLikely, a, b)
    } else if let Some((k, _, _, _)) = &family_key {
        // Likely: two members of one family.
        (Rule::CrossSlotLikely, *k, *k)
    } else {
        return None;
    };
    let family_only = anchor == culprit;
    // A transaction that continues in helpers (a frontend followed the pipeline into
    // a function the caller passes it to) is reported in the caller's transaction:
    // at one of its own keys, or at its start when every key of the pair is in a
    // helper, so that each caller's transaction has its own finding.
    let in_unit = |k: usize| {
        let s = &model.keys[k].span;
        unit.span.start <= s.start && s.end <= unit.span.end
    };
    let is_tx = unit.kind == UnitKind::Transaction;
    let (anchor, culprit) = if is_tx && !in_unit(culprit) && in_unit(anchor) {
        (culprit, anchor)
    } else {
        (anchor, culprit)
    };
    let at_start = is_tx && !in_unit(culprit) && unit.anchor != unit.span;
    // The language the unit's keys are written in: a command of a script embedded in a
    // Python string is a Lua command (refused by the server inside the script, not by
    // redis-py), and its keys are suggested in Lua.
    let unit_lang = langs[anchor];

    let verb = match (rule, unit.policy) {
        (Rule::CrossSlot, CrossSlotPolicy::NotAtomic) => {
            "are in different hash slots: on a cluster it is not atomic"
        }
        (_, CrossSlotPolicy::NotAtomic) => {
            "almost certainly hash to different slots: on a cluster it is not atomic"
        }
        (Rule::CrossSlot, _) => "are in different hash slots",
        _ => "almost certainly hash to different slots",
    };
    let culprit_label = if family_only {
        format!(
            "stands for many keys; {}",
            inputs[culprit].describe(langs[culprit])
        )
    } else {
        inputs[culprit].describe(langs[culprit])
    };
    let start_label = if unit.policy == CrossSlotPolicy::NotAtomic {
        "a transaction only on a standalone client"
    } else {
        "transaction starts here"
    };
    let primary = if at_start {
        Label::new(
            unit.anchor.clone(),
            format!("{start_label}; its keys are queued by the functions it calls"),
        )
    } else {
        Label::new(model.keys[culprit].span.clone(), culprit_label.clone())
    };
    let mut f =
        Finding::new(rule, format!("{} {verb}", what(unit)), primary).with_unit(unit.span.clone());

    let mut shown = 1;
    let mut hidden = 0;
    let mut seen_spans = HashSet::new();
    if at_start {
        seen_spans.insert(unit.anchor.clone());
        seen_spans.insert(model.keys[culprit].span.clone());
        f = f.with_secondary(Label::new(model.keys[culprit].span.clone(), culprit_label));
    } else {
        seen_spans.insert(model.keys[culprit].span.clone());
    }
    for &k in std::iter::once(&anchor).chain(keys.iter()) {
        if k == culprit || !seen_spans.insert(model.keys[k].span.clone()) {
            continue;
        }
        if shown >= MAX_LABELS {
            hidden += 1;
            continue;
        }
        shown += 1;
        f = f.with_secondary(Label::new(
            model.keys[k].span.clone(),
            inputs[k].describe(langs[k]),
        ));
    }
    if hidden > 0 {
        f = f.with_note(format!("and {hidden} more keys"));
    }
    if unit.kind == UnitKind::Transaction && unit.anchor != unit.span && !at_start {
        f = f.with_secondary(Label::new(unit.anchor.clone(), start_label));
    }

    // A family is often built before the command, or on another line: show the
    // command that takes it.
    if family_only
        && unit.kind == UnitKind::Command
        && !unit.anchor.is_empty()
        && !facts.labels.contains_key(&ui)
    {
        f = f.with_secondary(Label::new(
            unit.anchor.clone(),
            format!("`{}` takes every member", unit.name),
        ));
    }
    for l in facts.labels.get(&ui).into_iter().flatten() {
        f = f.with_secondary(Label::new(l.span.clone(), l.label.clone()));
    }

    if let Some((k, fam, labels, assumed)) = &family_key {
        let shown = model.keys[*k].template.display(langs[*k]);
        let which = labels
            .iter()
            .map(|l| format!("`{l}`"))
            .collect::<Vec<_>>()
            .join(", ");
        f = f.with_note(format!(
            "`{shown}` stands for many keys ({}): keys of one family `{shown}` differ in \
             {which}, which is hashed, so two of them share a slot only by a 1-in-16384 chance",
            fam.source
        ));
        if !assumed.is_empty() {
            let which = assumed
                .iter()
                .map(|l| format!("`{l}`"))
                .collect::<Vec<_>>()
                .join(" or ");
            let whose = if assumed.len() > 1 {
                "whose values"
            } else {
                "whose value"
            };
            f = f.with_note(format!(
                "this holds unless {which}, {whose} the code does not show, carries a \
                 hash tag (`{{…}}`): with a tag in it, every member hashes only that tag"
            ));
        }
    }
    let refusal = match unit.kind {
        UnitKind::Command if unit_lang == Lang::Lua => {
            "inside a script, a command whose keys span slots fails: \
             `Script attempted to access a non local key in a cluster node`"
        }
        UnitKind::Command if unit_lang == Lang::Python => {
            "Redis Cluster refuses a command whose keys span slots: redis-py's `RedisCluster` \
             before sending it (`… - all keys must map to the same key slot`), the server with \
             `CROSSSLOT Keys in request don't hash to the same slot`"
        }
        UnitKind::Command => {
            "Redis Cluster refuses a command whose keys span slots: \
             `CROSSSLOT Keys in request don't hash to the same slot`"
        }
        UnitKind::Transaction => {
            "the cluster aborts a transaction whose keys span slots (`CROSSSLOT` or \
             `EXECABORT`), and a `WATCH` guards it only on the transaction's own slot"
        }
        UnitKind::Script => {
            "a script runs on one node and every key it touches must be in one slot"
        }
    };
    f = match (rule, unit.policy) {
        // Nothing is refused; what is lost is said in the unit's notes.
        (_, CrossSlotPolicy::NotAtomic) => f.with_severity(Severity::Warning),
        (Rule::CrossSlot, CrossSlotPolicy::SameNode) => {
            f.with_severity(Severity::Warning).with_note(
                "the script may touch keys of other slots (no `#!lua` shebang, or \
                 `allow-cross-slot-keys`), so this works \
                 only while these slots are served by one node; a resharding can break it",
            )
        }
        (Rule::CrossSlot, _) => f.with_note(match unit.kind {
            UnitKind::Command if unit_lang == Lang::Python => {
                "Redis Cluster refuses a command whose keys span slots: \
                 `CROSSSLOT Keys in request don't hash to the same slot`"
            }
            _ => refusal,
        }),
        _ if family_only => f.with_note(refusal),
        _ => f.with_note(
            "these keys are hashed from different bytes, so they share a slot only by a \
             1-in-16384 chance",
        ),
    };

    // `f"user:{uid}"` (no tag) and `f"user:{{uid}}"` (the constant tag `uid`) are the
    // f-string trap: explain it when a key looks like either.
    let fstring_trap = keys.iter().any(|&k| match &inputs[k] {
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
    });
    if unit_lang == Lang::Python && fstring_trap && !family_only {
        f = f.with_note(super::FSTRING_TRAP);
    }
    for note in facts.notes.get(&ui).into_iter().flatten() {
        f = f.with_note(*note);
    }
    if family_only {
        return Some(f.with_help(
            "keys of one family meet in one slot only under a hash tag on what all \
             members share; if they share nothing, split the call into one call per key \
             (no longer atomic)",
        ));
    }
    // One template per distinct key text keeps the suggestion short; past a few dozen
    // distinct keys a rewrite is not a useful suggestion (and would cost quadratic time).
    let mut distinct: Vec<&KeyTemplate> = Vec::new();
    let mut index: HashMap<Vec<SymPart>, usize> = HashMap::new();
    for &k in &keys {
        let t = &model.keys[k].template;
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
        suggest_tag(&distinct, unit_lang)
    };
    f = match suggestion {
        Ok(s) => {
            // A rewrite of Lua keys inside a Python string would have to re-quote them
            // for Python too: no edit is offered there, only the help.
            if unit_lang == model.lang {
                if let Some(fix) = tag_fix(model, &keys, &index, &s) {
                    f = f.with_fix(fix);
                }
            }
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
        Err(NoSuggestion::OnlyConstant(c)) => f.with_help(format!(
            "the keys share only the constant `{c}`; a `{{{c}}}` tag would put that whole \
             family on one slot, so split the operation per key or give the keys a real \
             shared identity"
        )),
        Err(NoSuggestion::NothingShared) => f.with_help(
            "these keys share no identity that a hash tag could co-locate; split the \
             operation per key, or rename the keys around a shared identity",
        ),
        Err(NoSuggestion::NotRewritable) => f.with_help(
            "give every key the same hash tag, the part between `{` and `}`, so that they \
             hash to one slot",
        ),
    };
    Some(f)
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
    use crate::model::{KeyFamily, KeyOrigin, KeyUse};
    use crate::template::tests::{hole, lit};
    use crate::template::{HoleKind, Part};

    /// One `MGET` unit over `keys`; `family` marks key 0 as standing for many keys
    /// whose hole `name` varies.
    fn run(keys: Vec<Vec<Part>>, family: bool, policy: CrossSlotPolicy) -> Vec<Finding> {
        let mut m = FileModel::new(Lang::Python);
        for (i, p) in keys.into_iter().enumerate() {
            m.keys.push(KeyUse {
                template: KeyTemplate { parts: p },
                span: i * 10..i * 10 + 5,
                command: "MGET".into(),
                origin: KeyOrigin::Direct,
            });
        }
        m.units.push(Unit {
            kind: UnitKind::Command,
            name: "MGET".into(),
            span: 0..100,
            anchor: 0..4,
            keys: (0..m.keys.len()).collect(),
            policy,
        });
        if family {
            m.families.push(KeyFamily {
                unit: 0,
                key: 0,
                varying: vec!["name".into()],
                source: "the elements of a comprehension".into(),
            });
        }
        let mut out = Vec::new();
        check(&m, &mut out);
        out
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
