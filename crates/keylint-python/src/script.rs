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
//! Linking: a key the script derives from `KEYS[i]` (`KEYS[1] .. ':meta'`) is judged
//! with the key the caller passes as `KEYS[i]`, in a unit of its own with the
//! script's cross-slot policy (the server refuses such a key in another slot with a
//! shebang, and tolerates it on the same node without one). `script-keys-mismatch`:
//! a call that passes fewer keys than the script reads, or a numkeys larger than the
//! arguments after it, is reported at the call.

use crate::eval::{Ctx, Value};
use crate::index::FuncId;
use crate::lower::Analyzer;
use crate::tpl::TPart;
use keylint_core::model::{
    CrossSlotPolicy, FileModel, KeyOrigin, KeyUse, ScriptMode, Unit, UnitKind,
};
use keylint_core::template::{Hole, KeyTemplate, Lit, Part, SourceMap};
use keylint_core::{Finding, Label, Rule, Span};
use std::collections::HashMap;
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
    /// numkeys, the arguments after it, and where numkeys is: more keys than
    /// arguments.
    pub too_few: Option<(usize, usize, Span)>,
    /// The call.
    pub call: Node<'t>,
}

/// A script body known at lint time.
#[derive(Debug, Clone)]
struct Body {
    text: String,
    /// Source offset of every byte of the text, when the body is written in this file.
    offs: Option<Vec<usize>>,
}

/// A lowered body, and where its keys went in the Python model.
#[derive(Debug)]
struct Lowered {
    lua: FileModel,
    /// Python key index of each Lua key, when the body was merged.
    merged_keys: Option<Vec<usize>>,
    offs: Option<Vec<usize>>,
}

fn body_of<'t>(a: &mut Analyzer<'t>, node: Node<'t>, func: Option<FuncId>) -> Option<Body> {
    let v = a.eval(node, &Ctx::at(func));
    let (tpl, inline) = match v {
        Value::Str(t) => (t, true),
        Value::FileText(t) => (t, false),
        _ => return None,
    };
    let mut bytes = Vec::new();
    let mut offs = Vec::new();
    let mut all_known = true;
    for p in &tpl.parts {
        match p {
            TPart::Lit { bytes: b, offs: o } => {
                bytes.extend_from_slice(b);
                for x in o {
                    match x {
                        Some(x) => offs.push(*x),
                        None => all_known = false,
                    }
                }
            }
            TPart::Hole(_) => return None,
        }
    }
    let text = String::from_utf8(bytes).ok()?;
    Some(Body {
        text,
        offs: (inline && all_known).then_some(offs),
    })
}

/// Maps offsets in a body to offsets in the Python source.
struct Mapper<'a> {
    offs: &'a [usize],
    /// Where to point when an offset cannot be mapped.
    fallback: Span,
}

impl Mapper<'_> {
    fn at(&self, o: usize) -> Option<usize> {
        if o < self.offs.len() {
            Some(self.offs[o])
        } else if o == self.offs.len() && o > 0 {
            Some(self.offs[o - 1] + 1)
        } else {
            None
        }
    }

    fn range(&self, r: &Span) -> Span {
        if r.start >= r.end {
            return match self.at(r.start) {
                Some(s) => s..s,
                None => self.fallback.clone(),
            };
        }
        match (self.at(r.start), self.at(r.end - 1)) {
            (Some(s), Some(e)) if s <= e => s..e + 1,
            _ => self.fallback.clone(),
        }
    }

    fn source_map(&self, map: &SourceMap, len: usize) -> SourceMap {
        let offsets: Option<Vec<usize>> = match map {
            SourceMap::None => None,
            SourceMap::Contiguous(s) => (0..len).map(|i| self.at(s + i)).collect(),
            SourceMap::PerByte(v) => v.iter().take(len).map(|&o| self.at(o)).collect(),
        };
        match offsets {
            Some(mut v) if !v.is_empty() => {
                if v.windows(2).all(|w| w[1] == w[0] + 1) {
                    SourceMap::Contiguous(v[0])
                } else {
                    let last = v[v.len() - 1] + 1;
                    v.push(last);
                    SourceMap::PerByte(v)
                }
            }
            _ => SourceMap::None,
        }
    }

    fn template(&self, t: &KeyTemplate) -> KeyTemplate {
        KeyTemplate {
            parts: t
                .parts
                .iter()
                .map(|p| match p {
                    Part::Lit(l) => Part::Lit(Lit {
                        bytes: l.bytes.clone(),
                        map: self.source_map(&l.map, l.bytes.len()),
                    }),
                    Part::Hole(h) => Part::Hole(Hole {
                        span: h.span.as_ref().map(|s| self.range(s)),
                        ..h.clone()
                    }),
                })
                .collect(),
        }
    }

    fn finding(&self, f: &Finding) -> Finding {
        let mut f = f.clone();
        f.primary.span = self.range(&f.primary.span);
        for l in &mut f.secondary {
            l.span = self.range(&l.span);
        }
        f.unit = f.unit.as_ref().map(|u| self.range(u));
        f
    }
}

/// Appends a lowered body to the Python model, with every span mapped into the
/// Python source. Returns the Python index of each Lua key.
fn merge(model: &mut FileModel, lua: &FileModel, m: &Mapper<'_>) -> Vec<usize> {
    let key_base = model.keys.len();
    let unit_base = model.units.len();
    for k in &lua.keys {
        model.keys.push(KeyUse {
            template: m.template(&k.template),
            span: m.range(&k.span),
            command: k.command.clone(),
            origin: k.origin,
        });
    }
    for u in &lua.units {
        model.units.push(Unit {
            kind: u.kind.clone(),
            name: u.name.clone(),
            span: m.range(&u.span),
            anchor: m.range(&u.anchor),
            keys: u.keys.iter().map(|k| k + key_base).collect(),
            policy: u.policy,
        });
    }
    for s in &lua.scripts {
        let mut s = s.clone();
        s.span = m.range(&s.span);
        s.anchor = m.range(&s.anchor);
        s.flags_span = s.flags_span.as_ref().map(|f| m.range(f));
        s.keys = s.keys.iter().map(|k| k + key_base).collect();
        s.units = s.units.iter().map(|u| u + unit_base).collect();
        model.scripts.push(s);
    }
    for f in &lua.findings {
        model.findings.push(m.finding(f));
    }
    (key_base..key_base + lua.keys.len()).collect()
}

/// The cross-slot policy of a script's keys beyond the declared ones.
fn script_policy(lua: &FileModel) -> Option<CrossSlotPolicy> {
    let s = lua.scripts.first()?;
    if s.has_flag("no-cluster") {
        return None;
    }
    Some(
        if s.mode == ScriptMode::Eval || s.has_flag("allow-cross-slot-keys") {
            CrossSlotPolicy::SameNode
        } else {
            CrossSlotPolicy::Refused
        },
    )
}

/// `KEYS[i]` replaced by the caller's template of its `i`-th key.
fn substitute(t: &KeyTemplate, keys: &[Option<KeyTemplate>]) -> Option<KeyTemplate> {
    let mut parts = Vec::new();
    let mut changed = false;
    for p in &t.parts {
        if let Part::Hole(h) = p {
            if let Some(i) = h
                .binding
                .strip_prefix("KEYS[")
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|n| n.parse::<usize>().ok())
            {
                let caller = keys.get(i.checked_sub(1)?)?.as_ref()?;
                parts.extend(caller.parts.iter().cloned());
                changed = true;
                continue;
            }
        }
        parts.push(p.clone());
    }
    changed.then_some(KeyTemplate { parts })
}

/// Links every script call with its body.
pub(crate) fn link_scripts<'t>(a: &mut Analyzer<'t>) {
    let links = std::mem::take(&mut a.script_links);
    let mut lowered: Vec<Lowered> = Vec::new();
    let mut by_body: HashMap<(String, Option<usize>), usize> = HashMap::new();
    // Bodies of registered scripts are merged even when never called.
    let mut sources: Vec<(Option<Node<'t>>, Option<FuncId>)> =
        a.scripts.iter().map(|s| (s.body, s.func)).collect();
    sources.extend(links.iter().map(|l| (l.body, l.func)));
    let mut body_index: Vec<Option<usize>> = Vec::new();
    let mut merged_bytes: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for (node, func) in sources {
        let Some(node) = node else {
            body_index.push(None);
            continue;
        };
        let Some(body) = body_of(a, node, func) else {
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
        let lua = keylint_lua::lower(&body.text);
        // A body that shares source text with one already merged (`HEAD + BODY` where
        // BODY was registered too) is linked but not merged again: its findings would
        // repeat at the same places.
        let fresh = body
            .offs
            .as_ref()
            .is_some_and(|offs| !offs.iter().any(|o| merged_bytes.contains(o)));
        let merged_keys = match (&body.offs, fresh) {
            (Some(offs), true) => {
                merged_bytes.extend(offs.iter().copied());
                let m = Mapper {
                    offs,
                    fallback: node.byte_range(),
                };
                Some(merge(&mut a.model, &lua, &m))
            }
            _ => None,
        };
        lowered.push(Lowered {
            lua,
            offs: merged_keys.as_ref().and(body.offs.clone()),
            merged_keys,
        });
        by_body.insert(key, lowered.len() - 1);
        body_index.push(Some(lowered.len() - 1));
    }
    let skip = a.scripts.len();
    for (link, bi) in links.iter().zip(body_index.into_iter().skip(skip)) {
        let Some(bi) = bi else { continue };
        link_call(a, link, &lowered[bi]);
    }
}

fn link_call(a: &mut Analyzer<'_>, link: &Link<'_>, body: &Lowered) {
    let lua = &body.lua;
    let call_span = link.call.byte_range();
    // The highest KEYS[i] every run of the script reads.
    let required = lua.scripts.first().map_or(0, |s| s.required_keys);
    let mut max_read: Option<(usize, usize)> = None;
    for (k, key) in lua.keys.iter().enumerate() {
        if let KeyOrigin::Declared(i) | KeyOrigin::DerivedFromDeclared(i) = key.origin {
            if i > 0 && i <= required && max_read.is_none_or(|(m, _)| i > m) {
                max_read = Some((i, k));
            }
        }
    }
    if let Some((n, after, at)) = &link.too_few {
        a.model.findings.push(
            Finding::new(
                Rule::ScriptKeysMismatch,
                format!(
                    "numkeys is {n} but only {after} argument{} follow{}",
                    if *after == 1 { "" } else { "s" },
                    if *after == 1 { "s" } else { "" }
                ),
                Label::new(at.clone(), "more keys than arguments"),
            )
            .with_unit(call_span.clone())
            .with_note(
                "the server refuses the call: `ERR Number of keys can't be greater than number \
                 of args`",
            )
            .with_help("pass every key after numkeys, or lower numkeys to the number of keys"),
        );
    }
    if let (Some((passed, at)), Some((read, k))) = (&link.passed, max_read) {
        if read > *passed {
            let script_at = match (&body.merged_keys, &body.offs) {
                (Some(mk), Some(_)) => Some(a.model.keys[mk[k]].span.clone()),
                _ => None,
            };
            let mut f = Finding::new(
                Rule::ScriptKeysMismatch,
                format!(
                    "the script reads `KEYS[{read}]` but this call passes {passed} key{}",
                    if *passed == 1 { "" } else { "s" }
                ),
                Label::new(
                    at.clone(),
                    format!("{passed} key{} passed", if *passed == 1 { "" } else { "s" }),
                ),
            )
            .with_unit(call_span.clone())
            .with_note(format!(
                "`KEYS[{read}]` is nil in the script: a command given it fails, and a key the \
                 script needs is not declared, so a cluster client cannot route by it"
            ))
            .with_help(format!(
                "pass {read} keys (numkeys {read}), in the order the script reads them"
            ));
            if let Some(s) = script_at {
                f = f.with_secondary(Label::new(
                    s,
                    format!("the script reads `KEYS[{read}]` here"),
                ));
            }
            a.model.findings.push(f);
        }
    }
    // Keys derived from the declared ones, judged with the caller's keys (not when
    // the call is refused anyway for its numkeys).
    let Some(policy) = script_policy(lua).filter(|_| link.too_few.is_none()) else {
        return;
    };
    let caller: Vec<Option<KeyTemplate>> = link
        .keys
        .iter()
        .map(|k| k.map(|k| a.model.keys[k].template.clone()))
        .collect();
    let mut derived = Vec::new();
    for (k, key) in lua.keys.iter().enumerate() {
        let KeyOrigin::DerivedFromDeclared(i) = key.origin else {
            continue;
        };
        if i == 0 {
            continue;
        }
        let Some(t) = substitute(&key.template, &caller) else {
            continue;
        };
        let span = match &body.merged_keys {
            Some(mk) => a.model.keys[mk[k]].span.clone(),
            None => match link.key_nodes.get(i - 1) {
                Some(n) => n.byte_range(),
                None => call_span.clone(),
            },
        };
        // A derived key already recorded for another call with the same keys.
        let existing = a
            .model
            .keys
            .iter()
            .position(|u| u.span == span && u.template == t);
        let idx = match existing {
            Some(i) => i,
            None => {
                a.model.keys.push(KeyUse {
                    template: t,
                    span,
                    command: key.command.clone(),
                    origin: key.origin,
                });
                a.model.keys.len() - 1
            }
        };
        if !derived.contains(&idx) {
            derived.push(idx);
        }
    }
    if derived.is_empty() {
        return;
    }
    let mut keys: Vec<usize> = link.keys.iter().flatten().copied().collect();
    keys.extend(derived);
    let anchor = a.model.units[link.unit].anchor.clone();
    a.model.units.push(Unit {
        kind: UnitKind::Script,
        name: "script".into(),
        span: call_span,
        anchor,
        keys,
        policy,
    });
}
