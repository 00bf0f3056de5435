//! Live ground truth for JavaScript code: what ioredis and node-redis (npm `redis`) do
//! on a real three-master cluster with keys in several slots, and the method tables
//! in `crates/keylint-javascript-data/`, checked against the installed packages.
//!
//! The test installs the packages of `fixtures/javascript/package.json` (ioredis 6 and 5,
//! node-redis 6, 5 and 4; the older majors under aliases such as `redis-v4`) at the
//! exact versions `fixtures/javascript/package-lock.json` locks, from the npm registry
//! into a folder under Cargo's test temp dir (`npm ci --no-audit --no-fund`, reused
//! while the two files are unchanged). It skips, with a message, only when `node` or `npm`
//! is missing, and fails instead when `CI` is set. Then:
//!
//! 1. `scripts/gen-js-methods.js` regenerates both method tables from the installed
//!    packages into a temp dir; they must equal the checked-in ones;
//! 2. `tests/data/javascript/probe.js` runs, with each library's cluster client (and
//!    each major), multi-key commands whose keys are on two masters (as methods, and
//!    through ioredis `call` and node-redis `sendCommand`),
//!    `pipeline()`, `multi()`, `multi().exec()`, `execAsPipeline()` and scripts
//!    (`eval`, `evalsha`, ioredis `defineCommand`, node-redis `defineScript`,
//!    undeclared keys with and without a `#!lua` shebang) with a second key in the
//!    same slot, another slot of the same master, or another master, and MSET
//!    through clients with a `keyPrefix` (with and without a hash tag); it reports
//!    what failed, with which error, and which keys exist afterwards;
//! 3. the outcomes must be the ones listed below (what docs/javascript-clients.md
//!    says), and the `cluster` column of the tables must agree with every command
//!    the probe ran: `split` where the command worked, `routed` where the server
//!    answered CROSSSLOT.

use conformance::{run_ok as run, Cluster};
use npm::installed_packages;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Installs the Node.js clients (shared with the fixtures' live test).
#[path = "common/npm.rs"]
mod npm;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `method -> cluster` from a method table (column 3).
fn cluster_column(table: &str) -> BTreeMap<String, String> {
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            (cols[0].to_string(), cols[2].to_string())
        })
        .collect()
}

fn check_tables(packages: &Path) -> [BTreeMap<String, String>; 2] {
    let root = root();
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("js-methods-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    run(
        Command::new("node")
            .arg(root.join("scripts/gen-js-methods.js"))
            .arg(packages)
            .arg(&out),
        "scripts/gen-js-methods.js",
    );
    let mut problems = Vec::new();
    let mut tables = Vec::new();
    for name in ["ioredis_methods.txt", "node_redis_methods.txt"] {
        let fresh = std::fs::read_to_string(out.join(name)).unwrap();
        let ours = std::fs::read_to_string(root.join("crates/keylint-javascript-data").join(name))
            .unwrap_or_default();
        if fresh != ours {
            let only = |a: &str, b: &str| -> Vec<String> {
                a.lines()
                    .filter(|l| !b.lines().any(|m| m == *l))
                    .map(str::to_string)
                    .collect()
            };
            problems.push(format!(
                "crates/keylint-javascript-data/{name} differs from the installed packages:\n\
                 only in the checked-in table:\n  {}\nonly in the installed packages:\n  {}",
                only(&ours, &fresh).join("\n  "),
                only(&fresh, &ours).join("\n  ")
            ));
        }
        tables.push(cluster_column(&fresh));
    }
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        problems.is_empty(),
        "{}\n\nRegenerate with: node scripts/gen-js-methods.js {} \
         crates/keylint-javascript-data",
        problems.join("\n\n"),
        packages.display()
    );
    let [io, nr]: [BTreeMap<String, String>; 2] = tables.try_into().unwrap();
    eprintln!(
        "method tables: {} ioredis and {} node-redis multi-key methods, same as the installed packages",
        io.len(),
        nr.len()
    );
    [io, nr]
}

/// What a case must do: `Ok` or an error containing the text, and which of its two
/// keys (`a`, `b`) exist afterwards.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Ok(&'static str),
    Err(&'static str, &'static str),
}

const CROSSSLOT: &str = "CROSSSLOT Keys in request don't hash to the same slot";
const PIPELINE_SLOT: &str = "All the keys in a pipeline command should belong to the same slot";
const PIPELINE_GROUP: &str =
    "All keys in the pipeline should belong to the same slots allocation group";
const NON_LOCAL: &str = "Script attempted to access a non local key in a cluster node";
const SHEBANG_SLOT: &str = "Script attempted to access keys that do not hash to the same slot";

/// The commands node-redis 6 `createCluster` splits by slot. node-redis 4 and 5
/// (`node-redis@4`, `node-redis@5` in the probe's records) split none.
const NODE_REDIS_SPLITS: &[&str] = &["MGET", "MSET", "DEL", "UNLINK", "EXISTS", "TOUCH"];

/// `(library, case, [same-slot, same-node, other-node])` for pipelines,
/// transactions and scripts; `a` is written first, `b` second.
const BATCHES: &[(&str, &str, [Expect; 3])] = {
    use Expect::{Err as E, Ok as O};
    &[
        // ioredis checks pipelines before sending: each command within one slot,
        // all commands within one master.
        (
            "ioredis",
            "pipeline",
            [O("ab"), O("ab"), E(PIPELINE_GROUP, "")],
        ),
        (
            "ioredis",
            "pipeline-del",
            [O(""), E(PIPELINE_SLOT, "ab"), E(PIPELINE_SLOT, "ab")],
        ),
        // The same check for multi(); one master with two slots passes it, and the
        // server refuses the transaction at EXEC.
        (
            "ioredis",
            "multi",
            [O("ab"), E(CROSSSLOT, ""), E(PIPELINE_GROUP, "")],
        ),
        // node-redis sends MULTI/EXEC to the first key's master.
        (
            "node-redis",
            "multi",
            [
                O("ab"),
                E(CROSSSLOT, ""),
                E("Too many Cluster redirections", ""),
            ],
        ),
        // execAsPipeline sends every command to the first key's master and does not
        // follow MOVED: a partial write.
        (
            "node-redis",
            "execAsPipeline",
            [O("ab"), O("ab"), E("MOVED", "a")],
        ),
        // Scripts go to the first declared key's master.
        (
            "ioredis",
            "eval",
            [O("ab"), E(CROSSSLOT, ""), E(CROSSSLOT, "")],
        ),
        (
            "ioredis",
            "evalsha",
            [O("ab"), E(CROSSSLOT, ""), E(CROSSSLOT, "")],
        ),
        (
            "ioredis",
            "defineCommand",
            [O("ab"), E(CROSSSLOT, ""), E(CROSSSLOT, "")],
        ),
        (
            "node-redis",
            "eval",
            [O("ab"), E(CROSSSLOT, ""), E(CROSSSLOT, "")],
        ),
        (
            "node-redis",
            "evalsha",
            [O("ab"), E(CROSSSLOT, ""), E(CROSSSLOT, "")],
        ),
        (
            "node-redis",
            "defineScript",
            [O("ab"), E(CROSSSLOT, ""), E(CROSSSLOT, "")],
        ),
        // An undeclared key works while it is on the same master; a script's writes
        // before the failure stay.
        (
            "ioredis",
            "eval-undeclared",
            [O("ab"), O("ab"), E(NON_LOCAL, "a")],
        ),
        (
            "node-redis",
            "eval-undeclared",
            [O("ab"), O("ab"), E(NON_LOCAL, "a")],
        ),
        // Under a `#!lua` shebang, any other slot fails.
        (
            "ioredis",
            "eval-undeclared-shebang",
            [O("ab"), E(SHEBANG_SLOT, "a"), E(NON_LOCAL, "a")],
        ),
        (
            "node-redis",
            "eval-undeclared-shebang",
            [O("ab"), E(SHEBANG_SLOT, "a"), E(NON_LOCAL, "a")],
        ),
    ]
};

/// `(library, case, outcome)` for MSET of the two keys on two masters through a
/// client made with a `keyPrefix`: a prefix with a hash tag puts every key in the
/// tag's slot, a plain one changes nothing. `a` and `b` are the prefixed keys.
const PREFIXES: &[(&str, &str, Expect)] = &[
    ("ioredis", "mset-tagged-prefix", Expect::Ok("ab")),
    ("node-redis", "mset-tagged-prefix", Expect::Ok("ab")),
    ("ioredis", "mset-plain-prefix", Expect::Err(CROSSSLOT, "")),
    ("node-redis", "mset-plain-prefix", Expect::Ok("ab")),
];

/// Where an older major (`ioredis@5`, `node-redis@4`, `node-redis@5` in the probe's
/// records; they are otherwise held to their library's expectations above) ends
/// differently: `(library, case, relation, outcome)`.
const OLDER_DIFFER: &[(&str, &str, &str, Expect)] = &[
    // node-redis 5 gives up at the first MOVED, 4 sees EXECABORT; nothing is
    // written either way.
    (
        "node-redis@5",
        "multi",
        "other-node",
        Expect::Err("MOVED", ""),
    ),
    (
        "node-redis@4",
        "multi",
        "other-node",
        Expect::Err("EXECABORT Transaction discarded", ""),
    ),
];

/// node-redis 4 now and then rejects a script call with a `MOVED` error, whatever
/// the keys (in about one call in 10 to 60 on a fresh client, keys in one slot
/// included); nothing is written then. Either outcome is accepted for its scripts.
fn is_node_redis_4_moved(c: &Case) -> bool {
    c.lib == "node-redis@4"
        && c.kind == "script"
        && !c.ok
        && c.error.starts_with("MOVED")
        && c.present.is_empty()
}

/// `ioredis@5` -> `ioredis`.
fn family(lib: &str) -> &str {
    lib.split('@').next().unwrap_or(lib)
}

const RELATIONS: [&str; 3] = ["same-slot", "same-node", "other-node"];

/// One record of probe.js.
struct Case<'a> {
    lib: &'a str,
    kind: &'a str,
    name: &'a str,
    method: &'a str,
    relation: &'a str,
    ok: bool,
    error: &'a str,
    /// Which of the case's keys (`a`, `b`) exist afterwards.
    present: String,
}

impl Case<'_> {
    fn describe(&self) -> String {
        format!(
            "{} {} ({}): {}, keys present afterwards: {:?}",
            self.lib,
            self.name,
            self.relation,
            if self.ok {
                "ok".to_string()
            } else {
                format!("error {:?}", self.error)
            },
            self.present
        )
    }

    fn meets(&self, expect: Expect) -> bool {
        match expect {
            Expect::Ok(keys) => self.ok && self.present == keys,
            Expect::Err(text, keys) => {
                !self.ok && self.error.contains(text) && self.present == keys
            }
        }
    }
}

/// The probe's keys by role (`a`, `same`, `near`, `far`), checked against the slot
/// engine and the harness's slot map: `same` shares `a`'s slot, `near` its master
/// only, `far` is on another master.
fn probe_keys(report: &Value, cluster: &Cluster) -> BTreeMap<String, String> {
    let mut keys = BTreeMap::new();
    let mut nodes = BTreeMap::new();
    for role in ["a", "same", "near", "far"] {
        let key = report["keys"][role]["key"].as_str().unwrap().to_string();
        let slot = keyslot::key_slot(key.as_bytes());
        assert_eq!(
            report["keys"][role]["slot"].as_u64(),
            Some(u64::from(slot)),
            "{key}: CLUSTER KEYSLOT and the slot engine disagree"
        );
        nodes.insert(role, (slot, cluster.node_for_slot(slot)));
        keys.insert(role.to_string(), key);
    }
    let (a, same, near, far) = (nodes["a"], nodes["same"], nodes["near"], nodes["far"]);
    assert!(
        a == same && a.0 != near.0 && a.1 == near.1 && a.1 != far.1,
        "keys: {}",
        report["keys"]
    );
    keys
}

fn parse_case<'a>(c: &'a Value, keys: &BTreeMap<String, String>) -> Case<'a> {
    let s = |field: &str| c[field].as_str().unwrap_or("");
    let name = s("name");
    let relation = s("relation");
    let b = match relation {
        "same-slot" => &keys["same"],
        "same-node" => &keys["near"],
        _ => &keys["far"],
    };
    let prefix = match name {
        "mset-tagged-prefix" => "{pfx}:",
        "mset-plain-prefix" => "pfx:",
        _ => "",
    };
    let written: Vec<&str> = c["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let present = [("a", &keys["a"]), ("b", b)]
        .iter()
        .filter(|(_, k)| written.contains(&format!("{prefix}{k}").as_str()))
        .map(|(n, _)| *n)
        .collect();
    Case {
        lib: s("lib"),
        kind: s("kind"),
        name,
        method: s("method"),
        relation,
        ok: c["outcome"] == "ok",
        error: s("error"),
        present,
    }
}

/// What is wrong with a multi-key command whose keys are on two masters: it must
/// split (node-redis 6's split commands; 4 and 5 split nothing) or get CROSSSLOT,
/// and a method's `cluster` column must say what happened.
fn judge_command(c: &Case, tables: &[BTreeMap<String, String>; 2]) -> Vec<String> {
    let mut wrong = Vec::new();
    // Only node-redis 6 splits; ioredis 5 and 6 and node-redis 4 and 5 never do.
    let split = c.lib == "node-redis" && NODE_REDIS_SPLITS.contains(&c.name);
    let agrees = if split {
        c.ok
    } else {
        !c.ok && c.error.starts_with(CROSSSLOT)
    };
    if !agrees {
        wrong.push(format!(
            "{}; expected {}",
            c.describe(),
            if split { "split (ok)" } else { "CROSSSLOT" }
        ));
    }
    // The tables are of the current majors.
    if c.kind == "command" && (c.lib == "ioredis" || c.lib == "node-redis") {
        let measured = if c.ok { "split" } else { "routed" };
        let table = &tables[usize::from(c.lib != "ioredis")];
        match table.get(c.method) {
            Some(col) if col == measured => {}
            other => wrong.push(format!(
                "{} table: {} is {other:?}, measured {measured}",
                c.lib, c.method
            )),
        }
    }
    wrong
}

/// What is wrong with a pipeline, transaction, script or keyPrefix case.
fn judge_other(c: &Case) -> Option<String> {
    if is_node_redis_4_moved(c) {
        return None;
    }
    let family = family(c.lib);
    let override_ = OLDER_DIFFER
        .iter()
        .find(|(l, n, r, _)| *l == c.lib && *n == c.name && *r == c.relation)
        .map(|(_, _, _, e)| *e);
    let expect = if c.kind == "prefix" {
        PREFIXES
            .iter()
            .find(|(l, n, _)| *l == family && *n == c.name)
            .map(|(_, _, e)| *e)
    } else {
        let i = RELATIONS.iter().position(|r| *r == c.relation)?;
        override_.or_else(|| {
            BATCHES
                .iter()
                .find(|(l, n, _)| *l == family && *n == c.name)
                .map(|(_, _, e)| e[i])
        })
    };
    match expect {
        Some(e) if c.meets(e) => None,
        Some(e) => Some(format!("{}; expected {e:?}", c.describe())),
        None => Some(format!("{}: no expectation for this case", c.describe())),
    }
}

#[test]
fn ioredis_and_node_redis_on_a_live_cluster() {
    let Some(packages) = installed_packages() else {
        return;
    };
    let tables = check_tables(&packages);

    let cluster = Cluster::start();
    let report = run(
        Command::new("node")
            .arg(root().join("crates/conformance/tests/data/javascript/probe.js"))
            .arg(&packages)
            .arg(cluster.ports()[0].to_string()),
        "probe.js against the cluster",
    );
    let report: Value = serde_json::from_str(&report).unwrap();
    eprintln!("versions: {}", report["versions"]);
    let keys = probe_keys(&report, &cluster);

    let cases: Vec<Case> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| parse_case(c, &keys))
        .collect();
    let mut wrong = Vec::new();
    let mut count = BTreeMap::<&str, usize>::new();
    for c in &cases {
        *count.entry(c.kind).or_default() += 1;
        match c.kind {
            "command" | "raw" => wrong.extend(judge_command(c, &tables)),
            _ => wrong.extend(judge_other(c)),
        }
    }
    let n = |kind: &str| count.get(kind).copied().unwrap_or(0);
    let moved = cases.iter().filter(|c| is_node_redis_4_moved(c)).count();
    if moved > 0 {
        eprintln!("node-redis 4 answered {moved} script calls with MOVED this time");
    }
    for lib in report["versions"].as_object().unwrap().keys() {
        let ran = cases
            .iter()
            .filter(|c| c.lib == lib && (c.kind == "batch" || c.kind == "script"))
            .count();
        let want = BATCHES.iter().filter(|(l, _, _)| *l == family(lib)).count();
        assert_eq!(
            ran,
            want * RELATIONS.len(),
            "{lib}: every pipeline, transaction and script case runs for every relation"
        );
    }
    eprintln!(
        "{} cases: {} multi-key commands across masters (and {} through \
         call/sendCommand), \
         {} pipelines/transactions, {} scripts, {} with a keyPrefix",
        cases.len(),
        n("command"),
        n("raw"),
        n("batch"),
        n("script"),
        n("prefix")
    );
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ from the documented behaviour:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// Where a method table and the server's key specs (the command key table) disagree
/// on which commands may take several keys, for every top-level command both know,
/// except the `(command, why)` pairs of `expected`.
fn disagreements_with_key_table(table: &str, expected: &[(&str, &str)]) -> Vec<String> {
    let table =
        std::fs::read_to_string(root().join("crates/keylint-javascript-data").join(table)).unwrap();
    let ours: std::collections::BTreeSet<&str> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    keylint_commands::all_commands()
        .iter()
        .filter(|cmd| cmd.container.is_none())
        .filter(|cmd| !expected.iter().any(|(name, _)| *name == cmd.name))
        .filter_map(|cmd| {
            let several = keylint_commands::may_take_several_keys(cmd);
            (several != ours.contains(cmd.name)).then(|| {
                format!(
                    "{}: the server's key specs say {several}, the table {}",
                    cmd.name, !several
                )
            })
        })
        .collect()
}

/// A JavaScript frontend reads ioredis argv with the command key table: the ioredis
/// table (from `@ioredis/commands`) must pick the same multi-key commands.
#[test]
fn ioredis_table_agrees_with_the_command_key_table() {
    let wrong = disagreements_with_key_table("ioredis_methods.txt", &[]);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The node-redis table, whose key parameters were found by running the methods,
/// picks the same multi-key commands as the server, but for two.
#[test]
fn node_redis_table_agrees_with_the_command_key_table() {
    let expected = [
        (
            "SORT_RO",
            "the BY/GET patterns the server counts as keys are options, never routed",
        ),
        (
            "WATCH",
            "a method of the client, not of the command modules the table is made from",
        ),
    ];
    let wrong = disagreements_with_key_table("node_redis_methods.txt", &expected);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
