#!/usr/bin/env bash
# Session 37, call 8: stage 2's consumers fetch the next tile's ids after issuing this tile's first wgmma, not before
# (call 4's source counters: an R2UR of the next tile's expert id right after its load held each tile's start, ~3.4% of
# the samples, and the loop head another 2.4%). GpuMoe.*, then the DeepSeek-V3 TP8 tune cut to the wgmma pipelines at
# 8...16384 tokens, base (HEAD) and new in turn, two rounds; s2pp.py.
# .carryz: cktune.xz (new), cktune_base.xz, cktune_gpu_tests.xz.
# It ran the same tests, tune cut and table as call 7, with its own binaries:
bash docs/perf/data/moe_2026-11-30_s37/call7.sh
