//! The `keyslot` engine against a live Redis Cluster, plus a self-test of the harness.

use conformance::{Cluster, Conn, Reply};

/// SplitMix64: a small, seeded, deterministic PRNG.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (`n > 0`; the modulo bias is irrelevant here).
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.";
const MULTI_BYTE: &[&str] = &["é", "ü", "ß", "中", "文", "€", "😀", "🔑", "\u{200b}"];

/// A random key of 0..=40 bytes, heavy in braces, with `:`, letters, multi-byte UTF-8,
/// raw high bytes and NUL.
fn random_key(rng: &mut SplitMix64) -> Vec<u8> {
    let len = rng.below(41) as usize;
    let mut key = Vec::with_capacity(len + 4);
    while key.len() < len {
        match rng.below(100) {
            0..=14 => key.push(b'{'),
            15..=29 => key.push(b'}'),
            30..=41 => key.push(b':'),
            42..=66 => key.push(*rng.pick(LETTERS)),
            67..=78 => key.extend_from_slice(rng.pick(MULTI_BYTE).as_bytes()),
            79..=90 => key.push(0x80 + rng.below(0x80) as u8),
            91..=95 => key.push(0),
            _ => key.push(rng.below(256) as u8),
        }
    }
    // Cutting a multi-byte sequence short is fine: keys are bytes.
    key.truncate(len);
    key
}

fn random_keys(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64(seed);
    (0..count).map(|_| random_key(&mut rng)).collect()
}

/// Known `CLUSTER KEYSLOT` answers of Redis 7.
const VECTORS: &[(&[u8], u16)] = &[
    (b"123456789", 12739),
    (b"user:{1000}:profile", 11326),
    (b"foo{}{bar}", 8363),
    (b"foo{{bar}}", 4015),
    (b"foo}{bar}", 5061),
    (b"{user:1001}:{name}", 5712),
    (b"user:1001:{", 6990),
    (b"user:1000:profile", 8918),
    (b"user:1000:cart", 7185),
    (b"", 0),
];

/// `CLUSTER KEYSLOT` for every key, pipelined on one connection.
fn server_slots(conn: &mut Conn, keys: &[Vec<u8>]) -> Vec<u16> {
    let cmds: Vec<Vec<Vec<u8>>> = keys
        .iter()
        .map(|k| vec![b"CLUSTER".to_vec(), b"KEYSLOT".to_vec(), k.clone()])
        .collect();
    let replies = conn.pipeline(&cmds).expect("pipelined CLUSTER KEYSLOT");
    assert_eq!(replies.len(), keys.len());
    replies
        .iter()
        .zip(keys)
        .map(|(reply, key)| {
            let slot = reply.as_int().unwrap_or_else(|| {
                panic!("CLUSTER KEYSLOT \"{}\" gave {reply:?}", key.escape_ascii())
            });
            u16::try_from(slot).expect("slot fits in u16")
        })
        .collect()
}

#[test]
fn slot_engine_matches_cluster_keyslot() {
    let cluster = Cluster::start();
    let mut keys: Vec<Vec<u8>> = VECTORS.iter().map(|(k, _)| k.to_vec()).collect();
    keys.extend(random_keys(0x5EED_0001, 100_000));

    // The vectors are what the server says, and also what it says today.
    let mut conn = cluster.conn(0);
    let slots = server_slots(&mut conn, &keys);
    for ((key, want), got) in VECTORS.iter().zip(&slots) {
        assert_eq!(
            *got,
            *want,
            "server disagrees with vector \"{}\"",
            key.escape_ascii()
        );
    }

    let mut mismatches = Vec::new();
    for (key, &server) in keys.iter().zip(&slots) {
        let ours = keyslot::key_slot(key);
        if ours != server {
            mismatches.push(format!(
                "\"{}\": keyslot {ours}, server {server}",
                key.escape_ascii()
            ));
        }
    }
    let braces = keys
        .iter()
        .filter(|k| k.contains(&b'{') && k.contains(&b'}'))
        .count();
    println!(
        "slot_engine_matches_cluster_keyslot: {} keys ({} vectors, {braces} with both braces), \
         {} mismatches",
        keys.len(),
        VECTORS.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} keys hash differently (first 20):\n{}",
        mismatches.len(),
        keys.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
}

#[test]
fn hashed_part_matches_server() {
    let cluster = Cluster::start();
    let keys = random_keys(0x5EED_0002, 5_000);
    let mut conn = cluster.conn(1);
    let slots = server_slots(&mut conn, &keys);
    let mut mismatches = Vec::new();
    for (key, &server) in keys.iter().zip(&slots) {
        let analysis = keyslot::analyze(key);
        let from_range = keyslot::crc16(&key[analysis.range.clone()]) & 0x3fff;
        if from_range != server || analysis.slot != server {
            mismatches.push(format!(
                "\"{}\": hashed range {:?} (\"{}\") gives {from_range}, analysis.slot {}, \
                 server {server}",
                key.escape_ascii(),
                analysis.range,
                key[analysis.range.clone()].escape_ascii(),
                analysis.slot
            ));
        }
    }
    println!(
        "hashed_part_matches_server: {} keys, {} mismatches",
        keys.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} of {} keys (first 20):\n{}",
        mismatches.len(),
        keys.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
}

/// `(first, last, master port)` per entry of `CLUSTER SLOTS`.
fn cluster_slots(conn: &mut Conn) -> Vec<(u16, u16, u16)> {
    let reply = conn.cmd(&["CLUSTER", "SLOTS"]).expect("CLUSTER SLOTS");
    let Reply::Array(Some(entries)) = reply else {
        panic!("CLUSTER SLOTS gave {reply:?}");
    };
    entries
        .iter()
        .map(|entry| {
            let Reply::Array(Some(fields)) = entry else {
                panic!("bad CLUSTER SLOTS entry {entry:?}");
            };
            let int = |r: &Reply| u16::try_from(r.as_int().expect("integer")).expect("u16");
            let Reply::Array(Some(master)) = &fields[2] else {
                panic!("bad CLUSTER SLOTS master {:?}", fields[2]);
            };
            (int(&fields[0]), int(&fields[1]), int(&master[1]))
        })
        .collect()
}

#[test]
fn harness_self_test() {
    let cluster = Cluster::start();
    let ports = cluster.ports().to_vec();
    assert_eq!(ports.len(), 3);

    // node_for_slot agrees with every node's CLUSTER SLOTS, for every slot.
    for node in 0..ports.len() {
        let mut conn = cluster.conn(node);
        assert_eq!(conn.port(), ports[node]);
        assert_eq!(conn.cmd(&["PING"]).unwrap(), Reply::Simple("PONG".into()));
        let mut covered = 0u32;
        for (lo, hi, port) in cluster_slots(&mut conn) {
            for slot in lo..=hi {
                assert_eq!(
                    ports[cluster.node_for_slot(slot)],
                    port,
                    "slot {slot} according to node {node}"
                );
                covered += 1;
            }
        }
        assert_eq!(covered, 16384, "node {node} does not map every slot");
    }

    // Writes go to the owner; every other node redirects with MOVED to the owner.
    let keys: &[&[u8]] = &[
        b"a",
        b"b",
        b"user:{1000}:profile",
        b"foo{}{bar}",
        b"\xff\x00{\xe4\xb8\xad}",
    ];
    for &key in keys {
        let slot = keyslot::key_slot(key);
        let owner = cluster.node_for_slot(slot);
        let mut right = cluster.conn_for_slot(slot);
        assert_eq!(right.port(), ports[owner]);
        let set: &[&[u8]] = &[b"SET", key, b"v"];
        assert_eq!(right.cmd(set).unwrap(), Reply::Simple("OK".into()));
        assert_eq!(
            right.cmd(&[&b"GET"[..], key]).unwrap(),
            Reply::Bulk(Some(b"v".to_vec()))
        );
        for node in (0..ports.len()).filter(|&n| n != owner) {
            let reply = cluster.conn(node).cmd(set).unwrap();
            assert_eq!(reply.error_prefix(), Some("MOVED"), "{reply:?}");
            let Reply::Error(text) = &reply else {
                unreachable!()
            };
            assert_eq!(
                *text,
                format!("MOVED {slot} 127.0.0.1:{}", ports[owner]),
                "key \"{}\" sent to node {node}",
                key.escape_ascii()
            );
        }
    }

    // Keys in different slots in one command: CROSSSLOT, whichever node gets it.
    assert_ne!(keyslot::key_slot(b"a"), keyslot::key_slot(b"b"));
    for node in 0..ports.len() {
        let reply = cluster.conn(node).cmd(&["MGET", "a", "b"]).unwrap();
        assert_eq!(reply.error_prefix(), Some("CROSSSLOT"), "{reply:?}");
    }

    // A pipeline keeps replies in order, errors included.
    let mut conn = cluster.conn(0);
    let cmds: Vec<Vec<Vec<u8>>> = (0..2500)
        .map(|i| {
            if i % 2 == 0 {
                vec![b"PING".to_vec()]
            } else {
                vec![b"NOSUCHCOMMAND".to_vec(), i.to_string().into_bytes()]
            }
        })
        .collect();
    let replies = conn.pipeline(&cmds).unwrap();
    assert_eq!(replies.len(), cmds.len());
    for (i, reply) in replies.iter().enumerate() {
        if i % 2 == 0 {
            assert_eq!(*reply, Reply::Simple("PONG".into()));
        } else {
            assert_eq!(reply.error_prefix(), Some("ERR"), "{reply:?}");
        }
    }
}
