//! The project's Lua files seen together: a library file that has no script of its own
//! (no `KEYS`, no `ARGV`, no `redis.register_function`) is code some other file runs
//! inside Redis, assembled into one script by a build step (a Makefile that
//! concatenates files) or a loader. Such a file is judged as part of the scripts that
//! reach it.
//!
//! The index reads the other `.lua` files of the linted file's directory through the
//! [`IncludeLoader`] (the frontend does no IO) and records, per file, the names it
//! defines at its top level and the names it uses:
//!
//! - defined: a top-level `local N` or global `N = …`, `function N(…)`, a function or
//!   value stored under a name path (`function N.a(…)`, `function N:m(…)`,
//!   `N.a.b = …`), and for `function N:m` the method `:m`;
//! - used: a global name, every prefix of a name path rooted at a global
//!   (`Qless.config.get(k)` uses `Qless`, `Qless.config` and `Qless.config.get`), and
//!   `:m` for a method call `x:m(…)` on any value.
//!
//! A use links its file to the one other file that defines the name; a name defined
//! in several files, or in the using file itself, links nothing. A file that reads
//! `KEYS` or `ARGV`, or registers functions, is a script (an entry); a library file is
//! reached when an entry links to it, directly or through other library files.
//!
//! What the linted library file then is: keys its functions build from literals or read
//! from Redis are undeclared keys of the scripts that reach it, whatever calls them. When
//! no file of any of those scripts reads `KEYS` beyond its length (`if #KEYS > 0 then
//! error(…) end`), the script receives no declared key at all, so every key it touches
//! is undeclared, also keys built from a function's parameters.

use crate::ast::{Node, F, K};
use crate::include::IncludeLoader;
use crate::scope::Scopes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Most other files of the directory indexed; a directory with more is not indexed
/// (each library file of it would read them all).
const MAX_FILES: usize = 64;
/// Most bytes indexed for one file.
const MAX_BYTES: usize = 2 << 20;

/// What one file defines and uses.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// Reads `KEYS` or `ARGV`, or registers functions: a script of its own.
    pub entry: bool,
    /// Registers functions with `redis.register_function`.
    pub library: bool,
    /// Reads a `KEYS` element or passes the table on (anything but `#KEYS`).
    pub reads_keys: bool,
    /// The shebang line, trimmed.
    pub shebang: Option<String>,
    defines: Vec<String>,
    uses: Vec<String>,
}

/// What the index found in each file text, kept for a whole run: every library file
/// of a directory indexes the same other files, and a file's facts depend on its text
/// only. Pass one through [`IncludeLoader::index_cache`].
#[derive(Debug, Default)]
pub struct IndexCache {
    by_text: Mutex<HashMap<String, Arc<Facts>>>,
}

impl IndexCache {
    /// The facts of `text`, indexed on first use; `None` when it does not parse.
    fn facts_of(&self, text: &str) -> Option<Arc<Facts>> {
        if let Some(f) = self.by_text.lock().ok()?.get(text) {
            return Some(f.clone());
        }
        let f = Arc::new(index_text(text)?);
        let mut map = self.by_text.lock().ok()?;
        Some(map.entry(text.to_string()).or_insert(f).clone())
    }
}

/// The facts of one file's text.
fn index_text(text: &str) -> Option<Facts> {
    let ast = crate::parse(text)?;
    let root = ast.root();
    let scopes = crate::scope::resolve(root, ast.identifiers(), text.as_bytes());
    Some(facts(root, text.as_bytes(), &scopes))
}

/// Longest name path indexed (`a.b.c` is 3); longer ones (generated code) are none.
const MAX_PATH: usize = 16;

/// The dotted path of a name expression rooted at an identifier: `a.b.c`, with the
/// root identifier.
fn path<'t>(n: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    let mut fields = Vec::new();
    let mut cur = n;
    while cur.kind() == K::DotIndexExpression {
        if fields.len() >= MAX_PATH {
            return None;
        }
        fields.push(cur.field(F::Field)?);
        cur = cur.field(F::Table)?;
    }
    if cur.kind() != K::Identifier {
        return None;
    }
    let mut out = text(cur, src);
    for f in fields.iter().rev() {
        out.push('.');
        out.push_str(&text(*f, src));
    }
    Some((out, cur))
}

fn text(n: Node<'_>, src: &[u8]) -> String {
    String::from_utf8_lossy(&src[n.byte_range()]).into_owned()
}

/// Collects what `root` defines and uses.
pub(crate) fn facts(root: Node<'_>, src: &[u8], scopes: &Scopes) -> Facts {
    let mut out = Facts {
        library: crate::registers_functions(root, src),
        shebang: src.starts_with(b"#!").then(|| {
            let end = src.iter().position(|&b| b == b'\n').unwrap_or(src.len());
            String::from_utf8_lossy(&src[..end]).trim().to_string()
        }),
        ..Facts::default()
    };
    out.entry = out.library;
    let free = |n: Node<'_>| !scopes.uses.contains_key(&n.start_byte());
    defines(root, src, &free, &mut out);
    uses(root, src, &free, &mut out);
    out.defines.sort();
    out.defines.dedup();
    out.uses.sort();
    out.uses.dedup();
    out
}

/// The names `root` defines at top level: locals, functions (`T.f`, and `T:m` as
/// `T.m` and `:m`), and assignments to free names.
fn defines(root: Node<'_>, src: &[u8], free: &dyn Fn(Node<'_>) -> bool, out: &mut Facts) {
    for s in root.named_children() {
        match s.kind() {
            K::VariableDeclaration => {
                let Some(first) = s.named_children().next() else {
                    continue;
                };
                let list = match first.kind() {
                    K::VariableList => Some(first),
                    K::AssignmentStatement => first.child_of_kind(K::VariableList),
                    _ => None,
                };
                for n in list.into_iter().flat_map(Node::named_children) {
                    if n.kind() == K::Identifier {
                        out.defines.push(text(n, src));
                    }
                }
            }
            K::FunctionDeclaration => {
                let Some(name) = s.field(F::Name) else {
                    continue;
                };
                match name.kind() {
                    K::MethodIndexExpression => {
                        if let (Some((t, _)), Some(m)) = (
                            name.field(F::Table).and_then(|t| path(t, src)),
                            name.field(F::Method),
                        ) {
                            let m = text(m, src);
                            out.defines.push(format!("{t}.{m}"));
                            out.defines.push(format!(":{m}"));
                        }
                    }
                    _ => {
                        if let Some((p, _)) = path(name, src) {
                            out.defines.push(p);
                        }
                    }
                }
            }
            K::AssignmentStatement => {
                for t in s
                    .child_of_kind(K::VariableList)
                    .into_iter()
                    .flat_map(Node::named_children)
                {
                    if let Some((p, root)) = path(t, src) {
                        if free(root) {
                            out.defines.push(p);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The free names `root` uses anywhere, whether it reads `KEYS`/`ARGV` (and so is a
/// script), and the methods it calls.
fn uses(root: Node<'_>, src: &[u8], free: &dyn Fn(Node<'_>) -> bool, out: &mut Facts) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() {
            continue;
        }
        match n.kind() {
            K::Identifier if free(n) => {
                let name = &src[n.byte_range()];
                if name == b"KEYS" || name == b"ARGV" {
                    out.entry = true;
                    out.reads_keys |= name == b"KEYS";
                }
            }
            K::UnaryExpression => {
                // `#KEYS` reads the count only.
                let operand = n.field(F::Operand);
                if let Some(o) = operand.filter(|o| {
                    o.kind() == K::Identifier && free(*o) && &src[o.byte_range()] == b"KEYS"
                }) {
                    if src[n.start_byte()..o.start_byte()].contains(&b'#') {
                        out.entry = true;
                        continue;
                    }
                }
            }
            K::FunctionDeclaration => {
                // The name is a definition; only its body uses names.
                if let Some(b) = n.field(F::Body) {
                    stack.push(b);
                }
                if let Some(p) = n.field(F::Parameters) {
                    stack.push(p);
                }
                continue;
            }
            K::FunctionCall => {
                if let Some(callee) = n.field(F::Name) {
                    if callee.kind() == K::MethodIndexExpression {
                        if let Some(m) = callee.field(F::Method) {
                            out.uses.push(format!(":{}", text(m, src)));
                        }
                    }
                }
            }
            K::DotIndexExpression => {
                if let Some((p, root)) = path(n, src) {
                    if free(root) {
                        let mut cut = p.as_str();
                        loop {
                            out.uses.push(cut.to_string());
                            match cut.rfind('.') {
                                Some(i) => cut = &cut[..i],
                                None => break,
                            }
                        }
                        continue;
                    }
                }
            }
            _ => {}
        }
        if n.kind() == K::Identifier && free(n) {
            out.uses.push(text(n, src));
        }
        stack.extend(n.named_children());
    }
}

/// How the scripts that reach a library file run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The scripts (paths relative to the linted file's directory), sorted.
    pub entries: Vec<String>,
    /// Their shebang line, the same for all of them.
    pub shebang: Option<String>,
    /// No file of any of them reads `KEYS`: they receive no declared key.
    pub no_keys: bool,
}

/// Indexes the other `.lua` files of the directory and says which scripts reach the
/// linted file (`source`, whose facts are `own`), if any; a file with the linted
/// file's text is the linted file. `None` when none does, or when the
/// scripts that do disagree on how they run (shebangs differ, or one is a function
/// library).
pub(crate) fn reach(source: &str, own: Facts, loader: &dyn IncludeLoader) -> Option<Reach> {
    let names = loader.siblings();
    // A name is unique only among files all read: past the limits, nothing is said.
    if names.len() > MAX_FILES + 1 {
        return None;
    }
    let cache = loader.index_cache();
    let mut files: Vec<(String, Arc<Facts>)> = Vec::new();
    let mut bytes = 0;
    for name in names {
        // A file that cannot be read might define any name.
        let text = loader.load(&name)?;
        if text == source {
            continue;
        }
        bytes += text.len();
        if bytes > MAX_BYTES {
            return None;
        }
        let f = match cache {
            Some(c) => c.facts_of(&text)?,
            None => Arc::new(index_text(&text)?),
        };
        files.push((name, f));
    }
    if files.is_empty() {
        return None;
    }
    // The linted file is the last node.
    let me = files.len();
    files.push((String::new(), Arc::new(own)));
    // Who defines each name.
    let mut definers: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, (_, f)) in files.iter().enumerate() {
        for d in &f.defines {
            definers.entry(d.as_str()).or_default().push(i);
        }
    }
    let edges: Vec<Vec<usize>> = files
        .iter()
        .enumerate()
        .map(|(i, (_, f))| {
            let mut out: Vec<usize> = f
                .uses
                .iter()
                .filter(|u| !f.defines.contains(u))
                .filter_map(|u| match definers.get(u.as_str()).map(Vec::as_slice) {
                    Some([j]) if *j != i => Some(*j),
                    _ => None,
                })
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    let closure = |from: usize| -> Vec<bool> {
        let mut seen = vec![false; files.len()];
        let mut stack = vec![from];
        seen[from] = true;
        while let Some(i) = stack.pop() {
            for &j in &edges[i] {
                // Another script's code is not part of this one.
                if !seen[j] && !files[j].1.entry {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen
    };
    let mut entries = Vec::new();
    let mut shebangs = Vec::new();
    let mut no_keys = true;
    for (i, (name, f)) in files.iter().enumerate() {
        if !f.entry || i == me {
            continue;
        }
        let seen = closure(i);
        if !seen[me] {
            continue;
        }
        if f.library {
            return None;
        }
        no_keys &= !seen
            .iter()
            .enumerate()
            .any(|(j, s)| *s && files[j].1.reads_keys);
        entries.push(name.clone());
        shebangs.push(f.shebang.clone());
    }
    shebangs.dedup();
    match shebangs.as_slice() {
        [one] => Some(Reach {
            entries,
            shebang: one.clone(),
            no_keys,
        }),
        _ => None,
    }
}

/// True when the directory has other `.lua` files, all read, and none of them is a
/// script (reads `KEYS` or `ARGV`, or registers functions): a directory of shared
/// helper files that loaders pull into scripts kept elsewhere (`shared/` beside the
/// scripts, inlined by an `<%= include_partial "shared/x.lua" %>` line).
/// A file alone in its directory says nothing of how it is used: false.
pub(crate) fn helpers_only(source: &str, loader: &dyn IncludeLoader) -> bool {
    let names = loader.siblings();
    if names.len() > MAX_FILES + 1 {
        return false;
    }
    let mut others = 0;
    let cache = loader.index_cache();
    let mut bytes = 0;
    for name in names {
        let Some(text) = loader.load(&name) else {
            return false;
        };
        if text == source {
            continue;
        }
        bytes += text.len();
        if bytes > MAX_BYTES {
            return false;
        }
        let f = match cache {
            Some(c) => c.facts_of(&text),
            None => index_text(&text).map(Arc::new),
        };
        match f {
            Some(f) if !f.entry => others += 1,
            _ => return false,
        }
    }
    others > 0
}
