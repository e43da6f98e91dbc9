#!/usr/bin/env bash
# Session 44, call 7: the final binary (76cf743's code; 5e351cb changes only a namespace's name) on the third model's
# grid, Qwen3.5-397B-A17B (E = 512, topk 10: the `_r` rows run at up to 51 tokens), and the DeepSeek-V3 TP8 grid with
# seeded skewed routing. .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,vbios_version,power.limit,temperature.gpu --format=csv,noheader
mkdir -p /tmp/m35
OUT=/tmp/m35 SKIP_TESTS=1 TUNE_TIMEOUT=200 BENCH_TIMEOUT=100 bash scripts/gpu_moe.sh qwen35_397b > /tmp/m35.log 2>&1
echo "qwen3.5 rc=$?"
grep -E "tune rc|check:|agreement|tuned vs default" /tmp/m35/moe_summary.txt
grep -E "^\| (1|2|4|8|16|32|64|512|4096|16384) \|" /tmp/m35/moe_summary.txt | cut -d'|' -f2-12
cut -d, -f4,16-22 /tmp/m35/tuned_fmoe_qwen35_397b*.csv | head -8
(cd /tmp && tar czf "$OUT/m35.tgz" m35)
mkdir -p /tmp/msk
OUT=/tmp/msk SKIP_TESTS=1 ROUTING=skewed TUNE_TIMEOUT=200 BENCH_TIMEOUT=100 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/msk.log 2>&1
echo "dsv3 skewed rc=$?"
grep -E "tune rc|check:|agreement|tuned vs default|vs vLLM" /tmp/msk/moe_summary.txt
(cd /tmp && tar czf "$OUT/msk.tgz" msk)
