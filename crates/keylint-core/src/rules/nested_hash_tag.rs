//! `nested-hash-tag`: `{{…}}`, a tag that starts with (or contains) `{`, so the server
//! hashes other bytes than the ones meant.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::template::TagOutcome;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK102",
    name: "nested-hash-tag",
    severity: Severity::Warning,
    summary: "the hash tag contains `{`, so it hashes different bytes than intended",
};

pub(super) fn check_key(cx: &Context<'_>, k: usize, out: &mut Vec<Finding>) {
    let facts = cx.tag(k);
    let (TagOutcome::Tag { open, close }, Some(n)) = (facts.outcome, facts.nested_open) else {
        return;
    };
    out.push(
        Finding::new(
            Rule::NestedHashTag,
            format!(
                "nested hash tag in `{}`: the tag starts with `{{`",
                cx.shown(k)
            ),
            Label::new(
                cx.at(k, open, close),
                "the server hashes the bytes after the first `{` up to the first `}`",
            ),
        )
        .with_secondary(Label::new(
            cx.at(k, n, n),
            "this `{` is part of the hashed bytes",
        ))
        .with_note("hash tags do not nest: `foo{{bar}}` hashes `{bar`, not `bar`")
        .with_help("use a single pair of braces around the shared part"),
    );
}
