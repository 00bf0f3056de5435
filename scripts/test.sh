#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, UI snapshots, end-to-end CLI
# tests and the live-cluster conformance tests (which start their own Redis Cluster
# from `redis-server` on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1 && [ -z "${REDIS_SERVER:-}" ]; then
    echo "error: redis-server not found; the live-cluster tests need it." >&2
    echo "  Debian/Ubuntu: sudo apt-get install -y redis-server" >&2
    echo "  macOS:         brew install redis" >&2
    echo "  or set REDIS_SERVER=/path/to/redis-server" >&2
    exit 2
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
