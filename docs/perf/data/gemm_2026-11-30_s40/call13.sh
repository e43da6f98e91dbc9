#!/usr/bin/env bash
# Session 40, call 13: call 12 again at 1d7623e, whose provenance also names the clock event reasons seen while busy.
bash docs/perf/data/gemm_2026-11-30_s40/call12.sh
