#!/usr/bin/env bash
# Session 31, call 7: what the warps of MoE stage 1 (block_m 128, st4) wait on at 4096 and 16384 DeepSeek-V3 tokens,
# against the GEMM's persistent kernel on a dense matrix with stage 1's N and K and M = 131072 (the routed rows of
# 16384 tokens): ncu (clocks not locked), one launch each, the per-reason stall ratios. On the GPU machine with .carryz.
set -u
O=/tmp/st31; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
NCU=/usr/local/cuda/bin/ncu
MET="--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
for t in 4096 16384; do
  { head -1 $f; grep "^$t," $f; } > $O/moe.csv
  timeout 200 $NCU --clock-control none -k regex:wg_stage_kernel -c 1 $MET \
    .carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t.csv --device gpu --no-progress \
    --kernels 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_so_acc_g4' > $O/stalls_moe_$t.txt 2>&1
  echo "moe $t rc=$?"
done
{ echo M,N,K; echo 131072,512,7168; } > $O/dense.csv
timeout 150 $NCU --clock-control none -k regex:wg -c 1 $MET .carry/cktune tune -i $O/dense.csv --family a8w8_blockscale \
  --device gpu --no-progress --kernels 'wgmmap2_m128_n128_k128_st4_w12_sk1$' -o $O/t2.csv > $O/stalls_dense_131072.txt 2>&1
echo "dense rc=$?"
python3 - $O/stalls_moe_4096.txt $O/stalls_moe_16384.txt $O/stalls_dense_131072.txt <<'PY'
import re, sys
cols = []
for p in sys.argv[1:]:
    d = {}
    for line in open(p):
        m = re.match(r'\s+(smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio|smsp__inst_executed\.sum|gpu__time_duration\.sum|sm__warps_active\.avg\.per_cycle_active)\s+(\S+)?\s+([\d.,]+)$', line)
        if m:
            d[m.group(2) or m.group(1)] = float(m.group(4).replace(',', ''))
    cols.append((p.split('/')[-1][:-4], d))
keys = sorted({k for _, d in cols for k in d}, key=lambda k: -max(d.get(k, 0) for _, d in cols))
print('| metric | ' + ' | '.join(n for n, _ in cols) + ' |')
print('|---' * (len(cols) + 1) + '|')
for k in keys:
    print(f'| {k} | ' + ' | '.join(f"{d.get(k, float('nan')):.3g}" for _, d in cols) + ' |')
PY
tar czf $OUT/st31.tgz -C /tmp st31
