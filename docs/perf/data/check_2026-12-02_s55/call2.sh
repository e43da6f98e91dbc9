#!/usr/bin/env bash
# Session 55, call 2: call 1's new binary + a trace of every timed launch at -vv (measure()). (1) The screen in two
# passes against an exhaustive tune on the ragged set (PRUNE_CHECK=1 scripts/gpu_tune_time.sh ragged): is an
# exhaustive winner ever screened out? (2) 1 x 32768 x 512: every timed launch of the winner's timings in tune and in
# two benches (alone, and in the grid's bench of call 1's table): why does tune write ~8.7 us where bench measures 9.3-10.1?
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
O=/tmp/s55c2; mkdir -p $O; B=.carry/cktune; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
OUT=$O PRUNE_CHECK=1 bash scripts/gpu_tune_time.sh ragged 2>&1 | tail -8
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
k=gemv_m1_n64_k512_st2_w8_sk1
$B tune -vv -i $O/one.csv -o $O/one_tuned.csv -o2 $O/one_profile.csv --device gpu > /dev/null 2> $O/one_tune.err; echo "tune rc=$?"
$B bench -vv -i $O/one.csv --config $O/one_tuned.csv --device gpu -o $O/one_bench.csv > /dev/null 2> $O/one_bench.err; echo "bench rc=$?"
$B bench -vv -i $g --config docs/perf/data/check_2026-12-02_s55/call1_tuned_new2.csv --device gpu -o $O/grid_bench.csv > /dev/null 2> $O/grid_bench.err; echo "grid bench rc=$?"
for f in one_tune one_bench grid_bench; do
  grep "$k: .* timed launches" $O/$f.err | python3 -c "
import sys, statistics as st
for l in sys.stdin:
    head, us = l.split('us: ')
    v = [float(x) for x in us.split()]
    q = len(v) // 4
    parts = [round(st.median(v[i*q:(i+1)*q]), 2) for i in range(4)] if q else []
    print('$f', len(v), 'median', round(st.median(v), 2), 'quarters', parts, 'first5', [round(x, 2) for x in v[:5]])
"
done
grep -h "1,32768,512" $O/one_tuned.csv docs/perf/data/check_2026-12-02_s55/call1_tuned_new2.csv | cut -d, -f1-10
rm -rf $O/*.cktune; (cd /tmp && tar czf "$OUT/s55c2.tgz" s55c2)
