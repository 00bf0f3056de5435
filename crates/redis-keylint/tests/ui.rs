//! UI tests: every file under `fixtures/` is linted by the real binary and its output
//! compared with the snapshot beside it (`<file>.snap`: exit status and stdout).
//!
//! A missing or stale snapshot fails. To accept new output, run
//! `KEYLINT_BLESS=1 cargo test -p redis-keylint --test ui` and review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary's registry of languages, the same source file: a fixture is linted
/// when a frontend reads its extension.
#[allow(dead_code)]
#[path = "../src/frontends.rs"]
mod frontends;
mod support;

fn render(root: &Path, rel: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .current_dir(root)
        .args(["check", "--no-color"])
        .arg(rel)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}: unexpected stderr:\n{}",
        rel.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    format!(
        "exit: {}\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap()
    )
}

#[test]
fn fixtures_match_snapshots() {
    let root = support::root();
    let all = support::files_under(&root.join("fixtures"));
    let bless = std::env::var_os("KEYLINT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &all {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext == "snap" {
            let source = path.with_extension("");
            if !source.exists() {
                failures.push(format!("{}: snapshot without a fixture", path.display()));
            }
            continue;
        }
        if frontends::by_path(path).is_none() {
            continue;
        }
        checked += 1;
        let rel = path.strip_prefix(&root).unwrap();
        let actual = render(&root, rel);
        let snap = PathBuf::from(format!("{}.snap", path.display()));
        if bless {
            std::fs::write(&snap, &actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snap) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{}: output differs from the snapshot\n--- expected\n{expected}\n--- actual\n{actual}",
                rel.display()
            )),
            Err(_) => failures.push(format!(
                "{}: no snapshot; run with KEYLINT_BLESS=1 and review it\n{actual}",
                rel.display()
            )),
        }
    }
    assert!(checked > 0, "no fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
