#!/usr/bin/env bash
# Session 43, call 4: call 3's grid put every 8- and 16-token pipeline 3-6 us behind call 2 and session 42. On one
# machine: (a) base (6fbc4ad) against the final binary, the DeepSeek-V3 TP8 tune cut to 4, 8 and 16 tokens and the
# block_m 64 pipelines, two rounds; (b) the DeepSeek-V3 TP8 grid again (tune, merge --check, bench), final binary.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu,pci.bus_id --format=csv,noheader
ROUNDS=2 TOKENS="4 8 16" TUNE_S=100 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g1)(_dyn)?$' \
VARIANTS="base:cktune_base:- new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab4.txt 2>&1
grep -E "^tune|^NVIDIA" /tmp/ab4.txt
python3 docs/perf/data/moe_2026-11-30_s43/dyn43.py /tmp/s41 > /tmp/d4.txt
cp /tmp/ab4.txt /tmp/d4.txt "$OUT/"
grep -A40 "best pipeline per tune" /tmp/d4.txt
mkdir -p /tmp/moe
OUT=/tmp/moe SKIP_TESTS=1 TUNE_TIMEOUT=200 BENCH_TIMEOUT=90 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/moe_run4.log 2>&1
echo "moe rc=$?"
grep -E "tune rc|check:|^\| (4|8|16|32|64|512) \||agreement|tuned vs default|vs vLLM" /tmp/moe/moe_summary.txt
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
