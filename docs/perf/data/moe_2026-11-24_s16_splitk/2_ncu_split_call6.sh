#!/usr/bin/env bash
# session 16, call 6: ncu of the wgmma stage 1 at 2 DeepSeek-V3 tokens: unsplit, sk2, sk4 (warp states, launch, source hot spots)
set -u
bash scripts/unpack_carry.sh >/dev/null
NCU=/usr/local/cuda/bin/ncu
mkdir -p /tmp/nc5
for sk in "" _sk2 _sk4; do
  k="cktune_moe_s1wg_bm64_n128_st4${sk}\\+cktune_moe_s2wg_bm64_n128_st4_acc_g1"
  timeout 200 $NCU --target-processes all -k regex:wg_stage_kernel -c 4 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section SourceCounters \
    .carry/cktune tune -i gpu-in/moe_t2.csv -o /tmp/nc5/t.csv --device gpu --kernels "$k" --iters 3 --warmup 1 > /tmp/nc5/s1$sk.txt 2>&1
  echo "== sk='$sk' rc=$?"
  grep -E "Duration|DRAM Throughput|Grid Size|Cluster|Achieved Occupancy|Warp Cycles Per Issued|Stall|Issued Warp|No Eligible|Active Warps Per" /tmp/nc5/s1$sk.txt | head -24
  rm -rf /tmp/nc5/t.csv*
done
tar czf $OUT/nc5.tgz -C /tmp nc5
