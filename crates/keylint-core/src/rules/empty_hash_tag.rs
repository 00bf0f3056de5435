//! `empty-hash-tag`: `{}` as the first brace pair, so the server hashes the whole key.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::template::TagOutcome;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK101",
    name: "empty-hash-tag",
    severity: Severity::Warning,
    summary: "`{}` is the first brace pair, so the whole key is hashed",
};

pub(super) fn check_key(cx: &Context<'_>, k: usize, out: &mut Vec<Finding>) {
    let facts = cx.tag(k);
    let TagOutcome::WholeEmptyTag { open } = facts.outcome else {
        return;
    };
    let mut f = Finding::new(
        Rule::EmptyHashTag,
        format!(
            "empty hash tag in `{}`: the whole key is hashed",
            cx.shown(k)
        ),
        Label::new(cx.at(k, open, open + 1), "`{}` is not a hash tag"),
    )
    .with_note("the server hashes the whole key when the first `{` is followed directly by `}`");
    if let Some((o, c)) = facts.ignored_pair {
        f = f.with_secondary(Label::new(
            cx.at(k, o, c),
            "this later pair is ordinary bytes, not a tag",
        ));
    }
    out.push(f.with_help("remove the `{}`, or put the part the keys share between the braces"));
}
