//! Keys hashed from a fresh random value (a uuid, a random hex token): the text of
//! such a value holds no `{` or `}`, so a key whose hashed bytes contain it lands in a
//! random slot. Any other key of the unit shares that slot only by a 1-in-16384
//! chance, whatever its own slot (known, tagged or unknown), unless it holds the very
//! same value: one variable, one call result (then the two may be one key, or share a
//! tag around that value).

use super::slot_units::UnitView;
use crate::diagnostic::Finding;
use crate::template::{compare, is_fresh_binding, HashInput, Part, SymPart, Verdict};

/// The fresh values the key `k` is hashed from: (binding, label).
fn hashed_fresh(u: &UnitView<'_, '_>, k: usize) -> Vec<(String, String)> {
    let HashInput::Symbolic { parts, .. } = &u.inputs[k] else {
        return Vec::new();
    };
    parts
        .iter()
        .filter_map(|p| match p {
            SymPart::Hole { binding, label } if is_fresh_binding(binding) => {
                Some((binding.clone(), label.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Whether the key `k` may hold the value of `binding`: a hole of it is that value,
/// is computed from it, or it is computed from the hole's value (`token[:32]` and
/// `token` may be one text).
fn may_hold(u: &UnitView<'_, '_>, k: usize, binding: &str) -> bool {
    u.cx.model.keys[k].template.parts.iter().any(|p| match p {
        Part::Hole(h) => h.binding.contains(binding) || binding.contains(h.binding.as_str()),
        Part::Lit(_) => false,
    })
}

/// A key hashed from a fresh value and another key of the unit that cannot hold that
/// value and is not proven in its slot: the pair, with the fresh value's label.
pub(super) fn apart(u: &UnitView<'_, '_>) -> Option<(usize, usize, String)> {
    let keys = &u.unit.keys;
    for &a in keys {
        for (binding, label) in hashed_fresh(u, a) {
            let other = keys.iter().copied().find(|&b| {
                b != a
                    && !may_hold(u, b, &binding)
                    && compare(&u.inputs[a], &u.inputs[b]) != Verdict::Same
            });
            if let Some(b) = other {
                return Some((a, b, label));
            }
        }
    }
    None
}

/// The label of a fresh value one of the keys `a`, `b` is hashed from, if any.
pub(super) fn label_of_pair(u: &UnitView<'_, '_>, a: usize, b: usize) -> Option<String> {
    [a, b]
        .into_iter()
        .find_map(|k| hashed_fresh(u, k).into_iter().next().map(|(_, l)| l))
}

/// Why a key hashed from a fresh value is apart from the others.
pub(super) fn explain(f: Finding, label: &str) -> Finding {
    f.with_note(format!(
        "`{label}` is a fresh random value (a uuid or a random hex token): it holds no \
         hash tag, so the key made from it hashes to a random slot, which another key \
         shares only by a 1-in-16384 chance"
    ))
}
