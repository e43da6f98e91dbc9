#!/usr/bin/env bash
# Issue 10, "Done when": on the CPU, two benches of the same table compare as "within noise". Real runs
# on this machine (no synthetic numbers: Compare.SameTableTwiceIsWithinNoise covers those): a table is
# tuned, benched twice as two separate runs, and `compare` of the two must call every shape within
# noise (no improved, no regressed). The protocol gives each measurement a spread to judge by
# (--min-time-ms: each median comes from at least 150 ms of launches, so a neighbour's burst lands
# inside the p10..p90 rather than between the runs). A loaded machine can still change between two
# runs (a build starting next to us); then the pair is measured once more and that pair must be clean.
# Usage: bench_twice.sh <cktune-binary> <tests/data>
# ctest: run serial
set -uo pipefail
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$T"
# Decode and mid shapes, small enough to run hundreds of launches in a second.
printf 'M,N,K\n1,512,1024\n8,256,2048\n32,384,512\n64,256,1024\n' >a8w8_blockscale_untuned_gemm.csv
P=(--device cpu --warmup 2 --iters 15 --min-time-ms 150 --seed 3)
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o tuned.csv "${P[@]}" --no-progress >/dev/null 2>tune.err ||
  fail "tune: $(tail -3 tune.err)"
[ "$(awk 'NR > 1' tuned.csv | wc -l)" -eq 4 ] || fail "tuned table: $(cat tuned.csv)"

bench() { "$BIN" bench -i a8w8_blockscale_untuned_gemm.csv --config tuned.csv "${P[@]}" -o "$1" >/dev/null 2>"$1.err" ||
  fail "bench $1: $(tail -3 "$1.err")"; }
# Prints "improved regressed within_noise not_measured" of `compare A B`.
counts() { "$BIN" compare "$1" "$2" --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["summary"]
print(s["improved"], s["regressed"], s["within_noise"], s["not_measured"])'; }

bench a.csv
bench b.csv
c=$(counts a.csv b.csv) || fail "compare a b failed"
if [ "$c" != "0 0 4 0" ]; then
  echo "note: first pair $c (improved regressed within_noise not_measured); the machine changed between runs? once more"
  "$BIN" compare a.csv b.csv 2>&1 | sed -n '1,12p'
  bench c.csv
  c=$(counts b.csv c.csv) || fail "compare b c failed"
  [ "$c" = "0 0 4 0" ] || { "$BIN" compare b.csv c.csv; fail "two benches of the same table: $c (want 0 0 4 0)"; }
fi
# Both runs dispatched the table's kernels, and the text output says so in words.
n=$(awk -F, 'NR > 1 && $7 == "dispatch" && $8 == "tuned" && $21 == "passed"' a.csv | wc -l)
[ "$n" -eq 4 ] || fail "a.csv: $n passed tuned dispatch rows, want 4"
"$BIN" compare a.csv a.csv | grep -q "within noise" || fail "compare text does not say within noise"
echo "bench_twice: ok ($c)"
