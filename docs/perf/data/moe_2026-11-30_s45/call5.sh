#!/usr/bin/env bash
# Session 45, call 5 (issue #11): DIAGNOSIS. The `_b` stage 1 of call 4 with units of 14 k-blocks (4 a tile at
# DeepSeek-V3's K = 7168) instead of 4: if each unit's synchronous count (fence, barrier, atomic, barrier) is what made
# call 4's `_b` 1.6-1.7x slower, fewer units cut that. The DeepSeek-V3 tune at 8 and 16 tokens, `_q_r` stage-1 rows only.
set -u
O=/tmp/s45d; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; for t in 8 16; do grep "^$t," $g; done; } > $O/grid.csv
s=$(date +%s)
timeout -s KILL 150 .carry/cktune tune -i $O/grid.csv --family moe_2stages -o $O/tuned.csv -o2 $O/profile.csv \
  --device gpu --no-progress --kernels 's1wg_bm64_n256_st4_q_r' --screen-factor 3 > $O/tune.txt 2> $O/tune.err
echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -2 $O/tune.err
python3 docs/perf/data/moe_2026-11-30_s45/cmp45.py $O/profile.csv | tee $O/cmp.txt
(cd /tmp && tar czf "$OUT/s45d.tgz" s45d)
