#!/usr/bin/env bash
# Session 39, call 4: stage 2's consumers load no scale from global memory: the producer copies each row's activation
# scale of the k-block and the k-block's weight scales into a side area of the stage with cp.async (`sx_withdrawn.diff`; call 3's
# first version hung: a 48-register producer beside two 232-register consumer warpgroups, more than the CTA's pool).
# The call itself: abncu.sh with the knobs it ran with.
C=4 KILL=60 STOP=1 TUNE_S=70 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
