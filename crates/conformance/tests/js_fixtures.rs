//! Live conformance for JavaScript code: the fixtures under `fixtures/javascript/` run
//! against a real three-master cluster with the real ioredis and node-redis, and the
//! cases that fail for spanning slots must be exactly the ones the linter reports.
//!
//! The test installs the packages of `fixtures/javascript/package.json` (ioredis 6,
//! node-redis 6) as `js_clients.rs` does; it skips, with a message, only when `node`
//! or `npm` is missing, and fails instead when `CI` is set. Then:
//!
//! 1. `tests/data/javascript/run_cases.js` loads each CommonJS fixture
//!    (`fixtures/javascript/*.js`), whose `cluster` export is a cluster client of its
//!    library built from `KEYLINT_CLUSTER_PORT`, and calls every `exports.case_*`
//!    function, recording whether it failed and with which error;
//! 2. the linter's verdict on each case is the `cross-slot` or `cross-slot-likely`
//!    finding whose unit starts inside the function (from its `exports.case_… =` line
//!    to the `};` that closes it), with the node-redis major of the fixtures'
//!    package.json and the project modules the fixture imports, as the binary reads
//!    them (`modules.js` takes its cluster client and keys from `modules/lib/`);
//! 3. a `cross-slot` warning on a pipeline (ioredis `pipeline()`, node-redis
//!    `execAsPipeline()`) says the outcome depends on which node serves each slot:
//!    either outcome agrees with it; otherwise a case that fails with a slot error (`CROSSSLOT`, ioredis' "same slot" and
//!    "same slots allocation group" checks, node-redis' `Too many Cluster
//!    redirections` and `MOVED`) must have a verdict, a case that works must have
//!    none, and a case that fails otherwise is a broken fixture.

use conformance::{run_ok as run, Cluster};
use keylint_core::rules::{check, Settings};
use keylint_core::{Rule, Severity};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Installs the Node.js clients (shared with `js_clients.rs`).
#[path = "common/npm.rs"]
mod npm;

/// The binary's file loader, so that modules load `.lua` files as they do when linted.
#[path = "../../redis-keylint/src/loader.rs"]
mod loader;

/// The binary's module loader, so that a fixture reads the project modules it imports
/// as it does when linted.
#[path = "../../redis-keylint/src/project.rs"]
#[allow(dead_code)]
mod project;

/// What the module loader asks of the binary's cache (a text's hash, unused here).
mod cache {
    pub fn text_hash(_: &str) -> u128 {
        0
    }
}

/// What the module loader asks of the binary's search for hash tags (unused here).
mod tags {
    pub fn of_project(_: &std::path::Path) -> keylint_core::model::ProjectTags {
        keylint_core::model::ProjectTags::Written
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The major of the `redis` dependency in the fixtures' package.json.
fn node_redis_major(dir: &Path) -> Option<u32> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).ok()?).ok()?;
    let spec = manifest["dependencies"]["redis"].as_str()?;
    spec.trim_start_matches(['^', '~'])
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The lines where a `cross-slot` or `cross-slot-likely` finding's unit starts, and
/// whether the finding says the outcome depends on which node serves each slot (a
/// `cross-slot` warning on a pipeline: either outcome agrees with it).
fn verdict_lines(path: &Path) -> Vec<(usize, String, bool)> {
    let source = std::fs::read_to_string(path).unwrap();
    let dir = path.parent().unwrap();
    let options = keylint_javascript::Options {
        node_redis_major: node_redis_major(dir),
        ..Default::default()
    };
    let files = loader::DirLoader::new(dir);
    let modules: std::sync::Arc<dyn keylint_core::frontend::ModuleLoader> =
        std::sync::Arc::new(project::Loader::default());
    let project = keylint_javascript::Project::new(modules);
    let module = project::module_name(path).unwrap();
    let model = keylint_core::frontend::with_stack(
        false,
        "fixture",
        keylint_javascript::STACK_SIZE,
        || {
            keylint_javascript::lower_in_project(
                &source,
                keylint_javascript::Dialect::JavaScript,
                &options,
                Some(&files),
                &project,
                &module,
            )
        },
    )
    .model;
    let line_of = |off: usize| source[..off.min(source.len())].matches('\n').count() + 1;
    check(&model, &Settings::default())
        .into_iter()
        .filter(|f| matches!(f.rule, Rule::CrossSlot | Rule::CrossSlotLikely))
        .map(|f| {
            let at = f.unit.clone().unwrap_or(f.primary.span.clone()).start;
            let placement = f.rule == Rule::CrossSlot && f.severity == Severity::Warning;
            (line_of(at), f.message.clone(), placement)
        })
        .collect()
}

/// Each `exports.case_NAME = …` of a fixture with its first and last line.
fn case_lines(source: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(rest) = l.strip_prefix("exports.case_") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let end = (i..lines.len())
            .find(|&j| lines[j] == "};")
            .unwrap_or(lines.len() - 1);
        out.push((format!("case_{name}"), i + 1, end + 1));
    }
    out
}

/// An error a cluster client or server gives for keys in several slots.
fn is_slot_error(e: &str) -> bool {
    [
        "CROSSSLOT",
        "same slot",
        "slots allocation group",
        "Too many Cluster redirections",
        "MOVED",
        "non local key",
    ]
    .iter()
    .any(|m| e.contains(m))
}

#[test]
fn clients_fail_exactly_where_findings_are() {
    let Some(packages) = npm::installed_packages() else {
        return;
    };
    let root = root();
    let dir = root.join("fixtures/javascript");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no JavaScript fixtures");
    let cluster = Cluster::start();
    let port = cluster.ports()[0].to_string();
    let mut wrong = Vec::new();
    let mut total = 0;
    let mut failing = 0;
    let mut placement = 0;
    for file in &files {
        let report = run(
            Command::new("node")
                .env("NODE_PATH", packages.join("node_modules"))
                .arg(root.join("crates/conformance/tests/data/javascript/run_cases.js"))
                .arg(file)
                .arg(&port),
            "running a JavaScript fixture's cases against the cluster",
        );
        let report: serde_json::Value = serde_json::from_str(report.trim()).unwrap();
        let source = std::fs::read_to_string(file).unwrap();
        let ranges = case_lines(&source);
        let verdicts = verdict_lines(file);
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        let cases = report["cases"].as_array().unwrap();
        assert_eq!(
            cases.len(),
            ranges.len(),
            "{rel}: every `exports.case_*` ran"
        );
        for c in cases {
            total += 1;
            let name = c["name"].as_str().unwrap();
            let Some((_, first, last)) = ranges.iter().find(|(n, _, _)| n == name) else {
                wrong.push(format!("{rel}: {name}: not found in the source"));
                continue;
            };
            let inside: Vec<&(usize, String, bool)> = verdicts
                .iter()
                .filter(|(l, _, _)| (*first..=*last).contains(l))
                .collect();
            if !inside.is_empty() && inside.iter().all(|(_, _, p)| *p) {
                // Works while the slots share a node: either outcome agrees, but a
                // failure must still be a slot error.
                if let Some(e) = c["error"].as_str().filter(|e| !is_slot_error(e)) {
                    wrong.push(format!("{rel}:{first}: {name}: broken fixture: {e}"));
                }
                placement += 1;
                continue;
            }
            let found: Vec<&String> = inside.iter().map(|(_, m, _)| m).collect();
            let error = c["error"].as_str();
            if error.is_some() {
                failing += 1;
            }
            match (error, found.is_empty()) {
                (None, true) => {}
                (Some(e), false) if is_slot_error(e) => {}
                (Some(e), _) if !is_slot_error(e) => {
                    wrong.push(format!("{rel}:{first}: {name}: broken fixture: {e}"))
                }
                (Some(e), _) => wrong.push(format!(
                    "{rel}:{first}: {name} failed ({e}) but nothing is reported"
                )),
                (None, false) => wrong.push(format!(
                    "{rel}:{first}: {name} worked but is reported: {}",
                    found[0]
                )),
            }
        }
    }
    eprintln!(
        "{total} cases in {} fixtures, {failing} failing with a slot error, {placement} \
         depending on slot placement",
        files.len()
    );
    assert!(
        wrong.is_empty(),
        "{} of {total} cases disagree with the findings:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
