#!/usr/bin/env bash
# session 16, call 4: ncu of the stage-1 kernels at 2 and 8 DeepSeek-V3 tokens: the wgmma winner and the warp-MMA split-K
set -u
bash scripts/unpack_carry.sh >/dev/null
NCU=/usr/local/cuda/bin/ncu
mkdir -p /tmp/nc
for t in 2 8; do
  for k in 'cktune_moe_s1wg_bm64_n128_st4\+cktune_moe_s2wg_bm64_n128_st4_acc_g1' 'cktune_moe_s1_bm16_n64_w2_st4_sk8\+cktune_moe_s2_bm16_n64_w2_acc$' 'cktune_moe_s1_bm16_n64_w2_st4_sk1\+cktune_moe_s2_bm16_n64_w2_acc$'; do
    tag=$(echo "$k" | cut -c1-40 | tr -c 'a-z0-9_\n' '_')
    timeout 240 $NCU --target-processes all -k 'regex:stage1_kernel|wg_stage_kernel|stage2_kernel' -c 4 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
      .carry/cktune tune -i gpu-in/moe_t$t.csv -o /tmp/nc/t.csv --device gpu --kernels "$k" --iters 3 --warmup 1 > /tmp/nc/t${t}_$tag.txt 2>&1
    echo "t=$t $k rc=$?"
    grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Grid Size|Block Size|Registers Per|Theoretical Occupancy|Waves Per SM|Dynamic Shared|Warp Cycles Per Issued|L2 Hit" /tmp/nc/t${t}_$tag.txt | head -60
    rm -f /tmp/nc/t.csv*; rm -rf /tmp/nc/t.csv.cktune
  done
done
tar czf $OUT/nc.tgz -C /tmp nc
