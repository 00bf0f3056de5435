//! Live conformance for redis-cli command files: every command of every fixture under
//! `fixtures/redis-cli/` is sent to a real 3-master cluster, and the commands and
//! transactions the cluster refuses for spanning slots must be exactly the ones the
//! linter reports as `cross-slot`.
//!
//! - A command outside a transaction is sent to the node that owns its first key; a
//!   `CROSSSLOT` reply means it spans slots (a `MOVED` or `ASK` would mean one slot).
//! - A `WATCH … MULTI … EXEC` block is sent as written to the node that owns its first
//!   key. It is refused when a queued command or the `WATCH` is answered `CROSSSLOT`,
//!   `MOVED` or `ASK`, or `EXEC` fails. A `WATCH` on another slot of the *same* node is
//!   accepted by the server although it cannot guard the transaction; for that case
//!   alone the verdict is taken from the server's `CLUSTER KEYSLOT` of every key.

use conformance::{Cluster, Conn, Reply};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The findings of the rules `select` (comma-separated) on the fixture `rel`, as the
/// binary's JSON output gives them.
fn findings(rel: &Path, select: &str) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .current_dir(root())
        .args(["check", "--format", "json", "--select", select])
        .arg(rel)
        .output()
        .unwrap();
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    findings.as_array().unwrap().clone()
}

/// Line ranges of the units the linter reports as `cross-slot`.
fn reported_units(rel: &Path) -> Vec<(usize, usize)> {
    findings(rel, "cross-slot")
        .iter()
        .filter(|f| f["rule"] == "cross-slot")
        .map(|f| {
            let u = &f["unit"];
            (
                u["line"].as_u64().unwrap() as usize,
                u["end_line"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

fn argv(cmd: &keylint_rediscli::CommandLine) -> Vec<Vec<u8>> {
    cmd.args.iter().map(|a| a.bytes.clone()).collect()
}

fn keys_of(cmd: &keylint_rediscli::CommandLine) -> Vec<Vec<u8>> {
    let argv: Vec<&[u8]> = cmd.args.iter().map(|a| a.bytes.as_slice()).collect();
    match keylint_commands::extract_keys(&argv) {
        Ok(ex) => ex.keys.iter().map(|k| argv[k.index].to_vec()).collect(),
        Err(_) => Vec::new(),
    }
}

fn is_slot_refusal(r: &Reply) -> bool {
    matches!(r.error_prefix(), Some("CROSSSLOT" | "MOVED" | "ASK"))
}

struct Conns<'a> {
    cluster: &'a Cluster,
    open: BTreeMap<usize, Conn>,
}

impl Conns<'_> {
    fn for_key(&mut self, key: Option<&[u8]>) -> &mut Conn {
        let node = key.map_or(0, |k| self.cluster.node_for_slot(keyslot::key_slot(k)));
        let cluster = self.cluster;
        self.open.entry(node).or_insert_with(|| cluster.conn(node))
    }
}

fn server_slot(conn: &mut Conn, key: &[u8]) -> i64 {
    let reply = conn.cmd(&[b"CLUSTER".as_slice(), b"KEYSLOT", key]).unwrap();
    reply.as_int().unwrap()
}

#[derive(Default)]
struct Block {
    start: usize,
    watch: Vec<keylint_rediscli::CommandLine>,
    cmds: Vec<keylint_rediscli::CommandLine>,
}

/// The command files of the fixtures, sorted.
fn redis_cli_fixtures() -> Vec<PathBuf> {
    let dir = root().join("fixtures/redis-cli");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "redis"))
        .collect();
    files.sort();
    files
}

/// One fixture's verdicts: the units the linter reports, those a cluster verdict
/// matched so far, and the disagreements.
struct FileCheck<'a> {
    rel: PathBuf,
    reported: BTreeSet<(usize, usize)>,
    matched: BTreeSet<(usize, usize)>,
    disagreements: &'a mut Vec<String>,
}

impl FileCheck<'_> {
    /// The verdict on the command on `line`, refused for spanning slots or not.
    fn line(&mut self, line: usize, refused: bool) {
        let is_reported = self.reported.contains(&(line, line));
        if is_reported {
            self.matched.insert((line, line));
        }
        if refused != is_reported {
            self.disagreements.push(format!(
                "{}:{line}: cluster {}, linter {}",
                self.rel.display(),
                if refused {
                    "answers CROSSSLOT"
                } else {
                    "accepts the command"
                },
                if is_reported {
                    "reports cross-slot"
                } else {
                    "is silent"
                }
            ));
        }
    }

    /// The verdict on the transaction from `b.start` (or its `WATCH`) to `exec_line`.
    fn transaction(&mut self, b: &Block, exec_line: usize, expected: bool) {
        let lines = (b.start, exec_line);
        let got: Vec<_> = self
            .reported
            .iter()
            .filter(|(s, e)| {
                *s >= b.start.min(b.watch.first().map_or(b.start, |w| w.line)) && *e <= lines.1
            })
            .copied()
            .collect();
        self.matched.extend(got.iter().copied());
        if expected == got.is_empty() {
            self.disagreements.push(format!(
                "{}:{}-{}: cluster {} the transaction, linter {}",
                self.rel.display(),
                lines.0,
                lines.1,
                if expected { "refused" } else { "accepted" },
                if got.is_empty() {
                    "is silent"
                } else {
                    "reports it"
                }
            ));
        }
    }

    /// Every reported unit no verdict matched is a disagreement.
    fn finish(self) {
        for unit in self.reported.difference(&self.matched) {
            self.disagreements.push(format!(
                "{}:{}-{}: linter reports a unit the cluster never saw",
                self.rel.display(),
                unit.0,
                unit.1
            ));
        }
    }
}

/// Sends a transaction block as written to the node of its first key; whether the
/// cluster refuses it for spanning slots (or would, for a `WATCH` on another slot
/// of the same node). A queued command refused on its own is a command verdict.
fn send_block(conns: &mut Conns<'_>, b: &Block, check: &mut FileCheck<'_>) -> bool {
    let all_keys: Vec<Vec<u8>> = b.watch.iter().chain(&b.cmds).flat_map(keys_of).collect();
    let conn = conns.for_key(all_keys.first().map(|k| k.as_slice()));
    let mut refused = false;
    for w in &b.watch {
        refused |= is_slot_refusal(&conn.cmd(&argv(w)).unwrap());
    }
    assert_eq!(conn.cmd(&["MULTI"]).unwrap(), Reply::Simple("OK".into()));
    for c in &b.cmds {
        let r = conn.cmd(&argv(c)).unwrap();
        if is_slot_refusal(&r) {
            refused = true;
            if r.error_prefix() == Some("CROSSSLOT") {
                check.line(c.line, true);
            }
        } else {
            check.line(c.line, false);
        }
    }
    let exec = conn.cmd(&["EXEC"]).unwrap();
    refused |= exec.is_error();
    let slots: BTreeSet<i64> = all_keys.iter().map(|k| server_slot(conn, k)).collect();
    refused || slots.len() > 1
}

/// Sends one command outside a transaction to the node of its first key; whether
/// the cluster answers `CROSSSLOT`.
fn send_command(conns: &mut Conns<'_>, cmd: &keylint_rediscli::CommandLine, name: &str) -> bool {
    let keys = keys_of(cmd);
    let conn = conns.for_key(keys.first().map(|k| k.as_slice()));
    let reply = conn.cmd(&argv(cmd)).unwrap();
    if name == "WATCH" {
        conn.cmd(&["UNWATCH"]).unwrap();
    }
    reply.error_prefix() == Some("CROSSSLOT")
}

/// How many commands and transactions were sent, and how many refused.
#[derive(Default)]
struct Sent {
    commands: usize,
    blocks: usize,
    refused: usize,
}

/// Sends every command of one fixture, in blocks where it has transactions.
fn send_file(cluster: &Cluster, path: &Path, sent: &mut Sent, disagreements: &mut Vec<String>) {
    for i in 0..3 {
        let r = cluster.conn(i).cmd(&["FLUSHALL"]).unwrap();
        assert!(!r.is_error(), "{r:?}");
    }
    let rel = path.strip_prefix(root()).unwrap().to_path_buf();
    let mut check = FileCheck {
        reported: reported_units(&rel).into_iter().collect(),
        rel,
        matched: BTreeSet::new(),
        disagreements,
    };
    let parsed = keylint_rediscli::parse(&std::fs::read(path).unwrap());
    let mut conns = Conns {
        cluster,
        open: BTreeMap::new(),
    };
    let mut watch: Vec<keylint_rediscli::CommandLine> = Vec::new();
    let mut block: Option<Block> = None;
    for cmd in &parsed.commands {
        let name = String::from_utf8_lossy(&cmd.args[0].bytes).to_ascii_uppercase();
        match name.as_str() {
            "MULTI" => {
                block = Some(Block {
                    start: cmd.line,
                    watch: std::mem::take(&mut watch),
                    cmds: Vec::new(),
                });
                continue;
            }
            "DISCARD" => {
                block = None;
                watch.clear();
                continue;
            }
            "UNWATCH" => {
                watch.clear();
                continue;
            }
            "EXEC" => {
                let Some(b) = block.take() else { continue };
                sent.blocks += 1;
                let expected = send_block(&mut conns, &b, &mut check);
                sent.refused += usize::from(expected);
                check.transaction(&b, cmd.line, expected);
                watch.clear();
                continue;
            }
            _ => {}
        }
        if let Some(b) = block.as_mut() {
            b.cmds.push(cmd.clone());
            continue;
        }
        if name == "WATCH" {
            watch.push(cmd.clone());
        }
        sent.commands += 1;
        let refused = send_command(&mut conns, cmd, &name);
        sent.refused += usize::from(refused);
        check.line(cmd.line, refused);
    }
    check.finish();
}

#[test]
fn cluster_refuses_exactly_what_is_reported() {
    let cluster = Cluster::start();
    let files = redis_cli_fixtures();
    assert!(!files.is_empty());
    let mut disagreements = Vec::new();
    let mut sent = Sent::default();
    for path in &files {
        send_file(&cluster, path, &mut sent, &mut disagreements);
    }
    println!(
        "{} files, {} commands and {} transactions sent, {} refused for spanning slots",
        files.len(),
        sent.commands,
        sent.blocks,
        sent.refused
    );
    assert!(sent.refused > 10, "the fixtures exercise too few refusals");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Lines with a finding of the script rules (`script-keys-mismatch`,
/// `undeclared-script-key`).
fn script_findings(rel: &Path) -> BTreeSet<usize> {
    findings(rel, "script-keys-mismatch,undeclared-script-key")
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["unit"]["line"].as_u64().unwrap() as usize)
        .collect()
}

/// Every `EVAL`/`EVALSHA`/`FCALL` line of every fixture is sent to the node a cluster
/// client routes it to (the owner of its first key; every node when it passes none).
/// A call the server refuses on some node — numkeys it cannot read or larger than the
/// arguments, a key outside the declared slot or node, a nil `KEYS[i]` passed to a
/// command — must be exactly a call with a script finding of error severity. A script
/// the server does not have (`NOSCRIPT`, no such function) tells nothing and is skipped;
/// `FUNCTION LOAD` lines are loaded on every node first, and an `FCALL` of a function
/// whose library has such a finding counts as reported;
/// so is a `CROSSSLOT` for the keys passed, which the test above checks.
#[test]
fn cluster_refuses_exactly_the_script_calls_reported() {
    let cluster = Cluster::start();
    let files = redis_cli_fixtures();
    let mut disagreements = Vec::new();
    let (mut sent, mut refused_total) = (0, 0);
    for path in &files {
        let rel = path.strip_prefix(root()).unwrap().to_path_buf();
        let reported = script_findings(&rel);
        let parsed = keylint_rediscli::parse(&std::fs::read(path).unwrap());
        // Function name -> the `FUNCTION LOAD` line that registers it.
        let mut loaded: BTreeMap<String, usize> = BTreeMap::new();
        for cmd in &parsed.commands {
            let name = String::from_utf8_lossy(&cmd.args[0].bytes).to_ascii_uppercase();
            if name == "FUNCTION" {
                for node in 0..3 {
                    let r = cluster.conn(node).cmd(&argv(cmd)).unwrap();
                    assert!(!r.is_error(), "{}:{}: {r:?}", rel.display(), cmd.line);
                }
                let body = String::from_utf8_lossy(&cmd.args.last().unwrap().bytes).to_string();
                for part in body.split("register_function('").skip(1) {
                    if let Some(f) = part.split('\'').next() {
                        loaded.insert(f.to_string(), cmd.line);
                    }
                }
                continue;
            }
            // A function's keys are reported where its library is loaded.
            let is_reported = reported.contains(&cmd.line)
                || (name.starts_with("FCALL")
                    && cmd.args.get(1).is_some_and(|f| {
                        loaded
                            .get(String::from_utf8_lossy(&f.bytes).as_ref())
                            .is_some_and(|l| reported.contains(l))
                    }));
            if !matches!(
                name.as_str(),
                "EVAL" | "EVAL_RO" | "EVALSHA" | "EVALSHA_RO" | "FCALL" | "FCALL_RO"
            ) {
                continue;
            }
            let keys = keys_of(cmd);
            let nodes: Vec<usize> = match keys.first() {
                Some(k) => vec![cluster.node_for_slot(keylint_rediscli_slot(k))],
                None => (0..3).collect(),
            };
            let mut refused = false;
            let mut unknown = false;
            let mut slot_refused = false;
            for node in nodes {
                sent += 1;
                let reply = cluster.conn(node).cmd(&argv(cmd)).unwrap();
                let Reply::Error(e) = &reply else { continue };
                if e.starts_with("NOSCRIPT") || e.contains("Function not found") {
                    unknown = true;
                } else if is_slot_refusal(&reply) {
                    // Keys passed in several slots: the cross-slot test's verdict.
                    slot_refused = true;
                } else {
                    println!("{}:{}: {e}", rel.display(), cmd.line);
                    refused = true;
                }
            }
            if (unknown || slot_refused) && !refused {
                continue;
            }
            refused_total += usize::from(refused);
            if refused != is_reported {
                disagreements.push(format!(
                    "{}:{}: cluster {}, linter {}",
                    rel.display(),
                    cmd.line,
                    if refused { "refuses" } else { "accepts" },
                    if refused { "is silent" } else { "reports it" }
                ));
            }
        }
    }
    println!("{sent} script calls sent, {refused_total} refused");
    assert!(refused_total >= 6, "the fixtures exercise too few refusals");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

fn keylint_rediscli_slot(k: &[u8]) -> u16 {
    keyslot::key_slot(k)
}

/// Lines with a `sort-pattern` finding.
fn sort_pattern_findings(rel: &Path) -> BTreeSet<usize> {
    findings(rel, "sort-pattern")
        .iter()
        .map(|f| f["unit"]["line"].as_u64().unwrap() as usize)
        .collect()
}

/// Every `SORT`/`SORT_RO` line of every fixture is sent to the node of its sorted
/// key: the lines the node refuses for a `BY` or `GET` pattern (`… option of SORT
/// denied in Cluster mode`) must be exactly the lines with a `sort-pattern` finding.
#[test]
fn cluster_refuses_exactly_the_sort_patterns_reported() {
    let cluster = Cluster::start();
    let mut disagreements = Vec::new();
    let (mut sent, mut refused) = (0, 0);
    for path in redis_cli_fixtures() {
        let rel = path.strip_prefix(root()).unwrap().to_path_buf();
        let reported = sort_pattern_findings(&rel);
        let parsed = keylint_rediscli::parse(&std::fs::read(&path).unwrap());
        let mut conns = Conns {
            cluster: &cluster,
            open: BTreeMap::new(),
        };
        let mut seen = BTreeSet::new();
        for cmd in &parsed.commands {
            let name = String::from_utf8_lossy(&cmd.args[0].bytes).to_ascii_uppercase();
            if !matches!(name.as_str(), "SORT" | "SORT_RO") || cmd.args.len() < 2 {
                continue;
            }
            let key = cmd.args[1].bytes.clone();
            let reply = conns.for_key(Some(&key)).cmd(&argv(cmd)).unwrap();
            let is_refused = matches!(&reply, Reply::Error(e) if e.contains("option of SORT denied in Cluster mode"));
            sent += 1;
            refused += usize::from(is_refused);
            seen.insert(cmd.line);
            if is_refused != reported.contains(&cmd.line) {
                disagreements.push(format!(
                    "{}:{}: the node {} ({reply:?}), the linter {}",
                    rel.display(),
                    cmd.line,
                    if is_refused {
                        "refuses the pattern"
                    } else {
                        "runs it"
                    },
                    if reported.contains(&cmd.line) {
                        "reports sort-pattern"
                    } else {
                        "is silent"
                    },
                ));
            }
        }
        for line in reported.difference(&seen) {
            disagreements.push(format!(
                "{}:{line}: sort-pattern reported on a line that sends no SORT",
                rel.display()
            ));
        }
    }
    println!("{sent} SORT commands sent, {refused} refused for their patterns");
    assert!(refused >= 5, "the fixtures exercise too few SORT patterns");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
