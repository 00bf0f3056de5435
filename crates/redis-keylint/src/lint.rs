//! `check`: find the files, lint them in parallel, filter the findings through the
//! configuration, suppressions and baseline, render, and decide the exit status.

use crate::baseline::{self, Baseline};
use crate::cache::{Cache, Recorder};
use crate::cli::{CheckArgs, ColorWhen, FixForm, Format};
use crate::config::{Config, Resolver};
use crate::{fixes, github, render, sarif};
use keylint_core::template::Lang;
use keylint_core::{Finding, Rule, Severity};
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files larger than this are skipped unless configured otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

/// Which frontend reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// `*.redis`: redis-cli command files.
    RedisCli,
    /// `*.lua`: Redis Lua scripts and functions.
    Lua,
    /// `*.py`: Python code using redis-py.
    Python,
    /// `*.js`, `*.mjs`, `*.cjs`, `*.jsx`: JavaScript using ioredis or node-redis.
    JavaScript,
    /// `*.ts`, `*.mts`, `*.cts`: TypeScript using ioredis or node-redis.
    TypeScript,
    /// `*.tsx`: TypeScript with JSX.
    Tsx,
}

impl Language {
    /// The language of a path, by extension.
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "redis" => Some(Language::RedisCli),
            "lua" => Some(Language::Lua),
            "py" => Some(Language::Python),
            "js" | "mjs" | "cjs" | "jsx" => Some(Language::JavaScript),
            "ts" | "mts" | "cts" => Some(Language::TypeScript),
            "tsx" => Some(Language::Tsx),
            _ => None,
        }
    }

    /// The core's name for it (comment syntax, how keys are printed).
    pub fn lang(self) -> Lang {
        match self {
            Language::RedisCli => Lang::RedisCli,
            Language::Lua => Lang::Lua,
            Language::Python => Lang::Python,
            Language::JavaScript | Language::TypeScript | Language::Tsx => Lang::JavaScript,
        }
    }

    /// The grammar of a JavaScript or TypeScript file.
    pub fn dialect(self) -> Option<keylint_javascript::Dialect> {
        match self {
            Language::JavaScript => Some(keylint_javascript::Dialect::JavaScript),
            Language::TypeScript => Some(keylint_javascript::Dialect::TypeScript),
            Language::Tsx => Some(keylint_javascript::Dialect::Tsx),
            _ => None,
        }
    }

    /// A cheap byte-level test: false when the file cannot contain Redis usage, so it
    /// is never parsed. A Lua script reaches Redis only through the `redis` global; a
    /// Python module only through names the Python frontend recognises, all of which
    /// need the file to mention Redis (or a configured receiver name).
    pub fn may_use_redis(self, source: &[u8], receivers: &[String]) -> bool {
        match self {
            Language::RedisCli => true,
            // A JavaScript module reaches Redis only through a client library it
            // imports by name (`ioredis`, `redis`, `@redis/client`).
            Language::Lua | Language::JavaScript | Language::TypeScript | Language::Tsx => {
                keylint_core::prefilter::mentions_redis(source)
            }
            Language::Python => {
                keylint_core::prefilter::mentions_redis(source)
                    || receivers
                        .iter()
                        .any(|r| memchr::memmem::find(source, r.as_bytes()).is_some())
            }
        }
    }
}

/// The extensions `check` lints, for messages.
const KNOWN_EXTENSIONS: &str = "`.redis`, `.lua`, `.py`, `.js` or `.ts`";

/// The result of linting one file.
#[derive(Debug)]
pub struct FileReport {
    /// The path as the user will read it.
    pub path: PathBuf,
    /// The file's text.
    pub source: String,
    /// Its findings, sorted by position.
    pub findings: Vec<Finding>,
}

/// Something that kept a file or path from being linted.
#[derive(Debug)]
pub struct Problem {
    /// The path.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
    /// True when it makes the run fail (exit 2): the path was named on the command line.
    pub fatal: bool,
}

/// Runs the frontend and the rules on one file's text: every finding, unfiltered.
pub fn lint_source(lang: Language, source: &str, config: &Config) -> Vec<Finding> {
    lint_source_at(lang, source, config, None)
}

/// [`lint_source`] for a file at `path`: a Python module may load Lua scripts from
/// files beside it.
pub fn lint_source_at(
    lang: Language,
    source: &str,
    config: &Config,
    path: Option<&Path>,
) -> Vec<Finding> {
    let loader = path
        .and_then(Path::parent)
        .map(crate::loader::DirLoader::new);
    let node_major = path.and_then(|p| node_redis_major(lang, p));
    lint_source_with(
        lang,
        source,
        config,
        loader
            .as_ref()
            .map(|l| l as &dyn keylint_python::FileLoader),
        None,
        node_major,
    )
    .0
}

/// The Python frontend's options under `config`.
fn python_options(config: &Config) -> keylint_python::Options {
    let mut options = keylint_python::Options::default();
    options
        .configured_receivers
        .extend(config.python_receivers.iter().cloned());
    options.default_client = Some(match config.client {
        crate::config::ClientProfile::Cluster => keylint_python::ClientProfile::Cluster,
        crate::config::ClientProfile::Standalone => keylint_python::ClientProfile::Standalone,
    });
    options
}

/// The project analyses of a run, one per set of analysis settings (files under
/// different configs see the same modules through their own settings).
#[derive(Debug, Default)]
pub struct Projects {
    loader: Arc<crate::project::Loader>,
    by_settings: Mutex<std::collections::HashMap<u128, Arc<keylint_python::Project>>>,
}

impl Projects {
    fn get(&self, config: &Config) -> Arc<keylint_python::Project> {
        let key = crate::cache::settings_key(config);
        self.by_settings
            .lock()
            .expect("projects lock")
            .entry(key)
            .or_insert_with(|| {
                Arc::new(keylint_python::Project::new(
                    self.loader.clone(),
                    python_options(config),
                ))
            })
            .clone()
    }

    /// The loader the analyses read modules through.
    pub fn loader(&self) -> &crate::project::Loader {
        &self.loader
    }
}

/// [`lint_source`] with the loader a Python module reads Lua files through (and a Lua
/// script its `@include` files), and the
/// project analysis it reads other modules through (with the module's name): also
/// returns what the analysis asked about other modules.
fn lint_source_with(
    lang: Language,
    source: &str,
    config: &Config,
    loader: Option<&dyn keylint_python::FileLoader>,
    project: Option<(&keylint_python::Project, &str)>,
    node_redis_major: Option<u32>,
) -> (Vec<Finding>, Vec<keylint_python::ModuleDep>) {
    if !lang.may_use_redis(source.as_bytes(), &config.python_receivers) {
        return (Vec::new(), Vec::new());
    }
    let mut deps = Vec::new();
    let model = match lang {
        Language::RedisCli => keylint_rediscli::lower(source.as_bytes()),
        Language::Lua => {
            // `--- @include "name"` lines read files beside the script, through the same
            // loader (and cache records) as a Python module's Lua files.
            let includes = loader.map(LuaIncludes);
            keylint_lua::lower_with(
                source,
                includes
                    .as_ref()
                    .map(|l| l as &dyn keylint_lua::IncludeLoader),
            )
        }
        Language::Python => {
            let options = python_options(config);
            match project {
                // Modules are summarised on the same thread: it needs the big stack.
                Some((project, name)) if BIG_STACK.get() => {
                    let (model, d) =
                        keylint_python::lower_in_project(source, &options, loader, project, name);
                    deps = d;
                    model
                }
                _ if BIG_STACK.get() => {
                    keylint_python::lower_on_this_thread(source, &options, loader)
                }
                _ => keylint_python::lower_with(source, &options, loader),
            }
        }
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            let dialect = lang
                .dialect()
                .unwrap_or(keylint_javascript::Dialect::JavaScript);
            let options = keylint_javascript::Options { node_redis_major };
            let files = loader.map(JsFiles);
            let files = files
                .as_ref()
                .map(|l| l as &dyn keylint_javascript::FileLoader);
            if BIG_STACK.get() {
                keylint_javascript::lower_on_this_thread(source, dialect, &options, files)
            } else {
                keylint_javascript::lower_with(source, dialect, &options, files)
            }
        }
    };
    (keylint_core::rules::check(&model, &config.settings), deps)
}

/// The JavaScript frontend's file loader (`.lua` files a module reads) over a file
/// loader.
struct JsFiles<'a>(&'a dyn keylint_python::FileLoader);

impl keylint_javascript::FileLoader for JsFiles<'_> {
    fn load(&self, path: &str, from_module_dir: bool) -> Option<String> {
        self.0.load(path, from_module_dir)
    }
}

/// The major version of node-redis that the project of a JavaScript file depends on
/// (see [`crate::npm`]).
fn node_redis_major(lang: Language, path: &Path) -> Option<u32> {
    lang.dialect()?;
    crate::npm::node_redis_major(path.parent()?)
}

/// The Lua frontend's include loader over a file loader: include paths are relative
/// to the script's directory.
struct LuaIncludes<'a>(&'a dyn keylint_python::FileLoader);

impl keylint_lua::IncludeLoader for LuaIncludes<'_> {
    fn load(&self, path: &str) -> Option<String> {
        self.0.load(path, true)
    }

    fn siblings(&self) -> Vec<String> {
        let mut names = self.0.list("");
        names.retain(|n| n.ends_with(".lua"));
        names
    }

    fn index_cache(&self) -> Option<&keylint_lua::IndexCache> {
        Some(LUA_INDEX.get_or_init(Default::default))
    }
}

/// The Lua project index of this run, by file text (see [`keylint_lua::IndexCache`]).
static LUA_INDEX: std::sync::OnceLock<keylint_lua::IndexCache> = std::sync::OnceLock::new();

/// `--select` / `--ignore` from the command line, applied on top of the config.
#[derive(Debug, Clone, Default)]
struct CliSelection {
    select: Option<BTreeSet<Rule>>,
    ignore: BTreeSet<Rule>,
}

impl CliSelection {
    fn from_args(select: &[String], ignore: &[String]) -> Result<CliSelection, String> {
        let parse = |names: &[String]| -> Result<BTreeSet<Rule>, String> {
            names
                .iter()
                .map(|n| n.trim())
                .filter(|n| !n.is_empty())
                .map(|n| {
                    Rule::from_name_or_code(n).ok_or_else(|| {
                        format!("unknown rule `{n}`; `redis-keylint rules` lists them all")
                    })
                })
                .collect()
        };
        let select = parse(select)?;
        Ok(CliSelection {
            select: (!select.is_empty()).then_some(select),
            ignore: parse(ignore)?,
        })
    }

    fn enabled(&self, config: &Config, rule: Rule) -> bool {
        let on = match &self.select {
            Some(s) => s.contains(&rule),
            None => config.enabled.contains(&rule),
        };
        on && !self.ignore.contains(&rule)
    }
}

/// Applies rule selection, per-file ignores, severity overrides and suppression
/// comments to one file's findings.
fn finalize(
    findings: Vec<Finding>,
    lang: Language,
    path: &Path,
    source: &str,
    config: &Config,
    selection: &CliSelection,
) -> Vec<Finding> {
    let per_file = config.ignored_for(path);
    let runs = |r: Rule| selection.enabled(config, r) && !per_file.contains(&r);
    let findings: Vec<Finding> = findings.into_iter().filter(|f| runs(f.rule)).collect();
    let mut findings = keylint_core::suppress::apply(source, lang.lang(), findings, runs);
    findings.retain(|f| runs(f.rule));
    for f in &mut findings {
        if let Some(s) = config.severity.get(&f.rule) {
            f.severity = *s;
        }
    }
    findings
}

/// Reads `path` into `buf` (cleared first; its allocation is reused from file to
/// file) and checks that it is text.
fn read_file(path: &Path, max: u64, buf: &mut Vec<u8>) -> Result<(), String> {
    buf.clear();
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if meta.is_dir() {
        return Err("is a directory".into());
    }
    if meta.len() > max {
        return Err(format!(
            "skipped: {} bytes is over the {max}-byte limit (--max-file-size)",
            meta.len()
        ));
    }
    buf.reserve(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(buf)
        .map_err(|e| e.to_string())?;
    if buf.len() as u64 > max {
        return Err(format!(
            "skipped: over the {max}-byte limit (--max-file-size)"
        ));
    }
    check_text(buf)
}

/// Binary files and files that are not UTF-8 are skipped with a message.
fn check_text(bytes: &[u8]) -> Result<(), String> {
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err("skipped: binary file".into());
    }
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|e| format!("skipped: not valid UTF-8 (byte {})", e.valid_up_to()))
}

fn decode(bytes: Vec<u8>) -> Result<String, String> {
    check_text(&bytes)?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

struct Job {
    path: PathBuf,
    lang: Language,
    config: Arc<Config>,
    named: bool,
}

fn missing(path: &Path) -> String {
    match std::fs::symlink_metadata(path) {
        Ok(_) => "broken symbolic link".into(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "no such file or directory".into(),
        Err(e) => e.to_string(),
    }
}

/// Collects the files to lint, each with the config that governs it.
fn collect(
    paths: &[PathBuf],
    resolver: &Arc<Mutex<Resolver>>,
    problems: &mut Vec<Problem>,
) -> Result<Vec<Job>, crate::config::ConfigError> {
    let mut jobs = Vec::new();
    let mut seen = BTreeSet::new();
    for root in paths {
        if std::fs::metadata(root).is_err() {
            problems.push(Problem {
                path: root.clone(),
                message: missing(root),
                fatal: true,
            });
            continue;
        }
        let config = resolver.lock().expect("resolver lock").for_path(root)?;
        if !root.is_dir() {
            // A file named on the command line is linted even if a config excludes it.
            match Language::of(root) {
                Some(lang) if seen.insert(root.clone()) => jobs.push(Job {
                    path: root.clone(),
                    lang,
                    config,
                    named: true,
                }),
                Some(_) => {}
                None => problems.push(Problem {
                    path: root.clone(),
                    message: format!("skipped: not a {KNOWN_EXTENSIONS} file"),
                    fatal: false,
                }),
            }
            continue;
        }
        if let Err(e) = std::fs::read_dir(root) {
            // A directory named on the command line that cannot be read fails the run.
            problems.push(Problem {
                path: root.clone(),
                message: format!("cannot read the directory: {e}"),
                fatal: true,
            });
            continue;
        }
        let config_error: Arc<Mutex<Option<crate::config::ConfigError>>> = Arc::default();
        let (res, err) = (resolver.clone(), config_error.clone());
        let walker = ignore::WalkBuilder::new(root)
            .follow_links(false)
            .require_git(false)
            .filter_entry(move |e| {
                if e.depth() == 0 {
                    return true;
                }
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                match res
                    .lock()
                    .expect("resolver lock")
                    .for_entry(e.path(), is_dir)
                {
                    Ok(c) => !c.is_excluded(e.path()),
                    Err(e) => {
                        err.lock().expect("error lock").get_or_insert(e);
                        false
                    }
                }
            })
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    if !e.file_type().is_some_and(|t| t.is_file()) {
                        continue;
                    }
                    let Some(lang) = Language::of(e.path()) else {
                        continue;
                    };
                    let path = e.into_path();
                    if !seen.insert(path.clone()) {
                        continue;
                    }
                    let config = resolver
                        .lock()
                        .expect("resolver lock")
                        .for_entry(&path, false)?;
                    jobs.push(Job {
                        path,
                        lang,
                        config,
                        named: false,
                    });
                }
                Err(err) => problems.push(Problem {
                    path: root.clone(),
                    message: err.to_string(),
                    fatal: false,
                }),
            }
        }
        let pending = config_error.lock().expect("error lock").take();
        if let Some(e) = pending {
            return Err(e);
        }
    }
    // Deterministic order whatever the file system returns.
    jobs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(jobs)
}

fn process(
    job: &Job,
    args: &CheckArgs,
    selection: &CliSelection,
    cache: Option<&Cache>,
    projects: &Projects,
    buf: &mut Vec<u8>,
) -> Result<FileReport, Problem> {
    let max = args
        .max_file_size
        .or(job.config.max_file_size)
        .unwrap_or(DEFAULT_MAX_FILE_SIZE);
    read_file(&job.path, max, buf).map_err(|message| Problem {
        path: job.path.clone(),
        fatal: job.named && !message.starts_with("skipped"),
        message,
    })?;
    if !job.lang.may_use_redis(buf, &job.config.python_receivers) {
        // Nothing to report (a suppression comment names redis-keylint, so such a file
        // has none either): keep neither the text nor an allocation for it.
        return Ok(FileReport {
            path: job.path.clone(),
            source: String::new(),
            findings: Vec::new(),
        });
    }
    let source = String::from_utf8(std::mem::take(buf)).expect("checked by read_file");
    let dir_loader = (matches!(job.lang, Language::Python | Language::Lua)
        || job.lang.dialect().is_some())
    .then(|| job.path.parent().map(crate::loader::DirLoader::new))
    .flatten();
    let loader = dir_loader
        .as_ref()
        .map(|l| l as &dyn keylint_python::FileLoader);
    // The project analysis: imports of other modules of the project.
    let name = (job.lang == Language::Python)
        .then(|| crate::project::module_name(&job.path))
        .flatten();
    let project = name.as_ref().map(|_| projects.get(&job.config));
    let project = project.as_deref().zip(name.as_deref());
    let node_major = node_redis_major(job.lang, &job.path);
    let findings = match cache {
        None => lint_source_with(job.lang, &source, &job.config, loader, project, node_major).0,
        Some(cache) => {
            // The node-redis major decides findings as the module name does.
            let major_name = node_major.map(|m| format!("node-redis@{m}"));
            let key = cache.key(
                job.lang,
                crate::cache::settings_key(&job.config),
                name.as_deref().or(major_name.as_deref()).unwrap_or(""),
                source.as_bytes(),
            );
            match cache.get(key, loader, projects.loader()) {
                Some(findings) => findings,
                None => {
                    let recorder = loader.map(Recorder::new);
                    let (findings, modules) = lint_source_with(
                        job.lang,
                        &source,
                        &job.config,
                        recorder
                            .as_ref()
                            .map(|r| r as &dyn keylint_python::FileLoader),
                        project,
                        node_major,
                    );
                    let deps = recorder.map(Recorder::into_deps).unwrap_or_default();
                    cache.put(key, &findings, &deps, &modules, projects.loader());
                    findings
                }
            }
        }
    };
    let findings = finalize(
        findings,
        job.lang,
        &job.path,
        &source,
        &job.config,
        selection,
    );
    Ok(FileReport {
        path: job.path.clone(),
        // Only output needs the text, and only for files with findings.
        source: if findings.is_empty() {
            String::new()
        } else {
            source
        },
        findings,
    })
}

thread_local! {
    /// Whether this thread has `keylint_python::STACK_SIZE` of stack.
    static BIG_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Lints every job on `threads` workers; results come back in job order whatever
/// the thread count.
fn run_jobs(
    jobs: &[Job],
    threads: usize,
    args: &CheckArgs,
    selection: &CliSelection,
    cache: Option<&Cache>,
) -> Vec<Result<FileReport, Problem>> {
    let projects = Projects::default();
    // Workers get the stack the Python frontend needs for deeply nested code, so it
    // runs in place instead of on a thread of its own per file.
    crate::par::map_ordered(
        jobs,
        threads,
        keylint_python::STACK_SIZE,
        |got_stack| {
            BIG_STACK.set(got_stack);
            Vec::new()
        },
        |buf, job| process(job, args, selection, cache, &projects, buf),
    )
}

fn color_choice(args: &CheckArgs) -> termcolor::ColorChoice {
    match (args.no_color, args.color) {
        (true, _) | (_, ColorWhen::Never) => termcolor::ColorChoice::Never,
        (_, ColorWhen::Always) => termcolor::ColorChoice::Always,
        (_, ColorWhen::Auto) => {
            if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
                || !std::io::IsTerminal::is_terminal(&std::io::stdout())
            {
                termcolor::ColorChoice::Never
            } else {
                termcolor::ColorChoice::Auto
            }
        }
    }
}

fn lint_stdin(
    args: &CheckArgs,
    resolver: &Arc<Mutex<Resolver>>,
    selection: &CliSelection,
) -> Result<FileReport, Problem> {
    let name = args.stdin_filename.clone().ok_or_else(|| Problem {
        path: PathBuf::from("-"),
        message: format!(
            "name standard input with --stdin-filename (a {KNOWN_EXTENSIONS} file name), \
             so that its language is known"
        ),
        fatal: true,
    })?;
    let lang = Language::of(&name).ok_or_else(|| Problem {
        path: name.clone(),
        message: format!("--stdin-filename must name a {KNOWN_EXTENSIONS} file"),
        fatal: true,
    })?;
    let config = resolver
        .lock()
        .expect("resolver lock")
        .for_path(&name)
        .map_err(|e| Problem {
            path: name.clone(),
            message: e.to_string(),
            fatal: true,
        })?;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| Problem {
            path: name.clone(),
            message: format!("cannot read standard input: {e}"),
            fatal: true,
        })?;
    let source = decode(bytes).map_err(|message| Problem {
        path: name.clone(),
        message,
        fatal: false,
    })?;
    let findings = match (lang, crate::project::module_name(&name)) {
        // A module named after a file of a project reads that project's modules.
        (Language::Python, Some(module)) => lint_stdin_in_project(&source, &config, &name, &module)
            .unwrap_or_else(|| lint_source(lang, &source, &config)),
        // A JavaScript module's scripts and node-redis version are read beside it.
        _ if lang.dialect().is_some() => lint_source_at(lang, &source, &config, Some(&name)),
        _ => lint_source(lang, &source, &config),
    };
    let findings = finalize(findings, lang, &name, &source, &config, selection);
    Ok(FileReport {
        path: name,
        source,
        findings,
    })
}

/// Standard input named `name`, a Python module `module` of a project, linted with
/// the project analysis on a thread with the stack it needs; `None` if there is no
/// such thread.
fn lint_stdin_in_project(
    source: &str,
    config: &Config,
    name: &Path,
    module: &str,
) -> Option<Vec<Finding>> {
    let projects = Projects::default();
    let project = projects.get(config);
    let loader = name.parent().map(crate::loader::DirLoader::new);
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("keylint-worker".into())
            .stack_size(keylint_python::STACK_SIZE)
            .spawn_scoped(s, || {
                BIG_STACK.set(true);
                lint_source_with(
                    Language::Python,
                    source,
                    config,
                    loader
                        .as_ref()
                        .map(|l| l as &dyn keylint_python::FileLoader),
                    Some((&project, module)),
                    None,
                )
                .0
            })
            .ok()?;
        match worker.join() {
            Ok(f) => Some(f),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// `--threads`, or the number of CPUs.
fn threads(args: &CheckArgs) -> usize {
    args.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The cache `--cache` / `--cache-dir` asks for, unless `--no-cache`.
fn open_cache(args: &CheckArgs) -> Result<Option<Cache>, String> {
    if args.no_cache || !(args.cache || args.cache_dir.is_some()) {
        return Ok(None);
    }
    let dir = match &args.cache_dir {
        Some(d) => d.clone(),
        None => crate::cache::default_dir().ok_or(
            "--cache: no cache directory (set --cache-dir, REDIS_KEYLINT_CACHE_DIR, XDG_CACHE_HOME or HOME)",
        )?,
    };
    Cache::open(&dir).map(Some)
}

/// Runs `check`; returns the exit status. Three steps: the configuration, the walk
/// (find and lint the files), the report (baseline, output, exit status).
pub fn run(args: &CheckArgs) -> u8 {
    let step = || -> Result<u8, String> {
        let (selection, resolver) = configure(args)?;
        let walked = walk(args, &selection, &resolver)?;
        report(args, walked)
    };
    step().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        2
    })
}

/// The rule selection of the command line and the configuration resolver (`--config`
/// or the nearest configuration file of each path).
fn configure(args: &CheckArgs) -> Result<(CliSelection, Arc<Mutex<Resolver>>), String> {
    let selection = CliSelection::from_args(&args.select, &args.ignore)?;
    let resolver = match &args.config {
        Some(path) => match Config::load(path).map_err(|e| e.to_string())? {
            Some(c) => Resolver::explicit(c),
            None => {
                return Err(format!(
                    "{}: no [tool.redis-keylint] table in this file",
                    path.display()
                ))
            }
        },
        None => Resolver::default(),
    };
    Ok((selection, Arc::new(Mutex::new(resolver))))
}

/// What the walk found and linted.
struct Walked {
    /// The files linted, with their findings.
    reports: Vec<FileReport>,
    /// Paths that could not be linted.
    problems: Vec<Problem>,
    /// How many files were checked.
    checked: usize,
    /// Cache hits, when a cache was used.
    cache_hits: Option<usize>,
}

/// Finds the files of the paths (or standard input) and lints them in parallel.
fn walk(
    args: &CheckArgs,
    selection: &CliSelection,
    resolver: &Arc<Mutex<Resolver>>,
) -> Result<Walked, String> {
    let mut problems = Vec::new();
    let mut cache_hits = None;
    let (results, checked) = if args.paths.len() == 1 && args.paths[0] == Path::new("-") {
        (vec![lint_stdin(args, resolver, selection)], 1)
    } else {
        let paths = if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths.clone()
        };
        let jobs = collect(&paths, resolver, &mut problems).map_err(|e| e.to_string())?;
        let cache = open_cache(args)?;
        let results = run_jobs(&jobs, threads(args), args, selection, cache.as_ref());
        if let Some(cache) = &cache {
            let (stats, error) = cache.finish();
            if let Some(e) = error {
                eprintln!("warning: {e}");
            }
            cache_hits = Some(stats.hits);
        }
        (results, jobs.len())
    };
    let mut reports = Vec::new();
    for r in results {
        match r {
            Ok(report) => reports.push(report),
            Err(p) => problems.push(p),
        }
    }
    Ok(Walked {
        reports,
        problems,
        checked,
        cache_hits,
    })
}

/// Writes the findings as the baseline `path` instead of reporting them.
fn write_baseline(path: &Path, walked: &Walked) -> Result<u8, String> {
    let doc = baseline::to_json(walked.reports.iter().flat_map(|r| {
        r.findings
            .iter()
            .map(move |f| (r.path.as_path(), r.source.as_str(), f))
    }));
    let count = doc["findings"].as_array().map_or(0, Vec::len);
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    std::fs::write(path, text)
        .map_err(|e| format!("{}: cannot write the baseline: {e}", path.display()))?;
    report_problems(&walked.problems);
    eprintln!(
        "wrote {count} finding{} to the baseline {}",
        if count == 1 { "" } else { "s" },
        path.display()
    );
    Ok(if walked.problems.iter().any(|p| p.fatal) {
        2
    } else {
        0
    })
}

/// Filters the findings through the baseline, writes them in the chosen format, and
/// decides the exit status.
fn report(args: &CheckArgs, mut walked: Walked) -> Result<u8, String> {
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &walked);
    }
    if let Some(path) = &args.baseline {
        let mut base = Baseline::load(path)?;
        for r in &mut walked.reports {
            let (path, source) = (r.path.clone(), std::mem::take(&mut r.source));
            r.findings.retain(|f| !base.forgive(&path, &source, f));
            r.source = source;
        }
    }
    let Walked {
        reports,
        problems,
        checked,
        cache_hits,
    } = walked;
    report_problems(&problems);
    let written = match (args.fix_suggest, args.format) {
        (Some(FixForm::Diff), _) => {
            let diff = fixes::diff(&reports);
            let mut out = std::io::stdout().lock();
            out.write_all(diff.as_bytes()).and_then(|_| out.flush())
        }
        (_, Format::Human) => render::human(
            &reports,
            checked,
            cache_hits,
            color_choice(args),
            args.quiet,
            args.fix_suggest == Some(FixForm::Inline),
            threads(args),
        ),
        (_, Format::Json) => render::json(&reports),
        (_, Format::Sarif) => sarif::write(&reports),
        (_, Format::Github) => github::write(&reports),
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write output: {e}"));
        }
    }
    if problems.iter().any(|p| p.fatal) {
        return Ok(2);
    }
    let failing = |f: &&Finding| {
        f.severity == Severity::Error || (args.deny_warnings && f.severity == Severity::Warning)
    };
    let fails = reports
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| failing(&f));
    Ok(if fails && !args.exit_zero { 1 } else { 0 })
}

fn report_problems(problems: &[Problem]) {
    let mut err = std::io::stderr().lock();
    for p in problems {
        let _ = writeln!(
            err,
            "{}: {}: {}",
            if p.fatal { "error" } else { "warning" },
            p.path.display(),
            p.message
        );
    }
}
