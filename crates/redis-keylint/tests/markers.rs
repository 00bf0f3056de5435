//! Expectation markers: every fixture under `fixtures/` that carries markers
//! (`# expect: cross-slot`, `-- expect: none`, in the comments of the fixture's
//! language; see `keylint_core::expect`) is linted by the real binary, and its
//! findings must be exactly the marked ones, line by line.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary's registry of languages, the same source file.
#[allow(dead_code)]
#[path = "../src/frontends.rs"]
mod frontends;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

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
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root.join("fixtures"), &mut all);
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &all {
        let Some(lang) = frontends::by_path(path) else {
            continue;
        };
        let Ok(source) = std::fs::read_to_string(path) else {
            continue;
        };
        let markers = keylint_core::expect::parse(&source, lang);
        if markers.is_empty() {
            continue;
        }
        checked += 1;
        let rel = path.strip_prefix(&root).unwrap();
        for m in keylint_core::expect::compare(&markers, &findings(&root, rel)) {
            failures.push(format!("{}:{}: {}", rel.display(), m.line + 1, m.message));
        }
    }
    assert!(checked > 0, "no fixture carries markers");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
