//! Configuration: `redis-keylint.toml`, or `[tool.redis-keylint]` in `pyproject.toml`,
//! found by walking up from each linted file (the nearest one wins, as in ruff), or
//! named with `--config`. Without any file, the embedded defaults apply.
//!
//! Every error names the file, the line and column, and the key, and makes the run
//! exit with status 2: a typo in a config must never silently disable a rule.

use globset::{Glob, GlobSet, GlobSetBuilder};
use keylint_core::rules::{Settings, DEFAULT_BROAD_IDENTITIES};
use keylint_core::{Rule, Severity};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Directories never walked unless configured otherwise (`exclude` replaces this list,
/// `extend-exclude` adds to it). Hidden directories and `.gitignore`d paths are
/// skipped by the walker anyway.
pub const DEFAULT_EXCLUDE: &[&str] = &[
    "node_modules",
    "venv",
    "site-packages",
    "__pypackages__",
    "_build",
    "buck-out",
];

/// The file names searched for, nearest first.
pub const CONFIG_FILES: &[&str] = &["redis-keylint.toml", "pyproject.toml"];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    exclude: Option<Vec<Spanned<String>>>,
    extend_exclude: Option<Vec<Spanned<String>>>,
    per_file_ignores: Option<BTreeMap<Spanned<String>, Vec<Spanned<String>>>>,
    max_file_size: Option<u64>,
    broad_hash_tag: Option<RawBroad>,
    cross_slot_likely: Option<RawLikely>,
    python: Option<RawPython>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLikely {
    untagged_values: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBroad {
    identities: Option<Vec<String>>,
    extend_identities: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawPython {
    receivers: Option<Vec<String>>,
    client: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
struct PyProject {
    tool: Option<PyTool>,
}

#[derive(Debug, Deserialize)]
struct PyTool {
    #[serde(rename = "redis-keylint")]
    redis_keylint: Option<RawConfig>,
}

/// A configuration error, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Which client a call site is assumed to use when the code does not say.
pub use keylint_core::frontend::ClientProfile;

/// A resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
    /// The directory globs are relative to.
    pub root: PathBuf,
    /// Rules that run.
    pub enabled: BTreeSet<Rule>,
    /// Severity overrides.
    pub severity: BTreeMap<Rule, Severity>,
    exclude: GlobSet,
    per_file_ignores: Vec<(GlobSet, Vec<Rule>)>,
    /// Files larger than this are skipped with a warning.
    pub max_file_size: Option<u64>,
    /// What the rules read.
    pub settings: Settings,
    /// Names that hold a redis-py client in code that receives it from elsewhere.
    pub python_receivers: Vec<String>,
    /// The default client profile for Python.
    pub client: ClientProfile,
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn glob_set(
    patterns: &[&Spanned<String>],
    err: &dyn Fn(&Spanned<String>, String) -> ConfigError,
) -> Result<GlobSet, ConfigError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        for pat in expand_glob(p.get_ref()) {
            let g =
                Glob::new(&pat).map_err(|e| err(p, format!("bad glob `{}`: {e}", p.get_ref())))?;
            b.add(g);
        }
    }
    b.build().map_err(|e| ConfigError {
        path: PathBuf::new(),
        position: None,
        message: e.to_string(),
    })
}

/// A pattern without a `/` matches at any depth (`vendor` ⇒ `**/vendor`), and a
/// directory pattern matches everything below it.
fn expand_glob(p: &str) -> Vec<String> {
    let p = p.trim_end_matches('/');
    let base = if p.contains('/') {
        p.trim_start_matches("./").to_string()
    } else {
        format!("**/{p}")
    };
    vec![base.clone(), format!("{base}/**")]
}

impl Config {
    /// The embedded defaults, rooted at `root`.
    pub fn defaults(root: &Path) -> Config {
        let none = |_: &Spanned<String>, m: String| ConfigError {
            path: PathBuf::new(),
            position: None,
            message: m,
        };
        let defaults: Vec<Spanned<String>> = DEFAULT_EXCLUDE
            .iter()
            .map(|s| Spanned::new(0..0, s.to_string()))
            .collect();
        Config {
            path: None,
            root: root.to_path_buf(),
            enabled: Rule::ALL
                .iter()
                .copied()
                .filter(|r| r.enabled_by_default())
                .collect(),
            severity: BTreeMap::new(),
            exclude: glob_set(&defaults.iter().collect::<Vec<_>>(), &none)
                .expect("default globs are valid"),
            per_file_ignores: Vec::new(),
            max_file_size: None,
            settings: Settings::default(),
            python_receivers: Vec::new(),
            client: ClientProfile::Cluster,
        }
    }

    /// Reads a config file. `Ok(None)` for a `pyproject.toml` without a
    /// `[tool.redis-keylint]` table.
    pub fn load(path: &Path) -> Result<Option<Config>, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            position: None,
            message: format!("cannot read: {e}"),
        })?;
        let de_err = |e: toml::de::Error| ConfigError {
            path: path.to_path_buf(),
            position: e.span().map(|s| line_col(&text, s.start)),
            message: e.message().trim().to_string(),
        };
        let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
        let raw = if is_pyproject {
            if !text.contains("redis-keylint") {
                return Ok(None);
            }
            let py: PyProject = toml::from_str(&text).map_err(de_err)?;
            match py.tool.and_then(|t| t.redis_keylint) {
                Some(r) => r,
                None => return Ok(None),
            }
        } else {
            toml::from_str::<RawConfig>(&text).map_err(de_err)?
        };
        let root = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Config::resolve(raw, path, &text, &root).map(Some)
    }

    fn resolve(
        raw: RawConfig,
        path: &Path,
        text: &str,
        root: &Path,
    ) -> Result<Config, ConfigError> {
        let err = |s: &Spanned<String>, message: String| ConfigError {
            path: path.to_path_buf(),
            position: Some(line_col(text, s.span().start)),
            message,
        };
        let rule = |s: &Spanned<String>| {
            Rule::from_name_or_code(s.get_ref()).ok_or_else(|| {
                err(
                    s,
                    format!(
                        "unknown rule `{}`; `redis-keylint rules` lists them all",
                        s.get_ref()
                    ),
                )
            })
        };
        let mut c = Config::defaults(root);
        c.path = Some(path.to_path_buf());
        if let Some(sel) = &raw.select {
            c.enabled = sel.iter().map(rule).collect::<Result<_, _>>()?;
        }
        for r in raw.ignore.iter().flatten() {
            c.enabled.remove(&rule(r)?);
        }
        for (k, v) in raw.severity.iter().flatten() {
            let r = rule(k)?;
            let s = Severity::parse(v.get_ref()).ok_or_else(|| {
                err(
                    v,
                    format!(
                        "bad severity `{}` for `{}`; expected `error`, `warning` or `info`",
                        v.get_ref(),
                        k.get_ref()
                    ),
                )
            })?;
            c.severity.insert(r, s);
        }
        let defaults: Vec<Spanned<String>> = DEFAULT_EXCLUDE
            .iter()
            .map(|s| Spanned::new(0..0, s.to_string()))
            .collect();
        let mut excludes: Vec<&Spanned<String>> = match &raw.exclude {
            Some(e) => e.iter().collect(),
            None => defaults.iter().collect(),
        };
        excludes.extend(raw.extend_exclude.iter().flatten());
        c.exclude = glob_set(&excludes, &err)?;
        for (pattern, rules) in raw.per_file_ignores.iter().flatten() {
            let set = glob_set(&[pattern], &err)?;
            let rules = rules.iter().map(rule).collect::<Result<Vec<_>, _>>()?;
            c.per_file_ignores.push((set, rules));
        }
        c.max_file_size = raw.max_file_size;
        if let Some(b) = raw.broad_hash_tag {
            let mut ids: Vec<String> = match b.identities {
                Some(ids) => ids,
                None => DEFAULT_BROAD_IDENTITIES
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            };
            ids.extend(b.extend_identities.unwrap_or_default());
            c.settings.broad_identities = ids;
        }
        if let Some(l) = raw.cross_slot_likely {
            if let Some(v) = l.untagged_values {
                c.settings.untagged_values = v;
            }
        }
        if let Some(p) = raw.python {
            c.python_receivers = p.receivers.unwrap_or_default();
            if let Some(client) = p.client {
                c.client = match client.get_ref().as_str() {
                    "cluster" => ClientProfile::Cluster,
                    "standalone" => ClientProfile::Standalone,
                    other => {
                        return Err(err(
                            &client,
                            format!("bad client `{other}`; expected `cluster` or `standalone`"),
                        ))
                    }
                }
            }
        }
        Ok(c)
    }

    fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        let p = path.strip_prefix(&self.root).unwrap_or(path);
        p.strip_prefix(".").unwrap_or(p)
    }

    /// True when a file found by walking is excluded.
    pub fn is_excluded(&self, path: &Path) -> bool {
        self.exclude.is_match(self.relative(path))
    }

    /// The rules ignored for this file by `per-file-ignores`.
    pub fn ignored_for(&self, path: &Path) -> Vec<Rule> {
        let rel = self.relative(path);
        self.per_file_ignores
            .iter()
            .filter(|(set, _)| set.is_match(rel))
            .flat_map(|(_, rules)| rules.iter().copied())
            .collect()
    }
}

/// Finds the nearest config for each directory, caching by directory.
#[derive(Debug, Default)]
pub struct Resolver {
    explicit: Option<std::sync::Arc<Config>>,
    cache: HashMap<PathBuf, Option<std::sync::Arc<Config>>>,
    defaults: Option<std::sync::Arc<Config>>,
    /// The working directory, read once.
    cwd: Option<PathBuf>,
}

impl Resolver {
    /// A resolver that always answers `config` (from `--config`).
    pub fn explicit(config: Config) -> Resolver {
        Resolver {
            explicit: Some(std::sync::Arc::new(config)),
            ..Resolver::default()
        }
    }

    /// The config that governs `path` (a file or a directory).
    pub fn for_path(&mut self, path: &Path) -> Result<std::sync::Arc<Config>, ConfigError> {
        let is_dir = path.is_dir();
        self.for_entry(path, is_dir)
    }

    /// [`Resolver::for_path`] when the caller already knows whether `path` is a
    /// directory (a walk does): no file-system call when the answer is cached.
    pub fn for_entry(
        &mut self,
        path: &Path,
        is_dir: bool,
    ) -> Result<std::sync::Arc<Config>, ConfigError> {
        if let Some(c) = &self.explicit {
            return Ok(c.clone());
        }
        let cwd = self
            .cwd
            .get_or_insert_with(|| std::env::current_dir().unwrap_or_default())
            .clone();
        // Like `std::path::absolute`, without asking for the working directory again.
        let abs = cwd.join(path);
        let start = if is_dir {
            abs.clone()
        } else {
            abs.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        if let Some(hit) = self.cache.get(start.as_path()) {
            return Ok(match hit {
                Some(c) => c.clone(),
                None => self.defaults(),
            });
        }
        let mut visited = Vec::new();
        let mut dir = Some(start.as_path());
        let mut found = None;
        while let Some(d) = dir {
            if let Some(hit) = self.cache.get(d) {
                found = hit.clone();
                break;
            }
            visited.push(d.to_path_buf());
            let mut here = None;
            for name in CONFIG_FILES {
                let candidate = d.join(name);
                if candidate.is_file() {
                    // Messages name the file as the user would: relative to here.
                    let shown = candidate.strip_prefix(&cwd).unwrap_or(&candidate);
                    if let Some(mut c) = Config::load(shown)? {
                        // Globs are relative to the config's directory as the user
                        // wrote paths: keep the walk's relative form when possible.
                        c.root = relative_root(path, d);
                        here = Some(std::sync::Arc::new(c));
                        break;
                    }
                }
            }
            if here.is_some() {
                found = here;
                break;
            }
            dir = d.parent();
        }
        for v in visited {
            self.cache.insert(v, found.clone());
        }
        Ok(match found {
            Some(c) => c,
            None => self.defaults(),
        })
    }

    fn defaults(&mut self) -> std::sync::Arc<Config> {
        self.defaults
            .get_or_insert_with(|| std::sync::Arc::new(Config::defaults(Path::new("."))))
            .clone()
    }
}

/// The config directory `dir` (absolute) expressed the way `path` is written, so that
/// stripping it from walked paths gives paths relative to the config.
fn relative_root(path: &Path, dir: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    if path.is_relative() {
        if let Ok(rel) = dir.strip_prefix(&cwd) {
            return if rel.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                rel.to_path_buf()
            };
        }
    }
    dir.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, name: &str) -> Result<Option<Config>, ConfigError> {
        let d = std::env::temp_dir().join(format!(
            "keylint-config-test-{}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        let r = Config::load(&p);
        let _ = std::fs::remove_dir_all(&d);
        r
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let e = load(
            "select = [\"cross-slot\"]\nselekt = []\n",
            "redis-keylint.toml",
        )
        .unwrap_err();
        assert_eq!(e.position, Some((2, 1)));
        assert!(
            e.message.contains("unknown field `selekt`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn unknown_rule_and_bad_values() {
        let e = load(
            "ignore = [\"cross-slot\", \"nope\"]\n",
            "redis-keylint.toml",
        )
        .unwrap_err();
        assert_eq!(e.position, Some((1, 25)));
        assert!(e.message.contains("unknown rule `nope`"));
        let e = load("[severity]\ncross-slot = \"fatal\"\n", "redis-keylint.toml").unwrap_err();
        assert!(e.message.contains("bad severity `fatal`"));
        let e = load("extend-exclude = [\"a[\"]\n", "redis-keylint.toml").unwrap_err();
        assert!(e.message.contains("bad glob"), "{}", e.message);
        let e = load("[python]\nclient = \"sentinel\"\n", "redis-keylint.toml").unwrap_err();
        assert_eq!(e.position, Some((2, 10)));
    }

    #[test]
    fn pyproject_table() {
        assert!(load("[tool.black]\nline-length = 1\n", "pyproject.toml")
            .unwrap()
            .is_none());
        let c = load(
            "[tool.black]\nx = 1\n[tool.redis-keylint]\nignore = [\"RK002\"]\n[tool.redis-keylint.severity]\nbroad-hash-tag = \"error\"\n",
            "pyproject.toml",
        )
        .unwrap()
        .unwrap();
        assert!(!c.enabled.contains(&Rule::CrossSlotLikely));
        assert_eq!(c.severity[&Rule::BroadHashTag], Severity::Error);
        let e = load("[tool.redis-keylint]\nbogus = 1\n", "pyproject.toml").unwrap_err();
        assert_eq!(e.position, Some((2, 1)));
    }

    #[test]
    fn excludes_and_per_file_ignores() {
        let c = load(
            "extend-exclude = [\"generated\", \"legacy/*.lua\"]\n[per-file-ignores]\n\"tests/**\" = [\"cross-slot\"]\n",
            "redis-keylint.toml",
        )
        .unwrap()
        .unwrap();
        let root = c.root.clone();
        assert!(c.is_excluded(&root.join("a/generated/x.lua")));
        assert!(c.is_excluded(&root.join("legacy/x.lua")));
        assert!(c.is_excluded(&root.join("node_modules/x.lua")));
        assert!(!c.is_excluded(&root.join("src/x.lua")));
        assert_eq!(
            c.ignored_for(&root.join("tests/a/b.redis")),
            [Rule::CrossSlot]
        );
        assert!(c.ignored_for(&root.join("src/b.redis")).is_empty());
    }
}
