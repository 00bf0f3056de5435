//! The Lua frontend of redis-keylint: Redis scripts (`EVAL`) and function libraries
//! (`FUNCTION LOAD`) turned into the neutral model.
//!
//! A script runs on one node, so every key it touches must be served there: the whole
//! script is one atomic unit ([`UnitKind::Script`]), and each multi-key command inside
//! it is a unit of its own (a single command whose keys span slots fails inside any
//! script). A library registers functions with `redis.register_function`; each is its
//! own unit, with its first parameter in the role of `KEYS`.
//!
//! Keys are found the way the script runs: `redis.call`, `redis.pcall` and their
//! aliases, the command key table for argument positions, and an abstract evaluator
//! (`eval`) for key expressions (string literals with Lua 5.1 escapes, `..`,
//! `string.format`, `KEYS[i]`, `ARGV[i]`, locals and every value that reaches them,
//! `unpack(KEYS)`, tables built from `KEYS`, local helper functions, table methods,
//! closures, variadic wrappers). Files pulled in by `--- @include` lines are read
//! through an [`IncludeLoader`]. Each key records where it came from ([`KeyOrigin`](keylint_core::KeyOrigin)) so the
//! script rules can tell declared keys from the rest.
//!
//! Hole bindings are a contract other crates rely on (the Python frontend links a
//! caller's keys into `KEYS[i]`, the live tests substitute `KEYS` and `ARGV`): a hole
//! for `KEYS[i]` or `ARGV[i]` with a constant `i` is bound to exactly `KEYS[i]` or
//! `ARGV[i]`, whatever the table is called in the source (`keys[1]` in a function).
//! Every other binding contains an `@`.
//!
//! The shebang (`#!lua flags=…`) decides how the server treats keys outside the
//! declared slot; this frontend records it in [`Script`] and leaves verdicts to the
//! rules. The frontend is conservative by construction: what it cannot evaluate
//! becomes an opaque hole or an unknown origin, never a guess. Broken syntax is
//! recovered by tree-sitter; anything inside an `ERROR` node is skipped.

#![deny(missing_docs)]

mod ast;
mod eval;
mod frontend;
mod hash;
mod include;
mod paths;
mod project;
mod scope;
mod strings;
mod template;

use ast::{Ast, Node, F, K};
use eval::{Collector, Eval};
use keylint_core::model::{
    CrossSlotPolicy, FileModel, KeyFamily, KeyListing, Script, ScriptMode, Unit, UnitKind,
};
use keylint_core::Span;
use std::cell::RefCell;

pub use frontend::{escape_lua, Lua, FRONTEND, LANG};

/// The prefix of a global name that a host frontend writes into a script's text in
/// place of a value its code pastes into a Lua string literal (a `string.Template`
/// placeholder, `"$pending_key"`): read as text that never comes from `KEYS`, labelled
/// `$<name>`.
pub const HOST_VALUE: &str = "__keylint_host_";
pub use include::IncludeLoader;
pub use project::IndexCache;

/// Flags a `#!lua` shebang or a function registration may declare.
pub const SCRIPT_FLAGS: &[&str] = &[
    "no-writes",
    "allow-oom",
    "allow-stale",
    "no-cluster",
    "allow-cross-slot-keys",
];

/// A parsed `#!lua …` first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shebang {
    /// The line, without its line break.
    pub span: Span,
    /// The declared flags.
    pub flags: Vec<String>,
    /// True when the server accepts the line for `EVAL`: the engine is `lua` and every
    /// option is a known `flags=` list.
    pub valid: bool,
}

/// Reads the shebang of a script, as the server does: only when the source starts
/// with `#!`.
pub fn shebang(source: &str) -> Option<Shebang> {
    if !source.starts_with("#!") {
        return None;
    }
    let end = source.find('\n').unwrap_or(source.len());
    let line = &source[..end];
    let mut parts = line.split_ascii_whitespace();
    let mut valid = parts.next() == Some("#!lua");
    let mut flags = Vec::new();
    for p in parts {
        match p.strip_prefix("flags=") {
            Some("") => {}
            Some(list) => {
                for f in list.split(',') {
                    valid &= SCRIPT_FLAGS.contains(&f);
                    if !f.is_empty() {
                        flags.push(f.to_string());
                    }
                }
            }
            None => valid = false,
        }
    }
    Some(Shebang {
        span: 0..line.trim_end_matches('\r').len(),
        flags,
        valid,
    })
}

/// True when the tree calls `redis.register_function`: the file is a function library.
fn registers_functions(root: Node<'_>, src: &[u8]) -> bool {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == K::FunctionCall {
            if let Some(name) = n.field(F::Name) {
                let text = src[name.byte_range()]
                    .iter()
                    .copied()
                    .filter(|b| !b.is_ascii_whitespace());
                if text.eq(b"redis.register_function".iter().copied()) {
                    return true;
                }
            }
        }
        stack.extend(n.named_children());
    }
    false
}

fn policy(flags: &[String], mode: ScriptMode) -> CrossSlotPolicy {
    // Without a shebang the server runs in compatibility mode, which tolerates keys of
    // other slots on the same node; so does `allow-cross-slot-keys`.
    if mode == ScriptMode::Eval || flags.iter().any(|f| f == "allow-cross-slot-keys") {
        CrossSlotPolicy::SameNode
    } else {
        CrossSlotPolicy::Refused
    }
}

/// Adds the units of a script or helper (its commands, then one unit per set of keys
/// one run can touch together); returns the indices of the latter.
fn push_units(
    model: &mut FileModel,
    c: Collector,
    name: &str,
    span: Span,
    anchor: Span,
    policy: CrossSlotPolicy,
    mode: ScriptMode,
) -> Vec<usize> {
    model.sort_patterns.extend(c.sort_patterns.iter().cloned());
    for (command, at) in &c.listings {
        model.listings.push(KeyListing {
            command: command.clone(),
            span: at.clone(),
            mode,
            unit: span.clone(),
        });
    }
    let base = model.units.len();
    for (unit, key, varying) in c.families {
        model.families.push(KeyFamily {
            unit: base + unit,
            key,
            varying,
            source: "the values a loop collects in a table".to_string(),
        });
    }
    model.units.extend(c.commands);
    let mut out = Vec::new();
    for keys in paths::units(&c.occurrences) {
        model.units.push(Unit {
            kind: UnitKind::Script,
            name: name.to_string(),
            span: span.clone(),
            anchor: anchor.clone(),
            keys,
            policy,
        });
        out.push(model.units.len() - 1);
    }
    out
}

/// Adds a script and its units to the model.
fn push_script(model: &mut FileModel, mut script: Script, collector: Option<Collector>) {
    if let Some(c) = collector {
        if script.anchor.is_empty() {
            if let Some(first) = c.first_call.clone() {
                script.anchor = first;
            }
        }
        script.keys = c.keys.clone();
        script.required_keys = c.required;
        let policy = policy(&script.flags, script.mode);
        script.units = push_units(
            model,
            c,
            &script.name,
            script.span.clone(),
            script.anchor.clone(),
            policy,
            script.mode,
        );
    }
    model.scripts.push(script);
}

thread_local! {
    /// One parser per thread, reused from file to file.
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Parses a script and copies its tree into an [`Ast`].
fn parse(source: &str) -> Option<Ast> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_lua::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let Some(tree) = parser.parse(source, None) else {
            // Leave no half-done parse behind for the next file.
            parser.reset();
            return None;
        };
        Some(Ast::new(tree.root_node()))
    })
}

/// Lowers a Lua script or function library to the neutral model.
pub fn lower(source: &str) -> FileModel {
    lower_with(source, None)
}

/// Lowers a script that may pull in other files with `--- @include "name"` lines,
/// read through `loader` (see [`IncludeLoader`]). The included files' functions are
/// available to the script; a key touched inside an included file is reported at the
/// call in the script that reached it, or at the `@include` line, since findings point
/// into the file being linted. Functions of an included file that the script never
/// calls are left to the lint of that file.
pub fn lower_with(source: &str, loader: Option<&dyn IncludeLoader>) -> FileModel {
    let Some(a) = loader.and_then(|l| include::assemble(source, l)) else {
        return lower_text(source, source, 0, Vec::new(), loader);
    };
    let mut model = lower_text(&a.text, source, a.script_start, a.regions, None);
    remap(&mut model, a.script_start);
    model
}

/// Lowers a script into which the host program pasted code from elsewhere (`pasted`,
/// ranges of `source`: a prelude of helper functions that several scripts share). A
/// key touched inside a pasted function is shown at the call in the script's own text
/// that reached it, as for an included file: each script that calls the helper has
/// the finding in its own text.
pub fn lower_pasted(source: &str, pasted: Vec<std::ops::Range<usize>>) -> FileModel {
    lower_text_in(source, source, 0, Vec::new(), pasted, None)
}

/// Moves every span of a model lowered from an assembled text back into the script:
/// what is left inside included files (literal bytes of a key written there) loses
/// its place.
fn remap(model: &mut FileModel, shift: usize) {
    use keylint_core::template::{Part, SourceMap};
    let span = |s: &mut Span| {
        *s = s.start.saturating_sub(shift)..s.end.saturating_sub(shift);
    };
    for k in &mut model.keys {
        span(&mut k.span);
        for p in &mut k.template.parts {
            match p {
                Part::Lit(l) => {
                    l.map = match std::mem::replace(&mut l.map, SourceMap::None) {
                        SourceMap::Contiguous(s) if s >= shift => SourceMap::Contiguous(s - shift),
                        SourceMap::PerByte(v) if v.iter().all(|&o| o >= shift) => {
                            SourceMap::PerByte(v.into_iter().map(|o| o - shift).collect())
                        }
                        _ => SourceMap::None,
                    }
                }
                Part::Hole(h) => {
                    h.span = h
                        .span
                        .take()
                        .filter(|s| s.start >= shift)
                        .map(|s| s.start - shift..s.end - shift);
                }
            }
        }
    }
    for u in &mut model.units {
        span(&mut u.span);
        span(&mut u.anchor);
    }
    for s in &mut model.scripts {
        span(&mut s.span);
        span(&mut s.anchor);
        if let Some(f) = s.flags_span.as_mut() {
            span(f);
        }
    }
    for l in &mut model.listings {
        span(&mut l.span);
        span(&mut l.unit);
    }
}

/// Lowers `text`, whose script part starts at `shift` (included files before it);
/// `source` is the script itself. With `project`, a file with no script of its own
/// is judged with the scripts of its directory that use it (see `project`).
fn lower_text(
    text: &str,
    source: &str,
    shift: usize,
    regions: Vec<(Span, Span)>,
    project: Option<&dyn IncludeLoader>,
) -> FileModel {
    lower_text_in(text, source, shift, regions, Vec::new(), project)
}

fn lower_text_in(
    text: &str,
    source: &str,
    shift: usize,
    regions: Vec<(Span, Span)>,
    pasted: Vec<Span>,
    project: Option<&dyn IncludeLoader>,
) -> FileModel {
    let mut model = FileModel::new(LANG);
    // Every key of a Lua file is in a script body (merged into another file's model,
    // only the keys of its scripts are).
    model.facts.script_file = true;
    let Some(ast) = parse(text) else {
        return model;
    };
    let root = ast.root();
    let src = text.as_bytes();
    let scopes = scope::resolve(root, ast.identifiers(), src);
    let mut ev = Eval::new(src, &scopes);
    ev.script_start = shift;
    ev.regions = regions;
    ev.pasted = pasted;

    if registers_functions(root, src) {
        lower_functions(&mut ev, root, src, &mut model);
        return model;
    }

    let (script, reach, bang) = script_of(root, src, &scopes, source, shift, text.len(), project);
    if script.has_flag("no-cluster") || bang.as_ref().is_some_and(|b| !b.valid) {
        // A `no-cluster` script never runs on a cluster, and the server refuses to
        // load a script with a bad shebang: neither has keys worth checking.
        model.scripts.push(script);
        return model;
    }
    ev.no_keys = reach.as_ref().is_some_and(|r| r.no_keys);
    ev.collector = Some(Collector::default());
    ev.block(root);
    let collected = ev.collector.take();
    // Functions the script never calls (a file of helpers meant to be included in
    // other scripts, say): whatever script calls one touches all of its keys.
    let helpers = ev.walk_uncalled(root, true);
    model.keys = std::mem::take(&mut ev.keys);
    let policy = policy(&script.flags, script.mode);
    // A library file's functions are part of the scripts that use it: their keys are
    // those scripts' keys (each function stays a unit of its own: one run calls some).
    // So are the functions of a script file whose main chunk touches no key itself:
    // a file of functions that a loader runs one by one (a caller that splits the file
    // at each `function` and registers each body as a script) or puts in front of
    // another script. Their `KEYS` are the `KEYS` of whatever script runs them.
    // (A file that reads neither `KEYS` nor `ARGV` is a library file: judged above with
    // the scripts that use it, or not at all.)
    // A helper file (no `KEYS`, no `ARGV`) in a directory of helper files only, which
    // loaders pull into scripts kept elsewhere, is such a file too: whichever script
    // runs its functions touches their keys, a literal one never being a declared key.
    let functions_only = collected.as_ref().is_some_and(|c| c.keys.is_empty())
        && reach.is_none()
        && (project::facts(root, src, &scopes).reads_keys
            || (!project::facts(root, src, &scopes).entry
                && shift == 0
                && project.is_some_and(|l| project::helpers_only(source, l))));
    let library_keys: Vec<usize> = if reach.is_some() || functions_only {
        helpers
            .iter()
            .flat_map(|h| h.collector.keys.iter().copied())
            .collect()
    } else {
        Vec::new()
    };
    for h in helpers {
        push_units(
            &mut model,
            h.collector,
            &h.name,
            h.span,
            h.anchor,
            policy,
            script.mode,
        );
    }
    push_script(&mut model, script, collected);
    if let Some(s) = model.scripts.last_mut() {
        let mut seen: std::collections::HashSet<usize> = s.keys.iter().copied().collect();
        for k in library_keys {
            if seen.insert(k) {
                s.keys.push(k);
            }
        }
    }
    model
}

/// Lowers a Redis Functions library: each registered function is a script of its own,
/// with the names its callback gives `KEYS` and `ARGV`.
fn lower_functions<'t>(ev: &mut Eval<'t, '_>, root: Node<'t>, src: &[u8], model: &mut FileModel) {
    ev.library = true;
    ev.block(root);
    ev.library = false;
    let registrations = std::mem::take(&mut ev.registrations);
    let mut scripts = Vec::new();
    for reg in registrations {
        let Some(callback) = reg.callback else {
            continue;
        };
        let mut script = Script {
            name: reg.name.clone().unwrap_or_else(|| "function".into()),
            mode: ScriptMode::Function,
            flags: reg.flags.clone().unwrap_or_default(),
            flags_span: reg.flags_span.clone(),
            span: reg.span.clone(),
            anchor: reg.name_span.clone(),
            keys: Vec::new(),
            units: Vec::new(),
            required_keys: 0,
            notes: Vec::new(),
        };
        let no_cluster = script.has_flag("no-cluster");
        if no_cluster || reg.flags.is_none() {
            // Cannot run on a cluster, or flags that cannot be read: not modelled.
            ev.skip_function(callback);
            script.flags = reg.flags.unwrap_or_default();
            scripts.push((script, None));
            continue;
        }
        let params: Vec<String> = callback
            .field(F::Parameters)
            .map(|p| {
                p.named_children()
                    .filter(|n| n.kind() == K::Identifier)
                    .map(|n| String::from_utf8_lossy(&src[n.byte_range()]).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        ev.set_names(
            params.first().map(String::as_str).unwrap_or("KEYS"),
            params.get(1).map(String::as_str).unwrap_or("ARGV"),
        );
        ev.collector = Some(Collector::default());
        ev.walk_registered(callback);
        let collected = ev.collector.take();
        scripts.push((script, collected));
    }
    ev.set_names("KEYS", "ARGV");
    // A library's helpers that no registered function calls never run.
    ev.walk_uncalled(root, false);
    model.keys = std::mem::take(&mut ev.keys);
    for (script, collected) in scripts {
        push_script(model, script, collected);
    }
}

/// The script a file is (its name, mode, flags and where its shebang is), what the
/// scripts of its directory that use it say of it when it is a library file, and its
/// shebang.
fn script_of(
    root: Node<'_>,
    src: &[u8],
    scopes: &scope::Scopes,
    source: &str,
    shift: usize,
    len: usize,
    project: Option<&dyn IncludeLoader>,
) -> (Script, Option<project::Reach>, Option<Shebang>) {
    // A library file: the scripts that use it say how it runs.
    let reach = project
        .filter(|_| shift == 0 && !source.starts_with("#!"))
        .and_then(|loader| {
            let own = project::facts(root, src, scopes);
            if own.entry {
                return None;
            }
            project::reach(source, own, loader)
        })
        .filter(|r| {
            // Scripts that never run on a cluster say nothing about its keys.
            r.shebang
                .as_deref()
                .and_then(shebang)
                .is_none_or(|b| b.valid && !b.flags.iter().any(|f| f == "no-cluster"))
        });
    let bang = match &reach {
        Some(r) => r.shebang.as_deref().and_then(shebang).map(|mut b| {
            // The line is in the scripts, not in this file.
            b.span = 0..0;
            b
        }),
        None => shebang(source).map(|mut b| {
            b.span = b.span.start + shift..b.span.end + shift;
            b
        }),
    };
    let mode = if bang.is_some() {
        ScriptMode::EvalShebang
    } else {
        ScriptMode::Eval
    };
    let script = Script {
        name: "script".into(),
        mode,
        flags: bang.as_ref().map(|b| b.flags.clone()).unwrap_or_default(),
        flags_span: bang
            .as_ref()
            .filter(|_| reach.is_none())
            .map(|b| b.span.clone()),
        span: shift..len,
        anchor: bang
            .as_ref()
            .filter(|_| reach.is_none())
            .map(|b| b.span.clone())
            .unwrap_or(shift..shift),
        keys: Vec::new(),
        units: Vec::new(),
        required_keys: 0,
        notes: reach.as_ref().map(library_notes).unwrap_or_default(),
    };
    (script, reach, bang)
}

/// What a library file's findings say about the scripts that use it.
fn library_notes(r: &project::Reach) -> Vec<String> {
    let names: Vec<String> = r.entries.iter().take(4).map(|e| format!("`{e}`")).collect();
    let more = r.entries.len().saturating_sub(names.len());
    let mut who = names.join(", ");
    if more > 0 {
        who.push_str(&format!(" and {more} more"));
    }
    let mut notes = vec![format!(
        "this file has no script of its own: its functions run inside the script{} that \
         use{} them ({who}), assembled with it by a build step or a loader",
        if r.entries.len() == 1 { "" } else { "s" },
        if r.entries.len() == 1 { "s" } else { "" },
    )];
    if r.no_keys {
        notes.push(
            "no file of that script reads `KEYS`: it is run with no declared key, so every \
             key it touches is undeclared"
                .to_string(),
        );
    }
    notes
}

#[cfg(test)]
mod tests;
