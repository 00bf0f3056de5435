//! Suppression comments: `redis-keylint: ignore[rule, …]` in a comment of the file's
//! language (`# …` in redis-cli files and Python, `-- …` in Lua: see
//! [`crate::frontend::Comments`]), on the offending line or alone on the line above it; `redis-keylint: ignore-file[…]` anywhere in a file for the whole file.
//!
//! A suppression that suppresses nothing is reported (`unused-suppression`, in
//! `rules/unused_suppression.rs`) so that stale ones get cleaned up, except for rules
//! that did not run at all.

use crate::diagnostic::Finding;
use crate::rule::Rule;
use crate::rules::unused_suppression;
use crate::template::Lang;
use crate::Span;

/// One rule named in a suppression comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The rule, if the name or code is known.
    pub rule: Option<Rule>,
    /// The name as written.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// A suppression comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// `ignore-file[…]`.
    pub file_level: bool,
    /// The 0-based line whose findings it suppresses (for line-level comments).
    pub target_line: usize,
    /// The rules it names.
    pub entries: Vec<Entry>,
}

const DIRECTIVE: &str = "redis-keylint:";

/// Finds the suppression comments of a file.
pub fn parse(source: &str, lang: Lang) -> Vec<Suppression> {
    let mut out = Vec::new();
    // Most files have no directive: one substring search instead of a line split.
    if !source.contains(DIRECTIVE) {
        return out;
    }
    let mut offset = 0;
    for (n, line) in source.split('\n').enumerate() {
        let line_start = offset;
        offset += line.len() + 1;
        let Some((marker, c)) = lang.comments().find(line) else {
            continue;
        };
        let rest = &line[c..];
        let Some(d) = rest.find(DIRECTIVE) else {
            continue;
        };
        if !rest[..d].trim().is_empty() {
            continue;
        }
        let after = rest[d + DIRECTIVE.len()..].trim_start();
        let (file_level, list) = if let Some(l) = after.strip_prefix("ignore-file[") {
            (true, l)
        } else if let Some(l) = after.strip_prefix("ignore[") {
            (false, l)
        } else {
            continue;
        };
        let Some(close) = list.find(']') else {
            continue;
        };
        let list_start = line_start + (line.len() - list.len());
        let mut entries = Vec::new();
        let mut pos = 0;
        for item in list[..close].split(',') {
            let lead = item.len() - item.trim_start().len();
            let name = item.trim();
            if !name.is_empty() {
                let start = list_start + pos + lead;
                entries.push(Entry {
                    rule: Rule::from_name_or_code(name),
                    text: name.to_string(),
                    span: start..start + name.len(),
                });
            }
            pos += item.len() + 1;
        }
        // Code before the comment: it suppresses its own line; alone: the next line.
        let code_before = !line[..marker].trim().is_empty();
        out.push(Suppression {
            file_level,
            target_line: if code_before { n } else { n + 1 },
            entries,
        });
    }
    out
}

fn line_of(line_starts: &[usize], offset: usize) -> usize {
    line_starts
        .partition_point(|&s| s <= offset)
        .saturating_sub(1)
}

/// Removes suppressed findings and adds `unused-suppression` findings for entries that
/// suppressed nothing. `ran` tells whether a rule ran on this file.
pub fn apply(
    source: &str,
    lang: Lang,
    findings: Vec<Finding>,
    ran: impl Fn(Rule) -> bool,
) -> Vec<Finding> {
    let sups = parse(source, lang);
    if sups.is_empty() {
        return findings;
    }
    let mut line_starts = vec![0];
    line_starts.extend(
        source
            .bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i + 1),
    );
    let mut used = vec![Vec::new(); sups.len()];
    for (s, u) in sups.iter().zip(used.iter_mut()) {
        *u = vec![false; s.entries.len()];
    }
    let mut kept = Vec::new();
    for f in findings {
        let line = line_of(&line_starts, f.primary.span.start);
        let mut suppressed = false;
        for (si, s) in sups.iter().enumerate() {
            if !s.file_level && s.target_line != line {
                continue;
            }
            for (ei, e) in s.entries.iter().enumerate() {
                if e.rule == Some(f.rule) {
                    used[si][ei] = true;
                    suppressed = true;
                }
            }
        }
        if !suppressed {
            kept.push(f);
        }
    }
    for (si, s) in sups.iter().enumerate() {
        for (ei, e) in s.entries.iter().enumerate() {
            if let Some(f) = unused_suppression::check_entry(e, used[si][ei], &ran) {
                kept.push(f);
            }
        }
    }
    kept.sort_by_key(|f| (f.primary.span.start, f.primary.span.end, f.rule));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Label;
    use crate::frontend::testing::{CLI, LUA_LANG};

    fn finding(rule: Rule, at: usize) -> Finding {
        Finding::new(rule, "x", Label::new(at..at + 1, "x"))
    }

    #[test]
    fn trailing_and_line_above() {
        let src = "MGET a b\n# redis-keylint: ignore[cross-slot]\nMGET c d\n";
        let sups = parse(src, CLI);
        assert_eq!(sups.len(), 1);
        assert_eq!(sups[0].target_line, 2);
        let out = apply(
            src,
            CLI,
            vec![finding(Rule::CrossSlot, 5), finding(Rule::CrossSlot, 50)],
            |_| true,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].primary.span.start, 5);

        let lua = "redis.call('MGET', 'a', 'b') -- redis-keylint: ignore[RK001, broad-hash-tag]\n";
        let out = apply(lua, LUA_LANG, vec![finding(Rule::CrossSlot, 3)], |_| true);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, Rule::UnusedSuppression);
        assert_eq!(out[0].message, "unused suppression of `broad-hash-tag`");
        assert_eq!(&lua[out[0].primary.span.clone()], "broad-hash-tag");
    }

    #[test]
    fn file_level_and_unknown_and_rules_that_did_not_run() {
        let src = "# redis-keylint: ignore-file[empty-hash-tag, nope]\nSET a{} 1\n";
        let out = apply(src, CLI, vec![finding(Rule::EmptyHashTag, 55)], |r| {
            r != Rule::CrossSlot
        });
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].message, "unknown rule `nope` in a suppression");
        let src = "# redis-keylint: ignore[cross-slot]\nGET a\n";
        assert!(apply(src, CLI, vec![], |r| r != Rule::CrossSlot).is_empty());
        assert_eq!(apply(src, CLI, vec![], |_| true).len(), 1);
    }

    #[test]
    fn a_hash_in_a_redis_cli_argument_is_not_a_comment() {
        let src = "SET k#redis-keylint:ignore[cross-slot] v\n";
        assert!(parse(src, CLI).is_empty());
    }
}
