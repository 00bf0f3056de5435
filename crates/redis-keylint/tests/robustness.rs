//! Bad input never crashes or hangs the binary: binary and non-UTF-8 files, files far
//! over the size limit, 10,000-deep nesting, syntax errors, unreadable directories,
//! symlink loops, odd bytes in file names, empty and comment-only files.
//!
//! Every test that feeds a deep or broken file also puts one certain cross-slot call
//! in it, and asserts that it is reported: a file that was skipped, or whose analysis
//! was abandoned, cannot pass for one that was linted.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_redis-keylint"));
    c.env_remove("NO_COLOR");
    c
}

/// No single run may take longer than this: a hang fails the test instead of the
/// whole CI job.
const DEADLINE: Duration = Duration::from_secs(120);

/// Runs a command to completion, or kills it and fails once `limit` has passed.
fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn run(args: &[&str], dir: &Path) -> Output {
    output_within(bin().args(args).current_dir(dir), DEADLINE)
}

fn write(dir: &Path, name: &str, content: &[u8]) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Vec<serde_json::Value> {
    match serde_json::from_slice::<serde_json::Value>(&o.stdout) {
        Ok(serde_json::Value::Array(a)) => a,
        other => panic!(
            "not a JSON array ({other:?})\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            stderr(o)
        ),
    }
}

/// The process ended by itself with a lint status (0 or 1), not a usage/I-O error, a
/// panic or a signal (a stack overflow is SIGSEGV/SIGABRT).
fn assert_clean_exit(o: &Output, what: &str) {
    let err = stderr(o);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{what}: status {:?}\nstderr: {err}",
        o.status
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(!err.contains("overflow"), "{what}: {err}");
}

/// Rule codes of the findings, in output order.
fn codes(findings: &[serde_json::Value]) -> Vec<String> {
    findings
        .iter()
        .map(|f| f["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `MGET a b`: `a` is slot 15495 and `b` slot 3300, so this is a certain RK001, on
/// the last line of each prelude ([`certain_line`]).
const LUA_CERTAIN: &str = "-- a certain finding first\nredis.call('MGET', 'a', 'b')\n";
const PY_CERTAIN: &str = "import redis\nr = redis.Redis()\nr.mget('a', 'b')\n";
const CLI_CERTAIN: &str = "# a certain finding first\nMGET a b\n";
const JS_CERTAIN: &str =
    "const Redis = require('ioredis');\nconst r = new Redis();\nr.mget('a', 'b');\n";

/// The line of the certain finding: the last line of each prelude.
fn certain_line(name: &str) -> usize {
    match name.rsplit('.').next() {
        Some("py") => PY_CERTAIN.lines().count(),
        Some("lua") => LUA_CERTAIN.lines().count(),
        Some("js" | "ts") => JS_CERTAIN.lines().count(),
        _ => CLI_CERTAIN.lines().count(),
    }
}

/// Runs `check --format json` on one file and asserts it ran to the end, reported
/// the certain finding of its prelude, and took less than `limit`.
fn lint_one(name: &str, content: &[u8], limit: Duration) -> Vec<serde_json::Value> {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), name, content);
    let start = Instant::now();
    let o = output_within(
        bin()
            .args(["check", "--format", "json", name])
            .current_dir(d.path()),
        limit,
    );
    let took = start.elapsed();
    assert_clean_exit(&o, name);
    let findings = json(&o);
    let line = certain_line(name);
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "RK001" && f["line"] == line),
        "{name}: the certain cross-slot call on line {line} was not reported: {:?}\nstderr: {}",
        codes(&findings),
        stderr(&o)
    );
    assert!(took < limit, "{name}: took {took:?} (limit {limit:?})");
    findings
}

const DEEP: usize = 10_000;
/// A guard against hangs and quadratic blow-ups (which take hours on these inputs), not
/// a speed target: a debug build on a loaded 2-core machine needs up to a minute for
/// the 200,000-key cases. Speed is measured in `docs/benchmarks.md`.
const SLOW: Duration = Duration::from_secs(120);

fn nest(open: &str, leaf: &str, close: &str, n: usize) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * n + leaf.len());
    for _ in 0..n {
        s.push_str(open);
    }
    s.push_str(leaf);
    for _ in 0..n {
        s.push_str(close);
    }
    s
}

/// `first` followed by `n` operands `'0'`…`'9'`, each after `op`: `'k' .. '0' .. '1'`.
fn chain(first: &str, op: &str, n: usize) -> String {
    let mut expr = String::from(first);
    for i in 0..n {
        expr.push_str(&format!(" {op} '{}'", i % 10));
    }
    expr
}

/// After `head`, `levels` nested `if x:` blocks, each one space deeper, around `body`.
fn python_ifs(head: &str, levels: usize, body: &str) -> String {
    let mut src = String::from(head);
    for depth in 0..levels {
        src.push_str(&" ".repeat(depth));
        src.push_str("if x:\n");
    }
    src.push_str(&" ".repeat(levels));
    src.push_str(body);
    src
}

#[test]
fn lua_deep_concatenation() {
    // 'a' .. ('b' .. ('c' .. (…)))
    let expr = nest("'k' .. (", "KEYS[1]", ")", DEEP);
    let src = format!("{LUA_CERTAIN}local key = {expr}\nreturn redis.call('GET', key)\n");
    lint_one("deep_concat.lua", src.as_bytes(), SLOW);
}

#[test]
fn lua_deep_concatenation_without_parentheses() {
    // Lua's `..` is right-associative: a flat chain is a 10,000-deep tree.
    let expr = chain("'{k}:'", "..", DEEP);
    let src = format!("{LUA_CERTAIN}return redis.call('GET', {expr})\n");
    lint_one("long_concat.lua", src.as_bytes(), SLOW);
}

#[test]
fn lua_deep_parentheses_tables_and_calls() {
    let parens = nest("(", "KEYS[1]", ")", DEEP);
    let tables = nest("{", "1", "}", DEEP);
    let calls = nest("f(", "ARGV[1]", ")", DEEP);
    let calls_in_call = nest("redis.call('GET', ", "KEYS[1]", ")", DEEP);
    let functions = nest("function() return ", "KEYS[1]", " end", DEEP);
    let blocks = nest("do ", "redis.call('GET', KEYS[1])", " end", DEEP);
    let ifs = nest("if x then ", "redis.call('GET', KEYS[1])", " end", DEEP);
    let src = format!(
        "{LUA_CERTAIN}local a = {parens}\nlocal t = {tables}\nlocal c = {calls}\n\
         local r = {calls_in_call}\nlocal f = {functions}\n{blocks}\n{ifs}\n"
    );
    lint_one("deep_mixed.lua", src.as_bytes(), SLOW);
}

#[test]
fn python_deep_calls() {
    let calls = nest("f(", "x", ")", DEEP);
    let key = nest("str(", "'k'", ")", DEEP);
    let src = format!("{PY_CERTAIN}a = {calls}\nr.get({key})\n");
    lint_one("deep_calls.py", src.as_bytes(), SLOW);
}

#[test]
fn python_long_plus_chain() {
    // A left-associative chain: a 10,000-deep tree leaning the other way from Lua's.
    let expr = chain("'user:'", "+", DEEP);
    let src = format!("{PY_CERTAIN}key = {expr}\nr.get(key)\nr.mget(key, {expr})\n");
    lint_one("plus_chain.py", src.as_bytes(), SLOW);
}

#[test]
fn python_deep_parentheses_lists_and_fstrings() {
    let parens = nest("(", "uid", ")", DEEP);
    let lists = nest("[", "1", "]", DEEP);
    let dicts = nest("{'a': ", "1", "}", DEEP);
    // Nested f-strings alternate the quote kind, which any Python reads; deeper
    // nesting with the same quote is Python 3.12 syntax (PEP 701).
    let fstrings = nest("f\"{f'{", "uid", "}'}\"", DEEP / 2);
    let same_quote = nest("f\"{", "uid", "}\"", DEEP);
    let lambdas = nest("lambda: ", "uid", "", DEEP);
    let src = format!(
        "{PY_CERTAIN}a = {parens}\nb = {lists}\nc = {dicts}\nr.get({fstrings})\n\
         r.get({same_quote})\nd = {lambdas}\n"
    );
    lint_one("deep_mixed.py", src.as_bytes(), SLOW);
}

#[test]
fn python_deep_blocks() {
    let src = python_ifs(PY_CERTAIN, 1_000, "r.get('k')\n");
    lint_one("deep_blocks.py", src.as_bytes(), SLOW);
}

/// tree-sitter-python 0.25.0's external scanner writes 2 bytes per indentation level
/// into tree-sitter's 1024-byte serialization buffer, checking the bound before each
/// pair: with an odd number of bytes before the levels (one open string delimiter)
/// and 511 levels it returns 1025 bytes, and tree-sitter aborts the process
/// (`ts_parser__external_scanner_serialize: Assertion 'length <= 1024' failed`).
#[test]
fn python_511_indentation_levels_and_a_string() {
    let src = python_ifs(PY_CERTAIN, 511, "r.get('k')\n");
    lint_one("indent_511.py", src.as_bytes(), SLOW);
}

#[test]
fn redis_cli_huge_line() {
    // One command with 200,000 keys on a 2 MB line.
    let mut src = String::from(CLI_CERTAIN);
    src.push_str("MGET");
    for i in 0..200_000 {
        src.push_str(&format!(" k{i}"));
    }
    src.push('\n');
    let findings = lint_one("huge_line.redis", src.as_bytes(), SLOW);
    assert!(!findings.is_empty());
}

/// Every key of a script is compared with every other when the script-key rules
/// group them (`KeyTemplate::same_text` in `rules/script_keys.rs`, which also
/// allocates two flattened copies per comparison): 20,000 literal keys took 9 s in a
/// release build, 200,000 keys in one call did not finish in two minutes.
#[test]
fn lua_script_with_20_000_keys() {
    let mut src = String::from(LUA_CERTAIN);
    for i in 0..20_000 {
        src.push_str(&format!("redis.call('GET', 'k{i}')\n"));
    }
    lint_one("many_calls.lua", src.as_bytes(), SLOW);
}

#[test]
fn lua_call_with_200_000_keys() {
    let mut src = String::from(LUA_CERTAIN);
    src.push_str("redis.call('DEL'");
    for i in 0..200_000 {
        src.push_str(&format!(", 'k{i}'"));
    }
    src.push_str(")\n");
    lint_one("huge_call.lua", src.as_bytes(), SLOW);
}

#[test]
fn javascript_deep_calls_parentheses_and_arrays() {
    let calls = nest("f(", "x", ")", DEEP);
    let parens = nest("(", "'k'", ")", DEEP);
    let arrays = nest("[", "'k'", "]", DEEP);
    let src = format!("{JS_CERTAIN}const a = {calls};\nr.get({parens});\nr.mget({arrays}, 'b');\n");
    lint_one("deep.js", src.as_bytes(), SLOW);
}

/// `a1 = a0 .. a0`, `a2 = a1 .. a1`, …: each link doubles the key (and, read naively,
/// the work), so 60 links would build a key of 2^60 parts.
fn doubling(first: &str, line: impl Fn(usize) -> String, n: usize) -> String {
    let mut s = format!("{first}\n");
    for k in 1..=n {
        s.push_str(&line(k));
        s.push('\n');
    }
    s
}

#[test]
fn doubling_chains_of_names_in_every_language() {
    let lua = doubling(
        "local a0 = KEYS[1]",
        |k| format!("local a{k} = a{} .. a{}", k - 1, k - 1),
        60,
    );
    let src = format!("{LUA_CERTAIN}{lua}return redis.call('SET', a60, 1)\n");
    lint_one("doubling.lua", src.as_bytes(), SLOW);
    let py = doubling(
        "def f(p):\n    a0 = p",
        |k| format!("    a{k} = a{} + a{}", k - 1, k - 1),
        60,
    );
    let src = format!("{PY_CERTAIN}{py}    r.mget(a60, 'x')\n");
    lint_one("doubling.py", src.as_bytes(), SLOW);
    let js = doubling(
        "function f(p) {\n  let a0 = p;",
        |k| format!("  let a{k} = a{} + a{};", k - 1, k - 1),
        60,
    );
    let src = format!("{JS_CERTAIN}{js}  return r.mget(a60, 'x');\n}}\n");
    lint_one("doubling.js", src.as_bytes(), SLOW);
}

#[test]
fn javascript_long_plus_chain_and_transaction() {
    let expr = chain("'user:'", "+", DEEP);
    let mut chain = String::from("r.multi()");
    for i in 0..DEEP {
        chain.push_str(&format!(".set('k{i}', 1)"));
    }
    let src = format!(
        "{JS_CERTAIN}const key = {expr};\nr.get(key);\nr.mget(key, {expr});\n{chain}.exec();\n\
         const tx = r.multi();\n{}tx.exec();\n",
        "tx.set('a', 1).set('b', 1);\n".repeat(DEEP)
    );
    lint_one("chain.ts", src.as_bytes(), SLOW);
}

#[test]
fn javascript_call_with_200_000_keys() {
    let mut src = String::from(JS_CERTAIN);
    src.push_str("r.del(");
    for i in 0..200_000 {
        src.push_str(&format!("'k{i}', "));
    }
    src.push_str(");\n");
    lint_one("huge_call.js", src.as_bytes(), SLOW);
}

#[test]
fn python_call_with_200_000_keys() {
    let mut src = String::from(PY_CERTAIN);
    src.push_str("r.delete(");
    for i in 0..200_000 {
        src.push_str(&format!("'k{i}', "));
    }
    src.push_str(")\n");
    lint_one("huge_call.py", src.as_bytes(), SLOW);
}

#[test]
fn syntax_errors_report_what_is_certain() {
    let lua =
        format!("{LUA_CERTAIN}local x = = (\nredis.call('MGET', 'c', \nend end )) [[ unclosed\n");
    let findings = lint_one("broken.lua", lua.as_bytes(), SLOW);
    assert!(
        findings
            .iter()
            .all(|f| f["line"] == certain_line("broken.lua")),
        "nothing is certain after the damage: {:?}",
        codes(&findings)
    );
    let py = format!("{PY_CERTAIN}def f(:\n    r.mget('c',\n  return ))) '''unclosed\n");
    let findings = lint_one("broken.py", py.as_bytes(), SLOW);
    assert!(
        findings
            .iter()
            .all(|f| f["line"] == certain_line("broken.py")),
        "nothing is certain after the damage: {:?}",
        codes(&findings)
    );
    let cli = format!("{CLI_CERTAIN}MGET \"unterminated c d\nSET 'x\\' y\n\"\n");
    lint_one("broken.redis", cli.as_bytes(), SLOW);
}

#[test]
fn garbage_with_a_known_extension_is_not_a_crash() {
    // Deterministic pseudo-random printable garbage, a different seed per language.
    let d = tempfile::tempdir().unwrap();
    for (n, ext) in ["lua", "py", "redis"].iter().enumerate() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ n as u64;
        let mut text = Vec::with_capacity(256 * 1024);
        while text.len() < 256 * 1024 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let b = (state % 96) as u8 + 32;
            text.push(if b == 127 { b'\n' } else { b });
        }
        write(d.path(), &format!("garbage.{ext}"), &text);
    }
    let o = run(&["check", "--format", "json", "."], d.path());
    assert_clean_exit(&o, "garbage");
    json(&o);
}

#[test]
fn binary_and_invalid_utf8_files_are_skipped() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.redis", b"MGET a b\n");
    write(
        d.path(),
        "nul.lua",
        b"redis.call('MGET', 'a', 'b')\x00\x00\x7fELF",
    );
    write(d.path(), "nul.py", b"r.mget('a', 'b')\n\x00\x01");
    write(d.path(), "latin1.py", b"r.mget('caf\xe9', 'b')\n");
    write(
        d.path(),
        "truncated.lua",
        b"redis.call('GET', '\xe2\x82')\n",
    );
    write(d.path(), "overlong.redis", b"GET \xc0\xaf\n");
    // UTF-16 with a BOM: NUL bytes everywhere.
    let utf16: Vec<u8> = "\u{feff}redis.call('MGET', 'a', 'b')"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    write(d.path(), "utf16.lua", &utf16);
    let o = run(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let findings = json(&o);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["path"], "./a.redis");
    let err = stderr(&o);
    for name in [
        "nul.lua",
        "latin1.py",
        "truncated.lua",
        "overlong.redis",
        "utf16.lua",
    ] {
        assert!(err.contains(name), "{name} not mentioned: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    // Named on the command line, a file that is skipped for its content is a
    // warning, not an I/O error.
    let o = run(&["check", "nul.lua", "latin1.py"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Text that the frontend would find a lot in, if it ever read it: 1 MiB of it.
fn redis_heavy_chunk() -> Vec<u8> {
    let line = b"redis.call('MGET', 'user:1000:profile', 'user:1000:cart')\n";
    line.iter()
        .copied()
        .cycle()
        .take(1 << 20)
        .collect::<Vec<u8>>()
}

#[test]
fn a_50_mb_file_is_skipped_with_a_warning() {
    let d = tempfile::tempdir().unwrap();
    let chunk = redis_heavy_chunk();
    {
        use std::io::Write;
        let mut f = std::fs::File::create(d.path().join("huge.lua")).unwrap();
        for _ in 0..50 {
            f.write_all(&chunk).unwrap();
        }
    }
    write(d.path(), "small.redis", CLI_CERTAIN.as_bytes());
    let start = Instant::now();
    let o = run(&["check", "--format", "json", "."], d.path());
    let took = start.elapsed();
    assert_clean_exit(&o, "50 MB");
    let err = stderr(&o);
    assert!(
        err.contains("huge.lua") && err.contains("--max-file-size"),
        "no warning about the size limit: {err}"
    );
    let findings = json(&o);
    assert!(!findings.is_empty());
    assert!(findings.iter().all(|f| f["path"] == "./small.redis"));
    assert_eq!(o.status.code(), Some(1), "the small file is still linted");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn the_size_limit_is_configurable() {
    // Just over the default 10 MiB: comment lines, then a certain finding.
    let mut src = b"# padding padding padding padding padding padding padding\n".repeat(200_000);
    src.extend_from_slice(b"MGET a b\n");
    assert!(src.len() > 10 << 20 && src.len() < 20_000_000);
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "over.redis", &src);
    let o = run(&["check", "--format", "json", "over.redis"], d.path());
    assert_eq!(o.status.code(), Some(0), "skipped: {}", stderr(&o));
    assert!(stderr(&o).contains("--max-file-size"), "{}", stderr(&o));
    assert!(json(&o).is_empty());
    let o = run(
        &[
            "check",
            "--format",
            "json",
            "--max-file-size",
            "20000000",
            "over.redis",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1), "linted: {}", stderr(&o));
    assert_eq!(json(&o).len(), 1);
}

/// A file over the limit is never read: under a data-segment limit of 512 MiB, a
/// sparse 8 GiB file (a text header, then zeros that take no disk) would make the
/// process fail if anything tried to load it.
#[cfg(target_os = "linux")]
#[test]
fn a_file_over_the_limit_is_not_read_into_memory() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let mut f = std::fs::File::create(d.path().join("sparse.lua")).unwrap();
    f.write_all(&redis_heavy_chunk()[..64 * 1024]).unwrap();
    f.set_len(8 << 30).unwrap();
    drop(f);
    write(d.path(), "small.redis", CLI_CERTAIN.as_bytes());
    let exe = env!("CARGO_BIN_EXE_redis-keylint");
    let limited = |args: &str| {
        output_within(
            Command::new("sh")
                .arg("-c")
                .arg(format!("ulimit -d 524288 && exec \"$0\" {args}"))
                .arg(exe)
                .current_dir(d.path()),
            DEADLINE,
        )
    };
    let o = limited("check --format json .");
    assert_clean_exit(&o, "sparse 8 GiB");
    assert!(stderr(&o).contains("sparse.lua"), "{}", stderr(&o));
    let findings = json(&o);
    assert!(!findings.is_empty() && findings.iter().all(|f| f["path"] == "./small.redis"));
    // The limit is effective: with the size limit raised, loading the file fails
    // (unless the reader stops at the first NUL byte, which is fine too).
    let o = limited("check --max-file-size 100000000000 sparse.lua");
    assert!(
        !matches!(o.status.code(), Some(0 | 1)) || stderr(&o).contains("binary"),
        "reading 8 GiB under a 512 MiB limit should fail: {:?} {}",
        o.status,
        stderr(&o)
    );
}

#[test]
fn empty_and_comment_only_files() {
    let d = tempfile::tempdir().unwrap();
    for name in ["empty.lua", "empty.py", "empty.redis"] {
        write(d.path(), name, b"");
    }
    write(
        d.path(),
        "comments.lua",
        b"-- MGET a b\n--[[ redis.call('MGET', 'a', 'b') ]]\n--[==[\n]]\n]==]\n",
    );
    write(
        d.path(),
        "comments.py",
        b"# r.mget('a', 'b')\n'''r.mget('a', 'b')'''\n\"\"\"\n\"\"\"\n",
    );
    write(
        d.path(),
        "comments.redis",
        b"# MGET a b\n   # MGET a b\n#\n",
    );
    write(d.path(), "blank.redis", b"\n\r\n  \t \n");
    write(
        d.path(),
        "bom.lua",
        "\u{feff}-- only a BOM and a comment\n".as_bytes(),
    );
    let o = run(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o).len(), 0);
    assert!(!stderr(&o).contains("panicked"));
}

/// Runs the binary with `args` in `cwd` as an unprivileged user when the tests run
/// with privileges that ignore file modes (root), so that a mode of 000 does deny
/// reads: setpriv (util-linux) drops to `nobody`, running a copy of the binary put
/// where that user can read it.
#[cfg(unix)]
fn run_unprivileged(scratch: &Path, args: &[&str], cwd: &Path) -> Output {
    use std::os::unix::fs::PermissionsExt;
    let privileged = {
        let probe = scratch.join(".probe");
        std::fs::create_dir(&probe).unwrap();
        std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable = std::fs::read_dir(&probe).is_ok();
        std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::remove_dir(&probe).unwrap();
        readable
    };
    if !privileged {
        return output_within(bin().args(args).current_dir(cwd), DEADLINE);
    }
    let exe = scratch.join("redis-keylint-copy");
    if !exe.exists() {
        std::fs::copy(env!("CARGO_BIN_EXE_redis-keylint"), &exe).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // Another test thread forking while the copy was open for writing can leave a
    // child holding it for a moment: exec then fails with "Text file busy".
    for _ in 0..50 {
        let o = output_within(
            Command::new("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&exe)
                .args(args)
                .current_dir(cwd),
            DEADLINE,
        );
        if !String::from_utf8_lossy(&o.stderr).contains("Text file busy") {
            return o;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{} stayed busy", exe.display());
}

#[cfg(unix)]
#[test]
fn unreadable_directories_and_files_inside_a_walk() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let top = d.path().join("tree");
    write(&top, "a.redis", b"MGET a b\n");
    write(&top, "locked/inner.redis", b"MGET c d\n");
    write(&top, "deeper/ok/b.redis", b"MGET e f\n");
    write(&top, "deeper/secret.redis", b"MGET g h\n");
    for p in [d.path(), top.as_path()] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for sub in ["deeper", "deeper/ok"] {
        std::fs::set_permissions(top.join(sub), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for f in ["a.redis", "deeper/ok/b.redis"] {
        std::fs::set_permissions(top.join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    std::fs::set_permissions(top.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(
        top.join("deeper/secret.redis"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    // The command works at all for this user (a failure here is the harness's).
    let probe = run_unprivileged(d.path(), &["check", "a.redis"], &top);
    assert_eq!(probe.status.code(), Some(1), "{}", stderr(&probe));
    let o = run_unprivileged(d.path(), &["check", "--format", "json", "."], &top);
    std::fs::set_permissions(top.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "an unreadable entry inside a walk is a warning, the findings decide: {err}"
    );
    assert!(
        err.contains("locked"),
        "no message for the directory: {err}"
    );
    assert!(
        err.contains("secret.redis"),
        "no message for the file: {err}"
    );
    let mut paths: Vec<String> = json(&o)
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    paths.sort();
    assert_eq!(
        paths,
        ["./a.redis", "./deeper/ok/b.redis"],
        "the run went on"
    );
}

#[cfg(unix)]
#[test]
fn unreadable_directory_named_on_the_command_line_is_an_io_error() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let top = d.path().join("tree");
    write(&top, "a.redis", b"GET a\n");
    write(&top, "locked/inner.redis", b"MGET c d\n");
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&top, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(top.join("a.redis"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(top.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let o = run_unprivileged(d.path(), &["check", "a.redis", "locked"], &top);
    std::fs::set_permissions(top.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("locked"), "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn symlink_loops_of_every_shape() {
    use std::os::unix::fs::symlink;
    let d = tempfile::tempdir().unwrap();
    let top = d.path().join("tree");
    write(&top, "sub/a.redis", b"MGET a b\n");
    symlink("..", top.join("sub/up")).unwrap();
    symlink(".", top.join("sub/here")).unwrap();
    symlink("self.redis", top.join("self.redis")).unwrap();
    symlink("pong.lua", top.join("ping.lua")).unwrap();
    symlink("ping.lua", top.join("pong.lua")).unwrap();
    symlink(&top, top.join("sub/abs")).unwrap();
    // The walk does not follow links: each real file once, and no hang.
    let start = Instant::now();
    let o = run(&["check", "--format", "json", "."], &top);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_clean_exit(&o, "symlink loops");
    assert_eq!(json(&o).len(), 1, "{}", stderr(&o));
    // A looping link named on the command line is an I/O error, with a message.
    let o = run(&["check", "self.redis"], &top);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("self.redis"), "{}", stderr(&o));
    // A link to a directory that contains the link, named on the command line.
    let o = run(&["check", "--format", "json", "sub/up"], &top);
    assert!(matches!(o.status.code(), Some(0..=2)), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
}

#[cfg(unix)]
#[test]
fn odd_bytes_in_paths() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let names: &[&[u8]] = &[
        b"latin1-\xe9.redis",
        b"high-\xff\xfe.redis",
        b"new\nline.redis",
        b"tab\tand\x1b[31mescape.redis",
        b"-starts-with-dash.redis",
        b" spaces .redis",
        b"quote\"'.redis",
        b"dir-\xc3.x/inner.redis",
        "emoji-\u{1F600}-é.redis".as_bytes(),
    ];
    for n in names {
        let p = d.path().join(OsStr::from_bytes(n));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"MGET a b\n").unwrap();
    }
    let o = run(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let findings = json(&o);
    assert_eq!(findings.len(), names.len(), "one finding per file");
    let o = run(&["check", "--color", "never", "."], d.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    // Named on the command line, too.
    let o = output_within(
        bin()
            .args(["check", "--format", "json", "--"])
            .arg(OsStr::from_bytes(b"high-\xff\xfe.redis"))
            .arg(OsStr::from_bytes(b"-starts-with-dash.redis"))
            .current_dir(d.path()),
        DEADLINE,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(json(&o).len(), 2);
}

#[test]
fn many_small_files_in_a_deep_tree() {
    // 3,000 files, 40 directories deep in places: no recursion limit in the walk.
    let d = tempfile::tempdir().unwrap();
    let mut deep = std::path::PathBuf::new();
    for i in 0..40 {
        deep.push(format!("d{i}"));
    }
    write(
        d.path(),
        &deep.join("x.redis").to_string_lossy(),
        b"MGET a b\n",
    );
    for i in 0..3_000 {
        write(
            d.path(),
            &format!("many/{}/{i}.redis", i % 30),
            b"GET {a}1\n",
        );
    }
    let o = run(&["check", "--format", "json", "."], d.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(json(&o).len(), 1);
}

#[test]
fn output_is_the_same_whatever_the_thread_count() {
    // Files of every language, some slow and some fast to lint, so that workers
    // finish out of order.
    let d = tempfile::tempdir().unwrap();
    for i in 0..60 {
        let big = i % 7 == 0;
        let mut py = String::from(PY_CERTAIN);
        let mut lua = String::from(LUA_CERTAIN);
        for j in 0..if big { 400 } else { 2 } {
            py.push_str(&format!("r.mget('u:{i}:{j}', 'v:{i}:{j}')\n"));
            lua.push_str(&format!("redis.call('MGET', 'u:{i}:{j}', 'v:{i}:{j}')\n"));
        }
        write(d.path(), &format!("p{}/m{i}.py", i % 5), py.as_bytes());
        write(d.path(), &format!("l{}/s{i}.lua", i % 3), lua.as_bytes());
        write(d.path(), &format!("c/{i}.redis"), CLI_CERTAIN.as_bytes());
    }
    let outputs: Vec<Output> = ["1", "2", "3", "8"]
        .iter()
        .map(|t| {
            run(
                &["check", "--threads", t, "--color", "never", "."],
                d.path(),
            )
        })
        .collect();
    for o in &outputs {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    }
    for o in &outputs[1..] {
        assert!(
            o.stdout == outputs[0].stdout,
            "the output depends on the thread count"
        );
    }
    let json1 = run(
        &["check", "--threads", "1", "--format", "json", "."],
        d.path(),
    );
    let json8 = run(
        &["check", "--threads", "8", "--format", "json", "."],
        d.path(),
    );
    assert_eq!(json(&json1), json(&json8));
    assert!(json(&json1).len() >= 180);
}

/// rustc-style output shows a window of a long line around each label, so a minified
/// script with thousands of findings on one line prints in linear size (it used to
/// print the whole line per finding: quadratic output, minutes, then out of memory).
/// Positions stay those of the file: each header agrees with the JSON column, also
/// after multi-byte characters.
#[test]
fn findings_on_one_long_line_print_a_window_of_it() {
    let d = tempfile::tempdir().unwrap();
    let mut src = String::from("local pad = '");
    src.push_str(&"é".repeat(300));
    src.push_str("' ");
    for i in 0..2_000 {
        src.push_str(&format!("redis.call('MGET', 'user:{i}:a', 'user:{i}:b') "));
    }
    src.push('\n');
    write(d.path(), "one_line.lua", src.as_bytes());
    let j = run(&["check", "--format", "json", "one_line.lua"], d.path());
    assert_clean_exit(&j, "json");
    let findings = json(&j);
    assert!(findings.len() >= 4_000, "{}", findings.len());
    for args in [
        &["check", "--color", "never", "one_line.lua"][..],
        &["check", "--color", "never", "--fix-suggest", "one_line.lua"][..],
    ] {
        let o = run(args, d.path());
        assert_clean_exit(&o, "human");
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(
            text.len() < 3_000 * findings.len(),
            "{args:?}: {} bytes for {} findings",
            text.len(),
            findings.len()
        );
        let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(longest < 600, "{args:?}: a line of {longest} characters");
        let headers: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("┌─ one_line.lua:"))
            .collect();
        let expected: Vec<String> = findings
            .iter()
            .map(|f| format!("{}:{}", f["line"], f["column"]))
            .collect();
        assert_eq!(headers, expected, "{args:?}");
        assert!(text.contains("…"), "{args:?}: the cut is marked");
    }
}
