#!/usr/bin/env bash
# Session 47, call 1 (issue #11, 8-64 tokens): the re-quantising 256-row stage 1 with five stages (200 KB of a CTA's
# weights in flight instead of 160) against its four-stage twin, `_q` and `_q_r`, in the same DeepSeek-V3 TP8 tune cut
# to those stage-1 rows and the stage-2 rows they pair with; three tunes in a row. Binary: HEAD + the two st5 rows.
set -u
O=/tmp/s47c1; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; for t in 8 16 32 64; do grep "^$t," $g; done; } > $O/grid.csv
KRE='s1wg_bm64_n256_st[45]_q(_r)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$'
for r in 1 2 3; do
  s=$(date +%s)
  timeout 150 .carry/cktune tune -i $O/grid.csv --family moe_2stages -o $O/tuned_$r.csv -o2 $O/profile_$r.csv \
    --device gpu --no-progress --retime-tolerance 0.1 --kernels "$KRE" > $O/tune_$r.txt 2> $O/tune_$r.err
  echo "tune round $r rc=$? $(( $(date +%s) - s )) s"
done
python3 docs/perf/data/moe_2026-11-30_s47/st5.py $O
(cd /tmp && tar czf "$OUT/s47c1.tgz" s47c1)
