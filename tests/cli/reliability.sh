#!/usr/bin/env bash
# Reliability of the file-handling verbs (docs/reliability.md): outputs that are not regular files are
# refused, one writer per output, truncated .gz inputs fail, line limits, invalid rows, hostile key cells,
# glued log records. Every case also checks that no input and no earlier output changed (sha256sum).
# Usage: reliability.sh <cktune-binary> <tests/data>
set -u
BIN=$1
DATA=$2
T=$(mktemp -d)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sums() { (cd "$T" && find . -type f ! -name '*.err' ! -name '*.out' ! -name 'sums.*' -print0 | sort -z | xargs -0 -r sha256sum); }
# unchanged NAME: every file under $T (inputs and earlier outputs) is as before the step.
unchanged() { sums >"$T/sums.after"; cmp -s "$T/sums.before" "$T/sums.after" || fail "$1: files changed: $(diff "$T/sums.before" "$T/sums.after")"; }
snapshot() { sums >"$T/sums.before"; }
no_temporaries() { if ls -A "$1" | grep -q '\.tmp'; then fail "$2: temporary file left in $1: $(ls -A "$1")"; fi; }

H="gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio"
# AITER's CK kernel 1 (merge --check rejects ck rows naming kernels AITER does not have).
K1=a8w8_blockscale_1x128x128_256x128x64x128_16x16_32x32_2x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3
A=$T/a8w8_blockscale_tuned_gemm.csv
printf '%s\ngfx942,304,1,128,256,ck,1,0,5.0,%s,1.0,2.0,0.0\ngfx942,304,2,128,256,ck,1,0,6.0,%s,1.0,2.0,0.0\n' "$H" "$K1" "$K1" >"$A"
"$BIN" -q merge "$A" -o "$T/prev.csv" || fail "setup merge"

# 1. An output that exists and is not a regular file is refused; it stays what it was.
mkfifo "$T/fifo.csv"
snapshot
"$BIN" merge "$A" -o "$T/fifo.csv" >/dev/null 2>"$T/fifo.err"
rc=$?
[ $rc -eq 1 ] || fail "-o FIFO: exit $rc, want 1"
[ -p "$T/fifo.csv" ] || fail "-o FIFO: the FIFO was replaced"
grep -q "refusing to write $T/fifo.csv: it exists and is a FIFO" "$T/fifo.err" || fail "-o FIFO message: $(cat "$T/fifo.err")"
unchanged "-o FIFO"
no_temporaries "$T" "-o FIFO"
ln -s /dev/null "$T/null.csv"
"$BIN" merge "$A" -o "$T/null.csv" >/dev/null 2>"$T/null.err"
[ $? -eq 1 ] || fail "-o symlink to /dev/null: not refused"
[ -L "$T/null.csv" ] && [ -c /dev/null ] || fail "-o symlink to /dev/null: replaced"
grep -q "character device" "$T/null.err" || fail "-o /dev/null message: $(cat "$T/null.err")"
# capture refuses a FIFO where an untuned file goes, before writing any file.
mkdir "$T/cap_fifo"
mkfifo "$T/cap_fifo/a8w8_blockscale_untuned_gemm.csv"
"$BIN" capture "$DATA/logs/server_mixed.log" -o "$T/cap_fifo" >/dev/null 2>"$T/cap_fifo.err"
[ $? -eq 1 ] || fail "capture onto a FIFO: not refused"
[ -p "$T/cap_fifo/a8w8_blockscale_untuned_gemm.csv" ] || fail "capture replaced the FIFO"

# 2. One writer per output: while another process holds OUT.lock, merge -o OUT fails at once.
snapshot
flock "$T/prev.csv.lock" sleep 30 &
holder=$!
for _ in $(seq 50); do [ -e "$T/prev.csv.lock" ] && break; sleep 0.1; done
sleep 0.2
"$BIN" merge "$A" -o "$T/prev.csv" >/dev/null 2>"$T/lock.err"
rc=$?
[ $rc -eq 1 ] || fail "locked output: exit $rc, want 1"
grep -q "being written by another cktune process" "$T/lock.err" || fail "locked output message: $(cat "$T/lock.err")"
kill "$holder"; wait "$holder" 2>/dev/null; holder=
rm -f "$T/prev.csv.lock"
unchanged "locked output"
"$BIN" -q merge "$A" -o "$T/prev.csv" || fail "merge after the lock was released"
[ ! -e "$T/prev.csv.lock" ] || fail "lock file left after a clean merge"

# 4. A .gz cut short is an error naming the file and byte offset, for merge, --check and capture.
gzip -c "$A" >"$T/whole.gz"
size=$(stat -c %s "$T/whole.gz")
head -c $((size - 4)) "$T/whole.gz" >"$T/a8w8_blockscale_tuned_gemm_cut.csv.gz"
gzip -c "$DATA/logs/server_mixed.log" >"$T/log.gz"
logsize=$(stat -c %s "$T/log.gz")
head -c $((logsize / 2)) "$T/log.gz" >"$T/cutlog.gz"
snapshot
"$BIN" merge "$T/a8w8_blockscale_tuned_gemm_cut.csv.gz" -o "$T/cut_out.csv" >/dev/null 2>"$T/cut.err"
[ $? -eq 1 ] || fail "truncated .gz: merge did not exit 1"
grep -q "a8w8_blockscale_tuned_gemm_cut.csv.gz: compressed data is cut short at byte $((size - 4))" "$T/cut.err" ||
  fail "truncated .gz message: $(cat "$T/cut.err")"
[ ! -e "$T/cut_out.csv" ] || fail "truncated .gz: output written"
"$BIN" merge --check "$T/a8w8_blockscale_tuned_gemm_cut.csv.gz" >/dev/null 2>&1
[ $? -eq 1 ] || fail "truncated .gz: --check did not exit 1"
"$BIN" capture "$T/cutlog.gz" -o "$T/cap_cut" >/dev/null 2>"$T/cap_cut.err"
[ $? -eq 1 ] || fail "truncated .gz: capture did not exit 1"
grep -q "cutlog.gz: compressed data is cut short at byte" "$T/cap_cut.err" || fail "capture message: $(cat "$T/cap_cut.err")"
[ ! -e "$T/cap_cut" ] || fail "truncated .gz: capture wrote output"
unchanged "truncated .gz"

# 6. Limits: a table line over CKTUNE_MAX_LINE_BYTES fails naming file:line; devices are refused as input;
# a log line over the limit is skipped with a warning and the rest is still counted.
{ echo "$H"; printf 'gfx942,304,1,128,256,asm,1,0,5.0,%s,1.0,2.0,0.0\n' "$(head -c 3000 /dev/zero | tr '\0' k)"; } \
  >"$T/a8w8_blockscale_tuned_gemm_long.csv"
CKTUNE_MAX_LINE_BYTES=2048 "$BIN" merge --check "$T/a8w8_blockscale_tuned_gemm_long.csv" >/dev/null 2>"$T/long.err"
[ $? -eq 1 ] || fail "long line: not refused"
grep -q "a8w8_blockscale_tuned_gemm_long.csv:2: line longer than the limit of 2048 bytes" "$T/long.err" ||
  fail "long line message: $(cat "$T/long.err")"
"$BIN" merge --check "$T/a8w8_blockscale_tuned_gemm_long.csv" >/dev/null 2>&1 || fail "long line under the default limit"
"$BIN" merge --check /dev/zero >/dev/null 2>"$T/zero.err"
[ $? -eq 1 ] && grep -q "/dev/zero: is a character device" "$T/zero.err" || fail "/dev/zero input: $(cat "$T/zero.err")"
timeout 20 "$BIN" capture /dev/zero -o "$T/cap_zero" >/dev/null 2>&1
[ $? -eq 1 ] || fail "capture /dev/zero: not refused"
{ head -c 3000000 /dev/zero | tr '\0' x; echo; grep -m1 'not found tuned config' "$DATA/logs/server_mixed.log"; } | gzip -c >"$T/longline.gz"
"$BIN" capture "$T/longline.gz" -o "$T/cap_long" --json >"$T/cap_long.out" 2>"$T/cap_long.err" || fail "capture of a long line failed"
grep -q "1 line(s) longer than 1048576 bytes were skipped" "$T/cap_long.err" || fail "long log line warning: $(cat "$T/cap_long.err")"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['ignored']['long_lines']==1 and sum(len(f['observed']) for f in j['families'].values())>=1" \
  "$T/cap_long.out" || fail "long log line: counts wrong"

# 7. A header of 100k columns merges in well under a few seconds.
python3 - "$T/a8w8_blockscale_tuned_gemm_wide.csv" <<'PY'
import sys
extra = ",".join(f"x{i}" for i in range(100000))
with open(sys.argv[1], "w") as f:
    f.write("gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio," + extra + "\n")
    for m in range(1, 4):
        f.write(f"gfx942,304,{m},128,256,ck,1,0,5.0,k,1.0,2.0,0.0," + ",".join(["c"] * 100000) + "\n")
PY
start=$(date +%s%N)
timeout 60 "$BIN" -q merge "$T/a8w8_blockscale_tuned_gemm_wide.csv" "$A" -o "$T/wide_out.csv" 2>"$T/wide.err" ||
  fail "wide merge failed: $(cat "$T/wide.err")"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt 10000 ] || fail "wide merge took $ms ms"
[ "$(head -1 "$T/wide_out.csv" | tr ',' '\n' | wc -l)" = 100013 ] || fail "wide merge: header width"

# 8. A row whose us is not a usable time fails the merge (naming it) unless --drop-invalid.
B=$T/b/a8w8_blockscale_tuned_gemm.csv
mkdir -p "$T/b"
printf '%s\ngfx942,304,3,128,256,ck,1,0,nan,%s,1.0,2.0,0.0\ngfx942,304,4,128,256,ck,1,0,-1,%s,1.0,2.0,0.0\ngfx942,304,5,128,256,ck,1,0,4.0,%s,1.0,2.0,0.0\n' "$H" "$K1" "$K1" "$K1" >"$B"
snapshot
"$BIN" merge "$A" "$B" -o "$T/prev.csv" >/dev/null 2>"$T/invalid.err"
rc=$?
[ $rc -eq 1 ] || fail "invalid us: exit $rc, want 1"
grep -q "cktune: error: $B:2:29: invalid_us\|cktune: error: $B:2:29: us 'nan'" "$T/invalid.err" || fail "invalid us place: $(cat "$T/invalid.err")"
grep -q "2 row(s) in all.*$B:2, $B:3" "$T/invalid.err" || fail "invalid us list: $(cat "$T/invalid.err")"
grep -q -- "--drop-invalid" "$T/invalid.err" || fail "invalid us: no hint"
unchanged "invalid us"
"$BIN" merge "$A" "$B" -o "$T/dropped.csv" --drop-invalid >/dev/null 2>"$T/drop.err" || fail "--drop-invalid failed"
[ "$(wc -l <"$T/dropped.csv")" = 4 ] || fail "--drop-invalid: $(cat "$T/dropped.csv")"
grep -q "$B:2:29: invalid_us: .*dropped" "$T/drop.err" || fail "--drop-invalid does not name the row: $(cat "$T/drop.err")"
"$BIN" merge --check "$T/dropped.csv" --family a8w8_blockscale >/dev/null 2>&1 || fail "dropped output does not check clean"

# 9. Key cells: out of range, empty gfx; CR-only files; glued log records; negative cu_num in logs.
mkdir -p "$T/c"
printf '%s\ngfx942,304,1,128,4294967296,ck,1,0,5.0,k,1.0,2.0,0.0\n' "$H" >"$T/c/a8w8_blockscale_tuned_gemm.csv"
"$BIN" merge --check "$T/c/a8w8_blockscale_tuned_gemm.csv" >/dev/null 2>"$T/bigk.err"
[ $? -eq 1 ] || fail "K=4294967296: not refused"
grep -q "a8w8_blockscale_tuned_gemm.csv:2:18: key column K has the value '4294967296'" "$T/bigk.err" || fail "big K message: $(cat "$T/bigk.err")"
printf '%s\n,304,1,128,256,ck,1,0,5.0,k,1.0,2.0,0.0\n' "$H" >"$T/c/a8w8_blockscale_tuned_gemm_gfx.csv"
"$BIN" merge "$T/c/a8w8_blockscale_tuned_gemm_gfx.csv" -o "$T/gfx_out.csv" >/dev/null 2>"$T/gfx.err"
[ $? -eq 1 ] || fail "empty gfx: not refused"
grep -q "_gfx.csv:2:1: key column gfx has an empty cell" "$T/gfx.err" || fail "empty gfx message: $(cat "$T/gfx.err")"
[ ! -e "$T/gfx_out.csv" ] || fail "empty gfx: output written"
tr '\n' '\r' <"$A" >"$T/c/a8w8_blockscale_tuned_gemm_mac.csv"
"$BIN" -q merge "$T/c/a8w8_blockscale_tuned_gemm_mac.csv" -o "$T/mac_out.csv" 2>"$T/mac.err" || fail "CR-only file: $(cat "$T/mac.err")"
cmp -s "$T/mac_out.csv" "$T/prev.csv" || fail "CR-only file: merged table differs"
l1=$(grep -m1 'not found tuned config in .*a8w8_blockscale_tuned_gemm' "$DATA/logs/server_mixed.log" | sed 's/^.*\(shape is\)/[aiter] \1/')
l2=$(echo "$l1" | sed 's/M:[0-9]*/M:77777/')
printf '%s%s\n' "$l1" "$l2" >"$T/glued.log"
"$BIN" capture "$T/glued.log" -o "$T/cap_glued" >/dev/null 2>&1 || fail "glued log: capture failed"
grep -q '^77777,' "$T/cap_glued/a8w8_blockscale_untuned_gemm.csv" || fail "glued log: second record lost: $(cat "$T/cap_glued/a8w8_blockscale_untuned_gemm.csv")"
[ "$(tail -n +2 "$T/cap_glued/a8w8_blockscale_untuned_gemm.csv" | wc -l)" = 2 ] || fail "glued log: want 2 rows"
echo "[aiter] [fused_moe] using 2stage default for ('gfx950', -256, 16, 7168, 256, 257, 8, <ActivationType.Silu: 0>, 'torch.bfloat16', 'torch.float8_e4m3fn', 'torch.float8_e4m3fn', 'QuantType.per_1x128', True, False) " >"$T/negcu.log"
# One good record beside it, so the log is recognised and only the bad record is ignored.
echo "[aiter] [fused_moe] using 2stage default for ('gfx950', 256, 16, 7168, 256, 257, 8, <ActivationType.Silu: 0>, 'torch.bfloat16', 'torch.float8_e4m3fn', 'torch.float8_e4m3fn', 'QuantType.per_1x128', True, False) " >>"$T/negcu.log"
"$BIN" capture "$T/negcu.log" -o "$T/cap_neg" --json >"$T/negcu.out" 2>"$T/negcu.err" || fail "negative cu_num: capture failed"
grep -q "cu_num <= 0" "$T/negcu.err" || fail "negative cu_num: no warning: $(cat "$T/negcu.err")"
[ "$(tail -n +2 "$T/cap_neg/untuned_fmoe.csv" | wc -l)" = 1 ] || fail "negative cu_num: want only the good row: $(cat "$T/cap_neg/untuned_fmoe.csv")"

if [ $fails -gt 0 ]; then
  echo "reliability.sh: $fails failure(s)"
  exit 1
fi
echo "reliability.sh: all passed"
