//! Baselines: adopt the linter on a codebase with existing findings.
//!
//! `--write-baseline FILE` records a fingerprint of every finding; `--baseline FILE`
//! drops the findings whose fingerprint is recorded. A fingerprint hashes the rule,
//! the path and the normalized text of the offending line and span — never the line
//! number — so unrelated edits that shift lines do not resurrect old findings. Equal
//! fingerprints are counted, so a second copy of an old mistake is still reported.

use keylint_core::Finding;
use std::collections::HashMap;
use std::path::Path;

/// FNV-1a, 64 bits: stable across runs, platforms and versions (unlike `std`'s hasher).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The path as recorded: forward slashes, no leading `./`.
pub fn normalized_path(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// The stable fingerprint of a finding in a file.
pub fn fingerprint(path: &Path, source: &str, f: &Finding) -> String {
    let span = crate::render::clamp(source, &f.primary.span);
    let line_start = source[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[span.end..]
        .find('\n')
        .map_or(source.len(), |i| span.end + i);
    let line = normalize(&source[line_start..line_end]);
    let text = normalize(&source[span]);
    format!(
        "{:016x}",
        fnv1a(&[
            f.rule.name().as_bytes(),
            normalized_path(path).as_bytes(),
            line.as_bytes(),
            text.as_bytes(),
        ])
    )
}

/// A loaded baseline: how many findings of each (rule, path, fingerprint) to forgive.
#[derive(Debug, Default)]
pub struct Baseline {
    counts: HashMap<(String, String, String), usize>,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the baseline: {e}", path.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a baseline file: {e}", path.display()))?;
        let list = v["findings"].as_array().ok_or_else(|| {
            format!(
                "{}: not a baseline file: no `findings` array",
                path.display()
            )
        })?;
        let mut b = Baseline::default();
        for item in list {
            let get = |k: &str| {
                item[k]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{}: a baseline entry has no `{k}`", path.display()))
            };
            *b.counts
                .entry((get("rule")?, get("path")?, get("fingerprint")?))
                .or_default() += 1;
        }
        Ok(b)
    }

    /// True (and consumes the entry) when the finding is in the baseline.
    pub fn forgive(&mut self, path: &Path, source: &str, f: &Finding) -> bool {
        let key = (
            f.rule.name().to_string(),
            normalized_path(path),
            fingerprint(path, source, f),
        );
        match self.counts.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

/// The baseline file for a set of findings.
pub fn to_json<'a>(
    items: impl Iterator<Item = (&'a Path, &'a str, &'a Finding)>,
) -> serde_json::Value {
    let findings: Vec<serde_json::Value> = items
        .map(|(path, source, f)| {
            serde_json::json!({
                "rule": f.rule.name(),
                "path": normalized_path(path),
                "fingerprint": fingerprint(path, source, f),
                "message": f.message,
            })
        })
        .collect();
    serde_json::json!({
        "tool": "redis-keylint",
        "version": 1,
        "findings": findings,
    })
}
