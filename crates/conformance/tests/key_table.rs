//! Live conformance of `keylint-commands` with the server's `COMMAND GETKEYS`.
//!
//! Every line of `tests/data/getkeys-corpus.txt` is sent as
//! `COMMAND GETKEYS <argv…>` to a live cluster node and compared with
//! `keylint_commands::extract_keys(argv)`:
//!
//! | server reply                                          | extract_keys must give              |
//! |-------------------------------------------------------|-------------------------------------|
//! | array of keys (maybe empty)                           | `Ok`, same keys in the same order   |
//! | `Invalid arguments specified for command`             | `Err(BadNumkeys)` or `Err(Syntax)`  |
//! | `Invalid number of arguments specified for command`   | `Err(WrongArity)`                   |
//! | `Invalid command specified`                           | `Err(UnknownCommand)`               |
//! | `The command has no key arguments`                    | `Ok` without keys, or `Err(WrongArity)` |
//!
//! "No key arguments" is not an error for the linter: PING simply has no
//! keys. The server reports it before checking the arity, while
//! `extract_keys` checks the arity of every command, hence the second option.
//! "Invalid arguments" means the server found no key in a command that needs
//! one: always an error.
//!
//! Lines marked `! ` are the documented cases where `extract_keys` is
//! stricter than GETKEYS (bad numkeys): it must return `Err(BadNumkeys)`, the
//! server's GETKEYS must *not* already fail, and the real command must fail.
//!
//! The corpus must cover every command that takes keys (two key-selecting
//! lines for commands that may take several), so a new command in a
//! regenerated table cannot slip through; and the committed table must match
//! what `scripts/gen-commands.py` generates today.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command as Process;

use conformance::{Cluster, Reply};
use keylint_commands::{
    all_commands, extract_keys, lookup_argv, may_take_several_keys, takes_keys, Extraction,
    KeyError,
};

const CORPUS: &str = include_str!("data/getkeys-corpus.txt");

/// One invocation of the corpus.
#[derive(Debug)]
struct Case {
    line_no: usize,
    line: &'static str,
    argv: Vec<Vec<u8>>,
    /// Marked `! `: extract_keys is deliberately stricter than GETKEYS.
    stricter: bool,
}

impl Case {
    fn extract(&self) -> Result<Extraction, KeyError> {
        let refs: Vec<&[u8]> = self.argv.iter().map(Vec::as_slice).collect();
        extract_keys(&refs)
    }

    fn key_names(&self, ex: &Extraction) -> Vec<Vec<u8>> {
        ex.keys.iter().map(|k| self.argv[k.index].clone()).collect()
    }
}

/// Splits a line the way redis-cli does (`sdssplitargs`): bare words,
/// `"…"` with `\n \r \t \b \a \\ \" \xHH` escapes, `'…'` with `\'`. A closing
/// quote must be followed by a space or the end of the line.
fn split_args(line: &str) -> Result<Vec<Vec<u8>>, String> {
    let b = line.as_bytes();
    let mut args = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == b.len() {
            return Ok(args);
        }
        let mut cur = Vec::new();
        let (mut dq, mut sq) = (false, false);
        loop {
            if dq {
                match b.get(i) {
                    None => return Err("unterminated \"".into()),
                    Some(b'\\') if b.get(i + 1) == Some(&b'x') => {
                        let hex = b
                            .get(i + 2..i + 4)
                            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                            .and_then(|h| {
                                u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
                            });
                        match hex {
                            Some(v) => {
                                cur.push(v);
                                i += 3;
                            }
                            None => {
                                cur.push(b'x');
                                i += 1;
                            }
                        }
                    }
                    Some(b'\\') if i + 1 < b.len() => {
                        cur.push(match b[i + 1] {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'b' => 8,
                            b'a' => 7,
                            other => other,
                        });
                        i += 1;
                    }
                    Some(b'"') => {
                        if b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                            return Err("closing \" must be followed by a space".into());
                        }
                        i += 1;
                        break;
                    }
                    Some(&c) => cur.push(c),
                }
            } else if sq {
                match b.get(i) {
                    None => return Err("unterminated '".into()),
                    Some(b'\\') if b.get(i + 1) == Some(&b'\'') => {
                        cur.push(b'\'');
                        i += 1;
                    }
                    Some(b'\'') => {
                        if b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
                            return Err("closing ' must be followed by a space".into());
                        }
                        i += 1;
                        break;
                    }
                    Some(&c) => cur.push(c),
                }
            } else {
                match b.get(i) {
                    None => break,
                    Some(c) if c.is_ascii_whitespace() => break,
                    Some(b'"') => dq = true,
                    Some(b'\'') => sq = true,
                    Some(&c) => cur.push(c),
                }
            }
            i += 1;
        }
        args.push(cur);
    }
}

fn corpus() -> Vec<Case> {
    let mut cases = Vec::new();
    for (n, raw) in CORPUS.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (stricter, rest) = match line.strip_prefix("! ") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let argv = split_args(rest)
            .unwrap_or_else(|e| panic!("getkeys-corpus.txt:{}: {e}: {line}", n + 1));
        assert!(
            argv.len() >= 2,
            "getkeys-corpus.txt:{}: COMMAND GETKEYS cannot answer a one-word invocation: {line}",
            n + 1
        );
        cases.push(Case {
            line_no: n + 1,
            line,
            argv,
            stricter,
        });
    }
    cases
}

fn show(keys: &[Vec<u8>]) -> String {
    let shown: Vec<String> = keys
        .iter()
        .map(|k| format!("{:?}", String::from_utf8_lossy(k)))
        .collect();
    format!("[{}]", shown.join(", "))
}

/// Why a server reply and an extraction disagree, if they do.
fn compare(case: &Case, reply: &Reply, ours: &Result<Extraction, KeyError>) -> Option<String> {
    let ours_shown = match ours {
        Ok(ex) => format!("Ok({})", show(&case.key_names(ex))),
        Err(e) => format!("Err({e:?})"),
    };
    let server_keys = match reply {
        Reply::Array(Some(items)) => {
            let keys: Option<Vec<Vec<u8>>> = items
                .iter()
                .map(|r| r.as_bytes().map(<[u8]>::to_vec))
                .collect();
            Some(keys.unwrap_or_else(|| panic!("line {}: odd reply {reply:?}", case.line_no)))
        }
        _ => None,
    };

    if case.stricter {
        if let Some(keys) = &server_keys {
            if ours == &Err(KeyError::BadNumkeys) {
                return None;
            }
            return Some(format!(
                "marked stricter: expected Err(BadNumkeys), got {ours_shown} (server {})",
                show(keys)
            ));
        }
        return Some(format!(
            "marked stricter, but GETKEYS already fails ({reply:?}): drop the '!'"
        ));
    }

    let ok = match (reply, &server_keys) {
        (_, Some(keys)) => match ours {
            Ok(ex) => &case.key_names(ex) == keys,
            Err(_) => false,
        },
        (Reply::Error(e), None) => {
            let e = e.as_str();
            if e.contains("The command has no key arguments") {
                matches!(ours, Ok(ex) if ex.keys.is_empty()) || ours == &Err(KeyError::WrongArity)
            } else if e.contains("Invalid number of arguments specified for command") {
                ours == &Err(KeyError::WrongArity)
            } else if e.contains("Invalid arguments specified for command") {
                matches!(ours, Err(KeyError::BadNumkeys | KeyError::Syntax(_)))
            } else if e.contains("Invalid command specified") {
                ours == &Err(KeyError::UnknownCommand)
            } else {
                return Some(format!("unexpected server error {e:?} (ours {ours_shown})"));
            }
        }
        (other, None) => {
            return Some(format!(
                "unexpected server reply {other:?} (ours {ours_shown})"
            ));
        }
    };
    if ok {
        None
    } else {
        let server = match &server_keys {
            Some(keys) => show(keys),
            None => format!("{reply:?}"),
        };
        Some(format!("server {server}, ours {ours_shown}"))
    }
}

#[test]
fn corpus_matches_command_getkeys() {
    let cases = corpus();
    let cluster = Cluster::start();
    let mut conn = cluster.conn(0);
    let cmds: Vec<Vec<Vec<u8>>> = cases
        .iter()
        .map(|c| {
            let mut cmd = vec![b"COMMAND".to_vec(), b"GETKEYS".to_vec()];
            cmd.extend(c.argv.iter().cloned());
            cmd
        })
        .collect();
    let replies = conn.pipeline(&cmds).expect("COMMAND GETKEYS pipeline");
    assert_eq!(replies.len(), cases.len());

    let mut failures = Vec::new();
    for (case, reply) in cases.iter().zip(&replies) {
        if let Some(why) = compare(case, reply, &case.extract()) {
            failures.push(format!("  line {}: {}\n    {why}", case.line_no, case.line));
        }
    }

    // The stricter lines: the real command must reject them. Their keys share
    // a hash tag, so they run on the node that owns it.
    for (case, reply) in cases.iter().zip(&replies).filter(|(c, _)| c.stricter) {
        let mut node = cluster.conn(0);
        if let Reply::Array(Some(keys)) = reply {
            if let Some(key) = keys.first().and_then(Reply::as_bytes) {
                let slot = conn
                    .cmd(&[&b"CLUSTER"[..], b"KEYSLOT", key])
                    .expect("CLUSTER KEYSLOT")
                    .as_int()
                    .expect("CLUSTER KEYSLOT answers an integer");
                node = cluster.conn_for_slot(u16::try_from(slot).expect("slot"));
            }
        }
        let real = node.cmd(&case.argv).expect("real command");
        let redirected = matches!(
            real.error_prefix(),
            Some("MOVED" | "ASK" | "CROSSSLOT" | "TRYAGAIN" | "CLUSTERDOWN")
        );
        if !real.is_error() || redirected {
            failures.push(format!(
                "  line {}: {}\n    marked stricter, but the real command answered {real:?}",
                case.line_no, case.line
            ));
        }
    }

    assert!(
        failures.is_empty(),
        "{} of {} corpus lines disagree with COMMAND GETKEYS:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_covers_every_key_command() {
    // Lines that select at least one key, per command.
    let mut selecting: BTreeMap<&str, usize> = BTreeMap::new();
    for case in corpus() {
        let refs: Vec<&[u8]> = case.argv.iter().map(Vec::as_slice).collect();
        if let Some(cmd) = lookup_argv(&refs) {
            let n = selecting.entry(cmd.name).or_default();
            if matches!(case.extract(), Ok(ex) if !ex.keys.is_empty()) {
                *n += 1;
            }
        }
    }
    let mut missing = Vec::new();
    for cmd in all_commands() {
        let want = if may_take_several_keys(cmd) {
            2
        } else if takes_keys(cmd) {
            1
        } else {
            continue;
        };
        let have = selecting.get(cmd.name).copied().unwrap_or(0);
        if have < want {
            missing.push(format!("{} ({have} of {want})", cmd.name));
        }
    }
    assert!(
        missing.is_empty(),
        "getkeys-corpus.txt lacks key-selecting lines for: {}",
        missing.join(", ")
    );
}

#[test]
fn split_args_follows_redis_cli() {
    let split = |s: &str| split_args(s).unwrap();
    assert_eq!(split(r#"a "b c" 'd e'"#), [&b"a"[..], b"b c", b"d e"]);
    assert_eq!(
        split(r#""\x00\xff\n" '\'' """#),
        [&b"\x00\xff\n"[..], b"'", b""]
    );
    assert_eq!(split("  "), Vec::<Vec<u8>>::new());
    assert!(split_args(r#""a"b"#).is_err());
    assert!(split_args(r#""a"#).is_err());
}

#[test]
fn generated_table_is_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("scripts/gen-commands.py");
    // Locate the server like the harness does (REDIS_SERVER or PATH); the
    // script starts its own on a free loopback port.
    let server = conformance::redis_server_path();
    let out = Process::new("python3")
        .arg(&script)
        .arg("--check")
        .env("REDIS_SERVER", &server)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "crates/keylint-commands/src/generated.rs is out of date; \
         run `python3 scripts/gen-commands.py`\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
