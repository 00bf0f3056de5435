#!/usr/bin/env python3
"""Checks redis-keylint's redis-py method table against the installed redis-py and a
live Redis Cluster.

The table (crates/keylint-python/src/redis_py_methods.txt) says, for every redis-py
method that may send several keys in one command, where its keys are in the Python
signature, what `RedisCluster` does when they span slots, and what a cluster pipeline
does with the method. Every other method named after a one-key command is assumed to
take its key as its first parameter. This script checks all of it:

1. signatures: each method exists on redis.Redis, RedisCluster and their asyncio
   twins, with the named parameter at the stated position;
2. keys: the method is called with marker arguments on a client whose
   execute_command only records the command; the server's `COMMAND GETKEYS` on that
   command must name exactly the markers the table says are keys;
3. cluster behaviour: the same call on RedisCluster with keys in different slots
   must raise "all keys must map to the same key slot" (refuse, script) or not
   (split, nonatomic); a row with pattern parameters (SORT's BY and GET) is called
   with untagged patterns, which the node refuses;
4. pipeline behaviour: the same call on a cluster pipeline must be queued and then
   refused (ok), raise at once (blocked, single) or run outside the pipeline (direct);
5. the one-key rule, on every public method of redis.Redis named after a one-key
   command: its first parameter is the key the server reads;
6. completeness: every command the server says may take several keys has a row, or
   is listed below as deliberately not modelled;
7. SORT patterns: `by=` and `get=` are sent as `BY p` and `GET p` pairs, and the node
   refuses or accepts ten patterns (nosort, no `*`, untagged, tagged with another
   slot, tagged with the sorted key's) as the rule `sort-pattern` says for the
   server's version;
8. module command objects: every RedisTimeSeries method the linter reads on
   `pipe.ts()` (the table `ts_single_key` of crates/keylint-python/src/lower.rs), and
   RedisJSON's `set`/`get` on `pipe.json()`, called on a pipeline, is queued on that
   pipeline as the stated command with its first argument first. The server under
   test has no modules, so only the client's side is checked here.

It needs a cluster node: `--port PORT` (host 127.0.0.1). The live conformance test
(crates/conformance/tests/python_redis_py.rs) runs it against its own cluster. Exit
status 0 when everything agrees, 1 otherwise. It never writes keys other than the
markers it uses.
"""

import argparse
import asyncio
import inspect
import os
import re
import sys

import redis
import redis.asyncio
import redis.asyncio.cluster
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException, ResponseError

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "crates", "keylint-python", "src", "redis_py_methods.txt")

# Multi-key server commands the table deliberately leaves out.
NOT_MODELLED = {
    "sort_ro": "redis-py's sort_ro sends SORT (its row is checked as SORT); the command "
    "SORT_RO reads one key, and its BY and GET patterns are not keys",
    "watch": "a pipeline's WATCH is modelled as part of its transaction",
    "migrate": "moves keys to another server; not a slot co-location question",
    "ssubscribe": "shard channels, not keys",
    "sunsubscribe": "shard channels, not keys",
}

SLOT_ERROR = "all keys must map to the same key slot"
# A node's refusal of a SORT pattern that may form keys of other slots.
SORT_REFUSAL = "option of SORT denied in Cluster mode"


def parse_table(path):
    rows, blocked_single, not_first = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cols = line.split()
            if cols[0] == "blocked-single":
                blocked_single += cols[1:]
                continue
            if cols[0] == "not-first-key":
                not_first += cols[1:]
                continue
            params = []
            for p in cols[4:]:
                index, name, kind = p.split(":")
                params.append((int(index), name, kind))
            rows.append(
                {
                    "method": cols[0],
                    "command": cols[1],
                    "cluster": cols[2],
                    "pipeline": cols[3],
                    "params": params,
                }
            )
    return rows, blocked_single, not_first


# Values for required parameters that carry no keys, by name.
FILLERS = {
    "timeout": 1,
    "value": "v",
    "operation": "AND",
    "longitude": 0.0,
    "latitude": 0.0,
    "radius": 1.0,
    "member": "m",
    "start": 0,
    "end": 1,
    "groupname": "g",
    "consumername": "c",
    "direction": "LEFT",
    "numkeys": 2,
    "num_keys": 2,
    "sha": "0" * 40,
    "function": "f",
    "script": "return 1",
    "id": "0-0",
    "time": 10,
    "amount": 1,
    "index": 0,
    "count": 1,
    "field": "f",
    "key": "f",
    "mapping": {"f": "v"},
    "values": ["v"],
    "members": ["m"],
    "fields": ["f"],
    "items": ["i"],
    "offset": 0,
    "pattern": "*",
    "min": 0,
    "max": 1,
    "increment": 1,
    "ttl": 0,
    "groupname_": "g",
    "encoding": "utf-8",
}


# Optional arguments some methods cannot do without.
EXTRA = {
    "zmpop": {"min": True},
    "bzmpop": {"min": True},
    "geosearchstore": {"member": "m", "radius": 1.0},
}

# Key parameters that cannot be given together with another one (checked separately
# would need a second call; their position and name are still checked).
ALTERNATIVE = {
    "georadius": {"store_dist"},
    "georadiusbymember": {"store_dist"},
}


# Arguments for the one-key check where the generic fillers do not fit.
ONE_KEY_FILLERS = {
    ("xadd", "fields"): {"f": "v"},
    ("geoadd", "values"): [0.0, 0.0, "m"],
    ("xclaim", "message_ids"): ["0-0"],
    ("xclaim", "min_idle_time"): 1,
    ("xtrim", "maxlen"): 1,
    ("bitfield", "key"): "k",
}
ONE_KEY_EXTRA = {
    "hset": {"key": "f", "value": "v"},
    "geosearch": {"member": "m", "radius": 1.0},
    "xtrim": {"maxlen": 1},
}


class Recorder:
    """Stands in for a client's execute_command: records the command."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append([a if isinstance(a, (bytes, str)) else str(a) for a in args])
        return None


def marker_call(row, slots_apart):
    """Positional and keyword arguments for a table row, and the expected keys."""
    keys = []
    counter = [0]

    def key():
        counter[0] += 1
        k = slots_apart[counter[0] % len(slots_apart)]
        keys.append(k)
        return k

    params = {i: (name, kind) for i, name, kind in row["params"]}
    method = getattr(redis.Redis, row["method"], None) or getattr(RedisCluster, row["method"])
    sig = list(inspect.signature(method).parameters.values())[1:]
    pos, kw = [], {}
    numkeys = None
    positional_done = False
    for i, p in enumerate(sig):
        if i in params and params[i][0] in ALTERNATIVE.get(row["method"], ()):
            continue
        if i in params:
            name, kind = params[i]
            if kind == "key":
                v = key()
            elif kind == "keys":
                v = [key(), key()]
            elif kind == "keysmap":
                v = [key(), key()]
            elif kind == "map":
                v = {key(): 1, key(): 2}
            elif kind == "varkeys":
                pos.extend([key(), key()])
                positional_done = True
                continue
            elif kind == "body":
                v = "return 1"
            elif kind == "numkeys":
                numkeys = 2
                v = 2
            elif kind == "numkeyed":
                pos.extend([key(), key(), "arg1"])
                positional_done = True
                continue
            elif kind == "pattern":
                # Not a key: an untagged pattern of other keys, which a node refuses.
                v = "keylint:weight_*"
            elif kind == "patterns":
                v = ["#", "keylint:object_*->f"]
            else:
                raise ValueError(kind)
        elif p.kind is inspect.Parameter.VAR_POSITIONAL or p.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        elif p.default is not inspect.Parameter.empty:
            continue
        elif p.name in FILLERS:
            v = FILLERS[p.name]
        else:
            v = 1
        if p.kind is inspect.Parameter.KEYWORD_ONLY or positional_done:
            kw[p.name] = v
        elif p.default is not inspect.Parameter.empty and i in params:
            kw[p.name] = v
        else:
            pos.append(v)
    kw.update(EXTRA.get(row["method"], {}))
    # Methods with a count of keys (sintercard, zmpop, lmpop, …) need it to match.
    for i, p in enumerate(sig):
        if p.name in ("numkeys", "num_keys") and i not in params and numkeys is None:
            n = len(keys)
            if i < len(pos):
                pos[i] = n
            else:
                kw[p.name] = n
    return pos, kw, keys


def slots_apart_keys(rc):
    """Marker keys that hash to different slots (and nodes)."""
    out, slots = [], set()
    i = 0
    while len(out) < 8:
        k = f"keylint:marker:{i}"
        s = rc.keyslot(k)
        if s not in slots:
            slots.add(s)
            out.append(k)
        i += 1
    return out


def getkeys(node, argv):
    # redis-py sends a first argument like "XGROUP CREATE" as two words.
    if argv and isinstance(argv[0], str):
        argv = argv[0].split() + list(argv[1:])
    try:
        res = node.execute_command("COMMAND GETKEYS", *argv)
    except ResponseError as e:
        return None, str(e)
    return sorted(k.decode() if isinstance(k, bytes) else k for k in res), None


def check_signatures(row, failures):
    name = row["method"]
    classes = [RedisCluster, redis.asyncio.cluster.RedisCluster]
    if row["cluster"] != "nonatomic":
        classes += [redis.Redis, redis.asyncio.Redis]
    for cls in classes:
        m = getattr(cls, name, None)
        if m is None:
            failures.append(f"{name}: missing on {cls.__module__}.{cls.__name__}")
            continue
        params = list(inspect.signature(m).parameters.values())[1:]
        for index, pname, kind in row["params"]:
            if index >= len(params):
                failures.append(f"{name}: no parameter {index} on {cls.__name__}")
                continue
            p = params[index]
            if kind in ("varkeys", "numkeyed"):
                if p.kind is not inspect.Parameter.VAR_POSITIONAL:
                    failures.append(f"{name}: parameter {index} of {cls.__name__} is not *args")
            elif p.name != pname:
                failures.append(
                    f"{name}: parameter {index} of {cls.__name__} is `{p.name}`, table says `{pname}`"
                )


def classify_pipeline(rc, row, pos, kw):
    pipe = rc.pipeline()
    try:
        res = getattr(pipe, row["method"])(*pos, **kw)
    except RedisClusterException as e:
        msg = str(e)
        if SLOT_ERROR in msg:
            return "ok", msg
        if "multiple keys is not implemented" in msg:
            return "single", msg
        return "blocked", msg
    except TypeError as e:
        return "blocked", str(e)
    if res is not pipe:
        return "direct", repr(res)
    try:
        pipe.execute()
    except RedisClusterException as e:
        if SLOT_ERROR in str(e):
            return "ok", str(e)
        return "blocked?", str(e)
    except ResponseError as e:
        if SORT_REFUSAL in str(e):
            # Queued like any command; the node refused its pattern.
            return "ok", str(e)
        return "ok?", str(e)
    finally:
        pipe.reset()
    return "no error", ""


def check_rows(rows, rc, node, failures, notes):
    markers = slots_apart_keys(rc)
    for row in rows:
        name = row["method"]
        check_signatures(row, failures)
        pos, kw, keys = marker_call(row, markers)
        # 2. keys, through the command the standalone client builds.
        if row["cluster"] != "nonatomic":
            client = redis.Redis()
            rec = Recorder()
            client.execute_command = rec
            try:
                getattr(client, name)(*pos, **kw)
            except Exception as e:  # noqa: BLE001 - any failure is a finding here
                failures.append(f"{name}: recording the command failed: {e!r}")
                continue
            if not rec.calls:
                failures.append(f"{name}: sent no command")
                continue
            argv = rec.calls[0]
            if str(argv[0]).upper() != row["command"]:
                failures.append(f"{name}: sends {argv[0]}, table says {row['command']}")
            got, err = getkeys(node, argv)
            if err:
                failures.append(f"{name}: COMMAND GETKEYS {argv}: {err}")
            elif got != sorted(keys):
                failures.append(f"{name}: server keys {got}, table keys {sorted(keys)} (argv {argv})")
        # 3. what RedisCluster does across slots.
        try:
            getattr(rc, name)(*pos, **kw)
            outcome = "accepted"
        except RedisClusterException as e:
            outcome = "refused" if SLOT_ERROR in str(e) else f"other: {e}"
        except ResponseError as e:
            outcome = "refused" if "CROSSSLOT" in str(e) or SORT_REFUSAL in str(e) else f"accepted ({e})"
        want = "refused" if row["cluster"] in ("refuse", "script") else "accepted"
        if not outcome.startswith(want):
            failures.append(f"{name}: RedisCluster {outcome}, table says {row['cluster']}")
        # 4. what a cluster pipeline does.
        got, msg = classify_pipeline(rc, row, pos, kw)
        if got != row["pipeline"]:
            failures.append(f"{name}: cluster pipeline {got} ({msg}), table says {row['pipeline']}")
        rc.flushall()
    notes.append(f"{len(rows)} multi-key methods checked")


def check_sort_patterns(rows, rc, failures, notes):
    """SORT's BY and GET patterns: sent as `BY p` and `GET p` pairs, and refused by a
    node exactly as the rule `sort-pattern` says for the server under test."""
    checked = 0
    for row in rows:
        kinds = {name: kind for _, name, kind in row["params"] if kind in ("pattern", "patterns")}
        if not kinds:
            continue
        method = row["method"]
        by = next(n for n, k in kinds.items() if k == "pattern")
        get = next(n for n, k in kinds.items() if k == "patterns")
        client = redis.Redis()
        rec = Recorder()
        client.execute_command = rec
        getattr(client, method)("k", **{by: "w_*", get: ["#", "o_*->f"]})
        argv = [a.decode() if isinstance(a, bytes) else a for a in rec.calls[0]]
        pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1)]
        for pair in (("BY", "w_*"), ("GET", "#"), ("GET", "o_*->f")):
            if pair not in pairs:
                failures.append(f"{method}: {pair} not sent as a pair: {argv}")
        info = rc.get_default_node().redis_connection.info("server")
        version = tuple(int(x) for x in info["redis_version"].split(".")[:2])
        key = "{keylint:list}:ids"
        other = "{keylint:weights}"
        if rc.keyslot(other[1:-1]) == rc.keyslot("keylint:list"):
            failures.append("the marker tags share a slot")
        # (arguments, refused by every version, refused before 7.4)
        cases = [
            ({by: "nosort"}, False, False),
            ({by: "weight"}, False, False),
            ({by: "w_*"}, True, True),
            ({by: "keylint:w_*"}, True, True),
            ({get: "o_*->f"}, True, True),
            ({get: ["#", "o_*"]}, True, True),
            ({by: other + ":w_*"}, True, True),
            ({get: other + ":o_*"}, True, True),
            ({by: "{keylint:list}:w_*"}, False, True),
            ({get: "{keylint:list}:o_*"}, False, True),
        ]
        for kw, always, before_74 in cases:
            rc.rpush(key, 1, 2)
            try:
                getattr(rc, method)(key, **kw)
                refused = False
            except ResponseError as e:
                if SORT_REFUSAL not in str(e):
                    failures.append(f"{method}({kw}): {e}")
                    continue
                refused = True
            want = before_74 if version < (7, 4) else always
            if refused != want:
                failures.append(
                    f"{method}({kw}) on Redis {info['redis_version']}: "
                    f"{'refused' if refused else 'accepted'}, expected the opposite"
                )
            checked += 1
        rc.delete(key)
    notes.append(f"SORT patterns: {checked} calls refused or accepted as expected")


LOWER = os.path.join(HERE, "..", "crates", "keylint-python", "src", "lower.rs")


def check_module_commands(failures, notes):
    """Methods of `pipe.ts()` and `pipe.json()` queue their command on the pipeline,
    with the key the linter reads (the first argument) right after the command name."""
    with open(LOWER, encoding="utf-8") as f:
        src = f.read()
    body = src[src.index("fn ts_single_key"):]
    body = body[: body.index("_ => return None")]
    ts = re.findall(r'"(\w+)" => "(TS\.\w+)"', body)
    if len(ts) < 5:
        failures.append(f"ts_single_key: read {len(ts)} rows from {LOWER}")
    calls = [("ts", m, cmd) for m, cmd in ts] + [("json", "set", "JSON.SET"), ("json", "get", "JSON.GET")]
    args = {
        "add": ("keylint:m", 1, 2.0),
        "create": ("keylint:m",),
        "alter": ("keylint:m",),
        "get": ("keylint:m",),
        "incrby": ("keylint:m", 1),
        "decrby": ("keylint:m", 1),
        "range": ("keylint:m", "-", "+"),
        "revrange": ("keylint:m", "-", "+"),
        "delete": ("keylint:m", 0, 1),
        "info": ("keylint:m",),
        "set": ("keylint:m", "$", {"a": 1}),
    }
    for accessor, method, cmd in calls:
        pipe = redis.Redis().pipeline()
        a = args.get(method)
        if a is None:
            failures.append(f"{accessor}().{method}: no marker arguments for it here")
            continue
        try:
            getattr(getattr(pipe, accessor)(), method)(*a)
        except Exception as e:  # noqa: BLE001
            failures.append(f"{accessor}().{method}: calling it on a pipeline failed: {e!r}")
            continue
        stack = pipe.command_stack
        if len(stack) != 1:
            failures.append(f"{accessor}().{method}: {len(stack)} commands queued on the pipeline, not 1")
            continue
        # redis-py queues `(args, options)` pairs (a command object in some versions).
        queued = stack[0].args if hasattr(stack[0], "args") else stack[0][0]
        argv = [x.decode() if isinstance(x, bytes) else x for x in queued]
        if argv[:2] != [cmd, "keylint:m"]:
            failures.append(f"{accessor}().{method}: queued {argv[:2]}, the linter reads {cmd} keylint:m")
    notes.append(f"module command objects: {len(calls)} methods queue on a pipeline with their key first")


def norm(obj):
    """Bytes to str, recursively."""
    if isinstance(obj, bytes):
        return obj.decode()
    if isinstance(obj, dict):
        return {norm(k): norm(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [norm(v) for v in obj]
    return obj


def command_info(node):
    """Every command and subcommand by lower-case name (`xgroup|create`)."""
    out = {}
    for name, cmd in norm(node.command()).items():
        subs = []
        for s in cmd.get("subcommands") or []:
            if isinstance(s, list) and len(s) > 8:
                sub = {
                    "name": s[0],
                    "flags": s[2],
                    "first_key_pos": s[3],
                    "last_key_pos": s[4],
                    "key_specifications": s[8],
                }
                out[s[0]] = sub
                subs.append(sub)
        cmd["subcommands"] = subs
        out[name] = cmd
    return out


def one_key_rule(method, info, table_methods, not_first):
    """The Python twin of keylint_python::methods::single_key_command."""
    if method in not_first or method in table_methods or method.startswith("_"):
        return None
    name = method.lower()
    key_index = 1
    cmd = None
    if "_" in name:
        container, sub = name.split("_", 1)
        cinfo = info.get(container)
        if cinfo and cinfo.get("subcommands"):
            key_index = 2
            cmd = info.get(f"{container}|{sub}")
            if cmd is None:
                return None
    if cmd is None:
        cmd = info.get(name)
        if cmd is None or cmd.get("subcommands"):
            return None
    specs = [s for s in cmd.get("key_specifications", []) if "not_key" not in flags_of(s)]
    if len(specs) != 1:
        return None
    s = specs[0]
    bs = s.get("begin_search", {})
    fk = s.get("find_keys", {})
    if bs.get("type") != "index" or bs.get("spec", {}).get("index") != key_index:
        return None
    if fk.get("type") != "range" or fk.get("spec", {}).get("lastkey") != 0:
        return None
    return cmd


def flags_of(spec):
    return [f.decode() if isinstance(f, bytes) else f for f in spec.get("flags", [])]


def check_one_key_rule(rows, not_first, node, failures, notes):
    info = command_info(node)
    table_methods = {r["method"] for r in rows}
    verified, unverified, checked = 0, [], 0
    for method in sorted(dir(redis.Redis)):
        fn = getattr(redis.Redis, method, None)
        if not callable(fn) or method.startswith("_"):
            continue
        PUBLIC_METHODS.append(method)
        if one_key_rule(method, info, table_methods, not_first) is None:
            continue
        ONE_KEY_METHODS.append(method)
        checked += 1
        try:
            sig = list(inspect.signature(fn).parameters.values())[1:]
        except (TypeError, ValueError):
            unverified.append(method)
            continue
        if not sig or sig[0].kind not in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            failures.append(f"{method}: first parameter is not positional")
            continue
        marker = "keylint:onekey"
        pos = [marker]
        kw = dict(ONE_KEY_EXTRA.get(method, {}))
        for p in sig[1:]:
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                pos.append("v")
                continue
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            if p.default is not inspect.Parameter.empty:
                continue
            v = ONE_KEY_FILLERS.get((method, p.name), FILLERS.get(p.name, 1))
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                kw[p.name] = v
            else:
                pos.append(v)
        client = redis.Redis()
        rec = Recorder()
        client.execute_command = rec
        try:
            fn(client, *pos, **kw)
        except Exception:  # noqa: BLE001 - dummy arguments of the wrong type
            unverified.append(method)
            continue
        if not rec.calls:
            unverified.append(method)
            continue
        got, err = getkeys(node, rec.calls[0])
        if err:
            unverified.append(method)
            continue
        if got != [marker]:
            failures.append(f"{method}: one-key rule broken: server keys {got} for {rec.calls[0]}")
        else:
            verified += 1
    if os.environ.get("KEYLINT_VERBOSE"):
        notes.append("not callable with dummy arguments: " + ", ".join(unverified))
    notes.append(
        f"one-key rule: {checked} methods, {verified} verified through COMMAND GETKEYS, "
        f"{len(unverified)} not callable with dummy arguments"
    )


# Filled by check_one_key_rule, written by --json.
PUBLIC_METHODS = []
ONE_KEY_METHODS = []


def check_completeness(rows, node, failures, notes):
    info = command_info(node)
    covered = {r["command"].lower() for r in rows}
    missing = []
    for name, cmd in sorted(info.items()):
        if "|" in name:
            continue
        flags = [f.decode() if isinstance(f, bytes) else f for f in cmd.get("flags", [])]
        specs = cmd.get("key_specifications", []) or []
        several = (
            cmd.get("first_key_pos") != cmd.get("last_key_pos")
            or "movablekeys" in flags
            or len(specs) > 1
        )
        if several and name not in covered and name not in NOT_MODELLED:
            missing.append(name)
    for m in missing:
        failures.append(f"{m}: the server says it may take several keys; no table row")
    notes.append(f"completeness: {len(covered)} commands covered, {len(NOT_MODELLED)} deliberately not")


def check_async(rows, port, failures, notes):
    """The asyncio cluster client refuses and splits like the sync one."""

    async def run():
        rc = redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=port)
        markers = slots_apart_keys(RedisCluster(host="127.0.0.1", port=port))
        n = 0
        try:
            for row in rows:
                if row["method"] in ("blpop", "brpop", "bzpopmin", "bzpopmax", "blmove", "brpoplpush", "blmpop", "bzmpop"):
                    continue
                pos, kw, _ = marker_call(row, markers)
                try:
                    await getattr(rc, row["method"])(*pos, **kw)
                    outcome = "accepted"
                except RedisClusterException as e:
                    outcome = "refused" if SLOT_ERROR in str(e) else f"other: {e}"
                except ResponseError as e:
                    msg = str(e)
                    refused = "CROSSSLOT" in msg or "same slot" in msg or SORT_REFUSAL in msg
                    outcome = "refused" if refused else f"accepted ({e})"
                except Exception as e:  # noqa: BLE001 - reported below
                    outcome = f"other: {e!r}"
                want = "refused" if row["cluster"] in ("refuse", "script") else "accepted"
                if not outcome.startswith(want):
                    failures.append(f"{row['method']}: asyncio RedisCluster {outcome}, table says {row['cluster']}")
                n += 1
            await rc.flushall()
        finally:
            await rc.aclose()
        notes.append(f"asyncio cluster client: {n} methods agree")

    asyncio.run(run())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True, help="port of a cluster node on 127.0.0.1")
    ap.add_argument(
        "--json",
        metavar="PATH",
        help="write the public methods of redis.Redis and those the one-key rule covers, "
        "so that the linter's own rule can be compared",
    )
    args = ap.parse_args()
    rows, blocked_single, not_first = parse_table(TABLE)
    rc = RedisCluster(host="127.0.0.1", port=args.port)
    node = redis.Redis(host="127.0.0.1", port=args.port)
    failures, notes = [], []
    check_rows(rows, rc, node, failures, notes)
    check_sort_patterns(rows, rc, failures, notes)
    check_one_key_rule(rows, not_first, node, failures, notes)
    check_completeness(rows, node, failures, notes)
    check_async(rows, args.port, failures, notes)
    check_module_commands(failures, notes)
    for b in blocked_single:
        pipe = rc.pipeline()
        try:
            getattr(pipe, b)("keylint:x", 1)
            failures.append(f"{b}: not blocked in a cluster pipeline")
        except RedisClusterException as e:
            if "blocked" not in str(e):
                failures.append(f"{b}: {e}")
    if args.json:
        import json

        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {"redis_py": redis.__version__, "methods": PUBLIC_METHODS, "one_key": ONE_KEY_METHODS},
                f,
                indent=1,
            )
    print(f"redis-py {redis.__version__}")
    for n in notes:
        print(n)
    for f in failures:
        print(f"FAIL {f}")
    if failures:
        print(f"{len(failures)} disagreements with the installed redis-py")
        return 1
    print("the method table agrees with redis-py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
