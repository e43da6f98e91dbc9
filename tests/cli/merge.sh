#!/usr/bin/env bash
# cktune merge: bad input, duplicates across files, --check exit codes, --json, inputs untouched, no temp files.
# Usage: merge.sh <cktune-binary> <tests/data>
set -u
BIN=$1
DATA=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

H="gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio"

# expect_error NAME FILE EXPECTED_PLACE: merge FILE -o OUT must fail with exit 1, name FILE:LINE:COL, write no OUT
# and leave no temporary file.
expect_error() {
  local name=$1 file=$2 place=$3
  local out="$T/out_$name.csv"
  "$BIN" merge "$file" -o "$out" 2>"$T/err_$name" >/dev/null
  local rc=$?
  [ "$rc" -eq 1 ] || fail "$name: exit $rc, want 1"
  grep -qF "cktune: error: $place" "$T/err_$name" || fail "$name: stderr lacks '$place': $(cat "$T/err_$name")"
  [ ! -e "$out" ] || fail "$name: output file was created"
  if ls -A "$T" | grep -q '\.tmp'; then fail "$name: temporary file left behind"; fi
  # --check on bad input fails too (exit 1: the input cannot be read at all).
  "$BIN" merge --check "$file" >/dev/null 2>&1
  [ $? -eq 1 ] || fail "$name: --check did not exit 1"
}

printf '' >"$T/a8w8_blockscale_tuned_gemm_empty.csv"
expect_error empty "$T/a8w8_blockscale_tuned_gemm_empty.csv" "$T/a8w8_blockscale_tuned_gemm_empty.csv:1:1: empty file"

printf '%s\ngfx942,304,1,x128,256,ck,1,0,5.0,k,1.0,2.0,0.0\n' "$H" >"$T/a8w8_blockscale_tuned_gemm_nonnum.csv"
expect_error nonnumeric "$T/a8w8_blockscale_tuned_gemm_nonnum.csv" \
  "$T/a8w8_blockscale_tuned_gemm_nonnum.csv:2:14: key column N has the value 'x128'"

printf '%s\ngfx942,304,1,128\n' "$H" >"$T/a8w8_blockscale_tuned_gemm_short.csv"
expect_error short "$T/a8w8_blockscale_tuned_gemm_short.csv" "$T/a8w8_blockscale_tuned_gemm_short.csv:2:17: short row"

printf '%s\ngfx942,304,1,128,256,ck,1,0,5.0,k,1.0,2.0,0.0,extra\n' "$H" >"$T/a8w8_blockscale_tuned_gemm_long.csv"
expect_error long "$T/a8w8_blockscale_tuned_gemm_long.csv" "$T/a8w8_blockscale_tuned_gemm_long.csv:2:47: long row"

printf 'gfx,cu_num,M,N,M\n' >"$T/a8w8_blockscale_tuned_gemm_dup.csv"
expect_error dupheader "$T/a8w8_blockscale_tuned_gemm_dup.csv" \
  "$T/a8w8_blockscale_tuned_gemm_dup.csv:1:16: duplicated column name 'M'"

printf 'M,N,K\n1,2,\x00\x01\x02\n' >"$T/a8w8_blockscale_untuned_gemm_bin.csv"
expect_error binary "$T/a8w8_blockscale_untuned_gemm_bin.csv" "$T/a8w8_blockscale_untuned_gemm_bin.csv:2:5: binary data"

# A wrong header (not a known schema) reads, but cannot be merged; --check reports it and exits 3.
printf 'foo,bar\n1,2\n' >"$T/wrong.csv"
"$BIN" merge "$T/wrong.csv" -o "$T/out_wrong.csv" 2>"$T/err_wrong"
[ $? -eq 1 ] || fail "wrong header: merge did not exit 1"
grep -q "$T/wrong.csv:1:1: the header fits none of cktune's families" "$T/err_wrong" || fail "wrong header: message: $(cat "$T/err_wrong")"
[ ! -e "$T/out_wrong.csv" ] || fail "wrong header: output created"
"$BIN" merge --check "$T/wrong.csv" >/dev/null 2>"$T/err_wrong_check"
[ $? -eq 3 ] || fail "wrong header: --check did not exit 3"
grep -q "unknown_family" "$T/err_wrong_check" || fail "wrong header: --check message: $(cat "$T/err_wrong_check")"

# Duplicates across two files: lowest us wins, collision reported, inputs untouched. (libtype asm: the kernel
# names are placeholders; ck rows must name AITER's kernels, tested below.)
A="$T/a8w8_blockscale_tuned_gemm_a.csv"
B="$T/a8w8_blockscale_tuned_gemm_b.csv"
printf '%s\ngfx942,304,1,128,256,asm,1,0,5.0,slow,1.0,2.0,0.0\ngfx942,304,2,128,256,asm,1,0,3.0,k2,1.0,2.0,0.0\n' "$H" >"$A"
printf '%s\ngfx942,304,1,128,256,asm,1,0,4.5,fast,1.0,2.0,0.0\n' "$H" >"$B"
before=$(cat "$A" "$B" | sha256sum)
"$BIN" merge "$A" "$B" -o "$T/merged.csv" 2>"$T/err_merge" >/dev/null
[ $? -eq 0 ] || fail "merge of duplicates: exit $? ($(cat "$T/err_merge"))"
grep -qF "key gfx942,304,1,128,256 occurs 2 times: $A:2 (us 5.0), $B:2 (us 4.5); keeps $B:2" "$T/err_merge" ||
  fail "collision not reported: $(cat "$T/err_merge")"
expected="$H
gfx942,304,1,128,256,asm,1,0,4.5,fast,1.0,2.0,0.0
gfx942,304,2,128,256,asm,1,0,3.0,k2,1.0,2.0,0.0"
[ "$(cat "$T/merged.csv")" = "$expected" ] || fail "merged table: $(cat "$T/merged.csv")"
[ "$(cat "$A" "$B" | sha256sum)" = "$before" ] || fail "inputs were modified"
if ls -A "$T" | grep -q '\.tmp'; then fail "temporary file left behind after merge"; fi

# -o naming an input is refused.
"$BIN" merge "$A" "$B" -o "$A" >/dev/null 2>&1
[ $? -eq 1 ] || fail "-o = input was not refused"
[ "$(cat "$A" "$B" | sha256sum)" = "$before" ] || fail "inputs were modified by -o = input"

# --check: duplicates -> 3; a clean merged table -> 0; --json is JSON on stdout only.
"$BIN" merge --check "$A" "$B" >"$T/check_out" 2>/dev/null
[ $? -eq 3 ] || fail "--check with duplicates did not exit 3"
grep -q "FAILED" "$T/check_out" || fail "--check summary: $(cat "$T/check_out")"
"$BIN" merge --check "$T/merged.csv" --family a8w8_blockscale >/dev/null 2>&1
[ $? -eq 0 ] || fail "--check of the merged table did not pass"
# The blockscale header fits two families: without --family a file name that names neither is refused, unless
# the provenance sidecar tune writes beside its tables names the family.
cp "$T/merged.csv" "$T/out.csv"
"$BIN" merge --check "$T/out.csv" >/dev/null 2>"$T/err_ambiguous"
[ $? -ne 0 ] || fail "--check of an ambiguous table without a sidecar passed"
grep -q "ambiguous_family" "$T/err_ambiguous" || fail "ambiguous table: $(cat "$T/err_ambiguous")"
printf '{"gfx": "gfx942", "cu_num": 304, "family": "a8w8_blockscale"}\n' > "$T/out.csv.provenance.json"
"$BIN" merge --check "$T/out.csv" >/dev/null 2>&1
[ $? -eq 0 ] || fail "--check of a table whose sidecar names its family did not pass"
# A merge writes its output's own sidecar, replacing a stale one there: the family (so that a merged table reads
# back without --family whatever its name), each input with the provenance it had, the inputs' devices and
# profiles. `-o -` writes none.
cp "$T/out.csv" "$T/part2.csv"
printf '{"family": "a8w8_blockscale", "devices": [{"uuid": "GPU-b"}], "profile": "/p/two.csv"}\n' \
  >"$T/part2.csv.provenance.json"
printf '{"stale": true}\n' >"$T/combined.csv.provenance.json"
"$BIN" merge "$T/out.csv" "$T/part2.csv" -o "$T/combined.csv" >/dev/null 2>"$T/err_combined"
[ $? -eq 0 ] || fail "merge of two tables whose sidecars name the family: $(cat "$T/err_combined")"
S="$T/combined.csv.provenance.json"
grep -q '"status": "merged"' "$S" || fail "merged sidecar status: $(cat "$S")"
grep -q '"family": "a8w8_blockscale"' "$S" || fail "merged sidecar family: $(cat "$S")"
grep -q '"stale"' "$S" && fail "the stale sidecar at the output was not replaced"
grep -q '"GPU-b"' "$S" || fail "merged sidecar devices: $(cat "$S")"
grep -q '"profile": "/p/two.csv"' "$S" || fail "merged sidecar profile: $(cat "$S")"
grep -q "\"table\": \"$T/part2.csv\"" "$S" || fail "merged sidecar inputs: $(cat "$S")"
"$BIN" merge --check "$T/combined.csv" >/dev/null 2>&1
[ $? -eq 0 ] || fail "--check of a merged table through its own sidecar did not pass"
(cd "$T" && "$BIN" merge out.csv part2.csv -o - >/dev/null 2>&1) || fail "merge -o - exited $?"
[ ! -e "$T/-.provenance.json" ] || fail "merge -o - wrote a sidecar"
"$BIN" merge --check --json "$A" "$B" >"$T/check.json" 2>/dev/null
[ $? -eq 3 ] || fail "--check --json exit"
if command -v jq >/dev/null 2>&1; then
  [ "$(jq -r '.collisions[0].winner.file' "$T/check.json")" = "$B" ] || fail "--json winner: $(cat "$T/check.json")"
  [ "$(jq -r '.ok' "$T/check.json")" = "false" ] || fail "--json ok"
elif command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["ok"] is False and j["collisions"][0]["winner"]["file"]==sys.argv[2]' \
    "$T/check.json" "$B" || fail "--json content: $(cat "$T/check.json")"
else
  head -c1 "$T/check.json" | grep -q '{' || fail "--json does not start with {"
  grep -q '"winner"' "$T/check.json" || fail "--json lacks winner"
fi

# --check: invalid rows (us <= 0, errRatio above the limit) -> 3; a looser limit passes.
printf '%s\ngfx942,304,1,128,256,asm,1,0,5.0,k,1.0,2.0,0.06\n' "$H" >"$T/a8w8_blockscale_tuned_gemm_err.csv"
"$BIN" merge --check "$T/a8w8_blockscale_tuned_gemm_err.csv" >/dev/null 2>"$T/err_err"
[ $? -eq 3 ] || fail "errRatio above limit: not exit 3"
grep -q "a8w8_blockscale_tuned_gemm_err.csv:2:44: error_too_high" "$T/err_err" || fail "errRatio message: $(cat "$T/err_err")"
"$BIN" merge --check --max-err-ratio 0.1 "$T/a8w8_blockscale_tuned_gemm_err.csv" >/dev/null 2>&1
[ $? -eq 0 ] || fail "--max-err-ratio 0.1 did not pass"
printf '%s\ngfx942,304,1,128,256,asm,1,0,-1,k,1.0,2.0,0.0\n' "$H" >"$T/a8w8_blockscale_tuned_gemm_us.csv"
"$BIN" merge --check "$T/a8w8_blockscale_tuned_gemm_us.csv" >/dev/null 2>&1
[ $? -eq 3 ] || fail "negative us: not exit 3"

# Unreachable MoE tokens: a warning (exit 0), a failure with --strict (exit 3). AITER's own table has one.
"$BIN" merge --check "$DATA/aiter-configs/model_configs/kimik3_a8w4_tuned_fmoe.csv" >/dev/null 2>"$T/err_moe"
rc=$?
grep -q "unreachable" "$T/err_moe" || fail "unreachable token not listed: $(cat "$T/err_moe")"
[ $rc -eq 0 ] || fail "unreachable only: exit $rc, want 0"
"$BIN" merge --check --strict "$DATA/aiter-configs/model_configs/kimik3_a8w4_tuned_fmoe.csv" >/dev/null 2>&1
[ $? -eq 3 ] || fail "--strict with unreachable rows did not exit 3"

# AITER kernels: ck/cktile rows must name AITER's instance for (gfx, kernelId); cktune's own libtypes have no
# place in a table for an AMD gfx. A planted wrong name and a planted wrong id -> exit 3 naming FILE:LINE:COL.
K1=a8w8_blockscale_1x128x128_256x128x64x128_16x16_32x32_2x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3
K1BAD=a8w8_blockscale_1x128x128_256x128x64x128_16x16_32x32_2x1_8x32x1_8x32x1_1x32x1x8_8_1x1_interwave_v3
KT=a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x128_intrawave_0x1x0_1
AK="$T/ak/a8w8_blockscale_tuned_gemm.csv"
mkdir -p "$T/ak"
printf '%s
gfx942,304,1,128,256,ck,1,0,5.0,%s,1.0,2.0,0.0
gfx950,256,1,128,256,cktile,0,0,5.0,%s,1.0,2.0,0.0
' \
  "$H" "$K1" "$KT" >"$AK"
"$BIN" merge --check "$AK" >/dev/null 2>"$T/err_ak" || fail "AITER's own kernels: --check failed: $(cat "$T/err_ak")"
printf '%s
gfx942,304,1,128,256,ck,1,0,5.0,%s,1.0,2.0,0.0
gfx942,304,2,128,256,ck,4,0,5.0,%s,1.0,2.0,0.0
gfx942,304,4,128,256,cktile,0,0,5.0,%s,1.0,2.0,0.0
gfx942,304,8,128,256,cktune,0,0,5.0,cktune_mine,1.0,2.0,0.0
sm_90,132,1,128,256,cktune,0,0,5.0,cktune_mine,1.0,2.0,0.0
' \
  "$H" "$K1BAD" "$K1" "$KT" >"$AK"
"$BIN" merge --check "$AK" >/dev/null 2>"$T/err_ak"
[ $? -eq 3 ] || fail "planted kernels: --check did not exit 3"
grep -qF "$AK:2:33: unknown_aiter_kernel: ck kernelId 1 '$K1BAD' is not in AITER's a8w8_blockscale ck list for gfx942" \
  "$T/err_ak" || fail "planted name: $(cat "$T/err_ak")"
grep -qF "$AK:3:" "$T/err_ak" || fail "planted id: not reported: $(cat "$T/err_ak")"
grep -q "$AK:3:.*stale_kernel_id: ck kernelId 4 names" "$T/err_ak" || fail "planted id: $(cat "$T/err_ak")"
grep -q "$AK:4:.*unknown_aiter_kernel: cktile kernelId 0 '$KT' is not in AITER's a8w8_blockscale cktile list for gfx942" \
  "$T/err_ak" || fail "gfx950's CK-tile kernel on gfx942: $(cat "$T/err_ak")"
grep -q "$AK:5:.*not_aiter_kernel: .*not an AITER CK kernel: AITER cannot load it" "$T/err_ak" ||
  fail "cktune's own row on gfx942: $(cat "$T/err_ak")"
grep -q "$AK:6:" "$T/err_ak" && fail "cktune's own row on sm_90 was reported: $(cat "$T/err_ak")"
if command -v jq >/dev/null; then
  "$BIN" merge --check --json "$AK" 2>/dev/null >"$T/ak.json"
  [ "$(jq '[.findings[] | select(.kind == "unknown_aiter_kernel")] | length' "$T/ak.json")" = 2 ] ||
    fail "--json unknown_aiter_kernel count: $(cat "$T/ak.json")"
fi
# AITER's own shipped tables carry only AITER kernels (the gfx950 CK-tile ids of an older AITER are warnings).
"$BIN" merge --check "$DATA/aiter-configs/a8w8_blockscale_tuned_gemm.csv" >/dev/null 2>"$T/err_real" ||
  fail "AITER's base blockscale table: --check failed: $(grep -v inferred "$T/err_real" | head -3)"
"$BIN" merge --check "$DATA/aiter-configs/model_configs/a8w8_blockscale_tuned_gemm_qwen3_235b.csv" >/dev/null \
  2>"$T/err_stale"
[ $? -eq 0 ] || fail "stale ids failed --check: $(head -3 "$T/err_stale")"
grep -q "stale_kernel_id" "$T/err_stale" || fail "stale ids not reported: $(head -3 "$T/err_stale")"

# Mixed families are refused, naming both.
"$BIN" merge "$DATA/aiter-configs/a8w8_tuned_gemm.csv" "$DATA/aiter-configs/a4w4_blockscale_tuned_gemm.csv" \
  -o "$T/mixed.csv" 2>"$T/err_mixed" >/dev/null
[ $? -eq 1 ] || fail "mixed families: not exit 1"
grep -q "a8w8 tuned" "$T/err_mixed" && grep -q "a4w4_blockscale tuned" "$T/err_mixed" || fail "mixed: $(cat "$T/err_mixed")"
[ ! -e "$T/mixed.csv" ] || fail "mixed families: output created"

# Real tables: base + model configs of one family merge; the result checks clean of duplicates.
"$BIN" merge "$DATA/aiter-configs/a8w8_blockscale_tuned_gemm.csv" \
  "$DATA/aiter-configs/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv" -o "$T/real/a8w8_blockscale_tuned_gemm.csv" \
  --json >"$T/real.json" 2>/dev/null
[ $? -eq 0 ] || fail "real merge failed"
"$BIN" merge --check --json "$T/real/a8w8_blockscale_tuned_gemm.csv" >"$T/real_check.json" 2>/dev/null
grep -q '"collisions": \[\]' "$T/real_check.json" || fail "merged real table still has duplicates"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "merge.sh: all passed"
