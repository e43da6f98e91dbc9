#!/usr/bin/env bash
# Session 39, call 2: the next tile's scales requested while the current tile's last wgmma run, the ids two tiles ahead
# (`ms_withdrawn.diff`).
# The call itself: abncu.sh with the knobs it ran with.
C=2 KILL=100 STOP=0 TUNE_S=120 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
