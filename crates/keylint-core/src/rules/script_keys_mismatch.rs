//! `script-keys-mismatch`: the keys a script call passes disagree with the `KEYS` the
//! script reads, or the server refuses the call's numkeys outright.
//!
//! The findings are made where a call is linked with its script
//! ([`crate::script_link::link_call`]) or where a frontend reads a numkeys argument:
//! only there are both the call and the body known.

use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::Span;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK202",
    name: "script-keys-mismatch",
    severity: Severity::Error,
    summary: "the keys a caller passes disagree with the `KEYS` the script reads",
};

/// The finding for a numkeys larger than the arguments after it.
pub fn numkeys_too_large(n: usize, after: usize, at: Span, call: Span) -> Finding {
    Finding::new(
        Rule::ScriptKeysMismatch,
        format!(
            "numkeys is {n} but only {after} argument{} follow{}",
            if after == 1 { "" } else { "s" },
            if after == 1 { "s" } else { "" }
        ),
        Label::new(at, "more keys than arguments"),
    )
    .with_unit(call)
    .with_note(
        "the server refuses the call: `ERR Number of keys can't be greater than number \
         of args`",
    )
    .with_help("pass every key after numkeys, or lower numkeys to the number of keys")
}

/// Why the server refuses a numkeys argument before it counts the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadNumkeys {
    /// Not a canonical integer (`two`, `+1`, `01`).
    NotAnInteger,
    /// Below zero.
    Negative,
}

/// The finding for a numkeys the server refuses to read.
pub fn numkeys_refused(why: BadNumkeys, shown: &str, at: Span, call: Span) -> Finding {
    let (message, label, reply) = match why {
        BadNumkeys::NotAnInteger => (
            format!("numkeys `{shown}` is not an integer"),
            "not an integer",
            "ERR value is not an integer or out of range",
        ),
        BadNumkeys::Negative => (
            format!("numkeys is negative ({shown})"),
            "negative",
            "ERR Number of keys can't be negative",
        ),
    };
    Finding::new(Rule::ScriptKeysMismatch, message, Label::new(at, label))
        .with_unit(call)
        .with_note(format!("the server refuses the call: `{reply}`"))
        .with_help("write numkeys as the number of keys that follow it (0 for none)")
}

/// The finding for a call that passes fewer keys than every run of its script reads:
/// `read` is the highest `KEYS[i]` read, `script_at` where, when the body is in the file.
pub(crate) fn fewer_keys_than_read(
    read: usize,
    passed: usize,
    at: Span,
    call: Span,
    script_at: Option<Span>,
) -> Finding {
    let s = if passed == 1 { "" } else { "s" };
    let mut f = Finding::new(
        Rule::ScriptKeysMismatch,
        format!("the script reads `KEYS[{read}]` but this call passes {passed} key{s}"),
        Label::new(at, format!("{passed} key{s} passed")),
    )
    .with_unit(call)
    .with_note(format!(
        "`KEYS[{read}]` is nil in the script: a command given it fails, and a key the \
         script needs is not declared, so a cluster client cannot route by it"
    ))
    .with_help(format!(
        "pass {read} keys (numkeys {read}), in the order the script reads them"
    ));
    if let Some(s) = script_at {
        f = f.with_secondary(Label::new(
            s,
            format!("the script reads `KEYS[{read}]` here"),
        ));
    }
    f
}
