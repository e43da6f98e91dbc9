#!/usr/bin/env bash
# Session 46, call 4 (issue #11, 8 tokens against the byte floor): on one board, the 8-token DeepSeek-V3 pipeline of
# call 3's seed-0 table (bench, interleaved against the default) and one streaming read of the same bytes: 316.5 MB,
# the expected 57.4 active experts' w1 and w2 with their scales (1 x 44160 x 7168 in gemm_dev, whose calibration kernel
# reads them once with 16-byte streaming loads, 4 CTAs of 512 threads an SM), with the M = 1 decode kernel on them.
# Bench before and after gemm_dev, to see drift. .carryz (scripts/build_portable.sh), .carryab/gemm_dev.xz (call 2's
# gemm_dev: its stream read and tile-1 `gemvh` are HEAD's).
set -u
O=/tmp/s46c4; mkdir -p $O .carry
scripts/unpack_carry.sh > /dev/null
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
D=docs/perf/data/moe_2026-11-30_s46
awk -F, 'NR == 1 || $1 == 8' configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv > $O/grid8.csv
b() { .carry/cktune bench -i $O/grid8.csv --family moe_2stages --device gpu --config $D/call3/T0.csv --against default \
  --seed 0 -o $O/bench_$1.csv > /dev/null 2> $O/bench_$1.err; echo "bench $1: rc=$? $(awk -F, '$4 == 8 {print $16, $21, $23, $28}' $O/bench_$1.csv | tr '\n' ' ')"; }
b first
timeout -s KILL 200 .carry/gemm_dev --iters 100 --rounds 5 --near 1.5 --filter gemvh_m1_n8 --shapes "1,44160,7168" \
  > $O/stream.log 2>&1
echo "gemm_dev rc=$?"; grep -E "calib|gemvh_m1_n8|ilv" $O/stream.log
b second
tar czf $OUT/s46c4.tgz -C /tmp s46c4
