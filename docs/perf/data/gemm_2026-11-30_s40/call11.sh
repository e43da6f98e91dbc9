#!/usr/bin/env bash
# Session 40, call 11: `tune` recording the clocks it ran under (NVML clock event reasons sampled at every tick and
# finished shape, summarised in the provenance and logged): the four M >= 4096 GEMM shapes of call 9 with the
# defaults, and with only the first launches timed after a pause; then the 16384-token DeepSeek-V3 MoE pipeline.
# .carryz: cktune.xz (the working tree: 3359d41 + the clock watch).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/clk41; mkdir -p $O
printf 'M,N,K\n8192,7168,16384\n4096,7168,16384\n8192,24576,1536\n8192,4096,7168\n' > $O/g.csv
K='wgmmap2_m128_n128_k128_st4_w12_sk1|blaslt'
for v in default:"" few:"--warmup 0 --iters 3 --settle-ms 0"; do
  n=${v%%:*}; x=${v#*:}
  sleep 3
  .carry/cktune tune -i $O/g.csv -o $O/t_$n.csv --device gpu --no-progress --kernels "$K" $x > $O/$n.log 2>&1
  echo "== gemm $n rc=$?"; grep -E "clocks:" $O/$n.log; python3 -c "import json; print(json.load(open('$O/t_$n.csv.provenance.json')).get('clocks'))"
done
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $f; grep "^16384," $f; } > $O/moe.csv
.carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t_moe.csv --device gpu --no-progress \
  --kernels 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' > $O/moe.log 2>&1
echo "== moe rc=$?"; grep -E "clocks:" $O/moe.log; python3 -c "import json; print(json.load(open('$O/t_moe.csv.provenance.json')).get('clocks'))"
.carry/cktune tune -i configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv -o $O/t_grid.csv --device gpu --no-progress > $O/grid.log 2>&1
echo "== grid rc=$? $(grep -E 'tuned in|shapes in|seconds' $O/grid.log | tail -1)"; grep -E "clocks:" $O/grid.log; python3 -c "import json; print(json.load(open('$O/t_grid.csv.provenance.json')).get('clocks'))"
tar czf $OUT/clk41.tgz -C /tmp clk41
