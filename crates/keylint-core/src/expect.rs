//! Expectation markers: a test fixture states the findings it expects beside the
//! code, in a comment of its own language (`# expect: cross-slot` in Python,
//! `-- expect: undeclared-script-key` in Lua, a whole-line `# expect: …` above the
//! command in a redis-cli file), the way clippy's `//~` markers do. The binary's
//! `markers` test lints every fixture that carries markers and compares.
//!
//! A marker with anything before it on its line (code, or another comment such as a
//! suppression) is about that line; a marker alone on its line is about the next
//! line. It names the rules (names or codes, comma-separated)
//! whose findings start on that line, or `none`: the line has no finding. In a file
//! with markers every finding must be marked and every marked rule must be found on
//! its line.

use crate::frontend::Lang;
use crate::rule::Rule;

/// The word that opens a marker inside a comment.
pub const DIRECTIVE: &str = "expect:";

/// One marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// The 0-based line the marker is written on.
    pub at: usize,
    /// The 0-based line whose findings it states.
    pub line: usize,
    /// The rules named, as written, with the rule when the name or code is known;
    /// empty for `none`.
    pub rules: Vec<(String, Option<Rule>)>,
}

/// Where the text of a marker starts on `line` (just after [`DIRECTIVE`]), with
/// whether code comes before its comment.
fn find(line: &str, lang: Lang) -> Option<(usize, bool)> {
    let comments = lang.comments();
    let marker = comments.marker();
    let (first, _) = comments.find(line)?;
    // A comment may hold the marker's word in other text: every comment opening
    // from the first on is tried (a marker may follow a suppression comment).
    let mut from = first;
    while let Some(i) = line[from..].find(marker).map(|i| from + i) {
        let after = line[i + marker.len()..].trim_start();
        if let Some(rest) = after.strip_prefix(DIRECTIVE) {
            let start = line.len() - rest.len();
            return Some((start, !line[..i].trim().is_empty()));
        }
        from = i + marker.len();
    }
    None
}

/// The markers of `source`, a file in `lang`.
pub fn parse(source: &str, lang: Lang) -> Vec<Marker> {
    let mut out = Vec::new();
    if !source.contains(DIRECTIVE) {
        return out;
    }
    for (n, line) in source.split('\n').enumerate() {
        let Some((start, code_before)) = find(line, lang) else {
            continue;
        };
        let list = line[start..].trim();
        let rules = if list == "none" {
            Vec::new()
        } else {
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| (s.to_string(), Rule::from_name_or_code(s)))
                .collect()
        };
        out.push(Marker {
            at: n,
            line: if code_before { n } else { n + 1 },
            rules,
        });
    }
    out
}

/// A disagreement between a file's markers and its findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The 0-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Compares the markers of a file with its findings, given as the 0-based line each
/// starts on and its rule: every finding must be marked on its line, and every rule
/// a marker names must be found there. Sorted by line.
pub fn compare(markers: &[Marker], findings: &[(usize, Rule)]) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for m in markers {
        for (name, rule) in &m.rules {
            match rule {
                None => out.push(Mismatch {
                    line: m.at,
                    message: format!("marker names an unknown rule `{name}`"),
                }),
                Some(r) if !findings.contains(&(m.line, *r)) => out.push(Mismatch {
                    line: m.line,
                    message: format!("marker expects `{}` but it is not found here", r.name()),
                }),
                Some(_) => {}
            }
        }
    }
    let mut seen = Vec::new();
    for &(line, rule) in findings {
        if seen.contains(&(line, rule)) {
            continue;
        }
        seen.push((line, rule));
        let marked = markers
            .iter()
            .any(|m| m.line == line && m.rules.iter().any(|(_, r)| *r == Some(rule)));
        if !marked {
            out.push(Mismatch {
                line,
                message: format!("`{}` found here with no marker", rule.name()),
            });
        }
    }
    out.sort_by_key(|m| m.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testing::{CLI, LUA_LANG, PY};

    #[test]
    fn trailing_and_alone_markers() {
        let py = "r.mget('a', 'b')  # expect: cross-slot\n# expect: RK001, empty-hash-tag\nx\ny  # expect: none\n";
        let m = parse(py, PY);
        assert_eq!(m.len(), 3);
        assert_eq!((m[0].at, m[0].line), (0, 0));
        assert_eq!(m[0].rules, [("cross-slot".into(), Some(Rule::CrossSlot))]);
        assert_eq!((m[1].at, m[1].line), (1, 2));
        assert_eq!(m[1].rules[1].1, Some(Rule::EmptyHashTag));
        assert!(m[2].rules.is_empty());
        let lua =
            "redis.call('GET', 'a') -- redis-keylint: ignore[x] -- expect: unused-suppression\n";
        assert_eq!(
            parse(lua, LUA_LANG)[0].rules[0].1,
            Some(Rule::UnusedSuppression)
        );
        let alone = "# redis-keylint: ignore[x]  # expect: unused-suppression\n";
        assert_eq!(parse(alone, PY)[0].line, 0);
        // In a redis-cli file only a whole line is a comment.
        assert!(parse("SET k#expect:cross-slot v\n", CLI).is_empty());
        assert_eq!(parse("  # expect: cross-slot\nMGET a b\n", CLI)[0].line, 1);
    }

    #[test]
    fn every_finding_marked_and_every_marker_found() {
        let m = parse("a # expect: cross-slot\nb\nc # expect: nope\n", PY);
        let found = [
            (0, Rule::CrossSlot),
            (0, Rule::CrossSlot),
            (1, Rule::EmptyHashTag),
        ];
        let lines: Vec<(usize, String)> = compare(&m, &found)
            .into_iter()
            .map(|x| (x.line, x.message))
            .collect();
        assert_eq!(
            lines,
            [
                (1, "`empty-hash-tag` found here with no marker".to_string()),
                (2, "marker names an unknown rule `nope`".to_string()),
            ]
        );
        assert_eq!(compare(&m, &[]).len(), 2);
    }
}
