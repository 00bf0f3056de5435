//! The node-redis major version a JavaScript project depends on, from the nearest
//! `package.json` above a file that names `redis` among its dependencies.
//!
//! node-redis 6 splits `mGet`, `mSet`, `del`, `unlink`, `exists` and `touch` by slot
//! on a cluster; 4 and 5 send them whole (see docs/javascript-clients.md), so the
//! JavaScript frontend is told the major when the project says it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Most directories looked at above a file.
const MAX_LEVELS: usize = 8;

/// The major of the `redis` dependency of the nearest `package.json` above `dir`
/// that has one; `None` when none says, or its version is not a plain range.
pub fn node_redis_major(dir: &Path) -> Option<u32> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Option<u32>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(m) = cache.lock().ok()?.get(dir) {
        return *m;
    }
    let mut found = None;
    let mut cur: Option<&Path> = Some(dir);
    for _ in 0..MAX_LEVELS {
        let Some(d) = cur else { break };
        let base = if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d
        };
        if let Some(spec) = redis_dependency(&base.join("package.json")) {
            found = major_of(&spec);
            break;
        }
        cur = d.parent();
    }
    if let Ok(mut c) = cache.lock() {
        c.insert(dir.to_path_buf(), found);
    }
    found
}

/// The version range a `package.json` gives `redis`, if it names it.
fn redis_dependency(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ]
    .iter()
    .find_map(|k| json.get(k)?.get("redis")?.as_str().map(str::to_string))
}

/// The major of a plain npm range (`^4.6.7`, `~5.1`, `6.0.0`, `4.x`, `>=4.2.0`);
/// `None` for ranges that allow several majors (`>=4 <6`, `4 || 5`), tags and aliases.
fn major_of(spec: &str) -> Option<u32> {
    let s = spec.trim();
    if s.contains(' ') || s.contains('|') || s.contains('<') {
        return None;
    }
    if s.starts_with(">=") || s.starts_with('>') {
        return None;
    }
    let s = s.trim_start_matches(['^', '~', '=', 'v']);
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ranges() {
        assert_eq!(major_of("^4.6.7"), Some(4));
        assert_eq!(major_of("~5.1"), Some(5));
        assert_eq!(major_of("6.0.0"), Some(6));
        assert_eq!(major_of("4.x"), Some(4));
        assert_eq!(major_of(">=4.2.0"), None);
        assert_eq!(major_of("4 || 5"), None);
        assert_eq!(major_of("latest"), None);
        assert_eq!(major_of("npm:redis@4"), None);
    }
}
