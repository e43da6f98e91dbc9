#!/usr/bin/env bash
# Session 22: ncu (clocks not locked) of the stream-read calibration and the decode kernels at one shape:
# duration, DRAM and L2 traffic, achieved occupancy, for the register-fed kernel against the others.
set -u
bash scripts/unpack_carry.sh >/dev/null
NCU=/usr/local/cuda/bin/ncu
mkdir -p /tmp/nc
SH=${SH:-1,2112,7168}
for f in stream_read ${FILTERS:-mmad_m8_n16_k128_st8_w8_sk1 mmad_m8_n16_k128_st2_w16_sk1 wgmmas_m8_n64_k128_st12_w8_sk4 mma_m8_n64_k256_st4_w4_sk8}; do
  k='regex:mma_direct|wgmma_swap|mma_splitk'; [ $f = stream_read ] && k=stream_read
  timeout 120 $NCU --clock-control none -k "$k" -c 2 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed \
    .carry/gemm_dev --iters 3 --no-blaslt --shapes "$SH" --filter "$f" > /tmp/nc/$f.txt 2>&1
  echo "== $f rc=$?"
  grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|launch__|lts__|sm__warps|smsp__" /tmp/nc/$f.txt | sed 's/(.*MmaArgs.*//;s/(.*CUtensorMap.*//' | awk '{$1=$1};1' | head -24
done
tar czf $OUT/nc.tgz -C /tmp nc
