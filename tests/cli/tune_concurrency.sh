#!/usr/bin/env bash
# Two `cktune tune` runs on the same -o: the second stops at once naming the first (exit 1), and the
# first finishes with every row; no input and no earlier output changes. Same for -o == -o2 and an -o
# that is a device.
set -uo pipefail
BIN=$1
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rows() { if [ -f "$1" ]; then awk 'NR > 1' "$1" | wc -l; else echo 0; fi; }
printf 'M,N,K\n1,128,256\n2,128,256\n3,128,256\n4,128,256\n5,256,256\n' >a8w8_blockscale_untuned_gemm.csv
sum_before=$(sha256sum a8w8_blockscale_untuned_gemm.csv)
ARGS=(--device cpu --warmup 1 --iters 3 --no-progress --min-time-ms 200 --screen-factor 0)

"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o out.csv "${ARGS[@]}" >first.out 2>first.err &
first=$!
for _ in $(seq 1 100); do [ -f out.csv.lock ] && break; sleep 0.1; done
[ -f out.csv.lock ] || fail "the first run holds no lock file"
rc=0
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o out.csv "${ARGS[@]}" >second.out 2>second.err || rc=$?
[ "$rc" -eq 1 ] || fail "second run on the same -o: exit $rc, want 1"
grep -q "another cktune process" second.err || fail "second run does not name the holder: $(cat second.err)"
grep -q "pid $first\|pid=$first\|pid: $first\|$first" second.err || fail "second run does not give the holder's pid: $(cat second.err)"
wait "$first" || fail "first run failed: $(tail -3 first.err)"
[ "$(rows out.csv)" -eq 5 ] || fail "first run's table has $(rows out.csv) rows, want 5"
[ ! -f out.csv.lock ] || fail "the lock file is left after a clean exit"
[ "$(sha256sum a8w8_blockscale_untuned_gemm.csv)" = "$sum_before" ] || fail "the input changed"

# -o and -o2 naming one file: refused before anything is written.
rc=0
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o same.csv -o2 same.csv "${ARGS[@]}" >same.out 2>same.err || rc=$?
[ "$rc" -ne 0 ] || fail "-o X -o2 X: exit 0"
grep -q "same file" same.err || fail "-o X -o2 X: $(cat same.err)"
[ ! -e same.csv ] || fail "-o X -o2 X wrote the file"

# -o onto a FIFO: refused, the FIFO stays a FIFO.
mkfifo pipe.csv
rc=0
timeout 20 "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o pipe.csv "${ARGS[@]}" >fifo.out 2>fifo.err || rc=$?
[ "$rc" -eq 1 ] || fail "-o FIFO: exit $rc, want 1"
[ -p pipe.csv ] || fail "-o FIFO replaced the FIFO"

# A header-only input is an error, and writes no sidecar.
printf 'M,N,K\n' >a8w8_blockscale_untuned_gemm_empty.csv
rc=0
"$BIN" tune -i a8w8_blockscale_untuned_gemm_empty.csv -o empty.csv "${ARGS[@]}" >empty.out 2>empty.err || rc=$?
[ "$rc" -eq 1 ] || fail "header-only input: exit $rc, want 1"
[ ! -e empty.csv.provenance.json ] && [ ! -e empty.csv.cktune ] || fail "header-only input left sidecars"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "tune_concurrency: all checks passed"
