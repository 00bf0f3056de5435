#!/usr/bin/env bash
# Benchmarks redis-keylint against the tools a user would otherwise run, and writes
# docs/benchmarks.md with the tables, the commands and the machine.
#
#   bash scripts/bench.sh            # everything (about 30 minutes on 2 cores)
#   BENCH_RUNS=3 bash scripts/bench.sh
#   BENCH_SKIP_SEMGREP=1 bash scripts/bench.sh
#
# Corpus A: the installed Python's standard library (without site-packages and
# __pycache__) plus generated Redis-heavy Python modules, Lua scripts and redis-cli
# files. Corpus B: the generated Redis-heavy files only. Everything lives under
# target/bench/; the comparison tools are installed if missing (ripgrep and hyperfine
# from apt, ruff and semgrep into a venv under target/bench/). Nothing here talks to
# the network except those package installs: semgrep runs with --metrics=off and a
# local rule file.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$ROOT/target/bench
RES=$WORK/results
BIN=$ROOT/target/release/redis-keylint
RUNS=${BENCH_RUNS:-5}
mkdir -p "$WORK" "$RES"

say() { printf '\n== %s\n' "$*" >&2; }

# --- tools ------------------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
need=()
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v hyperfine >/dev/null 2>&1 || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ "${#need[@]}" -gt 0 ]; then
    say "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}"
fi
VENV=$WORK/venv
if [ ! -x "$VENV/bin/ruff" ] || { [ -z "${BENCH_SKIP_SEMGREP:-}" ] && [ ! -x "$VENV/bin/semgrep" ]; }; then
    say "installing ruff and semgrep into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q ruff
    [ -n "${BENCH_SKIP_SEMGREP:-}" ] || "$VENV/bin/pip" install -q semgrep
fi
RUFF=$VENV/bin/ruff
SEMGREP=$VENV/bin/semgrep
export SEMGREP_ENABLE_VERSION_CHECK=0 SEMGREP_SEND_METRICS=off

say "building the release binary"
cargo build --release -p redis-keylint

# --- corpora ----------------------------------------------------------------------
STDLIB=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
A=$WORK/corpus-a
B=$WORK/corpus-b
if [ ! -f "$A/.complete" ]; then
    say "corpus A: $STDLIB + generated files"
    rm -rf "$A"
    mkdir -p "$A/stdlib"
    tar -C "$STDLIB" --exclude=./site-packages --exclude=__pycache__ -cf - . | tar -C "$A/stdlib" -xf -
    python3 scripts/gen-bench-corpus.py "$A/generated" --python 300 --lua 100 --redis 50 --seed 1
    touch "$A/.complete"
fi
if [ ! -f "$B/.complete" ]; then
    say "corpus B: Redis-heavy files only"
    rm -rf "$B"
    python3 scripts/gen-bench-corpus.py "$B" --python 400 --lua 150 --redis 50 --seed 2
    touch "$B/.complete"
fi
# The project corpus: 10,000 Python files, 300 of them using Redis through keys,
# clients and classes of shared modules (the project analysis).
P=$WORK/project
if [ ! -f "$P/.complete" ]; then
    say "project corpus: 10,000 Python files, 300 of them import keys and clients"
    rm -rf "$P"
    python3 scripts/gen-bench-corpus.py "$P" --project 10000 --python 300 --seed 4
    touch "$P/.complete"
fi
# Growth: 2x and 4x corpus A as hard-linked copies (the same bytes, distinct paths).
for n in 2 4; do
    G=$WORK/growth-$n
    if [ ! -f "$G/.complete" ]; then
        rm -rf "$G"
        for i in $(seq 1 "$n"); do
            mkdir -p "$G"
            cp -al "$A" "$G/copy$i"
        done
        touch "$G/.complete"
    fi
done
BIG=$WORK/big
if [ ! -f "$BIG/.complete" ]; then
    rm -rf "$BIG"
    for lines in 12500 25000 50000; do
        python3 scripts/gen-bench-corpus.py "$BIG/$lines" --python 1 --lua 1 --redis 0 \
            --lines "$lines" --exact --seed 3
    done
    touch "$BIG/.complete"
fi
# Semgrep ignores tests/ and other paths by default: an empty .semgrepignore in the
# directory it runs from makes it read the same files as the others.
for d in "$A" "$B"; do : >"$d/.semgrepignore"; done
cat >"$WORK/semgrep-rules.yml" <<'EOF'
rules:
  - id: multi-key-mget
    pattern: $R.mget($A, $B, ...)
    message: mget with several keys
    languages: [python]
    severity: WARNING
  - id: transaction-pipeline
    pattern: $R.pipeline(transaction=True)
    message: a transaction pipeline
    languages: [python]
    severity: WARNING
EOF

count() { # files lines bytes of the files redis-keylint reads under $1
    find "$1" -type f \( -name '*.py' -o -name '*.lua' -o -name '*.redis' \) -print0 |
        xargs -0 cat | wc -lc | awk -v f="$(find "$1" -type f \( -name '*.py' -o -name '*.lua' -o -name '*.redis' \) | wc -l)" '{print f, $1, $2}'
}
{
    echo "corpus-a-all $(find "$A" -type f | wc -l) $(du -sb "$A" | cut -f1)"
    echo "corpus-a $(count "$A")"
    echo "corpus-b $(count "$B")"
    echo "project $(count "$P")"
    echo "project-redis $(rg -l -i redis "$P" | wc -l)"
    echo "generated-a-py-lua $(find "$A/generated" -type f \( -name '*.py' -o -name '*.lua' \) -print0 |
        xargs -0 cat | wc -c)"
    for c in a b project; do
        d=$A
        [ "$c" = b ] && d=$B
        [ "$c" = project ] && d=$P
        echo "findings-$c $("$BIN" check --exit-zero --format json "$d" 2>/dev/null |
            python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')"
    done
} >"$RES/corpora.txt"

KL="$BIN check --exit-zero --quiet --color never"
hf() { # name, then hyperfine arguments
    local name=$1
    shift
    hyperfine --style basic --export-json "$RES/$name.json" "$@" >&2
}

# Warm the page cache: every figure here is for files already in memory.
cat "$A"/stdlib/*.py >/dev/null
rg -l -i redis "$WORK/growth-4" >/dev/null || true

# The --cache rows start from an empty cache; hyperfine's warm-up runs fill it, so the
# timed runs are warm (every file unchanged since the last run).
rm -rf "$WORK/cache-a" "$WORK/cache-b" "$WORK/ruff-cache"

say "corpus A: redis-keylint vs rg -l -i redis"
hf corpus-a-rg --warmup 2 --runs "$RUNS" \
    -n redis-keylint "$KL $A" \
    -n "redis-keylint --cache (warm)" "$KL --cache-dir $WORK/cache-a $A" \
    -n "redis-keylint --cache (warm), nothing printed" "$KL --cache-dir $WORK/cache-a --select unused-suppression $A" \
    -n "rg -l -i redis" "rg -l -i redis $A"

say "corpus A without the generated files: the cost of a tree with little Redis code"
hf stdlib-rg --warmup 2 --runs "$RUNS" \
    -n redis-keylint "$KL $A/stdlib" \
    -n "rg -l -i redis" "rg -l -i redis $A/stdlib"

if [ -z "${BENCH_SKIP_SEMGREP:-}" ]; then
    say "corpus A: redis-keylint vs semgrep (two patterns)"
    hf corpus-a-semgrep --runs 1 \
        -n redis-keylint "$KL $A" \
        -n semgrep "cd $A && $SEMGREP scan --config $WORK/semgrep-rules.yml --metrics=off --disable-version-check --no-git-ignore --max-target-bytes 10000000 --quiet --jobs $(nproc) -o /dev/null ."
fi

say "corpus B: redis-keylint vs ruff check"
hf corpus-b-ruff --warmup 2 --runs "$RUNS" \
    -n "redis-keylint" "$KL $B" \
    -n "ruff check" "$RUFF check --no-cache --exit-zero --quiet --no-respect-gitignore $B" \
    -n "redis-keylint --cache (warm)" "$KL --cache-dir $WORK/cache-b $B" \
    -n "ruff check, its cache warm" "$RUFF check --cache-dir $WORK/ruff-cache --exit-zero --quiet --no-respect-gitignore $B" \
    -n "redis-keylint --threads 1" "$KL --threads 1 $B" \
    -n "ruff check, 1 thread" "RAYON_NUM_THREADS=1 $RUFF check --no-cache --exit-zero --quiet --no-respect-gitignore $B"

say "project: 10,000 Python files, imports followed across modules"
hf project --warmup 2 --runs "$RUNS" \
    -n "redis-keylint, the whole project" "$KL $P" \
    -n "redis-keylint, one importing file" "$KL $P/app/part0/sub0/mod_0.py" \
    -n "rg -l -i redis" "rg -l -i redis $P"

# BENCH_BASELINE=path/to/another/redis-keylint: that build and this one side by side.
if [ -n "${BENCH_BASELINE:-}" ]; then
    say "corpus A and the project: this build vs $BENCH_BASELINE"
    BL="$BENCH_BASELINE check --exit-zero --quiet --color never"
    hf baseline-a --warmup 2 --runs "$RUNS" \
        -n "this build" "$KL $A" \
        -n "baseline" "$BL $A"
    hf baseline-project --warmup 2 --runs "$RUNS" \
        -n "this build" "$KL $P" \
        -n "baseline" "$BL $P"
fi

say "growth: 1x, 2x, 4x corpus A"
hf growth --warmup 1 --runs "$RUNS" \
    -n 1x "$KL $A" \
    -n 2x "$KL $WORK/growth-2" \
    -n 4x "$KL $WORK/growth-4"

say "threads: 1 vs 2 on corpus A"
hf threads --warmup 1 --runs "$RUNS" \
    -n "1 thread" "$KL --threads 1 $A" \
    -n "2 threads" "$KL --threads 2 $A"

say "one big file: 12,500, 25,000 and 50,000 lines"
hf big-python --warmup 1 --runs "$RUNS" \
    -n "12,500 lines" "$KL $BIG/12500/mod_0.py" \
    -n "25,000 lines" "$KL $BIG/25000/mod_0.py" \
    -n "50,000 lines" "$KL $BIG/50000/mod_0.py"
hf big-lua --warmup 1 --runs "$RUNS" \
    -n "12,500 lines" "$KL $BIG/12500/mod_0.lua" \
    -n "25,000 lines" "$KL $BIG/25000/mod_0.lua" \
    -n "50,000 lines" "$KL $BIG/50000/mod_0.lua"

say "peak memory"
peak() { # name, command...
    local name=$1
    shift
    /usr/bin/time -v "$@" >/dev/null 2>"$RES/time-$name.txt" || true
    awk -F': ' -v n="$name" '/Maximum resident set size/ {print n, $2}' "$RES/time-$name.txt"
}
{
    peak corpus-a $KL "$A"
    peak corpus-a-4x $KL "$WORK/growth-4"
    peak corpus-b $KL "$B"
    peak project $KL "$P"
    peak big-50000-py $KL "$BIG/50000/mod_0.py"
    peak rg-corpus-a rg -l -i redis "$A"
    peak ruff-corpus-b "$RUFF" check --no-cache --exit-zero --quiet --no-respect-gitignore "$B"
} >"$RES/peak-rss.txt"

say "Criterion: the slot engine and per-file analysis"
cargo bench -p keyslot --bench slot -- --warm-up-time 1 --measurement-time 3 >&2
cargo bench --bench analysis -- --warm-up-time 1 --measurement-time 3 >&2

# --- the real-code corpus (docs/real-code.md), only when its sources are there ------
if [ -n "${KEYLINT_REAL_MIRRORS:-}" ] || [ -n "$(ls -A "$ROOT/target/real-corpus" 2>/dev/null)" ]; then
    say "real-code corpus: recall and precision on pinned public projects"
    bash scripts/real-corpus.sh 2>&1 | tee "$RES/real-corpus.txt" >&2 ||
        say "real-code corpus: the test failed (see $RES/real-corpus.txt)"
else
    say "real-code corpus: skipped (no sources under target/real-corpus and no KEYLINT_REAL_MIRRORS)"
fi

# --- the machine and the report ---------------------------------------------------
{
    echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cpu=$(lscpu | awk -F': +' '/Model name/ {print $2; exit}')"
    echo "cores=$(nproc)"
    echo "ram=$(free -g | awk '/Mem:/ {print $2}') GiB"
    echo "os=$(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
    echo "redis-keylint=$($BIN --version)"
    echo "rustc=$(rustc --version)"
    echo "rg=$(rg --version | head -1)"
    echo "hyperfine=$(hyperfine --version)"
    echo "ruff=$($RUFF --version)"
    [ -n "${BENCH_SKIP_SEMGREP:-}" ] || echo "semgrep=$($SEMGREP --version 2>/dev/null | tail -1)"
    echo "python=$(python3 --version)"
    echo "date=$(date -u +%Y-%m-%d)"
} >"$RES/machine.txt"

python3 scripts/bench-report.py "$RES" "$ROOT/target/criterion" >docs/benchmarks.md
# The key census has its own stream benchmark (100 million keys through a pipe).
if [ -z "${BENCH_SKIP_CENSUS:-}" ]; then
    { echo; bash scripts/bench-census.sh; } >>docs/benchmarks.md
fi
say "wrote docs/benchmarks.md"
