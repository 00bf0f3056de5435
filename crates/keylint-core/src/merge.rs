//! One finding per place: the findings of one rule at one primary span become one.
//!
//! An analysis that follows every path through a unit (the exclusive branches of a
//! transaction, the commands a family of keys reaches) can reach the same verdict at
//! the same place more than once. A user should see that place once. The finding kept
//! is the most severe (an error is never dropped for a warning; among equals, the
//! first one). It gains the evidence of the others: their labels; their notes when
//! they say the same thing, else their headline as a note. Its unit covers theirs. It
//! keeps its suggested rewrite only when every merged finding proposes that same
//! rewrite: a rewrite that cures one path but not another is not the fix of the place.

use crate::diagnostic::Finding;
use crate::rule::Rule;
use std::collections::HashMap;

/// Merges the findings of one rule at one primary span, keeping source order (findings
/// sorted by position come back sorted by position).
pub fn one_per_place(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    // For each kept finding, whether the fixes of its duplicates all agreed.
    let mut fix_agrees: Vec<bool> = Vec::with_capacity(findings.len());
    let mut seen: HashMap<(Rule, usize, usize), usize> = HashMap::new();
    for f in findings {
        let place = (f.rule, f.primary.span.start, f.primary.span.end);
        let Some(&i) = seen.get(&place) else {
            seen.insert(place, out.len());
            out.push(f);
            fix_agrees.push(true);
            continue;
        };
        fix_agrees[i] &= out[i].fix == f.fix;
        let kept = &mut out[i];
        let other = if f.severity > kept.severity {
            std::mem::replace(kept, f)
        } else {
            f
        };
        absorb(kept, other);
    }
    for (f, agrees) in out.iter_mut().zip(fix_agrees) {
        if !agrees {
            f.fix = None;
        }
    }
    out
}

/// Adds what `other` says and `kept` does not.
fn absorb(kept: &mut Finding, other: Finding) {
    // The other's primary label names what it found there (another key hashed at the
    // same call, say): it stays, as evidence at the same place.
    let labels = std::iter::once(other.primary).chain(other.secondary);
    for l in labels {
        if l != kept.primary && !kept.secondary.contains(&l) {
            kept.secondary.push(l);
        }
    }
    if other.message == kept.message {
        // The same finding reached another way: its notes hold for the one kept.
        for n in other.notes {
            if !kept.notes.contains(&n) {
                kept.notes.push(n);
            }
        }
    } else {
        // Another finding at the same place (another key, another command): its notes
        // are about what it found, so only its headline is carried over.
        let also = format!("also here: {}", other.message);
        if !kept.notes.contains(&also) {
            kept.notes.push(also);
        }
    }
    if kept.help.is_none() {
        kept.help = other.help;
    }
    kept.unit = match (kept.unit.take(), other.unit) {
        (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
        (a, b) => a.or(b),
    };
}

#[cfg(test)]
mod tests {
    use super::one_per_place;
    use crate::diagnostic::{Edit, Finding, Fix, Label, Severity};
    use crate::rule::Rule;

    fn at(rule: Rule, start: usize, other: usize) -> Finding {
        Finding::new(rule, "keys differ", Label::new(start..start + 4, "here"))
            .with_secondary(Label::new(other..other + 2, "and here"))
            .with_note(format!("path through {other}"))
            .with_unit(start..other + 2)
    }

    fn fix(title: &str) -> Fix {
        Fix {
            title: title.into(),
            edits: vec![Edit {
                span: 0..1,
                replacement: "{x}".into(),
            }],
        }
    }

    #[test]
    fn two_branches_make_one_finding_with_the_evidence_of_both() {
        let a = at(Rule::CrossSlotLikely, 10, 40);
        let b = at(Rule::CrossSlotLikely, 10, 60);
        let out = one_per_place(vec![a, b]);
        assert_eq!(out.len(), 1);
        let f = &out[0];
        let seen: Vec<usize> = f.secondary.iter().map(|l| l.span.start).collect();
        assert_eq!(seen, vec![40, 60]);
        // The same primary label said twice is said once; a different one stays.
        let mut c = at(Rule::CrossSlotLikely, 10, 40);
        c.primary.message = "hashed whole: `b`".into();
        let out = one_per_place(vec![at(Rule::CrossSlotLikely, 10, 40), c]);
        let said: Vec<&str> = out[0]
            .secondary
            .iter()
            .map(|l| l.message.as_str())
            .collect();
        assert_eq!(said, vec!["and here", "hashed whole: `b`"]);
        assert_eq!(f.notes, vec!["path through 40", "path through 60"]);
        assert_eq!(f.unit, Some(10..62));
    }

    #[test]
    fn an_error_is_never_dropped_for_a_warning() {
        let warn = at(Rule::CrossSlotLikely, 10, 40)
            .with_severity(Severity::Warning)
            .with_help("weak");
        let mut err = at(Rule::CrossSlotLikely, 10, 60).with_severity(Severity::Error);
        err.message = "strong".into();
        let out = one_per_place(vec![warn, err]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].severity, Severity::Error);
        assert_eq!(out[0].message, "strong");
        assert_eq!(out[0].secondary.len(), 2);
        // The notes of a finding that says something else are about its own keys.
        assert_eq!(
            out[0].notes,
            vec!["path through 60", "also here: keys differ"]
        );
    }

    #[test]
    fn other_rules_and_other_places_stay_apart() {
        let out = one_per_place(vec![
            at(Rule::CrossSlotLikely, 10, 40),
            at(Rule::CrossSlot, 10, 40),
            at(Rule::CrossSlotLikely, 11, 40),
        ]);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn a_rewrite_survives_only_when_every_path_proposes_it() {
        let same = |t: &str| at(Rule::CrossSlotLikely, 10, 40).with_fix(fix(t));
        let out = one_per_place(vec![same("tag"), same("tag")]);
        assert_eq!(out[0].fix, Some(fix("tag")));
        let out = one_per_place(vec![same("tag"), same("other")]);
        assert_eq!(out[0].fix, None);
        let out = one_per_place(vec![same("tag"), at(Rule::CrossSlotLikely, 10, 60)]);
        assert_eq!(out[0].fix, None);
    }
}
