#!/usr/bin/env bash
# Session 39, call 1: session 38's prepared stage-2 change (`../moe_2026-11-30_s38/wl_tilestart_untested.diff`: the
# weight scales one a lane, broadcast by shuffles at the tile's start into registers the promotion reads).
# The call itself: abncu.sh with the knobs it ran with.
C=1 KILL=100 STOP=0 TUNE_S=120 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
