//! SARIF 2.1.0 output, as GitHub code scanning accepts it.

use crate::baseline::{fingerprint, normalized_path};
use crate::lint::FileReport;
use crate::render::json_io;
use crate::render::{clamp, Locator};
use keylint_core::{Rule, Severity};
use std::io::{self, Write};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn region(loc: &mut Locator<'_>, source: &str, span: &keylint_core::Span) -> serde_json::Value {
    let s = clamp(source, span);
    let (start_line, start_column) = loc.locate(s.start);
    let (end_line, end_column) = loc.locate(s.end);
    serde_json::json!({
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    })
}

/// The SARIF log of a run.
pub fn log(reports: &[FileReport]) -> serde_json::Value {
    let rules: Vec<serde_json::Value> = Rule::ALL
        .iter()
        .map(|r| {
            let mut rule = serde_json::json!({
                "id": r.code(),
                "name": r.name(),
                "shortDescription": { "text": r.summary() },
                "defaultConfiguration": { "level": level(r.default_severity()) },
                "properties": { "tags": ["redis", "redis-cluster"] },
            });
            if let Some(doc) = crate::rule_doc(*r) {
                rule["fullDescription"] = serde_json::json!({ "text": r.summary() });
                rule["help"] = serde_json::json!({ "text": doc, "markdown": doc });
            }
            rule
        })
        .collect();
    let mut results = Vec::new();
    for r in reports {
        let uri = normalized_path(&r.path);
        let mut loc = Locator::new(&r.source);
        for f in &r.findings {
            let rule_index = Rule::ALL.iter().position(|x| *x == f.rule).unwrap_or(0);
            let mut text = f.message.clone();
            if let Some(h) = &f.help {
                text.push_str(&format!(" (help: {h})"));
            }
            let related: Vec<serde_json::Value> = f
                .secondary
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    serde_json::json!({
                        "id": i,
                        "message": { "text": l.message },
                        "physicalLocation": {
                            "artifactLocation": { "uri": uri },
                            "region": region(&mut loc, &r.source, &l.span),
                        }
                    })
                })
                .collect();
            results.push(serde_json::json!({
                "ruleId": f.rule.code(),
                "ruleIndex": rule_index,
                "level": level(f.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri },
                        "region": region(&mut loc, &r.source, &f.primary.span),
                    },
                    "message": { "text": f.primary.message },
                }],
                "relatedLocations": related,
                "partialFingerprints": {
                    "redisKeylintFingerprint/v1": fingerprint(&r.path, &r.source, f),
                },
            }));
        }
    }
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "redis-keylint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// Writes the SARIF log.
pub fn write(reports: &[FileReport]) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &log(reports)).map_err(json_io)?;
    writeln!(out)?;
    out.flush()
}
