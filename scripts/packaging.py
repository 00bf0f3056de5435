#!/usr/bin/env python3
"""Release packaging of redis-keylint: one version, every channel.

The version lives in one place, `[workspace.package] version` of the root Cargo.toml.
The wheel (maturin) reads it from there; the files below cannot, so `stamp` writes it
into them and `stamp --check` (run by the test suite) fails when they disagree:

  packaging/npm/redis-keylint/package.json   the launcher and its optionalDependencies
  packaging/pre-commit-hook/pyproject.toml   the hook package's `redis-keylint==X` pin

The other commands turn one built binary into the release artifacts; the release
workflow runs them on every target, the test suite on this machine's:

  binary-from-wheel WHEEL OUT         the binary a wheel ships (`*.data/scripts/`)
  npm-platform BINARY TARGET OUTDIR   the npm package `@redis-keylint/<platform>`
  archive BINARY TARGET OUTDIR        redis-keylint-<TARGET>.tar.gz (.zip on Windows)
                                      and its .sha256
  target                              this machine's target triple, as named here

Only the standard library is used.
"""

import argparse
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = ROOT / "packaging/npm/redis-keylint/package.json"
HOOK = ROOT / "packaging/pre-commit-hook/pyproject.toml"
SCOPE = "@redis-keylint"

# Rust target triple -> npm platform package (name, os, cpu, libc). The launcher
# (packaging/npm/redis-keylint/bin/redis-keylint.js) picks among them by the same keys.
TARGETS = {
    "x86_64-unknown-linux-gnu": ("linux-x64-gnu", "linux", "x64", "glibc"),
    "aarch64-unknown-linux-gnu": ("linux-arm64-gnu", "linux", "arm64", "glibc"),
    "x86_64-unknown-linux-musl": ("linux-x64-musl", "linux", "x64", "musl"),
    "aarch64-unknown-linux-musl": ("linux-arm64-musl", "linux", "arm64", "musl"),
    "x86_64-apple-darwin": ("darwin-x64", "darwin", "x64", None),
    "aarch64-apple-darwin": ("darwin-arm64", "darwin", "arm64", None),
    "x86_64-pc-windows-msvc": ("win32-x64", "win32", "x64", None),
}


def cargo_version():
    text = (ROOT / "Cargo.toml").read_text()
    m = re.search(r'^\[workspace\.package\]\s*$(.*?)^\[', text, re.M | re.S)
    v = m and re.search(r'^version\s*=\s*"([^"]+)"', m.group(1), re.M)
    if not v:
        sys.exit("error: no `version` in [workspace.package] of Cargo.toml")
    return v.group(1)


def stamped_launcher(version):
    pkg = json.loads(LAUNCHER.read_text())
    pkg["version"] = version
    pkg["optionalDependencies"] = {
        f"{SCOPE}/{name}": version for name, *_ in TARGETS.values()
    }
    return json.dumps(pkg, indent=2) + "\n"


def stamped_hook(version):
    text = HOOK.read_text()
    text = re.sub(r'^version = "[^"]*"', f'version = "{version}"', text, count=1, flags=re.M)
    return re.sub(r'"redis-keylint==[^"]*"', f'"redis-keylint=={version}"', text)


def stamp(check):
    version = cargo_version()
    stale = []
    for path, new in [(LAUNCHER, stamped_launcher(version)), (HOOK, stamped_hook(version))]:
        if path.read_text() != new:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new)
    if check and stale:
        for p in stale:
            print(f"{p}: not at version {version} (run `python3 scripts/packaging.py stamp`)",
                  file=sys.stderr)
        sys.exit(1)
    for p in stale:
        print(f"stamped {p} with {version}")


def exe_name(target):
    return "redis-keylint.exe" if "windows" in target else "redis-keylint"


def binary_from_wheel(wheel, out):
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist()
                 if re.fullmatch(r"[^/]+\.data/scripts/redis-keylint(\.exe)?", n)]
        if len(names) != 1:
            sys.exit(f"error: {wheel} holds no single redis-keylint binary: {names}")
        Path(out).write_bytes(z.read(names[0]))
    os.chmod(out, 0o755)


def npm_platform(binary, target, outdir):
    name, os_, cpu, libc = TARGETS[target]
    version = cargo_version()
    out = Path(outdir)
    shutil.rmtree(out, ignore_errors=True)
    (out / "bin").mkdir(parents=True)
    dest = out / "bin" / exe_name(target)
    shutil.copyfile(binary, dest)
    os.chmod(dest, 0o755)
    launcher = json.loads(LAUNCHER.read_text())
    pkg = {
        "name": f"{SCOPE}/{name}",
        "version": version,
        "description": f"The {target} binary of redis-keylint (installed by the `redis-keylint` package)",
        "license": launcher["license"],
        "repository": launcher["repository"],
        "os": [os_],
        "cpu": [cpu],
    }
    if libc:
        pkg["libc"] = [libc]
    pkg["files"] = ["bin/"]
    pkg["preferUnplugged"] = True
    (out / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    (out / "README.md").write_text(
        f"# {SCOPE}/{name}\n\nThe `redis-keylint` binary for {target}. Install "
        "[`redis-keylint`](https://www.npmjs.com/package/redis-keylint) instead: it "
        "depends on this package on the platforms it fits and runs its binary.\n")


def archive(binary, target, outdir):
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"redis-keylint-{target}"
    extras = [p for p in ("README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE")
              if (ROOT / p).exists()]
    data = Path(binary).read_bytes()
    if "windows" in target:
        path = out / f"{stem}.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(f"{stem}/{exe_name(target)}", data)
            for p in extras:
                z.write(ROOT / p, f"{stem}/{p}")
    else:
        path = out / f"{stem}.tar.gz"
        with tarfile.open(path, "w:gz") as t:
            def add(name, payload, mode):
                info = tarfile.TarInfo(f"{stem}/{name}")
                info.size, info.mode = len(payload), mode
                t.addfile(info, io.BytesIO(payload))
            add(exe_name(target), data, 0o755)
            for p in extras:
                add(p, (ROOT / p).read_bytes(), 0o644)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    # The format `sha256sum -c` reads.
    (out / f"{path.name}.sha256").write_text(f"{digest}  {path.name}\n")
    print(path)


def host_target():
    import platform
    machine = platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(machine)
    if sys.platform.startswith("linux"):
        libc = "gnu" if platform.libc_ver()[0] == "glibc" else "musl"
        target = f"{arch}-unknown-linux-{libc}"
    elif sys.platform == "darwin":
        target = f"{arch}-apple-darwin"
    elif sys.platform == "win32":
        target = f"{arch}-pc-windows-msvc"
    else:
        target = None
    if target not in TARGETS:
        sys.exit(f"error: no release target for {sys.platform} {machine}")
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stamp", help="write the Cargo.toml version into the npm and hook packages")
    s.add_argument("--check", action="store_true", help="only check; exit 1 when stale")
    s = sub.add_parser("binary-from-wheel")
    s.add_argument("wheel")
    s.add_argument("out")
    for cmd in ("npm-platform", "archive"):
        s = sub.add_parser(cmd)
        s.add_argument("binary")
        s.add_argument("target", choices=sorted(TARGETS))
        s.add_argument("outdir")
    sub.add_parser("target")
    sub.add_parser("version")
    a = ap.parse_args()
    if a.cmd == "stamp":
        stamp(a.check)
    elif a.cmd == "binary-from-wheel":
        binary_from_wheel(a.wheel, a.out)
    elif a.cmd == "npm-platform":
        npm_platform(a.binary, a.target, a.outdir)
    elif a.cmd == "archive":
        archive(a.binary, a.target, a.outdir)
    elif a.cmd == "target":
        print(host_target())
    elif a.cmd == "version":
        print(cargo_version())


if __name__ == "__main__":
    main()
