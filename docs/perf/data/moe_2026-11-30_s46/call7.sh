#!/usr/bin/env bash
# Session 46, call 7 (issue #11, the boards where 8 tokens are slower): on whatever board the call gets, the 8-token
# pipeline's parts timed alone (tune's profile: sorting, stage 1, stage 2, each with the same protocol) for the two
# stage-1 forms of the tables (`_q` and `_q_r`, with the same stage 2), every candidate timed fully; then the pipeline
# with the launches overlapped and serialised once each. Run on a slow and on a fast board to see which part differs.
set -u
O=/tmp/s46c7; mkdir -p $O
scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,serial --format=csv,noheader
D=docs/perf/data/moe_2026-11-30_s46
awk -F, 'NR == 1 || $1 == 8' configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv > $O/grid.csv
.carry/cktune tune -i $O/grid.csv --family moe_2stages --device gpu --seed 0 --screen-factor 0 --no-progress \
  --kernels 'cktune_moe_s1wg_bm64_n256_st4_q(_r)?\+cktune_moe_s2wg_bm64_n128_st4_acc_g1$' \
  -o $O/T.csv -o2 $O/P.csv > /dev/null 2> $O/tune.err
echo "tune rc=$?"
awk -F, 'NR == 1 {for (i = 1; i <= NF; ++i) c[$i] = i; next} $c["role"] == "candidate" {print $c["kernelName"], $c["us"], $c["parts"]}' $O/P.csv
for mode in pdl serial; do
  env=""; [ $mode = serial ] && env="CKTUNE_SERIAL_LAUNCHES=1"
  env $env .carry/cktune bench -i $O/grid.csv --family moe_2stages --device gpu --config $D/call3/T0.csv --seed 0 \
    -o $O/b_$mode.csv > /dev/null 2> $O/b_$mode.err
  echo "$mode rc=$?: $(awk -F, 'NR > 1 {printf "%s tokens %s us; ", $4, $23}' $O/b_$mode.csv)"
done
tar czf $OUT/s46c7.tgz -C /tmp s46c7
