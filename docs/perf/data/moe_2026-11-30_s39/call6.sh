#!/usr/bin/env bash
# Session 39, call 6: the side area filled once a tile (`sxt.diff`): with the tile's first k-block the producer copies each
# row's KB activation scales and the tile's weight scales; the consumers read them once a tile (3 ld.shared.v4). Producer
# 56 registers, consumers 224 (one CTA an SM; 40 + 2 x 232 left the producer spilling). ncu of the new build only.
# Stops after (a) if the GPU tests do not pass.
# (a) GpuMoe.* on the new build; (b) the DeepSeek-V3 TP8 tune cut to the wgmma pipelines at 8...16384 tokens, base (HEAD 778ee2b = dd0c923's kernels) and new
# in turn, two rounds; (c) ncu source counters of one stage-2 launch at 16384 tokens, base and new in turn (as s38 call 5).
# .carryz: cktune.xz (new), cktune_base.xz (HEAD's build), cktune_gpu_tests.xz (new).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c6
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
timeout -s KILL 45 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/c6/gpu_tests.log 2>&1
rc=$?; echo "gpu tests rc=$rc"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" /tmp/c6/gpu_tests.log | head -8
gzip -c /tmp/c6/gpu_tests.log > "$OUT/gpu_tests.log.gz"
[ $rc -eq 0 ] || exit 1
ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" TUNE_S=60 VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh > /tmp/c6/ab.txt 2>&1
sed -n 6,14p /tmp/c6/ab.txt
python3 docs/perf/data/moe_2026-11-30_s38/s2ab.py /tmp/s31 > /tmp/c6/s2ab.txt
cp /tmp/c6/ab.txt /tmp/c6/s2ab.txt "$OUT/"
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
O=/tmp/src39; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
for b in cktune; do
  n=s2_${t}_$b
  timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel --launch-skip 1 -c 1 $SEC --import-source no -o $O/$n \
    .carry/$b tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_$n.csv --device gpu --no-progress \
    --kernels 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' > $O/ncu_$n.txt 2>&1
  echo "ncu $n rc=$?"
  $NCU --import $O/$n.ncu-rep --page details > $O/${n}_details.txt 2>&1
  $NCU --import $O/$n.ncu-rep --page source --csv --print-source sass > $O/${n}_sass.csv 2> $O/${n}_sass.err
  grep -E "Duration|Issued Warp|No Eligible" $O/${n}_details.txt | cut -c1-120 | head -4
  python3 docs/perf/data/moe_2026-11-29_s35/sass_an.py $O/${n}_sass.csv > $O/${n}_stalls.txt
  sed -n 2,14p $O/${n}_stalls.txt | cut -c1-150
  gzip -f $O/${n}_sass.csv
done
rm -f $O/*.ncu-rep
tar czf $OUT/src39.tgz -C /tmp src39
