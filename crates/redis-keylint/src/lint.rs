//! `check`: walk the paths, lint each file, render, and decide the exit status.

use crate::cli::{CheckArgs, ColorWhen, Format};
use crate::render;
use keylint_core::rules::Settings;
use keylint_core::{Finding, Rule, Severity};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Which frontend reads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// `*.redis`: redis-cli command files.
    RedisCli,
    /// `*.lua`: Redis Lua scripts and functions.
    Lua,
}

impl Language {
    /// The language of a path, by extension.
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "redis" => Some(Language::RedisCli),
            "lua" => Some(Language::Lua),
            _ => None,
        }
    }
}

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

/// Lints one file's contents.
pub fn lint_source(lang: Language, source: &str, settings: &Settings) -> Vec<Finding> {
    let model = match lang {
        Language::RedisCli => keylint_rediscli::lower(source.as_bytes()),
        Language::Lua => keylint_lua::lower(source),
    };
    keylint_core::rules::check(&model, settings)
}

/// Rule selection from `--select` and `--ignore`.
#[derive(Debug, Clone)]
pub struct Selection {
    enabled: BTreeSet<Rule>,
}

impl Selection {
    fn from_args(select: &[String], ignore: &[String]) -> Result<Selection, String> {
        let parse = |names: &[String]| -> Result<Vec<Rule>, String> {
            names
                .iter()
                .filter(|n| !n.is_empty())
                .map(|n| {
                    Rule::from_name_or_code(n.trim()).ok_or_else(|| {
                        format!("unknown rule `{n}`; `redis-keylint rules` lists them all")
                    })
                })
                .collect()
        };
        let mut enabled: BTreeSet<Rule> = if select.is_empty() {
            Rule::ALL.iter().copied().collect()
        } else {
            parse(select)?.into_iter().collect()
        };
        for r in parse(ignore)? {
            enabled.remove(&r);
        }
        Ok(Selection { enabled })
    }
}

fn read_file(path: &Path, max: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.len() > max {
        return Err(format!(
            "skipped: {} bytes is over the {max}-byte limit (--max-file-size)",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err("skipped: binary file".into());
    }
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => Err(format!(
            "skipped: not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        )),
    }
}

/// Collects the files to lint under the given paths, in a stable order.
fn collect(paths: &[PathBuf], problems: &mut Vec<Problem>) -> Vec<PathBuf> {
    let mut files = BTreeSet::new();
    for root in paths {
        if std::fs::metadata(root).is_err() {
            problems.push(Problem {
                path: root.clone(),
                message: match std::fs::symlink_metadata(root) {
                    Ok(_) => "broken symbolic link".into(),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        "no such file or directory".into()
                    }
                    Err(e) => e.to_string(),
                },
                fatal: true,
            });
            continue;
        }
        if root.is_file() {
            if Language::of(root).is_some() {
                files.insert(root.clone());
            } else {
                problems.push(Problem {
                    path: root.clone(),
                    message: "skipped: not a `.redis` or `.lua` file".into(),
                    fatal: false,
                });
            }
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .follow_links(false)
            .require_git(false)
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    if e.file_type().is_some_and(|t| t.is_file())
                        && Language::of(e.path()).is_some()
                    {
                        files.insert(e.into_path());
                    }
                }
                Err(err) => problems.push(Problem {
                    path: root.clone(),
                    message: err.to_string(),
                    fatal: false,
                }),
            }
        }
    }
    files.into_iter().collect()
}

/// Runs `check`; returns the exit status.
pub fn run(args: &CheckArgs) -> u8 {
    let selection = match Selection::from_args(&args.select, &args.ignore) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let settings = Settings::default();
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut problems = Vec::new();
    let files = collect(&paths, &mut problems);
    let named: BTreeSet<&PathBuf> = paths.iter().collect();
    let mut reports = Vec::new();
    for path in &files {
        let lang = Language::of(path).expect("collected files have a language");
        match read_file(path, args.max_file_size) {
            Ok(source) => {
                let mut findings = lint_source(lang, &source, &settings);
                findings.retain(|f| selection.enabled.contains(&f.rule));
                reports.push(FileReport {
                    path: path.clone(),
                    source,
                    findings,
                });
            }
            Err(message) => problems.push(Problem {
                path: path.clone(),
                fatal: named.contains(path) && !message.starts_with("skipped"),
                message,
            }),
        }
    }
    let color = match (args.no_color, args.color) {
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
    };
    for p in &problems {
        eprintln!(
            "{}: {}: {}",
            if p.fatal { "error" } else { "warning" },
            p.path.display(),
            p.message
        );
    }
    let written = match args.format {
        Format::Human => render::human(&reports, files.len(), color, args.quiet),
        Format::Json => render::json(&reports),
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
            return 2;
        }
    }
    if problems.iter().any(|p| p.fatal) {
        return 2;
    }
    let has_error = reports
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| f.severity == Severity::Error);
    if has_error && !args.exit_zero {
        1
    } else {
        0
    }
}
