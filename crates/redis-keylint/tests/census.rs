//! `redis-keylint census` offline: input forms, standard input, the layout projection
//! and the SVG plot.

use std::io::Write;
use std::process::{Command, Stdio};

fn census(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .arg("census")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn dump() -> Vec<u8> {
    let mut d = Vec::new();
    for i in 0..2000 {
        writeln!(d, "\"user:{{{i}}}:cart\"\t{}", 50 + i % 7).unwrap();
        if i % 2 == 0 {
            writeln!(d, "{{global}}:session:{i}\t100").unwrap();
        }
    }
    d.extend_from_slice(b"\"odd:\\xff\\tkey\"\t9\n");
    d
}

/// Checks that `svg` is well-formed XML as far as this plot goes: every tag closed in
/// order, attributes quoted, text escaped.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        assert!(!text.contains('>'), "stray `>` in text: {text}");
        if let Some(amp) = text.find('&') {
            let ent = &text[amp..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "bad entity in {text}"
            );
        }
        let close = rest[open..].find('>').expect("unclosed tag") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
        assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap().to_string();
            stack.push(name);
        }
        rest = &rest[close + 1..];
    }
    assert!(rest.trim().is_empty());
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

#[test]
fn stdin_json_and_projection() {
    let (code, out, err) = census(&["-", "--masters", "4", "--format", "json"], &dump());
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["keys"], 3001);
    assert_eq!(v["projected_layout"], true);
    let nodes = v["nodes"].as_array().unwrap();
    let ranges: Vec<_> = nodes.iter().map(|n| n["slots"][0].clone()).collect();
    assert_eq!(
        ranges,
        [[0, 4095], [4096, 8191], [8192, 12287], [12288, 16383]]
            .map(|r| serde_json::json!(r))
            .to_vec()
    );
    let keys: u64 = nodes.iter().map(|n| n["keys"].as_u64().unwrap()).sum();
    assert_eq!(keys, 3001);
    let families = v["families"].as_array().unwrap();
    assert_eq!(families[0]["family"], "user:{<n>}:cart");
    assert_eq!(families[1]["family"], "{global}:session:<n>");
    assert_eq!(families[1]["tag"], "constant");
    assert!(families.iter().any(|f| f["example"] == "odd:\\xff\\x09key"));
    // A third of the keys in one slot, on 4 masters: a hot slot.
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "hot-slot"));
}

#[test]
fn quoted_input_rejects_raw_lines() {
    let (code, out, err) = census(&["--input", "quoted"], b"\"a\"\nplain\n\"b\\x00\"\n");
    assert_eq!(code, 0);
    assert!(out.starts_with("census: 2 keys"), "{out}");
    assert!(
        err.contains("1 lines are not quoted keys (lines 2"),
        "{err}"
    );
}

#[test]
fn plot_is_well_formed_with_node_boundaries_where_the_layout_says() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("plot.svg");
    let nodes = dir.path().join("nodes.txt");
    std::fs::write(
        &nodes,
        "a 127.0.0.1:7000@17000 master - 0 0 1 connected 0-1000\n\
         b 127.0.0.1:7001@17001 master - 0 0 2 connected 1001-9000\n\
         c 127.0.0.1:7002@17002 myself,master - 0 0 3 connected 9001-16383\n",
    )
    .unwrap();
    let (code, _, err) = census(
        &[
            "--nodes",
            nodes.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
        ],
        &dump(),
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_well_formed(&text);
    let boundaries: Vec<&str> = text
        .match_indices(r#"class="node-boundary" data-slot=""#)
        .map(|(i, m)| {
            let from = i + m.len();
            &text[from..from + text[from..].find('"').unwrap()]
        })
        .collect();
    assert_eq!(boundaries, ["1001", "9001"]);
    // Each boundary is drawn where its slot is on the strip.
    for (slot, x) in [(1001.0, "x1=\""), (9001.0, "x1=\"")] {
        let at = text.find(&format!("data-slot=\"{slot}\"")).unwrap();
        let line = &text[at..at + text[at..].find("/>").unwrap()];
        let xs = &line[line.find(x).unwrap() + x.len()..];
        let xv: f64 = xs[..xs.find('"').unwrap()].parse().unwrap();
        let expected = 20.0 + slot * (1200.0 - 40.0) / 16384.0;
        assert!((xv - expected).abs() < 0.01, "{slot}: {xv} vs {expected}");
    }
    assert!(text.contains("127.0.0.1:7001"));
}
