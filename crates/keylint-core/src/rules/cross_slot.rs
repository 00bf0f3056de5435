//! `cross-slot` and `cross-slot-likely`: keys of one atomic unit in different slots.

use crate::diagnostic::{Edit, Fix};
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::{CrossSlotPolicy, FileModel, Unit, UnitKind};
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
    let mut reported: HashSet<usize> = HashSet::new();
    for unit in &model.units {
        if unit.policy == CrossSlotPolicy::Split {
            // The client splits the call per slot: it works, only atomicity is lost.
            continue;
        }
        // A block whose own command was already reported would repeat that finding.
        if unit.kind != UnitKind::Command && unit.keys.iter().any(|k| reported.contains(k)) {
            continue;
        }
        if let Some(f) = check_unit(model, unit, &inputs) {
            reported.extend(unit.keys.iter().copied());
            out.push(f);
        }
    }
}

fn what(unit: &Unit) -> String {
    match unit.kind {
        UnitKind::Command => format!("keys of `{}`", unit.name),
        UnitKind::Transaction => format!("keys of this `{}` transaction", unit.name),
        UnitKind::Script if unit.name == "script" || unit.name.is_empty() => {
            "keys of this script".to_string()
        }
        UnitKind::Script => format!("keys of function `{}`", unit.name),
    }
}

fn check_unit(model: &FileModel, unit: &Unit, inputs: &[HashInput]) -> Option<Finding> {
    let keys: Vec<usize> = unit.keys.clone();
    if keys.len() < 2 {
        return None;
    }
    let lang = model.lang;
    // Proven: two concrete slots differ.
    let first_concrete = keys.iter().copied().find(|&k| inputs[k].slot().is_some());
    let proven_other = first_concrete.and_then(|a| {
        keys.iter()
            .copied()
            .find(|&k| compare(&inputs[a], &inputs[k]) == Verdict::Different)
    });
    let (rule, anchor, culprit) = if let (Some(a), Some(b)) = (first_concrete, proven_other) {
        (Rule::CrossSlot, a, b)
    } else {
        // Likely: two known hash inputs that differ symbolically.
        let known: Vec<usize> = keys
            .iter()
            .copied()
            .filter(|&k| inputs[k] != HashInput::Unknown)
            .collect();
        let a = *known.first()?;
        let b = known
            .iter()
            .copied()
            .find(|&k| compare(&inputs[a], &inputs[k]) == Verdict::LikelyDifferent)?;
        (Rule::CrossSlotLikely, a, b)
    };

    let verb = match rule {
        Rule::CrossSlot => "are in different hash slots",
        _ => "almost certainly hash to different slots",
    };
    let mut f = Finding::new(
        rule,
        format!("{} {verb}", what(unit)),
        Label::new(
            model.keys[culprit].span.clone(),
            inputs[culprit].describe(lang),
        ),
    )
    .with_unit(unit.span.clone());

    let mut shown = 1;
    let mut hidden = 0;
    let mut seen_spans = HashSet::new();
    seen_spans.insert(model.keys[culprit].span.clone());
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
            inputs[k].describe(lang),
        ));
    }
    if hidden > 0 {
        f = f.with_note(format!("and {hidden} more keys"));
    }
    if unit.kind == UnitKind::Transaction && unit.anchor != unit.span {
        f = f.with_secondary(Label::new(unit.anchor.clone(), "transaction starts here"));
    }

    f = match (rule, unit.policy) {
        (Rule::CrossSlot, CrossSlotPolicy::SameNode) => {
            f.with_severity(Severity::Warning).with_note(
                "the script may touch keys of other slots (no `#!lua` shebang, or \
                 `allow-cross-slot-keys`), so this works \
                 only while these slots are served by one node; a resharding can break it",
            )
        }
        (Rule::CrossSlot, _) => f.with_note(match unit.kind {
            UnitKind::Command if model.lang == Lang::Lua => {
                "inside a script, a command whose keys span slots fails: \
                 `Script attempted to access a non local key in a cluster node`"
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
        }),
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
    if lang == Lang::Python && fstring_trap {
        f = f.with_note(super::FSTRING_TRAP);
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
        suggest_tag(&distinct, lang)
    };
    f = match suggestion {
        Ok(s) => {
            if let Some(fix) = tag_fix(model, &keys, &index, &s) {
                f = f.with_fix(fix);
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
