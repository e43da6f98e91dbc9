#!/usr/bin/env bash
# Session 39, call 6: the side area filled once a tile (`sxt_withdrawn.diff`): with the tile's first k-block the producer copies each
# row's KB activation scales and the tile's weight scales; the consumers read them once a tile (3 ld.shared.v4). Producer
# 56 registers, consumers 224 (one CTA an SM; 40 + 2 x 232 left the producer spilling). ncu of the new build only.
# The call itself: abncu.sh with the knobs it ran with.
C=6 KILL=45 STOP=1 TUNE_S=60 NCU_BUILDS=cktune bash docs/perf/data/moe_2026-11-30_s39/abncu.sh
