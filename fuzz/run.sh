#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 300), seeding the corpora from the
# fixtures. Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain
# RUSTC_BOOTSTRAP=1 lets it use the unstable sanitizer flags.
#
#   bash fuzz/run.sh [SECONDS] [TARGET...]
#
# Fork mode keeps going after a crash: every crashing, leaking or slow input is
# written to fuzz/artifacts/<target>/; replay one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run <target> fuzz/artifacts/<target>/<file>
set -euo pipefail
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
secs="${1:-300}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    targets=(slot rediscli lua lua_structured python python_structured javascript)
fi

seed() {
    local target="$1" dir="corpus/$1"
    mkdir -p "$dir"
    case "$target" in
        slot) printf 'user:{1000}:profile' >"$dir/tag"; printf 'foo{}{bar}' >"$dir/empty"
              printf 'foo{{bar}}' >"$dir/nested"; printf 'a}b{c' >"$dir/close" ;;
        rediscli) cp ../fixtures/redis-cli/*.redis "$dir/" ;;
        lua) find ../fixtures -name '*.lua' -exec cp {} "$dir/" \; ;;
        python) find ../fixtures -name '*.py' -exec cp {} "$dir/" \; ;;
        javascript) find ../fixtures/javascript \( -name '*.js' -o -name '*.mjs' -o -name '*.ts' -o -name '*.tsx' \) -exec cp {} "$dir/" \; ;;
        *) ;;
    esac
}

dict() {
    case "$1" in
        slot|rediscli) echo "-dict=dicts/rediscli.dict" ;;
        lua) echo "-dict=dicts/lua.dict" ;;
        python) echo "-dict=dicts/python.dict" ;;
        *) ;;
    esac
}

cargo fuzz build -O
for t in "${targets[@]}"; do
    seed "$t"
    mkdir -p "artifacts/$t"
    echo "== $t: ${secs}s"
    # shellcheck disable=SC2046
    cargo fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        $(dict "$t") 2>&1 | grep -E '^#[0-9]+: cov|INFO: log|crash|timeout|oom|DONE|ERROR' | tail -n 40 || true
    echo "   artifacts: $(find "artifacts/$t" -type f | wc -l)"
done
