//! `cross-slot-unknown` (off by default): keys of one atomic unit whose slots the
//! analysis cannot tell apart or together, because a key holds a value the code does
//! not show. The other slot rules stay silent there; this one says so where a user
//! asks for it (`--select cross-slot-unknown`), as an inventory of what remains to
//! check by hand before a move to a cluster. The unit analysis is shared with
//! `cross-slot` and `cross-slot-likely` ([`super::slot_units`]), which run first: a
//! unit they report is never reported here.

use super::slot_units::UnitView;
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::CrossSlotPolicy;
use crate::rule::RuleMeta;
use crate::template::{compare, HashInput, Part, Verdict};

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK003",
    name: "cross-slot-unknown",
    severity: Severity::Info,
    summary: "whether the keys of one atomic operation share a slot cannot be told (off by default)",
};

/// Most keys of one unit labelled; the rest are counted in a note.
const MAX_LABELS: usize = 8;

/// A finding for a unit of keys the client sends, two of which are not the same key
/// and at least one pair of which has no verdict. `None` when every pair is proven
/// in one slot, when the unit holds one distinct key, or when it is a script's own
/// (the script rules judge those).
pub(super) fn undecided(u: &UnitView<'_, '_>) -> Option<Finding> {
    let (cx, unit) = (u.cx, u.unit);
    if !cx.settings.report_unknown || unit.policy == CrossSlotPolicy::Split {
        return None;
    }
    let keys: Vec<usize> = unit
        .keys
        .iter()
        .copied()
        .filter(|&k| !cx.in_script(k))
        .collect();
    // Distinct keys, by what they are written as and the values they hold.
    let mut distinct: Vec<usize> = Vec::new();
    for &k in &keys {
        let t = &cx.model.keys[k].template;
        if !distinct
            .iter()
            .any(|&d| cx.model.keys[d].template.same_text(t))
        {
            distinct.push(k);
        }
    }
    let family = keys
        .iter()
        .any(|&k| u.facts.families.contains_key(&(u.ui, k)));
    if distinct.len() < 2 && !family {
        return None;
    }
    let mut unknown_pair = false;
    for (i, &a) in distinct.iter().enumerate() {
        for &b in &distinct[i + 1..] {
            if compare(&u.inputs[a], &u.inputs[b]) == Verdict::Unknown {
                unknown_pair = true;
            }
        }
    }
    let unknown_family = family && distinct.iter().any(|&k| u.inputs[k] == HashInput::Unknown);
    if !(unknown_pair || unknown_family) {
        return None;
    }
    // The values the code does not show, as written, in first-use order.
    let mut values: Vec<String> = Vec::new();
    for &k in &distinct {
        if u.inputs[k] != HashInput::Unknown {
            continue;
        }
        for p in &cx.model.keys[k].template.parts {
            if let Part::Hole(h) = p {
                if !values.contains(&h.label) {
                    values.push(h.label.clone());
                }
            }
        }
    }
    let what = super::slot_units::what(unit);
    let mut f = Finding::new(
        super::Rule::CrossSlotUnknown,
        format!("whether the {what} share a slot cannot be told"),
        Label::new(unit.anchor.clone(), "the keys are sent together here"),
    );
    for &k in distinct.iter().take(MAX_LABELS) {
        let label = match &u.inputs[k] {
            HashInput::Unknown => "slot unknown".to_string(),
            i => i.describe(cx.syntax(k)),
        };
        f.secondary
            .push(Label::new(cx.model.keys[k].span.clone(), label));
    }
    if distinct.len() > MAX_LABELS {
        f.notes.push(format!(
            "and {} more distinct keys",
            distinct.len() - MAX_LABELS
        ));
    }
    f.unit = Some(unit.span.clone());
    let shown = super::cross_slot_likely::quoted(&values);
    f = f.with_note(if shown.is_empty() {
        "a key here is a value the code does not show, which may carry a hash tag of its own"
            .to_string()
    } else {
        format!(
            "the code does not show the value of {shown}, which may hold a whole key or \
             carry a hash tag of its own: the slots depend on it"
        )
    });
    Some(f.with_help(
        "check that these keys share a hash tag where the values are chosen, or split the \
         operation per key; `cross-slot` and `cross-slot-likely` report what can be told",
    ))
}
