//! WATCH on ioredis and node-redis clients (`lower/batches.rs`): a WATCH of several
//! keys is a multi-key command; the keys it watches do not join the transaction that
//! follows, because neither client's cluster refuses that transaction for them.

use crate::{lower, Dialect};
use keylint_core::rules::{check, Settings};

/// The rules that fire on `src`, with whether the headline names `WATCH`.
fn findings(src: &str) -> Vec<(String, bool)> {
    let m = lower(src, Dialect::JavaScript);
    check(&m, &Settings::default())
        .into_iter()
        .map(|f| (f.rule.name().to_string(), f.message.contains("`WATCH`")))
        .collect()
}

const IOREDIS: &str = "const Redis = require('ioredis');\n\
                       const c = new Redis.Cluster([]);\n";

#[test]
fn ioredis_watch_of_two_slots_is_refused_in_both_forms() {
    for call in [
        "c.watch('user:1:a', 'user:1:b')",
        "c.watch(['user:1:a', 'user:1:b'])",
    ] {
        let src = format!("{IOREDIS}async function f() {{ await {call}; }}\n");
        assert_eq!(findings(&src), [("cross-slot".to_string(), true)], "{call}");
    }
}

#[test]
fn ioredis_watch_of_one_tag_is_silent() {
    let src = format!("{IOREDIS}async function f() {{ await c.watch('{{o}}:a', '{{o}}:b'); }}\n");
    assert!(findings(&src).is_empty());
}

#[test]
fn watched_keys_do_not_join_the_transaction() {
    // Live: ioredis runs this transaction (guarded on one node, unguarded on two).
    let src = format!(
        "{IOREDIS}async function f() {{\n\
           await c.watch('user:1:a');\n\
           await c.multi().set('user:1:b', 1).exec();\n\
           const tx = c.multi();\n\
           tx.set('user:1:b', 1);\n\
           await tx.exec();\n\
         }}\n"
    );
    assert!(findings(&src).is_empty(), "{:?}", findings(&src));
}

#[test]
fn node_redis_cluster_has_no_watch() {
    let src = "const { createCluster } = require('redis');\n\
               const c = createCluster({ rootNodes: [] });\n\
               async function f() { await c.watch(['user:1:a', 'user:1:b']); }\n";
    assert!(findings(src).is_empty(), "{:?}", findings(src));
}

#[test]
fn node_redis_client_watch_of_two_slots_is_refused() {
    // A standalone client on a cluster node: the server answers CROSSSLOT.
    let src = "const { createClient } = require('redis');\n\
               const c = createClient();\n\
               async function f() { await c.watch(['user:1:a', 'user:1:b']); }\n";
    assert_eq!(findings(src), [("cross-slot".to_string(), true)]);
}
