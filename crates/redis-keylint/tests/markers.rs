//! Expectation markers: every fixture under `fixtures/` that carries markers
//! (`# expect: cross-slot`, `-- expect: none`, in the comments of the fixture's
//! language; see `keylint_core::expect`) is linted by the real binary, and its
//! findings must be exactly the marked ones, line by line.

use std::path::Path;
use std::process::Command;

/// The binary's registry of languages, the same source file.
#[allow(dead_code)]
#[path = "../src/frontends.rs"]
mod frontends;
mod support;

/// The findings of `rel` (relative to `root`), as (0-based line, rule).
fn findings(root: &Path, rel: &Path) -> Vec<(usize, keylint_core::Rule)> {
    let out = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .current_dir(root)
        .args(["check", "--no-color", "--format", "json"])
        .arg(rel)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: not JSON ({e})", rel.display()));
    json.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let line = f["line"].as_u64().unwrap() as usize - 1;
            let rule = f["rule"].as_str().unwrap();
            (line, keylint_core::Rule::from_name_or_code(rule).unwrap())
        })
        .collect()
}

#[test]
fn fixtures_with_markers_have_exactly_the_marked_findings() {
    let root = support::root();
    let marked = support::marked_fixtures();
    assert!(!marked.is_empty(), "no fixture carries markers");
    let mut failures = Vec::new();
    for f in &marked {
        for m in keylint_core::expect::compare(&f.markers, &findings(&root, &f.rel)) {
            failures.push(format!("{}:{}: {}", f.rel.display(), m.line + 1, m.message));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Rules that no fixture can show, with the reason. A fixture is a file linted with
/// the default settings, so a rule that needs other settings, or another input, would
/// be listed here.
const NO_FIXTURE: &[(&str, &str)] = &[];

/// The fixtures are grouped by rule through their markers: every rule has at least
/// one fixture whose markers expect it (the marker test above proves it fires there),
/// so `grep -rl 'expect:.*<rule>' fixtures` finds its examples and each rule's doc
/// lists them (checked by the rule_docs test).
#[test]
fn every_rule_has_a_fixture_that_expects_it() {
    let marked = support::marked_fixtures();
    let mut missing = Vec::new();
    for &rule in keylint_core::Rule::ALL {
        let exempt = NO_FIXTURE.iter().any(|(name, _)| *name == rule.name());
        let shown = marked.iter().any(|f| f.expects(rule));
        if shown == exempt {
            missing.push(if exempt {
                format!(
                    "{}: listed in NO_FIXTURE but a fixture expects it",
                    rule.name()
                )
            } else {
                format!(
                    "{}: no fixture carries `expect: {}`",
                    rule.name(),
                    rule.name()
                )
            });
        }
    }
    for (name, _) in NO_FIXTURE {
        if keylint_core::Rule::from_name_or_code(name).is_none() {
            missing.push(format!("{name}: listed in NO_FIXTURE but not a rule"));
        }
    }
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
}

/// A marker is read in the comments of the fixture's own language: in a Python file,
/// a marker on a line of embedded Lua is written after `-- #` (`-- # expect: …`),
/// since `-- expect: …` alone is no Python comment and would be silently ignored.
#[test]
fn markers_in_embedded_lua_are_read() {
    let root = support::root();
    let mut inert = Vec::new();
    for path in support::files_under(&root.join("fixtures")) {
        let Some(lang) = frontends::by_path(&path) else {
            continue;
        };
        if lang.comments().marker() == "--" {
            continue;
        }
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in source.lines().enumerate() {
            let Some(at) = line.find("-- expect:") else {
                continue;
            };
            if !line[..at].contains(lang.comments().marker()) {
                let rel = path.strip_prefix(&root).unwrap_or(&path);
                inert.push(format!(
                    "{}:{}: `-- expect:` is not read here; write `-- # expect:`",
                    rel.display(),
                    n + 1
                ));
            }
        }
    }
    assert!(inert.is_empty(), "\n{}", inert.join("\n"));
}
