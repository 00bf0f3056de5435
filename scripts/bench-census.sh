#!/usr/bin/env bash
# The key-census benchmark: a generated keyspace dump streams through a pipe (it is
# never stored) into `redis-keylint census -` and into the floor program (read each
# line, take the key out of its quotes, one CRC16 per key into 16384 counters). Prints
# the "Key census" section of docs/benchmarks.md on standard output.
#
#     bash scripts/bench-census.sh [KEYS]        # default 100000000
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
N="${1:-100000000}"
cargo build --release --quiet
cargo build --release --quiet -p keylint-census --examples
BIN="$ROOT/target/release/redis-keylint"
EX="$ROOT/target/release/examples"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

run() { # name command...: one timed run on the generated stream
    local name="$1"
    shift
    "$EX/gen_keyspace" "$N" --bytes | /usr/bin/time -v "$@" >"$TMP/$name.out" 2>"$TMP/$name.time"
}
field() { grep -F "$2" "$TMP/$1.time" | sed 's/.*: //'; }
cpu() { echo "$(field "$1" 'User time') + $(field "$1" 'System time')" | bc; }

run floor "$EX/floor"
run census "$BIN" census -
run census_small "$BIN" census - --families 256
# Stream size, without storing it.
BYTES=$("$EX/gen_keyspace" "$N" --bytes | wc -c)

FLOOR=$(cpu floor)
CENSUS=$(cpu census)
SMALL=$(cpu census_small)
rate() { echo "scale=2; $N / $1 / 1000000" | bc; }
cat <<MD
## Key census

\`scripts/bench-census.sh $N\`: \`gen_keyspace $N --bytes\` (an example of
\`keylint-census\`) writes a dump of $N keys with a \`MEMORY USAGE\` column, $(echo "scale=1; $BYTES / 1000000000" | bc) GB in the
quoted form of \`redis-cli --no-raw --scan\`, into a pipe; it is never stored. The mix:
per-user carts and profiles (tagged per id), tenant job queues with one hot tenant out of
500, sessions under a constant tag, untagged dated cache pages, UUID-keyed objects and
empty-tag locks. The *floor* (\`examples/floor.rs\`) reads the same stream line by line
(with the census's own line splitter, \`keylint_census::for_each_line\`),
takes the key out of its quotes and computes one CRC16 slot per key into 16384
counters. CPU time is user + system of the measured process alone (\`/usr/bin/time -v\`);
the generator runs on the other core.

| run | CPU time | keys per second per core | peak RSS |
|---|---|---|---|
| floor: read + one CRC16 per key | ${FLOOR} s | $(rate "$FLOOR") M | $(field floor 'Maximum resident') KiB |
| \`census -\` (2048 families) | ${CENSUS} s | $(rate "$CENSUS") M | $(field census 'Maximum resident') KiB |
| \`census - --families 256\` | ${SMALL} s | $(rate "$SMALL") M | $(field census_small 'Maximum resident') KiB |

census / floor: $(echo "scale=2; $CENSUS / $FLOOR" | bc)× the floor's CPU time.

\`\`\`text
$(head -16 "$TMP/census.out")
\`\`\`
MD
