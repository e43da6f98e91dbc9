#!/usr/bin/env bash
# cktune tune options on the CPU backend: already-tuned keys are skipped unless --all, --min-improvement
# keeps rows (and writes none where the default is close enough), --retry-failed, same --seed gives the
# same inputs (same errRatio values), different shapes get different winners, and a MoE run writes
# rows in the tuned_fmoe schema. Usage: tune_options.sh <cktune-binary> <tests/data>
set -euo pipefail
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$T"
ARGS=(--iters 3 --warmup 1 --no-progress)
rows() { if [ -f "$1" ]; then awk 'NR > 1' "$1" | wc -l; else echo 0; fi; }
keys_of() { awk -F, 'NR > 1 { print $3","$4","$5 }' "$1" | sort; }

# --- skip already-tuned keys, --all, --min-improvement ------------------------------------------------
# m16n64 keeps the CPU default (cpu_bs_tiled_m16n64_t0) among the candidates, so "current" is measured.
printf 'M,N,K\n1,256,512\n16,256,256\n48,128,512\n' >a8w8_blockscale_untuned_gemm.csv
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t.csv "${ARGS[@]}" --kernels m16n64 >r1.out 2>r1.err ||
  fail "first run failed: $(tail -3 r1.err)"
[ "$(rows t.csv)" -eq 3 ] || fail "first run: $(rows t.csv) rows, want 3"
grep -q "winner(s) changed on re-timing" r1.out || fail "summary does not report winners changed on re-timing"
cp t.csv t1.csv
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t.csv "${ARGS[@]}" --kernels m16n64 >r2.out 2>r2.err ||
  fail "second run failed"
grep -q "tuned 0 of 3 shapes (0 failed, 3 skipped" r2.out || fail "rerun did not skip the tuned keys: $(head -1 r2.out)"
cmp -s t.csv t1.csv || fail "rerun changed the table"

# A new key: only it is tuned; the others are skipped because the table has them.
printf '96,128,256\n' >>a8w8_blockscale_untuned_gemm.csv
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t.csv "${ARGS[@]}" --kernels m16n64 >r3.out 2>r3.err ||
  fail "run with a new key failed"
grep -q "tuned 1 of 4 shapes (0 failed, 3 skipped" r3.out || fail "new key: $(head -1 r3.out)"
[ "$(rows t.csv)" -eq 4 ] || fail "new key: $(rows t.csv) rows, want 4"
cp t.csv t3.csv

# --all with a huge --min-improvement: every shape is measured, every existing row kept byte for byte.
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t.csv "${ARGS[@]}" --kernels m16n64 --all --min-improvement 10000 \
  >r4.out 2>r4.err || fail "--all --min-improvement 10000 failed: $(tail -3 r4.err)"
grep -q "rows: 0 new, 0 replaced, 4 kept" r4.out || fail "--min-improvement 10000: $(sed -n 2p r4.out)"
grep -q "kept the existing row" r4.err || fail "--min-improvement: no 'kept the existing row' log line"
cmp -s t.csv t3.csv || fail "--min-improvement 10000 changed the table"

# --all alone: every row is retuned and replaced, the key set stays.
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o t.csv "${ARGS[@]}" --kernels m16n64 --all >r5.out 2>r5.err ||
  fail "--all failed"
grep -q "tuned 4 of 4 shapes" r5.out || fail "--all: $(head -1 r5.out)"
grep -q "rows: 0 new, 4 replaced" r5.out || fail "--all: $(sed -n 2p r5.out)"
keys_of t.csv | diff -q - <(keys_of t3.csv) >/dev/null || fail "--all changed the key set"

# No table yet and the default within PCT of the best: no row is written for those keys.
"$BIN" tune -i a8w8_blockscale_untuned_gemm.csv -o fresh.csv "${ARGS[@]}" --kernels m16n64 --min-improvement 10000 \
  >r6.out 2>r6.err || fail "fresh --min-improvement failed"
grep -q "rows: 0 new, 0 replaced, 4 kept" r6.out || fail "fresh --min-improvement: $(sed -n 2p r6.out)"
[ "$(rows fresh.csv)" -eq 0 ] || fail "fresh --min-improvement 10000 wrote $(rows fresh.csv) rows"
grep -q "no row written" r6.err || fail "fresh --min-improvement: no 'no row written' log line"

# --- --retry-failed -------------------------------------------------------------------------------------
printf 'M,N,K\n4,128,256\n' >one.csv
rc=0
"$BIN" tune -i one.csv --family a8w8_blockscale -o rf.csv "${ARGS[@]}" --kernels naive_t1 \
  --inject-fault crash@cpu_bs_naive_t1 >f1.out 2>f1.err || rc=$?
[ "$rc" -eq 1 ] || fail "a shape with no passing candidate: exit $rc, want 1"
grep -q "tuned 0 of 1 shapes (1 failed" f1.out || fail "failed shape: $(head -1 f1.out)"
[ "$(rows rf.csv)" -eq 0 ] || fail "failed shape wrote a row"
grep -q '"status":"failed"' rf.csv.cktune/journal.jsonl || fail "journal does not record the failed shape"
# Same command, no fault: the table is the truth, so the shape without a row is tuned again (the
# journal's "failed" does not make it done), and the run exits 0 only once every key has its row.
"$BIN" tune -i one.csv --family a8w8_blockscale -o rf.csv "${ARGS[@]}" --kernels naive_t1 >f2.out 2>f2.err ||
  fail "rerun after a failure failed: $(tail -3 f2.err)"
grep -q "tuned 1 of 1 shapes (0 failed, 0 skipped" f2.out || fail "rerun after a failure: $(head -1 f2.out)"
[ "$(rows rf.csv)" -eq 1 ] || fail "rerun after a failure: no row written"
# --retry-failed is still accepted (it is what a rerun does anyway).
"$BIN" tune -i one.csv --family a8w8_blockscale -o rf.csv "${ARGS[@]}" --kernels naive_t1 --retry-failed \
  >f3.out 2>f3.err || fail "--retry-failed failed: $(tail -3 f3.err)"
grep -q "tuned 0 of 1 shapes (0 failed, 1 skipped" f3.out || fail "--retry-failed after success: $(head -1 f3.out)"
# A row deleted from the table but present in the journal is tuned again.
printf 'M,N,K\n4,128,256\n8,128,256\n' >two.csv
"$BIN" tune -i two.csv --family a8w8_blockscale -o del.csv "${ARGS[@]}" --kernels naive_t1 >d1.out 2>d1.err ||
  fail "two shapes: $(tail -3 d1.err)"
head -2 del.csv >del.tmp && mv del.tmp del.csv   # keep the header and the first row
"$BIN" tune -i two.csv --family a8w8_blockscale -o del.csv "${ARGS[@]}" --kernels naive_t1 >d2.out 2>d2.err ||
  fail "rerun after a deleted row: $(tail -3 d2.err)"
grep -q "tuned 1 of 2 shapes (0 failed, 1 skipped" d2.out || fail "deleted row not re-tuned: $(head -1 d2.out)"
[ "$(rows del.csv)" -eq 2 ] || fail "deleted row: table has $(rows del.csv) rows, want 2"
# A run that leaves a requested key without a row exits non-zero and names it.
rc=0
"$BIN" tune -i two.csv --family a8w8_blockscale -o miss.csv "${ARGS[@]}" --kernels naive_t1 \
  --inject-fault crash@cpu_bs_naive_t1 >m1.out 2>m1.err || rc=$?
[ "$rc" -eq 1 ] || fail "keys left without a row: exit $rc, want 1"
grep -q "missing: M=4,N=128,K=256" m1.out || fail "missing keys are not named: $(cat m1.out)"
# A shape every candidate refuses says why, not only how many refused, and a run without results says so.
printf 'M,N,K\n1,128,200\n' >k200.csv
rc=0
"$BIN" tune -i k200.csv --family a8w8_blockscale -o k200t.csv "${ARGS[@]}" >k1.out 2>k1.err || rc=$?
[ "$rc" -eq 1 ] || fail "K = 200: exit $rc, want 1"
grep -q "missing: M=1,N=128,K=200: no candidate passed ([0-9]* not_supported: .*not a multiple of 128" k1.out ||
  fail "K = 200: the refusal's reason is not named: $(grep missing k1.out)"
printf 'token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n' >topk.csv
printf '8,256,128,8,9,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,QuantType.per_1x128,1,0\n' >>topk.csv
rc=0
"$BIN" tune -i topk.csv --family moe_2stages -o topkt.csv "${ARGS[@]}" >t1.out 2>t1.err || rc=$?
[ "$rc" -eq 1 ] || fail "topk > experts: exit $rc, want 1"
grep -q "0 candidate results in .* s (no result)" t1.out || fail "no result: $(grep 'candidate results' t1.out)"
grep -q "topk 9 exceeds the number of experts 8" t1.out || fail "topk > experts: $(grep missing t1.out)"

# --- same --seed, same inputs ---------------------------------------------------------------------------
# The planted wrong candidates have input-dependent errRatio values: equal across runs only when the
# inputs are the same. Profile columns: 4-6 key, 12 kernelName, 20 errRatio, 21 verdict.
printf 'M,N,K\n3,128,256\n24,256,384\n' >s.csv
for r in a b; do
  "$BIN" tune -i s.csv --family a8w8_blockscale -o "seed_$r.csv" -o2 "seedp_$r.csv" "${ARGS[@]}" --seed 11 \
    --include-test-instances --kernels m16n64_t0 >/dev/null 2>"seed_$r.err" || fail "seed run $r failed"
  awk -F, 'NR > 1 { print $4","$5","$6","$12","$20","$21 }' "seedp_$r.csv" | sort >"err_$r.txt"
done
[ "$(wc -l <err_a.txt)" -ge 8 ] || fail "seed runs: too few profile rows"
awk -F, '$5 != "0.0"' err_a.txt | grep -q . || fail "seed runs: no non-zero errRatio to compare"
diff -q err_a.txt err_b.txt >/dev/null || fail "same --seed gave different errRatio values: $(diff err_a.txt err_b.txt | tr '\n' ' ')"
grep -q '"seed": 11' seed_a.csv.provenance.json || fail "provenance does not record the seed"
awk -F, 'NR > 1 && $25 != "11" { bad = 1 } END { exit bad }' seedp_a.csv || fail "profile rows do not record seed 11"

# --- different shapes, different winners ----------------------------------------------------------------
# Single-thread candidates only (least sensitive to other load on a small CI machine): naive, tiled, and
# tiled with B packed on every launch. Packing costs O(N*K) per launch: at M <= 2 the packed kernel is
# ~3x slower than plain tiled, at M >= 256 it is ~1.3-1.4x faster (measured on the 2-core CI machine).
# All six shapes can only share one winner if timing is off by those factors on every shape at once.
printf 'M,N,K\n1,256,2048\n2,128,1024\n512,128,256\n1024,128,128\n256,256,512\n256,128,1024\n' >w.csv
"$BIN" tune -i w.csv --family a8w8_blockscale -o win.csv "${ARGS[@]}" --kernels _t1 >/dev/null 2>win.err ||
  fail "winners run failed"
distinct=$(awk -F, 'NR > 1 { print $10 }' win.csv | sort -u | wc -l)
[ "$distinct" -ge 2 ] || fail "one winner for every shape: $(awk -F, 'NR > 1 { print $3","$4","$5": "$10 }' win.csv | tr '\n' ' ')"

# --- MoE ------------------------------------------------------------------------------------------------
MOE_KEY='ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,QuantType.per_1x128,1,0'
{
  echo 'token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1'
  echo "4,256,128,8,2,$MOE_KEY"
  echo "16,256,128,8,2,$MOE_KEY"
} >untuned_fmoe.csv
"$BIN" tune -i untuned_fmoe.csv -o tuned_fmoe.csv "${ARGS[@]}" >moe.out 2>moe.err || fail "MoE run failed: $(tail -3 moe.err)"
WANT='gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,xbf16,flat,tflops,bw'
[ "$(head -1 tuned_fmoe.csv)" = "$WANT" ] || fail "MoE header: $(head -1 tuned_fmoe.csv)"
[ "$(rows tuned_fmoe.csv)" -eq 2 ] || fail "MoE: $(rows tuned_fmoe.csv) rows, want 2"
awk -F, -v want=28 'NR > 1 && (NF != want || $18 !~ /^cpu_moe_/ || !($17 > 0) || !($23 > 0) || $19 !~ /%$/) { bad = 1 }
  END { exit bad }' tuned_fmoe.csv || fail "MoE rows are not valid: $(cat tuned_fmoe.csv)"
awk -F, 'NR > 1 { print $3 }' tuned_fmoe.csv | sort -n | tr '\n' ' ' | grep -q '^4 16 $' || fail "MoE tokens: $(cat tuned_fmoe.csv)"
rc=0
"$BIN" merge --check tuned_fmoe.csv >moe_check.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "merge --check of the MoE table exited $rc: $(cat moe_check.out)"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "tune_options: ok"
