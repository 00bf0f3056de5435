#!/usr/bin/env bash
# Replays every artifact of the given targets (default: all) and prints one line per
# distinct failure: the panic message and location, or the sanitizer's verdict.
#
#   bash fuzz/triage.sh [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
bin=target/x86_64-unknown-linux-gnu/release
targets=("$@")
[ "${#targets[@]}" -eq 0 ] && targets=($(ls artifacts))
for t in "${targets[@]}"; do
    for a in artifacts/"$t"/*; do
        [ -f "$a" ] || continue
        out=$(timeout 60 "$bin/$t" -runs=1 "$a" 2>&1)
        why=$(printf '%s\n' "$out" | grep -m1 -oE "panicked at [^ ]+|ERROR: AddressSanitizer: [a-z-]+|ERROR: libFuzzer: [a-z-]+|Assertion .*failed|has overflowed its stack|SUMMARY: .*" )
        [ -z "$why" ] && why="(no failure on replay)"
        msg=$(printf '%s\n' "$out" | grep -m1 -A1 "panicked at" | tail -1)
        echo "$t	$why	$msg	$(wc -c <"$a")B	$a"
    done
done | sort -t'	' -k1,2 | awk -F'\t' '{k=$1"\t"$2"\t"$3; n[k]++; if (!(k in ex) || $4+0 < sz[k]) {ex[k]=$5; sz[k]=$4+0}} END {for (k in n) print n[k]"x\t"k"\t"ex[k]}'
