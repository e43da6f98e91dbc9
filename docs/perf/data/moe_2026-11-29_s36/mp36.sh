#!/usr/bin/env bash
# Session 36: tune's scaling over GPUs with today's tuner (last measured 2026-11-21 with the tuner of then).
# On a 2-GPU machine with .carryz: the 48-shape block-scale grid and the DeepSeek-V3 TP8 fused-MoE grid, each
# tuned with --mp 1 and --mp 2 (every candidate verified either way), then mp36.py compares wall times and winners.
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/mp36; rm -rf $O; mkdir -p $O
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee $O/device.txt
run() {  # label input mp [extra]
  local l=$1 in=$2 mp=$3; shift 3
  local s=$(date +%s.%N)
  timeout 280 .carry/cktune tune -i "$in" -o $O/tuned_$l.csv -o2 $O/profile_$l.csv --device gpu --mp $mp --json "$@" \
    > $O/tune_$l.json 2> $O/tune_$l.err
  local rc=$?
  echo "$l rc=$rc command $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s" | tee -a $O/walls.txt
}
G=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
M=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
run gemm_mp2 $G 2
run gemm_mp1 $G 1
run moe_mp2 $M 2
run moe_mp1 $M 1
# (As run in call 7 the check had no --family: the GEMM tables' names leave the family open, so they failed with
# ambiguous_family. Corrected after the call.)
for t in $O/tuned_*.csv; do
  case $(basename $t) in tuned_gemm_*) fam=a8w8_blockscale ;; *) fam=moe_2stages ;; esac
  .carry/cktune merge --check --family $fam "$t" > /dev/null 2>&1 && echo "$(basename $t): merge --check ok" || echo "$(basename $t): merge --check FAILED"
done | tee -a $O/walls.txt
python3 docs/perf/data/moe_2026-11-29_s36/mp36.py $O | tee $O/summary.txt
(cd /tmp && tar czf "$OUT/mp36.tgz" mp36)
cp $O/summary.txt $O/walls.txt "$OUT/"
# The ragged set's one row outside 10% in call 6 (8 x 2304 x 4096, tune 9.18 us, bench 10.30): benched again.
if [ -f docs/perf/data/gemm_2026-11-29_s36/call6_ragged/agreement.tgz ]; then
  mkdir -p /tmp/rb && tar xzf docs/perf/data/gemm_2026-11-29_s36/call6_ragged/agreement.tgz -C /tmp/rb
  # (In call 7 the grep below expected leading blanks, which bench's rows do not have, so nothing was printed or
  # kept; call 8 ran it again as it stands now.)
  printf 'M,N,K\n8,2304,4096\n' > /tmp/rb/a8w8_blockscale_untuned_gemm.csv
  for i in 1 2 3; do
    .carry/cktune bench -i /tmp/rb/a8w8_blockscale_untuned_gemm.csv --family a8w8_blockscale --config /tmp/rb/tuned_ragged.csv \
      --against default --device gpu -o /tmp/rb/b$i.csv > /tmp/rb/b$i.txt 2>&1
    grep -E "^8 +2304" /tmp/rb/b$i.txt
  done | tee "$OUT/rebench_8x2304x4096.txt"
fi
