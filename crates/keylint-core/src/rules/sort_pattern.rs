//! `sort-pattern`: a `SORT`/`SORT_RO` whose `BY` or `GET` pattern forms keys outside
//! the sorted key's slot, which every Redis Cluster node refuses.
//!
//! The server substitutes each element for the pattern's first `*` and reads that key.
//! A cluster node checks the pattern before it runs the command. Redis 7.0 and 7.2
//! refuse every `GET` and every `BY` pattern that holds a `*`. From 7.4 a node hashes
//! the pattern as `SCAN` and `KEYS` hash theirs: a complete hash tag (`{…}`) before
//! any wildcard (`*`, `?`, `[`, `\`) gives the slot of every key the pattern forms,
//! and the node refuses the pattern unless that slot is the sorted key's. A `*` before
//! any tag means each element picks its own slot, so every version refuses it; so does
//! a tag of another slot. Those are the only patterns reported: a pattern whose tag is
//! the sorted key's slot, `GET #`, and patterns without `*` are accepted by some
//! versions and not by others, and the rule cannot know the server's version.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::{SortOption, SortPattern};
use crate::rule::{Rule, RuleMeta};
use crate::template::{compare, HashInput, HoleKind, Item, KeyTemplate, Pos, Verdict};

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK004",
    name: "sort-pattern",
    severity: Severity::Error,
    summary: "a `SORT` `BY`/`GET` pattern forms keys outside the sorted key's slot",
};

/// Where the keys a pattern forms are, as a cluster node judges it before running.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Formed {
    /// A wildcard comes before any complete hash tag: each key may be in any slot.
    AnySlot {
        /// The wildcard.
        wildcard: Pos,
    },
    /// A complete hash tag comes first: every key hashes this input.
    Tagged {
        /// The `{` and `}`.
        open: Pos,
        close: Pos,
        /// What the tag hashes.
        input: HashInput,
    },
    /// Cannot tell, or the pattern forms one key only.
    Unknown,
}

/// Whether a hole may hold a `{` or `}`: not a piece of a name, and not taken as
/// untagged (`untagged`: the project writes no tag anywhere).
fn may_hold_braces(h: &crate::template::Hole, untagged: bool) -> bool {
    h.kind == HoleKind::Opaque
        && !crate::template::is_brace_free_binding(&h.binding)
        && !crate::template::is_fresh_binding(&h.binding)
        && !untagged
}

/// How a node hashes `pattern`: the first wildcard or the first complete non-empty
/// tag decides, scanning from the start. Also the labels of the opaque holes before
/// that point, taken as untagged.
fn formed(pattern: &KeyTemplate, untagged: bool) -> (Formed, Vec<String>) {
    let items = pattern.items();
    let mut open: Option<Pos> = None;
    // After `{}`, no later brace makes a tag.
    let mut settled_whole = false;
    let mut assumed: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match *item {
            Item::Byte(b'*' | b'?' | b'[' | b'\\', _) => {
                return (Formed::AnySlot { wildcard: i }, assumed);
            }
            Item::Byte(b'{', _) if open.is_none() && !settled_whole => open = Some(i),
            Item::Byte(b'}', _) => match open {
                Some(o) if i == o + 1 => {
                    open = None;
                    settled_whole = true;
                }
                Some(o) => {
                    // A hole in the tag may hold a wildcard: then the node refuses
                    // whatever the tag; the verdict below needs the tag's slot. The
                    // tag's bytes hold no `}`, so hashed as a key they are hashed whole.
                    let bytes: Option<Vec<u8>> = items[o + 1..i]
                        .iter()
                        .map(|it| match it {
                            Item::Byte(b, _) => Some(*b),
                            Item::Hole(_) => None,
                        })
                        .collect();
                    let input = bytes.map_or(HashInput::Unknown, |b| {
                        KeyTemplate::literal(b, crate::template::SourceMap::None).hash_input()
                    });
                    return (
                        Formed::Tagged {
                            open: o,
                            close: i,
                            input,
                        },
                        assumed,
                    );
                }
                None => {}
            },
            Item::Byte(..) => {}
            Item::Hole(h) => {
                if may_hold_braces(h, false) {
                    if may_hold_braces(h, untagged) {
                        return (Formed::Unknown, assumed);
                    }
                    if !assumed.contains(&h.label) {
                        assumed.push(h.label.clone());
                    }
                }
                // A brace-free hole may still hold a wildcard, which only makes the
                // node refuse sooner; it cannot make a tag.
            }
        }
    }
    (Formed::Unknown, assumed)
}

/// Whether the pattern holds a literal `*`: a `BY` pattern without one sorts nothing
/// (`BY nosort`) and reads no key; a `GET` pattern without one forms a single key,
/// which servers treat differently by version.
fn has_star(pattern: &KeyTemplate) -> bool {
    pattern
        .items()
        .iter()
        .any(|i| matches!(i, Item::Byte(b'*', _)))
}

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let untagged = super::cross_slot_likely::untagged_here(cx);
    let mut found: Vec<(crate::Span, Finding, usize)> = Vec::new();
    for p in &cx.model.sort_patterns {
        if !has_star(&p.pattern) {
            continue;
        }
        let (formed, assumed) = formed(&p.pattern, untagged && !p.in_script);
        let f = match formed {
            Formed::AnySlot { wildcard } => any_slot(cx, p, wildcard),
            Formed::Tagged { open, close, input } => {
                let Some(sorted) = &p.sorted else {
                    continue;
                };
                let key = sorted.hash_input();
                if input.slot().is_none() || compare(&input, &key) != Verdict::Different {
                    continue;
                }
                other_slot(cx, p, (open, close), &input, &key)
            }
            Formed::Unknown => continue,
        };
        let f = if assumed.is_empty() {
            f
        } else {
            f.with_note(format!(
                "no source file of this project writes or mentions a hash tag, so {} \
                 (not shown by the code) is taken as carrying none; if it is tagged where \
                 it is set, set `untagged-values = false` under `[cross-slot-likely]` in \
                 the configuration",
                super::cross_slot_likely::quoted(&assumed)
            ))
        };
        // One finding per command: its other refused patterns point there too.
        match found.last_mut() {
            Some((span, first, more)) if *span == p.span => {
                first.secondary.push(Label::new(
                    f.primary.span,
                    format!("and this {} pattern", p.option.as_str()),
                ));
                for note in f.notes {
                    if !first.notes.contains(&note) {
                        first.notes.push(note);
                    }
                }
                *more += 1;
            }
            _ => found.push((p.span.clone(), f, 0)),
        }
    }
    for (_, mut f, more) in found {
        if more > 0 {
            f.message = f.message.replacen(
                "` reads keys",
                &format!(
                    "` and {more} more pattern{} read keys",
                    if more == 1 { "" } else { "s" }
                ),
                1,
            );
        }
        out.push(f);
    }
}

/// The pattern as the user wrote it.
fn shown(cx: &Context<'_>, p: &SortPattern) -> String {
    p.pattern.display(cx.model.lang)
}

/// Where items `from..=to` of the pattern are, or the whole pattern.
fn at(p: &SortPattern, from: Pos, to: Pos) -> crate::Span {
    p.pattern
        .span_of(from, to)
        .unwrap_or_else(|| p.at.clone())
}

fn headline(cx: &Context<'_>, p: &SortPattern) -> String {
    format!(
        "`{} … {} {}` reads keys outside the sorted key's slot: a cluster refuses it",
        p.command,
        p.option.as_str(),
        shown(cx, p)
    )
}

fn any_slot(cx: &Context<'_>, p: &SortPattern, wildcard: Pos) -> Finding {
    let mut f = Finding::new(
        Rule::SortPattern,
        headline(cx, p),
        Label::new(
            at(p, wildcard, wildcard),
            "each element replaces this `*`, before any hash tag: every key formed may be in another slot",
        ),
    )
    .with_unit(p.span.clone());
    if let Some(span) = &p.sorted_at {
        let label = match &p.sorted {
            Some(sorted) => format!(
                "the sorted key, {}",
                sorted.hash_input().describe(cx.model.lang)
            ),
            None => "the sorted key".to_string(),
        };
        f = f.with_secondary(Label::new(span.clone(), label));
    }
    explain(f, p)
}

fn other_slot(
    cx: &Context<'_>,
    p: &SortPattern,
    (open, close): (Pos, Pos),
    tag: &HashInput,
    key: &HashInput,
) -> Finding {
    let mut f = Finding::new(
        Rule::SortPattern,
        headline(cx, p),
        Label::new(
            at(p, open, close),
            format!(
                "every key formed is in {}",
                tag.describe(cx.model.lang)
            ),
        ),
    )
    .with_unit(p.span.clone());
    if let Some(span) = &p.sorted_at {
        f = f.with_secondary(Label::new(
            span.clone(),
            format!("the sorted key, {}", key.describe(cx.model.lang)),
        ));
    }
    explain(f, p)
}

fn explain(f: Finding, p: &SortPattern) -> Finding {
    let option = p.option.as_str();
    f.with_note(format!(
        "a cluster node runs `{}` with a `{option}` pattern only when every key the pattern \
         forms is in the sorted key's slot: Redis 7.0 and 7.2 refuse every such pattern \
         (`{option} option of SORT denied in Cluster mode.`), and later versions every \
         pattern without a hash tag of the sorted key's slot before its first wildcard",
        p.command
    ))
    .with_help(match p.option {
        SortOption::By => {
            "sort without external keys on a cluster (sort the values themselves, or \
             `by=\"nosort\"` and order them in the client), or keep the weights in one \
             sorted set; from Redis 7.4 a pattern that begins with the sorted key's hash \
             tag (`{tag}:weight_*`) is accepted"
        }
        SortOption::Get => {
            "sort without `GET` on a cluster and read the values the pattern names with \
             one command per key (a pipeline, not a transaction); from Redis 7.4 a \
             pattern that begins with the sorted key's hash tag (`{tag}:object_*`) is \
             accepted"
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testing::PY;
    use crate::model::{FileModel, ProjectTags, SortPattern};
    use crate::template::tests::{hole, lit};
    use crate::template::Part;

    fn model(sorted: Vec<Part>, option: SortOption, pattern: Vec<Part>) -> FileModel {
        let mut m = FileModel::new(PY);
        m.sort_patterns.push(SortPattern {
            command: "SORT".into(),
            span: 0..40,
            sorted: Some(KeyTemplate { parts: sorted }),
            sorted_at: Some(5..10),
            option,
            pattern: KeyTemplate { parts: pattern },
            at: 20..30,
            in_script: false,
        });
        m
    }

    fn run(m: &FileModel) -> Vec<Finding> {
        crate::rules::testing::run(check, m)
    }

    #[test]
    fn a_star_before_any_tag_is_refused_whatever_the_key() {
        for (option, pattern) in [
            (SortOption::Get, "agent:info:*->nick"),
            (SortOption::By, "weight_*"),
            (SortOption::Get, "obj:*:{user}"),
            (SortOption::By, "{}w_*"),
        ] {
            let out = run(&model(vec![lit("agents:all")], option, vec![lit(pattern)]));
            assert_eq!(out.len(), 1, "{pattern}");
            assert_eq!(out[0].rule, Rule::SortPattern);
            assert_eq!(out[0].severity, Severity::Error);
            assert!(out[0].message.contains(pattern), "{}", out[0].message);
        }
    }

    #[test]
    fn patterns_some_versions_accept_are_silent() {
        for (option, pattern) in [
            // No `*`: no sorting, or one key, judged differently by version.
            (SortOption::By, "nosort"),
            (SortOption::Get, "#"),
            (SortOption::Get, "fixed"),
            // The sorted key's tag: accepted from 7.4.
            (SortOption::Get, "{list}:obj_*"),
            (SortOption::By, "{list}w_*"),
        ] {
            let m = model(vec![lit("{list}:ids")], option, vec![lit(pattern)]);
            assert!(run(&m).is_empty(), "{pattern}");
        }
    }

    #[test]
    fn a_tag_of_another_slot_is_refused_when_both_slots_are_known() {
        let m = model(vec![lit("{a}:ids")], SortOption::Get, vec![lit("{b}:obj_*")]);
        assert_eq!(run(&m).len(), 1);
        // The sorted key unknown: silent.
        let x = || hole("x", HoleKind::Opaque);
        let m = model(vec![x()], SortOption::Get, vec![lit("{b}:obj_*")]);
        assert!(run(&m).is_empty());
    }

    #[test]
    fn values_before_the_star_are_judged_by_what_they_may_hold() {
        // A piece of a name holds no brace: the `*` is still first.
        let frag = || hole("name", HoleKind::Fragment);
        let m = model(
            vec![lit("ids")],
            SortOption::By,
            vec![frag(), lit(":_score_:*")],
        );
        assert_eq!(run(&m).len(), 1);
        // A value that may carry its own tag: silent, unless the project writes none.
        let opaque = || hole("prefix", HoleKind::Opaque);
        let mut m = model(
            vec![lit("ids")],
            SortOption::By,
            vec![opaque(), lit(":_score_:*")],
        );
        assert!(run(&m).is_empty());
        m.facts.project_tags = ProjectTags::NoneWritten;
        let out = run(&m);
        assert_eq!(out.len(), 1);
        assert!(out[0].notes.iter().any(|n| n.contains("`prefix`")));
        // A value after the `*` does not matter.
        let mut m = model(
            vec![lit("ids")],
            SortOption::Get,
            vec![lit("obj:*->"), opaque()],
        );
        assert_eq!(run(&m).len(), 1);
        m.facts.project_tags = ProjectTags::Written;
        assert_eq!(run(&m).len(), 1);
    }
}

#[cfg(test)]
mod argv_tests {
    use crate::model::{sort_pattern_args, SortOption};

    fn argv(s: &str) -> Vec<Option<&[u8]>> {
        s.split(' ').map(|w| Some(w.as_bytes())).collect()
    }

    #[test]
    fn options_are_read_as_the_server_reads_them() {
        use SortOption::{By, Get};
        assert_eq!(
            sort_pattern_args(&argv("SORT k BY w_* GET # GET o_*")),
            vec![(By, 3), (Get, 5), (Get, 7)]
        );
        assert_eq!(
            sort_pattern_args(&argv("sort_ro k limit 0 1 desc get x alpha")),
            vec![(Get, 7)]
        );
        // `STORE`'s destination is a key, not a pattern.
        assert_eq!(
            sort_pattern_args(&argv("SORT k STORE by GET x")),
            vec![(Get, 5)]
        );
        // A word the server refuses, or one the caller does not know, ends the reading.
        assert!(sort_pattern_args(&argv("SORT k BOGUS BY w_*")).is_empty());
        let mut unknown = argv("SORT k ALPHA BY w_*");
        unknown[2] = None;
        assert!(sort_pattern_args(&unknown).is_empty());
        // A trailing option without its pattern, and other commands.
        assert!(sort_pattern_args(&argv("SORT k BY")).is_empty());
        assert!(sort_pattern_args(&argv("GET k")).is_empty());
    }
}
