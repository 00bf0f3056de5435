//! The rule docs are executable: every rule has `rules/<name>.md` and every doc a rule,
//! each doc has the fixed sections, its `## Example` triggers the rule and its
//! `Use instead:` block triggers nothing at all. Its last section, `## Fixtures`,
//! lists exactly the fixtures whose expectation markers name the rule (with
//! `KEYLINT_BLESS=1` the test writes the list).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary's registry of languages, the same source file.
#[allow(dead_code)]
#[path = "../src/frontends.rs"]
mod frontends;
mod support;

fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rules")
}

fn rule_names() -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

/// The first fenced block after `marker`: (info string, body).
fn block_after(doc: &str, marker: &str) -> Option<(String, String)> {
    let rest = &doc[doc.find(marker)? + marker.len()..];
    let open = rest.find("```")?;
    let after = &rest[open + 3..];
    let nl = after.find('\n')?;
    let info = after[..nl].trim().to_string();
    let body = &after[nl + 1..];
    let close = body.find("\n```")?;
    Some((info, body[..close + 1].to_string()))
}

/// The extension of an example's language: its info string names a frontend
/// (`python`) or one of its extensions (`redis`, `py`).
fn extension(info: &str) -> &'static str {
    let lang = frontends::FRONTENDS
        .iter()
        .find(|l| l.name() == info || l.extensions().contains(&info))
        .unwrap_or_else(|| panic!("unsupported example language `{info}`"));
    lang.extensions()[0]
}

fn findings(info: &str, body: &str) -> Vec<String> {
    let d = tempfile::tempdir().unwrap();
    let file = format!("example.{}", extension(info));
    std::fs::write(d.path().join(&file), body).unwrap();
    // Every rule, those off by default too: each example shows its own.
    let all = rule_names().join(",");
    let o = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .args(["check", "--format", "json", "--select", &all, &file])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_rule_has_a_doc_and_every_doc_a_rule() {
    let names = rule_names();
    let mut docs: Vec<String> = std::fs::read_dir(rules_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    docs.sort();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(docs, sorted);
}

#[test]
fn examples_trigger_their_rule_and_fixes_trigger_nothing() {
    let mut failures = Vec::new();
    for name in rule_names() {
        let path = rules_dir().join(format!("{name}.md"));
        let Ok(doc) = std::fs::read_to_string(&path) else {
            failures.push(format!("{name}: no doc"));
            continue;
        };
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "Use instead:",
            "## Options",
        ] {
            if !doc.contains(section) {
                failures.push(format!("{name}: missing `{section}`"));
            }
        }
        let Some((info, example)) = block_after(&doc, "## Example") else {
            failures.push(format!("{name}: no example block"));
            continue;
        };
        let got = findings(&info, &example);
        if !got.contains(&name) {
            failures.push(format!(
                "{name}: the example triggers {got:?}, not the rule"
            ));
        }
        let Some((info, fixed)) = block_after(&doc, "Use instead:") else {
            failures.push(format!("{name}: no `Use instead:` block"));
            continue;
        };
        let got = findings(&info, &fixed);
        if !got.is_empty() {
            failures.push(format!("{name}: `Use instead:` triggers {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `## Fixtures` section of the doc of `rule`: the fixtures whose markers name it.
fn fixtures_section(rule: keylint_core::Rule, marked: &[support::Marked]) -> String {
    let mut out = String::from(
        "## Fixtures\n\nThe fixtures whose `expect:` markers name this rule \
         (the `markers` test lints them):\n\n",
    );
    for f in marked.iter().filter(|f| f.expects(rule)) {
        // `/`-separated on every platform, as the docs write paths.
        let parts: Vec<_> = f.rel.iter().map(|c| c.to_string_lossy()).collect();
        out.push_str(&format!("- `{}`\n", parts.join("/")));
    }
    out
}

#[test]
fn each_doc_lists_the_fixtures_that_expect_its_rule() {
    let marked = support::marked_fixtures();
    let bless = std::env::var_os("KEYLINT_BLESS").is_some();
    let mut failures = Vec::new();
    for &rule in keylint_core::Rule::ALL {
        let path = rules_dir().join(format!("{}.md", rule.name()));
        let doc = std::fs::read_to_string(&path).unwrap();
        let want = fixtures_section(rule, &marked);
        // The section is the doc's last: `explain` leaves it out.
        let (body, got) = match doc.find("\n## Fixtures\n") {
            Some(i) => (&doc[..i + 1], &doc[i + 1..]),
            None => (doc.as_str(), ""),
        };
        if got == want {
            continue;
        }
        if bless {
            std::fs::write(&path, format!("{}\n\n{want}", body.trim_end())).unwrap();
        } else {
            failures.push(format!(
                "rules/{}.md: the `## Fixtures` section should be:\n{want}",
                rule.name()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(KEYLINT_BLESS=1 writes the sections)",
        failures.join("\n")
    );
}
