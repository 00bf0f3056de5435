//! The byte-level test that decides whether a Lua or Python file can reach Redis at
//! all. Files that fail it are never parsed, so it must never reject a file the
//! frontends would report on: it only rejects text where every `redis` is part of an
//! ordinary English word (`redistribute`, `redisplay`, `predisposed`), which is what
//! licence headers and prose contain.

/// Letters that, following `redis`, make an English word rather than a name.
/// Compared case-insensitively against the bytes after the match.
const WORD_TAILS: &[&[u8]] = &[
    b"tribut", // redistribute, redistribution, redistributable
    b"trict",  // redistrict
    b"play",   // redisplay
    b"cover",  // rediscover, rediscovery
    b"pos",    // redispose, predispose, predisposition
    b"solv",   // redissolve
    b"count",  // rediscount
    b"burs",   // redisburse
    b"pers",   // redisperse
    b"till",   // redistill
    b"cuss",   // rediscuss
    b"ciplin", // rediscipline
];

/// Whether `source` mentions Redis: `redis`, `Redis` or `REDIS` anywhere except as
/// the start of one of the English words above. Module names (`redis`, `aioredis`),
/// class names (`Redis`, `StrictRedis`, `RedisCluster`), variables (`redis_client`,
/// `REDIS_URL`) and Lua's `redis.call` all count, and so do the names of valkey-py,
/// redis-py's fork.
pub fn mentions_redis(source: &[u8]) -> bool {
    // "edis" finds both `redis` and `Redis`; `REDIS` is searched on its own.
    for (needle, skip) in [(b"edis".as_slice(), 1usize), (b"REDIS".as_slice(), 0)] {
        let finder = memchr::memmem::Finder::new(needle);
        for at in finder.find_iter(source) {
            let start = if skip == 1 {
                match at.checked_sub(1).map(|i| source[i]) {
                    Some(b'r' | b'R') => at - 1,
                    _ => continue,
                }
            } else {
                at
            };
            let tail = &source[start + 5..];
            if !is_word_tail(tail) {
                return true;
            }
        }
    }
    mentions_valkey(source)
}

/// Whether `source` names valkey-py, redis-py's fork (`import valkey`, `Valkey(…)`,
/// `VALKEY_URL`): a file that uses it may never write `redis`.
fn mentions_valkey(source: &[u8]) -> bool {
    memchr::memmem::find_iter(source, b"alkey")
        .any(|at| at > 0 && matches!(source[at - 1], b'v' | b'V'))
        || memchr::memmem::find(source, b"VALKEY").is_some()
}

fn is_word_tail(tail: &[u8]) -> bool {
    WORD_TAILS
        .iter()
        .any(|w| tail.len() >= w.len() && tail[..w.len()].eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::mentions_redis;

    #[test]
    fn names_count() {
        for s in [
            "import redis",
            "from redis import Redis",
            "import aioredis",
            "c = StrictRedis()",
            "RedisCluster(host='x')",
            "REDIS_URL = 'redis://'",
            "redis_client.mget(a, b)",
            "local r = redis\nr.call('GET', KEYS[1])",
            "redis.call('GET', KEYS[1])",
            "x = redis",
            "redis",
            "import valkey",
            "from valkey.asyncio import Valkey",
            "VALKEY_URL = 'valkey://'",
        ] {
            assert!(mentions_redis(s.as_bytes()), "{s}");
        }
    }

    #[test]
    fn english_words_do_not() {
        for s in [
            "",
            "Redistribution and use in source and binary forms",
            "you may redistribute it",
            "REDISTRIBUTION OF THIS SOFTWARE",
            "readline.redisplay()",
            "predisposed to fail",
            "rediscovered the edison bulb",
            "reds is not it; r edis neither",
            "alkeyl is no client; nor is v alkey",
        ] {
            assert!(!mentions_redis(s.as_bytes()), "{s}");
        }
    }

    #[test]
    fn a_word_elsewhere_does_not_hide_a_name() {
        assert!(mentions_redis(b"# redistribute freely\nimport redis\n"));
        assert!(mentions_redis(b"REDISTRIBUTE; r = Redis()"));
    }
}
