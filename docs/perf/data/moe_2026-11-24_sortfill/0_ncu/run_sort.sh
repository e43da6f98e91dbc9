#!/usr/bin/env bash
# session 15, call 3: SASS-level stall profile of the single-block sort (16 and 64 DeepSeek-V3 tokens, block_m 64)
set -u
bash scripts/unpack_carry.sh >/dev/null
B=.carry/cktune
NCU=/usr/local/cuda/bin/ncu
for t in 16 64; do
  { head -1 gpu-in/moe_3.csv; echo "$t,7168,256,256,8,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,QuantType.per_1x128,1,0"; } > /tmp/m$t.csv
  timeout 150 $NCU --target-processes all --clock-control none -k regex:"sort_single" --launch-count 1 --set full --import-source no -o $OUT/sort$t \
    $B tune -i /tmp/m$t.csv --family moe_2stages --device gpu --kernels 's1wg_bm64_n128_st4\+cktune_moe_s2wg_bm64_n128_st4_acc_g1' --iters 3 --warmup 1 -o /tmp/x$t.csv > $OUT/log$t.txt 2>&1
  echo rc=$?
  $NCU -i $OUT/sort$t.ncu-rep --page source --csv --print-source sass > $OUT/sort${t}_sass.csv 2>&1; echo rc=$?
  $NCU -i $OUT/sort$t.ncu-rep --page details > $OUT/sort${t}_details.txt 2>&1
  grep -E "Duration|SM Active" $OUT/sort${t}_details.txt
done
