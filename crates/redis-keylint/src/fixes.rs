//! `--fix-suggest`: suggested hash tags shown inline under a finding, or as a unified
//! diff. The linter never writes the user's files; the diff is for `git apply`.

use crate::baseline::normalized_path;
use crate::lint::FileReport;
use keylint_core::{Edit, Fix, Span};
use std::fmt::Write as _;

/// Applies non-overlapping edits (sorted by start); returns the new text and where
/// each replacement landed in it.
pub fn apply(source: &str, edits: &[Edit]) -> (String, Vec<Span>) {
    let mut out = String::with_capacity(source.len() + 16);
    let mut spans = Vec::with_capacity(edits.len());
    let mut at = 0;
    for e in edits {
        let span = crate::render::clamp(source, &e.span);
        if span.start < at {
            continue;
        }
        out.push_str(&source[at..span.start]);
        let start = out.len();
        out.push_str(&e.replacement);
        spans.push(start..out.len());
        at = span.end;
    }
    out.push_str(&source[at..]);
    (out, spans)
}

/// All fixes of a file that can be applied together, in source order: a fix whose
/// edits overlap an earlier accepted fix is left out whole.
pub fn combined_edits<'a>(fixes: impl Iterator<Item = &'a Fix>) -> Vec<Edit> {
    let mut taken: Vec<Edit> = Vec::new();
    for fix in fixes {
        let overlaps = fix.edits.iter().any(|e| {
            taken
                .iter()
                .any(|t| e.span.start < t.span.end && t.span.start < e.span.end)
        });
        if !overlaps {
            taken.extend(fix.edits.iter().cloned());
        }
    }
    taken.sort_by_key(|e| e.span.start);
    taken
}

/// A unified diff between two texts with the same number of lines (replacements never
/// add or remove line breaks), 3 lines of context.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    if a.len() != b.len() || a == b {
        return String::new();
    }
    let changed: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(3);
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] <= changed[j] + 7 {
            j += 1;
        }
        let end = (changed[j] + 4).min(a.len());
        let n = end - start;
        let _ = writeln!(out, "@@ -{},{n} +{},{n} @@", start + 1, start + 1);
        let line = |s: &str| {
            if s.ends_with('\n') {
                s.to_string()
            } else {
                format!("{s}\n\\ No newline at end of file\n")
            }
        };
        let mut k = start;
        while k < end {
            if a[k] == b[k] {
                out.push(' ');
                out.push_str(&line(a[k]));
                k += 1;
                continue;
            }
            // A run of changed lines: all removals, then all additions.
            let run_end = (k..end).find(|&x| a[x] == b[x]).unwrap_or(end);
            for old_line in &a[k..run_end] {
                out.push('-');
                out.push_str(&line(old_line));
            }
            for new_line in &b[k..run_end] {
                out.push('+');
                out.push_str(&line(new_line));
            }
            k = run_end;
        }
        i = j + 1;
    }
    out
}

/// The diff of every suggested fix in every file.
pub fn diff(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let edits = combined_edits(r.findings.iter().filter_map(|f| f.fix.as_ref()));
        if edits.is_empty() {
            continue;
        }
        let (new, _) = apply(&r.source, &edits);
        out.push_str(&unified_diff(&normalized_path(&r.path), &r.source, &new));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_and_diff() {
        let src = "a\nMGET x y\nb\n";
        let edits = vec![
            Edit {
                span: 7..8,
                replacement: "{t}x".into(),
            },
            Edit {
                span: 9..10,
                replacement: "{t}y".into(),
            },
        ];
        let (new, spans) = apply(src, &edits);
        assert_eq!(new, "a\nMGET {t}x {t}y\nb\n");
        assert_eq!(&new[spans[1].clone()], "{t}y");
        let d = unified_diff("f.redis", src, &new);
        assert_eq!(
            d,
            "--- a/f.redis\n+++ b/f.redis\n@@ -1,3 +1,3 @@\n a\n-MGET x y\n+MGET {t}x {t}y\n b\n"
        );
    }
}
