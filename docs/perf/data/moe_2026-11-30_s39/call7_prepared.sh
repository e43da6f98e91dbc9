#!/usr/bin/env bash
# Prepared for the next session, not run (session 39 had no device time left): `sxh_untested.diff`, call 6's side area
# for the two-half stage-2 rows only (`bm128_n256`; the one-half rows keep their global loads, as before), with the
# register split producer 56 / consumers 224 for those rows only. See NEXT.md item 0 for the runbook.
# The call itself: abncu.sh with call 6's knobs and ncu of both builds.
C=7 KILL=45 STOP=1 TUNE_S=70 bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
