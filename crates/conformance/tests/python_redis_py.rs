//! Live conformance for Python code: the fixtures under `fixtures/python/` run against
//! a real three-master cluster with the real redis-py, and the functions that redis-py
//! refuses for spanning slots must be exactly the ones the linter reports.
//!
//! The test creates its own virtual environment (under Cargo's test temp dir) and
//! installs redis-py from PyPI, pinned to the major version the method table was
//! checked against; it fails, loudly, when that is impossible. Then:
//!
//! 1. `scripts/check-redis-py-methods.py` checks the linter's redis-py method table
//!    against the installed redis-py and the cluster (signatures, key positions
//!    through `COMMAND GETKEYS`, what `RedisCluster` and its pipelines do across
//!    slots), and the linter's one-key rule is compared, method by method, with the
//!    script's;
//! 2. `tests/data/python/run_cases.py` imports every fixture module and calls each
//!    top-level `case_*(r)` with a `RedisCluster` (an asyncio one for `async def`),
//!    recording whether it raised a redis-py slot error (`RedisClusterException` "all
//!    keys must map to the same key slot", `CrossSlotTransactionError`, `CROSSSLOT`);
//! 3. the linter's verdict on each case is the `cross-slot` (proven) or
//!    `cross-slot-likely` finding whose unit starts inside the function. A proven or
//!    likely verdict must meet a slot error and no verdict must meet success (as must a
//!    "not atomic on a cluster" warning on a default `pipeline()`, which the cluster
//!    client runs per node); a case
//!    that fails for any other reason is a broken fixture. Every disagreement fails
//!    the test. (A `cross-slot` warning on a script without a shebang says the keys
//!    work only while their slots share a node: either outcome agrees with it.) A
//!    case the server refuses for a script call's numkeys must meet a
//!    `script-keys-mismatch` numkeys finding, and that finding nothing else.

use conformance::{run_ok as run, Cluster};
use keylint_core::rules::{check, Settings};
use keylint_core::{Rule, Severity};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary's file loader, so that modules load `.lua` files as they do when linted.
#[path = "../../redis-keylint/src/loader.rs"]
mod loader;

/// The redis-py versions the method table was checked against. redis-py 8.2 changed
/// what a cluster pipeline does with `EVALSHA` (queued, refused only across slots),
/// `EXISTS` (no longer refused across slots) and `TOUCH` (queued, no longer run at
/// once); the table does not say that yet, so the test installs a version it agrees
/// with.
const REDIS_PY: &str = "redis>=8.0,<8.2";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// A virtual environment `name` under Cargo's test temp dir with `packages` installed
/// from PyPI, made once per target dir: kept while the Python check `ready` exits 0,
/// made again otherwise. `what` names the packages in the failure messages.
fn venv_with(name: &str, ready: &str, packages: &[&str], what: &str) -> PathBuf {
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let py = venv_python(&venv);
    let is_ready = py.exists()
        && Command::new(&py)
            .args(["-c", ready])
            .status()
            .is_ok_and(|s| s.success());
    if !is_ready {
        let _ = std::fs::remove_dir_all(&venv);
        run(
            Command::new(&python).arg("-m").arg("venv").arg(&venv),
            &format!(
                "creating a Python virtual environment for {what} (the live Python tests \
                 need python3 with the venv module; set PYTHON to use another interpreter)"
            ),
        );
        run(
            Command::new(&py)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--quiet",
                ])
                .args(packages),
            &format!("installing {what} from PyPI into the test's virtual environment"),
        );
    }
    py
}

/// A virtual environment with redis-py, made once per target dir.
fn redis_py_venv() -> PathBuf {
    let py = venv_with(
        "redis-py-venv",
        "import redis, sys; sys.exit(0 if redis.__version__.startswith(('8.0.', '8.1.')) else 1)",
        &[REDIS_PY],
        "redis-py",
    );
    let version = run(
        Command::new(&py).args(["-c", "import redis; print(redis.__version__)"]),
        "importing redis-py",
    );
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("redis-py-venv");
    eprintln!("redis-py {} in {}", version.trim(), venv.display());
    py
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    None,
    /// A default `pipeline()` the cluster client runs per node: it works there, and
    /// is only not atomic.
    NotAtomic,
    /// A script's key in another slot that works while the slots share a node.
    SameNode,
    Likely,
    Proven,
    /// A script call whose numkeys the server refuses (`script-keys-mismatch`).
    Numkeys,
    /// A `SORT` pattern a node refuses (`sort-pattern`).
    SortPattern,
}

/// The linter's verdict per line of the file where a slot finding's unit starts.
fn verdicts(path: &Path) -> Vec<(usize, Verdict, String)> {
    let source = std::fs::read_to_string(path).unwrap();
    let dir = path.parent().unwrap();
    let loader = loader::DirLoader::new(dir);
    // As the binary runs it by default: a client the code does not show is a
    // RedisCluster.
    let options = keylint_python::Options {
        default_client: Some(keylint_python::ClientProfile::Cluster),
        ..keylint_python::Options::default()
    };
    let model = keylint_python::lower_with(&source, &options, Some(&loader));
    let line_of = |off: usize| source[..off.min(source.len())].matches('\n').count() + 1;
    check(&model, &Settings::default())
        .into_iter()
        .filter_map(|f| {
            let v = match (f.rule, f.severity) {
                (Rule::CrossSlot | Rule::CrossSlotLikely, _)
                    if f.message.ends_with("on a cluster it is not atomic") =>
                {
                    Verdict::NotAtomic
                }
                (Rule::CrossSlot, Severity::Error) => Verdict::Proven,
                (Rule::CrossSlot, _) => Verdict::SameNode,
                (Rule::CrossSlotLikely, _) => Verdict::Likely,
                (Rule::ScriptKeysMismatch, _) if f.message.starts_with("numkeys ") => {
                    Verdict::Numkeys
                }
                (Rule::SortPattern, _) => Verdict::SortPattern,
                _ => return None,
            };
            let at = f.unit.clone().unwrap_or(f.primary.span.clone()).start;
            Some((line_of(at), v, f.message.clone()))
        })
        .collect()
}

/// The method table against the installed redis-py: the linter's one-key rule says
/// of every `redis.Redis` method what the script finds.
fn method_table_agrees(py: &Path, port: &str, root: &Path) {
    let dump = Path::new(env!("CARGO_TARGET_TMPDIR")).join("redis-py-methods.json");
    let out = run(
        Command::new(py)
            .current_dir(root)
            .args([
                "-W",
                "ignore",
                "scripts/check-redis-py-methods.py",
                "--port",
                port,
                "--json",
            ])
            .arg(&dump),
        "scripts/check-redis-py-methods.py (the method table disagrees with redis-py)",
    );
    eprint!("{out}");
    let methods: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let one_key: Vec<&str> = methods["one_key"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut rule_disagreements = Vec::new();
    let all = methods["methods"].as_array().unwrap();
    for m in all {
        let m = m.as_str().unwrap();
        let ours = keylint_python::methods::single_key_command(m).is_some();
        if ours != one_key.contains(&m) {
            rule_disagreements.push(format!(
                "{m}: the linter's one-key rule says {ours}, the script's {}",
                !ours
            ));
        }
    }
    assert!(
        rule_disagreements.is_empty(),
        "{}",
        rule_disagreements.join("\n")
    );
    eprintln!(
        "one-key rule: {} of {} redis.Redis methods, same as the script",
        one_key.len(),
        all.len()
    );
}

/// Runs the cases of the Python fixtures against the cluster: how many files, and
/// each case's outcome as `run_cases.py` reports it.
fn run_fixture_cases(py: &Path, port: &str, root: &Path) -> (usize, Vec<serde_json::Value>) {
    let dir = root.join("fixtures/python");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no Python fixtures");
    let report = run(
        Command::new(py)
            .current_dir(root)
            .arg("crates/conformance/tests/data/python/run_cases.py")
            .args(["--port", port])
            .args(&files),
        "running the fixtures' cases against the cluster",
    );
    let cases: serde_json::Value = serde_json::from_str(&report).unwrap();
    (files.len(), cases.as_array().unwrap().clone())
}

/// Whether redis-py's outcome and the linter's verdict agree.
fn agree(outcome: &str, verdict: Verdict) -> bool {
    match (outcome, verdict) {
        ("slot", Verdict::Proven | Verdict::Likely) => true,
        ("numkeys", Verdict::Numkeys) => true,
        ("sort", Verdict::SortPattern) => true,
        ("ok", Verdict::None | Verdict::NotAtomic) => true,
        // Depends on which node serves which slot: either outcome is right.
        ("slot" | "ok", Verdict::SameNode) => true,
        _ => false,
    }
}

/// What a disagreement says: redis-py's outcome, the linter's verdict, and the error
/// or the findings of the case.
fn disagreement(
    c: &serde_json::Value,
    rel: &str,
    verdict: Verdict,
    inside: &[&(usize, Verdict, String)],
) -> String {
    let outcome = c["outcome"].as_str().unwrap();
    format!(
        "{rel}:{} {}: redis-py {}, linter {}{}",
        c["first_line"],
        c["name"].as_str().unwrap(),
        match outcome {
            "slot" => "raised a slot error".to_string(),
            "ok" => "accepted it".to_string(),
            "numkeys" => "refused its numkeys".to_string(),
            "sort" => "was refused a SORT pattern".to_string(),
            _ => format!("failed for another reason: {}", c["message"]),
        },
        match verdict {
            Verdict::Proven => "reports cross-slot",
            Verdict::SameNode => "warns the keys need one node",
            Verdict::Likely => "reports cross-slot-likely",
            Verdict::NotAtomic => "warns it is not atomic on a cluster",
            Verdict::Numkeys => "reports a refused numkeys",
            Verdict::SortPattern => "reports a refused SORT pattern",
            Verdict::None => "is silent",
        },
        if outcome == "slot" {
            format!(" ({})", c["message"].as_str().unwrap_or(""))
        } else {
            inside
                .iter()
                .map(|(l, _, m)| format!(" [line {l}: {m}]"))
                .collect::<String>()
        }
    )
}

/// The cases, counted by (outcome, verdict).
struct Counts(BTreeMap<(&'static str, Verdict), usize>);

impl Counts {
    fn get(&self, outcome: &str, verdict: Verdict) -> usize {
        self.0.get(&(outcome, verdict)).copied().unwrap_or(0)
    }

    fn sum(&self, keep: impl Fn(&str, Verdict) -> bool) -> usize {
        self.0
            .iter()
            .filter(|((o, v), _)| keep(o, *v))
            .map(|(_, n)| n)
            .sum()
    }

    fn outcome(&self, outcome: &str) -> usize {
        self.sum(|o, _| o == outcome)
    }
}

#[test]
fn redis_py_refuses_exactly_what_is_reported() {
    let py = redis_py_venv();
    let cluster = Cluster::start();
    let port = cluster.ports()[0].to_string();
    let root = root();
    method_table_agrees(&py, &port, &root);
    let (files, cases) = run_fixture_cases(&py, &port, &root);

    let mut by_file: BTreeMap<String, Vec<(usize, Verdict, String)>> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut counts = Counts(BTreeMap::new());
    for c in &cases {
        let file = c["file"].as_str().unwrap().to_string();
        let found = by_file
            .entry(file.clone())
            .or_insert_with(|| verdicts(Path::new(&file)));
        let (first, last) = (
            c["first_line"].as_u64().unwrap() as usize,
            c["last_line"].as_u64().unwrap() as usize,
        );
        let inside: Vec<&(usize, Verdict, String)> = found
            .iter()
            .filter(|(l, _, _)| (first..=last).contains(l))
            .collect();
        let verdict = inside
            .iter()
            .map(|(_, v, _)| *v)
            .max()
            .unwrap_or(Verdict::None);
        let outcome = c["outcome"].as_str().unwrap();
        let rel = Path::new(&file)
            .strip_prefix(&root)
            .map(|p| p.display().to_string())
            .unwrap_or(file.clone());
        let outcome_key: &'static str = match outcome {
            "slot" => "slot",
            "ok" => "ok",
            "numkeys" => "numkeys",
            "sort" => "sort",
            _ => "error",
        };
        *counts.0.entry((outcome_key, verdict)).or_default() += 1;
        if !agree(outcome, verdict) {
            disagreements.push(disagreement(c, &rel, verdict, &inside));
        }
    }
    let total = cases.len();
    eprintln!(
        "{files} fixture files, {total} cases: {} raised a slot error ({} reported cross-slot, {} \
         cross-slot-likely), {} accepted ({} with no finding); {} other failures; {} \
         script keys that need one node ({} raised, {} accepted); {} refused numkeys ({} \
         reported); {} refused SORT patterns ({} reported)",
        counts.outcome("slot"),
        counts.get("slot", Verdict::Proven),
        counts.get("slot", Verdict::Likely),
        counts.outcome("ok"),
        counts.get("ok", Verdict::None),
        counts.outcome("error"),
        counts.sum(|_, v| v == Verdict::SameNode),
        counts.get("slot", Verdict::SameNode),
        counts.get("ok", Verdict::SameNode),
        counts.outcome("numkeys"),
        counts.get("numkeys", Verdict::Numkeys),
        counts.outcome("sort"),
        counts.get("sort", Verdict::SortPattern),
    );
    assert!(total > 0, "no cases ran");
    assert!(
        disagreements.is_empty(),
        "{} of {total} cases disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// The valkey-py versions the name mapping was checked against.
const VALKEY_PY: &str = "valkey>=6.0,<7";

/// A virtual environment with valkey-py beside redis-py, made once per target dir (its
/// own, so that it is never made while the redis-py test makes the other).
fn valkey_py_venv() -> PathBuf {
    venv_with(
        "valkey-py-venv",
        "import redis, valkey, sys; sys.exit(0 if valkey.__version__.startswith('6.') \
         and redis.__version__.startswith(('8.0.', '8.1.')) else 1)",
        &[VALKEY_PY, REDIS_PY],
        "valkey-py and redis-py",
    )
}

/// valkey-py is read as redis-py under other names (`valkey.Valkey` is `redis.Redis`,
/// `ValkeyCluster` is `RedisCluster`): the renamed classes must be where redis-py's
/// are, behave as the linter says (a standalone `pipeline()` is a transaction, a
/// cluster one is not), and the cluster client must refuse what the linter reports
/// across slots. The fixture `fixtures/python/valkey_clients/` shows the findings.
#[test]
fn valkey_py_is_redis_py_renamed() {
    let out = run_facts(&valkey_py_venv(), "valkey_facts.py", "valkey-py");
    assert!(out.contains("ok   a script over keys in two slots is refused"));
}

/// Runs `tests/data/python/<script>` with `py` against the first node of a new cluster
/// (`--port`), failing with what it printed when a fact of `client` does not hold.
fn run_facts(py: &Path, script: &str, client: &str) -> String {
    let cluster = Cluster::start();
    let port = cluster.ports()[0].to_string();
    let path = format!("crates/conformance/tests/data/python/{script}");
    let out = run(
        Command::new(py)
            .current_dir(root())
            .args(["-W", "ignore", &path, "--port", &port]),
        &format!("{path} ({client} does not behave as the linter reads it)"),
    );
    eprint!("{out}");
    out
}

/// The aioredis version the dialect was checked against (1.x: `multi_exec()`).
const AIOREDIS1: &str = "aioredis==1.3.1";

/// aioredis 1.x, read in files of projects written for it (see
/// `fixtures/python/aioredis1_transactions/`): its `multi_exec()` must be a
/// transaction a cluster node refuses across slots, and its `pipeline()` (which takes
/// no argument) a plain batch that the same node runs.
#[test]
fn aioredis1_multi_exec_is_the_transaction_and_pipeline_a_batch() {
    let py = venv_with(
        "aioredis1-venv",
        "import aioredis, sys; sys.exit(0 if aioredis.__version__ == '1.3.1' else 1)",
        &[AIOREDIS1],
        "aioredis 1.x",
    );
    let out = run_facts(&py, "aioredis1_facts.py", "aioredis 1.x");
    assert!(out.contains("ok   multi_exec() over two slots is a transaction the node refuses"));
    assert!(out.contains("ok   pipeline() over two slots of one node runs"));
}
