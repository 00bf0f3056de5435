//! The node-redis major version a project depends on, from the nearest
//! `package.json` above the file that names `redis` among its dependencies, read
//! through the loader the binary hands the frontend.
//!
//! node-redis 6 splits `mGet`, `mSet`, `del`, `unlink`, `exists` and `touch` by slot
//! on a cluster; 4 and 5 send them whole (see docs/javascript-clients.md).

use crate::{FileLoader, Library};

/// Most directories looked at above the file.
const MAX_LEVELS: usize = 8;

/// The major of the `redis` dependency of the nearest `package.json` that has one;
/// `None` when none says, or its version is not a plain range.
pub(crate) fn node_redis_major(loader: &dyn FileLoader) -> Option<u32> {
    let mut path = String::from("package.json");
    for _ in 0..MAX_LEVELS {
        if let Some(text) = loader.load(&path, true) {
            if let Some(spec) = redis_dependency(&text) {
                return major_of(&spec);
            }
        }
        path.insert_str(0, "../");
    }
    None
}

/// The client library of the nearest `package.json` that names `ioredis` or `redis`
/// (`@redis/client`) among its dependencies; `None` when none does, or the nearest
/// names both.
#[cfg(test)]
fn project_library(loader: &dyn FileLoader) -> Option<Library> {
    nearest_clients(loader).and_then(library_of)
}

/// The one client library `(ioredis, node-redis)` names, if only one is named.
pub(crate) fn library_of((io, node): (bool, bool)) -> Option<Library> {
    match (io, node) {
        (true, false) => Some(Library::IoRedis),
        (false, true) => Some(Library::NodeRedis),
        _ => None,
    }
}

/// Whether the nearest `package.json` that names `ioredis` or `redis`
/// (`@redis/client`) among its dependencies names each: `(ioredis, node-redis)`;
/// `None` when none within reach does.
pub(crate) fn nearest_clients(loader: &dyn FileLoader) -> Option<(bool, bool)> {
    let mut path = String::from("package.json");
    for _ in 0..MAX_LEVELS {
        if let Some(text) = loader.load(&path, true) {
            let io = dependency(&text, "ioredis").is_some();
            let node = dependency(&text, "redis").is_some()
                || dependency(&text, "@redis/client").is_some();
            if io || node {
                return Some((io, node));
            }
        }
        path.insert_str(0, "../");
    }
    None
}

/// The version range a `package.json` gives `redis`, if it names it.
fn redis_dependency(text: &str) -> Option<String> {
    dependency(text, "redis")
}

/// The version range a `package.json` gives a package, if it names it.
fn dependency(text: &str, name: &str) -> Option<String> {
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ]
    .iter()
    .find_map(|k| json.get(k)?.get(name)?.as_str().map(str::to_string))
}

/// The major of a plain npm range (`^4.6.7`, `~5.1`, `6.0.0`, `4.x`); `None` for
/// ranges that allow several majors (`>=4`, `>=4 <6`, `4 || 5`), tags and aliases.
fn major_of(spec: &str) -> Option<u32> {
    let s = spec.trim();
    if s.contains([' ', '|', '<', '>']) {
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

    struct Files(Vec<(&'static str, &'static str)>);

    impl FileLoader for Files {
        fn load(&self, path: &str, _: bool) -> Option<String> {
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.to_string())
        }
    }

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

    #[test]
    fn nearest_package_that_names_redis() {
        let files = Files(vec![
            ("package.json", r#"{"dependencies": {"ioredis": "^5"}}"#),
            (
                "../../package.json",
                r#"{"devDependencies": {"redis": "^4.7.1"}}"#,
            ),
        ]);
        assert_eq!(node_redis_major(&files), Some(4));
        assert_eq!(node_redis_major(&Files(vec![])), None);
        assert_eq!(project_library(&files), Some(Library::IoRedis));
    }

    #[test]
    fn library_of_the_nearest_package_that_names_one() {
        let node = Files(vec![
            ("package.json", r#"{"name": "app"}"#),
            (
                "../package.json",
                r#"{"dependencies": {"redis": "^3.1.2"}}"#,
            ),
        ]);
        assert_eq!(project_library(&node), Some(Library::NodeRedis));
        let both = Files(vec![(
            "package.json",
            r#"{"dependencies": {"redis": "^4", "ioredis": "^5"}}"#,
        )]);
        assert_eq!(project_library(&both), None);
        assert_eq!(project_library(&Files(vec![])), None);
    }
}
