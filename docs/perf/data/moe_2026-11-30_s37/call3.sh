#!/usr/bin/env bash
# Session 37, call 3: what bounds the prefill stage 2 (issue #11's 3x at >= 4096 tokens)? ncu on the tuned DeepSeek-V3
# TP8 pipelines' stage 2 at 4096 and 16384 tokens, three builds: the committed kernel (bf16 adds into the output), and
# two measurement-only builds of `whatif_stage2.diff` (never committed; their sums are wrong, so the tune's check fails
# them): the adds replaced by plain 16-byte stores (st), and no stores at all (none: the values are still computed and
# staged). Per kernel: duration, L2 / DRAM / tensor-pipe use and L2 sectors by operation.
# On the GPU machine with .carryz (cktune.xz, cktune_st.xz, cktune_none.xz) carried.
set -u
O=/tmp/s37w; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
NCU=/usr/local/cuda/bin/ncu
$NCU --query-metrics --chip gh100 > $O/query.txt 2>&1 || $NCU --query-metrics > $O/query.txt 2>&1
want="gpu__time_duration sm__throughput lts__throughput dram__throughput lts__t_sectors_op_read lts__t_sectors_op_write
lts__t_sectors_op_red lts__t_sectors_op_atom lts__d_atomic_input_cycles_active sm__pipe_tensor_op_gmma_cycles_active
lts__t_sectors_srcunit_ltcfabric dram__bytes_read dram__bytes_write lts__t_sectors_lookup_hit lts__t_sectors_lookup_miss"
met=""
for m in $want; do
  grep -qE "^$m\b" $O/query.txt || continue
  case $m in
    *__throughput|*cycles_active) met+="$m.avg.pct_of_peak_sustained_elapsed," ;;
    gpu__time_duration) met+="$m.sum," ;;
    *) met+="$m.sum," ;;
  esac
done
met+="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
echo "metrics: $met" | tee $O/metrics.txt
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
for t in 4096 16384; do
  { head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
  case $t in
    4096) pipe='cktune_moe_s1wg_bm64_n256_st4[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g1$' ;;
    16384) pipe='cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' ;;
  esac
  for v in cktune cktune_st cktune_none; do
    s=$(date +%s)
    timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel -c 2 --metrics "$met" -o $O/${v}_$t \
      .carry/$v tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_${v}_$t.csv -o2 $O/p_${v}_$t.csv --device gpu \
      --no-progress --kernels "$pipe" > $O/ncu_${v}_$t.txt 2>&1
    echo "ncu $v $t rc=$? $(( $(date +%s) - s )) s"
    $NCU --import $O/${v}_$t.ncu-rep --page details > $O/${v}_$t.txt 2>&1
  done
done
python3 docs/perf/data/moe_2026-11-30_s37/whatif.py $O | tee $O/whatif.txt
rm -f $O/*.ncu-rep
tar czf $OUT/s37w.tgz -C /tmp s37w
