#!/usr/bin/env bash
# cktune tune watchdog and judge on the CPU backend: an injected hang is recorded as timed_out (us = inf)
# with its reason and the worker is respawned, a crash is faulted, wrong/partial outputs are incorrect,
# later candidates of the same shape still run, the run finishes, and no faulty or planted wrong
# candidate ever wins. Usage: tune_watchdog.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$T"

printf 'M,N,K\n1,256,1024\n16,512,512\n64,256,256\n' >a8w8_blockscale_untuned_gemm.csv
HANG=cpu_bs_naive_t1
CRASH=cpu_bs_tiled_m16n64_t1
WRONG=cpu_bs_tiled_m32n32_t0
PARTIAL=cpu_bs_tiled_m4n256_t0
start=$(date +%s)
rc=0
timeout 300 "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o tuned.csv -o2 prof.csv --iters 3 --warmup 1 \
  --include-test-instances --timeout 2 --no-progress \
  --inject-fault "hang@$HANG,crash@$CRASH,wrong@$WRONG,partial@$PARTIAL" >out.txt 2>err.txt || rc=$?
elapsed=$(($(date +%s) - start))
[ "$rc" -ne 124 ] || { echo "FAIL: tune hung (killed by timeout after 300 s)"; cat err.txt; exit 1; }
[ "$rc" -eq 0 ] || fail "tune exited $rc, want 0 (every shape has correct candidates left): $(tail -5 err.txt)"
grep -q "tuned 3 of 3 shapes (0 failed" out.txt || fail "summary is not 'tuned 3 of 3 shapes (0 failed': $(cat out.txt)"
echo "faulted run took ${elapsed}s"

# Profile columns: 4-6 = M,N,K, 12 = kernelName, 14 = us, 21 = verdict, 22 = reason.
verdict_of() { awk -F, -v k="$1" -v n="$2" 'NR > 1 && $4","$5","$6 == k && $12 == n { print $21 }' prof.csv; }
us_of() { awk -F, -v k="$1" -v n="$2" 'NR > 1 && $4","$5","$6 == k && $12 == n { print $14 }' prof.csv; }
for key in 1,256,1024 16,512,512 64,256,256; do
  [ "$(verdict_of "$key" "$HANG")" = timed_out ] || fail "$key: $HANG verdict '$(verdict_of "$key" "$HANG")', want timed_out"
  [ "$(us_of "$key" "$HANG")" = inf ] || fail "$key: $HANG us '$(us_of "$key" "$HANG")', want inf"
  awk -F, -v k="$key" -v n="$HANG" 'NR > 1 && $4","$5","$6 == k && $12 == n' prof.csv | grep -q "after its first launch" ||
    fail "$key: the timed_out row does not give the reason (no result ... after its first launch)"
  [ "$(verdict_of "$key" "$CRASH")" = faulted ] || fail "$key: $CRASH verdict '$(verdict_of "$key" "$CRASH")', want faulted"
  for bad in "$WRONG" "$PARTIAL"; do
    v=$(verdict_of "$key" "$bad")
    # A blocking that does not fit the shape is not_supported before it ever runs; otherwise incorrect.
    case "$v" in incorrect | not_supported) ;; *) fail "$key: $bad verdict '$v', want incorrect" ;; esac
  done
  # Every candidate of the shape got a result, including those after the hang and the crash.
  n=$(awk -F, -v k="$key" 'NR > 1 && $4","$5","$6 == k' prof.csv | wc -l)
  want=$("$BIN" list --include-test-instances 2>/dev/null | awk '$2 == "a8w8_blockscale"' | wc -l)
  [ "$n" -eq "$want" ] || fail "$key: $n candidate rows in the profile, want $want"
  passed=$(awk -F, -v k="$key" 'NR > 1 && $4","$5","$6 == k && $21 == "passed"' prof.csv | wc -l)
  [ "$passed" -ge 3 ] || fail "$key: only $passed candidates passed after the faults"
done
# The per-candidate clock starts at the candidate's first launch, not when the run or the shape began:
# the run lasts several times --timeout, yet only the hanging candidate timed out (once per shape).
n=$(awk -F, 'NR > 1 && $21 == "timed_out"' prof.csv | wc -l)
[ "$n" -eq 3 ] || fail "$n timed_out rows, want 3 (only $HANG): $(awk -F, '$21 == "timed_out" { print $12 }' prof.csv | tr '\n' ' ')"
# The wrong and partial faults were seen as incorrect on at least one shape (not all not_supported).
grep -q ",$WRONG,.*,incorrect," prof.csv || fail "$WRONG was never judged incorrect"
grep -q ",$PARTIAL,.*,incorrect," prof.csv || fail "$PARTIAL was never judged incorrect"
# Planted wrong candidates are judged incorrect.
for bug in bug_corrupt_row bug_missing_k_tail bug_partial_write; do
  awk -F, -v b="$bug" 'NR > 1 && index($12, b) && $21 == "passed"' prof.csv | grep -q . &&
    fail "planted $bug passed somewhere"
done
# The worker was respawned: one warning per hang and per crash.
[ "$(grep -c 'restarting the worker' err.txt)" -ge 6 ] || fail "fewer than 6 worker restarts logged"

# No faulty or planted candidate won: winners are columns 10 (kernelName) of the tuned table.
[ "$(awk 'NR > 1' tuned.csv | wc -l)" -eq 3 ] || fail "tuned table does not have 3 rows"
awk -F, 'NR > 1 { print $10 }' tuned.csv >winners.txt
for bad in "$HANG" "$CRASH" "$WRONG" "$PARTIAL" bug_; do
  grep -qF "$bad" winners.txt && fail "faulty candidate $bad won: $(cat winners.txt)"
done
# Winners passed in the profile.
while IFS=, read -r _ _ m n k _ _ _ _ name _; do
  [ "$(verdict_of "$m,$n,$k" "$name")" = passed ] || fail "$m,$n,$k: winner $name did not pass in the profile"
done < <(awk 'NR > 1' tuned.csv)

# The stall watch: with --timeout far away, a candidate none of whose launches completes is still ended once it has
# shown no progress for --stall-timeout seconds (off by default on the CPU, on when given); the correct candidates,
# whose launches complete, are not.
printf 'M,N,K\n16,512,512\n' >a8w8_blockscale_untuned_gemm.csv
start=$(date +%s)
rc=0
timeout 300 "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o ts.csv -o2 ps.csv --iters 3 --warmup 1 --no-progress \
  --timeout 600 --stall-timeout 5 --inject-fault "hang@$HANG" >outs.txt 2>errs.txt || rc=$?
elapsed=$(($(date +%s) - start))
[ "$rc" -eq 0 ] || fail "stall run exited $rc: $(tail -3 errs.txt)"
[ "$elapsed" -lt 120 ] || fail "stall run took ${elapsed} s: the hung candidate was not ended by --stall-timeout 5"
[ "$(verdict_of 16,512,512 "$HANG")" = timed_out ] || fail "stall run: $HANG verdict '$(verdict_of 16,512,512 "$HANG")'"
grep -q "none of its launches completed for .* (--stall-timeout 5)" ps.csv ||
  fail "stall run: the timed_out row does not say why: $(grep "$HANG" ps.csv)"
n=$(awk -F, 'NR > 1 && $21 == "timed_out"' ps.csv | wc -l)
[ "$n" -eq 1 ] || fail "stall run: $n timed_out rows, want 1 (only $HANG)"
echo "stall run took ${elapsed}s"
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o tx.csv --stall-timeout -2 --no-progress >/dev/null 2>errx.txt &&
  fail "--stall-timeout -2 was accepted"
grep -q -- "--stall-timeout" errx.txt || fail "--stall-timeout -2: the error does not name the option: $(cat errx.txt)"

# Planted wrong candidates alone (no injected faults) on more shapes: never a winner; a shape where only
# planted candidates run fails instead of writing a wrong row.
printf 'M,N,K\n3,128,256\n32,384,640\n' >a8w8_blockscale_untuned_gemm.csv
rc=0
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t2.csv -o2 p2.csv --iters 3 --warmup 1 --include-test-instances \
  --kernels m16n64_t0 --no-progress >out2.txt 2>err2.txt || rc=$?
[ "$rc" -eq 0 ] || fail "planted run exited $rc: $(tail -3 err2.txt)"
awk -F, 'NR > 1 { print $10 }' t2.csv | grep -q bug_ && fail "a planted wrong candidate won: $(cat t2.csv)"
[ "$(awk 'NR > 1' t2.csv | wc -l)" -eq 2 ] || fail "planted run: want 2 rows, got $(cat t2.csv)"
rc=0
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t3.csv --iters 3 --warmup 1 --include-test-instances \
  --kernels '[+]bug_' --no-progress >out3.txt 2>err3.txt || rc=$?
[ "$rc" -ne 0 ] || fail "only planted wrong candidates: exit 0, want non-zero"
[ ! -e t3.csv ] || [ "$(awk 'NR > 1' t3.csv | wc -l)" -eq 0 ] || fail "only planted wrong candidates: rows written: $(cat t3.csv)"
grep -q "no candidate passed" err3.txt || fail "only planted wrong candidates: no 'no candidate passed' error"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "tune_watchdog: ok"
