//! Unit tests of the table and of key extraction.

use crate::extract::{fallback_for, Fallback};
use crate::*;

/// Splits a line on spaces; `''` stands for an empty argument.
fn argv(line: &str) -> Vec<Vec<u8>> {
    line.split(' ')
        .map(|a| {
            if a == "''" {
                Vec::new()
            } else {
                a.as_bytes().to_vec()
            }
        })
        .collect()
}

fn extract(line: &str) -> Result<Extraction, KeyError> {
    let owned = argv(line);
    let refs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    extract_keys(&refs)
}

/// Key indices of a line, panicking on error.
fn keys(line: &str) -> Vec<usize> {
    let ex = extract(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    ex.keys.iter().map(|k| k.index).collect()
}

/// Key names of a line, panicking on error.
fn names(line: &str) -> Vec<String> {
    let owned = argv(line);
    keys(line)
        .into_iter()
        .map(|i| String::from_utf8(owned[i].clone()).unwrap())
        .collect()
}

fn writes(line: &str) -> Vec<bool> {
    extract(line)
        .unwrap()
        .keys
        .iter()
        .map(|k| k.write)
        .collect()
}

#[test]
fn table_is_big_and_sorted() {
    let all = all_commands();
    assert!(all.len() >= 200, "only {} commands", all.len());
    assert!(all.windows(2).all(|w| w[0].name < w[1].name));
    assert!(all.iter().filter(|c| c.container.is_none()).count() >= 200);
    assert!(!REDIS_VERSION.is_empty());
    for c in all {
        assert_eq!(c.name, c.name.to_ascii_uppercase());
        for s in c.subcommands() {
            assert_eq!(s.container, Some(c.name));
        }
    }
}

#[test]
fn lookup_is_case_insensitive() {
    assert_eq!(lookup(b"get").unwrap().name, "GET");
    assert_eq!(lookup(b"GeT").unwrap().arity, 2);
    assert_eq!(lookup(b"sort_ro").unwrap().name, "SORT_RO");
    assert_eq!(lookup(b"restore-asking").unwrap().name, "RESTORE-ASKING");
    assert!(lookup(b"nosuchcommand").is_none());
    assert!(lookup(b"").is_none());
    // Subcommands are not top-level commands.
    assert!(lookup(b"object encoding").is_none());
    assert!(lookup(b"OBJECT|ENCODING").is_none());
}

#[test]
fn lookup_argv_resolves_subcommands() {
    let enc = lookup_argv(&[b"object", b"Encoding", b"k"]).unwrap();
    assert_eq!(enc.name, "OBJECT ENCODING");
    assert_eq!(enc.container, Some("OBJECT"));
    assert_eq!(enc.subcommand_name(), Some("ENCODING"));
    assert_eq!(enc.arity, 3);
    let obj = lookup_argv(&[b"OBJECT"]).unwrap();
    assert_eq!(obj.name, "OBJECT");
    assert!(obj.is_container());
    assert!(obj.subcommands().iter().any(|c| c.name == "OBJECT FREQ"));
    assert_eq!(
        lookup_argv(&[b"xinfo", b"stream", b"s"]).unwrap().name,
        "XINFO STREAM"
    );
    assert_eq!(
        lookup_argv(&[b"client", b"no-evict", b"on"]).unwrap().name,
        "CLIENT NO-EVICT"
    );
    assert!(lookup_argv(&[b"OBJECT", b"NOPE", b"k"]).is_none());
    // Not a container: argv[1] is just an argument.
    assert_eq!(lookup_argv(&[b"GET", b"encoding"]).unwrap().name, "GET");
    assert!(lookup_argv(&[]).is_none());
}

#[test]
fn flags_and_docs() {
    let get = lookup(b"GET").unwrap();
    assert!(get.has_flag(CommandFlags::READONLY));
    assert!(!get.has_flag(CommandFlags::WRITE));
    let eval = lookup(b"EVAL").unwrap();
    assert!(eval.has_flag(CommandFlags::NO_MANDATORY_KEYS | CommandFlags::MOVABLEKEYS));
    assert!(eval.has_flag(CommandFlags::NOSCRIPT));
    let georadius = lookup(b"GEORADIUS").unwrap();
    assert!(georadius.deprecated_since.is_some());
    assert_eq!(georadius.group, "geo");
    assert!(format!("{:?}", get.flags).contains("READONLY"));
    let keys = lookup(b"KEYS").unwrap();
    assert!(keys.tips.contains(&"request_policy:all_shards"));
}

#[test]
fn transaction_control() {
    assert_eq!(is_transaction_control(b"multi"), Some(TxControl::Multi));
    assert_eq!(is_transaction_control(b"EXEC"), Some(TxControl::Exec));
    assert_eq!(is_transaction_control(b"Discard"), Some(TxControl::Discard));
    assert_eq!(is_transaction_control(b"watch"), Some(TxControl::Watch));
    assert_eq!(is_transaction_control(b"UNWATCH"), Some(TxControl::Unwatch));
    assert_eq!(is_transaction_control(b"GET"), None);
    assert_eq!(is_transaction_control(b"MULTIX"), None);
    assert_eq!(keys("WATCH a b"), [1, 2]);
}

#[test]
fn takes_keys_and_several() {
    let cmd =
        |n: &str| lookup_argv(&argv(n).iter().map(Vec::as_slice).collect::<Vec<_>>()).unwrap();
    assert!(takes_keys(cmd("GET")));
    assert!(!may_take_several_keys(cmd("GET")));
    assert!(!takes_keys(cmd("PING")));
    assert!(!takes_keys(cmd("SPUBLISH"))); // shard channel: a not_key spec
    assert!(takes_keys(cmd("OBJECT ENCODING")));
    assert!(!takes_keys(cmd("OBJECT")));
    assert!(!may_take_several_keys(cmd("SET")));
    for several in [
        "MGET",
        "MSET",
        "RENAME",
        "SMOVE",
        "ZUNIONSTORE",
        "XREAD",
        "EVAL",
        "MIGRATE",
        "SORT",
        "SORT_RO",
        "GEORADIUS",
        "BLPOP",
        "LCS",
        "DEL",
    ] {
        assert!(may_take_several_keys(cmd(several)), "{several}");
    }
}

#[test]
fn representative_extractions() {
    assert_eq!(keys("MGET a b c"), [1, 2, 3]);
    assert_eq!(writes("MGET a b"), [false, false]);
    assert_eq!(keys("MSET k1 v1 k2 v2"), [1, 3]);
    assert_eq!(writes("MSET k1 v1 k2 v2"), [true, true]);
    assert_eq!(keys("RENAME a b"), [1, 2]);
    assert_eq!(keys("SMOVE src dst member"), [1, 2]);
    assert_eq!(
        names("ZUNIONSTORE dest 2 a b WEIGHTS 1 2 AGGREGATE MAX"),
        ["dest", "a", "b"]
    );
    assert_eq!(writes("ZUNIONSTORE dest 2 a b"), [true, false, false]);
    assert_eq!(names("XREAD COUNT 1 STREAMS a b 0 0"), ["a", "b"]);
    assert_eq!(
        names("XREADGROUP GROUP g c COUNT 1 NOACK STREAMS s1 s2 > >"),
        ["s1", "s2"]
    );
    assert_eq!(names("EVAL return 2 k1 k2 a1"), ["k1", "k2"]);
    assert_eq!(names("FCALL_RO f 1 k a"), ["k"]);
    assert_eq!(
        names("MIGRATE host 6379 '' 0 5000 COPY AUTH2 u p KEYS a b"),
        ["a", "b"]
    );
    assert_eq!(names("MIGRATE host 6379 '' 0 5000 KEYS a b"), ["a", "b"]);
    assert_eq!(names("MIGRATE host 6379 k 0 5000 REPLACE"), ["k"]);
    assert_eq!(names("GEORADIUS k 0 0 1 km STORE d"), ["k", "d"]);
    assert_eq!(writes("GEORADIUS k 0 0 1 km STORE d"), [false, true]);
    assert_eq!(
        names("GEORADIUSBYMEMBER k m 1 km COUNT 3 STOREDIST d"),
        ["k", "d"]
    );
    assert_eq!(names("BLPOP a b 0"), ["a", "b"]);
    assert_eq!(names("BLMPOP 0 2 a b LEFT COUNT 1"), ["a", "b"]);
    assert_eq!(names("OBJECT ENCODING k"), ["k"]);
    assert_eq!(names("MEMORY USAGE k SAMPLES 5"), ["k"]);
    assert_eq!(names("XINFO STREAM s FULL"), ["s"]);
    assert_eq!(names("LCS a b LEN"), ["a", "b"]);
    assert_eq!(names("BITOP AND d a b"), ["d", "a", "b"]);
    assert_eq!(names("SINTERCARD 2 a b LIMIT 1"), ["a", "b"]);
}

#[test]
fn sort_store_and_patterns() {
    let ex = extract("SORT k BY w_* STORE d").unwrap();
    assert_eq!(ex.keys.iter().map(|k| k.index).collect::<Vec<_>>(), [1, 5]);
    assert_eq!(
        ex.keys.iter().map(|k| k.write).collect::<Vec<_>>(),
        [false, true]
    );
    assert!(ex.incomplete);
    // A pattern without `*` is constant: BY skips sorting, GET returns nil;
    // no key is looked up, so nothing is missing.
    let ex = extract("SORT k BY p STORE d").unwrap();
    assert_eq!(ex.keys.iter().map(|k| k.index).collect::<Vec<_>>(), [1, 5]);
    assert!(!ex.incomplete);
    assert!(
        !extract("SORT k BY nosort GET # STORE d")
            .unwrap()
            .incomplete
    );
    assert!(
        extract("SORT k LIMIT 0 10 GET h_*->f ALPHA")
            .unwrap()
            .incomplete
    );
    assert_eq!(keys("SORT k LIMIT 0 10 ALPHA DESC"), [1]);
    // The last STORE wins, as in the command.
    assert_eq!(names("SORT k STORE d1 STORE d2"), ["k", "d2"]);
    let ex = extract("SORT_RO k BY w_* GET #").unwrap();
    assert_eq!(ex.keys.len(), 1);
    assert!(ex.incomplete);
}

#[test]
fn write_flags_follow_the_arguments() {
    assert_eq!(writes("SET k v"), [true]);
    let set_get = extract("SET k v GET").unwrap();
    assert!(set_get.keys[0].flags.contains(KeySpecFlags::RW));
    assert!(extract("SET k v").unwrap().keys[0]
        .flags
        .contains(KeySpecFlags::OW));
    assert_eq!(writes("BITFIELD k GET u8 0 OVERFLOW SAT"), [false]);
    assert_eq!(writes("BITFIELD k GET u8 0 SET u8 0 1"), [true]);
    assert_eq!(writes("BITFIELD_RO k GET u8 0"), [false]);
    assert_eq!(writes("DEL a b"), [true, true]);
    assert_eq!(writes("EXISTS a"), [false]);
    assert_eq!(writes("LMOVE a b LEFT RIGHT"), [true, true]);
}

#[test]
fn keyless_and_unknown() {
    assert_eq!(extract("PING").unwrap(), Extraction::default());
    assert_eq!(extract("CONFIG GET maxmemory").unwrap().keys, []);
    assert_eq!(extract("SPUBLISH ch msg").unwrap().keys, []);
    assert_eq!(
        extract("NOSUCHCOMMAND a").unwrap_err(),
        KeyError::UnknownCommand
    );
    assert_eq!(
        extract("OBJECT NOPE k").unwrap_err(),
        KeyError::UnknownCommand
    );
    assert_eq!(extract_keys(&[]).unwrap_err(), KeyError::UnknownCommand);
    // A container without its subcommand.
    assert_eq!(extract("OBJECT").unwrap_err(), KeyError::WrongArity);
    assert_eq!(extract("XINFO").unwrap_err(), KeyError::WrongArity);
}

#[test]
fn arity_errors() {
    assert_eq!(extract("GET").unwrap_err(), KeyError::WrongArity);
    assert_eq!(extract("GET a b").unwrap_err(), KeyError::WrongArity);
    assert_eq!(extract("MGET").unwrap_err(), KeyError::WrongArity);
    assert_eq!(
        extract("OBJECT ENCODING").unwrap_err(),
        KeyError::WrongArity
    );
    assert_eq!(extract("TIME now").unwrap_err(), KeyError::WrongArity);
}

#[test]
fn numkeys_errors() {
    for bad in [
        "EVAL s 999999999999 a b",
        "EVAL s 4294967297 a",
        "EVAL s -1 a",
        "EVAL s 3 a b",
        "EVAL s 2abc a b",
        "EVAL s +1 a",
        "ZUNIONSTORE d 0 a",
        "ZUNIONSTORE d 3 a b",
        "ZUNIONSTORE d x a b",
        "ZINTER 99999999999999999999999 a",
        "LMPOP 0 a LEFT",
        "BZMPOP 0 -1 a MIN",
        "SINTERCARD 0 a",
    ] {
        assert_eq!(extract(bad).unwrap_err(), KeyError::BadNumkeys, "{bad}");
    }
    // Keys are optional for scripts and functions.
    assert_eq!(extract("EVAL s 0").unwrap().keys, []);
    assert_eq!(extract("FCALL f 0 a1 a2").unwrap().keys, []);
}

#[test]
fn syntax_errors() {
    assert!(matches!(
        extract("XREAD COUNT 1 BLOCK 0"),
        Err(KeyError::Syntax(_))
    ));
    assert!(matches!(
        extract("XREAD COUNT 1 STREAMS a"),
        Err(KeyError::Syntax(_))
    ));
    assert!(matches!(
        extract("MIGRATE h 6379 k 0 5000 KEYS a b"),
        Err(KeyError::Syntax(_))
    ));
    let e = extract("XREAD COUNT 1 STREAMS a").unwrap_err();
    assert!(e.to_string().starts_with("syntax error"));
}

#[test]
fn server_quirks_are_mirrored() {
    // A trailing STORE has nothing after it: the key alone.
    assert_eq!(names("GEORADIUS k 0 0 1 km STORE"), ["k"]);
    // Both STORE and STOREDIST: both reported, in key-spec order.
    assert_eq!(
        names("GEORADIUS k 0 0 1 km STOREDIST b STORE a"),
        ["k", "a", "b"]
    );
    // Unbalanced STREAMS lists still give the first half.
    assert_eq!(names("XREAD STREAMS a b 0"), ["a"]);
    // MIGRATE's KEYS keyword is only searched from argv[6] on.
    assert_eq!(names("MIGRATE h 6379 '' 0 5000"), [""]);
    assert_eq!(names("MIGRATE h 6379 k 0 5000 AUTH keys"), ["k"]);
}

/// Every command whose specs cannot cover all invocations has a hand-written
/// fallback, so a new Redis version's table cannot slip through silently.
#[test]
fn fallbacks_cover_the_specs_that_need_them() {
    for cmd in all_commands() {
        let needs_code = cmd.key_specs.iter().any(|s| {
            s.flags
                .intersects(KeySpecFlags::INCOMPLETE | KeySpecFlags::VARIABLE_FLAGS)
                || s.begin_search == BeginSearch::Unknown
                || s.find_keys == FindKeys::Unknown
        });
        if needs_code {
            assert!(
                fallback_for(cmd).is_some() && fallback_for(cmd) != Some(Fallback::Numkeys),
                "{} needs a hand-written key procedure",
                cmd.name
            );
        }
        let keynum = cmd
            .key_specs
            .iter()
            .any(|s| matches!(s.find_keys, FindKeys::Keynum { .. }));
        assert_eq!(
            keynum,
            fallback_for(cmd) == Some(Fallback::Numkeys),
            "{}",
            cmd.name
        );
        if let Some(fb) = fallback_for(cmd) {
            assert!(cmd.container.is_none(), "{}", cmd.name);
            let _ = fb;
        }
    }
    // Every fallback names a command that exists.
    for name in [
        "SORT",
        "SORT_RO",
        "MIGRATE",
        "GEORADIUS",
        "GEORADIUSBYMEMBER",
        "XREAD",
        "XREADGROUP",
        "SET",
        "BITFIELD",
    ] {
        assert!(fallback_for(lookup(name.as_bytes()).unwrap()).is_some());
    }
}

/// A small deterministic PRNG (xorshift64*), to stay dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_argv_never_panics() {
    let names: Vec<&str> = all_commands()
        .iter()
        .map(|c| c.subcommand_name().unwrap_or(c.name))
        .collect();
    let words: &[&[u8]] = &[
        b"STREAMS",
        b"streams",
        b"KEYS",
        b"keys",
        b"STORE",
        b"STOREDIST",
        b"BY",
        b"GET",
        b"LIMIT",
        b"AUTH",
        b"AUTH2",
        b"COPY",
        b"REPLACE",
        b"GROUP",
        b"COUNT",
        b"BLOCK",
        b"NOACK",
        b"WEIGHTS",
        b"SET",
        b"INCRBY",
        b"OVERFLOW",
        b"0",
        b"1",
        b"2",
        b"3",
        b"-1",
        b"-0",
        b"01",
        b"+1",
        b"999999999999",
        b"4294967297",
        b"9223372036854775807",
        b"-9223372036854775808",
        b"99999999999999999999999",
        b"",
        b"*",
        b"#",
        b"w_*",
        b"a",
        b"b",
        b"\xff\x00",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..200_000 {
        let len = rng.below(12);
        let mut owned: Vec<Vec<u8>> = Vec::with_capacity(len);
        for i in 0..len {
            let arg = match rng.below(10) {
                0..=1 if i < 2 => names[rng.below(names.len())].as_bytes().to_vec(),
                0..=6 => words[rng.below(words.len())].to_vec(),
                _ => (0..rng.below(6)).map(|_| rng.next() as u8).collect(),
            };
            owned.push(arg);
        }
        let refs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        if let Ok(ex) = extract_keys(&refs) {
            assert!(ex.keys.len() <= 3 * refs.len());
            for k in &ex.keys {
                assert!(k.index >= 1 && k.index < refs.len(), "{refs:?} -> {ex:?}");
            }
        }
        let _ = lookup_argv(&refs);
    }
}

/// Every command, called with its minimal arity of plausible arguments, never
/// panics and never reports an out-of-range key.
#[test]
fn every_command_at_its_arity() {
    for cmd in all_commands() {
        let mut owned: Vec<Vec<u8>> = cmd.name.split(' ').map(|s| s.as_bytes().to_vec()).collect();
        let want = cmd.arity.unsigned_abs() as usize;
        for extra in 0..4 {
            while owned.len() < want + extra {
                owned.push(b"1".to_vec());
            }
            let refs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
            if let Ok(ex) = extract_keys(&refs) {
                for k in &ex.keys {
                    assert!(k.index < refs.len(), "{}", cmd.name);
                }
            }
        }
    }
}
