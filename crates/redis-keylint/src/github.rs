//! GitHub Actions workflow commands: each finding becomes an annotation on the pull
//! request (`::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`).

use crate::baseline::normalized_path;
use crate::lint::FileReport;
use crate::render::{clamp, Locator};
use keylint_core::Severity;
use std::io::{self, Write};

/// Escapes the message part of a workflow command.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Writes one annotation per finding.
pub fn write(reports: &[FileReport]) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for r in reports {
        let path = normalized_path(&r.path);
        let mut loc = Locator::new(&r.source);
        for f in &r.findings {
            let s = clamp(&r.source, &f.primary.span);
            let (start_line, start_column) = loc.locate(s.start);
            let (end_line, end_column) = loc.locate(s.end);
            let kind = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut message = format!("{}\n{}", f.message, f.primary.message);
            if let Some(h) = &f.help {
                message.push_str(&format!("\nhelp: {h}"));
            }
            writeln!(
                out,
                "::{kind} file={},line={},col={},endLine={},endColumn={},title={}::{}",
                escape_property(&path),
                start_line,
                start_column,
                end_line,
                end_column,
                escape_property(&format!("{} {}", f.rule.code(), f.rule.name())),
                escape_data(&message),
            )?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("a%b\nc\r"), "a%25b%0Ac%0D");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
