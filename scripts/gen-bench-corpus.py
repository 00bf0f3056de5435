#!/usr/bin/env python3
"""Writes Redis-heavy source files for the benchmarks: redis-py modules, Redis Lua
scripts and redis-cli command files, deterministic for a given seed.

Every file uses Redis on most of its lines, the way application code does: keys
built with f-strings, `%`, `.format` and concatenation; hash-tagged and untagged
multi-key calls; transaction pipelines; registered scripts; helper classes. A few
operations in each file are cross-slot, so the linter has findings to report.

    python3 scripts/gen-bench-corpus.py OUT_DIR [--python N] [--lua N] [--redis N]
                                        [--lines N] [--seed N]
    python3 scripts/gen-bench-corpus.py OUT_DIR --project N [--python N] [--seed N]

`--project N` writes a repository of N Python files instead: a package whose shared
modules hold the key builders, constants, connection factory and model classes, and
`--python` redis-using modules spread over subpackages that import them (`from
..keys import job_key`, `from app.conn import get_connection`, `Job(id).key`); the
other files are ordinary Python that never mentions Redis.
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


PROJECT_KEYS = """\
# Key names shared by the whole application.
PREFIX = "app:"
JOB_PREFIX = PREFIX + "job:"
QUEUE_FORMAT = "app:queue:{}"
USER_TAG = "app:{user:%s}"


def job_key(job_id):
    return f"{JOB_PREFIX}{job_id}"


def queue_key(name):
    return QUEUE_FORMAT.format(name)


def user_key(user_id, part):
    return (USER_TAG % user_id) + ":" + part
"""

PROJECT_CONN = """\
import redis

client = None


def configure(url):
    global client
    client = redis.Redis.from_url(url)


def get_connection():
    return redis.Redis.from_url("redis://localhost:6379/0")
"""

PROJECT_MODELS = """\
from .conn import get_connection
from .keys import JOB_PREFIX


class Queue:
    key_prefix = "app:queue:"

    def __init__(self, name, connection=None):
        self.name = name
        self.key = self.key_prefix + name
        self.connection = connection or get_connection()


class Job:
    def __init__(self, job_id):
        self.id = job_id
        self.key = JOB_PREFIX + job_id

    @property
    def dependents_key(self):
        return self.key + ":dependents"
"""


def project_redis_module(rng, i, depth):
    up = "." * (depth + 1)
    out = [
        '"""Redis-using module of the generated project."""',
        "",
        f"from {up}keys import job_key, queue_key, user_key",
        "from app.conn import get_connection",
        f"from {up}models import Job, Queue",
        f"from {up} import conn",
        "",
        "",
    ]
    for j in range(rng.randrange(4, 9)):
        e = rng.choice(ENTITIES)
        kind = rng.randrange(5)
        out.append(f"def {e}_{i}_{j}(name, job_id, user_id):")
        out.append("    r = get_connection()")
        if kind == 0:
            out.append("    r.smove(queue_key(name), queue_key('done'), job_id)")
        elif kind == 1:
            out.append("    job = Job(job_id)")
            out.append("    Queue(name).connection.mget(job.key, job.dependents_key)")
        elif kind == 2:
            f1, f2 = rng.sample(FIELDS, 2)
            out.append(f"    r.mget(user_key(user_id, '{f1}'), user_key(user_id, '{f2}'))")
        elif kind == 3:
            out.append("    conn.client.rename(job_key(job_id), Job(job_id).key)")
        else:
            out.append(f"    r.{rng.choice(ONE_KEY)}(job_key(job_id))")
        out += ["    return r", "", ""]
    return "\n".join(out) + "\n"


def plain_module(rng, i):
    out = [f'"""Ordinary module {i} of the generated project."""', "", "import os", ""]
    for j in range(rng.randrange(5, 15)):
        out += [
            f"def helper_{i}_{j}(path, count={j}):",
            "    parts = os.path.split(path)",
            f"    return [p * count for p in parts if p] + [{i}, {j}]",
            "",
            "",
        ]
    return "\n".join(out) + "\n"


def project(out, files, redis_modules, rng):
    app = os.path.join(out, "app")
    os.makedirs(app, exist_ok=True)
    with open(os.path.join(out, "pyproject.toml"), "w") as f:
        f.write('[project]\nname = "app"\n')
    for name, text in [
        ("__init__.py", ""),
        ("keys.py", PROJECT_KEYS),
        ("conn.py", PROJECT_CONN),
        ("models.py", PROJECT_MODELS),
    ]:
        with open(os.path.join(app, name), "w") as f:
            f.write(text)
    written = 4
    for i in range(files - written):
        # Two levels of subpackages, like a real tree.
        a, b = i % 20, (i // 20) % 10
        d = os.path.join(app, f"part{a}", f"sub{b}")
        if not os.path.exists(d):
            os.makedirs(d)
            for p in [os.path.join(app, f"part{a}"), d]:
                open(os.path.join(p, "__init__.py"), "a").close()
        if i < redis_modules:
            text = project_redis_module(rng, i, 2)
        else:
            text = plain_module(rng, i)
        with open(os.path.join(d, f"mod_{i}.py"), "w") as f:
            f.write(text)


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
    ap.add_argument("--project", type=int, default=0, help="a project of N Python files")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.project:
        project(args.out, args.project, args.python, rng)
        return
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
