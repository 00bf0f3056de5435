//! The same Lua script, as a `.lua` file, embedded in Python and in a redis-cli `EVAL`,
//! gets the same findings: rule, severity, message and notes.

use std::path::Path;
use std::process::Command;

const LINES: &[&str] = &[
    "#!lua",
    "local v = redis.call('GET', KEYS[1])",
    "redis.call('SET', 'stats:views', 1)",
    "redis.call('SET', 'user:' .. ARGV[1], 1)",
    "redis.call('SET', KEYS[1] .. ':meta', 1)",
    "return redis.call('MGET', 'a:1', 'b:2')",
];

fn findings(dir: &Path, file: &str) -> Vec<(String, String, String, Vec<String>)> {
    let out = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .current_dir(dir)
        .args(["check", "--format", "json", file])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut got: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
                f["notes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    got.sort();
    got
}

fn agree(lines: &[&str]) {
    let d = tempfile::tempdir().unwrap();
    let body = lines.join("\n");
    std::fs::write(d.path().join("s.lua"), format!("{body}\n")).unwrap();
    std::fs::write(
        d.path().join("s.py"),
        format!(
            "import redis\n\nr = redis.Redis()\nSCRIPT = \"\"\"{body}\"\"\"\nr.eval(SCRIPT, 1, \"job:{{7}}\")\n"
        ),
    )
    .unwrap();
    std::fs::write(
        d.path().join("s.redis"),
        format!("EVAL \"{}\" 1 job:{{7}}\n", lines.join("\\n")),
    )
    .unwrap();
    let lua = findings(d.path(), "s.lua");
    assert!(lua.len() >= 3, "{lua:#?}");
    assert_eq!(lua, findings(d.path(), "s.py"), "Lua file vs Python");
    assert_eq!(lua, findings(d.path(), "s.redis"), "Lua file vs redis-cli");
}

#[test]
fn lua_file_python_and_redis_cli_agree() {
    agree(LINES);
    // Without the shebang: compatibility mode, other notes, the same in all three.
    agree(&LINES[1..]);
}
