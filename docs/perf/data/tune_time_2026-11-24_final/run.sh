#!/usr/bin/env bash
# session 15, call 8: the tuner's speed on the 48-shape block-scale grid with the final binary, two runs
set -u
bash scripts/unpack_carry.sh >/dev/null
for i in 1 2; do
  mkdir -p /tmp/tt$i
  OUT=/tmp/tt$i bash scripts/gpu_tune_time.sh grid > /tmp/tt$i/log.txt 2>&1; echo "run $i rc=$?"
  grep -E "wall|first|phase|candidate results" /tmp/tt$i/log.txt | head -8
done
tar czf $OUT/tt.tgz -C /tmp tt1 tt2
