#!/usr/bin/env bash
# Session 46, call 11: call 10's probe and call 9's bench (the board's class: call 3's table at 8 tokens, `_q`, runs
# ~89 us on the fast H200s and ~93 on the slow ones) on the board this call gets.
set -u
bash docs/perf/data/moe_2026-11-30_s46/call9.sh 2>&1 | grep -E "^NVIDIA|dispatch"
bash docs/perf/data/moe_2026-11-30_s46/call10.sh > /dev/null 2>&1; echo "probe done"
