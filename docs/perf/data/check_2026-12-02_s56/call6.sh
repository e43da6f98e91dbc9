#!/usr/bin/env bash
# Session 56, call 6 (trustworthy numbers): which history slows the grid bench's 1 x 32768 x 512. Call 4: 10.0 / 10.4 us
# in the grid's order (after the whole N = 24576 group), 9.34 at the grid's end; call 5: 9.47 right after
# 8192 x 24576 x 1536 in a fresh process with 300 ms a role. Here, each in a fresh process with the default protocol,
# twice each, interleaved: (a) 8192 x 24576 x 1536 then the short shape; (b) the whole N = 24576 group (M = 1 ... 8192)
# then the short shape; (c) the short shape alone.
set -u
bash scripts/unpack_carry.sh > /dev/null
D=docs/perf/data/check_2026-12-02_s56; O=/tmp/s56c6; mkdir -p $O; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm --format=csv,noheader
printf 'M,N,K\n8192,24576,1536\n1,32768,512\n' > $O/a.csv
{ head -1 $g; grep ',24576,1536$' $g; echo 1,32768,512; } > $O/b.csv
cp $D/one.csv $O/c.csv
for rep in 1 2; do
  for f in a b c; do
    timeout 100 .carry/cktune bench -i $O/$f.csv --config $D/call2_tuned.csv --device gpu -o $O/${f}_$rep.csv > /dev/null 2> $O/${f}_$rep.err
    awk -F, -v t="$f$rep" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["M"]==1 && $h["N"]==32768 {print t, $h["role"], $h["kernelName"], $h["us"], $h["us_p10"], $h["us_p90"]}' $O/${f}_$rep.csv
  done
done
(cd /tmp && tar czf "$OUT/s56c6.tgz" s56c6)
