//! `cross-slot`: keys of one atomic unit (a command, a transaction, a script) proven to
//! be in different slots: both slots are concrete and differ. The unit analysis is
//! shared with `cross-slot-likely` ([`super::slot_units`]).

use super::slot_units::refusal;
use crate::diagnostic::{Finding, Severity};
use crate::model::{CrossSlotPolicy, Unit, UnitKind};
use crate::rule::RuleMeta;
use crate::template::{compare, HashInput, Verdict};

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK001",
    name: "cross-slot",
    severity: Severity::Error,
    summary: "keys of one atomic operation are in different hash slots",
};

/// The first key with a concrete slot and the first key proven to be elsewhere.
pub(super) fn proven(keys: &[usize], inputs: &[HashInput]) -> Option<(usize, usize)> {
    let a = keys.iter().copied().find(|&k| inputs[k].slot().is_some())?;
    let b = keys
        .iter()
        .copied()
        .find(|&k| compare(&inputs[a], &inputs[k]) == Verdict::Different)?;
    Some((a, b))
}

/// What the headline says of the keys.
pub(super) fn verb(policy: CrossSlotPolicy) -> &'static str {
    match policy {
        CrossSlotPolicy::NotAtomic => "are in different hash slots: on a cluster it is not atomic",
        _ => "are in different hash slots",
    }
}

/// Why a proven pair fails, or where it only works by chance of placement.
pub(super) fn explain(f: Finding, unit: &Unit, in_script: bool) -> Finding {
    if unit.policy == CrossSlotPolicy::SameNode {
        let note = if unit.kind == UnitKind::Script {
            "the script may touch keys of other slots (no `#!lua` shebang, or \
             `allow-cross-slot-keys`), so this works \
             only while these slots are served by one node; a resharding can break it"
        } else {
            "the client sends these commands to one node, so this works only while \
             these slots are served by one node; a resharding can break it"
        };
        return f.with_severity(Severity::Warning).with_note(note);
    }
    // The server's refusal: a client that refuses first is told of on likely findings,
    // where the server would never see the call.
    f.with_note(refusal(&unit.kind, in_script, None))
}
