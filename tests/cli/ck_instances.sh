#!/usr/bin/env bash
# cktune ck-instances: the AITER CK instances a table uses and those AITER builds but it never uses, per
# family and gfx, in text and --json; a planted unknown name is listed as such.
# Usage: ck_instances.sh <cktune-binary> <tests/data>
set -u
BIN=$1
DATA=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

H="gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio"
K0=a8w8_blockscale_1x128x128_256x128x128x128_16x16_32x32_2x2_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3
K1=a8w8_blockscale_1x128x128_256x128x64x128_16x16_32x32_2x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3
KT=a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x128_intrawave_0x1x0_1
F="$T/a8w8_blockscale_tuned_gemm.csv"
printf '%s\ngfx942,304,1,128,256,ck,0,0,5.0,%s,1,2,0.0\ngfx942,304,2,128,256,ck,0,0,5.0,%s,1,2,0.0\ngfx942,304,4,128,256,ck,1,0,5.0,%s,1,2,0.0\ngfx950,256,1,128,256,cktile,0,0,5.0,%s,1,2,0.0\ngfx942,304,8,128,256,ck,1,0,5.0,made_up,1,2,0.0\ngfx942,304,16,128,256,asm,1,0,5.0,_ZN5aiter3xE,1,2,0.0\n' \
  "$H" "$K0" "$K0" "$K1" "$KT" >"$F"

"$BIN" ck-instances "$F" >"$T/out" 2>"$T/err" || fail "text: exit $? ($(cat "$T/err"))"
grep -qF "a8w8_blockscale gfx942 ck: 4 row(s) use 2 of the 19 instance(s) AITER builds; 17 built but never used; 1 name(s) AITER does not have" "$T/out" ||
  fail "gfx942 ck summary: $(cat "$T/out")"
grep -qF "a8w8_blockscale gfx950 cktile: 1 row(s) use 1 of the 33 instance(s) AITER builds; 32 built but never used" "$T/out" ||
  fail "gfx950 cktile summary: $(cat "$T/out")"
grep -qE "^  used +2  $K0\$" "$T/out" || fail "used count of K0: $(cat "$T/out")"
grep -qE "^  UNKNOWN +1  made_up\$" "$T/out" || fail "unknown name: $(cat "$T/out")"
[ "$(grep -c '^  unused' "$T/out")" = 49 ] || fail "unused lines: $(grep -c '^  unused' "$T/out")"
grep -q "_ZN5aiter3xE" "$T/out" && fail "an asm row was listed"

if command -v jq >/dev/null; then
  "$BIN" ck-instances --json "$F" >"$T/json" 2>/dev/null || fail "--json exit"
  [ "$(jq length "$T/json")" = 2 ] || fail "--json groups: $(cat "$T/json")"
  [ "$(jq -r '.[0].family + " " + .[0].gfx + " " + .[0].libtype' "$T/json")" = "a8w8_blockscale gfx942 ck" ] ||
    fail "--json first group: $(jq -c '.[0]' "$T/json")"
  [ "$(jq '.[0].built, .[0].used_count, .[0].unused_count, .[0].rows' "$T/json" | tr '\n' ' ')" = "19 2 17 4 " ] ||
    fail "--json counts: $(jq -c '.[0] | del(.unused)' "$T/json")"
  [ "$(jq -r '.[0].unknown[0].name' "$T/json")" = made_up ] || fail "--json unknown"
  [ "$(jq '.[1].unused | length' "$T/json")" = 32 ] || fail "--json gfx950 unused"
fi

# AITER's own MoE table: fp8 blockscale CK 2-stage modules per gfx; other quant types have no list.
"$BIN" ck-instances "$DATA/aiter-configs/model_configs/a8w8_blockscale_tuned_fmoe_qwen3_235b.csv" >"$T/moe" 2>"$T/err" ||
  fail "MoE: exit ($(cat "$T/err"))"
grep -q "^moe_2stages gfx950 ck (a8w8blkscale silu, doweight_stage1=.*instance(s) AITER builds" "$T/moe" ||
  fail "MoE groups: $(cat "$T/moe")"
grep -q "UNKNOWN" "$T/moe" && fail "AITER's own MoE table has unknown names: $(cat "$T/moe")"

# A table with no ck rows says so; a missing file is an error (exit 1).
mkdir -p "$T/asm"
printf '%s\ngfx942,304,1,128,256,asm,1,0,5.0,x,1,2,0.0\n' "$H" >"$T/asm/a8w8_blockscale_tuned_gemm.csv"
[ "$("$BIN" ck-instances "$T/asm/a8w8_blockscale_tuned_gemm.csv" 2>/dev/null)" = "no ck or cktile rows" ] || fail "no ck rows"
"$BIN" ck-instances "$T/missing.csv" >/dev/null 2>&1
[ $? -eq 1 ] || fail "missing file: not exit 1"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ck_instances.sh: all passed"
