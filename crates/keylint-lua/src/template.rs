//! Small helpers on key templates: concatenation that keeps source maps, slicing a
//! literal, and the values a hole stands for.

use keylint_core::template::{Hole, HoleKind, KeyTemplate, Lit, Part, SourceMap};
use keylint_core::Span;

/// The source offsets of a literal's bytes, plus the offset just past the end.
fn offsets(lit: &Lit) -> Option<Vec<usize>> {
    match &lit.map {
        SourceMap::None => None,
        SourceMap::Contiguous(s) => Some((0..=lit.bytes.len()).map(|i| s + i).collect()),
        SourceMap::PerByte(v) => (v.len() == lit.bytes.len() + 1).then(|| v.clone()),
    }
}

fn simplify(bytes_len: usize, offs: Vec<usize>) -> SourceMap {
    match offs.first() {
        Some(&s)
            if offs.iter().enumerate().all(|(i, &o)| o == s + i) && offs.len() == bytes_len + 1 =>
        {
            SourceMap::Contiguous(s)
        }
        _ => SourceMap::PerByte(offs),
    }
}

/// Bytes `range` of a literal, with their part of the source map.
pub(crate) fn sub_lit(lit: &Lit, range: std::ops::Range<usize>) -> Lit {
    let bytes = lit.bytes[range.clone()].to_vec();
    let map = match &lit.map {
        SourceMap::None => SourceMap::None,
        SourceMap::Contiguous(s) => SourceMap::Contiguous(s + range.start),
        SourceMap::PerByte(v) => {
            let mut offs: Vec<usize> = v[range.clone()].to_vec();
            // Just past the last byte taken: where the next byte starts.
            offs.push(v.get(range.end).copied().unwrap_or_default());
            simplify(bytes.len(), offs)
        }
    };
    Lit { bytes, map }
}

/// Appends a literal to a part list, merging it with a literal before it.
fn push_lit(parts: &mut Vec<Part>, lit: Lit) {
    if lit.bytes.is_empty() {
        return;
    }
    if let Some(Part::Lit(prev)) = parts.last_mut() {
        let map = match (offsets(prev), offsets(&lit)) {
            (Some(mut a), Some(b)) => {
                a.pop();
                a.extend(b);
                simplify(prev.bytes.len() + lit.bytes.len(), a)
            }
            _ => SourceMap::None,
        };
        prev.bytes.extend_from_slice(&lit.bytes);
        prev.map = map;
        return;
    }
    parts.push(Part::Lit(lit));
}

/// `a .. b`.
pub(crate) fn concat(a: KeyTemplate, b: KeyTemplate) -> KeyTemplate {
    let mut parts = a.parts;
    for p in b.parts {
        match p {
            Part::Lit(l) => push_lit(&mut parts, l),
            hole => parts.push(hole),
        }
    }
    KeyTemplate { parts }
}

/// A template of one hole.
pub(crate) fn hole(
    label: impl Into<String>,
    binding: String,
    kind: HoleKind,
    span: Option<Span>,
) -> KeyTemplate {
    KeyTemplate {
        parts: vec![Part::Hole(Hole {
            label: label.into(),
            binding,
            kind,
            span,
        })],
    }
}

/// The holes of a template.
pub(crate) fn holes(t: &KeyTemplate) -> impl Iterator<Item = &Hole> {
    t.parts.iter().filter_map(|p| match p {
        Part::Hole(h) => Some(h),
        Part::Lit(_) => None,
    })
}

/// A value's template whose one hole (the whole value) is made a fragment: a value
/// written after a key's text. A value the host code pastes into the script's source
/// (`host:` binding) keeps its kind: the host code shows where it comes from.
pub(crate) fn data_fragments(mut t: KeyTemplate) -> KeyTemplate {
    if let [Part::Hole(h)] = t.parts.as_mut_slice() {
        if !h.binding.starts_with("host:") {
            h.kind = HoleKind::Fragment;
        }
    }
    t
}

/// The template with every hole made opaque.
pub(crate) fn all_opaque(mut t: KeyTemplate) -> KeyTemplate {
    for p in &mut t.parts {
        if let Part::Hole(h) = p {
            h.kind = HoleKind::Opaque;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str, at: usize) -> KeyTemplate {
        KeyTemplate::literal(s, SourceMap::Contiguous(at))
    }

    #[test]
    fn concat_merges_literals_and_maps() {
        let t = concat(lit("ab", 10), lit("cd", 20));
        assert_eq!(t.parts.len(), 1);
        let Part::Lit(l) = &t.parts[0] else { panic!() };
        assert_eq!(l.bytes, b"abcd");
        assert_eq!(l.map, SourceMap::PerByte(vec![10, 11, 20, 21, 22]));
        let t = concat(lit("ab", 10), lit("cd", 12));
        let Part::Lit(l) = &t.parts[0] else { panic!() };
        assert_eq!(l.map, SourceMap::Contiguous(10));
    }

    #[test]
    fn slicing_keeps_offsets() {
        let l = Lit {
            bytes: b"a{b".to_vec(),
            map: SourceMap::PerByte(vec![0, 1, 5, 6]),
        };
        let s = sub_lit(&l, 1..3);
        assert_eq!(s.bytes, b"{b");
        assert_eq!(s.map, SourceMap::PerByte(vec![1, 5, 6]));
        let s = sub_lit(&l, 0..1);
        assert_eq!(s.map, SourceMap::Contiguous(0));
    }
}
