//! `empty-hash-tag`, `nested-hash-tag`, `ignored-hash-tag`, `unclosed-hash-tag`: keys
//! whose braces do not do what they seem to.

use crate::diagnostic::{Finding, Label};
use crate::model::{FileModel, KeyUse};
use crate::rule::Rule;
use crate::template::{Lang, Pos, TagOutcome};

pub(crate) fn check(model: &FileModel, out: &mut Vec<Finding>) {
    let langs = super::key_langs(model);
    for (key, &lang) in model.keys.iter().zip(&langs) {
        check_key(lang, key, out);
    }
}

fn check_key(lang: Lang, key: &KeyUse, out: &mut Vec<Finding>) {
    let before = out.len();
    check_braces(lang, key, out);
    // Braces in a Python f-string are where most of these come from.
    if lang == Lang::Python && key.template.has_holes() {
        for f in &mut out[before..] {
            f.notes.push(super::FSTRING_TRAP.to_string());
        }
    }
}

fn check_braces(lang: Lang, key: &KeyUse, out: &mut Vec<Finding>) {
    let t = &key.template;
    let facts = t.tag_facts();
    let shown = t.display(lang);
    // Point at the braces when the source maps byte for byte, else at the whole key.
    let at = |from: Pos, to: Pos| t.span_of(from, to).unwrap_or_else(|| key.span.clone());
    match facts.outcome {
        TagOutcome::WholeEmptyTag { open } => {
            let mut f = Finding::new(
                Rule::EmptyHashTag,
                format!("empty hash tag in `{shown}`: the whole key is hashed"),
                Label::new(at(open, open + 1), "`{}` is not a hash tag"),
            )
            .with_note(
                "the server hashes the whole key when the first `{` is followed directly by `}`",
            );
            if let Some((o, c)) = facts.ignored_pair {
                f = f.with_secondary(Label::new(
                    at(o, c),
                    "this later pair is ordinary bytes, not a tag",
                ));
            }
            out.push(
                f.with_help("remove the `{}`, or put the part the keys share between the braces"),
            );
        }
        TagOutcome::WholeUnclosed { open } => out.push(
            Finding::new(
                Rule::UnclosedHashTag,
                format!("unclosed hash tag in `{shown}`: the whole key is hashed"),
                Label::new(at(open, open), "this `{` is never closed"),
            )
            .with_note("without a `}` after the first `{`, the server hashes the whole key")
            .with_help("close the tag with `}`, or remove the `{`"),
        ),
        TagOutcome::Tag { open, close } => {
            if let Some(n) = facts.nested_open {
                out.push(
                    Finding::new(
                        Rule::NestedHashTag,
                        format!("nested hash tag in `{shown}`: the tag starts with `{{`"),
                        Label::new(
                            at(open, close),
                            "the server hashes the bytes after the first `{` up to the first `}`",
                        ),
                    )
                    .with_secondary(Label::new(at(n, n), "this `{` is part of the hashed bytes"))
                    .with_note("hash tags do not nest: `foo{{bar}}` hashes `{bar`, not `bar`")
                    .with_help("use a single pair of braces around the shared part"),
                );
            }
            if let Some((o, c)) = facts.ignored_pair {
                out.push(
                    Finding::new(
                        Rule::IgnoredHashTag,
                        format!("second hash tag in `{shown}` is ignored"),
                        Label::new(at(o, c), "ordinary bytes: only the first tag counts"),
                    )
                    .with_secondary(Label::new(at(open, close), "the key is hashed on this tag"))
                    .with_note("the server uses the first `{…}` pair only; later braces are part of the name")
                    .with_help("keep one tag, around the part the keys must share"),
                );
            }
        }
        TagOutcome::WholeNoOpen | TagOutcome::Unknown => {}
    }
}
