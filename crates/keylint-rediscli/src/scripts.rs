//! `EVAL`, `EVALSHA` and `FCALL` lines: the numkeys check, and `EVAL` bodies linted as
//! Lua with their spans mapped into the command file.
//!
//! The frontend reports each call as a [`ScriptCall`] (its numkeys as the server reads
//! it, the keys it passes); linking and the script policy are core's
//! ([`keylint_core::script_link`]), and `script-keys-mismatch` judges the facts like
//! every rule. An `EVALSHA` or `FCALL` names a body that is not written on its line:
//! only its numkeys is checked.

use crate::{Arg, CommandLine};
use keylint_core::model::{BadNumkeys, FileModel, Numkeys};
use keylint_core::script_link::{self, LinkedBody, Mapper, ScriptCall};
use keylint_core::template::SourceMap;

/// A script call seen while lowering, linked once the units are in their final order.
pub(crate) struct Pending<'f> {
    pub cmd: &'f CommandLine,
    /// Key-use indices of the keys passed, when the call has a command unit.
    pub keys: Option<Vec<usize>>,
}

/// True for `FUNCTION LOAD [REPLACE] <body>`: the body is linted as Lua.
fn function_body(cmd: &CommandLine) -> Option<&Arg> {
    let is = |i: usize, w: &str| {
        cmd.args
            .get(i)
            .is_some_and(|a| a.bytes.eq_ignore_ascii_case(w.as_bytes()))
    };
    if !(is(0, "FUNCTION") && is(1, "LOAD")) {
        return None;
    }
    match cmd.args.len() {
        3 => cmd.args.get(2),
        4 if is(2, "REPLACE") => cmd.args.get(3),
        _ => None,
    }
}

/// True for the commands that run a script with numkeys as their second argument, and
/// for `FUNCTION LOAD`.
pub(crate) fn is_script_call(name: &str) -> bool {
    name == "FUNCTION"
        || matches!(
            name,
            "EVAL" | "EVAL_RO" | "EVALSHA" | "EVALSHA_RO" | "FCALL" | "FCALL_RO"
        )
}

/// numkeys as the server's `string2ll` reads it: `0`, or an optional `-`, a non-zero
/// digit and more digits, in `i64` range.
fn parse_numkeys(s: &[u8]) -> Result<u64, BadNumkeys> {
    if s == b"0" {
        return Ok(0);
    }
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    let canonical = !digits.is_empty()
        && digits[0] != b'0'
        && digits.len() <= 19
        && digits.iter().all(u8::is_ascii_digit);
    if !canonical {
        return Err(BadNumkeys::NotAnInteger);
    }
    let text = std::str::from_utf8(digits).map_err(|_| BadNumkeys::NotAnInteger)?;
    let n: u64 = text.parse().map_err(|_| BadNumkeys::NotAnInteger)?;
    if n > i64::MAX as u64 + u64::from(neg) {
        return Err(BadNumkeys::NotAnInteger);
    }
    if neg {
        return Err(BadNumkeys::Negative);
    }
    if n > i64::MAX as u64 {
        return Err(BadNumkeys::NotAnInteger);
    }
    Ok(n)
}

/// Source offset of every byte of an argument, when each is known.
fn offsets(arg: &Arg) -> Option<Vec<usize>> {
    match &arg.map {
        SourceMap::None => None,
        SourceMap::Contiguous(s) => Some((*s..*s + arg.bytes.len()).collect()),
        SourceMap::PerByte(v) => (v.len() > arg.bytes.len())
            .then(|| v[..arg.bytes.len()].to_vec())
            .or_else(|| (v.len() == arg.bytes.len()).then(|| v.clone())),
    }
}

/// Checks and links every script call of the file.
pub(crate) fn link(model: &mut FileModel, pending: &[Pending<'_>]) {
    for p in pending {
        let cmd = p.cmd;
        let name = String::from_utf8_lossy(&cmd.args[0].bytes).to_ascii_uppercase();
        if name == "FUNCTION" {
            // A library's functions are linted where they are written; an `FCALL`
            // is not linked to them (only its numkeys is checked).
            if let Some(body) = function_body(cmd) {
                if let (Ok(text), Some(offs)) = (std::str::from_utf8(&body.bytes), offsets(body)) {
                    let lua = keylint_lua::lower(text);
                    let m = Mapper {
                        offs: &offs,
                        fallback: body.span.clone(),
                    };
                    script_link::merge(model, &lua, &m);
                }
            }
            continue;
        }
        let Some(num) = cmd.args.get(2) else { continue };
        let after = cmd.args.len() - 3;
        let numkeys = read_numkeys(&num.bytes, after);
        // The keys passed (the call's command unit), when the server accepts numkeys.
        let n = match numkeys {
            Numkeys::Count { n, after } if n <= after => Some(n),
            _ => None,
        };
        let passed = n.zip(p.keys.as_ref());
        let call = ScriptCall {
            argv_keys: Vec::new(),
            anchor: cmd.args[0].span.clone(),
            span: cmd.span.clone(),
            keys: passed.map_or(Vec::new(), |(_, ks)| ks.iter().map(|&k| Some(k)).collect()),
            key_spans: passed.map_or(Vec::new(), |(n, _)| {
                cmd.args[3..3 + n].iter().map(|a| a.span.clone()).collect()
            }),
            passed: passed.map(|(n, _)| (n, num.span.clone())),
            numkeys: Some((numkeys, num.span.clone())),
        };
        let body = match passed {
            Some(_) if matches!(name.as_str(), "EVAL" | "EVAL_RO") => eval_body(model, cmd),
            _ => None,
        };
        script_link::link_call(model, &call, body.as_ref());
    }
}

/// numkeys as the server reads it, with the number of arguments after it.
fn read_numkeys(bytes: &[u8], after: usize) -> Numkeys {
    match parse_numkeys(bytes) {
        Ok(n) => Numkeys::Count {
            n: usize::try_from(n).unwrap_or(usize::MAX),
            after,
        },
        Err(why) => Numkeys::Refused {
            why,
            shown: String::from_utf8_lossy(bytes).into_owned(),
        },
    }
}

/// The body of an `EVAL` line lowered as Lua and merged into the model, with every
/// span moved to where its bytes are in the command file.
fn eval_body(model: &mut FileModel, cmd: &CommandLine) -> Option<LinkedBody> {
    let body_arg = &cmd.args[1];
    let text = std::str::from_utf8(&body_arg.bytes).ok()?;
    let offs = offsets(body_arg)?;
    let lua = keylint_lua::lower(text);
    let m = Mapper {
        offs: &offs,
        fallback: body_arg.span.clone(),
    };
    let merged = script_link::merge(model, &lua, &m);
    Some(LinkedBody {
        lua,
        merged_keys: Some(merged),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numkeys_like_the_server() {
        assert_eq!(parse_numkeys(b"0"), Ok(0));
        assert_eq!(parse_numkeys(b"12"), Ok(12));
        assert_eq!(parse_numkeys(b"-1"), Err(BadNumkeys::Negative));
        assert_eq!(parse_numkeys(b"01"), Err(BadNumkeys::NotAnInteger));
        assert_eq!(parse_numkeys(b"+1"), Err(BadNumkeys::NotAnInteger));
        assert_eq!(parse_numkeys(b"two"), Err(BadNumkeys::NotAnInteger));
        assert_eq!(parse_numkeys(b""), Err(BadNumkeys::NotAnInteger));
        assert_eq!(
            parse_numkeys(b"99999999999999999999"),
            Err(BadNumkeys::NotAnInteger)
        );
        assert_eq!(
            parse_numkeys(b"-9223372036854775808"),
            Err(BadNumkeys::Negative)
        );
    }

    fn findings(m: &FileModel) -> Vec<keylint_core::Finding> {
        keylint_core::rules::check(m, &keylint_core::rules::Settings::default())
    }

    #[test]
    fn eval_numkeys_and_body() {
        let m = crate::lower(b"EVAL \"return 1\" 3 a\n");
        assert_eq!(
            m.script_calls[0].numkeys.as_ref().map(|n| &n.0),
            Some(&Numkeys::Count { n: 3, after: 1 })
        );
        let f = findings(&m);
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("numkeys is 3"));
        let src = b"EVAL \"return redis.call('SET', 'user:' .. ARGV[1], 1)\" 0 x\n";
        let m = crate::lower(src);
        assert_eq!(m.scripts.len(), 1);
        let k = &m.keys[m.scripts[0].keys[0]];
        assert_eq!(&src[k.span.clone()], b"'user:' .. ARGV[1]");
        let m = crate::lower(b"EVALSHA abc 0 x\nFCALL f 2 k\n");
        // Both calls are facts; only the refused one is a finding.
        assert_eq!(m.script_calls.len(), 2);
        assert_eq!(m.script_calls[0].passed.as_ref().map(|p| p.0), Some(0));
        assert_eq!(findings(&m).len(), 1);
        assert!(m.scripts.is_empty());
    }
}
