//! Key templates: what a key expression may evaluate to, and the hash-tag rule applied
//! to it.
//!
//! A template is a sequence of literal bytes and *holes* (values the linter cannot
//! know statically: `uid`, `ARGV[1]`, `KEYS[1]`). The hash-tag rule is applied to the
//! template the way the server applies it to bytes, under one assumption that the
//! frontends make explicit through [`HoleKind`]:
//!
//! - a [`HoleKind::Fragment`] hole is a piece of a name (an id, a date) and contains no
//!   `{` or `}`;
//! - a [`HoleKind::Opaque`] hole may be anything, including a whole key or a prefix that
//!   carries its own hash tag (`KEYS[1]`, a `prefix` parameter). While the tag is not
//!   settled, meeting an opaque hole makes the result [`HashInput::Unknown`].
//!
//! Two templates are *proven* in one slot when their hash inputs are identical (same
//! bytes, same holes bound to the same value), *proven different* when both slots are
//! concrete and differ, and *likely different* when both are known but differ
//! symbolically. Everything else is [`Verdict::Unknown`], and unknown stays silent.

use crate::Span;
use std::fmt::Write as _;

pub use crate::frontend::{Lang, Piece};

/// Where the bytes of a literal part came from in the source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceMap {
    /// Not known (the literal came from a constant defined elsewhere, say).
    None,
    /// Byte `i` of the literal is at source offset `start + i` (no escapes).
    Contiguous(usize),
    /// Byte `i` of the literal is at source offset `offsets[i]`; the last entry is the
    /// offset just past the last byte, so `offsets.len() == bytes.len() + 1`.
    PerByte(Vec<usize>),
}

/// Literal bytes of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lit {
    /// The bytes, after unescaping.
    pub bytes: Vec<u8>,
    /// Where they are in the source.
    pub map: SourceMap,
}

/// How much the linter may assume about a hole's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoleKind {
    /// A piece of a name: assumed to contain no `{` or `}`.
    Fragment,
    /// Anything, possibly a key or a prefix that carries its own hash tag.
    Opaque,
}

/// The binding of a *fresh* value: one the code generates at random where it is
/// written (a uuid, a random hex token). Its text holds no `{` or `}`, and it equals
/// no other value: a key hashed from it lands in a random slot. `id` tells apart the
/// places that generate one (two calls are two values).
pub fn fresh_binding(id: &str) -> String {
    format!("{FRESH}{id}")
}

/// Whether a binding is that of a fresh value (see [`fresh_binding`]).
pub fn is_fresh_binding(binding: &str) -> bool {
    binding.starts_with(FRESH)
}

const FRESH: &str = "fresh:";

/// The binding of a value the code that makes an object configures, and that is a
/// fresh value when it configures nothing: an object's key set in its constructor
/// from a parameter whose fallback is random (`self.key = key or uuid4().hex`). Its
/// slot is unknown (the caller may give a key with a hash tag), but by default every
/// object has a key of its own in a random slot. `id` is the value's identity; the
/// marker survives qualifiers put in front of the binding (another object's key).
pub fn fresh_default_binding(id: &str) -> String {
    format!("{FRESH_DEFAULT}{id}")
}

/// Whether a binding is that of a value with a fresh default (see
/// [`fresh_default_binding`]), also behind a qualifier.
pub fn has_fresh_default(binding: &str) -> bool {
    binding.contains(FRESH_DEFAULT)
}

const FRESH_DEFAULT: &str = "\u{2}fresh-default\u{2}";

/// The binding of a *brace-free* value: one the linter cannot know but whose text
/// never holds `{` or `}` (a Python class's name, an identifier). Unlike a fresh
/// value it may equal other values, and two holes with equal bindings hold the same
/// value; wherever it is in a key, it carries no hash tag of its own. The marker
/// survives qualifiers put in front of the binding.
pub fn brace_free_binding(id: &str) -> String {
    format!("{BRACE_FREE}{id}")
}

/// Whether a binding is that of a brace-free value (see [`brace_free_binding`]), also
/// behind a qualifier.
pub fn is_brace_free_binding(binding: &str) -> bool {
    binding.contains(BRACE_FREE)
}

const BRACE_FREE: &str = "\u{2}brace-free\u{2}";

/// The binding of the part of a *matched* key that a glob pattern's wildcards stand
/// for (`KEYS *flavors`, `SCAN MATCH job:*`): the keys it stands for are distinct
/// keys of the database, so a family of them varies there even when the wildcard
/// begins the key. The marker survives qualifiers put in front of the binding.
pub fn matched_binding(id: &str) -> String {
    format!("{MATCHED}{id}")
}

/// Whether a binding is that of a matched key's wildcard part (see
/// [`matched_binding`]), also behind a qualifier.
pub fn is_matched_binding(binding: &str) -> bool {
    binding.contains(MATCHED)
}

const MATCHED: &str = "\u{2}matched\u{2}";

/// `binding` without the markers that say what kind of value it is (brace-free, fresh
/// default, matched): what is left names where the value comes from, for a frontend
/// that gives its own meaning to the marker's delimiter.
pub fn without_value_markers(binding: &str) -> std::borrow::Cow<'_, str> {
    if is_brace_free_binding(binding) || has_fresh_default(binding) || is_matched_binding(binding) {
        std::borrow::Cow::Owned(
            binding
                .replace(BRACE_FREE, "")
                .replace(FRESH_DEFAULT, "")
                .replace(MATCHED, ""),
        )
    } else {
        std::borrow::Cow::Borrowed(binding)
    }
}

/// A value the linter cannot know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    /// How the user wrote it (`uid`, `ARGV[1]`), for messages.
    pub label: String,
    /// Identity of the runtime value: two holes with equal bindings in one atomic unit
    /// hold the same value.
    pub binding: String,
    /// What may be assumed about it.
    pub kind: HoleKind,
    /// Where it is in the source, if known.
    pub span: Option<Span>,
}

/// A part of a key template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Known bytes.
    Lit(Lit),
    /// An unknown value.
    Hole(Hole),
}

/// What a key expression may evaluate to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyTemplate {
    /// The parts, in order.
    pub parts: Vec<Part>,
}

/// One element of a flattened template: a byte with its source offset, or a hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'a> {
    /// A literal byte and where it is in the source, if known.
    Byte(u8, Option<usize>),
    /// A hole.
    Hole(&'a Hole),
}

/// A position in a template: index into its flattened items.
pub type Pos = usize;

/// How the hash-tag rule resolves on a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagOutcome {
    /// The items strictly between `open` and `close` are hashed.
    Tag {
        /// The `{`.
        open: Pos,
        /// The `}`.
        close: Pos,
    },
    /// No `{`: the whole key is hashed.
    WholeNoOpen,
    /// A `{` with no `}` after it: the whole key is hashed.
    WholeUnclosed {
        /// The `{`.
        open: Pos,
    },
    /// `{}`: the whole key is hashed.
    WholeEmptyTag {
        /// The `{`.
        open: Pos,
    },
    /// An opaque hole leaves the outcome open.
    Unknown,
}

/// Facts about the hash tag of a template, with positions for diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFacts {
    /// How the rule resolved.
    pub outcome: TagOutcome,
    /// A `{` inside the tag (`{{bar}}`).
    pub nested_open: Option<Pos>,
    /// A later `{…}` pair that is ordinary bytes: positions of its `{` and `}`.
    pub ignored_pair: Option<(Pos, Pos)>,
}

/// One part of a symbolic hash input.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SymPart {
    /// Known bytes.
    Bytes(Vec<u8>),
    /// A hole: its binding and its label.
    Hole {
        /// Identity of the value.
        binding: String,
        /// How the user wrote it.
        label: String,
    },
}

/// The bytes the server will hash, as far as they are known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HashInput {
    /// Fully known: the slot is known.
    Concrete {
        /// The hashed bytes.
        bytes: Vec<u8>,
        /// Their slot.
        slot: u16,
        /// True when the whole key is hashed (no usable tag).
        whole: bool,
    },
    /// Known up to holes.
    Symbolic {
        /// The hashed parts; adjacent bytes are merged, empty ones dropped.
        parts: Vec<SymPart>,
        /// True when the whole key is hashed (no usable tag).
        whole: bool,
    },
    /// Cannot be known.
    Unknown,
}

/// Whether two keys share a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Proven to share a slot.
    Same,
    /// Proven to be in different slots.
    Different,
    /// Both known, symbolically different: almost certainly different slots.
    LikelyDifferent,
    /// Cannot tell.
    Unknown,
}

impl KeyTemplate {
    /// A template of literal bytes.
    pub fn literal(bytes: impl Into<Vec<u8>>, map: SourceMap) -> KeyTemplate {
        KeyTemplate {
            parts: vec![Part::Lit(Lit {
                bytes: bytes.into(),
                map,
            })],
        }
    }

    /// The template's bytes when it has no holes.
    pub fn as_literal(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => out.extend_from_slice(&l.bytes),
                Part::Hole(_) => return None,
            }
        }
        Some(out)
    }

    /// What the template evaluates to, independent of where it is written: merged
    /// bytes and holes. Equal for two templates exactly when [`Self::same_text`].
    pub fn text_parts(&self) -> Vec<SymPart> {
        let mut out: Vec<SymPart> = Vec::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => match out.last_mut() {
                    Some(SymPart::Bytes(b)) => b.extend_from_slice(&l.bytes),
                    _ => out.push(SymPart::Bytes(l.bytes.clone())),
                },
                Part::Hole(h) => out.push(SymPart::Hole {
                    binding: h.binding.clone(),
                    label: h.label.clone(),
                }),
            }
        }
        out.retain(|p| !matches!(p, SymPart::Bytes(b) if b.is_empty()));
        out
    }

    /// True when both templates evaluate to the same text: same bytes, same holes,
    /// wherever they are written.
    pub fn same_text(&self, other: &KeyTemplate) -> bool {
        self.text_parts() == other.text_parts()
    }

    /// True when the template has at least one hole.
    pub fn has_holes(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Hole(_)))
    }

    /// The template flattened to bytes (with source offsets) and holes; a [`Pos`]
    /// indexes this sequence.
    pub fn items(&self) -> Vec<Item<'_>> {
        let mut items = Vec::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => {
                    for (i, &b) in l.bytes.iter().enumerate() {
                        let off = match &l.map {
                            SourceMap::None => None,
                            SourceMap::Contiguous(s) => Some(s + i),
                            SourceMap::PerByte(v) => v.get(i).copied(),
                        };
                        items.push(Item::Byte(b, off));
                    }
                }
                Part::Hole(h) => items.push(Item::Hole(h)),
            }
        }
        items
    }

    /// Applies the hash-tag rule to the template.
    pub fn tag_facts(&self) -> TagFacts {
        tag_facts(&self.items())
    }

    /// The source span of the items `from..=to`, when every byte there has a known
    /// source offset (holes contribute their span).
    pub fn span_of(&self, from: Pos, to: Pos) -> Option<Span> {
        let items = self.items();
        let start = item_span(items.get(from)?)?;
        let end = item_span(items.get(to)?)?;
        (start.start <= end.end).then_some(start.start..end.end)
    }

    /// The bytes the server will hash, as far as they can be known.
    pub fn hash_input(&self) -> HashInput {
        let items = self.items();
        let facts = tag_facts(&items);
        let (range, whole) = match facts.outcome {
            TagOutcome::Unknown => return HashInput::Unknown,
            TagOutcome::Tag { open, close } => (open + 1..close, false),
            _ => {
                // Hashed whole: an opaque hole anywhere may carry a tag of its own.
                if items
                    .iter()
                    .any(|i| matches!(i, Item::Hole(h) if h.kind == HoleKind::Opaque))
                {
                    return HashInput::Unknown;
                }
                (0..items.len(), true)
            }
        };
        let mut parts: Vec<SymPart> = Vec::new();
        for item in &items[range] {
            match item {
                Item::Byte(b, _) => match parts.last_mut() {
                    Some(SymPart::Bytes(v)) => v.push(*b),
                    _ => parts.push(SymPart::Bytes(vec![*b])),
                },
                Item::Hole(h) => parts.push(SymPart::Hole {
                    binding: h.binding.clone(),
                    label: h.label.clone(),
                }),
            }
        }
        match parts.as_slice() {
            [] => HashInput::Concrete {
                bytes: Vec::new(),
                slot: 0,
                whole,
            },
            [SymPart::Bytes(b)] => HashInput::Concrete {
                slot: keyslot::slot_of_hashed(b),
                bytes: b.clone(),
                whole,
            },
            _ => HashInput::Symbolic { parts, whole },
        }
    }

    /// The hash input when every opaque hole is assumed to carry no `{`: a prefix the
    /// code cannot see (a configured namespace, a name given by the caller) taken as
    /// untagged. With the labels of those opaque holes; `None` when there is none, or
    /// when the key begins with an opaque hole that is itself a varying part
    /// (`varying`: bindings): a key the caller chose, passed through unchanged, may
    /// carry any tag. A varying opaque hole after other parts (`<ns>:<key>`, a key the
    /// code builds around the caller's) is assumed untagged like a prefix.
    pub fn hash_input_if_untagged(&self, varying: &[String]) -> Option<(HashInput, Vec<String>)> {
        self.hash_input_if_untagged_led(varying, false)
    }

    /// [`Self::hash_input_if_untagged`], and with `lead`, a varying opaque hole that
    /// begins the key is assumed untagged too when literal text follows it
    /// (`f"{asn}|clean_set"`): what a project that writes no hash tag anywhere builds
    /// around a value is no key of the caller's. A key that is the value alone stays
    /// unknown.
    pub fn hash_input_if_untagged_led(
        &self,
        varying: &[String],
        lead: bool,
    ) -> Option<(HashInput, Vec<String>)> {
        let mut assumed: Vec<String> = Vec::new();
        let mut t = self.clone();
        let mut first = true;
        let text_after = |i: usize| {
            self.parts[i + 1..]
                .iter()
                .any(|p| matches!(p, Part::Lit(l) if !l.bytes.is_empty()))
        };
        for (i, p) in t.parts.iter_mut().enumerate() {
            let at_start = first;
            if !matches!(p, Part::Lit(l) if l.bytes.is_empty()) {
                first = false;
            }
            if let Part::Hole(h) = p {
                if h.kind == HoleKind::Opaque {
                    // A varying value that begins the key may be a whole key of the
                    // caller's, with its own tag; the keys a pattern matches are
                    // distinct keys, whatever begins them.
                    if at_start
                        && varying.contains(&h.binding)
                        && !is_matched_binding(&h.binding)
                        && !(lead && text_after(i))
                    {
                        return None;
                    }
                    if !assumed.contains(&h.label) {
                        assumed.push(h.label.clone());
                    }
                    h.kind = HoleKind::Fragment;
                }
            }
        }
        if assumed.is_empty() {
            return None;
        }
        Some((t.hash_input(), assumed))
    }

    /// The template after its head: a hole whose binding is one of `bindings` (a
    /// client's prefix the code does not show, a value every key of a unit begins
    /// with), first in the template or, when the binding is one of `after_text`,
    /// after literal text with no `{` (`"q:" + name`). With the rest, the head's
    /// binding and the literal text before it. Without a `{` in that text or in the
    /// head, the hash tag of the key, if any, is in the rest.
    pub fn strip_leading_hole(
        &self,
        bindings: &[String],
        after_text: &[String],
    ) -> Option<(KeyTemplate, String, Vec<u8>)> {
        let mut lead: Vec<u8> = Vec::new();
        for (at, p) in self.parts.iter().enumerate() {
            match p {
                Part::Lit(l) if !l.bytes.contains(&b'{') => lead.extend_from_slice(&l.bytes),
                Part::Hole(h)
                    if bindings.contains(&h.binding)
                        && (lead.is_empty() || after_text.contains(&h.binding)) =>
                {
                    return Some((
                        KeyTemplate {
                            parts: self.parts[at + 1..].to_vec(),
                        },
                        h.binding.clone(),
                        lead,
                    ))
                }
                _ => return None,
            }
        }
        None
    }

    /// Source code that evaluates to this template, in the file's language, for a
    /// suggested rewrite; `None` when it cannot be written (holes in a redis-cli file).
    pub fn replacement(&self, lang: Lang) -> Option<String> {
        lang.print_replacement(self)
    }

    /// True when every literal byte and hole of the template is written inside `span`:
    /// the expression at `span` builds the whole key, so replacing it is safe.
    pub fn is_written_within(&self, span: &Span) -> bool {
        self.parts.iter().all(|p| match p {
            Part::Lit(l) => match &l.map {
                SourceMap::None => false,
                SourceMap::Contiguous(s) => *s >= span.start && s + l.bytes.len() <= span.end,
                SourceMap::PerByte(v) => v.iter().all(|o| span.contains(o) || *o == span.end),
            },
            Part::Hole(h) => h
                .span
                .as_ref()
                .is_some_and(|s| s.start >= span.start && s.end <= span.end),
        })
    }

    /// The template in the user's syntax: `"user:" .. ARGV[1]` (Lua),
    /// `f"user:{uid}"` (Python), `user:1000` (redis-cli).
    pub fn display(&self, lang: Lang) -> String {
        lang.print_key(&self.pieces())
    }

    /// The template as a key printer reads it.
    pub fn pieces(&self) -> Vec<Piece<'_>> {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Lit(l) => Piece::Bytes(&l.bytes),
                Part::Hole(h) => Piece::Hole(&h.label),
            })
            .collect()
    }
}

fn item_span(item: &Item<'_>) -> Option<Span> {
    match item {
        Item::Byte(_, Some(off)) => Some(*off..off + 1),
        Item::Byte(_, None) => None,
        Item::Hole(h) => h.span.clone(),
    }
}

fn is_byte(item: &Item<'_>, want: u8) -> bool {
    matches!(item, Item::Byte(b, _) if *b == want)
}

fn is_opaque(item: &Item<'_>) -> bool {
    matches!(item, Item::Hole(h) if h.kind == HoleKind::Opaque)
}

/// Where the first `want` byte is, from `from` on.
enum Found {
    At(Pos),
    /// There is none.
    Missing,
    /// An opaque hole comes first: it might hold one.
    Unsure,
}

fn find_byte(items: &[Item<'_>], from: Pos, want: u8) -> Found {
    for (i, item) in items.iter().enumerate().skip(from) {
        if is_opaque(item) {
            return Found::Unsure;
        }
        if is_byte(item, want) {
            return Found::At(i);
        }
    }
    Found::Missing
}

fn tag_facts(items: &[Item<'_>]) -> TagFacts {
    let only = |outcome| TagFacts {
        outcome,
        nested_open: None,
        ignored_pair: None,
    };
    let open = match find_byte(items, 0, b'{') {
        Found::At(i) => i,
        Found::Missing => return only(TagOutcome::WholeNoOpen),
        Found::Unsure => return only(TagOutcome::Unknown),
    };
    let close = match find_byte(items, open + 1, b'}') {
        Found::At(i) => i,
        Found::Missing => return only(TagOutcome::WholeUnclosed { open }),
        Found::Unsure => return only(TagOutcome::Unknown),
    };
    let (outcome, rest_from, nested_open) = if close == open + 1 {
        (TagOutcome::WholeEmptyTag { open }, close + 1, None)
    } else {
        let nested = (open + 1..close).find(|&i| is_byte(&items[i], b'{'));
        (TagOutcome::Tag { open, close }, close + 1, nested)
    };
    // A later `{…}` pair, when it is certain (no opaque hole could interfere).
    let mut ignored_pair = None;
    let mut later_open = None;
    for (i, item) in items.iter().enumerate().skip(rest_from) {
        if is_opaque(item) {
            break;
        }
        match later_open {
            None if is_byte(item, b'{') => later_open = Some(i),
            Some(o) if is_byte(item, b'}') => {
                ignored_pair = Some((o, i));
                break;
            }
            _ => {}
        }
    }
    TagFacts {
        outcome,
        nested_open,
        ignored_pair,
    }
}

/// Whether two hash inputs share a slot.
pub fn compare(a: &HashInput, b: &HashInput) -> Verdict {
    match (a, b) {
        (HashInput::Unknown, _) | (_, HashInput::Unknown) => Verdict::Unknown,
        (HashInput::Concrete { slot: x, .. }, HashInput::Concrete { slot: y, .. }) => {
            if x == y {
                Verdict::Same
            } else {
                Verdict::Different
            }
        }
        (HashInput::Symbolic { parts: p, .. }, HashInput::Symbolic { parts: q, .. }) if p == q => {
            Verdict::Same
        }
        _ => Verdict::LikelyDifferent,
    }
}

/// `bytes` as the body of a quoted string: `special` writes the escape of a character
/// that needs one and says whether it did (the others are written as they are), `byte`
/// the escape of a byte that is not UTF-8.
pub fn escaped(
    bytes: &[u8],
    special: impl Fn(&mut String, char) -> bool,
    byte: fn(&mut String, u8),
) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if !special(&mut out, c) {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            byte(&mut out, b);
        }
    }
    out
}

/// Writes the escape of a backslash, newline, carriage return or tab, which Lua and
/// the messages' quoted keys spell alike, and says whether `c` was one.
pub fn backslash_escape(out: &mut String, c: char) -> bool {
    let escaped = match c {
        '\\' => "\\\\",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        _ => return false,
    };
    out.push_str(escaped);
    true
}

/// Writes each UTF-8 byte of `c` with `byte`.
pub fn each_byte(out: &mut String, c: char, byte: fn(&mut String, u8)) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        byte(out, b);
    }
}

/// Writes `b` as `\\xNN`.
pub fn hex_byte(out: &mut String, b: u8) {
    let _ = write!(out, "\\x{b:02x}");
}

/// Writes `b` as `\\ddd` (decimal).
pub fn dec_byte(out: &mut String, b: u8) {
    let _ = write!(out, "\\{b:03}");
}

/// Printable form of key bytes: UTF-8 text as is, other bytes as `\xNN`, quotes and
/// backslashes escaped.
pub fn escape(bytes: &[u8], quote: char) -> String {
    escaped(
        bytes,
        |out, c| {
            match c {
                _ if backslash_escape(out, c) => {}
                c if c == quote => {
                    out.push('\\');
                    out.push(c);
                }
                c if c.is_control() => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                _ => return false,
            }
            true
        },
        hex_byte,
    )
}

impl HashInput {
    /// How the hash input reads in a message: `slot 11326 (hashes "1000")`,
    /// `hashed whole: "user:" .. ARGV[1]`, `hashes "user:" .. uid`.
    pub fn describe(&self, lang: Lang) -> String {
        match self {
            HashInput::Concrete { bytes, slot, whole } => {
                if *whole {
                    format!("slot {slot}")
                } else {
                    format!("slot {slot} (hashes \"{}\")", escape(bytes, '"'))
                }
            }
            HashInput::Symbolic { parts, whole } => {
                let pieces: Vec<Piece<'_>> = parts
                    .iter()
                    .map(|p| match p {
                        SymPart::Bytes(b) => Piece::Bytes(b),
                        SymPart::Hole { label, .. } => Piece::Hole(label),
                    })
                    .collect();
                let shown = lang.print_hash_input(&pieces);
                if *whole {
                    format!("hashed whole: {shown}")
                } else {
                    format!("hashes {shown}")
                }
            }
            HashInput::Unknown => "slot unknown".to_string(),
        }
    }

    /// The concrete slot, if known.
    pub fn slot(&self) -> Option<u16> {
        match self {
            HashInput::Concrete { slot, .. } => Some(*slot),
            _ => None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::frontend::testing::{LUA_LANG, PY};

    /// A literal part without source positions.
    pub(crate) fn lit(s: &str) -> Part {
        Part::Lit(Lit {
            bytes: s.as_bytes().to_vec(),
            map: SourceMap::None,
        })
    }

    /// A hole whose label and binding are `name`.
    pub(crate) fn hole(name: &str, kind: HoleKind) -> Part {
        Part::Hole(Hole {
            label: name.into(),
            binding: name.into(),
            kind,
            span: None,
        })
    }

    fn t(parts: Vec<Part>) -> KeyTemplate {
        KeyTemplate { parts }
    }

    #[test]
    fn literal_templates_agree_with_the_slot_engine() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let alphabet = [b'{', b'}', b'a', b':', 0xff];
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 10) as usize;
            let key: Vec<u8> = (0..len)
                .map(|i| alphabet[((state >> (i * 3)) % 5) as usize])
                .collect();
            // Split the key into two literal parts at a varying point.
            let cut = (state as usize >> 40) % (len + 1);
            let tpl = t(vec![
                Part::Lit(Lit {
                    bytes: key[..cut].to_vec(),
                    map: SourceMap::None,
                }),
                Part::Lit(Lit {
                    bytes: key[cut..].to_vec(),
                    map: SourceMap::None,
                }),
            ]);
            let a = keyslot::analyze(&key);
            assert_eq!(tpl.hash_input().slot(), Some(a.slot), "{key:?}");
            let facts = tpl.tag_facts();
            assert_eq!(
                facts.nested_open.is_some(),
                a.surprises
                    .iter()
                    .any(|s| matches!(s, keyslot::Surprise::NestedOpen { .. }))
            );
            assert_eq!(
                facts.ignored_pair.is_some(),
                a.surprises
                    .iter()
                    .any(|s| matches!(s, keyslot::Surprise::IgnoredTag { .. }))
            );
        }
    }

    #[test]
    fn a_literal_tag_makes_holes_irrelevant() {
        let a = t(vec![lit("{user:1000}:"), hole("x", HoleKind::Opaque)]);
        assert_eq!(a.hash_input().slot(), Some(keyslot::key_slot(b"user:1000")));
    }

    #[test]
    fn opaque_prefix_is_unknown() {
        let a = t(vec![hole("ARGV[1]", HoleKind::Opaque), lit(":jobs")]);
        assert_eq!(a.hash_input(), HashInput::Unknown);
        assert_eq!(a.tag_facts().outcome, TagOutcome::Unknown);
    }

    #[test]
    fn a_varying_key_is_assumed_untagged_only_inside_a_built_key() {
        let varying = vec!["key".to_string()];
        // The caller's key passed through: any tag, unknown.
        let whole = t(vec![hole("key", HoleKind::Opaque)]);
        assert_eq!(whole.hash_input_if_untagged(&varying), None);
        let suffixed = t(vec![hole("key", HoleKind::Opaque), lit(":meta")]);
        assert_eq!(suffixed.hash_input_if_untagged(&varying), None);
        // `<ns>:<key>`: the namespace and the key are both assumed untagged.
        let built = t(vec![
            hole("ns", HoleKind::Opaque),
            lit(":"),
            hole("key", HoleKind::Opaque),
        ]);
        let (input, assumed) = built.hash_input_if_untagged(&varying).unwrap();
        assert_eq!(assumed, vec!["ns".to_string(), "key".to_string()]);
        assert!(matches!(input, HashInput::Symbolic { .. }));
        let literal_ns = t(vec![lit("cache:"), hole("key", HoleKind::Opaque)]);
        let (_, assumed) = literal_ns.hash_input_if_untagged(&varying).unwrap();
        assert_eq!(assumed, vec!["key".to_string()]);
    }

    #[test]
    fn a_leading_varying_value_is_assumed_untagged_only_when_led_and_built_on() {
        let varying = vec!["asn".to_string()];
        let suffixed = t(vec![hole("asn", HoleKind::Opaque), lit("|clean_set")]);
        assert_eq!(suffixed.hash_input_if_untagged_led(&varying, false), None);
        let (input, assumed) = suffixed.hash_input_if_untagged_led(&varying, true).unwrap();
        assert_eq!(assumed, vec!["asn".to_string()]);
        assert!(matches!(input, HashInput::Symbolic { .. }));
        // The value alone is the caller's key, led or not.
        let whole = t(vec![hole("asn", HoleKind::Opaque)]);
        assert_eq!(whole.hash_input_if_untagged_led(&varying, true), None);
        let empty_tail = t(vec![hole("asn", HoleKind::Opaque), lit("")]);
        assert_eq!(empty_tail.hash_input_if_untagged_led(&varying, true), None);
    }

    #[test]
    fn verdicts() {
        let uid = || hole("uid", HoleKind::Fragment);
        let cart = t(vec![lit("user:"), uid(), lit(":cart")]);
        let profile = t(vec![lit("user:"), uid(), lit(":profile")]);
        assert_eq!(
            compare(&cart.hash_input(), &profile.hash_input()),
            Verdict::LikelyDifferent
        );
        let tagged_cart = t(vec![lit("{user:"), uid(), lit("}:cart")]);
        let tagged_profile = t(vec![lit("{user:"), uid(), lit("}:profile")]);
        assert_eq!(
            compare(&tagged_cart.hash_input(), &tagged_profile.hash_input()),
            Verdict::Same
        );
        assert_eq!(
            tagged_cart.hash_input().describe(LUA_LANG),
            "hashes \"user:\" .. uid"
        );
        assert_eq!(
            cart.hash_input().describe(LUA_LANG),
            "hashed whole: \"user:\" .. uid .. \":cart\""
        );
        assert_eq!(tagged_cart.display(PY), "f\"{{user:{uid}}}:cart\"");
        let key = t(vec![hole("KEYS[1]", HoleKind::Opaque)]);
        assert_eq!(
            compare(&key.hash_input(), &cart.hash_input()),
            Verdict::Unknown
        );
        let a = KeyTemplate::literal("user:1000:profile", SourceMap::None);
        let b = KeyTemplate::literal("user:1000:cart", SourceMap::None);
        assert_eq!(
            compare(&a.hash_input(), &b.hash_input()),
            Verdict::Different
        );
    }

    #[test]
    fn unclosed_and_empty_with_holes() {
        let a = t(vec![lit("user:{"), hole("id", HoleKind::Fragment)]);
        assert!(matches!(
            a.tag_facts().outcome,
            TagOutcome::WholeUnclosed { .. }
        ));
        let b = t(vec![lit("x{}"), hole("id", HoleKind::Fragment), lit("{y}")]);
        let f = b.tag_facts();
        assert!(matches!(f.outcome, TagOutcome::WholeEmptyTag { open: 1 }));
        assert!(f.ignored_pair.is_some());
    }

    #[test]
    fn escape_shows_bytes() {
        assert_eq!(escape(b"a\"b\xff\x00", '"'), "a\\\"b\\xff\\x00");
        assert_eq!(
            escape("\\\n\t`\u{85}é".as_bytes(), '`'),
            "\\\\\\n\\t\\`\\x85é"
        );
    }
}
