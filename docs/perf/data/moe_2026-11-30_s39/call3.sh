#!/usr/bin/env bash
# Session 39, call 3: stage 2's consumers load nothing from global memory: the producer copies each row's activation scale,
# sorted id and routed weight and the weight scales into a side area of the stage with cp.async, producer 48 registers
# (this form's diff was not kept; CALLS.md describes it).
# The call itself: abncu.sh with the knobs it ran with.
C=3 KILL=100 STOP=0 TUNE_S=120 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
