#!/usr/bin/env bash
# Session 40, call 1: session 39's prepared `sxh_untested.diff` (the producer's side area for the two-half stage-2
# rows only), as NEXT.md item 0 of moe_2026-11-30_s39 says: GPU tests first, then base/new tunes and ncu of both.
C=1 KILL=45 STOP=1 TUNE_S=70 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
