//! Renderers: rustc-style text through codespan-reporting, and JSON.

use crate::lint::FileReport;
use codespan_reporting::diagnostic::{Diagnostic, Label, LabelStyle, Severity as CsSeverity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{
    self,
    termcolor::{Buffer, BufferWriter},
};
use keylint_core::{Finding, Severity, Span};
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Widens a byte span to char boundaries inside the source, so that a label on one
/// byte of a multi-byte character can never split it.
pub fn clamp(source: &str, span: &Span) -> Span {
    let mut start = span.start.min(source.len());
    let mut end = span.end.clamp(start, source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    while !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

fn to_diagnostic(source: &str, f: &Finding) -> Diagnostic<()> {
    let severity = match f.severity {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
        Severity::Info => CsSeverity::Note,
    };
    let mut labels = vec![
        Label::new(LabelStyle::Primary, (), clamp(source, &f.primary.span))
            .with_message(&f.primary.message),
    ];
    labels.extend(f.secondary.iter().map(|l| {
        Label::new(LabelStyle::Secondary, (), clamp(source, &l.span)).with_message(&l.message)
    }));
    let mut notes: Vec<String> = f.notes.iter().map(|n| format!("note: {n}")).collect();
    if let Some(h) = &f.help {
        notes.push(format!("help: {h}"));
    }
    notes.push(format!(
        "rule: `{}` (`redis-keylint explain {}`)",
        f.rule.name(),
        f.rule.name()
    ));
    Diagnostic::new(severity)
        .with_message(&f.message)
        .with_code(f.rule.code())
        .with_labels(labels)
        .with_notes(notes)
}

/// rustc-style output, then a summary line unless `quiet`. Files are rendered on
/// `threads` workers (codespan's rendering is most of the cost of a run with
/// thousands of findings) and printed in order.
#[allow(clippy::too_many_arguments)]
pub fn human(
    reports: &[FileReport],
    checked: usize,
    from_cache: Option<usize>,
    color: term::termcolor::ColorChoice,
    quiet: bool,
    fix_inline: bool,
    threads: usize,
) -> io::Result<()> {
    let writer = BufferWriter::stdout(color);
    let with: Vec<&FileReport> = reports.iter().filter(|r| !r.findings.is_empty()).collect();
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, with.len().max(1));
    let mut rendered: Vec<(usize, io::Result<Buffer>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(r) = with.get(i) else { break };
                        let mut buf = writer.buffer();
                        out.push((i, render_file(&mut buf, r, fix_inline).map(|()| buf)));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a render worker panicked"))
            .collect()
    });
    rendered.sort_by_key(|(i, _)| *i);
    for (_, buf) in rendered {
        writer.print(&buf?)?;
    }
    let (mut errors, mut warnings, mut infos) = (0, 0, 0);
    for f in with.iter().flat_map(|r| &r.findings) {
        match f.severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
            Severity::Info => infos += 1,
        }
    }
    if !quiet {
        let mut buf = writer.buffer();
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let cached = from_cache.map_or(String::new(), |n| format!(", {n} from the cache"));
        if errors + warnings + infos == 0 {
            writeln!(
                buf,
                "no findings ({} checked{cached})",
                plural(checked, "file")
            )?;
        } else {
            let mut parts = vec![plural(errors, "error"), plural(warnings, "warning")];
            if infos > 0 {
                parts.push(format!("{infos} info"));
            }
            writeln!(
                buf,
                "found {} in {} ({checked} checked{cached})",
                parts.join(", "),
                plural(with.len(), "file"),
            )?;
        }
        writer.print(&buf)?;
    }
    Ok(())
}

/// One file's findings, rustc-style.
fn render_file(out: &mut Buffer, r: &FileReport, fix_inline: bool) -> io::Result<()> {
    let config = term::Config::default();
    let file = SimpleFile::new(r.path.display().to_string(), r.source.as_str());
    for f in &r.findings {
        term::emit(out, &config, &file, &to_diagnostic(&r.source, f)).map_err(io_error)?;
        if let (true, Some(fix)) = (fix_inline, &f.fix) {
            let (rewritten, spans) = crate::fixes::apply(&r.source, &fix.edits);
            let file = SimpleFile::new(r.path.display().to_string(), rewritten.as_str());
            let help = Diagnostic::help()
                .with_message(&fix.title)
                .with_labels(
                    spans
                        .into_iter()
                        .map(|s| Label::new(LabelStyle::Primary, (), s))
                        .collect(),
                )
                .with_notes(vec![
                    "note: renaming keys is a data migration: existing keys must be \
                     moved (or written under both names) before the new code runs"
                        .to_string(),
                ]);
            term::emit(out, &config, &file, &help).map_err(io_error)?;
        }
    }
    Ok(())
}

fn io_error(e: codespan_reporting::files::Error) -> io::Error {
    match e {
        codespan_reporting::files::Error::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// Byte offsets to 1-based lines and columns (columns count characters), in time
/// independent of the line's length for ASCII lines: a file with one 2 MB line and
/// thousands of findings on it must not take quadratic time.
#[derive(Debug)]
pub struct Locator<'a> {
    source: &'a str,
    line_starts: Vec<usize>,
    ascii: Vec<Option<bool>>,
}

impl<'a> Locator<'a> {
    /// Indexes the line starts of `source`.
    pub fn new(source: &'a str) -> Locator<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1));
        let ascii = vec![None; line_starts.len()];
        Locator {
            source,
            line_starts,
            ascii,
        }
    }

    /// The 1-based line and column of a byte offset.
    pub fn locate(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.source.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let end = self
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.source.len());
        let ascii = *self.ascii[line].get_or_insert_with(|| self.source[start..end].is_ascii());
        let col = if ascii {
            offset - start
        } else {
            let mut o = offset;
            while !self.source.is_char_boundary(o) {
                o -= 1;
            }
            self.source[start..o].chars().count()
        };
        (line + 1, col + 1)
    }
}

/// The JSON value of one finding in the file at `path`.
pub fn finding_json(path: &str, loc: &mut Locator<'_>, f: &Finding) -> serde_json::Value {
    let source = loc.source;
    let span = clamp(source, &f.primary.span);
    let (line, column) = loc.locate(span.start);
    let (end_line, end_column) = loc.locate(span.end);
    let related: Vec<serde_json::Value> = f
        .secondary
        .iter()
        .map(|l| {
            let s = clamp(source, &l.span);
            let (line, column) = loc.locate(s.start);
            let (end_line, end_column) = loc.locate(s.end);
            serde_json::json!({
                "line": line, "column": column, "end_line": end_line, "end_column": end_column,
                "message": l.message,
            })
        })
        .collect();
    let unit = f.unit.as_ref().map(|u| {
        let s = clamp(source, u);
        serde_json::json!({
            "line": loc.locate(s.start).0,
            "end_line": loc.locate(s.end).0,
        })
    });
    serde_json::json!({
        "rule": f.rule.name(),
        "code": f.rule.code(),
        "severity": f.severity.as_str(),
        "path": path,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "message": f.message,
        "label": f.primary.message,
        "related": related,
        "notes": f.notes,
        "help": f.help,
        "unit": unit,
    })
}

/// A JSON array of every finding.
pub fn json(reports: &[FileReport]) -> io::Result<()> {
    let all: Vec<serde_json::Value> = reports
        .iter()
        .flat_map(|r| {
            let path = r.path.display().to_string();
            let mut loc = Locator::new(&r.source);
            r.findings
                .iter()
                .map(|f| finding_json(&path, &mut loc, f))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out = io::BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &all).map_err(json_io)?;
    writeln!(out)?;
    out.flush()
}

/// A serde_json error as an I/O error that keeps its kind (a closed pipe stays
/// `BrokenPipe`, which is not reported).
pub fn json_io(e: serde_json::Error) -> io::Error {
    match e.io_error_kind() {
        Some(kind) => io::Error::from(kind),
        None => io::Error::other(e),
    }
}
