//! `broad-hash-tag`: a hash tag that pins a whole key family to one slot.
//!
//! A slot is the unit of resharding: all of its keys live on one node and are served
//! by one CPU, and a slot is never split. A tag is meant to co-locate the few keys one
//! operation needs (a user's cart and profile); a tag that every key of a family
//! shares turns the family into one hot, unsplittable slot. Two shapes are reported,
//! on key templates of any language:
//!
//! - a constant tag on a family whose other parts vary: `"{global}:session:" .. id`
//!   (a constant with a digit, such as `{user:1000}`, names one entity and is left
//!   alone);
//! - a tag made of a low-cardinality identity ([`Settings::broad_identities`]: tenant,
//!   env, region, date, …) on a varying family: `{tenant:acme}:user:<id>`, or
//!   `"{" .. tenant .. "}:user:" .. uid` where the hole's name is such an identity.
//!
//! The tag is read structurally from the template, so an opaque hole between the
//! braces still counts by its name: whatever it holds, the tag is made of it.

use super::Context;
use crate::diagnostic::{Finding, Label, Severity};
use crate::rule::{Rule, RuleMeta};
use crate::template::{escape, Hole, HoleKind, KeyTemplate, Lit, Part, SourceMap};
use crate::Span;

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK105",
    name: "broad-hash-tag",
    severity: Severity::Warning,
    summary: "a hash tag pins a whole key family to one hot, unsplittable slot",
};

/// The rules' options. The binary fills them from configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Low-cardinality identities that make a hash tag broad (`tenant`, `env`, …).
    pub broad_identities: Vec<String>,
    /// Whether `cross-slot-likely` may take the values the code does not show as
    /// carrying no hash tag when the project writes none
    /// ([`crate::model::ProjectTags::NoneWritten`]). On by default.
    pub untagged_values: bool,
    /// Whether `cross-slot-unknown`, off by default, is selected: only then are the
    /// units it lists looked for.
    pub report_unknown: bool,
}

/// The identities that make a tag broad when no configuration says otherwise.
pub const DEFAULT_BROAD_IDENTITIES: &[&str] = &[
    "global",
    "tenant",
    "org",
    "organization",
    "account",
    "env",
    "environment",
    "region",
    "zone",
    "dc",
    "datacenter",
    "cluster",
    "date",
    "day",
    "month",
    "year",
    "hour",
    "shard",
    "app",
    "service",
    "all",
];

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            broad_identities: DEFAULT_BROAD_IDENTITIES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            untagged_values: true,
            report_unknown: false,
        }
    }
}

/// Most secondary labels on one finding.
const MAX_LABELS: usize = 5;

use crate::template::Item as Tok;

fn tokens(t: &KeyTemplate) -> Vec<Tok<'_>> {
    t.items()
}

/// Why a tag is broad.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Broad {
    /// A constant with no identity in it.
    Constant(String),
    /// A low-cardinality identity (the word that matched).
    Identity(String),
}

/// The tag of a key, read structurally: positions of `{` and `}` in the tokens.
fn tag_range(toks: &[Tok<'_>]) -> Option<(usize, usize)> {
    let mut open = None;
    for (i, t) in toks.iter().enumerate() {
        match t {
            // An opaque hole before the first `{` may hold a `{` of its own.
            Tok::Hole(h) if h.kind == HoleKind::Opaque => return None,
            Tok::Byte(b'{', _) => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    let close = (open + 1..toks.len()).find(|&i| matches!(toks[i], Tok::Byte(b'}', _)))?;
    (close > open + 1).then_some((open, close))
}

/// Lower-case words of a name or of tag bytes: split at anything not alphanumeric and
/// at camelCase boundaries.
fn words(s: &str) -> Vec<String> {
    crate::template_builder::words(s, |c| !c.is_alphanumeric())
}

/// True for `2024-01-15`, `2024-01`, `2024/01/15`.
fn is_date(word: &str) -> bool {
    let digits: String = word.chars().filter(|c| c.is_ascii_digit()).collect();
    let seps_ok = word
        .chars()
        .all(|c| c.is_ascii_digit() || "-/.".contains(c));
    if !seps_ok || !(digits.len() == 6 || digits.len() == 8) {
        return false;
    }
    // Without separators eight digits are as likely an id as a date.
    if !word.contains(['-', '/', '.']) {
        return false;
    }
    let year_ok = digits.starts_with("19") || digits.starts_with("20");
    let month: u32 = digits[4..6].parse().unwrap_or(0);
    year_ok && (1..=12).contains(&month)
}

fn identity_in(text: &str, settings: &Settings) -> Option<String> {
    words(text).into_iter().find(|w| {
        settings
            .broad_identities
            .iter()
            .any(|i| i.eq_ignore_ascii_case(w))
    })
}

fn classify(toks: &[Tok<'_>], open: usize, close: usize, settings: &Settings) -> Option<Broad> {
    let inner = &toks[open + 1..close];
    let holes: Vec<&Hole> = inner
        .iter()
        .filter_map(|t| match t {
            Tok::Hole(h) => Some(*h),
            Tok::Byte(..) => None,
        })
        .collect();
    let bytes: Vec<u8> = inner
        .iter()
        .filter_map(|t| match t {
            Tok::Byte(b, _) => Some(*b),
            Tok::Hole(_) => None,
        })
        .collect();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if holes.is_empty() {
        if !bytes.iter().any(|b| b.is_ascii_digit()) {
            return Some(Broad::Constant(text));
        }
        // A number names one entity (`user:1000`), unless it is a tenant, a date, ….
        if let Some(w) = identity_in(&text, settings) {
            return Some(Broad::Identity(w));
        }
        if text.split([':', '_', ' ']).any(is_date) {
            return Some(Broad::Identity("date".into()));
        }
        return None;
    }
    // Every value in the tag must be a broad identity; one real id makes it narrow.
    let mut found = None;
    for h in holes {
        let w = identity_in(&h.label, settings)?;
        found.get_or_insert(w);
    }
    found.map(Broad::Identity)
}

/// The key with the tag moved onto the first fragment after it, when there is one:
/// `{global}:session:<id>` → `global:session:{<id>}`.
fn retag(toks: &[Tok<'_>], open: usize, close: usize) -> Option<KeyTemplate> {
    let target = (close + 1..toks.len()).find(|&i| matches!(toks[i], Tok::Hole(_)))?;
    let Tok::Hole(h) = toks[target] else {
        return None;
    };
    if h.kind != HoleKind::Fragment {
        return None;
    }
    let mut parts: Vec<Part> = Vec::new();
    let push = |parts: &mut Vec<Part>, b: u8| match parts.last_mut() {
        Some(Part::Lit(l)) => l.bytes.push(b),
        _ => parts.push(Part::Lit(Lit {
            bytes: vec![b],
            map: SourceMap::None,
        })),
    };
    for (i, t) in toks.iter().enumerate() {
        if i == open || i == close {
            continue;
        }
        if i == target {
            push(&mut parts, b'{');
        }
        match t {
            Tok::Byte(b, _) => push(&mut parts, *b),
            Tok::Hole(h) => parts.push(Part::Hole((*h).clone())),
        }
        if i == target {
            push(&mut parts, b'}');
        }
    }
    Some(KeyTemplate { parts })
}

fn tag_span(toks: &[Tok<'_>], open: usize, close: usize) -> Option<Span> {
    match (toks[open], toks[close]) {
        (Tok::Byte(_, Some(a)), Tok::Byte(_, Some(b))) if a <= b => Some(a..b + 1),
        _ => None,
    }
}

fn shown_tag(toks: &[Tok<'_>], open: usize, close: usize) -> String {
    let mut s = String::from("{");
    for t in &toks[open + 1..close] {
        match t {
            Tok::Byte(b, _) => s.push_str(&escape(&[*b], '`')),
            Tok::Hole(h) => {
                s.push('<');
                s.push_str(&h.label);
                s.push('>');
            }
        }
    }
    s.push('}');
    s
}

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    // One finding per tag; the other keys with that tag are secondary labels.
    let mut groups: Vec<(String, Finding, usize)> = Vec::new();
    for (k, key) in cx.model.keys.iter().enumerate() {
        let toks = tokens(&key.template);
        let Some((open, close)) = tag_range(&toks) else {
            continue;
        };
        // The family must vary outside the tag.
        let varies = toks
            .iter()
            .enumerate()
            .any(|(i, t)| (i < open || i > close) && matches!(t, Tok::Hole(_)));
        if !varies {
            continue;
        }
        let Some(why) = classify(&toks, open, close, cx.settings) else {
            continue;
        };
        let tag = shown_tag(&toks, open, close);
        let at = tag_span(&toks, open, close).unwrap_or_else(|| key.span.clone());
        if let Some((_, f, hidden)) = groups.iter_mut().find(|(t, _, _)| *t == tag) {
            let dup = f.primary.span == at || f.secondary.iter().any(|l| l.span == at);
            if !dup {
                if f.secondary.len() < MAX_LABELS {
                    f.secondary
                        .push(Label::new(at, "the same tag on this key family"));
                } else {
                    *hidden += 1;
                }
            }
            // The group's first key may be a script's: the trap is told once a key of
            // the family is an f-string.
            if cx.fstring(k) && !f.notes.iter().any(|n| n == super::FSTRING_TRAP) {
                f.notes.push(super::FSTRING_TRAP.to_string());
            }
            continue;
        }
        let shown = cx.shown(k);
        let (message, label) = match &why {
            Broad::Constant(_) => (
                format!("hash tag `{tag}` puts every key of `{shown}` in one slot"),
                "a constant tag: the whole family hashes the same bytes".to_string(),
            ),
            Broad::Identity(w) => (
                format!(
                    "hash tag `{tag}` is a low-cardinality identity (`{w}`): every key of \
                     `{shown}` with one `{w}` shares a slot"
                ),
                format!("`{w}` has few distinct values, so few slots take all the keys"),
            ),
        };
        let mut f = Finding::new(Rule::BroadHashTag, message, Label::new(at, label)).with_note(
            "a slot is the unit of resharding: all of its keys live on one node and are \
             served by one CPU, and a slot is never split, so this family cannot spread \
             over the cluster however many nodes it has",
        );
        f = match (&why, retag(&toks, open, close)) {
            (Broad::Constant(_), Some(r)) => f.with_help(format!(
                "tag the part that varies, the identity the keys of one operation share \
                 (`{}`), or drop the tag if these keys are never used together",
                cx.shown_like(k, &r)
            )),
            (Broad::Constant(_), None) => f.with_help(
                "tag the identity the keys of one operation share (a user, an order) instead \
                 of a constant, or drop the tag if these keys are never used together",
            ),
            (Broad::Identity(w), _) => f.with_help(format!(
                "extend the tag from the `{w}` to the identity the keys of one operation \
                 share (a user, an order, a session), so the family spreads over many slots"
            )),
        };
        if cx.fstring(k) {
            f = f.with_note(super::FSTRING_TRAP);
        }
        groups.push((tag, f, 0));
    }
    for (_, f, hidden) in groups {
        out.push(if hidden > 0 {
            f.with_note(format!("and {hidden} more keys with this tag"))
        } else {
            f
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing;
    use crate::template::tests::{hole, lit};
    use crate::frontend::testing::LUA_LANG;

    fn run(parts: Vec<Vec<Part>>) -> Vec<Finding> {
        let mut m = testing::model(LUA_LANG, "GET", parts);
        m.facts.script_file = true;
        testing::run(check, &m)
    }

    #[test]
    fn constant_tag_on_a_varying_family() {
        let out = run(vec![vec![
            lit("{global}:session:"),
            hole("ARGV[1]", HoleKind::Fragment),
        ]]);
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("`{global}`"), "{}", out[0].message);
        let help = out[0].help.clone().unwrap();
        assert!(
            help.contains(r#""global:session:{" .. ARGV[1] .. "}""#),
            "{help}"
        );
    }

    #[test]
    fn narrow_tags_are_fine() {
        // An entity id in the tag; a varying tag; a constant key that does not vary.
        assert!(run(vec![vec![
            lit("{user:1000}:cart:"),
            hole("item", HoleKind::Fragment)
        ]])
        .is_empty());
        assert!(run(vec![vec![
            lit("{user:"),
            hole("uid", HoleKind::Fragment),
            lit("}:cart")
        ]])
        .is_empty());
        assert!(run(vec![vec![lit("{global}:config")]]).is_empty());
        // An opaque prefix may hold its own tag.
        assert!(run(vec![vec![
            hole("KEYS[1]", HoleKind::Opaque),
            lit("{x}:"),
            hole("id", HoleKind::Fragment)
        ]])
        .is_empty());
    }

    #[test]
    fn identities() {
        let out = run(vec![vec![
            lit("{"),
            hole("tenantId", HoleKind::Opaque),
            lit("}:user:"),
            hole("uid", HoleKind::Fragment),
        ]]);
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("`tenant`"));
        let out = run(vec![vec![
            lit("{tenant:42}:user:"),
            hole("uid", HoleKind::Fragment),
        ]]);
        assert_eq!(out.len(), 1);
        let out = run(vec![vec![
            lit("{2024-01-15}:events:"),
            hole("id", HoleKind::Fragment),
        ]]);
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("`date`"));
        // A real id next to the identity makes the tag narrow.
        assert!(run(vec![vec![
            lit("{"),
            hole("tenant", HoleKind::Fragment),
            lit(":"),
            hole("uid", HoleKind::Fragment),
            lit("}:cart:"),
            hole("item", HoleKind::Fragment),
        ]])
        .is_empty());
    }

    #[test]
    fn one_finding_per_tag() {
        let out = run(vec![
            vec![lit("{global}:a:"), hole("x", HoleKind::Fragment)],
            vec![lit("{global}:b:"), hole("y", HoleKind::Fragment)],
        ]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].secondary.len(), 1);
    }

    #[test]
    fn dates_and_words() {
        assert!(is_date("2024-01-15") && is_date("2024/01/15") && is_date("2024-01"));
        assert!(!is_date("1000") && !is_date("20240115") && !is_date("2024-13-01"));
        assert_eq!(words("tenantId"), ["tenant", "id"]);
        assert_eq!(words("ARGV[1]"), ["argv", "1"]);
    }
}
