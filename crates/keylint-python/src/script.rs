//! Scripts: `eval` / `evalsha` / `fcall` calls and `register_script` objects, linked
//! to their Lua bodies.
//!
//! A body is found when it is a string known at lint time: an inline literal, a
//! module or class constant, or a `.lua` file read through a literal path
//! (`open(…).read()`, `Path(__file__).parent / "x.lua"`, `.read_text()`). The Lua
//! frontend lowers it; a body written in this file is merged into the Python model
//! with every span moved to where its bytes are in the Python source, so the script's
//! own findings point into the string literal. A body read from a file is not merged
//! (that file is linted on its own); it is still linked to its callers.
//!
//! Linking is core's ([`keylint_core::script_link`]), shared with the redis-cli
//! frontend: a key the script derives from `KEYS[i]` (`KEYS[1] .. ':meta'`) is judged
//! with the key the caller passes as `KEYS[i]`, in a unit of its own with the
//! script's cross-slot policy (the server refuses such a key in another slot with a
//! shebang, and tolerates it on the same node without one). Each call's numkeys and
//! the keys it passes are reported as facts, and `script-keys-mismatch` reports a call
//! that passes fewer keys than the script reads, or a numkeys larger than the
//! arguments after it, at the call. A literal integer numkeys with only positional
//! arguments after it is reported for every call, body known or not: redis-py sends
//! it unchecked and the server refuses it when it is negative or larger than the
//! arguments.

use crate::eval::{Ctx, Value};
use crate::index::FuncId;
use crate::lower::Analyzer;
use crate::syntax::{Field, NodeExt};
use keylint_core::model::Numkeys;
use keylint_core::script_link::{self, merge, LinkedBody, Mapper, ScriptCall};
use keylint_core::template_builder::Tpl;
use keylint_core::Span;
use std::collections::HashMap;
use std::sync::Arc;
use tree_sitter::Node;

/// A script call site to link with its body.
#[derive(Debug, Clone)]
pub(crate) struct Link<'t> {
    /// The call's script unit.
    pub unit: usize,
    /// The expression that gives the body, if any.
    pub body: Option<Node<'t>>,
    /// The function to evaluate it in.
    pub func: Option<FuncId>,
    /// The key use of each key passed (`KEYS[1]` first), when its template is known.
    pub keys: Vec<Option<usize>>,
    /// The argument of each key passed.
    pub key_nodes: Vec<Node<'t>>,
    /// Exactly this many keys are passed; where to point at the count.
    pub passed: Option<(usize, Span)>,
    /// A literal numkeys as the server reads it (with the arguments after it, all
    /// positional), and where it is.
    pub numkeys: Option<(Numkeys, Span)>,
    /// The call.
    pub call: Node<'t>,
    /// The body's text, when the script was registered in another module.
    pub ext: Option<std::sync::Arc<str>>,
    /// For each `ARGV[i]`, the `KEYS[j]` the call passes the very same value as.
    pub argv_keys: Vec<Option<usize>>,
}

/// A script body known at lint time.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub text: String,
    /// Source offset of every byte of the text, when the body is written in this file.
    offs: Option<Vec<usize>>,
    /// Values of the Python code pasted into its strings ([`with_string_holes`]).
    hosts: Hosts,
}

/// A lowered body, and where its keys went in the Python model.
type Lowered = LinkedBody;

pub(crate) fn body_of<'t>(
    a: &mut Analyzer<'t>,
    node: Node<'t>,
    func: Option<FuncId>,
) -> Option<Body> {
    let v = a.eval(node, &Ctx::at(func));
    let (tpl, inline) = match v {
        Value::Str(t) => (t, true),
        Value::FileText(t) => (t, false),
        _ => return None,
    };
    let (text, offs, hosts) = match tpl.text_with_offsets() {
        Some((text, offs)) if a.dollar_bodies.contains(&node.id()) => {
            let offs = offs.or_else(|| fill_offsets(&tpl, a.src().as_bytes()));
            let (text, offs) = dollar_holes(&text, offs.as_deref())?;
            (text, offs, Vec::new())
        }
        Some((text, Some(offs))) => (text, Some(offs), Vec::new()),
        Some((text, None)) => (text, fill_offsets(&tpl, a.src().as_bytes()), Vec::new()),
        None => with_string_holes(&tpl, a.src().as_bytes())?,
    };
    Some(Body {
        text,
        offs: offs.filter(|_| inline),
        hosts,
    })
}

/// A body built with values the analysis does not know (`f"… redis.call('KEYS',
/// '{namespace}:*') …"`), when every such value lands inside a Lua string literal:
/// each is read as a value the host code pastes into that string (`'' ..
/// {namespace} .. ':*'`): text that never comes from `KEYS`, one value wherever the
/// same expression is pasted, so a key the script builds from it is a key its caller
/// does not declare. A value outside a string (it could be any Lua code), or a long
/// bracket string or comment anywhere, leaves the body unknown. Also gives the name
/// each pasted value has in the Lua text, with the Python expression it stands for.
fn with_string_holes(tpl: &Tpl, src: &[u8]) -> Option<(String, Option<Vec<usize>>, Hosts)> {
    use keylint_core::template_builder::TPart;
    if tpl.parts.iter().any(|p| match p {
        TPart::Lit { bytes, .. } => bytes.windows(2).any(|w| w == b"[[" || w == b"[="),
        TPart::Hole(_) => false,
    }) {
        return None;
    }
    let mut text: Vec<u8> = Vec::new();
    let mut offs: Vec<Option<usize>> = Vec::new();
    let mut hosts: Hosts = Vec::new();
    // Lexer state at the end of the text so far.
    let mut lex = LuaLex::default();
    // Where the text stood just after the quote that opened the current string.
    let mut opened: Option<usize> = None;
    // The next byte is the quote that ends a string a value ended: it is left out.
    let mut closes = false;
    // Values pasted where an expression goes.
    let mut values = 0;
    for (pi, p) in tpl.parts.iter().enumerate() {
        match p {
            TPart::Lit { bytes, offs: o } => {
                for (i, &b) in bytes.iter().enumerate() {
                    if lex.step(b, text.last().copied()) {
                        opened = Some(text.len() + 1);
                    }
                    if std::mem::take(&mut closes) {
                        // The value's last byte stands where the quote was.
                        if let Some(last) = offs.last_mut() {
                            if o[i].is_some() {
                                *last = o[i];
                            }
                        }
                        continue;
                    }
                    text.push(b);
                    offs.push(o[i]);
                }
            }
            TPart::Hole(_) if lex.quote.is_none() && !lex.comment => {
                // Where an expression goes (`local shared = {1 if self.shared else
                // 0}`): an unknown value. Anywhere else it could be any code.
                let before = text.iter().rev().find(|c| !c.is_ascii_whitespace());
                if !before.is_some_and(|p| b"=+-*/,(<>".contains(p)) {
                    return None;
                }
                let at = offs.last().copied().flatten();
                let name = format!("_python_value_{}", values);
                values += 1;
                for b in name.bytes() {
                    text.push(b);
                    offs.push(at);
                }
            }
            TPart::Hole(h) => {
                let q = lex.quote.filter(|_| !lex.escaped)?;
                // At either end of the literal no empty string is left on that side
                // (`'{prefix}:x'` is the value, then `':x'`).
                let at_start = opened == Some(text.len());
                let at_end = matches!(
                    tpl.parts.get(pi + 1),
                    Some(TPart::Lit { bytes, .. }) if bytes.first() == Some(&q)
                );
                let label = h.label.split_whitespace().collect::<Vec<_>>().join(" ");
                // One name per pasted expression: `{prefix}` twice is one value.
                let n = match hosts.iter().position(|(_, l)| *l == label) {
                    Some(n) => n,
                    None => {
                        hosts.push((format!("py{}_", hosts.len()), label));
                        hosts.len() - 1
                    }
                };
                let name = format!("{}{}", keylint_lua::HOST_VALUE, hosts[n].0);
                // Where the field is written, when the text before it is of this file
                // (a value from another module's text carries that module's places).
                let at = offs.last().copied().flatten().map(|p| match &h.span {
                    Some(s) if s.start > p && s.start <= p + 3 => s.start,
                    _ if src.get(p + 1) == Some(&b'{') => p + 1,
                    _ => p,
                });
                let q = q as char;
                if at_start {
                    text.pop();
                    offs.pop();
                }
                let ins = match (at_start, at_end) {
                    (true, true) => name,
                    (true, false) => format!("{name} .. {q}"),
                    (false, true) => format!("{q} .. {name}"),
                    (false, false) => format!("{q} .. {name} .. {q}"),
                };
                closes = at_end;
                for b in ins.bytes() {
                    text.push(b);
                    offs.push(at);
                }
                if !at_end {
                    opened = Some(text.len());
                }
            }
        }
    }
    let text = String::from_utf8(text).ok()?;
    Some((text, fill(&offs, src), hosts))
}

/// The values host code pastes into a script's text: each one's name in the Lua text
/// (after [`keylint_lua::HOST_VALUE`]) and the expression shown for it.
type Hosts = Vec<(String, String)>;

/// Where the Lua text read so far ends: inside a short string (its quote, and whether
/// the last byte escapes the next), inside a line comment, or in code. Long brackets
/// are left to the callers.
#[derive(Default)]
struct LuaLex {
    quote: Option<u8>,
    escaped: bool,
    comment: bool,
}

impl LuaLex {
    /// Moves past `c`, `prev` being the byte before it; true when `c` opens a string.
    fn step(&mut self, c: u8, prev: Option<u8>) -> bool {
        match self.quote {
            Some(q) => {
                if self.escaped {
                    self.escaped = false;
                } else if c == b'\\' {
                    self.escaped = true;
                } else if c == q || c == b'\n' {
                    self.quote = None;
                }
                false
            }
            None if self.comment => {
                self.comment = c != b'\n';
                false
            }
            None if c == b'\'' || c == b'"' => {
                self.quote = Some(c);
                true
            }
            None => {
                if c == b'-' && prev == Some(b'-') {
                    self.comment = true;
                }
                false
            }
        }
    }
}

/// A script written as `string.Template` text, its `$name` (or `${name}`)
/// placeholders filled in later by the code that runs it: a placeholder inside a Lua
/// string literal (`local pending = "$pending_key"`, `string.format("$prefix:%s",
/// id)`) is an unknown value concatenated into that string, as
/// [`with_string_holes`] reads one; a placeholder where an expression goes (`local ttl
/// = $default_ttl`, `now + $timeout`: after `=`, an operator, `,` or `(`) is an unknown
/// global. Anywhere else (a statement, a name, a long bracket string) it could be any
/// code, and the body is unknown. `$$` is a literal `$`.
fn dollar_holes(text: &str, offs: Option<&[usize]>) -> Option<(String, Option<Vec<usize>>)> {
    let b = text.as_bytes();
    // `[[`, `[=[`, …: the level of a long bracket opening at `i`, and its length.
    let long_open = |i: usize| -> Option<(usize, usize)> {
        if b.get(i) != Some(&b'[') {
            return None;
        }
        let eq = b[i + 1..].iter().take_while(|&&c| c == b'=').count();
        (b.get(i + 1 + eq) == Some(&b'[')).then_some((eq, eq + 2))
    };
    let ident = |i: usize| -> Option<(usize, &str)> {
        // `$name` or `${name}`: the placeholder's length and its name.
        let (start, braced) = match b.get(i + 1)? {
            b'{' => (i + 2, true),
            _ => (i + 1, false),
        };
        let first = *b.get(start)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let end = start
            + b[start..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
        if braced {
            (b.get(end) == Some(&b'}')).then(|| (end + 1 - i, &text[start..end]))
        } else {
            Some((end - i, &text[start..end]))
        }
    };
    let mut out: Vec<u8> = Vec::with_capacity(b.len() + 64);
    let mut out_offs: Vec<Option<usize>> = Vec::with_capacity(b.len() + 64);
    let at = |i: usize| offs.and_then(|o| o.get(i).copied());
    let mut lex = LuaLex::default();
    // Where the text of the string being read begins in `out`.
    let mut opened: Option<usize> = None;
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // A long comment (`--[[ … ]]`) or long string, copied as it is: a placeholder
        // in a comment means nothing, one in a long string is not read.
        if lex.quote.is_none() && (!lex.comment || out.ends_with(b"--")) {
            if let Some((level, len)) = long_open(i) {
                let close = format!("]{}]", "=".repeat(level));
                let end = text[i + len..]
                    .find(&close)
                    .map(|e| i + len + e + close.len())?;
                if !lex.comment && b[i..end].contains(&b'$') {
                    return None;
                }
                for (k, &x) in b.iter().enumerate().take(end).skip(i) {
                    out.push(x);
                    out_offs.push(at(k));
                }
                lex.comment = false;
                i = end;
                continue;
            }
        }
        if c == b'$' && !lex.comment && b.get(i + 1) == Some(&b'$') {
            out.push(b'$');
            out_offs.push(at(i));
            i += 2;
            continue;
        }
        if c == b'$' && !lex.comment && !lex.escaped {
            let (len, name) = ident(i)?;
            // The bytes of the text it replaces: the placeholder, with the quotes of a
            // string it fills alone.
            let (mut from, mut to) = (i, i + len - 1);
            // A name of its own unless the script uses that name itself.
            let plain = !LUA_RESERVED.contains(&name) && !used_as_name(text, name);
            let host = format!("{}{name}", keylint_lua::HOST_VALUE);
            let name = if plain {
                name.to_string()
            } else {
                format!("_python_value_{n}")
            };
            n += 1;
            let ins = match lex.quote {
                // Text pasted into the string: never from `KEYS`. At either end of the
                // literal, no empty string is left on that side (`"$pending_key"` is
                // the value alone).
                Some(q) => {
                    let q = q as char;
                    let at_start = opened == Some(out.len());
                    let at_end = b.get(i + len) == Some(&(q as u8));
                    if at_start {
                        out.pop();
                        out_offs.pop();
                        from = i - 1;
                    }
                    if at_end {
                        to = i + len;
                        lex.quote = None;
                    }
                    match (at_start, at_end) {
                        (true, true) => host,
                        (true, false) => {
                            let s = format!("{host} .. {q}");
                            opened = Some(out.len() + s.len());
                            s
                        }
                        (false, true) => format!("{q} .. {host}"),
                        (false, false) => {
                            let s = format!("{q} .. {host} .. {q}");
                            opened = Some(out.len() + s.len());
                            s
                        }
                    }
                }
                None => {
                    let before = out.iter().rev().find(|c| !c.is_ascii_whitespace());
                    if !before.is_some_and(|p| b"=+-*/,(<>".contains(p)) {
                        return None;
                    }
                    name
                }
            };
            // The inserted text points at what it replaces, byte for byte, its
            // excess at the last one.
            for (k, x) in ins.bytes().enumerate() {
                out.push(x);
                out_offs.push(at(from + k.min(to - from)));
            }
            i = to + 1;
            continue;
        }
        if lex.step(c, out.last().copied()) {
            opened = Some(out.len() + 1);
        }
        out.push(c);
        out_offs.push(at(i));
        i += 1;
    }
    let text = String::from_utf8(out).ok()?;
    let offs = if offs.is_some() {
        fill(&out_offs, b"")
    } else {
        None
    };
    Some((text, offs))
}

/// Whether `name` occurs in `text` as a name of its own, not as a placeholder
/// (`$name`, `${name}`).
fn used_as_name(text: &str, name: &str) -> bool {
    let b = text.as_bytes();
    let word = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
    text.match_indices(name).any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| &b[j]);
        let placeholder =
            before == Some(&b'$') || (before == Some(&b'{') && i >= 2 && b[i - 2] == b'$');
        !placeholder && !word(before) && !word(b.get(i + name.len()))
    })
}

/// The offsets of a body written in this file with a few bytes from elsewhere (a
/// separator constant of another module `%`-formatted into it): those bytes point
/// where the byte before them is written.
fn fill_offsets(tpl: &Tpl, src: &[u8]) -> Option<Vec<usize>> {
    use keylint_core::template_builder::TPart;
    let mut all = Vec::new();
    for p in &tpl.parts {
        match p {
            TPart::Lit { offs, .. } => all.extend(offs.iter().copied()),
            TPart::Hole(_) => return None,
        }
    }
    fill(&all, src)
}

/// Offsets with each run of unknown ones (at most [`MAX_FOREIGN_RUN`] bytes, after a
/// known one) pointing at the known byte before it; `None` when a run is longer, or
/// the text begins with one. A longer run that an f-string field of this file pastes
/// (the byte after the known one in `src` opens the field: `f"""{self._prelude}
/// …"""` where the prelude comes from another module) points at that field's `{`.
fn fill(offs: &[Option<usize>], src: &[u8]) -> Option<Vec<usize>> {
    let mut out = Vec::with_capacity(offs.len());
    let mut i = 0;
    while i < offs.len() {
        if let Some(x) = offs[i] {
            out.push(x);
            i += 1;
            continue;
        }
        let last = *out.last()?;
        let run = offs[i..].iter().take_while(|o| o.is_none()).count();
        // The field's `{`: at the known byte, or just after it (past a quote the
        // value fills from its start).
        let field = (last..last + 3).find(|&b| src.get(b) == Some(&b'{'));
        let to = match field {
            _ if run <= MAX_FOREIGN_RUN => last,
            Some(b) => b,
            None => return None,
        };
        out.extend(std::iter::repeat_n(to, run));
        i += run;
    }
    Some(out)
}

/// Longest run of bytes from elsewhere that a body merged in place may hold: a value
/// formatted in, never a script of its own.
const MAX_FOREIGN_RUN: usize = 16;

/// Lua keywords and the globals a script's analysis gives a meaning: never the name
/// of an unknown value.
const LUA_RESERVED: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", "KEYS",
    "ARGV", "redis", "string", "table", "unpack", "tostring", "tonumber", "pcall", "type", "cjson",
    "cmsgpack", "struct", "bit", "math", "os", "ipairs", "pairs", "next", "select", "error",
    "assert", "_G",
];

/// A body with the lines a decorator puts in front of it; those lines point at the
/// start of the docstring.
fn with_preamble(body: Body, preamble: &str, node: Node<'_>) -> Body {
    let text = format!("{preamble}\n{}", body.text);
    let offs = body.offs.map(|o| {
        let mut v = vec![node.start_byte(); preamble.len() + 1];
        v.extend(o);
        v
    });
    Body {
        text,
        offs,
        hosts: body.hosts,
    }
}

/// What a decorator parameter annotation binds in the generated preamble.
enum Slot {
    /// `Key[...]`: the next `KEYS[i]`.
    Key,
    /// `Arg[T]`: the next `ARGV[j]`, decoded by its type.
    Arg(String),
    /// `Args[...]`: the rest of `ARGV`, from `<name>_start` on.
    Args,
}

fn slot_of(annotation: &str) -> Option<Slot> {
    let t: String = annotation.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = |p: &str| t.strip_prefix(p)?.strip_suffix(']').map(str::to_string);
    if inner("Key[").is_some() {
        Some(Slot::Key)
    } else if let Some(ty) = inner("Arg[") {
        Some(Slot::Arg(ty))
    } else if inner("Args[").is_some() {
        Some(Slot::Args)
    } else {
        None
    }
}

/// Scripts written as the docstring of a decorated function whose parameters say
/// what the script receives (docket's `@redis_script`): the first parameter is the
/// client, each other one is annotated `Key[...]` (the next `KEYS[i]`), `Arg[T]` (the
/// next `ARGV[j]`, through `tonumber` for `int`/`float`, compared with `'1'` for
/// `bool`) or `Args[...]` (the rest of `ARGV`: `<name>_start` is where it begins), and
/// the decorator puts `local <name> = KEYS[i]` … in front of the docstring before it
/// registers it. The body must be the docstring alone (and `...` or `pass`), the
/// docstring must call `redis.call` or `redis.pcall`, and every parameter but the
/// first must be annotated so: anything else is not taken for such a script.
pub(crate) fn docstring_scripts(a: &mut Analyzer<'_>) {
    let src = a.src();
    let mut found = Vec::new();
    for f in &a.ix.funcs {
        if f.decorators.is_empty() || f.is_lambda || f.params.len() < 2 {
            continue;
        }
        let Some(doc) = docstring(a.ix.nav, f.body) else {
            continue;
        };
        let text = crate::index::text(doc, src);
        if !text.contains("redis.call") && !text.contains("redis.pcall") {
            continue;
        }
        let mut lines = Vec::new();
        let (mut keys, mut argv, mut ok) = (0, 1, true);
        for p in &f.params[1..] {
            let slot = p
                .annotation
                .filter(|_| !p.star)
                .and_then(|n| slot_of(crate::index::text(n, src)));
            match slot {
                Some(Slot::Key) => {
                    keys += 1;
                    lines.push(format!("local {} = KEYS[{keys}]", p.name));
                }
                Some(Slot::Arg(ty)) => {
                    let v = match ty.as_str() {
                        "int" | "float" => format!("tonumber(ARGV[{argv}])"),
                        "bool" => format!("ARGV[{argv}] == '1'"),
                        _ => format!("ARGV[{argv}]"),
                    };
                    lines.push(format!("local {} = {v}", p.name));
                    argv += 1;
                }
                Some(Slot::Args) => lines.push(format!("local {}_start = {argv}", p.name)),
                None => ok = false,
            }
        }
        if ok && keys > 0 && slot_of_first_is_client(f, src) {
            found.push((doc, lines.join("\n")));
        }
    }
    for (doc, preamble) in found {
        a.scripts.push(crate::eval::ScriptInfo {
            body: Some(doc),
            func: None,
            client: crate::eval::ClientKind::Unknown,
            ext: None,
            preamble: Some(preamble),
            wrapper: None,
        });
    }
}

/// Constants that hold a Lua script (pyrsmq's `SCRIPT_POPMESSAGE = 'local msg =
/// redis.call(…) …'`, loaded with `script_load` in another module; gnocchi's class
/// attribute `_SCRIPTS = {"name": """…""" % (SEP, …)}`, registered by a function of
/// another module): linted in place, like a `.lua` file, whoever runs them.
///
/// A module or class constant is taken for a script, or for a dict of scripts (its
/// values), only when its name says so (it contains `SCRIPT` or `LUA`), or it is a
/// module constant written in capitals (bisheng's `ENQUEUE_FILE` in a module of
/// scripts that another module registers), or every name of the module is bound once
/// to such a script (bluelinks' `lua_redis.py`, whose one binding is `vote = """…"""`),
/// and it is bound once. A value is a plain string literal (no f-string), one
/// `%`-formatted with a tuple, or a concatenation of plain literals and module names
/// bound to them (`_LIB + """…"""`, a prelude of helpers pasted before the script); its text calls `redis.call` or `redis.pcall` (or names
/// it in an assignment: `local redis_call = redis.call`) and reads `KEYS` or `ARGV`
/// (`KEYS[1]`, `ipairs(KEYS)`); nothing says it is a template filled in later (no `{{`/`$name`,
/// nor `%s`/`%(` in a literal that is not formatted where it is written, and no `%`,
/// `.format(` or `Template(` applied to the name in this file).
pub(crate) fn script_constants(a: &mut Analyzer<'_>) {
    let src = a.src();
    // (name, bound at module level)
    let mut defs: Vec<(&str, &[crate::index::Def<'_>], bool)> =
        a.ix.module_defs
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_slice(), true))
            .collect();
    for c in &a.ix.classes {
        defs.extend(
            c.defs
                .iter()
                .map(|(n, d)| (n.as_str(), d.as_slice(), false)),
        );
    }
    // A module of scripts (bluelinks' `lua_redis.py`, whose one binding is `vote =
    // """…"""`): when every name the module binds is bound once, to a Lua literal,
    // its names need not be written in capitals.
    let script_module = !a.ix.module_defs.is_empty()
        && a.ix.module_defs.values().all(|d| match d.as_slice() {
            [d] => match d.kind {
                crate::index::DefKind::Expr(e) => {
                    lua_literal(a, e).is_some() || lua_concatenation(a, e)
                }
                _ => false,
            },
            _ => false,
        });
    let mut found: Vec<Node<'_>> = Vec::new();
    for (name, defs, module) in defs {
        let upper = name.to_ascii_uppercase();
        // A module constant written in capitals (`ENQUEUE_FILE = r"""…"""` in a
        // module of scripts) is read by its text alone.
        let constant = module
            && (script_module
                || name.bytes().any(|b| b.is_ascii_uppercase())
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'));
        if !constant
            && !["SCRIPT", "LUA", "TEMPLATE"]
                .iter()
                .any(|w| upper.contains(w))
        {
            continue;
        }
        let [def] = defs else {
            continue;
        };
        let crate::index::DefKind::Expr(e) = def.kind else {
            continue;
        };
        let filled = |also_template: bool| {
            let mut ways = vec![
                format!("{name} %"),
                format!("{name}.format("),
                format!("{name}.replace("),
            ];
            if also_template {
                ways.push(format!("Template({name}"));
            }
            ways.iter().any(|p| src.contains(p.as_str()))
        };
        let values: Vec<Node<'_>> = if e.kind_name() == "dictionary" {
            a.ix.nav
                .named_children(e)
                .filter(|p| p.kind_name() == "pair")
                .filter_map(|p| p.field(Field::Value))
                .collect()
        } else {
            vec![e]
        };
        for v in values {
            // `_LIB + """…"""`: a prelude of helpers pasted before the script.
            if lua_concatenation(a, v) && !filled(true) {
                found.push(v);
                continue;
            }
            // `string.Template` text is filled by `Template(…)`; other text filled
            // in this file is not the script that runs.
            match lua_literal(a, v) {
                Some(true) if !filled(false) => {
                    a.dollar_bodies.insert(v.id());
                    found.push(v);
                }
                Some(false) if !filled(true) => found.push(v),
                _ => {}
            }
        }
    }
    found.sort_by_key(|n| n.start_byte());
    found.dedup_by_key(|n| n.start_byte());
    for e in found {
        a.scripts.push(crate::eval::ScriptInfo {
            body: Some(e),
            func: None,
            client: crate::eval::ClientKind::Unknown,
            ext: None,
            preamble: None,
            wrapper: None,
        });
    }
}

/// Script objects bound to module globals that this file never calls (rom's
/// `_scan_fetch_index_hash = _script_load("""…""")`, a helper kept for other code):
/// a module name bound once to a call whose first argument is a Lua literal (as
/// [`script_constants`] reads one) is evaluated, and when the call makes a script (a
/// factory of this file or of another module, an `EVAL` wrapper), that script is
/// registered, so its body is merged like any registered script's. A call that makes
/// anything else leaves nothing.
pub(crate) fn unrun_script_globals(a: &mut Analyzer<'_>) {
    let mut calls: Vec<Node<'_>> = Vec::new();
    for defs in a.ix.module_defs.values() {
        let [def] = defs.as_slice() else {
            continue;
        };
        let crate::index::DefKind::Expr(e) = def.kind else {
            continue;
        };
        if e.kind_name() != "call" {
            continue;
        }
        let first = e.field(Field::Arguments).and_then(|args| {
            a.ix.nav
                .named_children(args)
                .find(|k| k.kind_name() != "comment")
        });
        if first.is_some_and(|f| lua_literal(a, f) == Some(false)) {
            calls.push(e);
        }
    }
    calls.sort_by_key(|n| n.start_byte());
    for e in calls {
        let _ = a.eval(e, &crate::eval::Ctx::at(None));
    }
}

/// Whether `v` is a concatenation (`_LIB + """…"""`, parenthesized or not) of plain
/// string literals and of module names each bound once to one, whose joined text
/// reads as a Lua script as [`lua_literal`] reads one (and holds no template marks
/// nor `$name` placeholders).
fn lua_concatenation(a: &Analyzer<'_>, v: Node<'_>) -> bool {
    let src = a.src();
    let nav = a.ix.nav;
    let mut v = v;
    while v.kind_name() == "parenthesized_expression" {
        match nav.named_children(v).find(|c| c.kind_name() != "comment") {
            Some(inner) => v = inner,
            None => return false,
        }
    }
    if v.kind_name() != "binary_operator" {
        return false;
    }
    let mut stack = vec![v];
    let mut texts: Vec<&str> = Vec::new();
    while let Some(x) = stack.pop() {
        if texts.len() > 16 {
            return false;
        }
        match x.kind_name() {
            "binary_operator" => {
                let op = x.field(Field::Operator).map(|o| crate::index::text(o, src));
                match (x.field(Field::Left), x.field(Field::Right), op) {
                    (Some(l), Some(r), Some("+")) => {
                        stack.push(r);
                        stack.push(l);
                    }
                    _ => return false,
                }
            }
            "parenthesized_expression" => {
                match nav.named_children(x).find(|c| c.kind_name() != "comment") {
                    Some(inner) => stack.push(inner),
                    None => return false,
                }
            }
            "string" => texts.push(crate::index::text(x, src)),
            "identifier" => {
                let name = crate::index::text(x, src);
                let Some([def]) = a.ix.module_defs.get(name).map(Vec::as_slice) else {
                    return false;
                };
                match def.kind {
                    crate::index::DefKind::Expr(e) if e.kind_name() == "string" => {
                        texts.push(crate::index::text(e, src));
                    }
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    let plain = texts.iter().all(|t| !formatted_prefix(t));
    let joined = texts.concat();
    let lua = calls_redis(&joined) && (has_word(&joined, "KEYS") || has_word(&joined, "ARGV"));
    let marks = ["{{", "}}", "%s", "%d", "%("]
        .iter()
        .any(|m| joined.contains(m));
    plain && lua && !marks && !has_dollar_name(&joined)
}

/// A string literal that reads as a Lua script, plain or `%`-formatted with a tuple.
/// Whether `v` is a Lua script literal, and if so whether it is `string.Template` text
/// with `$name` placeholders.
fn lua_literal(a: &Analyzer<'_>, v: Node<'_>) -> Option<bool> {
    let src = a.src();
    let (lit, formatted) = match v.kind_name() {
        "string" => (v, false),
        "binary_operator" => {
            let op = v.field(Field::Operator).map(|o| crate::index::text(o, src));
            match (v.field(Field::Left), v.field(Field::Right), op) {
                (Some(l), Some(r), Some("%"))
                    if l.kind_name() == "string" && r.kind_name() == "tuple" =>
                {
                    (l, true)
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    let t = crate::index::text(lit, src);
    if formatted_prefix(t) {
        return None;
    }
    let lua = calls_redis(t) && (has_word(t, "KEYS") || has_word(t, "ARGV"));
    let dollar = has_dollar_name(t);
    // In `string.Template` text, `%s` is Lua's own `string.format`.
    let percent: &[&str] = if dollar { &["%("] } else { &["%s", "%d", "%("] };
    let template = ["{{", "}}"].iter().any(|m| t.contains(m))
        || (!formatted && percent.iter().any(|m| t.contains(m)));
    (lua && !template).then_some(dollar && !formatted)
}

/// Whether a Python string literal's text (`t`, quotes and prefix included) is an
/// f-string or a t-string: filled where it is written.
fn formatted_prefix(t: &str) -> bool {
    t.chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .any(|c| matches!(c.to_ascii_lowercase(), 'f' | 't'))
}

/// Whether text reads as `string.Template` text: it holds a placeholder (`$name`,
/// `${name}`), and every `$` in it is one, or an escaped `$$`. A `$` followed by
/// anything else makes `Template.substitute` raise (`Invalid placeholder`), so text
/// like pyredise's `'$DOCIDS$'` (a key named with dollars) is plain Lua.
fn has_dollar_name(t: &str) -> bool {
    let b = t.as_bytes();
    let name_start = |c: u8| c.is_ascii_alphabetic() || c == b'_';
    let mut named = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'$') => i += 2,
            Some(&c) if name_start(c) => {
                named = true;
                i += 1 + b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
            }
            Some(b'{') => {
                let rest = &b[i + 2..];
                let len = rest
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                if len == 0 || !name_start(rest[0]) || rest.get(len) != Some(&b'}') {
                    return false;
                }
                named = true;
                i += 3 + len;
            }
            _ => return false,
        }
    }
    named
}

/// Whether Lua text calls `redis.call` or `redis.pcall`, directly or through a local
/// alias (`local redis_call = redis.call`).
fn calls_redis(t: &str) -> bool {
    ["redis.call", "redis.pcall"].iter().any(|f| {
        t.match_indices(f).any(|(i, _)| {
            let rest = t[i + f.len()..].trim_start_matches([' ', '\t']);
            let before = t[..i].trim_end_matches([' ', '\t']);
            rest.starts_with('(') || (before.ends_with('=') && !before.ends_with("=="))
        })
    })
}

/// Whether `word` occurs in `t` as a whole name (`KEYS[1]`, `ipairs(KEYS)`, not
/// `MY_KEYS`).
fn has_word(t: &str, word: &str) -> bool {
    let name = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    t.match_indices(word).any(|(i, _)| {
        !name(t[..i].chars().next_back()) && !name(t[i + word.len()..].chars().next())
    })
}

/// The first parameter is the client: no `Key`/`Arg` annotation, no star.
fn slot_of_first_is_client(f: &crate::index::FuncInfo<'_>, src: &str) -> bool {
    let p = &f.params[0];
    !p.star
        && p.annotation
            .is_none_or(|n| slot_of(crate::index::text(n, src)).is_none())
}

/// The docstring of a function whose body is only that (then `...` or `pass`).
fn docstring<'t>(nav: &crate::syntax::Nav<'t>, body: Node<'t>) -> Option<Node<'t>> {
    use crate::syntax::NodeExt;
    let mut stmts = nav
        .named_children(body)
        .filter(|n| n.kind_name() != "comment");
    let first = stmts.next()?;
    let doc = match first.kind_name() {
        "expression_statement" => first.named_child(0).filter(|n| n.kind_name() == "string")?,
        _ => return None,
    };
    for rest in stmts {
        let plain = match rest.kind_name() {
            "pass_statement" => true,
            "expression_statement" => rest
                .named_child(0)
                .is_some_and(|n| n.kind_name() == "ellipsis"),
            _ => false,
        };
        if !plain {
            return None;
        }
    }
    Some(doc)
}

/// The names a `string.Template` body's placeholders were given
/// ([`dollar_holes`]) written back as the placeholders (`$pending_key`) in the labels
/// of the script's keys, and the names of values pasted into an f-string body
/// ([`with_string_holes`]) as the expressions they stand for (`self.prefix`).
fn host_labels(lua: &mut keylint_core::FileModel, hosts: &Hosts) {
    use keylint_core::template::Part;
    for k in &mut lua.keys {
        for p in &mut k.template.parts {
            if let Part::Hole(h) = p {
                if h.label.contains(keylint_lua::HOST_VALUE) {
                    h.label = h.label.replace(keylint_lua::HOST_VALUE, "$");
                }
                for (name, shown) in hosts {
                    let from = format!("${name}");
                    if h.label.contains(&from) {
                        h.label = h.label.replace(&from, shown);
                    }
                }
            }
        }
    }
}

/// Links every script call with its body.
pub(crate) fn link_scripts<'t>(a: &mut Analyzer<'t>) {
    let links = std::mem::take(&mut a.script_links);
    let mut lowered: Vec<Lowered> = Vec::new();
    let mut by_body: HashMap<(String, Option<usize>), usize> = HashMap::new();
    // Bodies of registered scripts are merged even when never called.
    type Source<'t> = (
        Option<Node<'t>>,
        Option<FuncId>,
        Option<Arc<str>>,
        Option<String>,
    );
    let mut sources: Vec<Source<'t>> = a
        .scripts
        .iter()
        .map(|s| (s.body, s.func, s.ext.clone(), s.preamble.clone()))
        .collect();
    sources.extend(links.iter().map(|l| (l.body, l.func, l.ext.clone(), None)));
    let mut body_index: Vec<Option<usize>> = Vec::new();
    let mut merged_bytes: std::collections::HashSet<usize> = std::collections::HashSet::new();
    // The places, texts and origins of what was merged: a body that shares text with
    // one merged before adds only what is at other places or is another key there (a
    // helper the first body never calls is walked there with unknown values).
    let mut merged_places: std::collections::HashSet<(
        keylint_core::Span,
        Vec<keylint_core::template::SymPart>,
        Option<keylint_core::model::KeyOrigin>,
    )> = std::collections::HashSet::new();
    for (node, func, ext, preamble) in sources {
        // A body registered in another module: its text, linked and never merged (that
        // module is linted on its own).
        let body = match (ext, node) {
            (Some(text), _) => Some(Body {
                text: text.to_string(),
                offs: None,
                hosts: Vec::new(),
            }),
            (None, Some(node)) => body_of(a, node, func),
            (None, None) => None,
        };
        let body = match (body, preamble, node) {
            (Some(b), Some(pre), Some(node)) => Some(with_preamble(b, &pre, node)),
            (b, _, _) => b,
        };
        let Some(body) = body else {
            body_index.push(None);
            continue;
        };
        let key = (
            body.text.clone(),
            body.offs.as_ref().and_then(|o| o.first().copied()),
        );
        if let Some(&i) = by_body.get(&key) {
            body_index.push(Some(i));
            continue;
        }
        let pasted = body
            .offs
            .as_deref()
            .map(|o| pasted_code(a, &body.text, o))
            .unwrap_or_default();
        let mut lua = if pasted.is_empty() {
            keylint_lua::lower(&body.text)
        } else {
            keylint_lua::lower_pasted(&body.text, pasted)
        };
        if body.text.contains(keylint_lua::HOST_VALUE) {
            host_labels(&mut lua, &body.hosts);
        }
        // A body that shares source text with one already merged (`HEAD + BODY` where
        // BODY was registered too, or one prelude pasted into several scripts) adds
        // only what lies in text not merged yet: the rest would repeat findings at the
        // same places.
        let merged_keys = match &body.offs {
            Some(offs) => {
                let m = Mapper {
                    offs,
                    fallback: node.map_or(0..0, |n| n.byte_range()),
                };
                let merged = if !offs.iter().any(|o| merged_bytes.contains(o)) {
                    Some(merge(&mut a.model, &lua, &m))
                } else {
                    let part = keylint_core::script_link::fresh_part(&lua, |r, t, o| {
                        !merged_places.contains(&(m.range(r), t, o))
                    });
                    if let Some(part) = part {
                        merge(&mut a.model, &part, &m);
                    }
                    None
                };
                merged_bytes.extend(offs.iter().copied());
                // Only the keys a script of the body is judged by (a helper it never
                // calls is walked for its own sake).
                let judged: std::collections::HashSet<usize> = lua
                    .scripts
                    .iter()
                    .flat_map(|s| s.keys.iter().copied())
                    .collect();
                merged_places.extend(
                    lua.keys
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| judged.contains(i))
                        .map(|(_, k)| (m.range(&k.span), k.template.text_parts(), Some(k.origin))),
                );
                merged_places.extend(
                    lua.sort_patterns
                        .iter()
                        .map(|p| (m.range(&p.at), p.pattern.text_parts(), None)),
                );
                merged_places.extend(
                    lua.listings
                        .iter()
                        .map(|l| (m.range(&l.span), Vec::new(), None)),
                );
                merged
            }
            None => None,
        };
        lowered.push(Lowered { lua, merged_keys });
        by_body.insert(key, lowered.len() - 1);
        body_index.push(Some(lowered.len() - 1));
    }
    let skip = a.scripts.len();
    for (link, bi) in links.iter().zip(body_index.into_iter().skip(skip)) {
        // Without a known body, only the call's own facts (its numkeys) are recorded.
        link_call(a, link, bi.map(|bi| &lowered[bi]));
    }
}

/// The parts of a body's text pasted in from elsewhere in the source: runs of lines
/// that come from another string than the one holding the script's last line (a
/// prelude of helpers in a property or constant, `f'''{self._prelude}\n…'''` or
/// `PRELUDE + '''…'''`). Short values pasted into a line (a prefix constant) stay the
/// script's own text; so does everything when the last line's string is unknown.
fn pasted_code(a: &Analyzer<'_>, text: &str, offs: &[usize]) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    if offs.len() != bytes.len() {
        return Vec::new();
    }
    let Some(last) = bytes.iter().rposition(|b| !b.is_ascii_whitespace()) else {
        return Vec::new();
    };
    let Some(own) = string_at(a, offs[last]) else {
        return Vec::new();
    };
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if own.contains(&offs[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !own.contains(&offs[i]) {
            i += 1;
        }
        if bytes[start..i].contains(&b'\n') {
            out.push(start..i);
        }
    }
    out
}

/// The byte range of the Python string literal around source offset `at`.
fn string_at(a: &Analyzer<'_>, at: usize) -> Option<std::ops::Range<usize>> {
    let mut n = a.ix.nav.root().descendant_for_byte_range(at, at + 1)?;
    loop {
        if n.kind_name() == "string" {
            return Some(n.byte_range());
        }
        n = a.ix.nav.parent(n)?;
    }
}

fn link_call(a: &mut Analyzer<'_>, link: &Link<'_>, body: Option<&Lowered>) {
    let call = ScriptCall {
        anchor: a.model.units[link.unit].anchor.clone(),
        span: link.call.byte_range(),
        keys: link.keys.clone(),
        key_spans: link.key_nodes.iter().map(|n| n.byte_range()).collect(),
        passed: link.passed.clone(),
        numkeys: link.numkeys.clone(),
        argv_keys: link.argv_keys.clone(),
    };
    script_link::link_call(&mut a.model, &call, body);
}

#[cfg(test)]
mod tests {
    use keylint_core::rules::{check, Settings};

    fn numkeys_findings(src: &str) -> Vec<String> {
        let m = crate::lower(src);
        check(&m, &Settings::default())
            .into_iter()
            .filter(|f| f.message.starts_with("numkeys "))
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn numkeys_is_checked_without_a_body() {
        let src = "import redis\nr = redis.Redis()\ndef f(sha, body, args):\n    \
                   r.evalsha(sha, 3, 'a')\n    r.eval(body, -1, 'a')\n    \
                   r.fcall_ro('f', 2)\n    r.evalsha(sha, 1, 'a')\n    \
                   r.evalsha(sha, 3, *args)\n    r.evalsha(sha, 3, 'a', *args)\n    \
                   r.evalsha_ro(sha, numkeys=2)\n";
        assert_eq!(
            numkeys_findings(src),
            [
                "numkeys is 3 but only 1 argument follows",
                "numkeys is negative (-1)",
                "numkeys is 2 but only 0 arguments follow",
            ]
        );
    }
}

#[cfg(test)]
mod dollar_tests {
    use super::{dollar_holes, has_dollar_name};

    #[test]
    fn template_text_only_when_every_dollar_is_a_placeholder() {
        assert!(has_dollar_name("redis.call('GET', '$prefix:' .. KEYS[1])"));
        assert!(has_dollar_name("redis.call('GET', '${prefix}x', '$$')"));
        // pyredise names keys with dollars: `Template.substitute` would raise.
        assert!(!has_dollar_name("redis.call('SCARD', '$DOCIDS$')"));
        assert!(!has_dollar_name("-- costs $5\nredis.call('GET', '$k')"));
        assert!(!has_dollar_name("redis.call('GET', '${1}')"));
        assert!(!has_dollar_name("redis.call('GET', '$$')"));
        assert!(!has_dollar_name("redis.call('GET', KEYS[1]) -- $"));
    }

    fn text(t: &str) -> Option<String> {
        dollar_holes(t, None).map(|(s, _)| s)
    }

    #[test]
    fn placeholders_in_strings_are_pasted_values() {
        let h = keylint_lua::HOST_VALUE;
        assert_eq!(
            text(r#"local k = "$pending""#),
            Some(format!("local k = {h}pending"))
        );
        assert_eq!(
            text(r#"f("$prefix:%s", id)"#),
            Some(format!(r#"f({h}prefix .. ":%s", id)"#))
        );
        assert_eq!(
            text(r#"f("x:${name}")"#),
            Some(format!(r#"f("x:" .. {h}name)"#))
        );
        assert_eq!(
            text("f('a:$b:c')"),
            Some(format!("f('a:' .. {h}b .. ':c')"))
        );
        // `$$` is a dollar.
        assert_eq!(text(r#"f("$$x")"#), Some(r#"f("$x")"#.to_string()));
    }

    #[test]
    fn placeholders_in_code_only_where_an_expression_goes() {
        assert_eq!(text("local t = $ttl"), Some("local t = ttl".to_string()));
        assert_eq!(
            text("local t = now + $ttl"),
            Some("local t = now + ttl".to_string())
        );
        // A name the script uses itself is not taken for the value.
        assert_eq!(
            text("local ttl = $ttl"),
            Some("local ttl = _python_value_0".to_string())
        );
        assert_eq!(text("$helpers\nredis.call('GET', KEYS[1])"), None);
        assert_eq!(text("local x = 1 $y"), None);
    }

    #[test]
    fn comments_and_long_brackets() {
        assert_eq!(
            text("-- uses $name\nlocal a = 1"),
            Some("-- uses $name\nlocal a = 1".to_string())
        );
        assert_eq!(
            text("--[[ $name\n]] local a = 1"),
            Some("--[[ $name\n]] local a = 1".to_string())
        );
        assert_eq!(text("local s = [[ $name ]]"), None);
        assert_eq!(
            text("local s = [[ plain ]]"),
            Some("local s = [[ plain ]]".to_string())
        );
        assert_eq!(text("local s = [[ unclosed"), None);
    }

    #[test]
    fn offsets_point_at_the_placeholder() {
        let src = r#"k = "$abc""#;
        let offs: Vec<usize> = (100..100 + src.len()).collect();
        let (t, o) = dollar_holes(src, Some(&offs)).unwrap();
        let o = o.unwrap();
        assert_eq!(t.len(), o.len());
        // The value's first byte is the opening quote's, its last the closing one's.
        let at = t.find(keylint_lua::HOST_VALUE).unwrap();
        assert_eq!(o[at], 104);
        assert_eq!(*o.last().unwrap(), 109);
    }
}

#[cfg(test)]
mod fstring_tests {
    use super::{fill, with_string_holes};
    use keylint_core::template_builder::{HoleInfo, Tpl};

    fn hole(label: &str) -> Tpl {
        Tpl::hole(HoleInfo {
            label: label.to_string(),
            binding: label.to_string(),
            span: None,
            keylike: false,
        })
    }

    /// An f-string body: literal text written at offset 0 on, and fields.
    fn body(parts: &[Result<&str, &str>]) -> Tpl {
        let mut t = Tpl::default();
        let mut at = 0;
        for p in parts {
            match p {
                Ok(s) => {
                    t.push(Tpl::lit(
                        s.as_bytes().to_vec(),
                        (at..at + s.len()).map(Some).collect(),
                    ));
                    at += s.len() + 8;
                }
                Err(l) => t.push(hole(l)),
            }
        }
        t
    }

    fn text(parts: &[Result<&str, &str>]) -> Option<(String, Vec<(String, String)>)> {
        with_string_holes(&body(parts), b"").map(|(s, _, h)| (s, h))
    }

    #[test]
    fn values_in_strings_are_pasted_text() {
        let h = keylint_lua::HOST_VALUE;
        let (t, hosts) = text(&[
            Ok("local a = '"),
            Err("self.prefix"),
            Ok(":x'\nlocal b = 'y:"),
            Err("self.prefix"),
            Ok("'\nlocal c = '"),
            Err("name"),
            Ok("'"),
        ])
        .unwrap();
        // No empty string at either end of a literal; one name per expression.
        assert_eq!(
            t,
            format!("local a = {h}py0_ .. ':x'\nlocal b = 'y:' .. {h}py0_\nlocal c = {h}py1_")
        );
        assert_eq!(
            hosts,
            [
                ("py0_".to_string(), "self.prefix".to_string()),
                ("py1_".to_string(), "name".to_string())
            ]
        );
        assert_eq!(
            text(&[Ok("f('a:"), Err("x"), Ok(":b')")]).unwrap().0,
            format!("f('a:' .. {h}py0_ .. ':b')")
        );
    }

    #[test]
    fn values_in_code_only_where_an_expression_goes() {
        assert_eq!(
            text(&[Ok("local shared = "), Err("1 if s else 0"), Ok("\n")])
                .unwrap()
                .0,
            "local shared = _python_value_0\n"
        );
        // A statement could be any code; a long bracket string or a comment too.
        assert_eq!(text(&[Ok("\n"), Err("self.helpers"), Ok("\nx()")]), None);
        assert_eq!(text(&[Ok("local s = [[ "), Err("x"), Ok(" ]]")]), None);
        assert_eq!(text(&[Ok("-- '"), Err("x"), Ok("'\n")]), None);
    }

    #[test]
    fn long_runs_from_elsewhere_only_where_a_field_pastes_them() {
        let src = b"ab{x}cd";
        // Short: the byte before.
        let short = [Some(1), None, None, Some(5)];
        assert_eq!(fill(&short, src), Some(vec![1, 1, 1, 5]));
        // Long, after `ab` and at the field `{x}`: the field's brace.
        let mut long = vec![Some(0), Some(1)];
        long.extend(std::iter::repeat_n(None, 40));
        long.push(Some(5));
        let out = fill(&long, src).unwrap();
        assert!(out[2..42].iter().all(|&o| o == 2));
        // Long with no field there, or at the start: not placed.
        assert_eq!(fill(&long, b"abcdefg"), None);
        assert_eq!(fill(&[None, Some(1)], src), None);
    }
}
