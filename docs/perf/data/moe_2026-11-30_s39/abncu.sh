#!/usr/bin/env bash
# Session 39's device call, one stage-2 change against HEAD (each callN.sh sets the knobs it ran with):
# (a) GpuMoe.* on the new build (killed after KILL s; STOP=1: stop here unless it passed); (b) the DeepSeek-V3 TP8 tune
# cut to the wgmma pipelines at 8...16384 tokens, base and new in turn, two rounds (ab.sh, TUNE_S s a tune); (c) ncu
# source counters of one stage-2 launch of the tuned 16384-token pipeline for each build in NCU_BUILDS, in turn.
# .carryz: cktune.xz (new), cktune_base.xz (HEAD's build), cktune_gpu_tests.xz (new). Results in $OUT.
set -u
: "${C:?call number}" "${KILL:=100}" "${STOP:=0}" "${TUNE_S:=120}" "${NCU_BUILDS:=cktune_base cktune}"
W=/tmp/c$C
bash scripts/unpack_carry.sh > /dev/null
mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
timeout -s KILL "$KILL" .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > $W/gpu_tests.log 2>&1
rc=$?; echo "gpu tests rc=$rc"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" $W/gpu_tests.log | head -8
gzip -c $W/gpu_tests.log > "$OUT/gpu_tests.log.gz"
[ "$STOP" = 1 ] && [ $rc -ne 0 ] && exit 1
ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" TUNE_S=$TUNE_S VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh > $W/ab.txt 2>&1
sed -n 6,14p $W/ab.txt
python3 docs/perf/data/moe_2026-11-30_s38/s2ab.py /tmp/s31 > $W/s2ab.txt
cp $W/ab.txt $W/s2ab.txt "$OUT/"
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
O=/tmp/src39; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
for b in $NCU_BUILDS; do
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
