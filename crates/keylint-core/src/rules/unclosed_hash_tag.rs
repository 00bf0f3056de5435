//! `unclosed-hash-tag`: a `{` with no `}` after it, so the server hashes the whole key.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::template::TagOutcome;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK104",
    name: "unclosed-hash-tag",
    severity: Severity::Warning,
    summary: "a `{` has no closing `}`, so the whole key is hashed",
};

pub(super) fn check_key(cx: &Context<'_>, k: usize, out: &mut Vec<Finding>) {
    let TagOutcome::WholeUnclosed { open } = cx.tag(k).outcome else {
        return;
    };
    out.push(
        Finding::new(
            Rule::UnclosedHashTag,
            format!(
                "unclosed hash tag in `{}`: the whole key is hashed",
                cx.shown(k)
            ),
            Label::new(cx.at(k, open, open), "this `{` is never closed"),
        )
        .with_note("without a `}` after the first `{`, the server hashes the whole key")
        .with_help("close the tag with `}`, or remove the `{`"),
    );
}
