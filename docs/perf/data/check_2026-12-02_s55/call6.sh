#!/usr/bin/env bash
# Session 55, call 6 (NEXT.md item 1): why do the last ~9 launches of a batch run faster? The final binary's bench at
# -vv on 1 x 32768 x 512 (the default instance, no baseline) with 2, 4, 9, 16 and 32 rotated input sets, and on three
# shapes of ~10-50 us with the automatic rotation: each timing's launches, the median of all but the last 12 and of
# the last 12, and where the fast ones (< 96% of the batch's median) fall.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
O=/tmp/s55c6; mkdir -p $O; B=.carry/cktune
show() {
  grep ": 101 timed launches" $1 | python3 -c "
import sys, statistics as st
for l in sys.stdin:
    name = l.split('] ')[1].split(':')[0]
    v = [float(x) for x in l.split('us: ')[1].split()]
    m = st.median(v)
    fast = [i + 1 for i, x in enumerate(v) if x < 0.96 * m]
    print('$2', name, 'median', round(m, 2), 'head', round(st.median(v[:-12]), 2), 'last12', round(st.median(v[-12:]), 2), 'fast at', fast)
"
}
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
for r in 2 4 9 16 32; do
  $B bench -vv -i $O/one.csv --device gpu --no-baseline --rotate $r -o $O/one_r$r.csv > /dev/null 2> $O/one_r$r.err
  show $O/one_r$r.err "rotate=$r"
done
for s in "1,7168,2048" "64,7168,2048" "512,7168,2048" "16,24576,1536"; do
  printf "M,N,K\n$s\n" > $O/s.csv
  $B bench -vv -i $O/s.csv --device gpu --no-baseline -o $O/s_$s.csv > /dev/null 2> $O/s_$s.err
  show $O/s_$s.err "$s rotate=$(grep -o 'rotate=[0-9]*' $O/s_$s.csv | head -1)"
done
(cd /tmp && tar czf "$OUT/s55c6.tgz" s55c6)
