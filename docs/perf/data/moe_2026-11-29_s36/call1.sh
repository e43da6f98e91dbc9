#!/usr/bin/env bash
# Session 36, call 1: session 35's prepared paired k-blocks for the 256-row block_m 64 stage 1 (NEXT.md of s35),
# run as its runbook says. The binary in .carryz was built with s1_n256_p2_untested.diff applied.
set -u
TESTS=1 GF='GpuMoe.*' TEST_S=150 ROUNDS=2 TUNE_S=150 TOKENS="512 2048 4096 8192 16384" VARIANTS="p2:cktune:-" \
  KRE='s1wg_bm64_n256_st4(_p2)?[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g[14]' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
SUFFIX=p2 python3 docs/perf/data/moe_2026-11-29_s31/pf.py /tmp/s31/profile_p2_*.csv | tee "$OUT/pf.txt"
grep -E "outside|PASSED|FAILED" /tmp/s31/gpu_tests.log | grep -E "n256|PASSED|FAILED" > "$OUT/tests_summary.txt"
