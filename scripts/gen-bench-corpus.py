#!/usr/bin/env python3
"""Writes Redis-heavy source files for the benchmarks: redis-py modules, Redis Lua
scripts and redis-cli command files, deterministic for a given seed.

Every file uses Redis on most of its lines, the way application code does: keys
built with f-strings, `%`, `.format` and concatenation; hash-tagged and untagged
multi-key calls; transaction pipelines; registered scripts; helper classes. A few
operations in each file are cross-slot, so the linter has findings to report.

    python3 scripts/gen-bench-corpus.py OUT_DIR [--python N] [--lua N] [--redis N]
                                        [--lines N] [--seed N]
"""

import argparse
import os
import random

ENTITIES = ["user", "order", "cart", "session", "job", "team", "invoice", "feed", "rank"]
FIELDS = ["profile", "items", "status", "meta", "seen", "queue", "lock", "counts", "log"]
ONE_KEY = ["get", "incr", "hgetall", "ttl", "smembers", "type", "exists", "lpop", "strlen"]


def py_key(rng, entity, var, tagged):
    field = rng.choice(FIELDS)
    style = rng.randrange(4)
    if tagged:
        if style == 0:
            return f'f"{{{{{entity}:{{{var}}}}}}}:{field}"'
        if style == 1:
            return f'"{{{entity}:%s}}:{field}" % {var}'
        if style == 2:
            return f'"{{{{{entity}:{{}}}}}}:{field}".format({var})'
        return f'"{{{entity}:" + str({var}) + "}}:{field}"'
    if style == 0:
        return f'f"{entity}:{{{var}}}:{field}"'
    if style == 1:
        return f'"{entity}:%s:{field}" % {var}'
    if style == 2:
        return f'"{entity}:{{}}:{field}".format({var})'
    return f'"{entity}:" + str({var}) + ":{field}"'


def py_function(rng, i):
    e = rng.choice(ENTITIES)
    v = "uid"
    tagged = rng.random() < 0.85
    k1, k2, k3 = (py_key(rng, e, v, tagged) for _ in range(3))
    lines = [
        f"def handle_{e}_{i}(r, {v}, payload):",
        f'    """Handles {e} event {i}."""',
        f"    current = r.{rng.choice(ONE_KEY)}({k1})",
        f"    values = r.mget({k1}, {k2})",
        "    if not values:",
        "        return None",
        "    with r.pipeline(transaction=True) as pipe:",
        f"        pipe.incr({k2})",
        f"        pipe.expire({k3}, {rng.randrange(60, 86400)})",
        "        pipe.execute()",
    ]
    if rng.random() < 0.3:
        n = rng.randrange(1000)
        lines.append(f'    r.rename("job:{n}:pending", "job:{n}:done")')
    if rng.random() < 0.3:
        lines.append(f"    r.sinterstore({k1}, [{k2}, {k3}])")
    lines += [
        f"    r.hset({k1}, mapping={{'n': {i}, 'v': payload}})",
        "    return current",
        "",
        "",
    ]
    return lines


def py_class(rng, i):
    e = rng.choice(ENTITIES)
    return [
        f"class {e.capitalize()}Store{i}:",
        "    def __init__(self, client: redis.Redis):",
        "        self.redis = client",
        "",
        "    def load(self, uid):",
        f'        return self.redis.mget(f"{{{{{e}:{{uid}}}}}}:a", f"{{{{{e}:{{uid}}}}}}:b")',
        "",
        "    def save(self, uid, value):",
        "        pipe = self.redis.pipeline(transaction=True)",
        f'        pipe.set(f"{{{{{e}:{{uid}}}}}}:a", value)',
        f'        pipe.set(f"{{{{{e}:{{uid}}}}}}:b", value)',
        "        pipe.execute()",
        "",
        "",
    ]


def python_module(rng, lines):
    out = [
        '"""Generated Redis-heavy module for the redis-keylint benchmarks."""',
        "",
        "import redis",
        "",
        "r = redis.Redis()",
        'INCR = r.register_script("return redis.call(\'INCR\', KEYS[1])")',
        "",
        "",
    ]
    i = 0
    while len(out) < lines:
        out += py_class(rng, i) if rng.random() < 0.2 else py_function(rng, i)
        i += 1
    return "\n".join(out) + "\n"


def lua_script(rng, lines):
    out = [
        "-- Generated Redis-heavy script for the redis-keylint benchmarks.",
        "local uid = ARGV[1]",
        "local now = tonumber(ARGV[2])",
    ]
    i = 0
    while len(out) < lines:
        e = rng.choice(ENTITIES)
        f1, f2 = rng.choice(FIELDS), rng.choice(FIELDS)
        # Each step in its own block: Lua allows 200 locals per function.
        out += [
            "do",
            f"  local v = redis.call('GET', KEYS[1] .. ':{f1}')",
            f"  redis.call('MGET', '{{{e}:' .. uid .. '}}:{f1}', '{{{e}:' .. uid .. '}}:{f2}')",
            "  if v then",
            f"    redis.call('HINCRBY', KEYS[1], '{f2}', {i})",
            f"    redis.call('EXPIRE', KEYS[1], {rng.randrange(60, 86400)})",
            "  end",
        ]
        if rng.random() < 0.2:
            n = rng.randrange(1000)
            out.append(f"  redis.call('RENAME', 'job:{n}:pending', 'job:{n}:done')")
        out.append("end")
        i += 1
    out.append("return 1")
    return "\n".join(out) + "\n"


def redis_cli_file(rng, lines):
    out = ["# Generated redis-cli command file for the redis-keylint benchmarks."]
    i = 0
    while len(out) < lines:
        e = rng.choice(ENTITIES)
        n = rng.randrange(100000)
        f1, f2 = rng.choice(FIELDS), rng.choice(FIELDS)
        out += [
            f"MGET {{{e}:{n}}}:{f1} {{{e}:{n}}}:{f2}",
            f"SET {e}:{n}:{f1} \"value {i}\"",
            "MULTI",
            f"INCR {{{e}:{n}}}:{f1}",
            f"EXPIRE {{{e}:{n}}}:{f2} 3600",
            "EXEC",
        ]
        if rng.random() < 0.2:
            out.append(f"MGET {e}:{n}:{f1} {e}:{n}:{f2}")
        i += 1
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--python", type=int, default=300)
    ap.add_argument("--lua", type=int, default=100)
    ap.add_argument("--redis", type=int, default=50)
    ap.add_argument("--lines", type=int, default=300, help="lines per file")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument(
        "--exact", action="store_true", help="every file has exactly --lines lines, flat"
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for kind, count, ext, make in [
        ("python", args.python, "py", python_module),
        ("lua", args.lua, "lua", lua_script),
        ("redis-cli", args.redis, "redis", redis_cli_file),
    ]:
        for i in range(count):
            if args.exact:
                d, lines = args.out, args.lines
            else:
                # Spread the files over a few package directories, like a real tree.
                d = os.path.join(args.out, kind, f"pkg{i % 10}")
                lines = max(20, int(rng.gauss(args.lines, args.lines / 4)))
            os.makedirs(d, exist_ok=True)
            text = make(rng, lines)
            if args.exact:
                text = "".join(text.splitlines(keepends=True)[: args.lines])
            with open(os.path.join(d, f"mod_{i}.{ext}"), "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
