//! Script linking, for every frontend: a script call (`EVAL`, `EVALSHA`, `FCALL`, a
//! registered script object) joined with the Lua body it runs.
//!
//! A frontend reports the call as a [`ScriptCall`] fact and hands over the body's model
//! as lowered by the Lua frontend (this crate never parses Lua). A body written in the
//! calling file is merged into the file's model with every span moved to where its
//! bytes are in that file ([`Mapper`], [`merge`]), so the script's own findings point
//! into the string that holds it. Then [`link_call`]:
//!
//! - reports `script-keys-mismatch` when numkeys is larger than the arguments after it
//!   (the server refuses the call), or the call passes fewer keys than every run of the
//!   script reads;
//! - judges each key the script derives from `KEYS[i]` (`KEYS[1] .. ':meta'`) with the
//!   key the caller passes as `KEYS[i]`, in a unit of its own with the script's
//!   cross-slot policy ([`script_policy`]).

use crate::diagnostic::Finding;
use crate::model::{
    CrossSlotPolicy, FileModel, KeyListing, KeyOrigin, KeyUse, ScriptMode, Unit, UnitKind,
};
use crate::rules::script_keys_mismatch::fewer_keys_than_read;
pub use crate::rules::script_keys_mismatch::{numkeys_refused, numkeys_too_large, BadNumkeys};
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

    /// A body finding with its spans moved into the calling file.
    pub fn finding(&self, f: &Finding) -> Finding {
        let mut f = f.clone();
        f.primary.span = self.range(&f.primary.span);
        for l in &mut f.secondary {
            l.span = self.range(&l.span);
        }
        f.unit = f.unit.as_ref().map(|u| self.range(u));
        f
    }
}

/// Appends a lowered body to the calling file's model, with every span mapped into
/// that file. Returns the model's index of each of the body's keys.
pub fn merge(model: &mut FileModel, lua: &FileModel, m: &Mapper<'_>) -> Vec<usize> {
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
    /// numkeys, the number of arguments after it, and where numkeys is, when numkeys
    /// is larger: the server refuses the call.
    pub too_few: Option<(usize, usize, Span)>,
}

/// A lowered body and where its keys went in the calling file's model.
#[derive(Debug)]
pub struct LinkedBody {
    /// The body's model, as the Lua frontend lowered it (body offsets).
    pub lua: FileModel,
    /// The model's index of each of the body's keys, when the body was merged.
    pub merged_keys: Option<Vec<usize>>,
}

/// Links one call with its body: `script-keys-mismatch`, and the keys the script
/// derives from the caller's keys in a unit of their own. Without a body, only the
/// numkeys check is made.
pub fn link_call(model: &mut FileModel, call: &ScriptCall, body: Option<&LinkedBody>) {
    if let Some((n, after, at)) = &call.too_few {
        model
            .findings
            .push(numkeys_too_large(*n, *after, at.clone(), call.span.clone()));
    }
    let Some(body) = body else { return };
    let lua = &body.lua;
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
    if let (Some((passed, at)), Some((read, k))) = (&call.passed, max_read) {
        if read > *passed {
            let script_at = body
                .merged_keys
                .as_ref()
                .map(|mk| model.keys[mk[k]].span.clone());
            let f = fewer_keys_than_read(read, *passed, at.clone(), call.span.clone(), script_at);
            model.findings.push(f);
        }
    }
    // Keys derived from the declared ones, judged with the caller's keys (not when
    // the call is refused anyway for its numkeys).
    let Some(policy) = script_policy(lua).filter(|_| call.too_few.is_none()) else {
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
