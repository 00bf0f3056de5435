"""Runs the `case_*` functions of redis-keylint's Python fixtures against a live
Redis Cluster with the real redis-py, and reports which raised a slot error (redis-py's
or the server's).

Usage: run_cases.py --port PORT FILE.py...

Each fixture module is imported (it must have no side effects at import time); every
top-level function named `case_*` is called with a `RedisCluster` client (an asyncio
`RedisCluster` for `async def` cases) after the cluster is flushed. The outcome of a
case is `slot` when it raised one of redis-py's slot errors, `numkeys` when the server
refused a script call's numkeys, `sort` when a node refused a `SORT` pattern, `ok` when it returned, and `error` for anything else. The report is JSON on stdout, one object per case:
file, name, first and last line, outcome and message.
"""

import argparse
import asyncio
import importlib.util
import inspect
import json
import sys
import traceback

from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster
from redis.exceptions import (
    ClusterCrossSlotError,
    CrossSlotTransactionError,
    RedisClusterException,
    ResponseError,
)


def outcome_of(exc):
    """`slot` for redis-py's slot errors, else `error`."""
    if isinstance(exc, (CrossSlotTransactionError, ClusterCrossSlotError)):
        return "slot"
    if isinstance(exc, RedisClusterException) and "all keys must map to the same key slot" in str(exc):
        return "slot"
    if isinstance(exc, ResponseError):
        msg = str(exc)
        # The server's own refusals: a command, or a script touching keys outside the
        # slot of its declared keys (with a shebang) or on another node (without).
        if (
            msg.startswith("CROSSSLOT")
            or "do not hash to the same slot" in msg
            or "non local key" in msg
        ):
            return "slot"
        # The server refuses a script call's numkeys (larger than the arguments after
        # it, or negative) before anything else.
        if msg.startswith("Number of keys can't be"):
            return "numkeys"
        # A node refuses a SORT whose BY or GET pattern may form keys of other
        # slots (`GET option of SORT denied in Cluster mode.`).
        if "option of SORT denied in Cluster mode" in msg:
            return "sort"
    return "error"


def load(path, n):
    name = f"keylint_fixture_{n}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # Registered as imported modules are, so that pkgutil.get_data(__name__, …) works.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


async def run_async(fn, port):
    r = AsyncRedisCluster(host="127.0.0.1", port=port)
    try:
        await r.flushall()
        await fn(r)
    finally:
        await r.aclose()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    r = RedisCluster(host="127.0.0.1", port=args.port)
    report = []
    for n, path in enumerate(args.files):
        module = load(path, n)
        cases = [
            (name, fn)
            for name, fn in vars(module).items()
            if name.startswith("case_") and inspect.isfunction(fn) and fn.__module__ == module.__name__
        ]
        for name, fn in cases:
            lines, first = inspect.getsourcelines(fn)
            entry = {
                "file": path,
                "name": name,
                "first_line": first,
                "last_line": first + len(lines) - 1,
            }
            try:
                if inspect.iscoroutinefunction(fn):
                    asyncio.run(run_async(fn, args.port))
                else:
                    r.flushall()
                    fn(r)
                entry["outcome"] = "ok"
                entry["message"] = ""
            except Exception as exc:  # noqa: BLE001 - every outcome is reported
                entry["outcome"] = outcome_of(exc)
                entry["message"] = f"{type(exc).__name__}: {exc}"
                if entry["outcome"] == "error":
                    entry["message"] += "\n" + traceback.format_exc()
            report.append(entry)
    r.close()
    json.dump(report, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
