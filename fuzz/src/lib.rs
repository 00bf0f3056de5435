//! What every fuzz target checks, shared by the targets in `fuzz_targets/`.
//!
//! Each `check_*` function takes one input and panics (so libFuzzer reports a crash)
//! when an invariant breaks:
//!
//! - nothing panics, overflows the stack or loops forever on any input;
//! - every span the model and the findings carry lies inside the source;
//! - a literal key's concrete slot is the slot the slot engine computes;
//! - lowering and checking the same source twice gives the same findings;
//! - the slot engine agrees with an independent reference implementation.

pub mod gen;

use keylint_core::model::FileModel;
use keylint_core::rules::{check, Settings};
use keylint_core::template::{HashInput, Part, SourceMap};
use keylint_core::{Finding, Span};

/// CRC16-XMODEM bit by bit, written from the definition (polynomial 0x1021, initial
/// value 0, no reflection): independent of the table-driven engine.
fn reference_crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The server's `keyHashSlot`, transcribed as a loop over indices.
fn reference_slot(key: &[u8]) -> u16 {
    let mut s = 0;
    while s < key.len() && key[s] != b'{' {
        s += 1;
    }
    if s == key.len() {
        return reference_crc16(key) & 0x3FFF;
    }
    let mut e = s + 1;
    while e < key.len() && key[e] != b'}' {
        e += 1;
    }
    if e == key.len() || e == s + 1 {
        return reference_crc16(key) & 0x3FFF;
    }
    reference_crc16(&key[s + 1..e]) & 0x3FFF
}

/// The slot engine: `analyze` and `key_slot` agree with each other and with the
/// reference, and every offset they report is inside the key and points at the byte
/// it names.
pub fn check_slot(key: &[u8]) {
    let a = keyslot::analyze(key);
    let fast = keyslot::key_slot(key);
    let reference = reference_slot(key);
    assert_eq!(a.slot, fast, "analyze and key_slot disagree");
    assert_eq!(fast, reference, "key_slot disagrees with the reference");
    assert!(a.slot < keyslot::SLOTS);
    assert!(a.range.start <= a.range.end && a.range.end <= key.len());
    assert_eq!(
        keyslot::slot_of_hashed(&key[a.range.clone()]),
        a.slot,
        "the reported range is not what was hashed"
    );
    let (range, hashed) = keyslot::hashed_range(key);
    assert_eq!((range, hashed), (a.range.clone(), a.hashed));
    match a.hashed {
        keyslot::Hashed::Tag { open, close } => {
            assert!(open < close && close < key.len());
            assert_eq!((key[open], key[close]), (b'{', b'}'));
            assert_eq!(a.range, open + 1..close);
            assert!(close > open + 1, "a tag is never empty");
        }
        keyslot::Hashed::WholeNoOpen => {
            assert!(!key.contains(&b'{'));
            assert_eq!(a.range, 0..key.len());
        }
        keyslot::Hashed::WholeUnclosed { open } => {
            assert_eq!(key[open], b'{');
            assert!(!key[open..].contains(&b'}'));
            assert_eq!(a.range, 0..key.len());
        }
        keyslot::Hashed::WholeEmptyTag { open } => {
            assert_eq!(&key[open..open + 2], b"{}");
            assert_eq!(a.range, 0..key.len());
        }
    }
    for s in &a.surprises {
        match s {
            keyslot::Surprise::NestedOpen { at } => assert_eq!(key[*at], b'{'),
            keyslot::Surprise::CloseBeforeOpen { at } => assert_eq!(key[*at], b'}'),
            keyslot::Surprise::IgnoredTag { range } => {
                assert!(range.end <= key.len() && range.end >= range.start + 2);
                assert_eq!(key[range.start], b'{');
                assert_eq!(key[range.end - 1], b'}');
            }
        }
    }
}

fn span_ok(what: &str, span: &Span, len: usize) {
    assert!(
        span.start <= span.end && span.end <= len,
        "{what} span {span:?} is outside the source (length {len})"
    );
}

/// The model of a file is well formed for a source of `len` bytes.
pub fn check_model(model: &FileModel, len: usize) {
    for (i, key) in model.keys.iter().enumerate() {
        span_ok("key", &key.span, len);
        for part in &key.template.parts {
            match part {
                Part::Lit(lit) => match &lit.map {
                    SourceMap::None => {}
                    SourceMap::Contiguous(start) => {
                        assert!(
                            start + lit.bytes.len() <= len,
                            "key {i}: contiguous literal at {start} + {} runs past {len}",
                            lit.bytes.len()
                        );
                    }
                    SourceMap::PerByte(offsets) => {
                        assert_eq!(
                            offsets.len(),
                            lit.bytes.len() + 1,
                            "key {i}: per-byte source map of the wrong length"
                        );
                        assert!(
                            offsets.iter().all(|&o| o <= len),
                            "key {i}: per-byte offset past the end"
                        );
                    }
                },
                Part::Hole(h) => {
                    if let Some(s) = &h.span {
                        span_ok("hole", s, len);
                    }
                }
            }
        }
        if let Some(bytes) = key.template.as_literal() {
            match key.template.hash_input() {
                HashInput::Concrete { slot, .. } => assert_eq!(
                    slot,
                    keyslot::key_slot(&bytes),
                    "key {i}: literal {:?} given the wrong slot",
                    String::from_utf8_lossy(&bytes)
                ),
                other => panic!("key {i}: a literal key has a non-concrete hash input {other:?}"),
            }
        }
    }
    for unit in &model.units {
        span_ok("unit", &unit.span, len);
        span_ok("unit anchor", &unit.anchor, len);
        for &k in &unit.keys {
            assert!(
                k < model.keys.len(),
                "unit refers to key {k} of {}",
                model.keys.len()
            );
        }
    }
    for script in &model.scripts {
        span_ok("script", &script.span, len);
        span_ok("script anchor", &script.anchor, len);
        if let Some(s) = &script.flags_span {
            span_ok("script flags", s, len);
        }
        for &u in &script.units {
            assert!(u < model.units.len(), "script refers to unit {u}");
        }
        for &k in &script.keys {
            assert!(k < model.keys.len(), "script refers to key {k}");
        }
    }
    for call in &model.script_calls {
        span_ok("script call", &call.span, len);
        if let Some((_, s)) = &call.numkeys {
            span_ok("script call numkeys", s, len);
        }
        if let Some((_, s)) = &call.passed {
            span_ok("script call keys passed", s, len);
        }
        if let Some((_, Some(s))) = &call.reads {
            span_ok("script call read", s, len);
        }
    }
}

/// Findings are well formed for a source of `len` bytes.
pub fn check_findings(findings: &[Finding], len: usize) {
    for f in findings {
        span_ok("primary label", &f.primary.span, len);
        for l in &f.secondary {
            span_ok("secondary label", &l.span, len);
        }
        if let Some(u) = &f.unit {
            span_ok("finding unit", u, len);
        }
        if let Some(fix) = &f.fix {
            for e in &fix.edits {
                span_ok("fix edit", &e.span, len);
            }
        }
        assert!(!f.message.is_empty(), "a finding without a message");
    }
}

/// Runs a frontend twice on one source and checks the model and the findings.
pub fn check_frontend(len: usize, lower: impl Fn() -> FileModel) {
    let settings = Settings::default();
    let model = lower();
    check_model(&model, len);
    let findings = check(&model, &settings);
    check_findings(&findings, len);
    let again = check(&lower(), &settings);
    assert_eq!(findings, again, "the same source gave different findings");
}

/// The redis-cli frontend on any bytes.
pub fn check_rediscli(src: &[u8]) {
    let parsed = keylint_rediscli::parse(src);
    for cmd in &parsed.commands {
        span_ok("command", &cmd.span, src.len());
        assert!(!cmd.args.is_empty(), "a command with no arguments");
        for a in &cmd.args {
            span_ok("argument", &a.span, src.len());
        }
    }
    for bad in &parsed.bad_lines {
        span_ok("bad line", &bad.span, src.len());
    }
    check_frontend(src.len(), || keylint_rediscli::lower(src));
}

/// The Lua frontend on any text.
pub fn check_lua(src: &str) {
    check_frontend(src.len(), || keylint_lua::lower(src));
}

/// The Python frontend on any text.
pub fn check_python(src: &str) {
    check_frontend(src.len(), || keylint_python::lower(src));
}

/// The JavaScript frontend (TypeScript grammar, which reads JavaScript too), then the
/// rules.
pub fn check_javascript(src: &str) {
    check_frontend(src.len(), || {
        keylint_javascript::lower(src, keylint_javascript::Dialect::TypeScript)
    });
}
