//! Live conformance for Lua scripts and functions: every fixture under `fixtures/lua/`
//! runs on a real three-master cluster, and the cluster's answer must agree with the
//! linter.
//!
//! A fixture declares its runs in its leading comments:
//!
//! ```text
//! -- keylint-test: keys=user:{1}:a,user:{1}:b argv=1     (EVAL the file)
//! -- keylint-test: fcall=name keys= argv=a,b             (FUNCTION LOAD, FCALL name)
//! -- keylint-test: none (why)                            (lint only)
//! ```
//!
//! Each run goes to the node that owns the first key's slot (the first declared key,
//! else the first key the script touches), as a cluster client routes it. The answer
//! is one of: it runs; `CROSSSLOT` (the declared keys span slots); `non local key`;
//! `keys that do not hash to the same slot`; `no-cluster`. Three checks, any failure
//! is loud:
//!
//! 1. the linter's verdict: `script-no-cluster` ⇔ the `no-cluster` refusal; an error
//!    of `cross-slot` ⇒ the cluster refuses; no slot finding at all (`cross-slot`,
//!    `cross-slot-likely`, `undeclared-script-key`, even at info) ⇒ it runs;
//! 2. the linter's model: its key templates, with the run's `KEYS` and `ARGV`
//!    substituted, replayed through the server's rules for scripts (checked by hand on
//!    Redis 7.0: a command spanning slots or a key served by another node is a `non
//!    local key`; with a shebang or in a function, a key outside the first slot is
//!    refused unless `allow-cross-slot-keys`) must predict the exact answer;
//! 3. after a run that succeeds, every literal key the model says was written exists
//!    on the server, byte for byte (this checks Lua 5.1 unescaping and long brackets;
//!    fixtures do not delete the literal keys they write).

use conformance::{Cluster, Conn, Reply};
use keylint_core::model::{FileModel, Script, ScriptMode, UnitKind};
use keylint_core::rules::{check, Settings};
use keylint_core::template::Part;
use keylint_core::{Finding, Rule, Severity};
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lua")
}

#[derive(Debug, Clone)]
struct Run {
    fcall: Option<String>,
    keys: Vec<Vec<u8>>,
    argv: Vec<Vec<u8>>,
    line: String,
}

/// The runs a fixture declares; `None` when it declares `none`.
fn runs(source: &str) -> Option<Vec<Run>> {
    let mut out = Vec::new();
    let mut none = false;
    for line in source.lines() {
        let t = line.trim();
        if t.starts_with("#!") {
            continue;
        }
        let Some(rest) = t.strip_prefix("--") else {
            break;
        };
        let Some(spec) = rest.trim().strip_prefix("keylint-test:") else {
            continue;
        };
        let spec = spec.trim();
        if spec.starts_with("none") {
            none = true;
            continue;
        }
        let mut run = Run {
            fcall: None,
            keys: Vec::new(),
            argv: Vec::new(),
            line: spec.to_string(),
        };
        let list = |v: &str| -> Vec<Vec<u8>> {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.as_bytes().to_vec())
                .collect()
        };
        for field in spec.split_whitespace() {
            match field.split_once('=') {
                Some(("keys", v)) => run.keys = list(v),
                Some(("argv", v)) => run.argv = list(v),
                Some(("fcall", v)) => run.fcall = Some(v.to_string()),
                _ => panic!("bad keylint-test field `{field}` in `{spec}`"),
            }
        }
        out.push(run);
    }
    if none {
        assert!(out.is_empty(), "a fixture with `none` declares no runs");
        return None;
    }
    Some(out)
}

/// What the cluster answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ran,
    CrossSlot,
    NonLocal,
    SameSlot,
    NoCluster,
}

impl Outcome {
    fn refused(self) -> bool {
        self != Outcome::Ran
    }
}

fn classify(reply: &Reply) -> Result<Outcome, String> {
    match reply {
        Reply::Error(e) if e.starts_with("CROSSSLOT") => Ok(Outcome::CrossSlot),
        Reply::Error(e) if e.contains("non local key") => Ok(Outcome::NonLocal),
        Reply::Error(e) if e.contains("do not hash to the same slot") => Ok(Outcome::SameSlot),
        Reply::Error(e) if e.contains("'no-cluster' flag") => Ok(Outcome::NoCluster),
        Reply::Error(e) => Err(e.clone()),
        _ => Ok(Outcome::Ran),
    }
}

/// The script of a run: the EVAL script, or the registered function named.
fn script_of<'m>(model: &'m FileModel, run: &Run) -> &'m Script {
    match &run.fcall {
        None => model
            .scripts
            .iter()
            .find(|s| s.mode != ScriptMode::Function)
            .expect("an EVAL script"),
        Some(name) => model
            .scripts
            .iter()
            .find(|s| &s.name == name)
            .unwrap_or_else(|| panic!("no registered function `{name}`")),
    }
}

/// The commands of a script, in order: each is the list of its key indices.
fn commands(model: &FileModel, script: &Script) -> Vec<Vec<usize>> {
    let Some(&u) = script.units.first() else {
        return Vec::new();
    };
    // A script's command units are the ones just before its own units.
    let first = model.units[..u]
        .iter()
        .rposition(|x| x.kind == UnitKind::Script)
        .map_or(0, |p| p + 1);
    let multi: Vec<&Vec<usize>> = model.units[first..u].iter().map(|x| &x.keys).collect();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &k in &script.keys {
        if out.iter().any(|c| c.contains(&k)) {
            continue;
        }
        match multi.iter().find(|m| m.contains(&k)) {
            Some(m) => out.push((*m).clone()),
            None => out.push(vec![k]),
        }
    }
    out
}

/// A key with the run's `KEYS` and `ARGV` substituted, when the template holds
/// nothing else.
fn instantiate(model: &FileModel, k: usize, run: &Run) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for p in &model.keys[k].template.parts {
        match p {
            Part::Lit(l) => out.extend_from_slice(&l.bytes),
            Part::Hole(h) => {
                let (table, rest) = if let Some(r) = h.binding.strip_prefix("KEYS[") {
                    (&run.keys, r)
                } else if let Some(r) = h.binding.strip_prefix("ARGV[") {
                    (&run.argv, r)
                } else {
                    return None;
                };
                let i: usize = rest.strip_suffix(']')?.parse().ok()?;
                out.extend_from_slice(table.get(i.checked_sub(1)?)?);
            }
        }
    }
    Some(out)
}

/// The server's answer, replayed from the model.
fn simulate(
    cluster: &Cluster,
    model: &FileModel,
    script: &Script,
    run: &Run,
    node: usize,
) -> Option<Outcome> {
    if script.has_flag("no-cluster") {
        return Some(Outcome::NoCluster);
    }
    let declared: Vec<u16> = run.keys.iter().map(|k| keyslot::key_slot(k)).collect();
    if declared.windows(2).any(|w| w[0] != w[1]) {
        return Some(Outcome::CrossSlot);
    }
    let strict = script.mode != ScriptMode::Eval && !script.has_flag("allow-cross-slot-keys");
    let mut slot = declared.first().copied();
    for cmd in commands(model, script) {
        let keys: Option<Vec<Vec<u8>>> = cmd.iter().map(|&k| instantiate(model, k, run)).collect();
        let slots: Vec<u16> = keys?.iter().map(|k| keyslot::key_slot(k)).collect();
        if slots.windows(2).any(|w| w[0] != w[1]) {
            return Some(Outcome::NonLocal);
        }
        let s = slots[0];
        if cluster.node_for_slot(s) != node {
            return Some(Outcome::NonLocal);
        }
        if strict {
            match slot {
                None => slot = Some(s),
                Some(x) if x != s => return Some(Outcome::SameSlot),
                _ => {}
            }
        }
    }
    Some(Outcome::Ran)
}

fn in_script(f: &Finding, script: &Script) -> bool {
    let span = f.unit.clone().unwrap_or_else(|| f.primary.span.clone());
    span.start >= script.span.start && span.end <= script.span.end
}

const WRITES: &[&str] = &["SET", "INCR", "INCRBY", "HSET", "LPUSH", "RPUSH", "SADD"];

fn eval(conn: &mut Conn, source: &str, run: &Run) -> Reply {
    let mut args: Vec<Vec<u8>> = match &run.fcall {
        None => vec![b"EVAL".to_vec(), source.as_bytes().to_vec()],
        Some(f) => vec![b"FCALL".to_vec(), f.as_bytes().to_vec()],
    };
    args.push(run.keys.len().to_string().into_bytes());
    args.extend(run.keys.iter().cloned());
    args.extend(run.argv.iter().cloned());
    conn.cmd(&args).expect("the node answers")
}

/// The node a cluster client routes a run to: the owner of its first key passed, or
/// else of the first key the script touches.
fn route(cluster: &Cluster, model: &FileModel, script: &Script, run: &Run) -> usize {
    let first_touched = script
        .keys
        .first()
        .and_then(|&k| instantiate(model, k, run));
    let slot = run
        .keys
        .first()
        .or(first_touched.as_ref())
        .map(|k| keyslot::key_slot(k));
    slot.map_or(0, |s| cluster.node_for_slot(s))
}

/// Where the linter's findings on a script (`mine`) disagree with the cluster's
/// answer: `script-no-cluster` exactly when the cluster refuses for it, no
/// cross-slot error on a script that ran, no silence on one that was refused.
fn verdict_failures(what: &str, actual: Outcome, mine: &[&Finding], reply: &Reply) -> Vec<String> {
    let mut failures = Vec::new();
    let no_cluster = mine.iter().any(|f| f.rule == Rule::ScriptNoCluster);
    let cross_error = mine
        .iter()
        .any(|f| f.rule == Rule::CrossSlot && f.severity == Severity::Error);
    let silent = !mine.iter().any(|f| {
        matches!(
            f.rule,
            Rule::CrossSlot
                | Rule::CrossSlotLikely
                | Rule::UndeclaredScriptKey
                | Rule::ScriptNoCluster
        )
    });
    if no_cluster != (actual == Outcome::NoCluster) {
        failures.push(format!(
            "{what}: cluster answered {actual:?}, linter no-cluster = {no_cluster}"
        ));
    }
    if actual != Outcome::CrossSlot {
        if cross_error && !actual.refused() {
            failures.push(format!(
                "{what}: the linter reports a cross-slot error but the cluster ran it"
            ));
        }
        if silent && actual.refused() {
            failures.push(format!(
                "{what}: the linter is silent but the cluster refused: {reply:?}"
            ));
        }
    }
    failures
}

/// The literal keys the script writes that are not on the cluster after it ran.
fn unwritten_keys(
    cluster: &Cluster,
    model: &FileModel,
    script: &Script,
    what: &str,
) -> Vec<String> {
    let mut failures = Vec::new();
    for &k in &script.keys {
        let key = &model.keys[k];
        if !WRITES.contains(&key.command.as_str()) {
            continue;
        }
        let Some(bytes) = key.template.as_literal() else {
            continue;
        };
        let mut conn = cluster.conn_for_slot(keyslot::key_slot(&bytes));
        let exists = conn.cmd(&[b"EXISTS".as_slice(), &bytes]).unwrap();
        if exists != Reply::Int(1) {
            failures.push(format!(
                "{what}: the model's key `{}` was not written",
                bytes.escape_ascii()
            ));
        }
    }
    failures
}

#[test]
fn lua_fixtures_agree_with_a_live_cluster() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures/lua exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "lua"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let cluster = Cluster::start();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(path).unwrap();
        let model = keylint_lua::lower(&source);
        let findings = check(&model, &Settings::default());
        let Some(runs) = runs(&source) else {
            continue;
        };
        assert!(!runs.is_empty(), "{name}: no `-- keylint-test:` line");
        if runs.iter().any(|r| r.fcall.is_some()) {
            for node in 0..cluster.ports().len() {
                let reply = cluster
                    .conn(node)
                    .cmd(&["FUNCTION", "LOAD", "REPLACE", source.as_str()])
                    .unwrap();
                assert!(!reply.is_error(), "{name}: FUNCTION LOAD: {reply:?}");
            }
        }
        for run in &runs {
            checked += 1;
            let what = format!("{name} [{}]", run.line);
            let script = script_of(&model, run);
            let node = route(&cluster, &model, script, run);
            let reply = eval(&mut cluster.conn(node), &source, run);
            let actual = match classify(&reply) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("{what}: unexpected error `{e}`"));
                    continue;
                }
            };
            let mine: Vec<&Finding> = findings.iter().filter(|f| in_script(f, script)).collect();
            failures.extend(verdict_failures(&what, actual, &mine, &reply));
            match simulate(&cluster, &model, script, run, node) {
                Some(predicted) if predicted != actual => failures.push(format!(
                    "{what}: the model predicts {predicted:?}, the cluster answered \
                     {actual:?} ({reply:?})"
                )),
                Some(_) => {}
                None => eprintln!("{what}: model not instantiable, verdict checks only"),
            }
            if actual == Outcome::Ran {
                failures.extend(unwritten_keys(&cluster, &model, script, &what));
            }
            eprintln!("{what}: {actual:?}");
        }
    }
    assert!(checked > 0, "no run was checked");
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What the `KEYS`/`SCAN` finding of `undeclared-script-key` says: inside a script,
/// `KEYS` lists only the keys of the node that runs the script, with no error.
#[test]
fn keys_inside_a_script_lists_only_its_node() {
    let cluster = Cluster::start();
    let total = 60;
    let mut on_first = 0;
    for i in 0..total {
        let key = format!("keylint:listing:{i}");
        let node = cluster.node_for_slot(keyslot::key_slot(key.as_bytes()));
        on_first += usize::from(node == 0);
        let reply = cluster.conn(node).cmd(&["SET", key.as_str(), "1"]).unwrap();
        assert!(!reply.is_error(), "SET {key}: {reply:?}");
    }
    assert!(on_first > 0 && on_first < total, "the keys span the nodes");
    for (script, what) in [
        ("return #redis.call('KEYS', ARGV[1])", "KEYS"),
        (
            "local n, c = 0, '0' repeat local r = redis.call('SCAN', c, 'MATCH', ARGV[1], \
             'COUNT', 1000) c = r[1] n = n + #r[2] until c == '0' return n",
            "SCAN",
        ),
    ] {
        let reply = cluster
            .conn(0)
            .cmd(&["EVAL", script, "0", "keylint:listing:*"])
            .unwrap();
        assert_eq!(
            reply.as_int(),
            Some(on_first as i64),
            "{what} inside a script on node 0: {reply:?}"
        );
    }
}
