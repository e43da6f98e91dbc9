#!/usr/bin/env bash
# Issue 10, "Done when": on the CPU, two benches of the same table compare as "within noise". Real runs
# on this machine (no synthetic numbers: Compare.SameTableTwiceIsWithinNoise covers those): a table is
# tuned, benched twice as two separate runs, and `compare` of the two must call every shape within
# noise (no improved, no regressed). The protocol gives each measurement a spread to judge by
# (--min-time-ms: each median comes from at least 150 ms of launches, so a neighbour's burst lands
# inside the p10..p90 rather than between the runs). A loaded machine can still change between two
# runs (a build starting next to us); then another pair is measured, up to six pairs, one of which
# must be clean (see below).
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

# Up to six pairs of runs, each pair its own two runs (a b, c d, ...): one clean pair passes. On a 2-vCPU
# cloud machine the speed of a run can change between two runs a second apart and stay changed for
# seconds (measured: single-threaded kernels at 1.0x or 1.9x their time in consecutive runs; steal time
# 0, an L1 arithmetic canary unchanged), which no spread measured inside one run can show; that is why
# the tool compares before and after interleaved in one run (bench --against). Measured here (docs/
# reliability.md): 58-78% of pairs clean, so six pairs all off is under 1% by chance, while a compare
# that judged the median ratio alone (the ±3% threshold without the p10..p90 rule) failed 12 of 12.
pairs=0
c=""
for p in ab cd ef gh ij kl; do
  x=${p:0:1}.csv y=${p:1:1}.csv
  bench "$x"
  bench "$y"
  pairs=$((pairs + 1))
  c=$(counts "$x" "$y") || fail "compare $x $y failed"
  [ "$c" = "0 0 4 0" ] && break
  echo "note: pair $x $y: $c (improved regressed within_noise not_measured); the machine changed between runs?"
  "$BIN" compare "$x" "$y" 2>&1 | sed -n '8,14p'
done
[ "$c" = "0 0 4 0" ] || fail "two benches of the same table, $pairs pairs in a row: last $c (want 0 0 4 0)"
# Both runs dispatched the table's kernels, and the text output says so in words.
n=$(awk -F, 'NR > 1 && $7 == "dispatch" && $8 == "tuned" && $21 == "passed"' a.csv | wc -l)
[ "$n" -eq 4 ] || fail "a.csv: $n passed tuned dispatch rows, want 4"
"$BIN" compare a.csv a.csv | grep -q "within noise" || fail "compare text does not say within noise"
echo "bench_twice: ok ($c, pair $pairs)"
