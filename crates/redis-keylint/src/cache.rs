//! The optional result cache (`check --cache`): the findings of a file, before
//! selection, suppressions and severities are applied, stored under a key made of
//! the linter build, the file's language, the settings that change the analysis
//! and the file's bytes. A Python module's findings also depend on the Lua files it
//! loads, and on the other modules of the project its analysis read (which files
//! its imports resolved to, and their contents): they are stored with the entry and
//! checked on reuse.
//!
//! Entries are files `<dir>/v1/<first two hex digits>/<key>`, written atomically
//! (a temporary file renamed into place), so concurrent runs never read half an
//! entry. A damaged or foreign entry is a miss, never an error. The directory is
//! safe to delete at any time.

use crate::config::Config;
use keylint_core::frontend::Lang;
use keylint_core::frontend::{FileLoader, ModuleDep, ModuleFile, ModuleLoader};
use keylint_core::{Edit, Finding, Fix, Label, Rule, Severity, Span};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Changes whenever the entry format changes.
const MAGIC: &[u8; 8] = b"RKLC0002";

/// A 128-bit content hash.
pub type Key = u128;

fn hash(parts: &[&[u8]]) -> Key {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.digest128()
}

/// Where the cache lives when `--cache-dir` is not given.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("REDIS_KEYLINT_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("redis-keylint"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|h| PathBuf::from(h).join(".cache").join("redis-keylint"))
}

/// An open cache.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    /// Identifies the linter build: entries written by another build never match.
    build: Key,
    hits: AtomicUsize,
    misses: AtomicUsize,
    /// The first write error, reported once at the end.
    write_error: Mutex<Option<String>>,
}

/// What a run did with the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Files whose findings came from the cache.
    pub hits: usize,
    /// Files analysed and stored.
    pub misses: usize,
}

impl Cache {
    /// Opens (creating) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<Cache, String> {
        let dir = dir.join("v1");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("{}: cannot create the cache directory: {e}", dir.display()))?;
        Ok(Cache {
            dir,
            build: build_identity(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            write_error: Mutex::new(None),
        })
    }

    /// The key of a file's analysis. `name` is the file's name for the project
    /// analysis (its imports resolve from where it is).
    pub fn key(&self, lang: Lang, settings: Key, name: &str, source: &[u8]) -> Key {
        hash(&[
            MAGIC,
            &self.build.to_le_bytes(),
            &[crate::frontends::id(lang)],
            &settings.to_le_bytes(),
            name.as_bytes(),
            source,
        ])
    }

    fn path(&self, key: Key) -> PathBuf {
        let hex = format!("{key:032x}");
        self.dir.join(&hex[..2]).join(hex)
    }

    /// The stored findings for `key`, if any and if the files the analysis loaded
    /// still read the same through `loader`, and the modules it read still resolve
    /// and read the same through `modules`.
    pub fn get(
        &self,
        key: Key,
        loader: Option<&dyn FileLoader>,
        modules: &dyn ModuleLoader,
    ) -> Option<Vec<Finding>> {
        let found = std::fs::read(self.path(key))
            .ok()
            .and_then(|bytes| decode(&bytes, key, loader, modules));
        match found {
            Some(f) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(f)
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Stores the findings for `key`, with the files the analysis loaded and the
    /// modules it read (their hashes as `read` first read them).
    pub fn put(
        &self,
        key: Key,
        findings: &[Finding],
        deps: &[Dep],
        modules: &[ModuleDep],
        read: &crate::project::Loader,
    ) {
        let Some(bytes) = encode(key, findings, deps, modules, |p| read.hash_of(p)) else {
            return;
        };
        let path = self.path(key);
        let result = (|| -> std::io::Result<()> {
            let parent = path.parent().expect("an entry has a parent");
            std::fs::create_dir_all(parent)?;
            let tmp = parent.join(format!(
                ".tmp-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            drop(f);
            std::fs::rename(&tmp, &path).inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        })();
        if let Err(e) = result {
            self.write_error
                .lock()
                .expect("cache error lock")
                .get_or_insert_with(|| {
                    format!("{}: cannot write to the cache: {e}", path.display())
                });
        }
    }

    /// What the run did with the cache, and the first write error if any.
    pub fn finish(&self) -> (Stats, Option<String>) {
        (
            Stats {
                hits: self.hits.load(Ordering::Relaxed),
                misses: self.misses.load(Ordering::Relaxed),
            },
            self.write_error.lock().expect("cache error lock").take(),
        )
    }
}

/// The settings of `config` that change what the analysis finds (selection,
/// severities and suppressions are applied after the cache).
pub fn settings_key(config: &Config) -> Key {
    let text = format!(
        "{:?}\u{0}{:?}\u{0}{:?}",
        config.python_receivers, config.client, config.settings
    );
    hash(&[text.as_bytes()])
}

/// A settings key that also says whether the file's project writes hash tags, which
/// `cross-slot-likely` reads, and whether `cross-slot-unknown` is selected: a file's
/// findings change when another file of its project starts or stops writing one.
pub fn with_judging(settings: Key, tags: keylint_core::model::ProjectTags, unknown: bool) -> Key {
    use keylint_core::model::ProjectTags;
    let code: u8 = match tags {
        ProjectTags::Unknown => 0,
        ProjectTags::NoneWritten => 1,
        ProjectTags::Written => 2,
    };
    hash(&[&settings.to_le_bytes(), &[code, u8::from(unknown)]])
}

/// The running executable's identity: its path, size and modification time, so that
/// rebuilding the linter invalidates every entry.
fn build_identity() -> Key {
    let mut parts = vec![env!("CARGO_PKG_VERSION").as_bytes().to_vec()];
    if let Ok(exe) = std::env::current_exe() {
        parts.push(exe.to_string_lossy().as_bytes().to_vec());
        if let Ok(meta) = std::fs::metadata(&exe) {
            parts.push(meta.len().to_le_bytes().to_vec());
            if let Ok(t) = meta.modified() {
                let nanos = t
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                parts.push(nanos.to_le_bytes().to_vec());
            }
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    hash(&refs)
}

/// A file the analysis asked the loader for, and what it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dep {
    path: String,
    from_module_dir: bool,
    /// A directory listing ([`FileLoader::list`]), not a file.
    listing: bool,
    /// The hash of the text, or `None` if there was none.
    content: Option<Key>,
}

fn content_key(text: Option<&str>) -> Option<Key> {
    text.map(text_hash)
}

/// The hash a module's text is remembered by.
pub fn text_hash(text: &str) -> Key {
    hash(&[text.as_bytes()])
}

/// A loader that remembers what it loaded, for [`Cache::put`].
pub struct Recorder<'a> {
    inner: &'a dyn FileLoader,
    seen: Mutex<Vec<Dep>>,
}

impl std::fmt::Debug for Recorder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl<'a> Recorder<'a> {
    /// Records what `inner` loads.
    pub fn new(inner: &'a dyn FileLoader) -> Recorder<'a> {
        Recorder {
            inner,
            seen: Mutex::new(Vec::new()),
        }
    }

    /// Everything loaded so far.
    pub fn into_deps(self) -> Vec<Dep> {
        self.seen.into_inner().expect("recorder lock")
    }
}

impl FileLoader for Recorder<'_> {
    fn load(&self, path: &str, from_module_dir: bool) -> Option<String> {
        let text = self.inner.load(path, from_module_dir);
        let dep = Dep {
            path: path.to_string(),
            from_module_dir,
            listing: false,
            content: content_key(text.as_deref()),
        };
        let mut seen = self.seen.lock().expect("recorder lock");
        if !seen.contains(&dep) {
            seen.push(dep);
        }
        text
    }

    fn list(&self, dir: &str) -> Vec<String> {
        let names = self.inner.list(dir);
        let dep = Dep {
            path: dir.to_string(),
            from_module_dir: true,
            listing: true,
            content: content_key(Some(&names.join("\n"))),
        };
        let mut seen = self.seen.lock().expect("recorder lock");
        if !seen.contains(&dep) {
            seen.push(dep);
        }
        names
    }
}

// --- the entry format -------------------------------------------------------------
// MAGIC, key (16 bytes), deps, findings; integers little-endian, strings as a u32
// length and UTF-8 bytes, sequences as a u32 count.

/// `None` when a module the analysis read has no recorded hash (it cannot be
/// checked later, so the entry is not stored).
fn encode(
    key: Key,
    findings: &[Finding],
    deps: &[Dep],
    modules: &[ModuleDep],
    hash_of: impl Fn(&str) -> Option<Key>,
) -> Option<Vec<u8>> {
    let mut w = Writer(Vec::with_capacity(256));
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&key.to_le_bytes());
    w.u32(deps.len());
    for d in deps {
        w.str(&d.path);
        // 0 or 1: a file (from the module's directory or not); 2: a listing.
        w.u8(if d.listing {
            2
        } else {
            u8::from(d.from_module_dir)
        });
        w.opt_key(d.content);
    }
    w.u32(modules.len());
    for m in modules {
        match m {
            ModuleDep::Resolve {
                from,
                level,
                dotted,
                found,
            } => {
                w.u8(0);
                w.str(from);
                w.u32(*level);
                w.str(dotted);
                w.module_file(found.as_ref());
            }
            ModuleDep::ResolvePath { from, spec, found } => {
                w.u8(2);
                w.str(from);
                w.str(spec);
                w.module_file(found.as_ref());
            }
            ModuleDep::Mentions { from, word, found } => {
                w.u8(3);
                w.str(from);
                w.str(word);
                match found {
                    None => w.u8(0),
                    Some(files) => {
                        w.u8(1);
                        w.u32(files.len());
                        for f in files {
                            w.str(f);
                        }
                    }
                }
            }
            ModuleDep::Read { path } => {
                w.u8(1);
                w.str(path);
                w.opt_key(hash_of(path));
            }
        }
    }
    w.u32(findings.len());
    for f in findings {
        w.str(f.rule.code());
        w.u8(match f.severity {
            Severity::Info => 0,
            Severity::Warning => 1,
            Severity::Error => 2,
        });
        w.str(&f.message);
        w.label(&f.primary);
        w.u32(f.secondary.len());
        for l in &f.secondary {
            w.label(l);
        }
        w.u32(f.notes.len());
        for n in &f.notes {
            w.str(n);
        }
        w.opt_str(f.help.as_deref());
        match &f.unit {
            Some(s) => {
                w.u8(1);
                w.span(s);
            }
            None => w.u8(0),
        }
        match &f.fix {
            Some(fix) => {
                w.u8(1);
                w.str(&fix.title);
                w.u32(fix.edits.len());
                for e in &fix.edits {
                    w.span(&e.span);
                    w.str(&e.replacement);
                }
            }
            None => w.u8(0),
        }
    }
    Some(w.0)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: usize) {
        self.0.extend_from_slice(&(v as u32).to_le_bytes());
    }
    fn u64(&mut self, v: usize) {
        self.0.extend_from_slice(&(v as u64).to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
    fn opt_key(&mut self, k: Option<Key>) {
        match k {
            Some(k) => {
                self.u8(1);
                self.0.extend_from_slice(&k.to_le_bytes());
            }
            None => self.u8(0),
        }
    }
    fn module_file(&mut self, m: Option<&ModuleFile>) {
        match m {
            None => self.u8(0),
            Some(ModuleFile::Namespace) => self.u8(1),
            Some(ModuleFile::Source(p)) => {
                self.u8(2);
                self.str(p);
            }
        }
    }
    fn span(&mut self, s: &Span) {
        self.u64(s.start);
        self.u64(s.end);
    }
    fn label(&mut self, l: &Label) {
        self.span(&l.span);
        self.str(&l.message);
    }
}

fn decode(
    bytes: &[u8],
    key: Key,
    loader: Option<&dyn FileLoader>,
    modules: &dyn ModuleLoader,
) -> Option<Vec<Finding>> {
    let mut r = Reader(bytes);
    if r.take(8)? != MAGIC || r.take(16)? != key.to_le_bytes() {
        return None;
    }
    for _ in 0..r.count()? {
        let path = r.str()?;
        let kind = r.u8()?;
        let content = r.opt_key()?;
        let now = match kind {
            2 => loader.map(|l| l.list(&path).join("\n")),
            k => loader.and_then(|l| l.load(&path, k == 1)),
        };
        if content_key(now.as_deref()) != content {
            return None;
        }
    }
    for _ in 0..r.count()? {
        match r.u8()? {
            0 => {
                let from = r.str()?;
                let level = r.count_any()?;
                let dotted = r.str()?;
                let found = match r.u8()? {
                    0 => None,
                    1 => Some(ModuleFile::Namespace),
                    2 => Some(ModuleFile::Source(r.str()?)),
                    _ => return None,
                };
                if modules.resolve(&from, level, &dotted) != found {
                    return None;
                }
            }
            2 => {
                let from = r.str()?;
                let spec = r.str()?;
                let found = match r.u8()? {
                    0 => None,
                    1 => Some(ModuleFile::Namespace),
                    2 => Some(ModuleFile::Source(r.str()?)),
                    _ => return None,
                };
                if modules.resolve_path(&from, &spec) != found {
                    return None;
                }
            }
            3 => {
                let from = r.str()?;
                let word = r.str()?;
                let found = match r.u8()? {
                    0 => None,
                    1 => {
                        let n = r.count()?;
                        let mut files = Vec::with_capacity(n.min(bytes.len()));
                        for _ in 0..n {
                            files.push(r.str()?);
                        }
                        Some(files)
                    }
                    _ => return None,
                };
                if modules.mentions(&from, &word) != found {
                    return None;
                }
            }
            1 => {
                let path = r.str()?;
                let content = r.opt_key()?;
                let now = modules.read(&path);
                if content.is_none() || content_key(now.as_deref()) != content {
                    return None;
                }
            }
            _ => return None,
        }
    }
    let n = r.count()?;
    let mut findings = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        let rule = Rule::from_name_or_code(&r.str()?)?;
        let severity = match r.u8()? {
            0 => Severity::Info,
            1 => Severity::Warning,
            2 => Severity::Error,
            _ => return None,
        };
        let message = r.str()?;
        let primary = r.label()?;
        let mut f = Finding::new(rule, message, primary).with_severity(severity);
        for _ in 0..r.count()? {
            f.secondary.push(r.label()?);
        }
        for _ in 0..r.count()? {
            f.notes.push(r.str()?);
        }
        if r.u8()? == 1 {
            f.help = Some(r.str()?);
        }
        if r.u8()? == 1 {
            f.unit = Some(r.span()?);
        }
        if r.u8()? == 1 {
            let title = r.str()?;
            let mut edits = Vec::new();
            for _ in 0..r.count()? {
                let span = r.span()?;
                edits.push(Edit {
                    span,
                    replacement: r.str()?,
                });
            }
            f.fix = Some(Fix { title, edits });
        }
        findings.push(f);
    }
    r.0.is_empty().then_some(findings)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn count(&mut self) -> Option<usize> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        // Every element takes at least one byte: a damaged count fails fast.
        (n <= self.0.len()).then_some(n)
    }
    fn count_any(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn opt_key(&mut self) -> Option<Option<Key>> {
        Some(match self.u8()? {
            1 => Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?)),
            0 => None,
            _ => return None,
        })
    }
    fn u64(&mut self) -> Option<usize> {
        usize::try_from(u64::from_le_bytes(self.take(8)?.try_into().ok()?)).ok()
    }
    fn str(&mut self) -> Option<String> {
        let n = self.count()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    fn span(&mut self) -> Option<Span> {
        let start = self.u64()?;
        let end = self.u64()?;
        (start <= end).then_some(start..end)
    }
    fn label(&mut self) -> Option<Label> {
        let span = self.span()?;
        Some(Label::new(span, self.str()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Finding> {
        let f = Finding::new(Rule::ALL[0], "message", Label::new(3..9, "primary"))
            .with_secondary(Label::new(10..12, "second"))
            .with_note("a note")
            .with_help("some help")
            .with_severity(Severity::Warning)
            .with_unit(0..40)
            .with_fix(Fix {
                title: "use a hash tag".into(),
                edits: vec![Edit {
                    span: 4..5,
                    replacement: "{x}".into(),
                }],
            });
        let g = Finding::new(Rule::ALL[1], "bare", Label::new(0..0, ""));
        vec![f, g]
    }

    #[test]
    fn entries_round_trip() {
        let bytes = encode(7, &sample(), &[], &[], |_| None).unwrap();
        assert_eq!(decode(&bytes, 7, None, &NONE), Some(sample()));
        // Another key's entry, or any damage, is a miss.
        assert_eq!(decode(&bytes, 8, None, &NONE), None);
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut], 7, None, &NONE), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, 7, None, &NONE), None);
    }

    /// A project with no modules.
    struct NoModules;
    impl ModuleLoader for NoModules {
        fn resolve(&self, _: &str, _: usize, _: &str) -> Option<ModuleFile> {
            None
        }
        fn read(&self, _: &str) -> Option<String> {
            None
        }
    }
    const NONE: NoModules = NoModules;

    struct Files(&'static str);
    impl FileLoader for Files {
        fn load(&self, path: &str, _: bool) -> Option<String> {
            (path == "a.lua").then(|| self.0.to_string())
        }
    }

    #[test]
    fn entries_check_the_files_they_loaded() {
        let before = Files("return redis.call('GET', KEYS[1])");
        let rec = Recorder::new(&before);
        assert!(rec.load("a.lua", true).is_some());
        assert!(rec.load("missing.lua", true).is_none());
        let bytes = encode(1, &sample(), &rec.into_deps(), &[], |_| None).unwrap();
        assert_eq!(decode(&bytes, 1, Some(&before), &NONE), Some(sample()));
        let after = Files("return redis.call('DEL', KEYS[1])");
        assert_eq!(decode(&bytes, 1, Some(&after), &NONE), None);
        assert_eq!(decode(&bytes, 1, None, &NONE), None);
    }

    #[test]
    fn the_cache_stores_and_finds_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let k1 = cache.key(keylint_lua::LANG, 0, "", b"one");
        let k2 = cache.key(keylint_lua::LANG, 0, "", b"two");
        assert_ne!(k1, k2);
        assert_ne!(k1, cache.key(keylint_python::LANG, 0, "", b"one"));
        assert_ne!(k1, cache.key(keylint_lua::LANG, 1, "", b"one"));
        assert_eq!(cache.get(k1, None, &NONE), None);
        cache.put(k1, &sample(), &[], &[], &crate::project::Loader::default());
        assert_eq!(cache.get(k1, None, &NONE), Some(sample()));
        assert_eq!(cache.get(k2, None, &NONE), None);
        let (stats, err) = cache.finish();
        assert_eq!(stats, Stats { hits: 1, misses: 2 });
        assert_eq!(err, None);
    }
}
