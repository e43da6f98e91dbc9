#!/usr/bin/env bash
# Prepared in session 32 for a later device call (not run yet): which instructions of MoE stage 1 (block_m 128, st4,
# DeepSeek-V3 TP8 4096 tokens) its warps stall on, from ncu's PC sampling per SASS instruction (the SourceCounters
# section). Session 31 (`../moe_2026-11-29_s31/stalls31.sh`) had stage 1 at 1.57-1.72 long-scoreboard stalls an
# issued instruction against the dense GEMM's 0.81, from unknown loads. On the GPU machine with .carryz:
#   bash docs/perf/data/moe_2026-11-29_s32/srcstalls32.sh
set -u
O=/tmp/ss32; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
NCU=/usr/local/cuda/bin/ncu
$NCU --version | tail -1 > $O/ncu_version.txt
$NCU --help | grep -E -- "--page|--print-source|--print-details" > $O/ncu_flags.txt
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=${TOKENS:-4096}
{ head -1 $f; grep "^$t," $f; } > $O/moe.csv
timeout 240 $NCU --clock-control none -k regex:wg_stage_kernel -c 1 --section SourceCounters --section WarpStateStats \
  -o $O/stage1_$t -f .carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t.csv --device gpu --no-progress \
  --kernels 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_so_acc_g4' > $O/ncu_$t.log 2>&1
echo "ncu rc=$?"
# Per SASS instruction, its samples by stall reason (the CSV's columns are whatever this ncu names them).
$NCU -i $O/stage1_$t.ncu-rep --page source --csv --print-source sass > $O/source_$t.csv 2> $O/source_$t.err
echo "export rc=$? ($(wc -l < $O/source_$t.csv) lines)"
python3 docs/perf/data/moe_2026-11-29_s32/srcstalls32.py $O/source_$t.csv | tee $O/top_$t.txt
tar czf $OUT/ss32.tgz -C /tmp ss32
