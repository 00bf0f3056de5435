#!/usr/bin/env node
// Runs the redis-keylint binary of the platform package that npm installed next to
// this one. npm installs exactly the `optionalDependencies` entry whose `os`, `cpu`
// (and, on Linux, `libc`) fields match this machine, so no binary is downloaded at
// install time and no install script runs. REDIS_KEYLINT_BINARY overrides the choice.
"use strict";

const { spawnSync } = require("child_process");
const path = require("path");

function isMusl() {
  if (process.platform !== "linux") return false;
  // Node reports the glibc it runs against; a musl build of Node reports none.
  const report = process.report && process.report.getReport();
  const header = report && (typeof report === "string" ? JSON.parse(report) : report).header;
  return !(header && header.glibcVersionRuntime);
}

function platformPackage() {
  const { platform, arch } = process;
  if (platform === "linux" && (arch === "x64" || arch === "arm64")) {
    return `@redis-keylint/linux-${arch}-${isMusl() ? "musl" : "gnu"}`;
  }
  if (platform === "darwin" && (arch === "x64" || arch === "arm64")) {
    return `@redis-keylint/darwin-${arch}`;
  }
  if (platform === "win32" && arch === "x64") {
    return "@redis-keylint/win32-x64";
  }
  return null;
}

function binaryPath() {
  if (process.env.REDIS_KEYLINT_BINARY) return process.env.REDIS_KEYLINT_BINARY;
  const pkg = platformPackage();
  const exe = process.platform === "win32" ? "redis-keylint.exe" : "redis-keylint";
  if (pkg) {
    try {
      return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
    } catch (e) {
      fail(
        `the package ${pkg}, which holds the binary for this platform, is not installed.\n` +
          "It is an optional dependency of redis-keylint: reinstall without --omit=optional / --no-optional."
      );
    }
  }
  fail(
    `no prebuilt binary for ${process.platform} ${process.arch}.\n` +
      "Install from source instead: cargo install --locked --git https://github.com/redis-keylint/redis-keylint redis-keylint"
  );
}

function fail(message) {
  process.stderr.write(`redis-keylint: ${message}\n`);
  process.exit(2);
}

const result = spawnSync(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) fail(`cannot run ${result.error.path || "the binary"}: ${result.error.message}`);
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status === null ? 2 : result.status);
