//! Which keys one run of a script can touch together.
//!
//! A script's unit is "every key it touches in one run", not "every key written in
//! it": `if ARGV[1] == 'a' then GET x else GET y end` touches `x` or `y`, never both,
//! and keys after an `if` whose arm ends in `return` never meet the keys of that arm.
//! The evaluator labels every key occurrence with the branch arms it is under
//! ([`Constraint`]); this module turns labelled occurrences into units, one per
//! combination of arms that matters, so the cross-slot rules only ever compare keys
//! that one run can touch.
//!
//! Exclusivity is taken generously (arms of an `if` in a loop body are exclusive
//! although different iterations may take different arms): the unit may miss a pair,
//! never hold a pair that cannot meet.

use std::collections::BTreeMap;

/// A branch point: an `if` statement in one invocation (start byte, frame).
pub(crate) type BranchPoint = (usize, usize);

/// Where an occurrence is, relative to one branch point.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Choice {
    /// Inside arm `i` (0: `then`, then each `elseif`, then `else`).
    Arm(usize),
    /// Reached only when none of these arms was taken (they return, or this is the
    /// condition of a later `elseif`).
    NotArms(Vec<usize>),
}

/// One label of an occurrence.
pub(crate) type Constraint = (BranchPoint, Choice);

/// Most units made for one script; beyond, only the keys under no branch that
/// matters are kept together.
const MAX_UNITS: usize = 16;

/// The units of a script: sets of keys (in first-use order) that one run may touch
/// together.
pub(crate) fn units(occurrences: &[(usize, Vec<Constraint>)]) -> Vec<Vec<usize>> {
    // Per branch point: the arms keys are in, and the arms keys avoid.
    let mut arms: BTreeMap<BranchPoint, Vec<usize>> = BTreeMap::new();
    let mut avoided: BTreeMap<BranchPoint, Vec<Vec<usize>>> = BTreeMap::new();
    for (_, cs) in occurrences {
        for (bp, c) in cs {
            match c {
                Choice::Arm(i) => {
                    let v = arms.entry(*bp).or_default();
                    if !v.contains(i) {
                        v.push(*i);
                    }
                }
                Choice::NotArms(s) => avoided.entry(*bp).or_default().push(s.clone()),
            }
        }
    }
    // A branch point matters when two occurrences cannot meet through it.
    let mut relevant: Vec<(BranchPoint, Vec<Option<usize>>)> = Vec::new();
    let mut bps: Vec<BranchPoint> = arms.keys().chain(avoided.keys()).copied().collect();
    bps.sort_unstable();
    bps.dedup();
    for bp in bps {
        let a = arms.get(&bp).cloned().unwrap_or_default();
        let n = avoided.get(&bp).map(Vec::as_slice).unwrap_or_default();
        let conflict = a.len() > 1 || a.iter().any(|i| n.iter().any(|s| s.contains(i)));
        if conflict {
            let mut choices: Vec<Option<usize>> = a.iter().copied().map(Some).collect();
            choices.sort_unstable();
            if !n.is_empty() {
                choices.push(None);
            }
            relevant.push((bp, choices));
        }
    }
    let total = relevant
        .iter()
        .try_fold(1usize, |acc, (_, c)| acc.checked_mul(c.len()))
        .unwrap_or(usize::MAX);
    let fits = |cs: &[Constraint], scenario: &[(BranchPoint, Option<usize>)]| {
        cs.iter().all(|(bp, c)| {
            let Some((_, pick)) = scenario.iter().find(|(b, _)| b == bp) else {
                return true;
            };
            match (c, pick) {
                (Choice::Arm(i), Some(p)) => i == p,
                (Choice::Arm(_), None) => false,
                (Choice::NotArms(s), Some(p)) => !s.contains(p),
                (Choice::NotArms(_), None) => true,
            }
        })
    };
    let collect = |keep: &dyn Fn(&[Constraint]) -> bool| {
        let mut out: Vec<usize> = Vec::new();
        let mut seen = crate::hash::OffsetSet::default();
        for (k, cs) in occurrences {
            if keep(cs) && seen.insert(*k) {
                out.push(*k);
            }
        }
        out
    };
    if relevant.is_empty() {
        return vec![collect(&|_| true)];
    }
    if total > MAX_UNITS {
        let only_certain = |cs: &[Constraint]| {
            cs.iter()
                .all(|(bp, _)| !relevant.iter().any(|(r, _)| r == bp))
        };
        return vec![collect(&only_certain)];
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    for mut n in 0..total {
        let mut scenario = Vec::with_capacity(relevant.len());
        for (bp, choices) in &relevant {
            scenario.push((*bp, choices[n % choices.len()]));
            n /= choices.len();
        }
        let unit = collect(&|cs| fits(cs, &scenario));
        if !unit.is_empty() && !out.contains(&unit) {
            out.push(unit);
        }
    }
    // Drop units contained in others.
    let all = out.clone();
    out.retain(|u| {
        !all.iter()
            .any(|v| v != u && v.len() > u.len() && u.iter().all(|k| v.contains(k)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const IF: BranchPoint = (10, 0);

    #[test]
    fn straight_line_is_one_unit() {
        assert_eq!(
            units(&[(0, vec![]), (1, vec![]), (0, vec![])]),
            [vec![0, 1]]
        );
    }

    #[test]
    fn arms_of_one_if_never_meet() {
        let occ = [
            (0, vec![]),
            (1, vec![(IF, Choice::Arm(0))]),
            (2, vec![(IF, Choice::Arm(1))]),
            (3, vec![]),
        ];
        assert_eq!(units(&occ), [vec![0, 1, 3], vec![0, 2, 3]]);
    }

    #[test]
    fn a_returning_arm_never_meets_what_follows() {
        let occ = [
            (0, vec![(IF, Choice::Arm(0))]),
            (1, vec![(IF, Choice::NotArms(vec![0]))]),
            (2, vec![]),
        ];
        assert_eq!(units(&occ), [vec![0, 2], vec![1, 2]]);
    }

    #[test]
    fn a_single_arm_changes_nothing() {
        let occ = [(0, vec![(IF, Choice::Arm(0))]), (1, vec![])];
        assert_eq!(units(&occ), [vec![0, 1]]);
    }

    #[test]
    fn too_many_combinations_keep_the_certain_keys() {
        let mut occ = vec![(100, vec![])];
        for i in 0..6 {
            let bp = (i, 0);
            occ.push((2 * i, vec![(bp, Choice::Arm(0))]));
            occ.push((2 * i + 1, vec![(bp, Choice::Arm(1))]));
        }
        assert_eq!(units(&occ), [vec![100]]);
    }
}
