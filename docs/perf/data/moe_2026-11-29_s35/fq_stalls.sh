#!/usr/bin/env bash
# Session 35, call 2: why the re-quantising stage 1 (`_fq`, s1_fused_requant_withdrawn.diff) is slower: ncu (clocks not
# locked) of one stage-1 launch at 4096 DeepSeek-V3 tokens, `s1wg_bm64_n256_st4_fq` against `s1wg_bm64_n256_st4`, both
# from the `_fq` build (.carry/cktune_fq), the per-reason stall ratios, the duration and the instruction count.
# On the GPU machine with .carryz (holding cktune_fq.xz) carried.
set -u
O=/tmp/fq35; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
MET="--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,lts__t_bytes.sum"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $f; grep "^4096," $f; } > $O/moe.csv
for s1 in s1wg_bm64_n256_st4 s1wg_bm64_n256_st4_fq; do
  timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel -c 1 $MET \
    .carry/cktune_fq tune -i $O/moe.csv --family moe_2stages -o $O/t_$s1.csv --device gpu --no-progress \
    --kernels "cktune_moe_${s1}[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g1" > $O/stalls_$s1.txt 2>&1
  echo "$s1 rc=$?"
done
python3 - $O/stalls_s1wg_bm64_n256_st4.txt $O/stalls_s1wg_bm64_n256_st4_fq.txt <<'PY' | tee $O/stalls.md
import re, sys
cols = []
for p in sys.argv[1:]:
    d = {}
    for line in open(p):
        m = re.match(r'\s+(smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio|smsp__inst_executed\.sum|gpu__time_duration\.sum|lts__t_bytes\.sum)\s+(\S+)?\s+([\d.,]+)$', line)
        if m:
            d[m.group(2) or m.group(1)] = (float(m.group(4).replace(',', '')), m.group(3) or '')
    cols.append((p.split('/')[-1][7:-4], d))
keys = sorted({k for _, d in cols for k in d}, key=lambda k: -max(d.get(k, (0,))[0] for _, d in cols))
print('| metric | ' + ' | '.join(n for n, _ in cols) + ' |')
print('|---' * (len(cols) + 1) + '|')
for k in keys:
    print(f'| {k} | ' + ' | '.join(f"{d[k][0]:.4g} {d[k][1]}" if k in d else 'n/a' for _, d in cols) + ' |')
PY
tar czf $OUT/fq35.tgz -C /tmp fq35
