#!/usr/bin/env python3
"""Generate crates/keylint-commands/src/generated.rs from a live redis-server.

The table is read with `COMMAND INFO` (every command, subcommands included)
and `COMMAND DOCS` (group, since, deprecation) over a tiny RESP2 client, so
only the Python standard library is needed.

Usage:
    python3 scripts/gen-commands.py            # start a private redis-server, write the file
    python3 scripts/gen-commands.py --port N   # use a server already listening on 127.0.0.1:N
    python3 scripts/gen-commands.py --check    # exit 1 if the committed file is out of date

Without --port a throw-away `redis-server` ($REDIS_SERVER, else the one on
PATH) is started on a free loopback port, with persistence disabled, in a
temporary directory.
The output is piped through `rustfmt` (part of every Rust toolchain) so that
`cargo fmt --check` accepts it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(REPO_ROOT, "crates", "keylint-commands", "src", "generated.rs")

# Command flags as reported by COMMAND INFO -> constant names in `CommandFlags`.
COMMAND_FLAGS = {
    "write": "WRITE",
    "readonly": "READONLY",
    "denyoom": "DENYOOM",
    "module": "MODULE",
    "admin": "ADMIN",
    "pubsub": "PUBSUB",
    "noscript": "NOSCRIPT",
    "blocking": "BLOCKING",
    "loading": "LOADING",
    "stale": "STALE",
    "skip_monitor": "SKIP_MONITOR",
    "skip_slowlog": "SKIP_SLOWLOG",
    "asking": "ASKING",
    "fast": "FAST",
    "no_auth": "NO_AUTH",
    "may_replicate": "MAY_REPLICATE",
    "no_mandatory_keys": "NO_MANDATORY_KEYS",
    "no_multi": "NO_MULTI",
    "movablekeys": "MOVABLEKEYS",
    "allow_busy": "ALLOW_BUSY",
    "no_async_loading": "NO_ASYNC_LOADING",
}

# Key-spec flags as reported by COMMAND INFO -> constant names in `KeySpecFlags`.
KEY_SPEC_FLAGS = {
    "RO": "RO",
    "RW": "RW",
    "OW": "OW",
    "RM": "RM",
    "access": "ACCESS",
    "update": "UPDATE",
    "insert": "INSERT",
    "delete": "DELETE",
    "not_key": "NOT_KEY",
    "incomplete": "INCOMPLETE",
    "variable_flags": "VARIABLE_FLAGS",
}


class RespError(Exception):
    """An error reply (`-ERR ...`) from the server."""


class Resp2:
    """A minimal blocking RESP2 client."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def close(self) -> None:
        self.sock.close()

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by redis-server")
        self.buf += chunk

    def _line(self) -> bytes:
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 2 :]
                return line
            self._fill()

    def _exact(self, n: int) -> bytes:
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2 :]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RespError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise ValueError(f"unexpected RESP2 reply type: {line!r}")

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        reply = self._reply()
        if isinstance(reply, RespError):
            raise reply
        return reply


def text(v) -> str:
    if isinstance(v, bytes):
        return v.decode()
    return str(v)


def pairs(flat) -> dict:
    """A RESP2 flattened map (k1 v1 k2 v2 ...) as a dict with str keys."""
    return {text(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateServer:
    """A throw-away redis-server on a free loopback port."""

    def __init__(self):
        # $REDIS_SERVER wins, as in the conformance harness; else PATH.
        exe = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
        if exe is None:
            sys.exit(
                "gen-commands: redis-server not found on PATH "
                "(install Redis 7.x, e.g. `apt-get install redis-server`, or set REDIS_SERVER)"
            )
        self.tmp = tempfile.TemporaryDirectory(prefix="keylint-gen-")
        last_err = None
        for _ in range(5):
            self.port = free_port()
            log = open(os.path.join(self.tmp.name, "redis.log"), "wb")
            self.proc = subprocess.Popen(
                [
                    exe,
                    "--port", str(self.port),
                    "--bind", "127.0.0.1",
                    "--save", "",
                    "--appendonly", "no",
                    "--dir", self.tmp.name,
                    "--daemonize", "no",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.tmp.name,
            )
            log.close()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    c = Resp2(self.port)
                    c.call("PING")
                    c.close()
                    return
                except (OSError, RespError) as e:
                    last_err = e
                    time.sleep(0.05)
            self.stop()
        sys.exit(f"gen-commands: could not start redis-server: {last_err}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ---------------------------------------------------------------------------
# Reading the server's tables


def parse_key_spec(raw) -> dict:
    spec = pairs(raw)
    flags = [text(f) for f in spec.get("flags", [])]
    for f in flags:
        if f not in KEY_SPEC_FLAGS:
            sys.exit(f"gen-commands: unknown key-spec flag {f!r}; teach the script and the crate about it")
    bs = pairs(spec["begin_search"])
    bs_type = text(bs["type"])
    bs_spec = pairs(bs["spec"]) if bs.get("spec") else {}
    if bs_type == "index":
        begin = ("index", int(bs_spec["index"]))
    elif bs_type == "keyword":
        begin = ("keyword", text(bs_spec["keyword"]), int(bs_spec["startfrom"]))
    elif bs_type == "unknown":
        begin = ("unknown",)
    else:
        sys.exit(f"gen-commands: unknown begin_search type {bs_type!r}")
    fk = pairs(spec["find_keys"])
    fk_type = text(fk["type"])
    fk_spec = pairs(fk["spec"]) if fk.get("spec") else {}
    if fk_type == "range":
        find = ("range", int(fk_spec["lastkey"]), int(fk_spec["keystep"]), int(fk_spec["limit"]))
    elif fk_type == "keynum":
        find = ("keynum", int(fk_spec["keynumidx"]), int(fk_spec["firstkey"]), int(fk_spec["keystep"]))
    elif fk_type == "unknown":
        find = ("unknown",)
    else:
        sys.exit(f"gen-commands: unknown find_keys type {fk_type!r}")
    notes = text(spec["notes"]) if "notes" in spec else None
    return {"flags": flags, "begin": begin, "find": find, "notes": notes}


def parse_command(raw, container, docs) -> list:
    """One COMMAND INFO entry -> list of command dicts (itself, then subcommands)."""
    fullname = text(raw[0]).lower()
    arity = int(raw[1])
    flags = [text(f) for f in raw[2]]
    for f in flags:
        if f not in COMMAND_FLAGS:
            sys.exit(f"gen-commands: unknown command flag {f!r} on {fullname}; teach the script and the crate about it")
    acl = [text(c).lstrip("@") for c in raw[6]]
    tips = [text(t) for t in raw[7]] if len(raw) > 7 else []
    specs = [parse_key_spec(s) for s in raw[8]] if len(raw) > 8 else []
    subs_raw = raw[9] if len(raw) > 9 else []
    if container is None:
        name = fullname.upper()
    else:
        # Redis reports subcommands as "container|sub".
        sub = fullname.split("|", 1)[1]
        name = f"{container} {sub.upper()}"
    doc = docs or {}
    cmd = {
        "name": name,
        "container": container,
        "arity": arity,
        "flags": flags,
        "acl": acl,
        "tips": tips,
        "specs": specs,
        "group": text(doc["group"]) if "group" in doc else "",
        "since": text(doc["since"]) if "since" in doc else "",
        "summary": text(doc["summary"]) if "summary" in doc else "",
        "deprecated_since": text(doc["deprecated_since"]) if "deprecated_since" in doc else None,
        "replaced_by": text(doc["replaced_by"]) if "replaced_by" in doc else None,
        "subcommands": [],
    }
    sub_docs = pairs(doc["subcommands"]) if doc.get("subcommands") else {}
    subs = []
    for s in subs_raw:
        sname = text(s[0]).lower()
        sdoc = pairs(sub_docs[sname]) if sname in sub_docs else {}
        subs.extend(parse_command(s, name, sdoc))
    cmd["subcommands"] = sorted(c["name"] for c in subs)
    return [cmd] + subs


def read_table(conn: Resp2):
    info = conn.call("INFO", "server")
    version = None
    for line in info.decode().splitlines():
        if line.startswith("redis_version:"):
            version = line.split(":", 1)[1].strip()
    if version is None:
        sys.exit("gen-commands: INFO server has no redis_version")
    docs = pairs(conn.call("COMMAND", "DOCS"))
    commands = []
    for raw in conn.call("COMMAND", "INFO"):
        if raw is None:
            continue
        name = text(raw[0]).lower()
        commands.extend(parse_command(raw, None, pairs(docs[name]) if name in docs else {}))
    commands.sort(key=lambda c: c["name"].encode())
    return version, commands


# ---------------------------------------------------------------------------
# Writing Rust


def rust_escape(s: str) -> str:
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u{%x}" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


# Long strings are split with `\<newline>` continuations so that no line is
# too long for rustfmt (which otherwise leaves the whole table unformatted).
WRAP_AT = 56
CONTINUATION_INDENT = " " * 12


def rust_str(s: str) -> str:
    chunks = []
    cur = ""
    i = 0
    while i < len(s):
        # A word and the spaces after it; a break is only ever placed after
        # spaces, since a continuation swallows the next line's leading spaces.
        j = i
        while j < len(s) and s[j] != " ":
            j += 1
        while j < len(s) and s[j] == " ":
            j += 1
        word = s[i:j]
        if cur and len(rust_escape(cur + word)) > WRAP_AT:
            chunks.append(cur)
            cur = ""
        cur += word
        i = j
    chunks.append(cur)
    return '"' + ("\\\n" + CONTINUATION_INDENT).join(rust_escape(c) for c in chunks) + '"'


def rust_opt_str(s) -> str:
    return "None" if s is None else f"Some({rust_str(s)})"


def rust_str_slice(items) -> str:
    return "&[" + ", ".join(rust_str(i) for i in items) + "]"


def rust_flags(ty: str, names, mapping) -> str:
    if not names:
        return f"{ty}::EMPTY"
    return f"{ty}(" + " | ".join(f"{ty}::{mapping[n]}.0" for n in names) + ")"


def rust_key_spec(spec) -> str:
    b = spec["begin"]
    if b[0] == "index":
        begin = f"BeginSearch::Index {{ pos: {b[1]} }}"
    elif b[0] == "keyword":
        begin = f"BeginSearch::Keyword {{ keyword: {rust_str(b[1])}, startfrom: {b[2]} }}"
    else:
        begin = "BeginSearch::Unknown"
    f = spec["find"]
    if f[0] == "range":
        find = f"FindKeys::Range {{ lastkey: {f[1]}, step: {f[2]}, limit: {f[3]} }}"
    elif f[0] == "keynum":
        find = f"FindKeys::Keynum {{ keynumidx: {f[1]}, firstkey: {f[2]}, step: {f[3]} }}"
    else:
        find = "FindKeys::Unknown"
    return (
        "KeySpec { "
        f"flags: {rust_flags('KeySpecFlags', spec['flags'], KEY_SPEC_FLAGS)}, "
        f"begin_search: {begin}, "
        f"find_keys: {find}, "
        f"notes: {rust_opt_str(spec['notes'])} "
        "}"
    )


def render(version: str, commands) -> str:
    index = {c["name"]: i for i, c in enumerate(commands)}
    out = []
    w = out.append
    w(f"// @generated by scripts/gen-commands.py from redis-server {version} — do not edit")
    w("")
    w("//! The command table read from the server (see the crate docs).")
    w("")
    w("use crate::{BeginSearch, Command, CommandFlags, FindKeys, KeySpec, KeySpecFlags};")
    w("")
    w("/// Version of the redis-server the table was generated from.")
    w(f"pub const REDIS_VERSION: &str = {rust_str(version)};")
    w("")
    w("/// Every command, subcommands included, sorted by (uppercase) name.")
    w(f"pub(crate) static COMMANDS: [Command; {len(commands)}] = [")
    for c in commands:
        subs = [index[s] for s in c["subcommands"]]
        if subs:
            assert subs == list(range(subs[0], subs[0] + len(subs))), c["name"]
            sub_range = f"{subs[0]}..{subs[0] + len(subs)}"
        else:
            sub_range = "0..0"
        w("Command {")
        w(f"name: {rust_str(c['name'])},")
        w(f"container: {rust_opt_str(c['container'])},")
        w(f"arity: {c['arity']},")
        w(f"flags: {rust_flags('CommandFlags', c['flags'], COMMAND_FLAGS)},")
        w(f"acl_categories: {rust_str_slice(c['acl'])},")
        w(f"tips: {rust_str_slice(c['tips'])},")
        w(f"key_specs: &[{', '.join(rust_key_spec(s) for s in c['specs'])}],")
        w(f"group: {rust_str(c['group'])},")
        w(f"since: {rust_str(c['since'])},")
        w(f"summary: {rust_str(c['summary'])},")
        w(f"deprecated_since: {rust_opt_str(c['deprecated_since'])},")
        w(f"replaced_by: {rust_opt_str(c['replaced_by'])},")
        w(f"subcommands: {sub_range},")
        w("},")
    w("];")
    w("")
    return "\n".join(out)


def rustfmt(source: str) -> str:
    exe = shutil.which("rustfmt")
    if exe is None:
        sys.exit("gen-commands: rustfmt not found on PATH (install it with `rustup component add rustfmt`)")
    proc = subprocess.run(
        [exe, "--edition", "2021", "--emit", "stdout"],
        input=source.encode(),
        capture_output=True,
        cwd=REPO_ROOT,
    )
    if proc.returncode != 0:
        sys.exit("gen-commands: rustfmt failed:\n" + proc.stderr.decode(errors="replace"))
    return proc.stdout.decode()


def generate(port) -> str:
    server = None
    if port is None:
        server = PrivateServer()
        port = server.port
    try:
        conn = Resp2(port)
        try:
            version, commands = read_table(conn)
        finally:
            conn.close()
    finally:
        if server is not None:
            server.stop()
            server.tmp.cleanup()
    return rustfmt(render(version, commands))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, help="use a redis-server already listening on 127.0.0.1:PORT")
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs from a fresh generation")
    args = ap.parse_args()

    fresh = generate(args.port)
    rel = os.path.relpath(OUTPUT, REPO_ROOT)
    if args.check:
        with tempfile.TemporaryDirectory(prefix="keylint-gen-check-") as tmp:
            path = os.path.join(tmp, "generated.rs")
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(fresh)
            try:
                with open(OUTPUT, encoding="utf-8") as f:
                    current = f.read()
            except FileNotFoundError:
                current = ""
            if current != fresh:
                diff = difflib.unified_diff(
                    current.splitlines(keepends=True),
                    fresh.splitlines(keepends=True),
                    fromfile=f"{rel} (committed)",
                    tofile=f"{rel} (regenerated)",
                    n=2,
                )
                sys.stdout.writelines(list(diff)[:200])
                print(f"gen-commands: {rel} is out of date; run `python3 scripts/gen-commands.py`", file=sys.stderr)
                return 1
        print(f"gen-commands: {rel} is up to date")
        return 0
    with open(OUTPUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(fresh)
    print(f"gen-commands: wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
