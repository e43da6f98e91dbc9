#!/usr/bin/env bash
# Session 48, call 6 (issue #11, 4-8 tokens): `s1wg_bm64_n256_st4_q_rs`, the routing stage 1 standing in for the
# sorting where it has one tile a CTA (the pipeline launches no sorting; stage 1 waits for the kernel before it, writes
# the sorted routing and zeroes the output; stage 2 waits for stage 1 before reading them). The fused-MoE GPU tests,
# then the DeepSeek-V3 TP8 tune cut to the `_q_r` / `_q_rs` pipelines with the 128-column adding stage 2 (one binary,
# timed in the same tune), four rounds.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
timeout 150 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='GpuMoe.*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|tests ran|distinct|comparisons|Failure|_rs" $OUT/gpu_tests.txt | head -30
O=/tmp/s48; mkdir -p $O
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; for t in ${TOKENS:-1 2 4 8 16}; do grep "^$t," $g; done; } > $O/grid.csv
KRE='s1wg_bm64_n256_st4_q_rs?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$'
for r in 1 2 3 4; do
  s=$(date +%s)
  timeout 100 .carry/cktune tune -i $O/grid.csv --family moe_2stages -o $O/tuned_rs_$r.csv -o2 $O/profile_rs_$r.csv \
    --device gpu --no-progress --retime-tolerance 0.1 --kernels "$KRE" > $O/tune_$r.txt 2> $O/tune_$r.err
  echo "tune round $r rc=$? $(( $(date +%s) - s )) s"
done
python3 docs/perf/data/moe_2026-12-01_s48/pairs.py $O '_q_rs+>_q_r+'
(cd /tmp && tar czf "$OUT/s48_call6.tgz" s48)
