//! Renderers: rustc-style text through codespan-reporting, and JSON.

use crate::lint::FileReport;
use codespan_reporting::diagnostic::{Diagnostic, Label, LabelStyle, Severity as CsSeverity};
use codespan_reporting::files::{Error as FilesError, Files, SimpleFile};
use codespan_reporting::term::{
    self,
    termcolor::{Buffer, BufferWriter},
};
use keylint_core::{Edit, Finding, Severity, Span};
use std::io::{self, Write};
use std::ops::Range;

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
    let rendered = crate::par::map_ordered(
        &with,
        threads,
        RENDER_STACK,
        |_| (),
        |(), r| {
            let mut buf = writer.buffer();
            render_file(&mut buf, r, fix_inline).map(|()| buf)
        },
    );
    for buf in rendered {
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

/// Lines longer than this are shown as a window around the labels on them: printing
/// a whole minified or generated line for each of its findings would make the output
/// (and the time) grow with the square of the line.
const LONG_LINE: usize = 400;
/// Bytes of context shown either side of a label on a long line.
const CONTEXT: usize = 40;
/// At most this much of one label is shown on a long line.
const MAX_SHOWN: usize = 160;
/// Rewritten code is shown under a finding only when the lines it changes are at most
/// this long in all; otherwise the help lists the replacements.
const MAX_REWRITE: usize = 2 * LONG_LINE;

const MIGRATION_NOTE: &str = "note: renaming keys is a data migration: existing keys must \
                              be moved (or written under both names) before the new code runs";

/// Stack of a render worker (the default of a spawned thread).
const RENDER_STACK: usize = 2 << 20;

/// One file's findings, rustc-style.
fn render_file(out: &mut Buffer, r: &FileReport, fix_inline: bool) -> io::Result<()> {
    let config = term::Config::default();
    let name = r.path.display().to_string();
    let file = SimpleFile::new(name.as_str(), r.source.as_str());
    let mut locator = Locator::new(&r.source);
    for f in &r.findings {
        let d = to_diagnostic(&r.source, f);
        if touches_long_line(&file, &d) {
            let (view, d) = Window::of(&name, &r.source, &file, &mut locator, d);
            term::emit(out, &config, &view, &d).map_err(io_error)?;
        } else {
            term::emit(out, &config, &file, &d).map_err(io_error)?;
        }
        if let (true, Some(fix)) = (fix_inline, &f.fix) {
            render_fix(out, &config, &name, &r.source, &file, fix)?;
        }
    }
    Ok(())
}

/// The code a fix rewrites, shown rewritten: only the lines it changes.
fn render_fix(
    out: &mut Buffer,
    config: &term::Config,
    name: &str,
    source: &str,
    file: &SimpleFile<&str, &str>,
    fix: &keylint_core::Fix,
) -> io::Result<()> {
    let (Some(lo), Some(hi)) = (
        fix.edits.iter().map(|e| e.span.start).min(),
        fix.edits.iter().map(|e| e.span.end).max(),
    ) else {
        return Ok(());
    };
    let first = file
        .line_index((), lo.min(source.len()))
        .map_err(io_error)?;
    let last = file
        .line_index((), hi.min(source.len()))
        .map_err(io_error)?;
    let from = file.line_range((), first).map_err(io_error)?.start;
    let to = file.line_range((), last).map_err(io_error)?.end;
    let help = Diagnostic::help().with_message(&fix.title);
    if to - from > MAX_REWRITE {
        // Too long to show rewritten: say what to replace.
        let mut notes: Vec<String> = fix
            .edits
            .iter()
            .map(|e| {
                let s = clamp(source, &e.span);
                format!("replace `{}` with `{}`", &source[s], e.replacement)
            })
            .collect();
        notes.push(MIGRATION_NOTE.to_string());
        let help = help.with_notes(notes);
        return term::emit(out, config, file, &help).map_err(io_error);
    }
    let edits: Vec<Edit> = fix
        .edits
        .iter()
        .map(|e| {
            let s = clamp(source, &e.span);
            Edit {
                span: s.start.clamp(from, to) - from..s.end.clamp(from, to) - from,
                replacement: e.replacement.clone(),
            }
        })
        .collect();
    let (rewritten, spans) = crate::fixes::apply(&source[from..to], &edits);
    let view = Window::whole_lines(name, rewritten, first);
    let help = help
        .with_labels(
            spans
                .into_iter()
                .map(|s| Label::new(LabelStyle::Primary, (), s))
                .collect(),
        )
        .with_notes(vec![MIGRATION_NOTE.to_string()]);
    term::emit(out, config, &view, &help).map_err(io_error)
}

/// Whether a label of `d` starts or ends on a line longer than [`LONG_LINE`].
fn touches_long_line(file: &SimpleFile<&str, &str>, d: &Diagnostic<()>) -> bool {
    d.labels.iter().any(|l| {
        [l.range.start, l.range.end].iter().any(|&at| {
            file.line_index((), at)
                .and_then(|i| file.line_range((), i))
                .is_ok_and(|r| r.len() > LONG_LINE)
        })
    })
}

/// The lines one diagnostic touches, each cut to a window around its labels when it
/// is long (`…` marks a cut), with the file's own line and column numbers.
struct Window<'a> {
    name: &'a str,
    text: String,
    lines: Vec<WindowLine>,
}

struct WindowLine {
    /// Where the line starts in `text`.
    start: usize,
    /// Its 1-based number in the file.
    number: usize,
    /// Where the shown part of the line starts in `text` (after any `…`).
    shown: usize,
    /// The 1-based column, in the file, of the first shown character.
    column: usize,
}

impl<'a> Window<'a> {
    /// The window for `d`, and `d` with its labels moved into it. A label that does
    /// not fit next to the first label of its line becomes a note with its position.
    fn of(
        name: &'a str,
        source: &str,
        file: &SimpleFile<&str, &str>,
        locator: &mut Locator<'_>,
        mut d: Diagnostic<()>,
    ) -> (Window<'a>, Diagnostic<()>) {
        let line_of = |at: usize| file.line_index((), at).unwrap_or(0);
        let range_of = |line: usize| file.line_range((), line).unwrap_or(0..0);
        // The part of each line shown: (line, window start, window end) in the file.
        let mut windows: Vec<(usize, usize, usize)> = Vec::new();
        let mut kept = Vec::new();
        let mut notes = Vec::new();
        for mut label in std::mem::take(&mut d.labels) {
            let line = line_of(label.range.start);
            let full = range_of(line);
            let text_end = trim_newline(source, full.clone());
            // A label is shown on its first line only.
            label.range.end = label.range.end.min(text_end).max(label.range.start);
            let fits = |w: &(usize, usize, usize)| {
                w.0 == line && label.range.start >= w.1 && label.range.end <= w.2
            };
            if windows.iter().any(fits) {
                kept.push(label);
                continue;
            }
            if windows.iter().any(|w| w.0 == line) {
                let (l, c) = locator.locate(label.range.start);
                notes.push(if label.message.is_empty() {
                    format!("note: also at {name}:{l}:{c}")
                } else {
                    format!("note: {}, at {name}:{l}:{c}", label.message)
                });
                continue;
            }
            let (lo, hi) = if text_end - full.start <= LONG_LINE {
                (full.start, text_end)
            } else {
                let shown_end = label.range.end.min(label.range.start + MAX_SHOWN);
                label.range.end = shown_end;
                (
                    floor_char(
                        source,
                        label.range.start.saturating_sub(CONTEXT).max(full.start),
                    ),
                    ceil_char(source, (shown_end + CONTEXT).min(text_end)),
                )
            };
            windows.push((line, lo, hi));
            kept.push(label);
        }
        windows.sort();
        let mut text = String::new();
        let mut lines = Vec::new();
        let mut moved = Vec::new();
        for &(line, lo, hi) in &windows {
            let full = range_of(line);
            let start = text.len();
            if lo > full.start {
                text.push('…');
            }
            let shown = text.len();
            text.push_str(&source[lo..hi]);
            if hi < trim_newline(source, full) {
                text.push('…');
            }
            text.push('\n');
            lines.push(WindowLine {
                start,
                number: line + 1,
                shown,
                column: locator.locate(lo).1,
            });
            moved.push((lo, shown));
        }
        for label in &mut kept {
            let line = line_of(label.range.start);
            let i = windows.iter().position(|w| w.0 == line).unwrap_or(0);
            let (lo, shown) = moved[i];
            let hi = windows[i].2;
            let map = |at: usize| shown + at.clamp(lo, hi) - lo;
            label.range = map(label.range.start)..map(label.range.end);
        }
        d.labels = kept;
        // Labels that could not be shown go first among the notes, like labels would.
        notes.append(&mut d.notes);
        d.notes = notes;
        (Window { name, text, lines }, d)
    }

    /// `text`, whole lines of a file starting at its 0-based line `first_line`.
    fn whole_lines(name: &'a str, text: String, first_line: usize) -> Window<'a> {
        let starts =
            std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let lines = starts
            .enumerate()
            .map(|(i, start)| WindowLine {
                start,
                number: first_line + i + 1,
                shown: start,
                column: 1,
            })
            .collect();
        Window { name, text, lines }
    }

    fn line_at(&self, at: usize) -> usize {
        self.lines
            .partition_point(|l| l.start <= at)
            .saturating_sub(1)
    }
}

impl<'a> Files<'a> for Window<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(self.name)
    }
    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.text)
    }
    fn line_index(&'a self, (): (), at: usize) -> Result<usize, FilesError> {
        Ok(self.line_at(at))
    }
    fn line_number(&'a self, (): (), line: usize) -> Result<usize, FilesError> {
        Ok(self.lines.get(line).map_or(line + 1, |l| l.number))
    }
    fn column_number(&'a self, (): (), line: usize, at: usize) -> Result<usize, FilesError> {
        let Some(l) = self.lines.get(line) else {
            return Ok(1);
        };
        let at = at.clamp(l.shown, self.text.len());
        Ok(l.column + self.text[l.shown..at].chars().count())
    }
    fn line_range(&'a self, (): (), line: usize) -> Result<Range<usize>, FilesError> {
        let start = self.lines.get(line).map_or(self.text.len(), |l| l.start);
        let end = self
            .lines
            .get(line + 1)
            .map_or(self.text.len(), |l| l.start);
        Ok(start..end)
    }
}

/// The end of a line's text, before its `\n` (and `\r`).
fn trim_newline(source: &str, line: Range<usize>) -> usize {
    let t = &source[line.clone()];
    line.start + t.trim_end_matches(['\n', '\r']).len()
}

fn floor_char(source: &str, mut at: usize) -> usize {
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char(source: &str, mut at: usize) -> usize {
    while !source.is_char_boundary(at) {
        at += 1;
    }
    at
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

    /// The 1-based line, column, end line and end column of a span, clamped to the
    /// source.
    pub fn locate_span(&mut self, span: &Span) -> (usize, usize, usize, usize) {
        let s = clamp(self.source, span);
        let (line, column) = self.locate(s.start);
        let (end_line, end_column) = self.locate(s.end);
        (line, column, end_line, end_column)
    }
}

// The JSON form of a finding. Fields are declared in alphabetical order, the order
// in which the output has always listed them.

#[derive(serde::Serialize)]
struct JsonFinding<'a> {
    code: &'a str,
    column: usize,
    end_column: usize,
    end_line: usize,
    fix: Option<JsonFix<'a>>,
    help: &'a Option<String>,
    label: &'a str,
    line: usize,
    message: &'a str,
    notes: &'a [String],
    path: &'a str,
    related: Vec<JsonRelated<'a>>,
    rule: &'a str,
    severity: &'a str,
    unit: Option<JsonUnit>,
}

#[derive(serde::Serialize)]
struct JsonRelated<'a> {
    column: usize,
    end_column: usize,
    end_line: usize,
    line: usize,
    message: &'a str,
}

#[derive(serde::Serialize)]
struct JsonUnit {
    end_line: usize,
    line: usize,
}

#[derive(serde::Serialize)]
struct JsonFix<'a> {
    edits: Vec<JsonEdit<'a>>,
    title: &'a str,
}

#[derive(serde::Serialize)]
struct JsonEdit<'a> {
    column: usize,
    end_column: usize,
    end_line: usize,
    line: usize,
    replacement: &'a str,
}

/// The JSON form of one finding in the file at `path`.
fn finding_json<'a>(path: &'a str, loc: &mut Locator<'_>, f: &'a Finding) -> JsonFinding<'a> {
    let source = loc.source;
    let span = clamp(source, &f.primary.span);
    let (line, column) = loc.locate(span.start);
    let (end_line, end_column) = loc.locate(span.end);
    let related = f
        .secondary
        .iter()
        .map(|l| {
            let (line, column, end_line, end_column) = loc.locate_span(&l.span);
            JsonRelated {
                column,
                end_column,
                end_line,
                line,
                message: &l.message,
            }
        })
        .collect();
    let unit = f.unit.as_ref().map(|u| {
        let s = clamp(source, u);
        JsonUnit {
            end_line: loc.locate(s.end).0,
            line: loc.locate(s.start).0,
        }
    });
    // The suggested rewrite (`--fix-suggest`), as the text output shows it: the
    // replacement of each span.
    let fix = f.fix.as_ref().map(|fix| JsonFix {
        edits: fix
            .edits
            .iter()
            .map(|e| {
                let (line, column, end_line, end_column) = loc.locate_span(&e.span);
                JsonEdit {
                    column,
                    end_column,
                    end_line,
                    line,
                    replacement: &e.replacement,
                }
            })
            .collect(),
        title: &fix.title,
    });
    JsonFinding {
        code: f.rule.code(),
        column,
        end_column,
        end_line,
        fix,
        help: &f.help,
        label: &f.primary.message,
        line,
        message: &f.message,
        notes: &f.notes,
        path,
        related,
        rule: f.rule.name(),
        severity: f.severity.as_str(),
        unit,
    }
}

/// Every finding of every report, as one JSON array, written as it is made.
struct AllFindings<'a>(&'a [FileReport]);

impl serde::Serialize for AllFindings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        for r in self.0.iter().filter(|r| !r.findings.is_empty()) {
            let path = r.path.display().to_string();
            let mut loc = Locator::new(&r.source);
            for f in &r.findings {
                seq.serialize_element(&finding_json(&path, &mut loc, f))?;
            }
        }
        seq.end()
    }
}

/// A JSON array of every finding.
pub fn json(reports: &[FileReport]) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &AllFindings(reports)).map_err(json_io)?;
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
