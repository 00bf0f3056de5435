"""Checks, against the installed aioredis 1.x and a live cluster, what redis-keylint
assumes when it reads code written for aioredis 1.x: `multi_exec()` sends its commands
as one MULTI/EXEC transaction, which a cluster node refuses across slots, while
`pipeline()` takes no argument and sends its commands as they are, with no MULTI (a
node runs the same commands across two of its own slots). It talks to one node only,
as aioredis 1.x does.

Usage: aioredis1_facts.py --port PORT. Prints one line per fact; exits 1 on the first
fact that does not hold.
"""

import argparse
import asyncio
import inspect
import sys

import aioredis


def fact(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


async def own_keys(redis, port):
    """Two keys in different slots that both belong to the node at `port`."""
    mine = []
    for start, end, master, *_ in await redis.execute("CLUSTER", "SLOTS"):
        if int(master[1]) == port:
            mine.append((int(start), int(end)))
    found = {}
    for i in range(10000):
        key = f"aioredis1:{i}"
        slot = await redis.execute("CLUSTER", "KEYSLOT", key)
        if any(s <= slot <= e for s, e in mine) and slot not in found:
            found[slot] = key
            if len(found) == 2:
                return list(found.values())
    raise SystemExit("no two keys of this node found")


async def main(port):
    fact(aioredis.__version__.startswith("1."), f"aioredis {aioredis.__version__} is 1.x")
    params = list(inspect.signature(aioredis.Redis.pipeline).parameters)
    fact(params == ["self"], "Redis.pipeline() takes no argument (no `transaction=`)")
    fact(
        hasattr(aioredis.Redis, "multi_exec"),
        "Redis.multi_exec() exists (redis-py has no such method)",
    )
    redis = await aioredis.create_redis(("127.0.0.1", port))
    try:
        a, b = await own_keys(redis, port)
        p = redis.pipeline()
        p.set(a, 1)
        p.set(b, 2)
        res = await p.execute()
        fact(
            res == [True, True],
            "pipeline() over two slots of one node runs: no MULTI/EXEC is sent",
        )
        tr = redis.multi_exec()
        tr.set(a, 1)
        tr.set(b, 2)
        try:
            await tr.execute()
            refused = ""
        except aioredis.MultiExecError as e:
            refused = repr(e) + repr(getattr(e, "args", ""))
        except aioredis.ReplyError as e:
            refused = str(e)
        fact(
            "CROSSSLOT" in refused or "EXECABORT" in refused,
            "multi_exec() over two slots is a transaction the node refuses",
        )
    finally:
        redis.close()
        await redis.wait_closed()
    # A fresh connection: aioredis 1.x keeps a refused transaction's replies pending.
    redis = await aioredis.create_redis(("127.0.0.1", port))
    try:
        tr = redis.multi_exec()
        tr.set(a, 1)
        tr.expire(a, 10)
        res = await tr.execute()
        fact(res == [True, 1], "multi_exec() over one key runs")
        await redis.delete(a)
        await redis.delete(b)
    finally:
        redis.close()
        await redis.wait_closed()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    asyncio.run(main(ap.parse_args().port))
