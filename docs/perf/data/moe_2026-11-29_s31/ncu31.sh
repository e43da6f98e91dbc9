#!/usr/bin/env bash
# Session 31: why does MoE stage 1 (block_m 128, prefill) run near 700 TFLOP/s when the block-scale GEMM's own
# persistent kernel on one dense matrix reaches ~1.2 PFLOP/s? 1) tune-timed dense GEMMs with stage 1's N and K
# (N = 2 * inter_dim = 512, K = 7168) and M = the routed rows of 4096 and 16384 DeepSeek-V3 tokens, and the
# padded rows of 4096 (block_m 128); 2) ncu (clocks not locked) of one stage-1 launch at 4096 tokens and of one
# launch of the dense kernel with its padded M. On the GPU machine with .carryz carried.
set -u
O=/tmp/n31; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
NCU=/usr/local/cuda/bin/ncu
DK=${DK:-'wgmmap2_m128_n128_k128_st[46]_w12_sk1$'}
if [ "${DENSE:-1}" = 1 ]; then
{ echo M,N,K; for m in 32768 49152 131072; do echo $m,512,7168; done; } > $O/dense.csv
timeout 150 .carry/cktune tune -i $O/dense.csv --family a8w8_blockscale --device gpu --no-progress --kernels "$DK" \
  -o $O/dense_tuned.csv -o2 $O/dense_profile.csv > $O/dense_tune.txt 2>&1
echo "dense tune rc=$?"
python3 - "$O/dense_profile.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r.get('verdict') == 'passed':
        M, N, K = int(r['M']), int(r['N']), int(r['K'])
        us = float(r['us'])
        print(f"dense {M}x{N}x{K} {r['kernelName']}: {us:.1f} us, {2*M*N*K/us/1e6:.0f} TFLOP/s")
PY
fi
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
MET="--metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
for t in ${TOK:-4096}; do
  { head -1 $f; grep "^$t," $f; } > $O/moe.csv
  # -c 2: the first stage-1 and the first stage-2 launch of the pipeline
  timeout 200 $NCU --clock-control none -k regex:wg_stage_kernel -c ${NC:-1} $SEC $MET -o $O/stages_$t \
    .carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t.csv --device gpu --no-progress \
    --kernels "${MK:-cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_so_acc_g4}" > $O/ncu_moe_$t.txt 2>&1
  echo "ncu moe $t rc=$?"
done
if [ "${DENSE:-1}" = 1 ]; then
{ echo M,N,K; echo ${DM:-49152},512,7168; } > $O/dense1.csv
timeout 150 $NCU --clock-control none -k regex:wg -c 1 $SEC $MET -o $O/dense_${DM:-49152} \
  .carry/cktune tune -i $O/dense1.csv --family a8w8_blockscale --device gpu --no-progress --kernels 'wgmmap2_m128_n128_k128_st6_w12_sk1$' \
  -o $O/t2.csv > $O/ncu_dense.txt 2>&1
echo "ncu dense rc=$?"
fi
for r in $O/*.ncu-rep; do $NCU --import $r --page details > ${r%.ncu-rep}.txt 2>&1; done
for r in $O/*.ncu-rep; do echo "== $r"; grep -E "wg_stage_kernel|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|gmma_cycles|sector_hit|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|dram__bytes|lts__t_bytes|lsu_wavefronts|inst_executed|Block Size|Grid Size|Registers" ${r%.ncu-rep}.txt | head -40; done
tar czf $OUT/n31.tgz -C /tmp n31
