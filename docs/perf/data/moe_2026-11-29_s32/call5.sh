#!/usr/bin/env bash
# Session 32, call 5 (on the GPU machine, repository root, .carryz carried): the DeepSeek-V3 TP8 and Qwen3-235B TP4
# MoE grids tuned and benched under the seeded skewed routing, tarred into $OUT/call5.tgz.
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/call5; mkdir -p $O
OUT=$O/moe ROUTING=skewed SKIP_TESTS=1 TUNE_TIMEOUT=200 BENCH_TIMEOUT=100 scripts/gpu_moe.sh ${MODELS:-dsv3_tp8 qwen3_235b_tp4} \
  > $O/moe.log 2>&1
echo "moe rc=$?"; grep -E "^=== tune|tune rc|check:|agreement|geomean" $O/moe/moe_summary.txt | head -12
(cd /tmp && tar czf "$OUT/call5.tgz" call5)
