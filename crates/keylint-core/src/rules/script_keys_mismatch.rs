//! `script-keys-mismatch`: the keys a script call passes disagree with the `KEYS` the
//! script reads, or the server refuses the call's numkeys outright.
//!
//! The rule reads the facts of each script call ([`ScriptCallFacts`]): the frontend
//! reports the call's numkeys and the keys it passes, and script linking
//! ([`crate::script_link::link_call`]) adds the highest `KEYS[i]` every run of the
//! linked script reads.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::{BadNumkeys, Numkeys, ScriptCallFacts};
use crate::rule::{Rule, RuleMeta};
use crate::Span;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK202",
    name: "script-keys-mismatch",
    severity: Severity::Error,
    summary: "the keys a caller passes disagree with the `KEYS` the script reads",
};

/// Judges every script call of the file, in the order the calls were linked.
pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for call in &cx.model.script_calls {
        check_call(call, out);
    }
}

fn check_call(call: &ScriptCallFacts, out: &mut Vec<Finding>) {
    match &call.numkeys {
        Some((Numkeys::Refused { why, shown }, at)) => {
            out.push(numkeys_refused(*why, shown, at.clone(), call.span.clone()));
        }
        Some((Numkeys::Count { n, after }, at)) if n > after => {
            out.push(numkeys_too_large(*n, *after, at.clone(), call.span.clone()));
        }
        _ => {}
    }
    if let (Some((passed, at)), Some((read, script_at))) = (&call.passed, &call.reads) {
        if read > passed {
            out.push(fewer_keys_than_read(
                *read,
                *passed,
                at.clone(),
                call.span.clone(),
                script_at.clone(),
            ));
        }
    }
}

/// The finding for a numkeys larger than the arguments after it.
fn numkeys_too_large(n: usize, after: usize, at: Span, call: Span) -> Finding {
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

/// The finding for a numkeys the server refuses to read.
fn numkeys_refused(why: BadNumkeys, shown: &str, at: Span, call: Span) -> Finding {
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
fn fewer_keys_than_read(
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

#[cfg(test)]
mod tests {
    use super::check;
    use crate::model::{BadNumkeys, FileModel, Numkeys, ScriptCallFacts};
    use crate::rules::testing;
    use crate::frontend::testing::CLI;

    fn call(numkeys: Option<Numkeys>, passed: Option<usize>, reads: Option<usize>) -> ScriptCallFacts {
        ScriptCallFacts {
            span: 0..30,
            numkeys: numkeys.map(|n| (n, 10..11)),
            passed: passed.map(|n| (n, 10..11)),
            reads: reads.map(|r| (r, Some(20..27))),
        }
    }

    fn messages(calls: Vec<ScriptCallFacts>) -> Vec<String> {
        let mut m = FileModel::new(CLI);
        m.script_calls = calls;
        testing::run(check, &m)
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn judges_the_facts_of_each_call() {
        let count = |n, after| Some(Numkeys::Count { n, after });
        // Accepted numkeys, as many keys passed as the script reads: nothing.
        assert!(messages(vec![call(count(2, 3), Some(2), Some(2))]).is_empty());
        // No body linked: nothing is known of what the script reads.
        assert!(messages(vec![call(count(0, 1), Some(0), None)]).is_empty());
        assert_eq!(
            messages(vec![
                call(count(3, 1), None, None),
                call(
                    Some(Numkeys::Refused {
                        why: BadNumkeys::Negative,
                        shown: "-1".into()
                    }),
                    None,
                    None
                ),
                call(None, Some(1), Some(2)),
            ]),
            [
                "numkeys is 3 but only 1 argument follows",
                "numkeys is negative (-1)",
                "the script reads `KEYS[2]` but this call passes 1 key",
            ]
        );
    }
}
