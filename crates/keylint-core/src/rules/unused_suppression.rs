//! `unused-suppression`: a `redis-keylint: ignore[…]` comment that suppresses nothing,
//! or names no rule. Reported where suppressions are applied ([`crate::suppress`]),
//! after every other rule ran.

use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::suppress::Entry;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK900",
    name: "unused-suppression",
    severity: Severity::Warning,
    summary: "a `redis-keylint: ignore[…]` comment suppresses nothing",
};

/// The finding for one rule named in a suppression, if any: `used` tells whether it
/// suppressed a finding, `ran` whether a rule ran on the file (a rule that did not
/// run could not have been suppressed).
pub(crate) fn check_entry(e: &Entry, used: bool, ran: impl Fn(Rule) -> bool) -> Option<Finding> {
    match e.rule {
        None => Some(
            Finding::new(
                Rule::UnusedSuppression,
                format!("unknown rule `{}` in a suppression", e.text),
                Label::new(e.span.clone(), "no rule has this name or code"),
            )
            .with_help("`redis-keylint rules` lists every rule"),
        ),
        Some(r) if !used && ran(r) && r != Rule::UnusedSuppression => Some(
            Finding::new(
                Rule::UnusedSuppression,
                format!("unused suppression of `{}`", r.name()),
                Label::new(e.span.clone(), "nothing to suppress here"),
            )
            .with_help("remove it"),
        ),
        _ => None,
    }
}
