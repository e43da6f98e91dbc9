#!/usr/bin/env bash
# cktune bench on the CPU backend: dispatch rows come from the default heuristic without --config and from
# the tuned table with it, the log file is DIR/<family>_bench_<tag>_<YYYYMMDD_HHMMSS>.log, a table tuned on
# another device gives a warning, and bad options are refused. Usage: bench_dispatch.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$T"
ARGS=(--iters 3 --warmup 1)
printf 'M,N,K\n1,256,512\n16,128,256\n' >a8w8_blockscale_untuned_gemm.csv
# Results columns: 4-6 key, 7 role, 8 source, 12 kernelName, 21 verdict.

# Before tuning: one dispatch row per shape, source default, the CPU default kernel.
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv -o before.csv --log-dir logs --tag before "${ARGS[@]}" \
  >before.out 2>before.err || fail "bench before failed: $(tail -3 before.err)"
n=$(awk -F, 'NR > 1 && $7 == "dispatch" && $8 == "default" && $21 == "passed"' before.csv | wc -l)
[ "$n" -eq 2 ] || fail "before: $n passed default dispatch rows, want 2: $(cat before.csv)"
[ "$(awk 'NR > 1' before.csv | wc -l)" -eq 2 ] || fail "before: extra rows (the CPU has no vendor baseline)"
ls logs | grep -Eq '^a8w8_blockscale_bench_before_[0-9]{8}_[0-9]{6}\.log$' || fail "log file name: $(ls logs)"
grep -q "dispatch" logs/*.log || fail "log file does not hold the table"
grep -q "dispatch" before.out || fail "the readable table is not on stdout"

# Tune, then bench with --config: dispatch rows are the tuned kernels.
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o tuned.csv "${ARGS[@]}" --kernels _t1 --no-progress >/dev/null 2>tune.err ||
  fail "tune failed: $(tail -3 tune.err)"
sleep 1  # a new second: the after log gets its own name
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv --config tuned.csv -o results.csv --log-dir logs --tag after "${ARGS[@]}" \
  >after.out 2>after.err || fail "bench after failed: $(tail -3 after.err)"
awk -F, 'NR > 1 { print $3","$4","$5","$10 }' tuned.csv | sort >want.txt
awk -F, 'NR > 1 && $7 == "dispatch" && $8 == "tuned" && $21 == "passed" { print $4","$5","$6","$12 }' results.csv |
  sort >got.txt
diff -q want.txt got.txt >/dev/null || fail "tuned dispatch rows differ from the table: $(diff want.txt got.txt | tr '\n' ' ')"
ls logs | grep -Eq '^a8w8_blockscale_bench_after_[0-9]{8}_[0-9]{6}\.log$' || fail "after log: $(ls logs)"
[ "$(ls logs | wc -l)" -eq 2 ] || fail "want 2 log files: $(ls logs)"
grep -q "warn" after.err && fail "same-device --config gave a warning: $(cat after.err)"

# A shape without a row of its own M runs the row of its padded M, and bench says so.
printf 'M,N,K\n12,128,256\n' >between.csv
"$BIN" bench -i between.csv --family a8w8_blockscale --config tuned.csv -o between_res.csv "${ARGS[@]}" \
  >/dev/null 2>between.err || fail "bench between tuned M values failed: $(tail -3 between.err)"
want=$(awk -F, 'NR > 1 && $3 == 16 { print $10 }' tuned.csv)
got=$(awk -F, 'NR > 1 && $7 == "dispatch" && $8 == "tuned" { print $12 }' between_res.csv)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "M=12 did not run the M=16 row's kernel ($want): got '$got'"
grep -q "1 from the tuned table, 1 of them through another M's row" between.err ||
  fail "summary does not count the padded-M dispatch: $(cat between.err)"
grep -q "M=12 ran the row of M=16" between.err || fail "no warning naming the padded-M row: $(cat between.err)"
grep -q "through another M" after.err && fail "exact-M dispatch reported as padded: $(cat after.err)"

# compare reads the before/after pair.
rc=0
"$BIN" compare before.csv results.csv >cmp.out 2>cmp.err || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "compare before/after exited $rc: $(tail -3 cmp.err)"

# A table from another device (gfx and cu_num edited in a copy): a warning on stderr, default dispatch.
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } { $1 = "gfx942"; $2 = "304"; print }' tuned.csv >other.csv
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv --config other.csv -o other_res.csv "${ARGS[@]}" \
  >/dev/null 2>other.err || fail "bench with another device's table failed: $(tail -3 other.err)"
grep -q "another gfx/cu_num" other.err || fail "no warning for another device's table: $(cat other.err)"
n=$(awk -F, 'NR > 1 && $7 == "dispatch" && $8 == "default"' other_res.csv | wc -l)
[ "$n" -eq 2 ] || fail "another device's rows were used for dispatch"
# The provenance sidecar of a copied table names its device too.
cp tuned.csv moved.csv
sed 's/"gfx": "cpu"/"gfx": "gfx950"/' tuned.csv.provenance.json >moved.csv.provenance.json
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv --config moved.csv "${ARGS[@]}" >/dev/null 2>moved.err ||
  fail "bench with a moved table failed"
grep -q "was tuned on" moved.err || fail "no provenance warning: $(cat moved.err)"

# Bad options.
rc=0
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv --config nope.csv "${ARGS[@]}" >/dev/null 2>e1.err || rc=$?
[ "$rc" -ne 0 ] && grep -q "nope.csv" e1.err || fail "missing --config: exit $rc: $(cat e1.err)"
rc=0
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv --log-dir logs "${ARGS[@]}" >/dev/null 2>e2.err || rc=$?
[ "$rc" -ne 0 ] && grep -q "needs --tag" e2.err || fail "--log-dir without --tag: exit $rc: $(cat e2.err)"
rc=0
"$BIN" bench -i a8w8_blockscale_untuned_gemm.csv -o e3.csv --log-dir logs --tag 'a b' "${ARGS[@]}" >/dev/null 2>e3.err ||
  rc=$?
[ "$rc" -ne 0 ] && grep -q "invalid --tag" e3.err || fail "bad --tag: exit $rc: $(cat e3.err)"
[ ! -e e3.csv ] || fail "bad --tag: a results file was written before the tag was checked"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "bench_dispatch: ok"
