#!/usr/bin/env bash
# cktune tune checkpoint and resume: kill -9 of the parent after the 1st and the 2nd shape is written and
# at a few fixed delays, and kill -9 of a worker mid-shape; rerunning the same command must finish with
# exactly the untuned key set (none lost, none duplicated) and a profile without duplicate
# (key, kernel) slots. Usage: tune_resume.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
T=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$T"

printf 'M,N,K\n1,256,1024\n16,512,512\n64,256,256\n8,128,512\n32,256,384\n2,384,256\n4,128,768\n128,128,256\n' \
  >a8w8_blockscale_untuned_gemm.csv
awk -F, 'NR > 1 { print $1","$2","$3 }' a8w8_blockscale_untuned_gemm.csv | sort >want_keys.txt
# --min-time-ms (with screening off, so every candidate gets the full protocol) makes every candidate take
# a known minimum time (~0.3 s a shape), so that the kills below
# land mid-run on a fast machine too (the test fails if a run finished before its kill).
ARGS=(--iters 3 --warmup 1 --min-time-ms 40 --screen-factor 0 --kernels m16n64 --seed 3 --no-progress)
NKEYS=8

table_keys() { awk -F, 'NR > 1 { print $3","$4","$5 }' "$1" | sort; }
journal_done() { local n=0; [ -f "$1.cktune/journal.jsonl" ] && n=$(grep -c "\"status\"" "$1.cktune/journal.jsonl" || true); echo "${n:-0}"; }
# check OUT PROFILE LABEL: the table holds exactly the untuned keys once, the profile no duplicate slot.
check() {
  local out=$1 prof=$2 label=$3
  table_keys "$out" >got_keys.txt
  diff -q want_keys.txt got_keys.txt >/dev/null || fail "$label: key set differs: $(diff want_keys.txt got_keys.txt | tr '\n' ' ')"
  [ -z "$(uniq -d got_keys.txt)" ] || fail "$label: duplicated keys: $(uniq -d got_keys.txt | tr '\n' ' ')"
  # Slot = M,N,K, role, backend, kernelId, kernelName, splitK.
  local dups
  dups=$(awk -F, 'NR > 1 { print $4","$5","$6","$7","$9","$11","$12","$13 }' "$prof" | sort | uniq -d)
  [ -z "$dups" ] || fail "$label: duplicate profile slots: $dups"
  local ncand nkeys nrows
  ncand=$("$BIN" list 2>/dev/null | awk '$2 == "a8w8_blockscale" && $5 ~ /m16n64/' | wc -l)
  nkeys=$(wc -l <want_keys.txt)
  nrows=$(awk 'NR > 1' "$prof" | wc -l)
  [ "$nrows" -eq $((ncand * nkeys)) ] || fail "$label: $nrows profile rows, want $ncand x $nkeys"
  grep -q ',nan,\|,,,,' "$out" && fail "$label: empty or nan cells in the table"
  true
}

# Reference: one uninterrupted run.
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o ref.csv -o2 ref_prof.csv "${ARGS[@]}" >/dev/null 2>ref.err ||
  fail "uninterrupted run failed: $(tail -3 ref.err)"
check ref.csv ref_prof.csv uninterrupted

# kill_after_shapes N OUT: start the run, kill -9 the parent once N shapes are in the journal.
kill_after_shapes() {
  local n=$1 out=$2
  "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "$out" -o2 "$out.prof" "${ARGS[@]}" >/dev/null 2>"$out.err1" &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 600); do
    [ "$(journal_done "$out")" -ge "$n" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
rerun() {
  local out=$1
  "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "$out" -o2 "$out.prof" "${ARGS[@]}" >"$out.out2" 2>"$out.err2" ||
    fail "$out: rerun failed: $(tail -3 "$out.err2")"
}

for n in 1 2; do
  out=after$n.csv
  kill_after_shapes "$n" "$out"
  done_before=$(journal_done "$out")
  [ "$done_before" -lt "$NKEYS" ] || fail "$out: the run finished before the kill (nothing was tested)"
  rerun "$out"
  # The rerun resumed: the shapes finished before the kill were not redone.
  grep -q "resuming\|skipped" "$out.err2" "$out.out2" || fail "$out: the rerun does not say it resumed"
  skipped=$(sed -n 's/.*, \([0-9]*\) skipped as already done.*/\1/p' "$out.out2")
  [ "${skipped:-0}" -ge "$done_before" ] || fail "$out: $done_before shapes were done before the kill, rerun skipped ${skipped:-?}"
  check "$out" "$out.prof" "kill -9 after $n shape(s)"
done

# Two workers (two shapes in flight) killed after the 1st shape, resumed with one worker: the worker
# count is not part of the run identity.
out=mp2.csv
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "$out" -o2 "$out.prof" "${ARGS[@]}" --mp 2 >/dev/null 2>"$out.err1" &
pid=$!
PIDS+=("$pid")
for _ in $(seq 1 600); do
  [ "$(journal_done "$out")" -ge 1 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ "$(journal_done "$out")" -lt "$NKEYS" ] || fail "$out: the --mp 2 run finished before the kill"
rerun "$out"
grep -q "resuming" "$out.err2" || fail "$out: --mp 2 run was not resumed by the --mp 1 rerun"
check "$out" "$out.prof" "kill -9 of a --mp 2 run"

# Kills at fixed delays (whatever the run is doing then: starting, preparing, timing, writing).
for d in 0.2 0.8 1.5; do
  out=delay_$d.csv
  "$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "$out" -o2 "$out.prof" "${ARGS[@]}" >/dev/null 2>&1 &
  pid=$!
  PIDS+=("$pid")
  sleep "$d"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ "$(journal_done "$out")" -lt "$NKEYS" ] || fail "kill after ${d}s: the run finished before the kill"
  rerun "$out"
  check "$out" "$out.prof" "kill -9 after ${d}s"
  # A kill -9 inside an atomic write can leave OUT.tmp.PID behind; it must never look like a table (*.csv).
  if ls | grep -q '\.tmp.*\.csv$'; then fail "kill after ${d}s: a temporary *.csv was left: $(ls | grep '\.tmp')"; fi
done

# kill -9 of a worker (a child of this run's parent) mid-shape: the candidate in flight is faulted, the
# worker respawned, the run finishes with every key. The kill comes right after the first shape is
# journaled, when the worker is preparing or timing the next one.
out=worker.csv
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o "$out" -o2 "$out.prof" "${ARGS[@]}" >"$out.out1" 2>"$out.err1" &
pid=$!
PIDS+=("$pid")
killed=""
for _ in $(seq 1 400); do
  w=$(pgrep -P "$pid" -f "cktune worker|worker --backend" | head -1 || true)
  if [ -n "$w" ] && [ "$(journal_done "$out")" -ge 1 ]; then
    kill -9 "$w" && killed=$w
    break
  fi
  sleep 0.05
done
rc=0
wait "$pid" || rc=$?
[ -n "$killed" ] || fail "never found a worker of pid $pid to kill"
[ "$rc" -eq 0 ] || fail "run with a killed worker exited $rc: $(tail -3 "$out.err1")"
grep -q "restarting the worker\|worker lost" "$out.err1" ||
  fail "the killed worker was not reported and restarted: $(cat "$out.err1")"
check "$out" "$out.prof" "kill -9 of a worker"

# A rerun of a finished run does nothing and changes nothing.
cp ref.csv ref_before.csv
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o ref.csv -o2 ref_prof.csv "${ARGS[@]}" >again.out 2>again.err ||
  fail "rerun of a finished run failed"
grep -q "tuned 0 of 8 shapes (0 failed, 8 skipped" again.out || fail "rerun of a finished run: $(cat again.out)"
cmp -s ref.csv ref_before.csv || fail "rerun of a finished run changed the table"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "tune_resume: ok"
