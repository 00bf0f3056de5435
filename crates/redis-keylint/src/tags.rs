//! Whether a project writes hash tags: the evidence `cross-slot-likely` needs before
//! it takes the values the code does not show (a configured prefix, a name passed in)
//! as carrying none ([`ProjectTags`]).
//!
//! The sources of the project (Python and JavaScript/TypeScript files under its root,
//! without tests, documentation, vendored or built code) are read once per run. A
//! small lexer finds their string literals, and a literal writes a tag when it is
//! `f"{{{x}}}"` or `f"{{user}}:…"`, `` `{${x}}` `` or `` `{app}:…` ``, a lone `"{"`
//! concatenated with more text (`"{" + name + "}"`; one that is only tested, as JSON
//! detection does, does not count),
//! `"{%s}"`, or a plain string that reads as a key with a brace pair around a name
//! (`"{app}"`, `'q:{shard}'`, unless `.format` follows it on the spot). Text that is
//! no key template does not count: a plain string with spaces (a log message's
//! `func={%s}`), a template engine's `{{cookiecutter.name}}`, an f-string glob whose
//! braces hold a value built with a string (`f'*.{{{",".join(exts)}}}'`). The words
//! "hash tag", "keyslot" and "CROSSSLOT" anywhere count too. One match anywhere is
//! enough: the project may tag its values, and they stay unknown. The search errs that
//! way: a key-like `.format` template kept in a constant counts as a tag.

use keylint_core::model::ProjectTags;
use regex::bytes::Regex;
use std::path::Path;
use std::sync::OnceLock;

/// Words of code that knows about slots, anywhere in a file (comments included).
fn words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?i)hash[ _-]tags?\b|keyslot|crossslot").expect("valid pattern"))
}

/// The one word "hashtag": a social network's as often as a Redis Cluster's, so it
/// counts only on a line that also speaks of slots, a cluster or Redis.
fn hashtag_word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?i)\bhashtags?\b").expect("valid pattern"))
}

/// Whether the text speaks of hash tags or slots in words.
fn mentions_tags(text: &[u8]) -> bool {
    if words().is_match(text) {
        return true;
    }
    let context = |line: &[u8]| {
        let lower = line.to_ascii_lowercase();
        [&b"slot"[..], b"cluster", b"redis"]
            .iter()
            .any(|w| lower.windows(w.len()).any(|x| x == *w))
    };
    hashtag_word().find_iter(text).any(|m| {
        let start = text[..m.start()]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let end = text[m.end()..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| m.end() + i);
        context(&text[start..end])
    })
}

/// The whole text of a plain string that reads as a key with a brace pair around a
/// name in it: `{app}`, `q:{shard}:jobs`.
fn braced_key() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^[A-Za-z0-9_:.|\-][A-Za-z0-9_:.|/\-]*\{[A-Za-z_][A-Za-z0-9_:.|\-]*\}[A-Za-z0-9_:.|/\-]*$|^\{[A-Za-z_][A-Za-z0-9_:.|\-]*\}[A-Za-z0-9_:.|/\-]*$")
            .expect("valid pattern")
    })
}

/// The syntax a file's strings are written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Python,
    JavaScript,
}

/// How a string literal treats braces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Braces are text (a plain string; `str.format` may read them later).
    Plain,
    /// `{…}` holds a value: a Python f-string (`{{` is a literal brace) or a
    /// JavaScript template literal (`${…}` is a value, `{` alone is text).
    Interpolated,
}

/// Whether one string literal writes a hash tag: `content` is its text between the
/// quotes, `before` the text of the file up to its opening quote (and prefix), `after`
/// what follows the closing quote.
fn writes_tag(syntax: Syntax, kind: Kind, before: &[u8], content: &[u8], after: &[u8]) -> bool {
    match (kind, syntax) {
        // A unit of measure (OpenTelemetry's UCUM annotations, `unit="{request}"`).
        (Kind::Plain, _) if unit_value(before) => false,
        // A placeholder handed on as it is (`.format(service="{service}")`,
        // `.replace("{uri}", uri)`), or a router's name template (`"{basename}-detail"`).
        (Kind::Plain, _) if placeholder_passed(before, content) || route_name(content) => false,
        // A decorator's template filled with the decorated function's arguments
        // (`@mc_user_id_by_mail('{mail}')` over `def user_id_by_mail(mail):`).
        (Kind::Plain, _) if decorator_template(before, content, after) => false,
        (Kind::Plain, _) => {
            // A key template has no spaces: a log message's `func={%s}` is no tag,
            // nor is text with line breaks or tabs written as escapes (a wiki's code
            // block, `'\n{{{\r%s\r}}}\n'`).
            let keylike = !content.iter().any(u8::is_ascii_whitespace)
                && ![&b"\\n"[..], b"\\r", b"\\t"]
                    .iter()
                    .any(|e| content.windows(2).any(|w| w == *e));
            (content == b"{" && concatenated(after))
                || keylike
                    && content.windows(3).enumerate().any(|(i, w)| {
                        w[..2] == *b"{{"
                            && (w[2] == b'{' && content.len() > i + 3
                                || (w[2].is_ascii_alphanumeric() || w[2] == b'_')
                                    && !template_attribute(&content[i + 2..])
                                    && !content[i + 2..].starts_with(b"resolve:"))
                    })
                || keylike
                    && [&b"{%s}"[..], b"{%d}", b"{%("]
                        .iter()
                        .any(|p| content.windows(p.len()).any(|w| w == *p))
                || (braced_key().is_match(content) && !after.starts_with(b".format"))
        }
        // f"{{{x}}}", f"{{user}}:{id}": literal braces around a value or a name (not
        // a glob's `{{{",".join(exts)}}}`, whose value is built with a string).
        // Not a line of text with spaces between its parts (Prometheus' exposition
        // format, `f"name{{{labels}}} {value}"`), nor a shell's `${{{name}}}` or a
        // longer run of braces (Mermaid's `{{{{{text}}}}}`).
        (Kind::Interpolated, Syntax::Python) if spaced_text(content) => false,
        (Kind::Interpolated, Syntax::Python) => {
            content.windows(3).enumerate().any(|(i, w)| {
                w == b"{{{"
                    && (i == 0 || !matches!(content[i - 1], b'$' | b'{'))
                    && content.get(i + 3) != Some(&b'{')
                    && !content[i + 3..]
                        .iter()
                        .take_while(|&&b| b != b'}')
                        .any(|&b| b == b'"' || b == b'\'')
            }) || content.windows(2).enumerate().any(|(i, w)| {
                // Not a URL's template parameter (`acct={{uri}}`).
                w == b"{{"
                    && (i == 0 || !matches!(content[i - 1], b'$' | b'{' | b'='))
                    && closes_name(&content[i + 2..], b"}}")
            })
        }
        // `{${x}}`, `{app}:${id}`: a brace that is text, around a value or a name.
        (Kind::Interpolated, Syntax::JavaScript) => content.iter().enumerate().any(|(i, &b)| {
            b == b'{'
                && (i == 0 || content[i - 1] != b'$')
                && (content[i + 1..].starts_with(b"${") || closes_name(&content[i + 1..], b"}"))
        }),
    }
}

/// Whether `rest` (after `{{`) is a template engine's attribute access
/// (`{{cookiecutter.project_name}}`, Jinja): a name followed by a dot.
fn template_attribute(rest: &[u8]) -> bool {
    let n = rest
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    rest.get(n) == Some(&b'.')
}

/// Whether what follows a string literal concatenates it with more text (`"{" +
/// name + "}"`), as code that builds a tag does; a lone `"{"` tested or compared
/// (`text.startswith(("{", "["))`, `s[0] == "{"`) is JSON, not a tag, and one
/// followed by a list joined with a separator (`"{" + ", ".join(items) + "}"`) prints
/// a set.
fn concatenated(after: &[u8]) -> bool {
    let skip = |t: &[u8]| t.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
    let rest = &after[skip(after)..];
    if !rest.starts_with(b"+") || rest.starts_with(b"+=") {
        return false;
    }
    let next = &rest[1..];
    let next = &next[skip(next)..];
    match next.first() {
        Some(&q @ (b'"' | b'\'')) => match memchr::memchr(q, &next[1..]) {
            Some(e) => {
                let sep = &next[1..1 + e];
                let joined = next[e + 2..].starts_with(b".join(");
                !(joined && sep.iter().any(|&b| b == b',' || b.is_ascii_whitespace()))
            }
            None => true,
        },
        _ => true,
    }
}

/// The text before a string literal without the literal's own prefix letters (`f`,
/// `r`, `b`; two at most).
fn without_prefix(before: &[u8]) -> &[u8] {
    let mut end = before.len();
    while end > 0 && before[end - 1].is_ascii_alphabetic() && before.len() - end < 2 {
        end -= 1;
    }
    &before[..end]
}

/// Whether the text before a string literal makes it the value of a unit of measure:
/// `unit=`, `unit: `, `"unit": ` (OpenTelemetry instruments, whose UCUM annotations
/// `{request}`, `{connection}/s` are braced names, not keys).
fn unit_value(before: &[u8]) -> bool {
    let before = without_prefix(before);
    let trim = |t: &[u8]| -> usize {
        t.len()
            - t.iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .count()
    };
    let mut t = &before[..trim(before)];
    match t.last() {
        Some(b'=' | b':') => t = &t[..t.len() - 1],
        _ => return false,
    }
    t = &t[..trim(t)];
    if let Some(b'"' | b'\'') = t.last() {
        t = &t[..t.len() - 1];
    }
    let word = |w: &[u8]| {
        t.ends_with(w)
            && !t[..t.len() - w.len()]
                .last()
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    };
    word(b"unit") || word(b"units")
}

/// Whether a string that is one braced name (`"{service}"`) is handed on as a
/// placeholder: the value of a keyword of the same name (`.format(service=
/// "{service}")`) or of one named as a template (`item_format="{_id}"`, `fmt=`,
/// `template=`), or what `.replace(` looks for.
fn placeholder_passed(before: &[u8], content: &[u8]) -> bool {
    let Some(name) = content
        .strip_prefix(b"{")
        .and_then(|c| c.strip_suffix(b"}"))
        .filter(|n| !n.is_empty() && n.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_'))
    else {
        return false;
    };
    let t = without_prefix(before).trim_ascii_end();
    if t.ends_with(b".replace(") {
        return true;
    }
    let Some(t) = t.strip_suffix(b"=") else {
        return false;
    };
    let t = t.trim_ascii_end();
    let word_start = t.len()
        - t.iter()
            .rev()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
            .count();
    let keyword = &t[word_start..];
    // `item_format="{_id}"`, `fmt="{name}"`: a template that the callee formats.
    let template = [&b"format"[..], b"fmt", b"template"]
        .iter()
        .any(|w| keyword.ends_with(w));
    keyword == name || template
}

/// Whether a plain string is an argument of a decorator (`@cached("user:{user_id}")`,
/// written on a line of its own that begins with `@`) whose braced names are all
/// parameters of the function it decorates: a template the decorator formats with
/// the call's arguments (`.format(**kwargs)`), as memoizing decorators do. Its braces
/// are `str.format` fields, not a hash tag.
fn decorator_template(before: &[u8], content: &[u8], after: &[u8]) -> bool {
    let before = without_prefix(before);
    let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    if !before[start..].trim_ascii_start().starts_with(b"@") {
        return false;
    }
    // The braced names, each a plain identifier or a dotted path.
    let mut names: Vec<&[u8]> = Vec::new();
    let mut rest = content;
    while let Some(open) = memchr::memchr(b'{', rest) {
        let tail = &rest[open + 1..];
        let Some(close) = memchr::memchr(b'}', tail) else {
            return false;
        };
        // `{user_id}`, or an attribute of one (`{self.id}`): the parameter is the
        // first name.
        let name = tail[..close]
            .split(|&b| b == b'.')
            .next()
            .unwrap_or_default();
        let ident = !name.is_empty()
            && !name[0].is_ascii_digit()
            && tail[..close]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
        if !ident {
            return false;
        }
        names.push(name);
        rest = &tail[close + 1..];
    }
    if names.is_empty() {
        return false;
    }
    // The decorated function: the first `def` that begins a line, past any other
    // decorators, within a few lines.
    let window = &after[..after.len().min(2048)];
    let mut at = 0;
    let params = loop {
        let Some(nl) = memchr::memchr(b'\n', &window[at..]) else {
            return false;
        };
        at += nl + 1;
        let line = window[at..].trim_ascii_start();
        let line = line
            .strip_prefix(b"async ")
            .map_or(line, <[u8]>::trim_ascii_start);
        if let Some(def) = line.strip_prefix(b"def ") {
            let Some(open) = memchr::memchr(b'(', def) else {
                return false;
            };
            let Some(close) = memchr::memchr(b')', &def[open..]) else {
                return false;
            };
            break &def[open + 1..open + close];
        }
        if !(line.starts_with(b"@") || line.starts_with(b"#") || line.starts_with(b")")) {
            return false;
        }
    };
    let is_param = |name: &[u8]| {
        params.split(|&b| b == b',').any(|p| {
            let p = p.trim_ascii();
            let p = p.strip_prefix(b"*").unwrap_or(p);
            let end = p
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(p.len());
            &p[..end] == name
        })
    };
    names.iter().all(|n| is_param(n))
}

/// Whether a string is a web router's name or path template
/// (`"{basename}-detail"`, `"{prefix}/{lookup}{trailing_slash}"` of Django REST
/// framework).
fn route_name(content: &[u8]) -> bool {
    [
        &b"{basename}"[..],
        b"{lookup}",
        b"{trailing_slash}",
        b"{url_path}",
        b"{url_name}",
    ]
    .iter()
    .any(|p| content.windows(p.len()).any(|w| w == *p))
}

/// Whether an f-string's literal text (outside its `{value}` fields) has spaces: a
/// line of text, not a key template.
fn spaced_text(content: &[u8]) -> bool {
    let mut i = 0;
    let mut depth = 0usize;
    while i < content.len() {
        let b = content[i];
        if depth == 0 && (content[i..].starts_with(b"{{") || content[i..].starts_with(b"}}")) {
            i += 2;
            continue;
        }
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ if depth == 0 && b.is_ascii_whitespace() => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether `rest` begins with a name (letters, digits, `_ : . -`) closed by `close`.
fn closes_name(rest: &[u8], close: &[u8]) -> bool {
    let n = rest
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.' | b'-'))
        .count();
    n > 0 && rest[n..].starts_with(close)
}

/// Calls `found` on every string literal of `text` until it returns true. A small
/// lexer: comments are skipped, quotes inside strings and interpolations do not start
/// new strings, an unterminated string ends the file.
fn any_string(
    text: &[u8],
    syntax: Syntax,
    mut found: impl FnMut(Kind, &[u8], &[u8], &[u8]) -> bool,
) -> bool {
    let n = text.len();
    let mut i = 0;
    while i < n {
        let b = text[i];
        match (syntax, b) {
            (Syntax::Python, b'#') => i = skip_line(text, i),
            (Syntax::JavaScript, b'/') if text.get(i + 1) == Some(&b'/') => i = skip_line(text, i),
            (Syntax::JavaScript, b'/') if text.get(i + 1) == Some(&b'*') => {
                i = find(text, i + 2, b"*/").map_or(n, |e| e + 2)
            }
            (_, b'\'' | b'"') | (Syntax::JavaScript, b'`') => {
                let kind = match syntax {
                    Syntax::Python if f_prefix(text, i) => Kind::Interpolated,
                    Syntax::JavaScript if b == b'`' => Kind::Interpolated,
                    _ => Kind::Plain,
                };
                let triple = syntax == Syntax::Python && text[i..].starts_with(&[b, b, b]);
                let open = if triple { 3 } else { 1 };
                let body = i + open;
                let end = if triple {
                    find_unescaped(text, body, &[b, b, b])
                } else if b == b'`' {
                    template_end(text, body)
                } else {
                    find_unescaped_line(text, body, b)
                };
                let Some(end) = end else { return false };
                let close = end + open;
                if found(kind, &text[..i], &text[body..end], &text[close.min(n)..]) {
                    return true;
                }
                i = close;
            }
            _ => i += 1,
        }
    }
    false
}

/// Whether the quote at `q` opens a Python f-string: a prefix of up to two letters
/// with an `f`, not the end of a name.
fn f_prefix(text: &[u8], q: usize) -> bool {
    let mut j = q;
    while j > 0
        && q - j < 2
        && matches!(
            text[j - 1],
            b'f' | b'F' | b'r' | b'R' | b'b' | b'B' | b'u' | b'U'
        )
    {
        j -= 1;
    }
    let prefix = &text[j..q];
    let standalone = j == 0 || !(text[j - 1].is_ascii_alphanumeric() || text[j - 1] == b'_');
    standalone && prefix.iter().any(|&c| c == b'f' || c == b'F')
}

fn skip_line(text: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &text[i..]).map_or(text.len(), |e| i + e + 1)
}

fn find(text: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(text.get(from..)?, needle).map(|e| from + e)
}

/// The offset of `close` after `from`, skipping backslash escapes.
fn find_unescaped(text: &[u8], from: usize, close: &[u8]) -> Option<usize> {
    let mut i = from;
    while i < text.len() {
        if text[i] == b'\\' {
            i += 2;
        } else if text[i..].starts_with(close) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

/// The closing quote of a one-line string (an unescaped newline ends it unclosed).
fn find_unescaped_line(text: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'\n' => return Some(i),
            c if c == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The closing backtick of a template literal, past its `${…}` values.
fn template_end(text: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut depth = 0usize;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 1,
            b'$' if depth == 0 && text.get(i + 1) == Some(&b'{') => {
                depth = 1;
                i += 1;
            }
            b'{' if depth > 0 => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b'`' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the text of a file written in `syntax` writes or mentions a hash tag
/// (alone: its key templates kept in constants are judged by its own uses of them).
#[cfg(test)]
fn in_source(text: &[u8], syntax: Syntax) -> bool {
    let mut templates = Vec::new();
    scan(text, syntax, &mut templates) || misused(text, &templates)
}

/// Whether the text of a file written in `syntax` writes or mentions a hash tag. A
/// Python constant whose whole value is a key template with one braced name
/// (`QUEUE_KEY = "q:{name}:jobs"`) is not counted here: its name goes into
/// `templates`, and it counts only where the project uses it other than through
/// `.format` ([`misused`]).
fn scan(text: &[u8], syntax: Syntax, templates: &mut Vec<Vec<u8>>) -> bool {
    mentions_tags(text)
        || any_string(text, syntax, |kind, before, content, after| {
            if !writes_tag(syntax, kind, before, content, after) {
                return false;
            }
            let template = syntax == Syntax::Python
                && kind == Kind::Plain
                && braced_key().is_match(content)
                && line_rest_is_empty(after);
            match assigned_name(before).filter(|_| template) {
                Some(name) => {
                    if !templates.iter().any(|t| t == name) {
                        templates.push(name.to_vec());
                    }
                    false
                }
                None => true,
            }
        })
}

/// Whether only blanks or a comment follow a string literal on its line.
fn line_rest_is_empty(after: &[u8]) -> bool {
    let end = memchr::memchr(b'\n', after).unwrap_or(after.len());
    let rest = after[..end].trim_ascii();
    rest.is_empty() || rest.starts_with(b"#")
}

/// The name a string literal is the whole value of, when the text before it on its
/// line is `NAME = ` or `NAME: str = ` (a module constant or a class attribute).
fn assigned_name(before: &[u8]) -> Option<&[u8]> {
    let before = without_prefix(before);
    let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = before[start..].trim_ascii_end().strip_suffix(b"=")?;
    if line.last().is_some_and(|b| b"=!<>+-*/%&|^:@".contains(b)) {
        return None;
    }
    let lhs = line.trim_ascii();
    let name = match memchr::memchr(b':', lhs) {
        Some(i) => lhs[..i].trim_ascii_end(),
        None => lhs,
    };
    let ident = !name.is_empty()
        && !name[0].is_ascii_digit()
        && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
    ident.then_some(name)
}

/// Whether `text` uses one of the key-template constants `names` other than by
/// formatting it (`NAME.format(`, `NAME.format_map(`): handed on, concatenated or
/// used as a key as it is, where its braces may be a hash tag. Assignments to the
/// name, imports of it, comments and quoted mentions (`__all__`) are no use.
fn misused(text: &[u8], names: &[Vec<u8>]) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    names.iter().any(|name| {
        memchr::memmem::find_iter(text, name).any(|at| {
            let end = at + name.len();
            if at > 0 && word(text[at - 1]) || text.get(end).is_some_and(|&b| word(b)) {
                return false;
            }
            let after = &text[end..];
            if after.starts_with(b".format(") || after.starts_with(b".format_map(") {
                return false;
            }
            let line_start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
            let line = text[line_start..at].trim_ascii_start();
            let quoted = at > 0
                && matches!(text[at - 1], b'"' | b'\'')
                && after.first() == Some(&text[at - 1]);
            let rest = after.trim_ascii_start();
            let rest_of_line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
            // `NAME = …`, or `NAME: str = …` (not a dict's `NAME: value` entry).
            let assigned = line.is_empty()
                && (rest.starts_with(b"=") && !rest.starts_with(b"==")
                    || rest.starts_with(b":")
                        && rest_of_line
                            .windows(3)
                            .any(|w| w[1] == b'=' && !b"=!<>:".contains(&w[0]) && w[2] != b'='));
            let comment = line.starts_with(b"#");
            !(quoted || assigned || comment || imported(text, line_start))
        })
    })
}

/// Whether the line at `line_start` imports names: `import …`, `from … import …`, or
/// a line inside the parentheses of `from … import (`.
fn imported(text: &[u8], line_start: usize) -> bool {
    let line = text[line_start..].trim_ascii_start();
    if line.starts_with(b"import ") || line.starts_with(b"from ") {
        return true;
    }
    // Inside `from m import (`: the nearest earlier `(` is that import's, with no
    // `)` between them.
    let before = &text[..line_start];
    let Some(open) = memchr::memrchr(b'(', before) else {
        return false;
    };
    if memchr::memchr(b')', &before[open..]).is_some() {
        return false;
    }
    let open_line = memchr::memrchr(b'\n', &before[..open]).map_or(0, |i| i + 1);
    let head = before[open_line..open].trim_ascii();
    head.starts_with(b"from ") && head.ends_with(b"import")
}

/// What one file's text says, for a file linted without a project around it: Python
/// when `python`, else read as JavaScript.
pub fn of_text(text: &[u8], python: bool) -> ProjectTags {
    let syntax = if python {
        Syntax::Python
    } else {
        Syntax::JavaScript
    };
    let mut templates = Vec::new();
    if scan(text, syntax, &mut templates) || misused(text, &templates) {
        ProjectTags::Written
    } else {
        ProjectTags::NoneWritten
    }
}

/// Files larger than this are not read (generated or vendored code).
const MAX_SIZE: u64 = 1 << 20;

/// Directories not searched: hidden ones, tests, documentation, vendored and built
/// code, environments.
fn skipped_dir(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "__pycache__"
                | "node_modules"
                | "site-packages"
                | "venv"
                | "dist"
                | "build"
                | "vendor"
                | "static"
                | "_static"
                | "docs"
                | "doc"
                | "tests"
                | "test"
                | "testing"
                | "__tests__"
        )
}

/// Source files searched: Python and JavaScript/TypeScript, without tests and
/// minified code.
fn searched_file(name: &str) -> bool {
    let source = [
        ".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx",
    ]
    .iter()
    .any(|e| name.ends_with(e));
    source
        && !name.ends_with(".min.js")
        && !name.starts_with("test_")
        && !name.ends_with("_test.py")
        && name != "conftest.py"
        && !name.contains(".test.")
        && !name.contains(".spec.")
}

/// Whether a Python file is a copy of a Redis client library (a vendored `aioredis`):
/// it defines the client's reply callbacks and its `execute_command`. Its table of
/// commands names `CLUSTER KEYSLOT`, which says nothing of the project's keys.
fn client_library(text: &[u8], syntax: Syntax) -> bool {
    let has = |needle: &[u8]| text.windows(needle.len()).any(|w| w == needle);
    syntax == Syntax::Python && has(b"RESPONSE_CALLBACKS") && has(b"def execute_command(")
}

/// Searches the project under `root` (canonical). Past the walk's bounds
/// ([`crate::project::walk_project`]) the project counts as one that writes tags:
/// nothing is assumed.
pub fn of_project(root: &Path) -> ProjectTags {
    let read = |path: &Path, name: &str| {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_SIZE) {
            return None;
        }
        let syntax = if name.ends_with(".py") {
            Syntax::Python
        } else {
            Syntax::JavaScript
        };
        std::fs::read(path)
            .ok()
            .filter(|bytes| !client_library(bytes, syntax))
            .map(|bytes| (bytes, syntax))
    };
    let mut templates = Vec::new();
    let mut found = crate::project::walk_project(root, skipped_dir, searched_file, |path, name| {
        read(&path, name).is_some_and(|(bytes, syntax)| scan(&bytes, syntax, &mut templates))
    });
    // Key templates kept in constants count where some file uses one as it is.
    if found == Some(false) && !templates.is_empty() {
        found = crate::project::walk_project(root, skipped_dir, searched_file, |path, name| {
            read(&path, name).is_some_and(|(bytes, _)| misused(&bytes, &templates))
        });
    }
    match found {
        Some(false) => ProjectTags::NoneWritten,
        Some(true) | None => ProjectTags::Written,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test snippets that begin with `const` are JavaScript.
    fn syntax_of(t: &str) -> Syntax {
        if t.starts_with("const ") {
            Syntax::JavaScript
        } else {
            Syntax::Python
        }
    }

    #[test]
    fn text_that_writes_or_mentions_tags_is_found() {
        for t in [
            "p = f\"{{{name}}}\"",
            "p = \"{{{}}}\".format(name)",
            "const p = `{${name}}`;",
            "k = f\"{{user}}:{uid}\"",
            "k = \"{\" + name + \"}\"",
            "k = '{' + name + '}'",
            "k = prefix + \"{\" + name + \"}\"",
            "const k = '{' + name + '}:jobs';",
            "k = \"{%s}:x\" % name",
            "k = \"{%(name)s}\" % d",
            "# keys share a hash tag on a cluster",
            "# use a hash-tag",
            "slot = r.cluster_keyslot(k)",
            "except ResponseError as e:  # CROSSSLOT",
            "PREFIX = getattr(settings, \"PREFIX\", \"{app}\")",
            "K = 'jobs:{shard}:q'\nr.get(K)",
            "K = 'jobs:{shard}:q'\nk = K + ':x'",
            "K: str = 'jobs:{shard}:q'\nk = f'{K}:x'",
            "K = 'jobs:{shard}:q'\nfrom .keys import K\nq(key_format=K)",
            "K = 'jobs:{shard}:q'\nd = {\n    K: 1,\n}",
            "def prefix():\n    return \"{app}\"",
            "opts = {'prefix': '{bull}'}",
            "community = f\"{{{name}}}:x\"",
            "k = \"{\" + \":\".join(parts) + \"}\"",
            "K = dict(prefix='{app}', unit_name='x')",
            "const p = `{app}:${id}`;",
        ] {
            assert!(in_source(t.as_bytes(), syntax_of(t)), "{t}");
        }
    }

    #[test]
    fn placeholders_routes_and_social_hashtags_are_no_evidence() {
        for t in [
            "cmd = CMD.format(service=\"{service}\", cmd=\"{cmd}\")",
            "url = template.replace(\"{uri}\", uri)",
            "href = f\"https://x/.well-known/webfinger?resource=acct={{uri}}\"",
            "v = \"{{resolve:ssm:/app/key}}\"",
            "name = \"{basename}-detail\"",
            "rows = self.find(q, item_format=\"{_id}\")",
            "show(fmt='{name}')",
            "# a post's hashtags are listed under it",
            "class Hashtag(models.Model):",
        ] {
            assert!(!in_source(t.as_bytes(), Syntax::Python), "{t}");
        }
        for t in [
            "k = \"{service}:jobs\"\nr.get(k)",
            "k = name.format(service=\"{app}\")",
            "q = Queue(prefix=\"{app}\")",
            "# a hashtag co-locates these keys in one Redis Cluster slot",
        ] {
            assert!(in_source(t.as_bytes(), Syntax::Python), "{t}");
        }
    }

    #[test]
    fn decorator_templates_and_escaped_text_are_no_evidence() {
        for t in [
            "@mc_link_id_name('{zsite_id}')\ndef link_id_name_by_zsite_id(zsite_id):\n    pass\n",
            "@cached(\"user:{user_id}:{kind}\")\n@other\nasync def load(self, user_id, kind=1):\n    pass\n",
            // Text with escaped line breaks is no key (a wiki's code block).
            "s = '\\n{{{\\r%s\\r}}}\\n' % code\n",
            // A run of braces alone is a markup's delimiter.
            "s = txt_map('{{{', '}}}', xml)\n",
            "    @mc_htm('{self.id}')\n    def htm(self):\n        pass\n",
            "    @memo('{a}')\n    def f(\n        self,\n        *a,\n    ):\n        pass\n",
        ] {
            assert!(!in_source(t.as_bytes(), Syntax::Python), "{t}");
        }
        for t in [
            // A name that is no parameter may be a tag written as it is.
            "@mc('{app}:user')\ndef f(user_id):\n    pass\n",
            // Not a decorator's argument.
            "k = mc('{zsite_id}')\ndef f(zsite_id):\n    pass\n",
            // No function follows.
            "@mc('{zsite_id}')\nclass C:\n    pass\n",
        ] {
            assert!(in_source(t.as_bytes(), Syntax::Python), "{t}");
        }
    }

    #[test]
    fn a_copy_of_a_client_library_is_no_evidence() {
        let lib = b"class Redis:\n    RESPONSE_CALLBACKS = {'CLUSTER KEYSLOT': int}\n    def execute_command(self, *args):\n        pass\n";
        assert!(client_library(lib, Syntax::Python));
        assert!(in_source(lib, Syntax::Python));
        let app = b"slot = r.execute_command('CLUSTER KEYSLOT', key)\n";
        assert!(!client_library(app, Syntax::Python));
    }

    #[test]
    fn ordinary_code_writes_no_tag() {
        for t in [
            "k = f\"user:{uid}:profile\"",
            "k = \"{}:{}\".format(a, b)",
            "k = \"%s:%s\" % (a, b)",
            "d = {\"a\": 1}",
            "msg = f\"{name!r} is not set\"",
            "const k = `${prefix}:${id}`;",
            "k = \"{name}:jobs\".format(name=n)",
            "k = f\"{name}:jobs\"",
            "K = '{0}.{1}.messages'",
            "K = 'jobs:{shard}:q'  # the queue\nr.get(K.format(shard=s))",
            "class Q:\n    key = 'q:{name}:jobs'\n    def k(self):\n        return self.key.format(name=self.n)",
            "from .keys import (\n    A,\n    K,\n)\n__all__ = ['K']\n# K is formatted\nK = 'jobs:{shard}:q'\nx = K.format_map(d)",
            "raise KeyError(f\"Task '{task_func}' is not registered\")",
            "path='/v2/queues/{queue_name}/messages'",
            "s = f\"\"\"local prefix = \"{self.ns}\"\n\"\"\"",
            "def f():\n    \"\"\"Returns '{project}.{queue}' keys.\"\"\"",
            "# the '{app}' default\nx = 1",
            "const re = /[{]/; const k = `q:${id}`;",
            "const lua = `return {msg[1], msg[2]}`;",
            "s = f\"\"\"return {{msg[1], n}}\"\"\"",
            "if text.startswith((\"{\", \"[\")):\n    pass",
            "if s[0] == '{' or s.endswith('}'):\n    pass",
            "const isJson = s.startsWith('{');",
            "log.debug('Calling f(func={%s}, delay={%s})', a, b)",
            "p = f'**/*.{{{\",\".join(exts)}}}*'",
            "m = \"{{cookiecutter.package_manager}}\"",
            "p = 'tpl/{{cookiecutter.project_name}}/Dockerfile'",
            "c = meter.create_counter(\"redis.commands\", unit=\"{command}\")",
            "h = dict(name=\"x\", unit='{connection}/s')",
            "spec = {\"unit\": \"{request}\"}",
            "line = f\"app_status{{{labels}}} {value}\"",
            "v = value.replace(f\"${{{name}}}\", env)",
            "n = f\"{node_id}{{{{{text}}}}}\"",
            "s = \"{\" + \", \".join(str(p) for p in items) + \"}\"",
        ] {
            assert!(!in_source(t.as_bytes(), syntax_of(t)), "{t}");
        }
    }

    #[test]
    fn a_project_is_searched_without_its_tests() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let w = |p: &str, t: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w("app/keys.py", "K = f\"q:{name}\"\n");
        w("tests/test_cluster.py", "K = \"{q}:x\"\nT = f\"{{{n}}}\"\n");
        w("app/test_keys.py", "T = f\"{{{n}}}\"\n");
        w("node_modules/x/index.js", "const t = `{${n}}`;\n");
        assert_eq!(of_project(root), ProjectTags::NoneWritten);
        w(
            "app/cluster.py",
            "def prefix(n):\n    return f\"{{{n}}}\"\n",
        );
        assert_eq!(of_project(root), ProjectTags::Written);
    }
}
