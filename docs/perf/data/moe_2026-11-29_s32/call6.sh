#!/usr/bin/env bash
# Session 32, call 6 (on the GPU machine, repository root, .carryz carried): does the tuner's screening ever drop the
# winner of an exhaustive run? The GEMM ragged set tuned pruned and with --screen-factor 0 (scripts/gpu_tune_time.sh),
# then the Qwen3-235B TP4 MoE grid with --screen-factor 0 (its pruned run is call 3's). Tarred into $OUT/call6.tgz.
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/call6; mkdir -p $O/gemm $O/moe
PRUNE_CHECK=1 OUT=$O/gemm timeout 260 scripts/gpu_tune_time.sh ragged 2>&1 | tee $O/gemm/summary.txt
s=$(date +%s)
timeout ${MOE_S:-230} .carry/cktune tune -i configs/grids/moe_2stages_untuned_fmoe_qwen3_235b_tp4.csv --family moe_2stages \
  -o $O/moe/tuned_all.csv -o2 $O/moe/profile_all.csv --device gpu --no-progress --screen-factor 0 \
  > $O/moe/tune_all.txt 2> $O/moe/tune_all.err
echo "moe exhaustive rc=$? $(( $(date +%s) - s )) s"; tail -5 $O/moe/tune_all.txt
(cd /tmp && tar czf "$OUT/call6.tgz" call6)
