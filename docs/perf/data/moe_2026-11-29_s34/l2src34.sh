#!/usr/bin/env bash
# Session 34, prepared for the next device session (not run): where the L2 bytes of the 256-wide block_m 64 MoE stages
# come from, by operation and by source, at 4096 DeepSeek-V3 tokens. ncu counted the same 3.54 GB through L2 for the
# plain stage 1 and for the multicast-pairs one (`call6_mc/s1_multicast_pairs_withdrawn.diff`), so this asks which
# part of lts__t_bytes the weights, the gathered rows, the stores and the cross-partition fabric are.
# On the GPU machine with .carryz carried; build with the `_mc` patch applied (MC=1) to profile it too.
set -u
O=/tmp/l2s; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
NCU=/usr/local/cuda/bin/ncu
# Only metrics this ncu knows: the candidates below filtered by --query-metrics.
$NCU --query-metrics --chip gh100 > $O/query.txt 2>&1 || $NCU --query-metrics > $O/query.txt 2>&1
want="lts__t_bytes lts__t_sectors lts__t_sectors_op_read lts__t_sectors_op_write lts__t_sectors_op_red lts__t_sectors_op_atom
lts__t_sectors_srcunit_tex lts__t_sectors_srcunit_tex_op_read lts__t_sectors_srcunit_tex_op_write
lts__t_sectors_srcunit_tex_op_red lts__t_sectors_srcunit_ltcfabric lts__t_sectors_srcnode_gpc
lts__t_sectors_srcunit_tex_lookup_hit lts__t_sectors_srcunit_tex_lookup_miss lts__t_sectors_lookup_hit
lts__t_sectors_lookup_miss lts__t_requests_srcunit_tex_op_read lts__d_sectors_fill_device dram__bytes_read
dram__bytes_write lts__t_sectors_srcunit_ltcfabric_op_read"
met=""
for m in $want; do grep -qE "^$m\b" $O/query.txt && met+="$m.sum,"; done
echo "metrics: ${met%,}" | tee $O/metrics.txt
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $f; grep "^4096," $f; } > $O/moe.csv
run() {  # name, stage-1 pattern, stage-2 pattern, launches
  timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel -c $4 --metrics "${met%,}" -o $O/$1 \
    .carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t_$1.csv --device gpu --no-progress \
    --kernels "$2[+]$3" > $O/ncu_$1.txt 2>&1
  echo "ncu $1 rc=$?"
  $NCU --import $O/$1.ncu-rep --page details > $O/$1.txt 2>&1
  grep -E "wg_stage_kernel|lts__|dram__" $O/$1.txt
}
run plain cktune_moe_s1wg_bm64_n256_st4 cktune_moe_s2wg_bm64_n256_st4_so_acc_g1 2
[ "${MC:-0}" = 1 ] && run mc cktune_moe_s1wg_bm64_n256_st4_mc cktune_moe_s2wg_bm64_n256_st4_so_acc_g1 1
tar czf $OUT/l2s.tgz -C /tmp l2s
