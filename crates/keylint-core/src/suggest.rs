//! Hash-tag suggestions: the narrowest tag that a set of keys genuinely share.
//!
//! Keys are cut into `:`-separated segments; the longest run of segments that every
//! key contains (same bytes, same holes) is the shared identity. A run is only
//! proposed when it carries an identity — a hole (`uid`) or a segment with a digit
//! (`1000`) — because a constant namespace (`stats`) as a tag would pile the whole
//! family onto one slot; and a run begins and ends with what it names, never with a
//! separator, so that keys sharing only `:` are told they share nothing.

use crate::template::{Hole, KeyTemplate, Lang, Lit, Part, SourceMap};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Byte(u8),
    Hole(String),
}

/// A proposed tag and the keys rewritten with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSuggestion {
    /// The shared part, as it would read inside the braces.
    pub tag: String,
    /// Each key rewritten, in the key's own language, in input order.
    pub rewritten: Vec<String>,
    /// Each key's rewritten template, in input order.
    pub templates: Vec<KeyTemplate>,
}

/// Why no tag is proposed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoSuggestion {
    /// The keys share nothing.
    NothingShared,
    /// The keys share only a constant namespace (`stats`), which would be a broad tag.
    OnlyConstant(String),
    /// Some key already has a tag or braces, or is not fully understood.
    NotRewritable,
}

fn tokens(t: &KeyTemplate) -> Vec<Tok> {
    let mut out = Vec::new();
    for p in &t.parts {
        match p {
            Part::Lit(l) => out.extend(l.bytes.iter().map(|&b| Tok::Byte(b))),
            Part::Hole(h) => out.push(Tok::Hole(h.binding.clone())),
        }
    }
    out
}

/// Splits tokens at `:` into segments; returns (start, end) token ranges.
fn segments(toks: &[Tok]) -> Vec<(usize, usize)> {
    let mut segs = Vec::new();
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if *t == Tok::Byte(b':') {
            segs.push((start, i));
            start = i + 1;
        }
    }
    segs.push((start, toks.len()));
    segs
}

/// Token range of the first occurrence of `run` (segments) in `toks`, aligned on
/// segment boundaries.
fn find_run(toks: &[Tok], run: &[Tok]) -> Option<(usize, usize)> {
    let segs = segments(toks);
    for &(s, _) in &segs {
        let e = s + run.len();
        if e <= toks.len() && toks[s..e] == *run && (e == toks.len() || toks[e] == Tok::Byte(b':'))
        {
            return Some((s, e));
        }
    }
    None
}

/// The narrowest hash tag the keys genuinely share, with the rewritten keys.
pub fn suggest_tag(keys: &[&KeyTemplate], lang: Lang) -> Result<TagSuggestion, NoSuggestion> {
    suggest_tag_with(keys, lang, &|_| None)
}

/// [`suggest_tag`], where `constant` says of a hole's binding that it is one value
/// for the whole deployment (a configured prefix, `settings.KEY_PREFIX`), and whether
/// its default holds a brace: no identity, as a constant segment is none; and a
/// default with a brace (`"{}"`, `"{app}"`) would move the tag, so no rewrite.
pub fn suggest_tag_with(
    keys: &[&KeyTemplate],
    lang: Lang,
    constant: &dyn Fn(&str) -> Option<bool>,
) -> Result<TagSuggestion, NoSuggestion> {
    if keys.is_empty() {
        return Err(NoSuggestion::NothingShared);
    }
    let all: Vec<Vec<Tok>> = keys.iter().map(|k| tokens(k)).collect();
    if all.iter().any(|t| {
        t.iter().any(|x| match x {
            Tok::Byte(b) => matches!(b, b'{' | b'}'),
            Tok::Hole(h) => constant(h) == Some(true),
        })
    }) {
        return Err(NoSuggestion::NotRewritable);
    }
    // Candidate runs from the first key, longest first.
    let first = &all[0];
    let segs = segments(first);
    let mut best: Option<(usize, usize)> = None;
    let mut best_constant: Option<(usize, usize)> = None;
    for i in 0..segs.len() {
        for j in i..segs.len() {
            let (s, e) = (segs[i].0, segs[j].1);
            if s == e {
                continue;
            }
            let run = &first[s..e];
            // A tag begins and ends with what it names: a run that starts or ends
            // with a separator (`:`, `-`) names nothing there, and one made only of
            // separators (`{:}`) names nothing at all.
            if !names_edge(&run[0]) || !names_edge(&run[run.len() - 1]) {
                continue;
            }
            if !all[1..].iter().all(|t| find_run(t, run).is_some()) {
                continue;
            }
            let has_identity = run.iter().any(|t| match t {
                Tok::Hole(b) => constant(b).is_none(),
                Tok::Byte(b) => b.is_ascii_digit(),
            });
            let slot = if has_identity {
                &mut best
            } else {
                &mut best_constant
            };
            if slot.is_none_or(|(bs, be)| e - s > be - bs) {
                *slot = Some((s, e));
            }
        }
    }
    let Some((s, e)) = best else {
        return Err(match best_constant {
            Some((s, e)) => NoSuggestion::OnlyConstant(render_tokens(keys[0], &first[s..e])),
            None => NoSuggestion::NothingShared,
        });
    };
    let run = first[s..e].to_vec();
    let mut templates = Vec::new();
    for (k, toks) in keys.iter().zip(&all) {
        let (rs, re) = find_run(toks, &run).ok_or(NoSuggestion::NotRewritable)?;
        templates.push(insert_braces(k, rs, re));
    }
    Ok(TagSuggestion {
        tag: render_tokens(keys[0], &run),
        rewritten: templates.iter().map(|t| t.display(lang)).collect(),
        templates,
    })
}

/// True when a token may begin or end a tag: a hole or a letter, digit or `_`, not
/// a separator or other punctuation.
fn names_edge(t: &Tok) -> bool {
    match t {
        Tok::Hole(_) => true,
        Tok::Byte(b) => b.is_ascii_alphanumeric() || *b == b'_' || !b.is_ascii(),
    }
}

fn render_tokens(key: &KeyTemplate, run: &[Tok]) -> String {
    let mut s = String::new();
    for t in run {
        match t {
            Tok::Byte(b) => s.push_str(&crate::template::escape(&[*b], '"')),
            Tok::Hole(binding) => {
                let label = key
                    .parts
                    .iter()
                    .find_map(|p| match p {
                        Part::Hole(h) if &h.binding == binding => Some(h.label.as_str()),
                        _ => None,
                    })
                    .unwrap_or(binding);
                s.push('<');
                s.push_str(label);
                s.push('>');
            }
        }
    }
    s
}

/// A copy of `key` with `{` before token `start` and `}` before token `end`.
fn insert_braces(key: &KeyTemplate, start: usize, end: usize) -> KeyTemplate {
    let mut parts: Vec<Part> = Vec::new();
    let mut pos = 0usize;
    let push_byte = |parts: &mut Vec<Part>, b: u8| match parts.last_mut() {
        Some(Part::Lit(l)) => l.bytes.push(b),
        _ => parts.push(Part::Lit(Lit {
            bytes: vec![b],
            map: SourceMap::None,
        })),
    };
    let push_hole = |parts: &mut Vec<Part>, h: &Hole| parts.push(Part::Hole(h.clone()));
    for p in &key.parts {
        let n = match p {
            Part::Lit(l) => l.bytes.len(),
            Part::Hole(_) => 1,
        };
        for i in 0..n {
            if pos == start {
                push_byte(&mut parts, b'{');
            }
            if pos == end {
                push_byte(&mut parts, b'}');
            }
            match p {
                Part::Lit(l) => push_byte(&mut parts, l.bytes[i]),
                Part::Hole(h) => push_hole(&mut parts, h),
            }
            pos += 1;
        }
    }
    if pos == end {
        push_byte(&mut parts, b'}');
    }
    KeyTemplate { parts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testing::{CLI, LUA_LANG, PY};
    use crate::template::HoleKind;

    fn lit(s: &str) -> KeyTemplate {
        KeyTemplate::literal(s, SourceMap::None)
    }

    #[test]
    fn shared_id_segment() {
        let a = lit("user:1000:profile");
        let b = lit("user:1000:cart");
        let s = suggest_tag(&[&a, &b], CLI).unwrap();
        assert_eq!(s.tag, "user:1000");
        assert_eq!(s.rewritten, ["{user:1000}:profile", "{user:1000}:cart"]);
    }

    #[test]
    fn id_in_the_middle_and_at_the_end() {
        let a = lit("profile:1000");
        let b = lit("cart:1000:items");
        let s = suggest_tag(&[&a, &b], CLI).unwrap();
        assert_eq!(s.rewritten, ["profile:{1000}", "cart:{1000}:items"]);
    }

    #[test]
    fn constant_namespace_is_not_proposed() {
        let a = lit("stats:views");
        let b = lit("stats:clicks");
        assert_eq!(
            suggest_tag(&[&a, &b], CLI),
            Err(NoSuggestion::OnlyConstant("stats".into()))
        );
        let c = lit("a");
        assert_eq!(
            suggest_tag(&[&b, &c], CLI),
            Err(NoSuggestion::NothingShared)
        );
    }

    #[test]
    fn a_separator_is_no_tag() {
        // `<ns>::` and `<ns>:` after their shared head: only `:` in common.
        let a = lit("::");
        let b = lit(":");
        assert_eq!(
            suggest_tag(&[&a, &b], CLI),
            Err(NoSuggestion::NothingShared)
        );
        let c = lit("-:x");
        let d = lit("-:y");
        assert_eq!(
            suggest_tag(&[&c, &d], CLI),
            Err(NoSuggestion::NothingShared)
        );
        // After a head: `:<queue_type>` and `:<queue_type>:active` share the hole, and
        // the tag is the hole, not the separator before it.
        let e = mk(&[(":", false), ("queue_type", true)]);
        let f = mk(&[(":", false), ("queue_type", true), (":active", false)]);
        let s = suggest_tag(&[&e, &f], PY).unwrap();
        assert_eq!(s.tag, "<queue_type>");
        assert_eq!(
            s.rewritten,
            ["f\":{{{queue_type}}}\"", "f\":{{{queue_type}}}:active\""]
        );
        // A trailing separator is left out of the tag.
        let g = mk(&[("user:", false), ("uid", true), (":", false)]);
        let h = mk(&[("user:", false), ("uid", true), (":cart", false)]);
        assert_eq!(suggest_tag(&[&g, &h], PY).unwrap().tag, "user:<uid>");
    }

    #[test]
    fn shared_hole() {
        let uid = Part::Hole(Hole {
            label: "uid".into(),
            binding: "uid".into(),
            kind: HoleKind::Fragment,
            span: None,
        });
        let mk = |suffix: &str| KeyTemplate {
            parts: vec![
                Part::Lit(Lit {
                    bytes: b"user:".to_vec(),
                    map: SourceMap::None,
                }),
                uid.clone(),
                Part::Lit(Lit {
                    bytes: suffix.as_bytes().to_vec(),
                    map: SourceMap::None,
                }),
            ],
        };
        let (a, b) = (mk(":cart"), mk(":profile"));
        let s = suggest_tag(&[&a, &b], PY).unwrap();
        assert_eq!(s.tag, "user:<uid>");
        assert_eq!(
            s.rewritten,
            ["f\"{{user:{uid}}}:cart\"", "f\"{{user:{uid}}}:profile\""]
        );
        let s = suggest_tag(&[&a, &b], LUA_LANG).unwrap();
        assert_eq!(s.rewritten[0], "\"{user:\" .. uid .. \"}:cart\"");
    }

    /// A key of literal pieces and holes (`None` a hole of that name).
    fn mk(pieces: &[(&str, bool)]) -> KeyTemplate {
        KeyTemplate {
            parts: pieces
                .iter()
                .map(|&(x, hole)| match hole {
                    true => Part::Hole(Hole {
                        label: x.into(),
                        binding: x.into(),
                        kind: HoleKind::Fragment,
                        span: None,
                    }),
                    false => Part::Lit(Lit {
                        bytes: x.as_bytes().to_vec(),
                        map: SourceMap::None,
                    }),
                })
                .collect(),
        }
    }

    /// The bytes of a key once each hole takes `value(binding)`.
    fn instantiate(t: &KeyTemplate, value: &dyn Fn(&str) -> String) -> Vec<u8> {
        let mut out = Vec::new();
        for p in &t.parts {
            match p {
                Part::Lit(l) => out.extend_from_slice(&l.bytes),
                Part::Hole(h) => out.extend_from_slice(value(&h.binding).as_bytes()),
            }
        }
        out
    }

    #[test]
    fn every_suggested_tag_co_locates_the_keys() {
        let sets: Vec<Vec<KeyTemplate>> = vec![
            vec![
                mk(&[("user:", false), ("uid", true), (":cart", false)]),
                mk(&[("user:", false), ("uid", true), (":profile", false)]),
            ],
            vec![
                mk(&[("prefix", true), (":failed:", false), ("ip", true)]),
                mk(&[("prefix", true), (":blocked:", false), ("ip", true)]),
            ],
            vec![
                mk(&[("a:", false), ("x", true), (":b:", false), ("y", true)]),
                mk(&[("c:", false), ("x", true), (":d:", false), ("y", true)]),
                mk(&[("x", true), (":", false), ("y", true)]),
            ],
            vec![
                mk(&[("stats:1000:hits", false)]),
                mk(&[("stats:1000:misses", false)]),
            ],
            vec![
                mk(&[("q:", false), ("name", true)]),
                mk(&[("q:", false), ("name", true), (":tmp", false)]),
            ],
        ];
        // Values without braces, never empty (a tag of one empty value is no tag:
        // an id is never empty).
        let values: [&dyn Fn(&str) -> String; 3] = [
            &|b| format!("{b}-1"),
            &|b| format!("v:{}", b.len()),
            &|_| ":".to_string(),
        ];
        for keys in &sets {
            let refs: Vec<&KeyTemplate> = keys.iter().collect();
            let s = suggest_tag(&refs, PY).unwrap_or_else(|e| panic!("{keys:?}: {e:?}"));
            for value in values {
                let slots: Vec<u16> = s
                    .templates
                    .iter()
                    .map(|t| keyslot::key_slot(&instantiate(t, value)))
                    .collect();
                assert!(slots.windows(2).all(|w| w[0] == w[1]), "{s:?}");
            }
        }
    }

    #[test]
    fn a_constant_hole_is_no_identity() {
        let a = mk(&[("prefix", true), (":failed:", false), ("ip", true)]);
        let b = mk(&[("prefix", true), (":blocked:", false), ("ip", true)]);
        // Either shared hole would do; `prefix` comes first.
        assert_eq!(suggest_tag(&[&a, &b], PY).unwrap().tag, "<prefix>");
        let app = |b: &str| (b == "prefix").then_some(false);
        let s = suggest_tag_with(&[&a, &b], PY, &app).unwrap();
        assert_eq!(s.tag, "<ip>");
        let c = mk(&[("prefix", true), (":failed", false)]);
        let d = mk(&[("prefix", true), (":blocked", false)]);
        assert_eq!(
            suggest_tag_with(&[&c, &d], PY, &app),
            Err(NoSuggestion::OnlyConstant("<prefix>".into()))
        );
        // A default with braces (`{}` hashes nothing, `{app}` tags): a tag after it
        // would not be the key's tag.
        assert_eq!(
            suggest_tag_with(&[&a, &b], PY, &|x| (x == "prefix").then_some(true)),
            Err(NoSuggestion::NotRewritable)
        );
    }
}
