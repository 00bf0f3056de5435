//! Literal lists mapped where they are written give one key per element.

use super::*;
use keylint_core::model::UnitKind;
use keylint_core::rules::{check, Settings};

fn unit_keys(src: &str) -> Vec<(UnitKind, String, Vec<String>)> {
    let m = lower_with(src, Dialect::JavaScript, &Options::default(), None);
    m.units
        .iter()
        .map(|u| {
            (
                u.kind.clone(),
                u.name.clone(),
                u.keys
                    .iter()
                    .map(|&k| m.keys[k].template.display(crate::LANG))
                    .collect(),
            )
        })
        .collect()
}

fn rule_names(src: &str) -> Vec<String> {
    let m = lower_with(src, Dialect::JavaScript, &Options::default(), None);
    check(&m, &Settings::default())
        .into_iter()
        .map(|f| f.rule.name().to_string())
        .collect()
}

#[test]
fn literal_list_map_gives_each_key() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               const toKey = (n) => `q:${n}`;\n\
               r.mget(['wait', 'paused'].map(n => toKey(n)));\n\
               r.del(...['a', 'b'].map((n) => { return 'x:' + n; }));\n";
    let u = unit_keys(src);
    assert_eq!(u.len(), 2, "{u:?}");
    assert_eq!(u[0].2, ["\"q:wait\"", "\"q:paused\""]);
    assert_eq!(u[1].2, ["\"x:a\"", "\"x:b\""]);
    assert!(
        rule_names(src).iter().all(|r| r == "cross-slot"),
        "{:?}",
        rule_names(src)
    );
    assert_eq!(rule_names(src).len(), 2);
}

#[test]
fn lodash_map_and_named_list() {
    let src = "const _ = require('lodash');\nconst Redis = require('ioredis');\n\
               const r = new Redis();\n\
               function f(id) {\n\
                 const keys = _.map(['wait', 'meta'], name => `{q}:${name}`);\n\
                 return r.mget(keys);\n\
               }\n";
    let u = unit_keys(src);
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].2, ["\"{q}:wait\"", "\"{q}:meta\""]);
    assert!(rule_names(src).is_empty());
}

#[test]
fn mapped_holes_keep_their_element() {
    // `[id, 'progress']` with a hole: one key per element, the hole its own.
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(id) {\n\
                 return r.mget([id, 'progress'].map(n => `q:{${n}}`));\n\
               }\n";
    let u = unit_keys(src);
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].2, ["`q:{${id}}`", "\"q:{progress}\""]);
    // A tag from a value against a literal tag: likely apart, never proven.
    assert_eq!(rule_names(src), ["cross-slot-likely"]);
}

#[test]
fn not_a_literal_list_stays_a_family() {
    // Each of these stays what it was: one key standing for the whole family (or
    // no known key).
    for src in [
        // A name bound to a list: the map is not where the list is written.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         const names = ['a', 'b'];\nr.mget(names.map(n => `k:${n}`));\n",
        // A spread in the list.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         function f(xs) { return r.mget(['a', ...xs].map(n => `k:${n}`)); }\n",
        // `_` is not lodash.
        "const _ = require('./mine');\nconst Redis = require('ioredis');\nconst r = new Redis();\n\
         r.mget(_.map(['a', 'b'], n => `k:${n}`));\n",
        // An element the map cannot make a string of.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         r.mget(['a', 'b'].map(n => lookup(n)));\n",
    ] {
        let u = unit_keys(src);
        assert!(u.iter().all(|u| u.2.len() <= 1), "{src}: {u:?}");
        assert!(
            rule_names(src).iter().all(|r| r != "cross-slot"),
            "{src}: {:?}",
            rule_names(src)
        );
    }
}

#[test]
fn array_filled_by_index() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(token) {\n\
                 const keys = ['q:wait', 'q:active'];\n\
                 keys[2] = keys[1] + '@' + token;\n\
                 keys[3] = 'q:stalled';\n\
                 return r.mget(keys);\n\
               }\n";
    let u = unit_keys(src);
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(
        u[0].2,
        [
            "\"q:wait\"",
            "\"q:active\"",
            "`q:active@${token}`",
            "\"q:stalled\""
        ]
    );
}

#[test]
fn array_replaced_by_index_is_read_as_filled() {
    // The literal's second element is replaced before the read: `{a}:y` is not read.
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f() {\n\
                 const keys = ['{a}:x', 'b:y'];\n\
                 keys[1] = '{a}:y';\n\
                 return r.mget(keys);\n\
               }\n";
    assert_eq!(unit_keys(src)[0].2, ["\"{a}:x\"", "\"{a}:y\""]);
    assert!(rule_names(src).is_empty(), "{:?}", rule_names(src));
}

#[test]
fn array_filled_otherwise_is_unknown() {
    for src in [
        // Filled under a condition.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         function f(c) {\n const keys = ['{a}:x', 'b:y'];\n if (c) { keys[1] = '{a}:y'; }\n\
         return r.mget(keys);\n}\n",
        // By a computed index.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         function f(i) {\n const keys = ['{a}:x', 'b:y'];\n keys[i] = '{a}:y';\n\
         return r.mget(keys);\n}\n",
        // Read in a callback that may run after later fills.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         function f() {\n const keys = ['{a}:x', 'b:y'];\n setTimeout(() => r.mget(keys));\n\
         keys[1] = '{a}:y';\n}\n",
        // With a gap.
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
         function f() {\n const keys = ['{a}:x'];\n keys[2] = 'b:y';\n\
         return r.mget(keys);\n}\n",
    ] {
        assert!(rule_names(src).is_empty(), "{src}: {:?}", rule_names(src));
    }
}

#[test]
fn array_grown_by_concat_keeps_its_leading_keys() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.defineCommand('addJob', { numberOfKeys: 2, lua: \"return redis.call('GET', KEYS[1])\" });\n\
               function add(id, data) {\n\
                 let keys = ['q:wait', 'q:paused'];\n\
                 const args = [id, data];\n\
                 keys = keys.concat(args);\n\
                 return r.addJob(keys);\n\
               }\n";
    let u = unit_keys(src);
    let script = u.iter().find(|u| u.2.len() == 2).expect("a script unit");
    assert_eq!(script.2, ["\"q:wait\"", "\"q:paused\""], "{u:?}");
    assert_eq!(rule_names(src), ["cross-slot"]);
}

#[test]
fn array_reassigned_otherwise_is_unknown() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.defineCommand('addJob', { numberOfKeys: 2, lua: \"return redis.call('GET', KEYS[1])\" });\n\
               function add(id, other) {\n\
                 let keys = ['q:wait', 'q:paused'];\n\
                 keys = other;\n\
                 return r.addJob(keys);\n\
               }\n";
    assert!(rule_names(src).is_empty(), "{:?}", rule_names(src));
}

#[test]
fn array_grown_and_filled_is_unknown() {
    // Filled by index before it grows: not read (the fill may replace a key).
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.defineCommand('addJob', { numberOfKeys: 2, lua: \"return redis.call('GET', KEYS[1])\" });\n\
               function add(id) {\n\
                 let keys = ['{q}:wait', 'b:paused'];\n\
                 keys[1] = '{q}:paused';\n\
                 keys = keys.concat([id]);\n\
                 return r.addJob(keys);\n\
               }\n";
    assert!(rule_names(src).is_empty(), "{:?}", rule_names(src));
}
