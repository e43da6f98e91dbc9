#!/usr/bin/env bash
# Session 48, call 1 (issue #11, 8 tokens): stage 2 waiting for a `_q` stage 1's count of finished tiles (`_cw`) instead
# of for stage 1's grid. The fused-MoE GPU tests, then the DeepSeek-V3 TP8 tune cut to the `_q`/`_q_r` pipelines with
# the 128-column adding stage 2 and its `_cw` twin (both in one binary, timed in the same tune), four rounds.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
timeout 150 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='GpuMoe.*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|tests ran|_cw" $OUT/gpu_tests.txt | head -20
O=/tmp/s48; mkdir -p $O
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; for t in ${TOKENS:-4 8 16 32 64 512}; do grep "^$t," $g; done; } > $O/grid.csv
KRE='s1wg_bm64_n256_st4_q(_r)?[+]cktune_moe_s2wg_bm64_n128_st4_acc_g1(_cw)?$'
for r in 1 2 3 4; do
  s=$(date +%s)
  timeout 100 .carry/cktune tune -i $O/grid.csv --family moe_2stages -o $O/tuned_cw_$r.csv -o2 $O/profile_cw_$r.csv \
    --device gpu --no-progress --retime-tolerance 0.1 --kernels "$KRE" > $O/tune_$r.txt 2> $O/tune_$r.err
  echo "tune round $r rc=$? $(( $(date +%s) - s )) s"
done
python3 docs/perf/data/moe_2026-12-01_s48/pairs.py $O
(cd /tmp && tar czf "$OUT/s48_call1.tgz" s48)
