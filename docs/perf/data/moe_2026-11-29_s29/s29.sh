#!/usr/bin/env bash
# Session 29, fused MoE: stage 2 following stage 1 block by block (`_fl`), the one-launch kernel at 128 gate rows a
# CTA (`1stage_c2`). On the GPU machine with .carryz carried. Runs session 27's s27_moe.sh once per model:
#   DSV3_TOKENS / QWEN_TOKENS: the token counts of each (empty: skip that model); TESTS=1 GF=...: the MoE GPU tests
#   first; SUFFIX: the name part with_vs_without.py compares (best pipeline with it against the best without).
set -u
here=docs/perf/data
run() {  # model tokens tag
  rm -rf /tmp/s27m
  MODEL=$1 TOKENS="$2" SUFFIX=${SUFFIX:-_fl} bash $here/moe_2026-11-29_s27/s27_moe.sh
  for s in ${SUFFIX:-_fl} ${SUFFIX2:-}; do
    echo "== $1: with / without $s"
    python3 $here/moe_2026-11-29_s28/with_vs_without.py /tmp/s27m/moe/profile_$1_uniform.csv $s
  done
  grep -h "worker time by phase\|wall" /tmp/s27m/moe/moe_summary.txt /tmp/s27m/moe/tune_*.txt 2>/dev/null | head -4
  mv "$OUT/s27m.tgz" "$OUT/$3.tgz"
}
[ -n "${DSV3_TOKENS:-}" ] && run dsv3_tp8 "$DSV3_TOKENS" dsv3
unset TESTS
[ -n "${QWEN_TOKENS:-}" ] && run qwen35_397b "$QWEN_TOKENS" qwen35
exit 0
