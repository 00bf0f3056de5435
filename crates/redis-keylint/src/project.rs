//! The project analysis's view of the file system: where a Python module's imports
//! are, read once per run.
//!
//! The project root of a file is the nearest directory above it with
//! `redis-keylint.toml`, `pyproject.toml`, `setup.py`, `setup.cfg` or `.git` (one
//! inside the file's top package, such as a `setup.py` kept in a package directory,
//! gives way to the nearest one above the package). An
//! absolute import is looked up from the directory above the file's top package
//! (the highest directory of `__init__.py` files above it, or the file's own
//! directory; above the project root when the repository's top directory holds an
//! `__init__.py`), then from the project root and its `src/`, then, when the project
//! root is a uv workspace or one of its members (`[tool.uv.workspace] members` in
//! the nearest `pyproject.toml` above that has the table, up to the repository's
//! `.git`), from each other member's `src/` and directory; a relative one from the
//! file's package. Nothing outside the project root (the workspace's directory for
//! a workspace) is read (symbolic links are
//! followed only when their target is inside), nor files over 1 MiB or not UTF-8.
//! Without a marker, the nearest directory named on the command line above the file
//! is its project root, else the working directory when the file is under it (never
//! the file system's root); without either, the top package's directory is the
//! limit.
//!
//! A JavaScript or TypeScript path specifier (`./keys`, `../lib/queue.js`) is looked
//! up by Node's and TypeScript's rules from the importing file's directory: the file
//! itself when it has a source extension (a `.js`/`.mjs`/`.cjs`/`.jsx` name also
//! stands for the TypeScript file it is compiled from), then the name with each of
//! `.ts .tsx .js .jsx .mjs .cjs .mts .cts`, then `index` with each of them in the
//! directory of that name. Package names are not the project's: nothing under a
//! `node_modules` directory is read. The limit is the nearest directory above with
//! `redis-keylint.toml` or `.git`, else with `package.json`, else the file's own.

use keylint_core::frontend::{ModuleFile, ModuleLoader};
use keylint_core::model::ProjectTags;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Module files larger than this are not read.
const MAX_MODULE_SIZE: u64 = 1 << 20;

/// Files whose directory is a project root.
const ROOT_MARKERS: &[&str] = &[
    "redis-keylint.toml",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    ".git",
];

/// Finds and reads modules for the frontends' project analyses (the Python
/// frontend's [`keylint_python::Project`]); shared by every worker.
#[derive(Debug, Default)]
pub struct Loader {
    /// Per directory of an importing module: the limit and the search roots.
    roots: Mutex<HashMap<PathBuf, Roots>>,
    resolved: Mutex<HashMap<(PathBuf, usize, String), Option<ModuleFile>>>,
    /// Path specifiers already looked up, per importing directory.
    paths: Mutex<HashMap<(PathBuf, String), Option<ModuleFile>>>,
    /// Per directory of an importing JavaScript module: its limit (canonical).
    js_limits: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// The hash of each module text as first read this run.
    hashes: Mutex<HashMap<String, u128>>,
    /// The reverse index of each project root (canonical), built on first use.
    words: Mutex<HashMap<(PathBuf, bool), WordsCell>>,
    /// The uv workspace of each project root ([`uv_workspace`]), read on first use.
    workspaces: Mutex<HashMap<PathBuf, Option<Workspace>>>,
    /// Whether each project root (canonical) writes hash tags, searched on first use.
    tags: Mutex<HashMap<PathBuf, std::sync::Arc<std::sync::OnceLock<ProjectTags>>>>,
    /// [`Loader::working_root`], found on first use.
    working: std::sync::OnceLock<Option<PathBuf>>,
    /// The directories named on the command line (canonical, never the file
    /// system's root): project roots of the files under them that have none.
    named_dirs: Vec<PathBuf>,
}

/// The reverse index of a project: for each capitalised identifier (a class name,
/// by the convention of Python code) and each of
/// [`keylint_core::frontend::INDEXED_API_WORDS`], the module files that hold it; the
/// files that import redis-py ([`keylint_core::frontend::IMPORTS_REDIS_PY`]); and for
/// each name an import statement names, the files whose imports name it
/// ([`keylint_core::frontend::IMPORTED_PREFIX`]). Built whole, or for the imported
/// names alone (which reads no other word).
#[derive(Debug, Default)]
struct Words {
    files: Vec<String>,
    by_word: HashMap<String, Vec<u32>>,
    /// Files too big to read: they may mention any word.
    big: Vec<u32>,
}

/// A project's reverse index, once built (`None`: it could not be).
type WordsCell = Option<std::sync::Arc<Words>>;

/// Python files of one project indexed for mentions, at most: a bigger project gets
/// no reverse index (what it would tell stays unknown).
const MAX_INDEXED_FILES: usize = 20_000;
/// Directory depth walked for the reverse index, at most.
const MAX_INDEX_DEPTH: usize = 24;
/// Directory entries looked at for the reverse index, at most.
const MAX_INDEX_ENTRIES: usize = 200_000;

impl Words {
    /// The Python files under `root` (not hidden directories, `__pycache__`,
    /// `node_modules`, `site-packages`), each read once and cut into words; `None`
    /// past [`MAX_INDEXED_FILES`].
    fn build(root: &Path, only_imports: bool) -> Option<Words> {
        let mut paths = Vec::new();
        let skip = |name: &str| {
            name.starts_with('.')
                || matches!(name, "__pycache__" | "node_modules" | "site-packages")
        };
        walk_project(
            root,
            skip,
            |name| name.ends_with(".py"),
            |path, _| {
                paths.push(path);
                false
            },
        )?;
        paths.sort();
        let mut w = Words::default();
        for p in paths {
            let Some(name) = p.to_str() else { continue };
            let Ok(meta) = std::fs::metadata(&p) else {
                continue;
            };
            let idx = w.files.len() as u32;
            w.files.push(name.to_string());
            if meta.len() > MAX_MODULE_SIZE {
                w.big.push(idx);
                continue;
            }
            let Ok(bytes) = std::fs::read(&p) else {
                w.big.push(idx);
                continue;
            };
            // The names its imports name, as the second wave reads them
            // (`keylint_python::scan_imports`): a module's path segments and the names
            // imported from it.
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let mut named: std::collections::HashSet<&str> = std::collections::HashSet::new();
                let imports = keylint_python::scan_imports(text);
                for imp in &imports {
                    let words = imp
                        .dotted
                        .split('.')
                        .chain(imp.names.iter().map(String::as_str));
                    for n in words.filter(|n| !n.is_empty()) {
                        if named.insert(n) {
                            w.by_word
                                .entry(format!("{}{n}", keylint_core::frontend::IMPORTED_PREFIX))
                                .or_default()
                                .push(idx);
                        }
                    }
                }
            }
            // The importers of a file named alone need no other word: the rest of the
            // text is not cut into words.
            if only_imports {
                continue;
            }
            if keylint_core::frontend::imports_redis_py(&bytes) {
                w.by_word
                    .entry(keylint_core::frontend::IMPORTS_REDIS_PY.to_string())
                    .or_default()
                    .push(idx);
            }
            let mut seen: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
            let mut i = 0;
            while i < bytes.len() {
                let b = bytes[i];
                if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 {
                    let start = i;
                    while i < bytes.len()
                        && (bytes[i].is_ascii_alphanumeric()
                            || bytes[i] == b'_'
                            || bytes[i] >= 0x80)
                    {
                        i += 1;
                    }
                    let tok = &bytes[start..i];
                    let indexed = tok[0].is_ascii_uppercase()
                        || keylint_core::frontend::INDEXED_API_WORDS
                            .iter()
                            .any(|w| w.as_bytes() == tok);
                    if indexed && seen.insert(tok) {
                        if let Ok(t) = std::str::from_utf8(tok) {
                            w.by_word.entry(t.to_string()).or_default().push(idx);
                        }
                    }
                } else {
                    i += 1;
                }
            }
        }
        Some(w)
    }
}

/// Walks the project under `root` depth first, at most [`MAX_INDEX_DEPTH`] levels
/// down, entering neither symbolic links (which may leave the project or loop) nor
/// the directories `skip_dir` names, and calls `visit` with each file whose name
/// `want_file` takes: `None` past [`MAX_INDEX_ENTRIES`] directory entries or
/// [`MAX_INDEXED_FILES`] files taken, `Some(true)` as soon as `visit` says to stop,
/// else `Some(false)`.
pub(crate) fn walk_project(
    root: &Path,
    skip_dir: impl Fn(&str) -> bool,
    want_file: impl Fn(&str) -> bool,
    mut visit: impl FnMut(PathBuf, &str) -> bool,
) -> Option<bool> {
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let (mut entries, mut files) = (0usize, 0usize);
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            entries += 1;
            if entries > MAX_INDEX_ENTRIES {
                return None;
            }
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if !skip_dir(name) && depth < MAX_INDEX_DEPTH {
                    stack.push((e.path(), depth + 1));
                }
            } else if ft.is_file() && want_file(name) {
                files += 1;
                if files > MAX_INDEXED_FILES {
                    return None;
                }
                if visit(e.path(), name) {
                    return Some(true);
                }
            }
        }
    }
    Some(false)
}

/// A uv workspace: its directory and its other members' directories (canonical).
type Workspace = (PathBuf, Vec<PathBuf>);

/// Pyproject files larger than this are not read for a workspace.
const MAX_PYPROJECT_SIZE: u64 = 256 << 10;

/// The uv workspace above (or at) the project root `root`: its directory and its
/// members' directories (canonical, inside it, `exclude` left out), from
/// `[tool.uv.workspace] members = [...]` in the nearest `pyproject.toml` that has
/// the table, searched up to the repository's `.git` directory. Member patterns
/// may use `*` and `?` in any segment. `None` without one, or when `root` is not
/// the workspace's own directory or one of its members.
fn uv_workspace(root: &Path) -> Option<Workspace> {
    for dir in root.ancestors().take(16) {
        let file = dir.join("pyproject.toml");
        let table = std::fs::metadata(&file)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_PYPROJECT_SIZE)
            .and_then(|_| std::fs::read_to_string(&file).ok())
            .and_then(|text| text.parse::<toml::Table>().ok());
        let ws = table.as_ref().and_then(|t| {
            t.get("tool")?
                .get("uv")?
                .get("workspace")?
                .as_table()
                .cloned()
        });
        if let Some(ws) = ws {
            let base = std::fs::canonicalize(dir).ok()?;
            let patterns = |key: &str| -> Vec<String> {
                ws.get(key)
                    .and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let excluded: Vec<PathBuf> = patterns("exclude")
                .iter()
                .flat_map(|p| expand_dirs(&base, p))
                .collect();
            let mut members: Vec<PathBuf> = patterns("members")
                .iter()
                .flat_map(|p| expand_dirs(&base, p))
                .filter(|m| !excluded.contains(m) && m.starts_with(&base))
                .collect();
            members.sort();
            members.dedup();
            let canon_root = std::fs::canonicalize(root).ok()?;
            if canon_root != base && !members.contains(&canon_root) {
                return None;
            }
            members.retain(|m| *m != canon_root);
            return Some((base, members));
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    None
}

/// The directories (canonical) that a relative glob pattern (`packages/*`) names
/// under `base`; at most 256.
fn expand_dirs(base: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![base.to_path_buf()];
    for seg in pattern.split('/') {
        let mut next = Vec::new();
        for d in &found {
            match seg {
                "" | "." => next.push(d.clone()),
                ".." => return Vec::new(),
                s if s.contains(['*', '?', '[']) => {
                    let Ok(rd) = std::fs::read_dir(d) else {
                        continue;
                    };
                    let mut names: Vec<_> = rd
                        .filter_map(|e| e.ok())
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .filter_map(|e| e.file_name().to_str().map(str::to_string))
                        .filter(|n| !n.starts_with('.') && wildcard(s, n))
                        .collect();
                    names.sort();
                    next.extend(names.into_iter().map(|n| d.join(n)));
                }
                s => next.push(d.join(s)),
            }
        }
        next.truncate(256);
        found = next;
    }
    found
        .into_iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .filter(|d| d.is_dir())
        .collect()
}

/// Whether `name` matches a glob segment of `*` (any run) and `?` (one character);
/// a segment with a character class matches nothing.
fn wildcard(pattern: &str, name: &str) -> bool {
    if pattern.contains('[') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Greedy match with backtracking to the last `*`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

#[derive(Debug, Clone)]
struct Roots {
    /// Nothing outside it is read (canonical).
    limit: PathBuf,
    /// Where absolute imports are looked up, in order.
    search: Vec<PathBuf>,
    /// The project whose sources say whether it writes hash tags: the project root,
    /// also when the top package climbs above it (a repository whose top directory
    /// holds an `__init__.py`), else `limit`.
    project: PathBuf,
}

/// The name a linted file has for the project analysis (its canonical path), if it
/// has one.
pub fn module_name(path: &Path) -> Option<String> {
    let canon = std::fs::canonicalize(path).ok()?;
    canon.to_str().map(str::to_string)
}

fn is_file(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file())
}

impl Loader {
    /// A loader for a run over `paths` (as named on the command line).
    pub fn for_paths(paths: &[PathBuf]) -> Loader {
        let named_dirs = paths
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir() && p.parent().is_some())
            .collect();
        Loader {
            named_dirs,
            ..Loader::default()
        }
    }

    fn roots(&self, dir: &Path) -> Roots {
        if let Some(r) = self.roots.lock().expect("loader lock").get(dir) {
            return r.clone();
        }
        // The top package: the highest directory of `__init__.py` files.
        let mut top = dir.to_path_buf();
        while is_file(&top.join("__init__.py")) {
            match top.parent() {
                Some(p) => top = p.to_path_buf(),
                None => break,
            }
        }
        let marked = |d: &Path| ROOT_MARKERS.iter().any(|m| d.join(m).exists());
        let project = dir.ancestors().find(|d| marked(d)).map(Path::to_path_buf);
        // A marker inside the top package (an old `setup.py` kept in a package
        // directory) does not hide the project root above the package.
        let project = match project {
            Some(root) if !top.starts_with(&root) => top
                .ancestors()
                .find(|d| marked(d))
                .map(Path::to_path_buf)
                .or(Some(root)),
            other => other,
        };
        // No marker (a copy of a project without its `.git`): the nearest directory
        // named on the command line above the file, else the directory the linter
        // runs in when the file is under it.
        let project = project.or_else(|| {
            self.named_dirs
                .iter()
                .filter(|d| dir.starts_with(d))
                .max_by_key(|d| d.components().count())
                .cloned()
                .or_else(|| self.working_root().filter(|w| dir.starts_with(w)))
        });
        let (limit, search) = match &project {
            Some(root) if top.starts_with(root) => {
                let mut search = vec![top.clone()];
                for r in [root.clone(), root.join("src")] {
                    if !search.contains(&r) && r.is_dir() {
                        search.push(r);
                    }
                }
                // A member of a workspace imports its sibling members' packages.
                let mut limit = root.clone();
                if let Some((ws, members)) = self.workspace(root) {
                    for m in members {
                        for r in [m.join("src"), m] {
                            if !search.contains(&r) && r.is_dir() {
                                search.push(r);
                            }
                        }
                    }
                    limit = ws;
                }
                (limit, search)
            }
            // A repository whose top directory holds an `__init__.py`: its modules
            // import each other as top-level names too (`import settings` from
            // `app/views.py`, run from the repository), so the project root comes
            // after the top package's parent.
            Some(root) => {
                let mut search = vec![top.clone()];
                for r in [root.clone(), root.join("src")] {
                    if !search.contains(&r) && r.is_dir() {
                        search.push(r);
                    }
                }
                (top.clone(), search)
            }
            None => (top.clone(), vec![top]),
        };
        let project = match project {
            Some(root) if root.starts_with(&limit) => root,
            _ => limit.clone(),
        };
        let r = Roots {
            limit,
            search,
            project,
        };
        self.roots
            .lock()
            .expect("loader lock")
            .insert(dir.to_path_buf(), r.clone());
        r
    }

    /// [`uv_workspace`] of the project root `root`, read once per root: every
    /// directory of importing modules under one root asks for the same one.
    fn workspace(&self, root: &Path) -> Option<Workspace> {
        if let Some(w) = self.workspaces.lock().expect("loader lock").get(root) {
            return w.clone();
        }
        let w = uv_workspace(root);
        self.workspaces
            .lock()
            .expect("loader lock")
            .insert(root.to_path_buf(), w.clone());
        w
    }

    /// The working directory (canonical), the project root of files under it that
    /// have none of their own; never the file system's root.
    fn working_root(&self) -> Option<PathBuf> {
        self.working
            .get_or_init(|| {
                std::env::current_dir()
                    .and_then(std::fs::canonicalize)
                    .ok()
                    .filter(|d| d.parent().is_some())
            })
            .clone()
    }

    /// The module at `base` + `segs`, inside `limit`.
    fn find(base: &Path, segs: &[&str], limit: &Path) -> Option<ModuleFile> {
        let mut p = base.to_path_buf();
        for s in segs {
            p.push(s);
        }
        let inside = |f: &Path| -> Option<String> {
            let canon = std::fs::canonicalize(f).ok()?;
            if !canon.starts_with(limit) {
                return None;
            }
            canon.to_str().map(str::to_string)
        };
        if let Some(last) = segs.last() {
            let file = p.with_file_name(format!("{last}.py"));
            if is_file(&file) {
                return inside(&file).map(ModuleFile::Source);
            }
        }
        let init = p.join("__init__.py");
        if is_file(&init) {
            return inside(&init).map(ModuleFile::Source);
        }
        if !segs.is_empty() && p.is_dir() && inside(&p).is_some() {
            return Some(ModuleFile::Namespace);
        }
        None
    }
}

/// The source extensions of JavaScript and TypeScript modules, in the order a name
/// without one is tried.
const JS_EXTENSIONS: &[&str] = &["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"];

impl Loader {
    /// Nothing outside it is read for a JavaScript module of `dir`.
    fn js_limit(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(r) = self.js_limits.lock().expect("loader lock").get(dir) {
            return r.clone();
        }
        let marked = |names: &[&str]| {
            dir.ancestors()
                .find(|d| names.iter().any(|m| d.join(m).exists()))
                .map(Path::to_path_buf)
        };
        let root = marked(&["redis-keylint.toml", ".git"])
            .or_else(|| marked(&["package.json"]))
            .unwrap_or_else(|| dir.to_path_buf());
        let limit = std::fs::canonicalize(root).ok();
        self.js_limits
            .lock()
            .expect("loader lock")
            .insert(dir.to_path_buf(), limit.clone());
        limit
    }

    /// The candidate files of a path specifier resolved at `base`, in order.
    fn js_candidates(base: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let name = base.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some((stem, ext)) = name.rsplit_once('.') {
            if JS_EXTENSIONS.contains(&ext) && !name.ends_with(".d.ts") {
                out.push(base.to_path_buf());
                // TypeScript: `./x.js` names `x.ts` (and `.mjs` `.mts`, `.cjs` `.cts`).
                let ts: &[&str] = match ext {
                    "js" => &["ts", "tsx"],
                    "jsx" => &["tsx"],
                    "mjs" => &["mts"],
                    "cjs" => &["cts"],
                    _ => &[],
                };
                for t in ts {
                    out.push(base.with_file_name(format!("{stem}.{t}")));
                }
            }
        }
        for ext in JS_EXTENSIONS {
            out.push(base.with_file_name(format!("{name}.{ext}")));
        }
        for ext in JS_EXTENSIONS {
            out.push(base.join(format!("index.{ext}")));
        }
        out
    }
}

impl ModuleLoader for Loader {
    fn resolve_path(&self, from: &str, spec: &str) -> Option<ModuleFile> {
        let relative =
            spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        if !relative || spec.contains('\\') || spec.contains('\0') {
            return None;
        }
        let dir = Path::new(from).parent()?.to_path_buf();
        let key = (dir.clone(), spec.to_string());
        if let Some(r) = self.paths.lock().expect("loader lock").get(&key) {
            return r.clone();
        }
        let found = (|| {
            let limit = self.js_limit(&dir)?;
            let mut base = dir.clone();
            for seg in spec.split('/') {
                match seg {
                    "" | "." => {}
                    ".." => {
                        base.pop();
                    }
                    s => base.push(s),
                }
            }
            Loader::js_candidates(&base).into_iter().find_map(|f| {
                if !is_file(&f) {
                    return None;
                }
                let canon = std::fs::canonicalize(&f).ok()?;
                let in_packages = canon.components().any(|c| c.as_os_str() == "node_modules");
                if !canon.starts_with(&limit) || in_packages {
                    return None;
                }
                canon.to_str().map(|s| ModuleFile::Source(s.to_string()))
            })
        })();
        self.paths
            .lock()
            .expect("loader lock")
            .insert(key, found.clone());
        found
    }

    fn resolve(&self, from: &str, level: usize, dotted: &str) -> Option<ModuleFile> {
        let dir = Path::new(from).parent()?.to_path_buf();
        let key = (dir.clone(), level, dotted.to_string());
        if let Some(r) = self.resolved.lock().expect("loader lock").get(&key) {
            return r.clone();
        }
        let segs: Vec<&str> = dotted.split('.').filter(|s| !s.is_empty()).collect();
        let roots = self.roots(&dir);
        let found = if segs.iter().any(|s| s.contains(['/', '\\']) || *s == "..") {
            None
        } else if level > 0 {
            let mut base = dir.clone();
            let mut ok = true;
            for _ in 1..level {
                match base.parent() {
                    Some(p) if p.starts_with(&roots.limit) => base = p.to_path_buf(),
                    _ => ok = false,
                }
            }
            if ok {
                Loader::find(&base, &segs, &roots.limit)
            } else {
                None
            }
        } else {
            let mut namespace = None;
            let mut source = None;
            for r in &roots.search {
                match Loader::find(r, &segs, &roots.limit) {
                    Some(ModuleFile::Namespace) => {
                        namespace.get_or_insert(ModuleFile::Namespace);
                    }
                    Some(s) => {
                        source = Some(s);
                        break;
                    }
                    None => {}
                }
            }
            // A Python 2 implicit relative import, or a script's own directory on
            // `sys.path`: the module beside the importer, when no root has it.
            let beside = || {
                let top = segs.first()?;
                if !keylint_python::siblings::sibling_import_allowed(top)
                    || roots.search.contains(&dir)
                {
                    return None;
                }
                match Loader::find(&dir, &segs, &roots.limit)? {
                    ModuleFile::Namespace => None,
                    s => Some(s),
                }
            };
            // A directory above the importer put on `sys.path` by the project
            // (`sys.path.append(os.environ["APP_BIN"])`, or scripts run from it):
            // `from lib.config import Loader` in `bin/lib/objects/x.py` names
            // `bin/lib/config.py`. Only names whose first segment is a directory
            // there (a lone `x.py` would take a project file for a library of that
            // name), the nearest directory first, inside the project.
            let above = || {
                let top = segs.first()?;
                if !keylint_python::siblings::sibling_import_allowed(top) {
                    return None;
                }
                dir.ancestors()
                    .skip(1)
                    .take_while(|a| a.starts_with(&roots.limit))
                    .filter(|a| !roots.search.iter().any(|r| r == a) && a.join(top).is_dir())
                    .find_map(|a| Loader::find(a, &segs, &roots.limit))
            };
            // A service with a project file of its own inside a larger repository
            // (`backend/signal-ingestion/pyproject.toml`) whose code imports from the
            // repository's root (`from backend.shared.cache import …`, run from
            // there): a directory above the project root named as the import's first
            // segment, itself an ancestor of the importer, below a directory that is
            // a project root too. Only a module file, not a namespace.
            let outer = || {
                let top = *segs.first()?;
                let marked = |d: &Path| ROOT_MARKERS.iter().any(|m| d.join(m).exists());
                dir.ancestors()
                    .skip_while(|a| a.starts_with(&roots.limit))
                    .find(|a| {
                        a.file_name().is_some_and(|n| n == top) && a.parent().is_some_and(&marked)
                    })
                    .and_then(Path::parent)
                    .and_then(|base| match Loader::find(base, &segs, base)? {
                        ModuleFile::Namespace => None,
                        s => Some(s),
                    })
            };
            // A repository mounted as a package of a larger application (a
            // submodule at `lib/gwpcc`) whose modules import each other by the
            // application's path (`from lib.gwpcc import consts`): the segments
            // after the one that names the project's directory, from the project
            // root. Only a module file, not a namespace.
            let mounted = || {
                let name = roots.project.file_name()?.to_str()?;
                // After at least one segment of the application's (`lib`): a path
                // that begins with the project's own name is a plain import.
                let at = segs.iter().skip(1).position(|s| *s == name)? + 1;
                match Loader::find(&roots.project, &segs[at + 1..], &roots.limit)? {
                    ModuleFile::Namespace => None,
                    s => Some(s),
                }
            };
            source
                .or_else(beside)
                .or_else(above)
                .or(namespace)
                .or_else(outer)
                .or_else(mounted)
        };
        self.resolved
            .lock()
            .expect("loader lock")
            .insert(key, found.clone());
        found
    }

    fn mentions(&self, from: &str, word: &str) -> Option<Vec<String>> {
        let marker = word == keylint_core::frontend::IMPORTS_REDIS_PY;
        let imported = word
            .strip_prefix(keylint_core::frontend::IMPORTED_PREFIX)
            .is_some_and(|n| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
        if !marker
            && !imported
            && (!(word.starts_with(|c: char| c.is_ascii_uppercase())
                || keylint_core::frontend::INDEXED_API_WORDS.contains(&word))
                || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        {
            return None;
        }
        let dir = Path::new(from).parent()?.to_path_buf();
        let roots = self.roots(&dir);
        let words = self.words(&roots.limit, imported)?;
        let mut ids: Vec<u32> = words.by_word.get(word).cloned().unwrap_or_default();
        ids.extend(words.big.iter().copied());
        ids.sort_unstable();
        ids.dedup();
        Some(
            ids.into_iter()
                .map(|i| words.files[i as usize].clone())
                .collect(),
        )
    }

    fn read(&self, path: &str) -> Option<String> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() > MAX_MODULE_SIZE {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        if bytes[..bytes.len().min(8192)].contains(&0) {
            return None;
        }
        let text = String::from_utf8(bytes).ok()?;
        self.hashes
            .lock()
            .expect("loader lock")
            .entry(path.to_string())
            .or_insert_with(|| crate::cache::text_hash(&text));
        Some(text)
    }
}

impl Loader {
    /// Whether the project of the file at `path` writes hash tags
    /// ([`crate::tags::of_project`]), searched once per project root and run.
    pub fn project_tags(&self, path: &Path) -> ProjectTags {
        let Some(dir) = std::fs::canonicalize(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
        else {
            return ProjectTags::Written;
        };
        let limit = self.roots(&dir).project;
        let cell = self
            .tags
            .lock()
            .expect("loader lock")
            .entry(limit.clone())
            .or_default()
            .clone();
        *cell.get_or_init(|| crate::tags::of_project(&limit))
    }

    /// The reverse index of the project under `limit`, built once: the whole one, or
    /// for `only_imports` the one of imported names alone (a whole one already built
    /// serves both).
    fn words(&self, limit: &Path, only_imports: bool) -> Option<std::sync::Arc<Words>> {
        {
            let cache = self.words.lock().expect("loader lock");
            if let Some(w) = cache.get(&(limit.to_path_buf(), false)) {
                return w.clone();
            }
            if only_imports {
                if let Some(w) = cache.get(&(limit.to_path_buf(), true)) {
                    return w.clone();
                }
            }
        }
        let w = Words::build(limit, only_imports).map(std::sync::Arc::new);
        self.words
            .lock()
            .expect("loader lock")
            .entry((limit.to_path_buf(), only_imports))
            .or_insert(w)
            .clone()
    }

    /// The hash of a module's text as the analysis read it, if it did.
    pub fn hash_of(&self, path: &str) -> Option<u128> {
        self.hashes.lock().expect("loader lock").get(path).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_segments() {
        assert!(wildcard("*", "worker"));
        assert!(wildcard("pkg-*", "pkg-common"));
        assert!(wildcard("a?c*", "abcdef"));
        assert!(wildcard("*-lib*", "x-lib"));
        assert!(!wildcard("pkg-*", "lib-common"));
        assert!(!wildcard("a?c", "ac"));
        assert!(!wildcard("[ab]", "a"));
    }

    /// The module file at `path` under `root`, as the loader names it.
    fn source_at(root: &Path, path: &str) -> Option<ModuleFile> {
        Some(ModuleFile::Source(
            root.join(path).to_str().unwrap().to_string(),
        ))
    }

    /// Writes `text` at `path` under `root`, making its directories.
    fn write_at(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn imports_resolve_inside_the_project_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("proj/pyproject.toml", "");
        w("proj/src/app/__init__.py", "");
        w("proj/src/app/keys.py", "K = 'a'");
        w("proj/src/app/sub/__init__.py", "");
        w("proj/src/app/sub/jobs.py", "");
        w("proj/tools/util.py", "");
        w("outside.py", "");
        let l = Loader::default();
        let from = root.join("proj/src/app/sub/jobs.py");
        let from = from.to_str().unwrap();
        let keys = root.join("proj/src/app/keys.py");
        let src = |p: &Path| Some(ModuleFile::Source(p.to_str().unwrap().to_string()));
        assert_eq!(l.resolve(from, 0, "app.keys"), src(&keys));
        assert_eq!(l.resolve(from, 2, "keys"), src(&keys));
        assert_eq!(
            l.resolve(from, 1, ""),
            src(&root.join("proj/src/app/sub/__init__.py"))
        );
        assert_eq!(
            l.resolve(from, 0, "tools.util"),
            src(&root.join("proj/tools/util.py"))
        );
        assert_eq!(l.resolve(from, 0, "tools"), Some(ModuleFile::Namespace));
        assert_eq!(l.resolve(from, 0, "outside"), None);
        assert_eq!(l.resolve(from, 4, "outside"), None);
        assert_eq!(l.read(keys.to_str().unwrap()).as_deref(), Some("K = 'a'"));
    }

    #[test]
    fn members_of_a_uv_workspace_import_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w(
            "ws/pyproject.toml",
            "[tool.uv.workspace]\nmembers = [\"libs/*\", \"app\"]\nexclude = [\"libs/old\"]\n",
        );
        w("ws/app/pyproject.toml", "");
        w("ws/app/src/app/jobs.py", "");
        w("ws/libs/common/pyproject.toml", "");
        w("ws/libs/common/src/common/keys.py", "");
        w("ws/libs/flat/pyproject.toml", "");
        w("ws/libs/flat/flatpkg.py", "");
        w("ws/libs/old/pyproject.toml", "");
        w("ws/libs/old/oldpkg.py", "");
        w("ws/tools/pyproject.toml", "");
        w("ws/tools/tool.py", "");
        w("broken/pyproject.toml", "[tool.uv.workspace\nmembers = [");
        w("broken/app/pyproject.toml", "");
        w("broken/app/a.py", "");
        w("broken/app/b.py", "");
        let l = Loader::default();
        let src = |p: &str| source_at(&root, p);
        let from = root.join("ws/app/src/app/jobs.py");
        let from = from.to_str().unwrap();
        assert_eq!(
            l.resolve(from, 0, "common.keys"),
            src("ws/libs/common/src/common/keys.py")
        );
        assert_eq!(
            l.resolve(from, 0, "flatpkg"),
            src("ws/libs/flat/flatpkg.py")
        );
        // Excluded members and directories that are no member are not searched.
        assert_eq!(l.resolve(from, 0, "oldpkg"), None);
        assert_eq!(l.resolve(from, 0, "tool"), None);
        // A project that is no member of the workspace above it keeps its own roots.
        let tool = root.join("ws/tools/tool.py");
        assert_eq!(l.resolve(tool.to_str().unwrap(), 0, "flatpkg"), None);
        // A pyproject.toml that does not parse is no workspace.
        let a = root.join("broken/app/a.py");
        assert_eq!(
            l.resolve(a.to_str().unwrap(), 0, "b"),
            src("broken/app/b.py")
        );
    }

    #[test]
    fn a_repository_that_is_a_package_is_its_own_project_for_hash_tags() {
        // An `__init__.py` at the repository's top (old projects imported as one
        // package): the top package climbs above it, into a directory whose other
        // projects write hash tags; the repository itself writes none.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("repo/setup.py", "");
        w("repo/__init__.py", "");
        w("repo/pkg/__init__.py", "");
        w("repo/pkg/query.py", "KEY = 'q:%s'\n");
        w("other/app.py", "KEY = '{app}:jobs'\n");
        let l = Loader::default();
        let roots = l.roots(&root.join("repo/pkg"));
        // Imports still resolve from the top package's parent, as before.
        assert_eq!(roots.limit, root);
        // The search for hash tags reads the repository only.
        assert_eq!(roots.project, root.join("repo"));
        assert_eq!(l.roots(&root.join("other")).project, root.join("other"));
    }

    #[test]
    fn a_repository_that_is_a_package_imports_its_modules_as_top_level_names() {
        // `import redis_connection as rc` in `repo/metadata/store.py`, with the
        // scripts run from the repository: its top-level module, although the top
        // package climbs above the repository.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("repo/.git/HEAD", "");
        w("repo/__init__.py", "");
        w("repo/redis_connection.py", "conn = None\n");
        w("repo/metadata/__init__.py", "");
        w("repo/metadata/store.py", "import redis_connection as rc\n");
        w("redis_connection.py", "other = None\n");
        let src = |p: &str| source_at(&root, p);
        let l = Loader::default();
        let from = root.join("repo/metadata/store.py");
        // The top package's parent first, as Python would see the package.
        assert_eq!(
            l.resolve(from.to_str().unwrap(), 0, "redis_connection"),
            src("redis_connection.py")
        );
        std::fs::remove_file(root.join("redis_connection.py")).unwrap();
        let l = Loader::default();
        assert_eq!(
            l.resolve(from.to_str().unwrap(), 0, "redis_connection"),
            src("repo/redis_connection.py")
        );
    }

    #[test]
    fn a_repository_mounted_in_an_application_imports_itself_by_the_mount_path() {
        // `gwpcc` is a submodule the application mounts at `lib/gwpcc`; its modules
        // write `from lib.gwpcc import consts`. Linted alone, that names the
        // repository's own `consts.py`; a path naming no directory of the project
        // stays unresolved.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("gwpcc/.git/HEAD", "");
        w("gwpcc/__init__.py", "");
        w("gwpcc/consts.py", "KEY = 'x'\n");
        w("gwpcc/orders/__init__.py", "");
        w("gwpcc/orders/stats.py", "from lib.gwpcc import consts\n");
        let src = |p: &str| source_at(&root, p);
        let l = Loader::default();
        let from = root.join("gwpcc/orders/stats.py");
        let from = from.to_str().unwrap();
        assert_eq!(
            l.resolve(from, 0, "lib.gwpcc.consts"),
            src("gwpcc/consts.py")
        );
        assert_eq!(l.resolve(from, 0, "lib.gwpcc"), src("gwpcc/__init__.py"));
        assert_eq!(l.resolve(from, 0, "lib.other.consts"), None);
    }

    #[test]
    fn a_marker_inside_a_namespace_package_gives_way_to_the_root_above() {
        // `docassemble_webapp/docassemble/` has no `__init__.py` (a namespace
        // package), and `webapp/` keeps an old `setup.py` of its own.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("da/pyproject.toml", "");
        w("da/docassemble/webapp/__init__.py", "");
        w("da/docassemble/webapp/setup.py", "");
        w("da/docassemble/webapp/daredis.py", "r = 1");
        w("da/docassemble/webapp/socketserver.py", "");
        let l = Loader::default();
        let from = root.join("da/docassemble/webapp/socketserver.py");
        let target = root.join("da/docassemble/webapp/daredis.py");
        assert_eq!(
            l.resolve(from.to_str().unwrap(), 0, "docassemble.webapp.daredis"),
            Some(ModuleFile::Source(target.to_str().unwrap().to_string()))
        );
    }

    #[test]
    fn a_directory_above_the_importer_serves_as_a_root_for_its_packages() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("proj/.git/HEAD", "");
        w("proj/bin/lib/config_loader.py", "");
        w("proj/bin/lib/objects/decodeds.py", "");
        w("proj/bin/redis.py", "");
        w("outside/lib/other.py", "");
        let l = Loader::default();
        let from = root.join("proj/bin/lib/objects/decodeds.py");
        let from = from.to_str().unwrap();
        let src = |p: &str| source_at(&root, p);
        // `bin` on sys.path: its package `lib` and the modules in it.
        assert_eq!(
            l.resolve(from, 0, "lib.config_loader"),
            src("proj/bin/lib/config_loader.py")
        );
        assert_eq!(l.resolve(from, 0, "lib"), Some(ModuleFile::Namespace));
        // A lone module file above is not taken, nor a library's name, nor a module
        // outside the project.
        assert_eq!(l.resolve(from, 0, "config_loader"), None);
        assert_eq!(l.resolve(from, 0, "redis"), None);
        assert_eq!(l.resolve(from, 0, "lib.other"), None);
    }
    #[test]
    fn the_reverse_index_lists_the_project_files_that_mention_a_class() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str, t: &str| write_at(&root, p, t);
        w("proj/pyproject.toml", "");
        w("proj/app/__init__.py", "");
        w("proj/app/jobs.py", "class Job:\n    pass\n");
        w("proj/app/use.py", "from .jobs import Job\nJob()\n");
        w(
            "proj/app/other.py",
            "Jobs = 1  # Job in a comment counts too\n",
        );
        w("proj/app/none.py", "JobX = 1\nmulti_execs = 1\n");
        w("proj/app/tx.py", "tr = redis.multi_exec()\n");
        w("proj/app/client.py", "try:\n    from redis.asyncio import Redis\nexcept ImportError:\n    pass\nimport redis_lock\n");
        w("proj/.venv/lib.py", "Job = 2\n");
        w("proj/app/__pycache__/x.py", "Job = 2\n");
        w("proj/app/notes.txt", "Job\n");
        w("outside/x.py", "Job = 3\n");
        let l = Loader::default();
        let from = root.join("proj/app/jobs.py");
        let names = |ps: &[&str]| -> Vec<String> {
            ps.iter()
                .map(|p| root.join(p).to_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(
            l.mentions(from.to_str().unwrap(), "Job"),
            Some(names(&[
                "proj/app/jobs.py",
                "proj/app/other.py",
                "proj/app/use.py"
            ]))
        );
        assert_eq!(l.mentions(from.to_str().unwrap(), "Nothing"), Some(vec![]));
        // Lowercase words are not indexed: not known, except API names.
        assert_eq!(l.mentions(from.to_str().unwrap(), "job"), None);
        assert_eq!(
            l.mentions(from.to_str().unwrap(), "multi_exec"),
            Some(names(&["proj/app/tx.py"]))
        );
        assert_eq!(
            l.mentions(
                from.to_str().unwrap(),
                keylint_core::frontend::IMPORTS_REDIS_PY
            ),
            Some(names(&["proj/app/client.py"]))
        );
    }

    #[test]
    fn path_specifiers_resolve_by_node_and_typescript_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = |p: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        };
        w("app/package.json");
        w("app/src/main.ts");
        w("app/src/keys.ts");
        w("app/src/conn.js");
        w("app/src/core/index.ts");
        w("app/src/types.d.ts");
        w("app/node_modules/dep/index.js");
        w("other.js");
        let l = Loader::default();
        let from = root.join("app/src/main.ts");
        let from = from.to_str().unwrap();
        let src = |p: &str| source_at(&root, p);
        assert_eq!(l.resolve_path(from, "./keys"), src("app/src/keys.ts"));
        assert_eq!(l.resolve_path(from, "./keys.js"), src("app/src/keys.ts"));
        assert_eq!(l.resolve_path(from, "./conn"), src("app/src/conn.js"));
        assert_eq!(l.resolve_path(from, "./conn.js"), src("app/src/conn.js"));
        assert_eq!(l.resolve_path(from, "./core"), src("app/src/core/index.ts"));
        assert_eq!(l.resolve_path(from, "../src/keys"), src("app/src/keys.ts"));
        assert_eq!(l.resolve_path(from, "./types"), None);
        assert_eq!(l.resolve_path(from, "../node_modules/dep"), None);
        assert_eq!(l.resolve_path(from, "dep"), None);
        assert_eq!(l.resolve_path(from, "../../other"), None);
        assert_eq!(l.resolve_path(from, "./missing"), None);
    }
}
