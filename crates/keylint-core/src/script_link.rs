//! Script linking, for every frontend: a script call (`EVAL`, `EVALSHA`, `FCALL`, a
//! registered script object) joined with the Lua body it runs.
//!
//! A frontend reports the call as a [`ScriptCall`] fact and hands over the body's model
//! as lowered by the Lua frontend (this crate never parses Lua). A body written in the
//! calling file is merged into the file's model with every span moved to where its
//! bytes are in that file ([`Mapper`], [`merge`]), so the script's own findings point
//! into the string that holds it. Then [`link_call`]:
//!
//! - records the call's facts for `script-keys-mismatch` ([`ScriptCallFacts`]: its
//!   numkeys, the keys it passes, the highest `KEYS[i]` every run of the script reads),
//!   which that rule judges like every other rule, in `check`;
//! - judges each key the script derives from `KEYS[i]` (`KEYS[1] .. ':meta'`) with the
//!   key the caller passes as `KEYS[i]`, in a unit of its own with the script's
//!   cross-slot policy ([`script_policy`]).

use crate::model::{
    CrossSlotPolicy, FileModel, KeyFamily, KeyListing, KeyOrigin, KeyUse, Numkeys, ScriptCallFacts,
    ScriptMode, Unit, UnitKind,
};
use crate::template::{Hole, KeyTemplate, Lit, Part, SourceMap};
use crate::Span;

/// Maps offsets in a script body to offsets in the calling file.
#[derive(Debug, Clone)]
pub struct Mapper<'a> {
    /// Source offset of every byte of the body.
    pub offs: &'a [usize],
    /// Where to point when an offset cannot be mapped.
    pub fallback: Span,
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

    /// A body range as a range of the calling file.
    pub fn range(&self, r: &Span) -> Span {
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

    /// A body template with its source map moved into the calling file.
    pub fn template(&self, t: &KeyTemplate) -> KeyTemplate {
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
}

/// Appends a lowered body to the calling file's model, with every span mapped into
/// that file. Returns the model's index of each of the body's keys.
pub fn merge(model: &mut FileModel, lua: &FileModel, m: &Mapper<'_>) -> Vec<usize> {
    let key_base = model.keys.len();
    let unit_base = model.units.len();
    model.script_lang = lua.lang;
    for k in &lua.keys {
        model.keys.push(KeyUse {
            template: m.template(&k.template),
            span: m.range(&k.span),
            command: k.command.clone(),
            origin: k.origin,
            via: k.via.as_ref().map(|s| m.range(s)),
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
    for p in &lua.sort_patterns {
        model.sort_patterns.push(crate::model::SortPattern {
            command: p.command.clone(),
            span: m.range(&p.span),
            sorted: p.sorted.as_ref().map(|t| m.template(t)),
            sorted_at: p.sorted_at.as_ref().map(|s| m.range(s)),
            option: p.option,
            pattern: m.template(&p.pattern),
            at: m.range(&p.at),
            in_script: true,
        });
    }
    for o in &lua.key_options {
        model.key_options.push(crate::model::KeyOptions {
            key: o.key + key_base,
            options: o.options.iter().map(|k| k + key_base).collect(),
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
    for c in &lua.script_calls {
        model.script_calls.push(ScriptCallFacts {
            span: m.range(&c.span),
            numkeys: c.numkeys.as_ref().map(|(n, s)| (n.clone(), m.range(s))),
            passed: c.passed.as_ref().map(|(n, s)| (*n, m.range(s))),
            reads: c
                .reads
                .as_ref()
                .map(|(i, s)| (*i, s.as_ref().map(|s| m.range(s)))),
        });
    }
    for f in &lua.families {
        model.families.push(KeyFamily {
            unit: f.unit + unit_base,
            key: f.key + key_base,
            varying: f.varying.clone(),
            source: f.source.clone(),
        });
    }
    for l in &lua.listings {
        model.listings.push(KeyListing {
            command: l.command.clone(),
            span: m.range(&l.span),
            mode: l.mode,
            unit: m.range(&l.unit),
        });
    }
    (key_base..key_base + lua.keys.len()).collect()
}

/// The body's model with only the keys, `SORT` patterns and key listings whose body
/// range, text (empty for a listing) and origin (a key's) `fresh` accepts: for a body
/// that shares text with one already merged (a prelude pasted into several scripts),
/// what only this body adds. Units, families, options and scripts keep the kept keys.
/// `None` when nothing is left to add.
pub fn fresh_part(
    lua: &FileModel,
    fresh: impl Fn(&Span, Vec<crate::template::SymPart>, Option<KeyOrigin>) -> bool,
) -> Option<FileModel> {
    let mut index: Vec<Option<usize>> = Vec::with_capacity(lua.keys.len());
    let mut out = FileModel::new(lua.lang);
    out.script_lang = lua.script_lang;
    for k in &lua.keys {
        if fresh(&k.span, k.template.text_parts(), Some(k.origin)) {
            index.push(Some(out.keys.len()));
            out.keys.push(k.clone());
        } else {
            index.push(None);
        }
    }
    out.sort_patterns = lua
        .sort_patterns
        .iter()
        .filter(|p| fresh(&p.at, p.pattern.text_parts(), None))
        .cloned()
        .collect();
    out.listings = lua
        .listings
        .iter()
        .filter(|l| fresh(&l.span, Vec::new(), None))
        .cloned()
        .collect();
    if out.keys.is_empty() && out.sort_patterns.is_empty() && out.listings.is_empty() {
        return None;
    }
    let keep = |ks: &[usize]| -> Vec<usize> { ks.iter().filter_map(|&k| index[k]).collect() };
    for u in &lua.units {
        let mut u = u.clone();
        u.keys = keep(&u.keys);
        out.units.push(u);
    }
    for s in &lua.scripts {
        let mut s = s.clone();
        s.keys = keep(&s.keys);
        out.scripts.push(s);
    }
    for f in &lua.families {
        if let Some(key) = index[f.key] {
            out.families.push(KeyFamily { key, ..f.clone() });
        }
    }
    for o in &lua.key_options {
        if let Some(key) = index[o.key] {
            out.key_options.push(crate::model::KeyOptions {
                key,
                options: keep(&o.options),
            });
        }
    }
    out.script_calls = lua.script_calls.clone();
    Some(out)
}

/// The cross-slot policy of a script's keys beyond the declared ones; `None` when the
/// script cannot run on a cluster (`no-cluster`) or is not a script.
pub fn script_policy(lua: &FileModel) -> Option<CrossSlotPolicy> {
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

/// `KEYS[i]` replaced by the caller's template of its `i`-th key; `None` when the
/// template reads no `KEYS[i]` or the caller's key is not known.
pub fn substitute(t: &KeyTemplate, keys: &[Option<KeyTemplate>]) -> Option<KeyTemplate> {
    let mut parts = Vec::new();
    let mut changed = false;
    for p in &t.parts {
        if let Part::Hole(h) = p {
            if let Some(i) = script_index(&h.binding, "KEYS") {
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

/// `i` of a hole bound to `KEYS[i]` (or `ARGV[i]`, with `table` `"ARGV"`).
fn script_index(binding: &str, table: &str) -> Option<usize> {
    binding
        .strip_prefix(table)?
        .strip_prefix('[')?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// A key of the body that is `ARGV[i]` as it is, where the call passes the same value
/// as `KEYS[j]`, is that declared key: the script touches nothing undeclared there.
fn declare_argv_keys(model: &mut FileModel, call: &ScriptCall, body: &LinkedBody) {
    let Some(merged) = &body.merged_keys else {
        return;
    };
    for (k, key) in body.lua.keys.iter().enumerate() {
        if key.origin != KeyOrigin::Undeclared {
            continue;
        }
        let [Part::Hole(h)] = key.template.parts.as_slice() else {
            continue;
        };
        let Some(i) = script_index(&h.binding, "ARGV") else {
            continue;
        };
        if let Some(Some(j)) = i.checked_sub(1).and_then(|i| call.argv_keys.get(i)) {
            if let Some(&m) = merged.get(k) {
                model.keys[m].origin = KeyOrigin::Declared(*j);
            }
        }
    }
}

/// What a frontend knows about one script call.
#[derive(Debug, Clone)]
pub struct ScriptCall {
    /// Where to point at the call as a whole (its unit's anchor).
    pub anchor: Span,
    /// The whole call.
    pub span: Span,
    /// The key use of each key passed (`KEYS[1]` first), when its template is known.
    pub keys: Vec<Option<usize>>,
    /// Where each key passed is written.
    pub key_spans: Vec<Span>,
    /// Exactly this many keys are passed; where to point at the count.
    pub passed: Option<(usize, Span)>,
    /// The call's numkeys as the server reads it, when known, and where it is.
    pub numkeys: Option<(Numkeys, Span)>,
    /// For each `ARGV[i]` (`ARGV[1]` first): `Some(j)` when the call passes the very
    /// same value as `KEYS[j]` (`keys=[q, h], args=[q, h]`, one expression with no
    /// call in it written twice). A key the script reaches through that `ARGV[i]` is
    /// declared.
    pub argv_keys: Vec<Option<usize>>,
}

/// A lowered body and where its keys went in the calling file's model.
#[derive(Debug)]
pub struct LinkedBody {
    /// The body's model, as the Lua frontend lowered it (body offsets).
    pub lua: FileModel,
    /// The model's index of each of the body's keys, when the body was merged.
    pub merged_keys: Option<Vec<usize>>,
}

/// The highest `KEYS[i]` every run of a lowered script reads, and the index of a key
/// of the body that reads it.
fn required_read(lua: &FileModel) -> Option<(usize, usize)> {
    let required = lua.scripts.first().map_or(0, |s| s.required_keys);
    let mut max_read: Option<(usize, usize)> = None;
    for (k, key) in lua.keys.iter().enumerate() {
        if let KeyOrigin::Declared(i) | KeyOrigin::DerivedFromDeclared(i) = key.origin {
            if i > 0 && i <= required && max_read.is_none_or(|(m, _)| i > m) {
                max_read = Some((i, k));
            }
        }
    }
    max_read
}

/// Links one call with its body: records the call's facts (its numkeys, the keys it
/// passes, what the script reads) for `script-keys-mismatch`, and puts the keys the
/// script derives from the caller's keys in a unit of their own. Without a body, only
/// the call's own facts are recorded.
pub fn link_call(model: &mut FileModel, call: &ScriptCall, body: Option<&LinkedBody>) {
    let reads = body.and_then(|b| {
        let (read, k) = required_read(&b.lua)?;
        let at = b
            .merged_keys
            .as_ref()
            .map(|mk| model.keys[mk[k]].span.clone());
        Some((read, at))
    });
    model.script_calls.push(ScriptCallFacts {
        span: call.span.clone(),
        numkeys: call.numkeys.clone(),
        passed: call.passed.clone(),
        reads,
    });
    let Some(body) = body else { return };
    let lua = &body.lua;
    declare_argv_keys(model, call, body);
    // Keys derived from the declared ones, judged with the caller's keys (not when
    // the call is refused anyway for its numkeys).
    let refused = call.numkeys.as_ref().is_some_and(|(n, _)| n.refused());
    let Some(policy) = script_policy(lua).filter(|_| !refused) else {
        return;
    };
    let caller: Vec<Option<KeyTemplate>> = call
        .keys
        .iter()
        .map(|k| k.map(|k| model.keys[k].template.clone()))
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
            Some(mk) => model.keys[mk[k]].span.clone(),
            None => call
                .key_spans
                .get(i - 1)
                .cloned()
                .unwrap_or_else(|| call.span.clone()),
        };
        // A derived key already recorded for another call with the same keys.
        let existing = model
            .keys
            .iter()
            .position(|u| u.span == span && u.template == t);
        let idx = match existing {
            Some(i) => i,
            None => {
                model.keys.push(KeyUse {
                    template: t,
                    span,
                    command: key.command.clone(),
                    origin: key.origin,
                    via: None,
                });
                model.keys.len() - 1
            }
        };
        if !derived.contains(&idx) {
            derived.push(idx);
        }
    }
    if derived.is_empty() {
        return;
    }
    let mut keys: Vec<usize> = call.keys.iter().flatten().copied().collect();
    keys.extend(derived);
    model.units.push(Unit {
        kind: UnitKind::Script,
        name: "script".into(),
        span: call.span.clone(),
        anchor: call.anchor.clone(),
        keys,
        policy,
    });
}
