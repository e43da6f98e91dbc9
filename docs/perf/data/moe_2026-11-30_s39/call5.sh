#!/usr/bin/env bash
# Session 39, call 5: call 4's change with stage 1's producer as in the base (64-bit row pointers; call 4 gave both stages'
# producers 32-bit row offsets, and its stage 1 was up to 11% slower) (`sx2_withdrawn.diff`).
# The call itself: abncu.sh with the knobs it ran with.
C=5 KILL=60 STOP=1 TUNE_S=70 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
