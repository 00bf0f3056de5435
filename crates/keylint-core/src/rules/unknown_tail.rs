//! A key whose slot is unknown only because values the code does not show come after
//! text it writes (`"cache:" + key`, `f"SimpleCache-{ns}:{key}"`), next to a key whose
//! hashed text the code shows in full, with no brace (`"cache-index"`, or the same
//! unknown head followed by brace-free text: `f"{ns}-keys"` next to `f"{ns}:{key}"`).
//!
//! The two texts differ where both are literal, so they are never one key. Without a
//! hash tag in the unknown values, the first key is hashed whole from other bytes; with
//! one, it is hashed from that tag, which matches the other key's slot only by a
//! 1-in-16384 chance: nobody tags a value to land on the slot of an untagged key, since
//! a project that co-locates keys writes one tag into both. So the pair is almost
//! surely cross-slot, a warning that names the unknown values and the caveat.
//!
//! Stays silent: two keys that both hold values after the text where they differ (two
//! values chosen apart may share a tag on purpose: `rename(src, dst)`), a key that is
//! an unknown value alone or begins with one that the other key does not share (it may
//! be that key, or carry any tag), a key with a brace in the text the code shows, and a
//! key whose text may equal the other's (`"cache:" + key` next to `"cache:index"`).

use super::cross_slot_likely::{template_with_defaults, Configured};
use super::slot_units::UnitView;
use crate::diagnostic::Finding;
use crate::template::{Hole, HoleKind, KeyTemplate, Part};

/// Most keys of one unit compared pairwise.
const MAX_KEYS: usize = 64;

/// What a verdict on a key after unknown values rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tail {
    /// The key after unknown values and the key whose hashed text is known.
    pub(super) keys: (usize, usize),
    /// The values the code does not show in the key whose slot is unknown.
    pub(super) unknown: Vec<String>,
    /// The unknown heads both keys share (a configured namespace).
    pub(super) heads: Vec<String>,
    /// The configured values taken with the literal default the code gives them.
    pub(super) configured: Configured,
}

/// The key's text as runs of bytes and holes, adjacent literals merged.
fn runs(t: &KeyTemplate) -> Vec<Run<'_>> {
    let mut out: Vec<Run<'_>> = Vec::new();
    for p in &t.parts {
        match (out.last_mut(), p) {
            (_, Part::Lit(l)) if l.bytes.is_empty() => {}
            (Some(Run::Bytes(b)), Part::Lit(l)) => b.extend_from_slice(&l.bytes),
            (_, Part::Lit(l)) => out.push(Run::Bytes(l.bytes.clone())),
            (_, Part::Hole(h)) => out.push(Run::Hole(h)),
        }
    }
    out
}

/// One run of a key's text: literal bytes, or a hole.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Run<'a> {
    Bytes(Vec<u8>),
    Hole(&'a Hole),
}

impl Run<'_> {
    fn same(&self, other: &Run<'_>) -> bool {
        match (self, other) {
            (Run::Bytes(x), Run::Bytes(y)) => x == y,
            (Run::Hole(h), Run::Hole(g)) => h.binding == g.binding,
            _ => false,
        }
    }
}

fn push_label(out: &mut Vec<String>, label: &str) {
    if !out.iter().any(|l| l == label) {
        out.push(label.to_string());
    }
}

/// Whether `a` (with unknown values after its text) and `b` (text known but for heads
/// they share) are apart as this module says; with the labels of `a`'s unknown values
/// and of the shared heads. `heads`: bindings of the unknown heads the frontend named.
pub(super) fn pair(
    a: &KeyTemplate,
    b: &KeyTemplate,
    heads: &[String],
) -> Option<(Vec<String>, Vec<String>)> {
    let (ra, rb) = (runs(a), runs(b));
    let i = ra.iter().zip(&rb).take_while(|(x, y)| x.same(y)).count();
    // The parts both keys share: brace-free text, ids, and named unknown heads.
    let mut shared_heads: Vec<String> = Vec::new();
    for r in &rb[..i] {
        if let Run::Hole(h) = r {
            if h.kind == HoleKind::Opaque {
                if !heads.contains(&h.binding) {
                    return None;
                }
                push_label(&mut shared_heads, &h.label);
            }
        }
    }
    // `b`: known text after what they share, and no brace anywhere.
    let [Run::Bytes(tail_b)] = &rb[i..] else {
        return None;
    };
    if rb
        .iter()
        .any(|r| matches!(r, Run::Bytes(x) if x.contains(&b'{') || x.contains(&b'}')))
    {
        return None;
    }
    // `a`: literal text (or the shared head) first, no `{` before its first value, and
    // at least one value after what they share.
    let rest_a = &ra[i..];
    match rest_a.first() {
        Some(Run::Bytes(x)) if !x.contains(&b'{') => {}
        Some(Run::Hole(_)) if i > 0 => {}
        _ => return None,
    }
    let mut unknown: Vec<String> = Vec::new();
    for r in rest_a {
        if let Run::Hole(h) = r {
            push_label(&mut unknown, &h.label);
        }
    }
    if unknown.is_empty() {
        return None;
    }
    // The texts differ where both are literal: right after what they share, or at the
    // end.
    let starts = match rest_a.first() {
        Some(Run::Bytes(x)) => {
            let n = x.len().min(tail_b.len());
            x[..n] != tail_b[..n] || tail_b.len() < x.len()
        }
        _ => false,
    };
    let ends = match rest_a.last() {
        Some(Run::Bytes(x)) => {
            let n = x.len().min(tail_b.len());
            x[x.len() - n..] != tail_b[tail_b.len() - n..]
        }
        _ => false,
    };
    (starts || ends).then_some((unknown, shared_heads))
}

/// A key after unknown values next to a key whose hashed text is known (but for the
/// heads they share), both as the code gives them or with the defaults of their
/// configured values: the pair, with what the verdict rests on.
pub(super) fn apart(u: &UnitView<'_, '_>) -> Option<(usize, usize, Tail)> {
    let model = u.cx.model;
    let keys: Vec<usize> = u.unit.keys.iter().copied().take(MAX_KEYS).collect();
    let views: Vec<(KeyTemplate, Configured)> = keys
        .iter()
        .map(|&k| {
            let t = &model.keys[k].template;
            template_with_defaults(model, t).unwrap_or_else(|| (t.clone(), Vec::new()))
        })
        .collect();
    for (x, &a) in keys.iter().enumerate() {
        if !views[x].0.has_holes() {
            continue;
        }
        for (y, &b) in keys.iter().enumerate() {
            if x == y {
                continue;
            }
            let Some((unknown, heads)) = pair(&views[x].0, &views[y].0, &model.client_prefixes)
            else {
                continue;
            };
            let mut configured = views[x].1.clone();
            for c in &views[y].1 {
                if !configured.contains(c) {
                    configured.push(c.clone());
                }
            }
            return Some((
                a,
                b,
                Tail {
                    keys: (a, b),
                    unknown,
                    heads,
                    configured,
                },
            ));
        }
    }
    None
}

fn quoted(labels: &[String]) -> String {
    labels
        .iter()
        .map(|l| format!("`{l}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Why the key after unknown values is apart from the known one, and what is assumed.
/// `a` and `b` are the two keys as findings show them.
pub(super) fn explain(f: Finding, tail: &Tail, a: &str, b: &str) -> Finding {
    let which = quoted(&tail.unknown);
    let (values, them) = if tail.unknown.len() == 1 {
        ("a value", which.clone())
    } else {
        ("values", format!("one of {which}"))
    };
    let mut f = f.with_note(format!(
        "`{b}` is hashed from text the code shows, with no hash tag; `{a}` differs from it \
         in that text and holds {which}, {values} the code does not show, after it: it is \
         hashed whole, or from a tag in {which}, and shares the slot of `{b}` only by a \
         1-in-16384 chance"
    ));
    f = f.with_note(format!(
        "this holds unless {them} carries a hash tag chosen to land on the slot of `{b}`; \
         keys meant to share a slot carry one tag, written in both"
    ));
    if !tail.heads.is_empty() {
        let heads = quoted(&tail.heads);
        f = f.with_note(format!(
            "both keys begin with {heads}, whose value the code does not show; this also \
             holds unless it carries a hash tag (`{{…}}`): with a tag in it, every key that \
             begins with it hashes only that tag"
        ));
    }
    if !tail.configured.is_empty() {
        let values = tail
            .configured
            .iter()
            .map(|(l, d)| format!("`{l}` (default `{d:?}`)"))
            .collect::<Vec<_>>()
            .join(", ");
        f = f.with_note(format!(
            "this takes {values}, configured where the code does not show, as the code's \
             default; a deployment that configures a hash tag (`{{…}}`) there may put the \
             keys in one slot"
        ));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::tests::{hole, lit};

    fn t(parts: Vec<Part>) -> KeyTemplate {
        KeyTemplate { parts }
    }

    fn key() -> Part {
        hole("key", HoleKind::Opaque)
    }

    fn ns() -> Part {
        hole("ns", HoleKind::Opaque)
    }

    fn apart(a: Vec<Part>, b: Vec<Part>, heads: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
        let heads: Vec<String> = heads.iter().map(|h| h.to_string()).collect();
        pair(&t(a), &t(b), &heads)
    }

    #[test]
    fn a_value_after_text_next_to_a_known_untagged_key_is_apart() {
        let (unknown, heads) =
            apart(vec![lit("cache:"), key()], vec![lit("cache-index")], &[]).unwrap();
        assert_eq!(unknown, vec!["key".to_string()]);
        assert!(heads.is_empty());
        // Several values after the text.
        assert!(apart(
            vec![
                lit("c:"),
                key(),
                lit(":"),
                hole("field", HoleKind::Fragment)
            ],
            vec![lit("index")],
            &[]
        )
        .is_some());
        // The known key is shorter and a prefix of the text: never the same key.
        assert!(apart(vec![lit("sxp:e:"), key()], vec![lit("sxp:e")], &[]).is_some());
        // The texts differ at their ends.
        assert!(apart(
            vec![lit("q:"), key(), lit(":Q")],
            vec![lit("q:QUEUES")],
            &[]
        )
        .is_some());
    }

    #[test]
    fn under_one_named_head_the_head_is_named() {
        let a = vec![ns(), lit(":"), key()];
        let b = vec![ns(), lit("-keys")];
        let (unknown, heads) = apart(a.clone(), b.clone(), &["ns"]).unwrap();
        assert_eq!(unknown, vec!["key".to_string()]);
        assert_eq!(heads, vec!["ns".to_string()]);
        // A head the frontend did not name (a value the code computes) is no head.
        assert!(apart(a, b, &[]).is_none());
        // The value right after the head, the texts differing at the end.
        assert!(apart(
            vec![ns(), hole("qname", HoleKind::Opaque), lit(":Q")],
            vec![ns(), lit("QUEUES")],
            &["ns"]
        )
        .is_some());
    }

    #[test]
    fn look_alikes_stay_silent() {
        // Both keys with values after the text where they differ.
        let other = hole("other", HoleKind::Opaque);
        assert!(apart(vec![lit("a:"), key()], vec![lit("b:"), other], &[]).is_none());
        // The value alone, or first, next to a literal.
        assert!(apart(vec![key()], vec![lit("cache-index")], &[]).is_none());
        assert!(apart(vec![key(), lit(":x")], vec![lit("index")], &[]).is_none());
        // A tag in the known key.
        assert!(apart(vec![lit("c:"), key()], vec![lit("{x}:index")], &[]).is_none());
        assert!(apart(vec![lit("c:"), key()], vec![lit("x}:index")], &[]).is_none());
        // An open brace before the value: the caller may close a tag.
        assert!(apart(vec![lit("c:{"), key()], vec![lit("index")], &[]).is_none());
        // The value may complete the other key's text.
        assert!(apart(vec![lit("cache:"), key()], vec![lit("cache:index")], &[]).is_none());
        // Known keys on both sides.
        assert!(apart(vec![lit("a")], vec![lit("b")], &[]).is_none());
        // The known key may be the head alone.
        assert!(apart(vec![ns(), lit(":"), key()], vec![ns()], &["ns"]).is_none());
    }
}
