#!/usr/bin/env bash
# Session 48, call 3 (issue #11): the Qwen3.5-397B-A17B grid with the kernels of session 47 (HEAD, no kernel change this
# session), last tuned whole in session 44: tuned on both GPUs (--mp 2), benched against the default, with the token
# counts the grid never holds benched from its table (UNTUNED=1). Then the DeepSeek-V3 TP8 grid under seeded skewed
# routing, tuned and benched the same way, as far as the call's time allows.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
O=$OUT/q35; mkdir -p $O
s=$(date +%s)
OUT=$O MP=2 SKIP_TESTS=1 UNTUNED=1 timeout 330 bash scripts/gpu_moe.sh qwen35_397b > $O/run.txt 2>&1
echo "qwen35 rc=$? $(( $(date +%s) - s )) s"
grep -E "tune rc|check:|geomean|bench/tune|never|faster" $O/moe_summary.txt | head -12
O2=$OUT/skew; mkdir -p $O2
s=$(date +%s)
OUT=$O2 MP=2 SKIP_TESTS=1 ROUTING=skewed timeout 200 bash scripts/gpu_moe.sh dsv3_tp8 > $O2/run.txt 2>&1
echo "dsv3 skewed rc=$? $(( $(date +%s) - s )) s"
grep -E "tune rc|check:|geomean|bench/tune" $O2/moe_summary.txt | head -8
cd $OUT && tar czf grids.tgz q35 skew && rm -rf q35 skew
