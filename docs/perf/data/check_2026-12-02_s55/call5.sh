#!/usr/bin/env bash
# Session 55, call 5: the final binaries (call 4's, built at 20b1b5c; later commits change comments only) on shapes no
# tune has held: session 51's never-tuned check as it was (GPU tests of the block-scale, per-token and fused-MoE
# families; 8 GEMM shapes and 7 DeepSeek-V3 TP8 token counts, each tuned as two shards, merged, merge --check, bench
# --config against the default, report --tuned: do tune's times hold in a later bench?).
set -u
bash docs/perf/data/check_2026-12-01_s51/call1.sh
