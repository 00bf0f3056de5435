//! End-to-end tests of the command line: arguments in, stdout and exit status out.

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

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// The rules of the findings of `check --format json --cache-dir cache file`, run in
/// `tree`.
fn cached_rules(tree: &Path, cache: &str, file: &str) -> Vec<String> {
    let o = run(
        &["check", "--format", "json", "--cache-dir", cache, file],
        tree,
    );
    json(&o)
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

fn write(dir: &Path, name: &str, content: &[u8]) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

#[test]
fn slot_explains_the_tag() {
    let d = tempfile::tempdir().unwrap();
    let o = run(&["slot", "user:{1000}:profile"], d.path());
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(s.contains("slot 11326"), "{s}");
    assert!(s.contains("hashes the tag \"1000\""), "{s}");
    assert!(
        s.contains("              user:{1000}:profile\n                    ^^^^\n"),
        "{s}"
    );
}

#[test]
fn slot_with_several_keys_says_whether_they_share_a_slot() {
    let d = tempfile::tempdir().unwrap();
    let s = stdout(&run(&["slot", "user:{1000}:a", "cart:{1000}"], d.path()));
    assert!(s.contains("all 2 keys are in slot 11326"), "{s}");
    let s = stdout(&run(
        &["slot", "user:1000:profile", "user:1000:cart"],
        d.path(),
    ));
    assert!(s.contains("2 different slots (7185, 8918)"), "{s}");
    assert!(s.contains("hashes the whole key (no `{`"), "{s}");
    let s = stdout(&run(&["slot", "foo{}{bar}"], d.path()));
    assert!(
        s.contains("slot  8363") && s.contains("`{bar}` is ordinary bytes"),
        "{s}"
    );
}

#[test]
fn slot_json_and_stdin() {
    let d = tempfile::tempdir().unwrap();
    let mut child = bin()
        .args(["slot", "--format", "json", "-"])
        .current_dir(d.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"foo{{bar}}\r\n123456789\n\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let v = json(&o);
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 3);
    assert_eq!(arr[0]["key"], "foo{{bar}}");
    assert_eq!(arr[0]["slot"], 4015);
    assert_eq!(arr[0]["hashed"], "{bar");
    assert_eq!(arr[0]["surprises"][0]["kind"], "nested-open-brace");
    assert_eq!(arr[1]["slot"], 12739);
    assert_eq!(arr[1]["reason"], "no-brace");
    assert_eq!(arr[2]["key"], "");
    assert_eq!(arr[2]["slot"], 0);
}

#[cfg(unix)]
#[test]
fn slot_takes_any_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["slot", "--format", "json"])
        .arg(std::ffi::OsStr::from_bytes(b"{\xff\x01}x"))
        .current_dir(d.path())
        .output()
        .unwrap();
    let v = json(&o);
    assert_eq!(v[0]["key"], "{\\xff\\x01}x");
    assert_eq!(v[0]["slot"], u64::from(keyslot::key_slot(b"\xff\x01")));
}

#[test]
fn check_json_has_the_documented_fields() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.redis",
        b"# x\nMGET user:1000:profile user:1000:cart\n",
    );
    let o = run(&["check", "--format", "json", "a.redis"], d.path());
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let f = &v[0];
    assert_eq!(f["rule"], "cross-slot");
    assert_eq!(f["code"], "RK001");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["path"], "a.redis");
    assert_eq!(f["line"], 2);
    assert_eq!(f["column"], 24);
    assert_eq!(f["end_line"], 2);
    assert_eq!(f["end_column"], 38);
    assert_eq!(f["message"], "keys of `MGET` are in different hash slots");
    assert_eq!(f["label"], "slot 7185");
    assert_eq!(f["related"][0]["message"], "slot 8918");
}

#[test]
fn exit_status() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.redis", b"MGET {a}1 {a}2\n");
    write(d.path(), "bad.redis", b"MGET a b\n");
    write(d.path(), "warn.redis", b"SET x{}y 1\n");
    // (arguments, exit status, why)
    let cases: &[(&[&str], i32, &str)] = &[
        (&["check", "ok.redis"], 0, "no finding"),
        (&["check", "warn.redis"], 0, "warnings only"),
        (&["check", "bad.redis"], 1, "an error"),
        (&["bad.redis"], 1, "check is the default"),
        (&["check", "--exit-zero", "bad.redis"], 0, "--exit-zero"),
        (
            &["check", "--ignore", "cross-slot", "bad.redis"],
            0,
            "ignored",
        ),
        (
            &["check", "--select", "RK101", "bad.redis"],
            0,
            "not selected",
        ),
        (
            &["check", "--select", "no-such-rule", "."],
            2,
            "unknown rule",
        ),
        (&["check", "--format", "yaml", "."], 2, "unknown format"),
        (&["."], 1, "a directory is walked"),
    ];
    for (args, code, why) in cases {
        assert_eq!(
            run(args, d.path()).status.code(),
            Some(*code),
            "{why}: {args:?}"
        );
    }
    let missing = run(&["check", "ok.redis", "nope.redis"], d.path());
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("nope.redis: no such file or directory")
    );
}

#[cfg(unix)]
#[test]
fn unreadable_named_file_is_an_io_error() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "secret.redis", b"GET a\n");
    let p = d.path().join("secret.redis");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&p).is_ok() {
        // Running with privileges that ignore file modes: a broken symlink named on
        // the command line exercises the same path.
        std::os::unix::fs::symlink("missing-target.redis", d.path().join("link.redis")).unwrap();
        let o = run(&["check", "link.redis"], d.path());
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("broken symbolic link"));
        return;
    }
    let o = run(&["check", "secret.redis"], d.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("secret.redis"));
}

#[test]
fn bad_files_are_skipped_with_a_warning_and_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "latin1.redis", b"MGET caf\xe9 b\n");
    write(
        d.path(),
        "binary.lua",
        b"\x00\x01\x02redis.call('MGET', 'a', 'b')",
    );
    write(
        d.path(),
        "broken.redis",
        b"MGET \"unterminated a b\nMGET x y\n",
    );
    write(d.path(), "big.redis", &vec![b'#'; 2048]);
    let o = run(
        &["check", "--max-file-size", "1024", "--format", "json", "."],
        d.path(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("latin1.redis: skipped: not valid UTF-8"),
        "{err}"
    );
    assert!(err.contains("binary.lua: skipped: binary file"), "{err}");
    assert!(err.contains("big.redis: skipped: 2048 bytes"), "{err}");
    // The good line after a broken one is still linted.
    let v = json(&o);
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["path"], "./broken.redis");
    assert_eq!(v[0]["line"], 2);
    assert_eq!(o.status.code(), Some(1));
}

#[cfg(unix)]
#[test]
fn symlink_loops_do_not_hang() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "sub/a.redis", b"MGET a b\n");
    std::os::unix::fs::symlink("..", d.path().join("sub/up")).unwrap();
    std::os::unix::fs::symlink("loop", d.path().join("loop")).unwrap();
    let o = run(&["check", "--format", "json", "."], d.path());
    assert_eq!(json(&o).as_array().unwrap().len(), 1);
}

#[test]
fn gitignore_is_respected() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), ".gitignore", b"generated/\n");
    write(d.path(), "generated/x.redis", b"MGET a b\n");
    write(d.path(), "y.redis", b"GET a\n");
    let o = run(&["check", "."], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("no findings (1 file checked)"));
}

#[test]
fn rules_and_explain() {
    let d = tempfile::tempdir().unwrap();
    let v = json(&run(&["rules", "--format", "json"], d.path()));
    let rules = v.as_array().unwrap();
    assert!(rules.len() >= 6);
    for r in rules {
        for field in ["code", "name", "severity", "summary"] {
            assert!(r[field].is_string(), "{r}");
        }
    }
    let by_name = stdout(&run(&["explain", "cross-slot"], d.path()));
    let by_code = stdout(&run(&["explain", "rk001"], d.path()));
    assert_eq!(by_name, by_code);
    assert!(by_name.starts_with("# cross-slot (RK001)"));
    assert!(by_name.contains("## Why is this bad?"));
    assert_eq!(run(&["explain", "nope"], d.path()).status.code(), Some(2));
}

#[test]
fn human_output_is_rustc_style() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.redis",
        b"MGET user:1000:profile user:1000:cart\n",
    );
    let s = stdout(&run(&["check", "--color", "always", "a.redis"], d.path()));
    assert!(s.contains("\u{1b}["), "colors when asked");
    let o = bin()
        .args(["check", "a.redis"])
        .env("NO_COLOR", "1")
        .current_dir(d.path())
        .output()
        .unwrap();
    let s = stdout(&o);
    assert!(!s.contains("\u{1b}["));
    assert!(
        s.starts_with("error[RK001]: keys of `MGET` are in different hash slots\n"),
        "{s}"
    );
    assert!(s.contains("┌─ a.redis:1:24"), "{s}");
    assert!(
        s.contains("= help: co-locate the keys with a hash tag on what they share, `user:1000`"),
        "{s}"
    );
    assert!(
        s.ends_with("found 1 error, 0 warnings in 1 file (1 checked)\n"),
        "{s}"
    );
    let q = stdout(&run(&["check", "--quiet", "a.redis"], d.path()));
    assert!(!q.contains("found 1 error"));
}

#[test]
fn the_cache_reuses_findings_until_something_they_depend_on_changes() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let tree = d.path().join("tree");
    write(&tree, "a.redis", b"MGET user:1000:profile user:1000:cart\n");
    write(
        &tree,
        "jobs.py",
        b"from pathlib import Path\nimport redis\n\
r = redis.RedisCluster()\n\
MOVE = r.register_script((Path(__file__).parent / \"move.lua\").read_text())\n\
MOVE(keys=[\"queue:a\", \"queue:b\"])\n",
    );
    write(&tree, "move.lua", b"return redis.call('GET', KEYS[1])\n");
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(extra);
        args.push(".");
        json(&run(&args, &tree))
    };
    let summary = |extra: &[&str]| {
        let mut args = vec!["check"];
        args.extend_from_slice(extra);
        args.push(".");
        let s = stdout(&run(&args, &tree));
        s.lines().last().unwrap_or_default().to_string()
    };
    let dir = cache.to_str().unwrap();
    let cold = check(&[]);
    assert!(!cold.as_array().unwrap().is_empty());
    assert_eq!(check(&["--cache-dir", dir]), cold);
    assert!(cache.join("v1").is_dir());
    // Second run: every file that can use Redis comes from the cache, same findings.
    assert_eq!(check(&["--cache-dir", dir]), cold);
    assert!(
        summary(&["--cache-dir", dir]).ends_with("(3 checked, 3 from the cache)"),
        "{}",
        summary(&["--cache-dir", dir])
    );
    // `--no-cache` wins.
    assert!(summary(&["--cache-dir", dir, "--no-cache"]).ends_with("(3 checked)"));
    // Selection and suppressions apply after the cache.
    let only = check(&["--cache-dir", dir, "--select", "cross-slot"]);
    assert!(only
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["rule"] == "cross-slot"));
    // A Lua file the module loads is part of its entry: changing it is a miss.
    write(
        &tree,
        "move.lua",
        b"return redis.call('GET', 'global:counter')\n",
    );
    let changed = check(&[]);
    assert_ne!(changed, cold);
    assert!(changed
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "undeclared-script-key"));
    assert_eq!(check(&["--cache-dir", dir]), changed);
    assert!(summary(&["--cache-dir", dir]).ends_with("(3 checked, 3 from the cache)"));
    // A damaged entry is a miss, not an error.
    for e in walk(&cache) {
        std::fs::write(&e, b"garbage").unwrap();
    }
    let o = run(
        &["check", "--format", "json", "--cache-dir", dir, "."],
        &tree,
    );
    assert_eq!(json(&o), changed);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_library_file_is_checked_again_when_a_script_beside_it_appears() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let tree = d.path().join("tree");
    write(
        &tree,
        "lib.lua",
        b"local Q = {}\nfunction Q.push(id) redis.call('RPUSH', 'q:jobs', id) end\n",
    );
    let dir = cache.to_str().unwrap();
    let rules = || cached_rules(&tree, dir, "lib.lua");
    // Nobody uses the library: its keys are not judged.
    assert!(rules().is_empty());
    assert!(rules().is_empty());
    // A script beside it that uses it: the cached entry listed the directory.
    write(&tree, "api.lua", b"return Q.push(ARGV[1])\n");
    assert_eq!(rules(), ["undeclared-script-key"]);
}

#[test]
fn a_module_is_checked_again_when_a_file_that_constructs_its_class_changes() {
    // `queues.py` learns the class of `self.driver` from the only call that constructs
    // its controller, in `driver.py`, which it never imports: an edit there, or a new
    // file that constructs the controller, re-checks it.
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let tree = d.path().join("tree");
    write(&tree, "pyproject.toml", b"");
    write(&tree, "app/__init__.py", b"");
    let driver = |extra: &str| {
        [
            "import redis",
            "from app.queues import QueueController",
            "",
            "",
            "class Driver:",
            "    @property",
            "    def connection(self):",
            "        return redis.Redis()",
            "",
            "    def queues(self):",
            "        return QueueController(self)",
            extra,
        ]
        .join("\n")
    };
    write(&tree, "app/driver.py", driver("").as_bytes());
    let queues = [
        "\"\"\"Queues in Redis.\"\"\"",
        "",
        "",
        "class QueueController:",
        "    def __init__(self, driver):",
        "        self.driver = driver",
        "",
        "    def move(self):",
        "        self.driver.connection.rename(\"queues:a\", \"queues:b\")",
        "",
    ];
    write(&tree, "app/queues.py", queues.join("\n").as_bytes());
    let dir = cache.to_str().unwrap();
    let rules = || cached_rules(&tree, dir, "app/queues.py");
    assert_eq!(rules(), ["cross-slot"]);
    assert_eq!(rules(), ["cross-slot"]);
    // The caller now also passes something else: the class is no longer known.
    write(
        &tree,
        "app/driver.py",
        driver("\n\ndef other(x):\n    return QueueController(x)\n").as_bytes(),
    );
    assert!(rules().is_empty());
    write(&tree, "app/driver.py", driver("").as_bytes());
    assert_eq!(rules(), ["cross-slot"]);
    // A new file that constructs the class with something else.
    write(
        &tree,
        "app/admin.py",
        b"from app.queues import QueueController\n\n\ndef make(conn):\n    return QueueController(conn)\n",
    );
    assert!(rules().is_empty());
}

#[test]
fn a_javascript_module_is_checked_again_when_a_module_it_imports_changes() {
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let tree = d.path().join("tree");
    write(&tree, "package.json", b"{}\n");
    write(
        &tree,
        "src/keys.ts",
        b"export const A = 'user:1:a';\nexport const B = 'user:1:b';\n",
    );
    write(
        &tree,
        "src/main.ts",
        b"import Redis from 'ioredis';\nimport { A, B } from './keys.js';\n\
const r = new Redis();\nr.mget(A, B);\n",
    );
    let dir = cache.to_str().unwrap();
    let rules = || cached_rules(&tree, dir, "src/main.ts");
    assert_eq!(rules(), ["cross-slot"]);
    assert_eq!(rules(), ["cross-slot"]);
    // The imported module changes: one hash tag, one slot.
    write(
        &tree,
        "src/keys.ts",
        b"export const A = '{user:1}:a';\nexport const B = '{user:1}:b';\n",
    );
    assert!(rules().is_empty());
    // A file that the specifier names before the old one appears (`./keys.js` itself).
    write(
        &tree,
        "src/keys.js",
        b"exports.A = 'x';\nexports.B = 'y';\n",
    );
    assert_eq!(rules(), ["cross-slot"]);
}

#[test]
fn an_unwritable_cache_is_a_warning() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.redis", b"MGET a b\n");
    // A file where the cache directory would be.
    write(d.path(), "cache", b"");
    let o = run(&["check", "--cache-dir", "cache", "a.redis"], d.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot create the cache directory"), "{err}");
    let o = run(
        &["check", "--cache-dir", "cache", "--no-cache", "a.redis"],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_project_without_a_marker_is_rooted_at_the_directory_named() {
    // No `.git`, `pyproject.toml` or `setup.py`: a copy of a project. Its scripts
    // import the project's package from the top directory.
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("copy");
    write(&root, "lib/__init__.py", b"");
    write(
        &root,
        "lib/keys.py",
        b"QUEUE = 'q:queue:'\n\ndef queue_key(name):\n    return QUEUE + name\n",
    );
    write(
        &root,
        "scripts/move.py",
        b"import redis\nfrom lib.keys import queue_key\n\nr = redis.Redis()\n\n\
def move(src, dst):\n    r.smove(queue_key(src), queue_key(dst), 'x')\n",
    );
    let count = |o: &Output| {
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        json(o).as_array().unwrap().len()
    };
    // Linted from the top, or named from the directory above it.
    assert_eq!(count(&run(&["check", "--format", "json", "."], &root)), 1);
    assert_eq!(
        count(&run(&["check", "--format", "json", "copy"], d.path())),
        1
    );
    // Named from above, the scripts directory alone does not reach the package.
    let o = run(&["check", "--format", "json", "copy/scripts"], d.path());
    assert_eq!(count(&o), 0);
}

#[test]
fn a_file_passed_alone_resolves_its_imports_from_the_project() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(root, "pyproject.toml", b"[project]\nname = \"app\"\n");
    write(root, "src/app/__init__.py", b"");
    write(
        root,
        "src/app/keys.py",
        b"QUEUE = 'q:queue:'\n\ndef queue_key(name):\n    return QUEUE + name\n",
    );
    write(
        root,
        "src/app/conn.py",
        b"import redis\n\ndef get_connection():\n    return redis.Redis()\n\
r = get_connection()\nr.mget('a:1', 'b:1')\n",
    );
    write(
        root,
        "src/app/jobs.py",
        b"# Redis jobs\nfrom app.conn import get_connection\nfrom .keys import queue_key\n\n\
def move(src, dst):\n    get_connection().smove(queue_key(src), queue_key(dst), 'x')\n",
    );
    let o = run(&["check", "--format", "json", "src/app/jobs.py"], root);
    let findings = json(&o);
    let findings = findings.as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["path"], "src/app/jobs.py");
    assert_eq!(findings[0]["rule"], "cross-slot-likely");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Standard input named after the file (an editor's unsaved buffer) reads the same
    // project.
    let mut child = bin()
        .args([
            "check",
            "--format",
            "json",
            "--stdin-filename",
            "src/app/jobs.py",
            "-",
        ])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        &std::fs::read(root.join("src/app/jobs.py")).unwrap(),
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(json(&o).as_array().unwrap().len(), 1, "{}", stdout(&o));
    // From a subdirectory, with a cache: a change in an imported module is a miss.
    let cache = root.join("cache");
    let dir = cache.to_str().unwrap();
    let args = ["check", "--format", "json", "--cache-dir", dir, "jobs.py"];
    let here = root.join("src/app");
    let likely = |o: &Output| {
        json(o)
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "cross-slot-likely")
            .count()
    };
    assert_eq!(likely(&run(&args, &here)), 1);
    assert_eq!(likely(&run(&args, &here)), 1);
    write(
        root,
        "src/app/keys.py",
        b"QUEUE = '{q}:queue:'\n\ndef queue_key(name):\n    return QUEUE + name\n",
    );
    assert_eq!(likely(&run(&args, &here)), 0);
    // A module that appears where an import resolved elsewhere is a miss too.
    write(root, "src/app/keys.py", b"from .names import queue_key\n");
    assert_eq!(likely(&run(&args, &here)), 0);
    write(
        root,
        "src/app/names.py",
        b"def queue_key(name):\n    return 'q:' + name\n",
    );
    assert_eq!(likely(&run(&args, &here)), 1);
}
