//! End-to-end tests of what a team needs to adopt the linter: configuration,
//! suppressions, baselines, SARIF and GitHub output, `--fix-suggest`, standard input.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_redis-keylint"));
    c.env_remove("NO_COLOR");
    c
}

fn run(args: &[&str], dir: &Path) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", out(o), err(o)))
}

fn write(dir: &Path, name: &str, content: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

fn rules_of(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["rule"].as_str().unwrap(), f["line"]))
        .collect()
}

#[test]
fn suppressions_on_the_line_above_and_file_level() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.redis",
        "# redis-keylint: ignore[cross-slot]\nMGET a b\nMGET c d\n# redis-keylint: ignore[RK101]\nGET x\n",
    );
    let o = run(&["check", "--format", "json", "a.redis"], d.path());
    assert_eq!(
        rules_of(&json(&o)),
        ["cross-slot:3", "unused-suppression:4"],
        "the first MGET is suppressed, the second is not, the unused one is reported"
    );
    write(
        d.path(),
        "b.redis",
        "# redis-keylint: ignore-file[cross-slot]\nMGET a b\nMGET c d\n",
    );
    let o = run(&["check", "b.redis"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    // A rule that is not running does not make its suppression "unused".
    let o = run(
        &["check", "--format", "json", "--ignore", "RK101", "a.redis"],
        d.path(),
    );
    assert_eq!(rules_of(&json(&o)), ["cross-slot:3"]);
}

#[test]
fn config_is_found_by_walking_up_and_errors_name_the_place() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "redis-keylint.toml",
        "ignore = [\"empty-hash-tag\"]\nextend-exclude = [\"vendor\"]\n[severity]\ncross-slot = \"warning\"\n[per-file-ignores]\n\"legacy/*\" = [\"nested-hash-tag\"]\n",
    );
    write(d.path(), "src/deep/a.redis", "MGET a b\nSET x{} 1\n");
    write(d.path(), "vendor/v.redis", "MGET a b\n");
    write(d.path(), "legacy/l.redis", "SET x{{y}} 1\n");
    let o = run(&["check", "--format", "json", "."], d.path());
    let v = json(&o);
    assert_eq!(rules_of(&v), ["cross-slot:1"], "{v}");
    assert_eq!(v[0]["severity"], "warning");
    assert_eq!(o.status.code(), Some(0), "a warning does not fail the run");
    assert_eq!(
        run(&["check", "--deny-warnings", "."], d.path())
            .status
            .code(),
        Some(1),
        "unless asked"
    );
    // The nearest config wins, from any working directory.
    write(
        d.path(),
        "src/redis-keylint.toml",
        "select = [\"empty-hash-tag\"]\n",
    );
    let o = run(
        &["check", "--format", "json", "deep"],
        &d.path().join("src"),
    );
    assert_eq!(rules_of(&json(&o)), ["empty-hash-tag:2"]);
    // A named file is linted even when excluded.
    let o = run(&["check", "--format", "json", "vendor/v.redis"], d.path());
    assert_eq!(rules_of(&json(&o)), ["cross-slot:1"]);

    write(
        d.path(),
        "src/redis-keylint.toml",
        "select = [\"cross-slot\"]\n\nseverity = 3\n",
    );
    let o = run(&["check", "src"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("redis-keylint.toml:3:"), "{}", err(&o));
    write(
        d.path(),
        "src/redis-keylint.toml",
        "selekt = [\"cross-slot\"]\n",
    );
    let o = run(&["check", "src"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("redis-keylint.toml:1:1: unknown field `selekt`"),
        "{}",
        err(&o)
    );
}

#[test]
fn pyproject_and_explicit_config() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pyproject.toml",
        "[project]\nname = \"x\"\n[tool.redis-keylint]\nignore = [\"cross-slot\"]\n",
    );
    write(d.path(), "a.redis", "MGET a b\n");
    assert_eq!(run(&["check", "a.redis"], d.path()).status.code(), Some(0));
    write(d.path(), "strict.toml", "select = [\"cross-slot\"]\n");
    let o = run(&["check", "--config", "strict.toml", "a.redis"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["check", "--config", "missing.toml", "a.redis"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("missing.toml"));
    write(
        d.path(),
        "bad.toml",
        "[broad-hash-tag]\nidentities = \"tenant\"\n",
    );
    let o = run(&["check", "--config", "bad.toml", "a.redis"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("bad.toml:2:"), "{}", err(&o));
}

#[test]
fn baseline_survives_shifted_lines_and_reports_new_findings() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.redis", "MGET a b\nMGET c d\n");
    let o = run(&["check", "--write-baseline", "base.json", "."], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("wrote 2 findings to the baseline base.json"));
    assert_eq!(
        run(&["check", "--baseline", "base.json", "."], d.path())
            .status
            .code(),
        Some(0)
    );
    // Unrelated edits shift the lines; one new mistake is added, and a copy of an old one.
    write(
        d.path(),
        "a.redis",
        "# a new comment\n\nGET z\nMGET a b\nMGET   c d\nMGET e f\nMGET a b\n",
    );
    let o = run(
        &["check", "--format", "json", "--baseline", "base.json", "."],
        d.path(),
    );
    assert_eq!(rules_of(&json(&o)), ["cross-slot:6", "cross-slot:7"]);
    assert_eq!(o.status.code(), Some(1));
    write(d.path(), "broken.json", "{");
    assert_eq!(
        run(&["check", "--baseline", "broken.json", "."], d.path())
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn sarif_is_a_valid_code_scanning_log() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "sub/a.redis",
        "SET x{}y 1\nMGET user:1:a user:1:b\n",
    );
    let o = run(&["check", "--format", "sarif", "."], d.path());
    let v = json(&o);
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run0 = &v["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules
        .iter()
        .any(|r| r["id"] == "RK001" && r["name"] == "cross-slot"));
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "sub/a.redis");
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(loc["region"][k].as_u64().unwrap() >= 1);
        }
        assert!(r["message"]["text"].is_string());
        assert!(r["partialFingerprints"].as_object().unwrap().len() == 1);
    }
    assert_eq!(results[1]["level"], "error");
    assert_eq!(results[0]["level"], "warning");
    // Fingerprints do not depend on line numbers.
    let fp = results[1]["partialFingerprints"].clone();
    write(
        d.path(),
        "sub/a.redis",
        "\n\nSET x{}y 1\nMGET user:1:a user:1:b\n",
    );
    let v = json(&run(&["check", "--format", "sarif", "."], d.path()));
    assert_eq!(v["runs"][0]["results"][1]["partialFingerprints"], fp);
}

#[test]
fn github_annotations() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.redis",
        "MGET user:1000:profile user:1000:cart\n",
    );
    let s = out(&run(&["check", "--format", "github", "a.redis"], d.path()));
    let line = s.lines().next().unwrap();
    assert!(
        line.starts_with("::error file=a.redis,line=1,col=24,endLine=1,endColumn=38,title=RK001 cross-slot::keys of `MGET` are in different hash slots%0Aslot 7185%0Ahelp: "),
        "{line}"
    );
}

#[test]
fn fix_suggest_inline_and_a_diff_that_applies() {
    let d = tempfile::tempdir().unwrap();
    let src = "# runbook\nMGET user:1000:profile user:1000:cart\nRENAME \"order 7:new\" \"order 7:paid\"\nMGET stats:a stats:b\n";
    write(d.path(), "a.redis", src);
    let s = out(&run(&["check", "--fix-suggest", "a.redis"], d.path()));
    assert!(s.contains("help: add the hash tag `user:1000`"), "{s}");
    assert!(
        s.contains("2 │ MGET {user:1000}:profile {user:1000}:cart"),
        "{s}"
    );
    assert!(
        s.contains("the keys share only the constant `stats`"),
        "{s}"
    );
    let o = run(&["check", "--fix-suggest=diff", "a.redis"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let diff = out(&o);
    assert!(diff.starts_with("--- a/a.redis\n+++ b/a.redis\n"), "{diff}");
    assert!(
        diff.contains("+RENAME \"{order 7}:new\" \"{order 7}:paid\"\n"),
        "{diff}"
    );
    // The linter never writes the file; the diff applies cleanly.
    assert_eq!(
        std::fs::read_to_string(d.path().join("a.redis")).unwrap(),
        src
    );
    let mut patch = Command::new("patch")
        .args(["-p1", "--quiet"])
        .current_dir(d.path())
        .stdin(Stdio::piped())
        .spawn()
        .expect("patch(1) is needed for this test");
    use std::io::Write;
    patch
        .stdin
        .take()
        .unwrap()
        .write_all(diff.as_bytes())
        .unwrap();
    assert!(patch.wait().unwrap().success());
    let o = run(
        &[
            "check",
            "--format",
            "json",
            "--select",
            "cross-slot",
            "a.redis",
        ],
        d.path(),
    );
    assert_eq!(
        rules_of(&json(&o)),
        ["cross-slot:4"],
        "only the unfixable one is left"
    );
}

#[test]
fn standard_input() {
    let d = tempfile::tempdir().unwrap();
    let lint = |args: &[&str], input: &str| {
        let mut c = bin()
            .args(args)
            .current_dir(d.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        c.wait_with_output().unwrap()
    };
    let o = lint(
        &[
            "check",
            "--format",
            "json",
            "--stdin-filename",
            "ops/x.redis",
            "-",
        ],
        "MGET a b\n",
    );
    assert_eq!(json(&o)[0]["path"], "ops/x.redis");
    assert_eq!(o.status.code(), Some(1));
    let o = lint(&["check", "-"], "MGET a b\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--stdin-filename"));
}

#[test]
fn completions_and_version() {
    let d = tempfile::tempdir().unwrap();
    let o = run(&["completions", "bash"], d.path());
    assert!(o.status.success());
    assert!(out(&o).contains("redis-keylint"));
    let o = run(&["--version"], d.path());
    // `redis-keylint 0.1.0`, then `(commit date)` when built from a git checkout.
    let v = out(&o);
    let v = v.trim();
    let rest = v
        .strip_prefix(&format!("redis-keylint {}", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{v}"));
    assert!(
        rest.is_empty() || (rest.starts_with(" (") && rest.ends_with(')')),
        "{v}"
    );
}
