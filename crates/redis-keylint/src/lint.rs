//! `check`: find the files, lint them in parallel, filter the findings through the
//! configuration, suppressions and baseline, render, and decide the exit status.

use crate::baseline::{self, Baseline};
use crate::cache::{Cache, Recorder};
use crate::cli::{CheckArgs, ColorWhen, FixForm, Format};
use crate::config::{Config, Resolver};
use crate::{fixes, github, render, sarif};
use keylint_core::frontend::{FileLoader, Index, Input, Lang, ModuleDep, Options};
use keylint_core::model::ProjectTags;
use keylint_core::{Finding, Rule, Severity};
use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files larger than this are skipped unless configured otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 * 1024 * 1024;

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
pub fn lint_source(lang: Lang, source: &str, config: &Config, unknown: bool) -> Vec<Finding> {
    let judging = Judging {
        tags: crate::tags::of_text(source.as_bytes(), lang == keylint_python::LANG),
        unknown,
    };
    lint_source_with(lang, source, None, config, None, None, false, judging).0
}

/// What the rules are told about a file beyond its config: whether its project writes
/// hash tags, and whether `cross-slot-unknown` (off by default) is selected for it.
#[derive(Debug, Clone, Copy)]
struct Judging {
    tags: ProjectTags,
    unknown: bool,
}

/// The settings of a run that the frontends read, under `config`.
pub fn frontend_options(config: &Config) -> Options {
    Options {
        receivers: config.python_receivers.clone(),
        default_client: Some(config.client),
    }
}

/// A frontend (its place in the registry) and a set of analysis settings.
type IndexKey = (u8, u128);

/// The project analyses of a run (the frontends' index phase), one per frontend and
/// set of analysis settings (files under different configs see the same modules
/// through their own settings).
#[derive(Debug, Default)]
pub struct Projects {
    loader: Arc<crate::project::Loader>,
    by_settings: Mutex<HashMap<IndexKey, Option<Arc<dyn Index>>>>,
}

impl Projects {
    /// The analyses of a run over `paths` (as named on the command line).
    fn for_paths(paths: &[std::path::PathBuf]) -> Projects {
        Projects {
            loader: Arc::new(crate::project::Loader::for_paths(paths)),
            ..Projects::default()
        }
    }

    fn get(&self, lang: Lang, config: &Config) -> Option<Arc<dyn Index>> {
        let key = (
            crate::frontends::id(lang),
            crate::cache::settings_key(config),
        );
        self.by_settings
            .lock()
            .expect("projects lock")
            .entry(key)
            .or_insert_with(|| lang.index(self.loader.clone(), &frontend_options(config)))
            .clone()
    }

    /// The loader the analyses read modules through.
    pub fn loader(&self) -> &crate::project::Loader {
        &self.loader
    }
}

/// [`lint_source`] for the file `file_name` with the loader of the files beside it,
/// and the frontend's index of the run with the file's module name in it, in a
/// project that writes hash tags or not, judged as `judging` says: also returns what
/// the analysis asked about other modules.
#[allow(clippy::too_many_arguments)]
fn lint_source_with(
    lang: Lang,
    source: &str,
    file_name: Option<&str>,
    config: &Config,
    loader: Option<&dyn FileLoader>,
    project: Option<(&dyn Index, Option<&str>)>,
    reached: bool,
    judging: Judging,
) -> (Vec<Finding>, Vec<ModuleDep>) {
    let options = frontend_options(config);
    if !reached && !lang.may_use_redis(source.as_bytes(), &options) {
        return (Vec::new(), Vec::new());
    }
    let mut lowered = lang.lower(&Input {
        source,
        file_name,
        options: &options,
        loader,
        index: project.map(|(i, _)| i),
        module: project.and_then(|(_, m)| m),
        big_stack: BIG_STACK.get(),
        reached,
    });
    lowered.model.facts.project_tags = judging.tags;
    let findings = if judging.unknown {
        let settings = keylint_core::rules::Settings {
            report_unknown: true,
            ..config.settings.clone()
        };
        keylint_core::rules::check(&lowered.model, &settings)
    } else {
        keylint_core::rules::check(&lowered.model, &config.settings)
    };
    (findings, lowered.modules)
}

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
    lang: Lang,
    path: &Path,
    source: &str,
    config: &Config,
    selection: &CliSelection,
) -> Vec<Finding> {
    let per_file = config.ignored_for(path);
    let runs = |r: Rule| selection.enabled(config, r) && !per_file.contains(&r);
    let findings: Vec<Finding> = findings.into_iter().filter(|f| runs(f.rule)).collect();
    let mut findings = keylint_core::suppress::apply(source, lang, findings, runs);
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
    lang: Lang,
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

/// The language named by the `#!` line of a file without an extension.
fn shebang_language(path: &Path) -> Option<Lang> {
    if path.extension().is_some() {
        return None;
    }
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let line = head[..n].split(|&b| b == b'\n').next()?;
    crate::frontends::by_shebang(std::str::from_utf8(line).ok()?.trim_end())
}

/// Collects the files of the directory `root` a frontend reads, except those a
/// config excludes, each with the config that governs it.
fn walk_dir(
    root: &Path,
    resolver: &Arc<Mutex<Resolver>>,
    seen: &mut BTreeSet<PathBuf>,
    jobs: &mut Vec<Job>,
    problems: &mut Vec<Problem>,
) -> Result<(), crate::config::ConfigError> {
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
                let Some(lang) = crate::frontends::by_path(e.path()) else {
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
                path: root.to_path_buf(),
                message: err.to_string(),
                fatal: false,
            }),
        }
    }
    let pending = config_error.lock().expect("error lock").take();
    match pending {
        Some(e) => Err(e),
        None => Ok(()),
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
            // A file named on the command line is linted even if a config excludes it,
            // and one without an extension is linted in the language its `#!` names.
            match crate::frontends::by_path(root).or_else(|| shebang_language(root)) {
                Some(lang) if seen.insert(root.clone()) => jobs.push(Job {
                    path: root.clone(),
                    lang,
                    config,
                    named: true,
                }),
                Some(_) => {}
                None => problems.push(Problem {
                    path: root.clone(),
                    message: format!(
                        "skipped: not a {} file",
                        crate::frontends::known_extensions()
                    ),
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
        walk_dir(root, resolver, &mut seen, &mut jobs, problems)?;
    }
    // Deterministic order whatever the file system returns.
    jobs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(jobs)
}

/// What the first wave learnt of a Python file for the second
/// ([`crate::reach`]): whether it passed the prefilter, its module file when it did,
/// and its imports.
#[derive(Debug, Default)]
pub struct Scan {
    /// The file passed the prefilter (it was linted in the first wave).
    pub passed: bool,
    /// Its module file (canonical path), when it passed.
    pub module: Option<String>,
    /// Its imports, read from its bytes.
    pub imports: Vec<keylint_python::ScannedImport>,
    /// It failed the prefilter but calls a pipeline, a script or a command over
    /// several keys as a method ([`keylint_python::calls_operations`]).
    pub operates: bool,
}

/// [`process_file`] in the first wave: files that fail the prefilter are not
/// parsed; a Python file's imports are read for the second wave.
fn process(
    job: &Job,
    args: &CheckArgs,
    selection: &CliSelection,
    cache: Option<&Cache>,
    projects: &Projects,
    buf: &mut Vec<u8>,
) -> (Result<FileReport, Problem>, Option<Scan>) {
    let mut scan = None;
    let report = process_file(
        job,
        args,
        selection,
        cache,
        projects,
        buf,
        Wave::First(&mut scan),
    );
    (report, scan)
}

/// Which wave a file is linted in.
enum Wave<'a> {
    /// Every file, through the prefilter; a Python file's [`Scan`] is written.
    First(&'a mut Option<Scan>),
    /// A file that failed the prefilter but is reached through imports: linted
    /// without it (the file still does not mention Redis for the analysis).
    Reached,
}

fn process_file(
    job: &Job,
    args: &CheckArgs,
    selection: &CliSelection,
    cache: Option<&Cache>,
    projects: &Projects,
    buf: &mut Vec<u8>,
    mut wave: Wave<'_>,
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
    let lang = job.lang;
    let reached = matches!(wave, Wave::Reached);
    let passed = reached || lang.may_use_redis(buf, &frontend_options(&job.config));
    if let Wave::First(scan) = &mut wave {
        if lang == keylint_python::LANG {
            let text = std::str::from_utf8(buf).expect("checked by read_file");
            **scan = Some(Scan {
                passed,
                module: None,
                imports: keylint_python::scan_imports(text),
                operates: !passed && keylint_python::calls_operations(buf),
            });
        }
    }
    if !passed {
        // Nothing to report (a suppression comment names redis-keylint, so such a file
        // has none either): keep neither the text nor an allocation for it.
        return Ok(FileReport {
            path: job.path.clone(),
            source: String::new(),
            findings: Vec::new(),
        });
    }
    let source = String::from_utf8(std::mem::take(buf)).expect("checked by read_file");
    let dir_loader = lang
        .reads_files()
        .then(|| job.path.parent().map(crate::loader::DirLoader::new))
        .flatten();
    let loader = dir_loader.as_ref().map(|l| l as &dyn FileLoader);
    // The project analysis: imports of other modules of the project.
    let name = lang
        .reads_modules()
        .then(|| crate::project::module_name(&job.path))
        .flatten();
    if let Wave::First(Some(scan)) = &mut wave {
        scan.module.clone_from(&name);
    }
    let index = projects.get(lang, &job.config);
    let project = index.as_deref().map(|i| (i, name.as_deref()));
    let file_name = job.path.to_str();
    // Only a judgement that would take unseen values as untagged needs the search.
    let judging = Judging {
        tags: if job.config.settings.untagged_values {
            projects.loader().project_tags(&job.path)
        } else {
            ProjectTags::Written
        },
        unknown: selection.enabled(&job.config, Rule::CrossSlotUnknown),
    };
    let findings = match cache {
        None => {
            lint_source_with(
                lang,
                &source,
                file_name,
                &job.config,
                loader,
                project,
                reached,
                judging,
            )
            .0
        }
        Some(cache) => {
            let key = cache.key(
                lang,
                crate::cache::with_judging(
                    crate::cache::settings_key(&job.config),
                    judging.tags,
                    judging.unknown,
                ),
                name.as_deref().unwrap_or(""),
                source.as_bytes(),
            );
            match cache.get(key, loader, projects.loader()) {
                Some(findings) => findings,
                None => {
                    let recorder = loader.map(Recorder::new);
                    let (findings, modules) = lint_source_with(
                        lang,
                        &source,
                        file_name,
                        &job.config,
                        recorder.as_ref().map(|r| r as &dyn FileLoader),
                        project,
                        reached,
                        judging,
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
    /// Whether this thread has the stack every frontend needs
    /// ([`crate::frontends::stack_size`]).
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
    let projects = Projects::for_paths(&args.paths);
    // Workers get the stack the frontends need for deeply nested code, so they run
    // in place instead of on a thread of their own per file.
    let first = crate::par::map_ordered(
        jobs,
        threads,
        crate::frontends::stack_size(),
        |got_stack| {
            BIG_STACK.set(got_stack);
            Vec::new()
        },
        |buf, job| process(job, args, selection, cache, &projects, buf),
    );
    let (mut results, scans): (Vec<_>, Vec<_>) = first.into_iter().unzip();
    // The second wave: Python files that never mention Redis but import, or are
    // imported by, files that do.
    let paths: Vec<&Path> = jobs.iter().map(|j| j.path.as_path()).collect();
    let named: Vec<bool> = jobs.iter().map(|j| j.named).collect();
    let reached = crate::reach::reached(&paths, &scans, &named, projects.loader());
    if !reached.is_empty() {
        let second = crate::par::map_ordered(
            &reached,
            threads,
            crate::frontends::stack_size(),
            |got_stack| {
                BIG_STACK.set(got_stack);
                Vec::new()
            },
            |buf, &i| {
                process_file(
                    &jobs[i],
                    args,
                    selection,
                    cache,
                    &projects,
                    buf,
                    Wave::Reached,
                )
            },
        );
        for (i, r) in reached.into_iter().zip(second) {
            results[i] = r;
        }
    }
    results
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
    let known = crate::frontends::known_extensions();
    let name = args.stdin_filename.clone().ok_or_else(|| Problem {
        path: PathBuf::from("-"),
        message: format!(
            "name standard input with --stdin-filename (a {known} file name), \
             so that its language is known"
        ),
        fatal: true,
    })?;
    let lang = crate::frontends::by_path(&name).ok_or_else(|| Problem {
        path: name.clone(),
        message: format!("--stdin-filename must name a {known} file"),
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
    let module = lang
        .reads_modules()
        .then(|| crate::project::module_name(&name))
        .flatten();
    let unknown = selection.enabled(&config, Rule::CrossSlotUnknown);
    let findings = match module {
        // A module named after a file of a project reads that project's modules.
        Some(module) => lint_stdin_in_project(lang, &source, &config, &name, &module, unknown)
            .unwrap_or_else(|| lint_source(lang, &source, &config, unknown)),
        None => lint_source(lang, &source, &config, unknown),
    };
    let findings = finalize(findings, lang, &name, &source, &config, selection);
    Ok(FileReport {
        path: name,
        source,
        findings,
    })
}

/// Standard input named `name`, a module `module` of a project, linted with the
/// project analysis on a thread with the stack it needs; `None` if there is no such
/// thread.
fn lint_stdin_in_project(
    lang: Lang,
    source: &str,
    config: &Config,
    name: &Path,
    module: &str,
    unknown: bool,
) -> Option<Vec<Finding>> {
    let projects = Projects::default();
    let index = projects.get(lang, config);
    let loader = name.parent().map(crate::loader::DirLoader::new);
    // The project's other files, and this text in place of the file's own.
    let tags = match projects.loader().project_tags(name) {
        ProjectTags::NoneWritten => {
            crate::tags::of_text(source.as_bytes(), lang == keylint_python::LANG)
        }
        other => other,
    };
    let judging = Judging { tags, unknown };
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("keylint-worker".into())
            .stack_size(crate::frontends::stack_size())
            .spawn_scoped(s, || {
                BIG_STACK.set(true);
                lint_source_with(
                    lang,
                    source,
                    name.to_str(),
                    config,
                    loader.as_ref().map(|l| l as &dyn FileLoader),
                    index.as_deref().map(|i| (i, Some(module))),
                    false,
                    judging,
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
