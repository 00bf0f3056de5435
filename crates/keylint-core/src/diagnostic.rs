//! Findings: what a rule reports, independent of how it is rendered.

use crate::rule::Rule;
use crate::Span;
use std::fmt;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Informational: behaviour worth knowing, never fails a run.
    Info,
    /// Likely a problem.
    Warning,
    /// Will fail on a cluster.
    Error,
}

impl Severity {
    /// Lower-case name: `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    /// Parses `error`, `warning` or `info`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A message attached to a byte range of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Byte range in the file.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

impl Label {
    /// A label on `span` saying `message`.
    pub fn new(span: Span, message: impl Into<String>) -> Label {
        Label {
            span,
            message: message.into(),
        }
    }
}

/// One replacement in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes to replace.
    pub span: Span,
    /// What to put there.
    pub replacement: String,
}

/// A suggested rewrite: never applied by the linter, shown by `--fix-suggest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the rewrite does, imperative (`add the hash tag `user:1000``).
    pub title: String,
    /// The replacements, in source order, never overlapping.
    pub edits: Vec<Edit>,
}

/// One finding in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule that found it.
    pub rule: Rule,
    /// Its severity.
    pub severity: Severity,
    /// The headline, lower case, code in backticks.
    pub message: String,
    /// The offending place.
    pub primary: Label,
    /// Evidence elsewhere (the other keys and their slots).
    pub secondary: Vec<Label>,
    /// `= note:` lines.
    pub notes: Vec<String>,
    /// The `= help:` line.
    pub help: Option<String>,
    /// The whole atomic unit (command, transaction block, script) the finding is about.
    pub unit: Option<Span>,
    /// A suggested rewrite, when one is safe to propose.
    pub fix: Option<Fix>,
}

impl Finding {
    /// A finding of `rule` at its default severity.
    pub fn new(rule: Rule, message: impl Into<String>, primary: Label) -> Finding {
        Finding {
            rule,
            severity: rule.default_severity(),
            message: message.into(),
            primary,
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
            unit: None,
            fix: None,
        }
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, label: Label) -> Finding {
        self.secondary.push(label);
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Finding {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Sets the severity.
    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }

    /// Attaches a suggested rewrite.
    pub fn with_fix(mut self, fix: Fix) -> Finding {
        self.fix = Some(fix);
        self
    }

    /// Records the atomic unit.
    pub fn with_unit(mut self, unit: Span) -> Finding {
        self.unit = Some(unit);
        self
    }
}
