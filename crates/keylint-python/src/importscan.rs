//! The imports of a Python file read from its bytes, without parsing it: what the
//! binary needs to know which modules a file reaches (a file that never mentions
//! Redis is linted when it imports, or is imported by, one that does).
//!
//! Only statements that start a line (after indentation) are read: `import a.b [as
//! c], d` and `from [dots]a.b import x [as y], (z, w)`, with parentheses and
//! backslashes continuing them. Anything else that looks like one (a docstring line
//! beginning with "from ") gives names that resolve to no module of the project, so
//! it costs a lookup at most.

/// One module an import statement may load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedImport {
    /// Leading dots (`0`: absolute).
    pub level: usize,
    /// The dotted module path (empty for `from . import x`).
    pub dotted: String,
    /// For `from M import a, b`: the imported names, any of which may be a
    /// submodule `M.a`; empty for `import M` and `from M import *`.
    pub names: Vec<String>,
}

/// Whether `s` is one Python identifier.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether `s` is names joined by dots (`a.b.c`).
pub(crate) fn is_dotted(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_ident)
}

/// The imports of `src`, in order.
pub fn scan_imports(src: &str) -> Vec<ScannedImport> {
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let mut from = 0;
    for pos in memchr::memmem::find_iter(bytes, b"import") {
        if pos < from {
            continue;
        }
        // The start of the line holding `import`.
        let line_start = bytes[..pos]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let head = src[line_start..].trim_start_matches([' ', '\t']);
        if !(head.starts_with("import ") || head.starts_with("from ")) {
            continue;
        }
        // The statement: to the end of the line, joined over backslashes and an
        // open parenthesis.
        let start = src.len() - head.len();
        let mut end = start;
        let mut depth = 0i32;
        let mut stmt = String::new();
        while end < bytes.len() {
            let b = bytes[end];
            match b {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'#' => {
                    while end < bytes.len() && bytes[end] != b'\n' {
                        end += 1;
                    }
                    continue;
                }
                b'\\' if bytes.get(end + 1) == Some(&b'\n') => {
                    end += 2;
                    stmt.push(' ');
                    continue;
                }
                b'\n' | b';' if depth <= 0 => break,
                _ => {}
            }
            stmt.push(if b == b'\n' { ' ' } else { b as char });
            end += 1;
            if stmt.len() > 4096 {
                break;
            }
        }
        from = end;
        if !stmt.is_ascii() {
            continue;
        }
        let stmt = stmt.replace(['(', ')'], " ");
        if let Some(rest) = stmt.strip_prefix("import ") {
            for part in rest.split(',') {
                let module = part.split_whitespace().next().unwrap_or("");
                if is_dotted(module) {
                    out.push(ScannedImport {
                        level: 0,
                        dotted: module.to_string(),
                        names: Vec::new(),
                    });
                }
            }
        } else if let Some(rest) = stmt.strip_prefix("from ") {
            let Some((module, names)) = rest.split_once(" import ") else {
                continue;
            };
            let module = module.trim();
            let dotted = module.trim_start_matches('.');
            let level = module.len() - dotted.len();
            if !(dotted.is_empty() && level > 0 || is_dotted(dotted)) {
                continue;
            }
            let names = names
                .split(',')
                .filter_map(|n| n.split_whitespace().next())
                .filter(|n| is_ident(n))
                .map(str::to_string)
                .collect();
            out.push(ScannedImport {
                level,
                dotted: dotted.to_string(),
                names,
            });
        }
    }
    out
}

/// Whether `name` is a method whose call may be a finding's site in a file that
/// never mentions Redis, its client handed in from elsewhere: pipelines, transactions
/// and scripts, and the commands over several keys of one call (not `copy` or `sort`,
/// which most Python code calls on other objects). A `match`, since it is asked of
/// the name before every `(` of every file the prefilter turns away.
fn is_operation(name: &[u8]) -> bool {
    matches!(
        name,
        b"pipeline"
            | b"transaction"
            | b"register_script"
            | b"evalsha"
            | b"eval"
            | b"fcall"
            | b"mget"
            | b"mset"
            | b"msetnx"
            | b"sinter"
            | b"sunion"
            | b"sdiff"
            | b"sinterstore"
            | b"sunionstore"
            | b"sdiffstore"
            | b"sintercard"
            | b"zunion"
            | b"zinter"
            | b"zdiff"
            | b"zunionstore"
            | b"zinterstore"
            | b"zdiffstore"
            | b"zintercard"
            | b"zrangestore"
            | b"rename"
            | b"renamenx"
            | b"smove"
            | b"rpoplpush"
            | b"brpoplpush"
            | b"lmove"
            | b"blmove"
            | b"blpop"
            | b"brpop"
            | b"bzpopmin"
            | b"bzpopmax"
            | b"lmpop"
            | b"blmpop"
            | b"zmpop"
            | b"bzmpop"
            | b"pfmerge"
            | b"bitop"
            | b"xread"
            | b"xreadgroup"
            | b"georadius"
            | b"georadiusbymember"
            | b"geosearchstore"
    )
}

/// Whether a Python file's text calls, as a method (`x.name(` with an argument or
/// none, `eval` only with one), one of the operations above: a file that never
/// mentions Redis can hold a finding only then.
pub fn calls_operations(src: &[u8]) -> bool {
    memchr::memchr_iter(b'(', src).any(|at| {
        let head = &src[..at];
        let start = head
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .map_or(0, |i| i + 1);
        if start == 0 || head[start - 1] != b'.' {
            return false;
        }
        let name = &head[start..];
        // `model.eval()` of a machine-learning model takes no argument.
        if name == b"eval" && src.get(at + 1) == Some(&b')') {
            return false;
        }
        is_operation(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(src: &str) -> Vec<String> {
        scan_imports(src)
            .into_iter()
            .map(|i| {
                format!(
                    "{}{} [{}]",
                    ".".repeat(i.level),
                    i.dotted,
                    i.names.join(",")
                )
            })
            .collect()
    }

    #[test]
    fn statements_at_line_starts() {
        let src = "import os, a.b as c\nfrom .base import X, Y as Z\n\
                   from .. import (m,\n    n)  # x\nfrom p.q import \\\n    r\n\
                   def f():\n    from s import *\n\"\"\"from the docs, import nothing\"\"\"\n\
                   x = 'import y'\n";
        assert_eq!(
            show(src),
            [
                "os []",
                "a.b []",
                ".base [X,Y]",
                ".. [m,n]",
                "p.q [r]",
                "s []",
            ]
        );
    }

    #[test]
    fn operations_are_method_calls_of_their_names() {
        assert!(calls_operations(b"pipe = client.pipeline()\n"));
        assert!(calls_operations(b"conn.rename(a, b)"));
        assert!(calls_operations(b"r.eval(SCRIPT, 1, k)"));
        // Written with a space before the parenthesis: not read (rare).
        assert!(!calls_operations(b"x.mget (a, b)"));
        // A model's `eval()`, a plain function and other methods are not.
        assert!(!calls_operations(b"model.eval()\nmodel.train()"));
        assert!(!calls_operations(b"pipeline(steps)\nrename(a, b)"));
        assert!(!calls_operations(b"df.sort_values(by=x)\nd.copy()"));
        assert!(!calls_operations(b"obj.my_pipeline()"));
    }
}
