//! `ignored-hash-tag`: a second `{…}` after the tag, which the server reads as
//! ordinary bytes.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::template::TagOutcome;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK103",
    name: "ignored-hash-tag",
    severity: Severity::Warning,
    summary: "a later `{…}` is ordinary bytes: only the first tag counts",
};

pub(super) fn check_key(cx: &Context<'_>, k: usize, out: &mut Vec<Finding>) {
    let facts = cx.tag(k);
    // After `{}` the whole key is hashed: `empty-hash-tag` shows the later pair.
    let (TagOutcome::Tag { open, close }, Some((o, c))) = (facts.outcome, facts.ignored_pair)
    else {
        return;
    };
    out.push(
        Finding::new(
            Rule::IgnoredHashTag,
            format!("second hash tag in `{}` is ignored", cx.shown(k)),
            Label::new(cx.at(k, o, c), "ordinary bytes: only the first tag counts"),
        )
        .with_secondary(Label::new(
            cx.at(k, open, close),
            "the key is hashed on this tag",
        ))
        .with_note(
            "the server uses the first `{…}` pair only; later braces are part of the name",
        )
        .with_help("keep one tag, around the part the keys must share"),
    );
}
