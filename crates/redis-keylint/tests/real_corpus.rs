//! The real-code corpus: redis-keylint on pinned public projects, measured against
//! hand labels (docs/real-code.md).
//!
//! Opt-in: without `KEYLINT_REAL=1` this test does nothing and passes. With it, every
//! project of `corpus/projects.toml` found under `KEYLINT_REAL_DIR` (default
//! `target/real-corpus`, materialised by `scripts/real-corpus.sh`) is linted with the
//! built binary, its findings are compared with `corpus/expected/<name>.txt`
//! (`KEYLINT_BLESS=1` rewrites them) and scored against `corpus/labels/<name>.toml`.
//! It fails on any snapshot difference, any finding without a review, and any false
//! error (a finding of severity `error` reviewed as a false positive).
//! `KEYLINT_REAL_ONLY=rq,saq` limits the run to those projects.
//!
//! Projects marked `holdout = true` form the holdout sets (`set = "holdout2"` names
//! another one than the default `holdout`): they run only with `KEYLINT_REAL_HOLDOUT=1`
//! (every holdout set) or `KEYLINT_REAL_HOLDOUT=holdout8` (that set alone, so that a set
//! labelled in advance is not run with the one being measured).
//! A project that is not a holdout may name a set of its own as well (`set =
//! "javascript"`); it always runs. When a run covers several sets (or the holdout), the
//! table gives the totals of each set apart, before the grand total.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

#[derive(Deserialize)]
struct Projects {
    project: Vec<Project>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the descriptive fields are read by people, not by the test
struct Project {
    name: String,
    repo: String,
    commit: String,
    languages: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    why: String,
    /// Part of the holdout set: chosen independently of the tuning set, run only with
    /// `KEYLINT_REAL_HOLDOUT=1` and totalled apart.
    #[serde(default)]
    holdout: bool,
    /// The set the project belongs to (default `tuning`, or `holdout` for a holdout
    /// project); each set is totalled apart.
    set: Option<String>,
}

impl Project {
    fn set_name(&self) -> &str {
        match (&self.set, self.holdout) {
            (Some(s), _) => s,
            (None, false) => "tuning",
            (None, true) => "holdout",
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Labels {
    #[serde(default)]
    site: Vec<Site>,
    #[serde(default)]
    finding: Vec<Review>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Site {
    kind: String,
    file: String,
    line: Option<usize>,
    lines: Option<[usize; 2]>,
    what: String,
    confidence: String,
    /// The code pattern that hides the site from the analysis (filled in for missed
    /// sites; docs/real-code.md groups them).
    pattern: Option<String>,
    /// For an undeclared key derived from a declared one (`KEYS[1] .. ':x'`): the
    /// declared key. Descriptive only: like every site, it is found only by a finding
    /// that points at it.
    derived_from: Option<String>,
    /// For a command in a project's wrapper that sends the keys its callers pass
    /// (`def bulk_get(client, keys): return client.mget(keys)`): the calls of the
    /// wrapper that pass the keys, as `path:line`. A cross-slot finding at one of
    /// them (where the keys are built) finds the site too.
    #[serde(default)]
    callers: Vec<String>,
}

impl Site {
    fn range(&self) -> (usize, usize) {
        match (self.line, self.lines) {
            (_, Some([a, b])) => (a, b),
            (Some(l), None) => (l, l),
            (None, None) => panic!("site {}: neither `line` nor `lines`", self.file),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Review {
    rule: String,
    file: String,
    line: usize,
    verdict: String,
    why: String,
}

/// One finding of the linter, as the JSON output gives it.
#[derive(Deserialize)]
struct Finding {
    rule: String,
    severity: String,
    path: String,
    line: usize,
    column: usize,
    message: String,
    #[serde(default)]
    related: Vec<Related>,
    /// The lines of what the finding judges (a command's call, a transaction).
    #[serde(default)]
    unit: Option<Related>,
}

#[derive(Deserialize)]
struct Related {
    line: usize,
}

fn norm_path(p: &str) -> String {
    p.trim_start_matches("./").replace('\\', "/")
}

impl Finding {
    fn snapshot_line(&self) -> String {
        format!(
            "{}:{}:{} {} {} {}",
            norm_path(&self.path),
            self.line,
            self.column,
            self.rule,
            self.severity,
            self.message.replace('\n', " ")
        )
    }

    /// The lines this finding points at: its primary line and its related lines.
    fn touches(&self, file: &str, (a, b): (usize, usize)) -> bool {
        norm_path(&self.path) == file
            && std::iter::once(self.line)
                .chain(self.related.iter().map(|r| r.line))
                .any(|l| a <= l && l <= b)
    }

    /// Whether a cross-slot finding is about the site at lines `a..=b`: it points at
    /// them, or what it judges begins there (a command call written over several
    /// lines, labelled at its first line, whose keys the finding points at below).
    fn judges(&self, file: &str, (a, b): (usize, usize)) -> bool {
        self.touches(file, (a, b))
            || (norm_path(&self.path) == file
                && self
                    .unit
                    .as_ref()
                    .is_some_and(|u| a <= u.line && u.line <= b))
    }
}

const CROSS_SLOT_RULES: &[&str] = &["cross-slot", "cross-slot-likely", "sort-pattern"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[derive(Default, Clone, Copy)]
struct Score {
    cs_sites: usize,
    cs_found: usize,
    ud_sites: usize,
    ud_found: usize,
    findings: usize,
    tp: usize,
    fp: usize,
    unreviewed: usize,
    false_errors: usize,
}

impl Score {
    fn add(&mut self, o: &Score) {
        self.cs_sites += o.cs_sites;
        self.cs_found += o.cs_found;
        self.ud_sites += o.ud_sites;
        self.ud_found += o.ud_found;
        self.findings += o.findings;
        self.tp += o.tp;
        self.fp += o.fp;
        self.unreviewed += o.unreviewed;
        self.false_errors += o.false_errors;
    }
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "-".into()
    } else {
        format!("{:.0}%", 100.0 * n as f64 / d as f64)
    }
}

fn row(name: &str, s: &Score) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        s.cs_sites,
        s.cs_found,
        pct(s.cs_found, s.cs_sites),
        s.ud_sites,
        s.ud_found,
        pct(s.ud_found, s.ud_sites),
        s.findings,
        s.tp,
        s.fp,
        pct(s.tp, s.tp + s.fp),
        s.false_errors,
    )
}

/// What a run is asked for, from the environment.
struct Run {
    root: PathBuf,
    /// Where the projects are materialised.
    src: PathBuf,
    bless: bool,
    /// `KEYLINT_REAL_ONLY=rq,saq` runs those projects alone.
    only: Vec<String>,
    /// `KEYLINT_REAL_HOLDOUT=1`: every holdout set; `=<set>[,<set>]`: those sets.
    holdout: Holdout,
}

/// Which holdout sets a run covers.
enum Holdout {
    None,
    All,
    Sets(Vec<String>),
}

impl Run {
    fn from_env() -> Run {
        let root = repo_root();
        let src = std::env::var_os("KEYLINT_REAL_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target/real-corpus"));
        Run {
            src,
            root,
            bless: std::env::var("KEYLINT_BLESS").as_deref() == Ok("1"),
            only: std::env::var("KEYLINT_REAL_ONLY")
                .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
                .unwrap_or_default(),
            holdout: match std::env::var("KEYLINT_REAL_HOLDOUT").as_deref() {
                Ok("1") => Holdout::All,
                Ok("") | Ok("0") | Err(_) => Holdout::None,
                Ok(sets) => Holdout::Sets(sets.split(',').map(|s| s.trim().to_string()).collect()),
            },
        }
    }

    fn runs(&self, p: &Project) -> bool {
        (self.only.is_empty() || self.only.contains(&p.name)) && self.holdout_runs(p)
    }

    /// Whether the run covers `p`'s set: always for a project of no holdout set.
    fn holdout_runs(&self, p: &Project) -> bool {
        !p.holdout
            || match &self.holdout {
                Holdout::None => false,
                Holdout::All => true,
                Holdout::Sets(sets) => sets.iter().any(|s| s == p.set_name()),
            }
    }
}

/// What the run has found so far.
#[derive(Default)]
struct Report {
    table: String,
    total: Score,
    /// Per set (tuning, holdout3, javascript, ...), in the order of their first project:
    /// the totals and, for the sites labelled "certain" only,
    /// [cross-slot labelled, found, undeclared labelled, found].
    sets: Vec<(String, Score, [usize; 4])>,
    failures: Vec<String>,
    missed: String,
    /// Reviews that match no finding any more (the finding went away): kept as
    /// history, listed so that they can be pruned.
    stale: String,
    ran: usize,
    lint_time: std::time::Duration,
}

impl Report {
    /// The index of the set named `name`, added when it is new.
    fn set(&mut self, name: &str) -> usize {
        match self.sets.iter().position(|(n, ..)| n == name) {
            Some(i) => i,
            None => {
                self.sets.push((name.to_string(), Score::default(), [0; 4]));
                self.sets.len() - 1
            }
        }
    }
}

/// The findings of the binary on the project in `dir`.
fn lint_project(p: &Project, dir: &Path, report: &mut Report) -> Vec<Finding> {
    let paths: Vec<String> = if p.paths.is_empty() {
        vec![".".into()]
    } else {
        p.paths.clone()
    };
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_redis-keylint"))
        .args(["check", "--format", "json", "--exit-zero"])
        .args(&paths)
        .current_dir(dir)
        .env_remove("REDIS_KEYLINT_CACHE_DIR")
        .output()
        .expect("run redis-keylint");
    report.lint_time += started.elapsed();
    assert!(
        out.status.success(),
        "{}: redis-keylint failed: {}",
        p.name,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: bad JSON: {e}", p.name))
}

/// Compares the findings with the project's snapshot, or rewrites it when blessing.
fn compare_snapshot(run: &Run, p: &Project, findings: &[Finding], report: &mut Report) {
    let mut lines: Vec<String> = findings.iter().map(Finding::snapshot_line).collect();
    lines.sort();
    let actual: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let snap = run.root.join(format!("corpus/expected/{}.txt", p.name));
    if run.bless {
        std::fs::write(&snap, &actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&snap).unwrap_or_default();
    if expected != actual {
        let mut d = format!("{}: findings differ from {}:\n", p.name, snap.display());
        for l in expected.lines().filter(|l| !lines.iter().any(|a| a == l)) {
            let _ = writeln!(d, "  - {l}");
        }
        for l in lines.iter().filter(|l| !expected.lines().any(|e| e == *l)) {
            let _ = writeln!(d, "  + {l}");
        }
        report.failures.push(d);
    }
}

/// Counts the labelled sites the findings point at, per kind and for the set's
/// "certain" sites; lists the missed ones.
fn score_sites(
    p: &Project,
    labels: &Labels,
    label_path: &Path,
    findings: &[Finding],
    set: usize,
    s: &mut Score,
    report: &mut Report,
) {
    for site in &labels.site {
        let range = site.range();
        let found = match site.kind.as_str() {
            "cross-slot" => {
                s.cs_sites += 1;
                let f = findings.iter().any(|f| {
                    CROSS_SLOT_RULES.contains(&f.rule.as_str())
                        && (f.judges(&site.file, range)
                            || site.callers.iter().any(|c| {
                                let (file, line) = c.rsplit_once(':').unwrap_or_else(|| {
                                    panic!(
                                        "{}: caller `{c}` is not `path:line`",
                                        label_path.display()
                                    )
                                });
                                let line: usize = line.parse().unwrap_or_else(|_| {
                                    panic!(
                                        "{}: caller `{c}` is not `path:line`",
                                        label_path.display()
                                    )
                                });
                                f.judges(file, (line, line))
                            }))
                });
                s.cs_found += usize::from(f);
                f
            }
            "undeclared-key" => {
                s.ud_sites += 1;
                let f = findings
                    .iter()
                    .any(|f| f.rule == "undeclared-script-key" && f.touches(&site.file, range));
                s.ud_found += usize::from(f);
                f
            }
            k => panic!("{}: unknown site kind `{k}`", label_path.display()),
        };
        match site.confidence.as_str() {
            "certain" => {
                let i = if site.kind == "cross-slot" { 0 } else { 2 };
                report.sets[set].2[i] += 1;
                report.sets[set].2[i + 1] += usize::from(found);
            }
            "likely" => {}
            c => panic!("{}: unknown confidence `{c}`", label_path.display()),
        }
        if !found {
            let _ = writeln!(
                report.missed,
                "  {} {}:{}-{} {} [{}] {}",
                p.name,
                site.file,
                range.0,
                range.1,
                site.kind,
                site.pattern.as_deref().unwrap_or("?"),
                site.what
            );
        }
    }
}

/// Scores each finding by its review: a false error and an unreviewed finding fail
/// the run. Lists the reviews that match no finding.
fn score_findings(
    p: &Project,
    labels: &Labels,
    label_path: &Path,
    findings: &[Finding],
    s: &mut Score,
    report: &mut Report,
) {
    for f in findings {
        s.findings += 1;
        let file = norm_path(&f.path);
        let review = labels
            .finding
            .iter()
            .find(|r| r.rule == f.rule && r.file == file && r.line == f.line);
        match review.map(|r| r.verdict.as_str()) {
            Some("tp") => s.tp += 1,
            Some("fp") => {
                s.fp += 1;
                if f.severity == "error" {
                    s.false_errors += 1;
                    report
                        .failures
                        .push(format!("{}: FALSE ERROR {}", p.name, f.snapshot_line()));
                }
            }
            Some(v) => panic!("{}: unknown verdict `{v}`", label_path.display()),
            None => {
                s.unreviewed += 1;
                report.failures.push(format!(
                    "{}: unreviewed finding {}",
                    p.name,
                    f.snapshot_line()
                ));
            }
        }
    }
    for r in &labels.finding {
        let used = findings
            .iter()
            .any(|f| f.rule == r.rule && norm_path(&f.path) == r.file && f.line == r.line);
        if !used {
            let _ = writeln!(
                report.stale,
                "  {} {}:{} {} ({})",
                p.name, r.file, r.line, r.rule, r.verdict
            );
        }
    }
}

/// Lints one project, compares its snapshot and scores it against its labels.
fn run_project(run: &Run, p: &Project, report: &mut Report) {
    let set = report.set(p.set_name());
    let dir = run.src.join(&p.name);
    if !dir.is_dir() {
        report.failures.push(format!(
            "{}: not materialised under {}",
            p.name,
            run.src.display()
        ));
        return;
    }
    report.ran += 1;
    let findings = lint_project(p, &dir, report);
    compare_snapshot(run, p, &findings, report);
    let label_path = run.root.join(format!("corpus/labels/{}.toml", p.name));
    let labels: Labels = match std::fs::read_to_string(&label_path) {
        Ok(t) => toml::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", label_path.display())),
        Err(_) => Labels::default(),
    };
    let mut s = Score::default();
    score_sites(p, &labels, &label_path, &findings, set, &mut s, report);
    score_findings(p, &labels, &label_path, &findings, &mut s, report);
    report.table.push_str(&row(&p.name, &s));
    report.table.push('\n');
    report.total.add(&s);
    report.sets[set].1.add(&s);
}

/// Prints the table, the per-set recall of "certain" sites, the missed sites and the
/// stale reviews.
fn print_report(run: &Run, report: &mut Report, listed: usize) {
    // Totals per set when the run covers more than the tuning set alone.
    let per_set = !matches!(run.holdout, Holdout::None) || report.sets.len() > 1;
    if per_set {
        for (name, score, _) in &report.sets {
            report.table.push_str(&row(&format!("**{name}**"), score));
            report.table.push('\n');
        }
    }
    report.table.push_str(&row("**total**", &report.total));
    report.table.push('\n');
    println!("\n{}", report.table);
    for (name, _, c) in &report.sets {
        let label = if per_set {
            format!("{name} set, ")
        } else {
            String::new()
        };
        println!(
            "{label}sites labelled \"certain\" only: cross-slot {} of {} found ({}), undeclared keys {} of {} found ({})",
            c[1],
            c[0],
            pct(c[1], c[0]),
            c[3],
            c[2],
            pct(c[3], c[2]),
        );
    }
    println!(
        "projects: {} of {listed}; unreviewed findings: {}; linting took {} ms in all",
        report.ran,
        report.total.unreviewed,
        report.lint_time.as_millis()
    );
    if !report.missed.is_empty() {
        println!(
            "missed sites (project file:lines kind [pattern] what):\n{}",
            report.missed
        );
    }
    if !report.stale.is_empty() {
        println!(
            "reviews that match no finding (prune them once the change is intended):\n{}",
            report.stale
        );
    }
    if run.bless {
        println!("blessed: corpus/expected/*.txt rewritten");
    }
}

#[test]
fn real_corpus() {
    if std::env::var("KEYLINT_REAL").as_deref() != Ok("1") {
        eprintln!(
            "real_corpus: skipped (set KEYLINT_REAL=1 and run scripts/real-corpus.sh; \
             see docs/real-code.md)"
        );
        return;
    }
    let run = Run::from_env();
    let projects: Projects = toml::from_str(
        &std::fs::read_to_string(run.root.join("corpus/projects.toml")).expect("projects.toml"),
    )
    .expect("corpus/projects.toml");
    let mut report = Report {
        table: String::from(
            "| project | cross-slot sites | found | recall | undeclared keys | found | recall \
             | findings | tp | fp | precision | false errors |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        ),
        ..Report::default()
    };
    let listed = projects
        .project
        .iter()
        .filter(|p| run.holdout_runs(p))
        .count();
    for p in projects.project.iter().filter(|p| run.runs(p)) {
        run_project(&run, p, &mut report);
    }
    print_report(&run, &mut report, listed);
    assert!(
        report.failures.is_empty(),
        "\n{}",
        report.failures.join("\n")
    );
}
