//! Live conformance for `redis-keylint census`: a generated keyspace (tagged and
//! untagged families, a deliberately hot tenant, a constant tag, empty, nested,
//! ignored and unclosed tags, keys with quotes, tabs, newlines and bytes that are not
//! UTF-8) is written to a real 3-master cluster, every master is dumped with
//! `redis-cli --no-raw --scan` and `MEMORY USAGE` (the one-liner of `docs/census.md`),
//! and `census --nodes` runs on the `CLUSTER NODES` output. Every slot's count must equal
//! `CLUSTER COUNTKEYSINSLOT`, every node's total `DBSIZE`, and the bytes the sum of
//! `MEMORY USAGE`.

use conformance::{Cluster, Conn, Reply};
use keylint_census::input::quote;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A small deterministic generator (xorshift), so the keyspace is the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The generated keyspace: `(key, value length)`.
pub fn keyspace() -> Vec<(Vec<u8>, usize)> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut keys: Vec<(Vec<u8>, usize)> = Vec::new();
    // Per-id tags: a user's cart and profile share a slot, users spread.
    for uid in 0..1500 {
        keys.push((format!("user:{{{}}}:cart", 10_000 + uid).into_bytes(), 40));
        if uid % 3 == 0 {
            keys.push((
                format!("user:{{{}}}:profile", 10_000 + uid).into_bytes(),
                120,
            ));
        }
    }
    // Tenant-tagged job queues: 20 tenants, one of them (acme) deliberately hot.
    let tenants: Vec<String> = [
        "globex",
        "initech",
        "umbrella",
        "hooli",
        "vandelay",
        "wonka",
        "stark",
        "wayne",
        "tyrell",
        "cyberdyne",
        "soylent",
        "oscorp",
        "aperture",
        "monarch",
        "gringotts",
        "dunder",
        "pied",
        "massive",
        "nakatomi",
    ]
    .iter()
    .map(|t| t.to_string())
    .collect();
    for job in 0..4000u64 {
        let tenant = if job < 2800 {
            "acme".to_string()
        } else {
            tenants[rng.below(tenants.len() as u64) as usize].clone()
        };
        keys.push((
            format!("q:{{tenant:{tenant}}}:jobs:{}", 500_000 + job).into_bytes(),
            60 + rng.below(200) as usize,
        ));
    }
    // A constant tag on a whole family of sessions.
    for _ in 0..900 {
        keys.push((
            format!("{{global}}:session:{:016x}", rng.next()).into_bytes(),
            200,
        ));
    }
    // Untagged keys.
    for page in 0..1200 {
        keys.push((format!("cache:page:{page}").into_bytes(), 500));
    }
    // Hash-tag mistakes.
    for i in 0..30 {
        keys.push((format!("lock:{{}}:order:{i}").into_bytes(), 8));
        keys.push((format!("idx:{{{{shard}}}}:{i}").into_bytes(), 8));
        keys.push((format!("{{user:{i}}}:{{profile}}").into_bytes(), 8));
        keys.push((format!("broken:{{:{i}").into_bytes(), 8));
    }
    // Keys redis-cli must quote: quotes, backslashes, tabs, newlines, NUL, not UTF-8.
    for (i, k) in [
        &b"odd:\"quoted\" key"[..],
        b"odd:tab\there",
        b"odd:new\nline",
        b"odd:nul\0byte",
        b"odd:\xff\xfe latin-1 \xe9",
        b"odd:back\\slash",
        b"odd:{\xc3\xa9t\xc3\xa9}",
    ]
    .iter()
    .enumerate()
    {
        keys.push((k.to_vec(), 10 + i));
    }
    keys
}

fn redis_cli() -> Option<PathBuf> {
    let server = conformance::redis_server_path();
    let sibling = server.with_file_name("redis-cli");
    if sibling.exists() {
        return Some(sibling);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("redis-cli"))
        .find(|p| p.exists())
}

/// Every key of one master, with its `MEMORY USAGE`, through the test's own client.
fn scan(conn: &mut Conn) -> Vec<(Vec<u8>, u64)> {
    let mut keys = Vec::new();
    let mut cursor = b"0".to_vec();
    loop {
        let reply = conn
            .cmd(&[&b"SCAN"[..], &cursor, b"COUNT", b"1000"])
            .unwrap();
        let Reply::Array(Some(parts)) = reply else {
            panic!("SCAN: {reply:?}")
        };
        cursor = parts[0].as_bytes().unwrap().to_vec();
        let Reply::Array(Some(batch)) = &parts[1] else {
            panic!("SCAN keys")
        };
        keys.extend(batch.iter().map(|k| k.as_bytes().unwrap().to_vec()));
        if cursor == b"0" {
            break;
        }
    }
    let cmds: Vec<Vec<Vec<u8>>> = keys
        .iter()
        .map(|k| vec![b"MEMORY".to_vec(), b"USAGE".to_vec(), k.clone()])
        .collect();
    let sizes = conn.pipeline(&cmds).unwrap();
    keys.into_iter()
        .zip(sizes)
        .map(|(k, s)| (k, s.as_int().unwrap() as u64))
        .collect()
}

/// The dump of one master as `docs/census.md` says to make it:
/// `redis-cli --no-raw --scan > keys; sed 's/^/MEMORY USAGE /' keys | redis-cli > bytes;
/// paste keys bytes`.
fn dump_with_redis_cli(cli: &Path, port: u16, dir: &Path, node: usize) -> PathBuf {
    let port = port.to_string();
    let keys = Command::new(cli)
        .args(["-p", &port, "--no-raw", "--scan"])
        .output()
        .unwrap();
    assert!(keys.status.success());
    let mut input = Vec::new();
    for line in keys.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        input.extend_from_slice(b"MEMORY USAGE ");
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let mut child = Command::new(cli)
        .args(["-p", &port])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(&input).unwrap();
    });
    let bytes = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let key_lines: Vec<&[u8]> = keys
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let byte_lines: Vec<&[u8]> = bytes
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        key_lines.len(),
        byte_lines.len(),
        "one MEMORY USAGE per key"
    );
    let mut dump = Vec::new();
    for (k, b) in key_lines.iter().zip(&byte_lines) {
        dump.extend_from_slice(k);
        dump.push(b'\t');
        dump.extend_from_slice(b);
        dump.push(b'\n');
    }
    let path = dir.join(format!("node{node}.txt"));
    std::fs::write(&path, dump).unwrap();
    path
}

fn dump_with_client(keys: &[(Vec<u8>, u64)], dir: &Path, node: usize) -> PathBuf {
    let mut dump = String::new();
    for (k, b) in keys {
        quote(k, &mut dump);
        dump.push('\t');
        dump.push_str(&b.to_string());
        dump.push('\n');
    }
    let path = dir.join(format!("node{node}.txt"));
    std::fs::write(&path, dump).unwrap();
    path
}

fn census(args: &[&std::ffi::OsStr]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .current_dir(root())
        .arg("census")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "census failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Writes every key of the keyspace to the node that owns it.
fn write_keyspace(cluster: &Cluster, keyspace: &[(Vec<u8>, usize)]) {
    let mut per_node: Vec<Vec<Vec<Vec<u8>>>> = vec![Vec::new(); cluster.ports().len()];
    for (k, len) in keyspace {
        let node = cluster.node_for_slot(keyslot::key_slot(k));
        per_node[node].push(vec![b"SET".to_vec(), k.clone(), vec![b'v'; *len]]);
    }
    for (node, cmds) in per_node.iter().enumerate() {
        for r in cluster.conn(node).pipeline(cmds).unwrap() {
            assert_eq!(r, Reply::Simple("OK".into()));
        }
    }
}

/// The dumps hold exactly the keys written, byte for byte.
fn assert_dumps_hold(dumps: &[PathBuf], keyspace: &[(Vec<u8>, usize)]) {
    let mut decoded = BTreeSet::new();
    let mut scratch = Vec::new();
    for path in dumps {
        let text = std::fs::read(path).unwrap();
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            match keylint_census::parse_line(line, keylint_census::KeyForm::Quoted, &mut scratch) {
                keylint_census::Line::Key { key, bytes } => {
                    assert!(bytes.is_some());
                    decoded.insert(key.to_vec());
                }
                other => panic!("{other:?}: {}", String::from_utf8_lossy(line)),
            }
        }
    }
    let written: BTreeSet<Vec<u8>> = keyspace.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(decoded, written);
}

/// Every slot's count against `CLUSTER COUNTKEYSINSLOT`, asked of the slot's owner;
/// returns the bytes of each slot the report gives.
fn assert_slot_counts(cluster: &Cluster, report: &serde_json::Value) -> Vec<u64> {
    let mut counted = vec![0u64; 16384];
    let mut slot_bytes = vec![0u64; 16384];
    for s in report["slots"].as_array().unwrap() {
        let slot = s[0].as_u64().unwrap() as usize;
        counted[slot] = s[1].as_u64().unwrap();
        slot_bytes[slot] = s[2].as_u64().unwrap();
    }
    for node in 0..cluster.ports().len() {
        let slots: Vec<u16> = (0..16384u16)
            .filter(|&s| cluster.node_for_slot(s) == node)
            .collect();
        let cmds: Vec<Vec<Vec<u8>>> = slots
            .iter()
            .map(|s| {
                vec![
                    b"CLUSTER".to_vec(),
                    b"COUNTKEYSINSLOT".to_vec(),
                    s.to_string().into_bytes(),
                ]
            })
            .collect();
        let replies = cluster.conn(node).pipeline(&cmds).unwrap();
        for (s, r) in slots.iter().zip(replies) {
            assert_eq!(
                counted[usize::from(*s)],
                r.as_int().unwrap() as u64,
                "slot {s}"
            );
        }
    }
    slot_bytes
}

/// Every node's total against `DBSIZE`, its bytes and each slot's against `MEMORY
/// USAGE` (`truth`: each node's keys with their usage).
fn assert_totals(
    cluster: &Cluster,
    report: &serde_json::Value,
    truth: &[Vec<(Vec<u8>, u64)>],
    slot_bytes: &[u64],
    keys: usize,
) {
    let json_nodes = report["nodes"].as_array().unwrap();
    assert_eq!(json_nodes.len(), 3);
    let mut total_bytes = 0;
    for (node, port) in cluster.ports().iter().enumerate() {
        let n = json_nodes
            .iter()
            .find(|n| n["node"] == format!("127.0.0.1:{port}"))
            .unwrap();
        let dbsize = cluster
            .conn(node)
            .cmd(&["DBSIZE"])
            .unwrap()
            .as_int()
            .unwrap();
        assert_eq!(n["keys"].as_u64().unwrap(), dbsize as u64, "node {port}");
        let usage: u64 = truth[node].iter().map(|(_, b)| b).sum();
        assert_eq!(n["bytes"].as_u64().unwrap(), usage, "node {port}");
        total_bytes += usage;
    }
    assert_eq!(report["bytes"].as_u64().unwrap(), total_bytes);
    assert_eq!(report["keys"].as_u64().unwrap(), keys as u64);
    let mut per_slot_usage = vec![0u64; 16384];
    for (k, b) in truth.iter().flatten() {
        per_slot_usage[usize::from(keyslot::key_slot(k))] += b;
    }
    assert_eq!(slot_bytes, per_slot_usage);
}

/// The findings: the hot tenant and the constant tag, with the code that builds them.
fn assert_findings(report: &serde_json::Value) {
    let findings = report["findings"].as_array().unwrap();
    let acme = keyslot::key_slot(b"{tenant:acme}");
    let global = keyslot::key_slot(b"{global}");
    let hot = findings
        .iter()
        .find(|f| f["rule"] == "hot-slot" && f["slot"] == acme)
        .expect("the hot tenant's slot is above a node's fair share");
    assert_eq!(hot["family"], "q:{tenant:<*>}:jobs:<n>");
    let broad = |tag: &str| {
        findings
            .iter()
            .find(|f| f["code"] == "RK105" && f["message"].as_str().unwrap().contains(tag))
            .unwrap_or_else(|| panic!("no broad-hash-tag finding for {tag}: {findings:#?}"))
    };
    assert_eq!(broad("{tenant:acme}")["slot"], acme);
    assert_eq!(broad("{global}")["slot"], global);
    for (code, family) in [
        ("RK101", "lock:{}:order:<n>"),
        ("RK102", "idx:{{shard}}:<n>"),
        ("RK103", "{user:<n>}:{profile}"),
        ("RK104", "broken:{:<n>"),
    ] {
        assert!(
            findings
                .iter()
                .any(|f| f["code"] == code && f["family"] == family),
            "{code} on {family}: {findings:#?}"
        );
    }
}

/// The families, their tags and the code that builds them.
fn assert_families(report: &serde_json::Value) {
    let acme = keyslot::key_slot(b"{tenant:acme}");
    let families = report["families"].as_array().unwrap();
    let family = |t: &str| {
        families
            .iter()
            .find(|f| f["family"] == t)
            .unwrap_or_else(|| panic!("no family {t}: {families:#?}"))
    };
    let q = family("q:{tenant:<*>}:jobs:<n>");
    assert_eq!(q["keys"], 4000);
    assert_eq!(q["tag"], "low-cardinality");
    assert_eq!(q["top_tags"][0]["tag"], "tenant:acme");
    assert_eq!(q["top_tags"][0]["keys"], 2800);
    assert_eq!(q["hottest_slot"], acme);
    assert_eq!(q["code"]["path"], "fixtures/census/app/jobs.py");
    assert_eq!(q["code"]["line"], 9);
    let g = family("{global}:session:<hex>");
    assert_eq!(g["keys"], 900);
    assert_eq!(g["tag"], "constant");
    assert_eq!(g["distinct_slots"], 1);
    assert_eq!(g["code"]["line"], 8);
    let u = family("user:{<n>}:cart");
    assert_eq!(u["tag"], "per-id");
    assert_eq!(u["distinct_slots"], u["keys"].as_u64().unwrap().min(1500));
    assert_eq!(family("cache:page:<n>")["tag"], "none");
    assert!(report["code_not_in_data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["template"] == "audit:<day>:log"));
}

/// `CLUSTER SHARDS` as redis-cli prints it, in both forms, gives the same layout as
/// `CLUSTER NODES`.
fn assert_shards_agree(
    cli: &Path,
    cluster: &Cluster,
    dir: &Path,
    dumps: &[PathBuf],
    report: &serde_json::Value,
) {
    let port = cluster.ports()[0].to_string();
    for form in ["--raw", "--no-raw"] {
        let out = Command::new(cli)
            .args(["-p", &port, form, "CLUSTER", "SHARDS"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let shards = dir.join(format!("shards{form}.txt"));
        std::fs::write(&shards, &out.stdout).unwrap();
        let mut a: Vec<&std::ffi::OsStr> = vec![os("--nodes"), shards.as_os_str()];
        a.extend(dumps.iter().map(|p| p.as_os_str()));
        a.extend([os("--format"), os("json")]);
        let (out, _) = census(&a);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["nodes"], report["nodes"], "CLUSTER SHARDS {form}");
    }
}

#[test]
fn census_agrees_with_the_cluster() {
    let cluster = Cluster::start();
    let keyspace = keyspace();
    write_keyspace(&cluster, &keyspace);

    let dir = std::env::var_os("KEYLINT_CENSUS_KEEP")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let d = std::env::temp_dir().join(format!("keylint-census-{}", std::process::id()));
            d
        });
    std::fs::create_dir_all(&dir).unwrap();
    let cli = redis_cli();
    let mut dumps = Vec::new();
    let mut truth: Vec<Vec<(Vec<u8>, u64)>> = Vec::new();
    for node in 0..cluster.ports().len() {
        let keys = scan(&mut cluster.conn(node));
        let path = match &cli {
            Some(cli) => dump_with_redis_cli(cli, cluster.ports()[node], &dir, node),
            None => dump_with_client(&keys, &dir, node),
        };
        dumps.push(path);
        truth.push(keys);
    }
    assert_dumps_hold(&dumps, &keyspace);

    let nodes = match cluster.conn(0).cmd(&["CLUSTER", "NODES"]).unwrap() {
        Reply::Bulk(Some(b)) => b,
        other => panic!("CLUSTER NODES: {other:?}"),
    };
    let nodes_path = dir.join("nodes.txt");
    std::fs::write(&nodes_path, &nodes).unwrap();

    let mut args: Vec<&std::ffi::OsStr> = vec![os("--nodes"), nodes_path.as_os_str()];
    args.extend(dumps.iter().map(|p| p.as_os_str()));
    let mut json_args = args.clone();
    json_args.extend([os("--format"), os("json")]);
    json_args.extend([os("--code"), os("fixtures/census/app")]);
    let (out, _) = census(&json_args);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();

    let slot_bytes = assert_slot_counts(&cluster, &report);
    assert_totals(&cluster, &report, &truth, &slot_bytes, keyspace.len());
    assert_findings(&report);
    assert_families(&report);

    // The human report and the plot of the same run.
    let mut human_args = args.clone();
    human_args.extend([os("--code"), os("fixtures/census/app")]);
    let svg_path = dir.join("census.svg");
    human_args.extend([os("--plot"), svg_path.as_os_str()]);
    let (text, stderr) = census(&human_args);
    assert!(stderr.is_empty(), "{stderr}");
    assert!(
        text.contains("built at fixtures/census/app/jobs.py:9"),
        "{text}"
    );
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains(r#"class="node-boundary" data-slot="5461""#));
    assert!(svg.contains(r#"class="node-boundary" data-slot="10923""#));
    if let Some(cli) = &cli {
        assert_shards_agree(cli, &cluster, &dir, &dumps, &report);
    }
    if std::env::var_os("KEYLINT_CENSUS_KEEP").is_some() {
        std::fs::write(dir.join("census.txt"), &text).unwrap();
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
