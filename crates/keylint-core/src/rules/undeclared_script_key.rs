//! `undeclared-script-key`: what a script does with keys its caller did not declare,
//! and keys it discovers with `KEYS` or `SCAN` (scripts that cannot run on a cluster
//! at all are `script-no-cluster`'s).
//!
//! Cluster clients route `EVAL`/`FCALL` by the keys in `KEYS`; the node that runs the
//! script owns those keys' slot and nothing else is guaranteed. What the server does
//! with any other key depends on how the script runs ([`ScriptMode`]), checked on a
//! live Redis 7.0 cluster:
//!
//! - no `#!lua` shebang (compatibility mode): the key works while its slot is served
//!   by the same node, else `Script attempted to access a non local key in a cluster
//!   node`;
//! - a shebang, or a registered function: a key outside the declared keys' slot fails,
//!   `Script attempted to access keys that do not hash to the same slot`, unless the
//!   script has `allow-cross-slot-keys` (then: same node only, as above);
//! - `no-cluster`: `Can not run script on cluster, 'no-cluster' flag is set.`
//!
//! Key origins come from the frontend ([`KeyOrigin`]); this rule only reads them.

use super::{who, Context};
use crate::diagnostic::{Finding, Label, Severity};
use crate::model::{FileModel, KeyListing, KeyOrigin, Script, ScriptMode};
use crate::rule::{Rule, RuleMeta};
use crate::template::{HoleKind, Part, SymPart};
use crate::Span;
use std::collections::{BTreeMap, HashMap};

pub(crate) const META: RuleMeta = RuleMeta {
    code: "RK201",
    name: "undeclared-script-key",
    severity: Severity::Error,
    summary: "a script touches a key that was not passed in `KEYS`",
};

/// Most secondary labels on one finding.
const MAX_LABELS: usize = 8;
/// Most derived keys shown on one finding: each is a line the user may have to change.
const MAX_DERIVED_LABELS: usize = 64;

pub(super) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    out.extend(cx.model.listings.iter().map(listing));
    for script in &cx.model.scripts {
        // A script that cannot run on a cluster has no keys worth checking.
        if script.has_flag("no-cluster") {
            continue;
        }
        undeclared(cx, script, &script.keys, out);
        derived(cx, script, &script.keys, out);
    }
}

/// A `KEYS` or `SCAN` call inside a script: it lists only the keys of the node that
/// runs the script, so on a cluster the script silently works on part of the data.
fn listing(l: &KeyListing) -> Finding {
    let command = &l.command;
    let consequence = match l.mode {
        ScriptMode::Eval => {
            "without a `#!lua` shebang the keys it finds can be read and written (they \
             are on this node), so nothing fails: the script just never sees the keys of \
             the other nodes"
        }
        _ => {
            "a key it finds outside the declared keys' slot fails with `Script attempted to \
             access keys that do not hash to the same slot` (unless the script has \
             `allow-cross-slot-keys`), and the keys of the other nodes are never seen"
        }
    };
    Finding::new(
        Rule::UndeclaredScriptKey,
        format!(
            "the script discovers keys with `{command}`: on a cluster it sees only one node's keys"
        ),
        Label::new(
            l.span.clone(),
            format!("`{command}` inside a script lists the keys of the node running it"),
        ),
    )
    .with_severity(Severity::Warning)
    .with_unit(l.unit.clone())
    .with_note(
        "a script runs on one node; `KEYS` and `SCAN` there return that node's share of \
             the keyspace only, so on a cluster the script silently works on part of the data: \
             a correctness bug, not an error the server reports",
    )
    .with_note(consequence)
    .with_note("keys found this way can never be declared in `KEYS` by the caller")
    .with_help(
        "keep the names in a set or sorted set under the script's hash tag and read that \
             instead, or scan every primary from the client and pass the keys in `KEYS`",
    )
}

/// What the server does with a key outside the declared slot, for this script.
fn server_behaviour(script: &Script) -> &'static str {
    let allow = script.has_flag("allow-cross-slot-keys");
    match (script.mode, allow) {
        (ScriptMode::Eval, _) => {
            "without a `#!lua` shebang the server tolerates such a key only while its slot \
             is served by the node running the script; otherwise the script fails with \
             `Script attempted to access a non local key in a cluster node`"
        }
        (_, true) => {
            "with `allow-cross-slot-keys` the server tolerates such a key only while its \
             slot is served by the node running the script; otherwise the script fails with \
             `Script attempted to access a non local key in a cluster node`"
        }
        (ScriptMode::Function, false) => {
            "a function may only touch keys in the slot of its declared keys; any other \
             slot fails with `Script attempted to access keys that do not hash to the same \
             slot`"
        }
        (ScriptMode::EvalShebang, false) => {
            "with a `#!lua` shebang the server refuses a key outside the slot of the \
             declared keys: `Script attempted to access keys that do not hash to the same \
             slot`"
        }
    }
}

/// The label of the hole a key begins with, if it begins with an opaque one.
fn opaque_prefix(model: &FileModel, k: usize) -> Option<&str> {
    match model.keys[k].template.parts.first() {
        Some(Part::Hole(h)) if h.kind == HoleKind::Opaque => Some(&h.label),
        _ => None,
    }
}

fn undeclared(cx: &Context<'_>, script: &Script, keys: &[usize], out: &mut Vec<Finding>) {
    let model = cx.model;
    // One finding per distinct key text; further uses are shown as secondary labels.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    // Each group is found by its first key's place or text (hashed: scripts can have
    // tens of thousands of keys).
    // A place groups keys of one kind only (a literal, or keys built from one prefix):
    // a call of an included function is one place for every key the function touches.
    let mut by_span: HashMap<(Span, Option<&str>), usize> = HashMap::new();
    let mut by_text: HashMap<Vec<SymPart>, usize> = HashMap::new();
    // The same text as written, from values bound apart (`local prefix = conf.prefix
    // .. i` in each of three loops): one key to declare, one finding.
    let mut by_shown: HashMap<String, usize> = HashMap::new();
    for &k in keys {
        if model.keys[k].origin != KeyOrigin::Undeclared && !constant_tag_first(model, k) {
            continue;
        }
        // The same text, or the same place reached twice (a helper called twice).
        let text = model.keys[k].template.text_parts();
        let place = (model.keys[k].span.clone(), opaque_prefix(model, k));
        let shown = cx.shown(k);
        let found = [
            by_span.get(&place).copied(),
            by_text.get(&text).copied(),
            by_shown.get(&shown).copied(),
        ]
        .into_iter()
        .flatten()
        .min();
        match found {
            Some(g) => groups[g].1.push(k),
            None => {
                by_span.insert(place, groups.len());
                by_text.insert(text, groups.len());
                by_shown.insert(shown, groups.len());
                groups.push((k, Vec::new()));
            }
        }
    }
    for (k, more) in groups {
        let key = &model.keys[k];
        let shown = cx.shown(k);
        let input = key.template.hash_input();
        let prefix = opaque_prefix(model, k);
        let label = match prefix {
            Some(p) => format!("built from `{p}`, not passed in `KEYS`"),
            None => format!("not passed in `KEYS`; {}", input.describe(cx.syntax(k))),
        };
        let mut f = Finding::new(
            Rule::UndeclaredScriptKey,
            format!(
                "{} touches `{shown}`, a key its caller does not declare",
                who(script)
            ),
            Label::new(key.span.clone(), label),
        )
        .with_unit(script.span.clone());
        let mut seen = vec![key.span.clone()];
        let mut also: Vec<String> = Vec::new();
        for &m in &more {
            let span = model.keys[m].span.clone();
            if span == key.span && !model.keys[m].template.same_text(&key.template) {
                // Another key reached from the same place (a helper called with other
                // values, or an included function touching several keys).
                let text = cx.shown(m);
                let shown = format!("`{text}`");
                // Values the text does not tell apart (`pointer_type` of `'head'` and
                // of `'tail'`) are not listed as another key.
                if text != cx.shown(k) && !also.contains(&shown) && also.len() < MAX_LABELS {
                    also.push(shown);
                }
                continue;
            }
            if seen.contains(&span) || seen.len() > MAX_LABELS {
                continue;
            }
            seen.push(span.clone());
            f = f.with_secondary(Label::new(span, "the same key"));
        }
        if !also.is_empty() {
            f = f.with_note(format!(
                "from the same place the script also touches {}",
                also.join(", ")
            ));
        }
        f = with_touched(f, model, std::iter::once(k).chain(more.iter().copied()));
        f = f
            .with_note(
                "cluster clients route a script by the keys in `KEYS`: the node that runs it \
                 serves their slot, and no other slot is guaranteed",
            )
            .with_note(server_behaviour(script));
        for n in &script.notes {
            f = f.with_note(n.clone());
        }
        f = match prefix {
            Some(p) => f
                .with_severity(Severity::Warning)
                .with_note(format!(
                    "it is in the declared keys' slot only if `{p}` carries their hash tag"
                ))
                .with_help(format!(
                    "pass the key in `KEYS` instead of building it from `{p}`"
                )),
            None => f.with_help(
                "pass the key in `KEYS` (the caller lists it and the script reads `KEYS[n]`), \
                 with a hash tag it shares with the script's other keys",
            ),
        };
        out.push(f);
    }
}

/// True when key `k`, derived from a declared key, hashes a constant tag the script
/// writes before the declared part (`'{fs}:queue:' .. KEYS[1]`): it is in that tag's
/// slot whatever the caller passes, so it is judged as a key the script names itself.
fn constant_tag_first(model: &FileModel, k: usize) -> bool {
    matches!(model.keys[k].origin, KeyOrigin::DerivedFromDeclared(_))
        && matches!(
            model.keys[k].template.hash_input(),
            crate::template::HashInput::Concrete { whole: false, .. }
        )
}

/// True when the first hash tag of a key derived from `KEYS[i]` is exactly `KEYS[i]`
/// (`string.format("buf:{%s}", KEYS[1])`, `'{' .. KEYS[1] .. '}:x'`): whenever
/// `KEYS[i]` holds no brace it is hashed whole, and the derived key hashes the same
/// bytes, so the two share a slot. (With a brace in `KEYS[i]` the tag changes; a caller
/// that passes such a key is judged where the call is linked to the script.)
fn tag_is_declared_key(t: &crate::template::KeyTemplate, i: usize) -> bool {
    if i == 0 {
        return false;
    }
    let binding = format!("KEYS[{i}]");
    let mut parts = t.parts.iter();
    // Literal bytes up to the first `{`, which must end them.
    let mut opened = false;
    for p in parts.by_ref() {
        match p {
            Part::Lit(l) => match l.bytes.iter().position(|&b| b == b'{') {
                Some(at) if at + 1 == l.bytes.len() => {
                    opened = true;
                    break;
                }
                Some(_) => return false,
                None => {}
            },
            Part::Hole(_) => return false,
        }
    }
    if !opened {
        return false;
    }
    match (parts.next(), parts.next()) {
        (Some(Part::Hole(h)), Some(Part::Lit(l))) => {
            h.binding == binding && l.bytes.first() == Some(&b'}')
        }
        _ => false,
    }
}

/// Whether `KEYS[i]` itself (the frontend's hole bound to `KEYS[i]`) is in the key.
fn has_whole_declared_key(t: &crate::template::KeyTemplate, i: usize) -> bool {
    let binding = format!("KEYS[{i}]");
    t.parts
        .iter()
        .any(|p| matches!(p, Part::Hole(h) if h.binding == binding))
}

fn derived(cx: &Context<'_>, script: &Script, keys: &[usize], out: &mut Vec<Finding>) {
    let model = cx.model;
    // One finding per declared key that others are derived from.
    let mut by_base: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &k in keys {
        if let KeyOrigin::DerivedFromDeclared(i) = model.keys[k].origin {
            if !constant_tag_first(model, k) {
                by_base.entry(i).or_default().push(k);
            }
        }
    }
    for (i, ks) in by_base {
        // Distinct keys, by text: a key used by several commands is one key.
        let mut distinct: Vec<usize> = Vec::new();
        let mut texts: Vec<Vec<SymPart>> = Vec::new();
        let mut repeats: Vec<usize> = Vec::new();
        for &k in &ks {
            let text = model.keys[k].template.text_parts();
            if !texts.contains(&text) {
                texts.push(text);
                distinct.push(k);
            } else {
                repeats.push(k);
            }
        }
        let first = distinct[0];
        let base = match opaque_prefix(model, first) {
            Some(l) if i > 0 && l.ends_with(&format!("[{i}]")) => format!("`{l}`"),
            _ if i > 0 => format!("`KEYS[{i}]`"),
            _ => "a declared key".to_string(),
        };
        let message = if distinct.len() == 1 {
            format!(
                "{} derives `{}` from {base} without declaring it",
                who(script),
                cx.shown(first)
            )
        } else {
            format!(
                "{} derives {} keys from {base} without declaring them",
                who(script),
                distinct.len()
            )
        };
        // Keys whose hash tag is the declared key itself (`'{' .. KEYS[1] .. '}'`).
        let own_tag = |k: usize| tag_is_declared_key(&model.keys[k].template, i);
        let all_own_tag = distinct.iter().all(|&k| own_tag(k));
        let any_own_tag = distinct.iter().any(|&k| own_tag(k));
        let primary = if own_tag(first) {
            format!("hashes {base} as its tag, not passed in `KEYS`")
        } else {
            format!("derived from {base}, not passed in `KEYS`")
        };
        let mut f = Finding::new(
            Rule::UndeclaredScriptKey,
            message,
            Label::new(model.keys[first].span.clone(), primary),
        )
        .with_severity(Severity::Info)
        .with_unit(script.span.clone());
        let mut hidden = 0;
        for &k in &distinct[1..] {
            if f.secondary.len() >= MAX_DERIVED_LABELS {
                hidden += 1;
                continue;
            }
            f = f.with_secondary(Label::new(model.keys[k].span.clone(), "also derived"));
        }
        for &k in &repeats {
            let span = &model.keys[k].span;
            let shown = f.primary.span == *span || f.secondary.iter().any(|l| l.span == *span);
            if !shown && f.secondary.len() < MAX_DERIVED_LABELS {
                f = f.with_secondary(Label::new(span.clone(), "the same derived key"));
            }
        }
        if hidden > 0 {
            f = f.with_note(format!("and {hidden} more derived keys"));
        }
        f = with_touched(f, model, distinct.iter().chain(&repeats).copied());
        // Built from a part of the declared key (`string.sub(KEYS[1], 1, -6)`): no key
        // holds the declared key whole.
        let from_part = i > 0
            && distinct
                .iter()
                .all(|&k| !has_whole_declared_key(&model.keys[k].template, i));
        let own_tag_note = format!(
            "a key whose hash tag is {base} itself (`'{{' .. KEYS[{i}] .. '}}'`) shares its slot \
             whenever {base} holds no brace, so the server runs the script; it is still not \
             declared, and what routes or checks keys by `KEYS` (a cluster client, ACL key \
             patterns, a proxy) does not see it"
        );
        if all_own_tag {
            f = f.with_note(own_tag_note).with_help(
                "declare these keys in `KEYS` too (the caller can build them the same way)",
            );
            out.push(f);
            continue;
        }
        if any_own_tag {
            f = f.with_note(own_tag_note);
        }
        let slot_note = if from_part {
            format!(
                "a key built from a part of {base} is in the slot of {base} only when {base}'s \
                 hash tag lies in the part that is kept (a tag at the start, such as \
                 `{{queue}}:meta`, when a suffix is cut off): every caller must pass it so"
            )
        } else {
            format!(
                "{} is in the slot of {base} only when {base} carries a hash tag \
                 (a prefix such as `queue:{{name}}:`): every caller must pass it tagged",
                if any_own_tag { "any other derived key" } else { "a derived key" }
            )
        };
        f = f
            .with_note(slot_note)
            .with_note(server_behaviour(script))
            .with_help(format!(
                "declare the derived keys in `KEYS` too, or make sure every caller passes {base} \
                 with a hash tag"
            ));
        out.push(f);
    }
}

/// Labels where the script touches keys `ks` inside a helper pasted before its own
/// text, for those shown at the call that led there ([`KeyUse::via`]).
fn with_touched(
    mut f: Finding,
    model: &FileModel,
    ks: impl Iterator<Item = usize>,
) -> Finding {
    for k in ks {
        let Some(via) = &model.keys[k].via else {
            continue;
        };
        let shown = f.primary.span == *via || f.secondary.iter().any(|l| l.span == *via);
        if !shown && f.secondary.len() < MAX_DERIVED_LABELS {
            f = f.with_secondary(Label::new(
                via.clone(),
                "touched here, in a helper pasted before the script",
            ));
        }
    }
    f
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{CrossSlotPolicy, KeyUse, Unit, UnitKind};
    use crate::frontend::testing::LUA_LANG;
    use crate::template::{Hole, KeyTemplate, Lit, SourceMap};

    fn key(t: KeyTemplate, at: usize, origin: KeyOrigin) -> KeyUse {
        KeyUse {
            template: t,
            span: at..at + 1,
            command: "GET".into(),
            origin,
            via: None,
        }
    }

    fn hole(label: &str) -> Part {
        Part::Hole(Hole {
            label: label.into(),
            binding: label.into(),
            kind: HoleKind::Opaque,
            span: None,
        })
    }

    fn run(m: &FileModel) -> Vec<Finding> {
        crate::rules::testing::run(check, m)
    }

    pub(crate) fn model(keys: Vec<KeyUse>, mode: ScriptMode, flags: &[&str]) -> FileModel {
        let mut m = FileModel::new(LUA_LANG);
        m.facts.script_file = true;
        let n = keys.len();
        m.keys = keys;
        m.units.push(Unit {
            kind: UnitKind::Script,
            name: "script".into(),
            span: 0..100,
            anchor: 0..0,
            keys: (0..n).collect(),
            policy: CrossSlotPolicy::Refused,
        });
        m.scripts.push(Script {
            name: "script".into(),
            mode,
            flags: flags.iter().map(|s| s.to_string()).collect(),
            flags_span: None,
            span: 0..100,
            anchor: 0..0,
            keys: (0..n).collect(),
            units: vec![0],
            required_keys: 0,
            notes: Vec::new(),
        });
        m
    }

    #[test]
    fn literal_key_is_an_error_and_derived_keys_are_info() {
        let lit = KeyTemplate::literal("stats:views", SourceMap::None);
        let derived = KeyTemplate {
            parts: vec![
                hole("KEYS[1]"),
                Part::Lit(Lit {
                    bytes: b":active".to_vec(),
                    map: SourceMap::None,
                }),
            ],
        };
        let keys = vec![
            key(
                KeyTemplate {
                    parts: vec![hole("KEYS[1]")],
                },
                1,
                KeyOrigin::Declared(1),
            ),
            key(lit.clone(), 5, KeyOrigin::Undeclared),
            key(lit, 9, KeyOrigin::Undeclared),
            key(derived, 20, KeyOrigin::DerivedFromDeclared(1)),
        ];
        let out = run(&model(keys, ScriptMode::EvalShebang, &[]));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].severity, Severity::Error);
        assert_eq!(out[0].secondary.len(), 1);
        assert!(out[0].notes[1].contains("do not hash to the same slot"));
        assert_eq!(out[1].severity, Severity::Info);
        assert!(out[1].message.contains("`KEYS[1]`"));
    }

    #[test]
    fn argv_prefix_is_a_warning_and_compat_mode_says_non_local() {
        let t = KeyTemplate {
            parts: vec![
                hole("ARGV[1]"),
                Part::Lit(Lit {
                    bytes: b":jobs".to_vec(),
                    map: SourceMap::None,
                }),
            ],
        };
        let out = run(&model(
            vec![key(t, 1, KeyOrigin::Undeclared)],
            ScriptMode::Eval,
            &[],
        ));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].severity, Severity::Warning);
        assert!(out[0].notes[1].contains("non local key"));
    }
}
