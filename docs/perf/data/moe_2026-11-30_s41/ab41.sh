#!/usr/bin/env bash
# Session 41: the DeepSeek-V3 TP8 tune cut to $TOKENS and to the pipelines matching $KRE, run in turn by each of
# $VARIANTS for $ROUNDS rounds, then ab.py's table per token count. A variant is name:binary:env with env a
# comma-separated list of VAR=value ("-" for none), binary under .carry/. On the GPU machine with .carryz carried.
set -u
O=/tmp/s41; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
g=configs/grids/moe_2stages_untuned_fmoe_${MODEL:-dsv3_tp8}.csv
{ head -1 $g; for t in ${TOKENS:-8 16 32 64}; do grep "^$t," $g; done; } > $O/grid.csv
for r in $(seq 1 ${ROUNDS:-2}); do
  for v in $VARIANTS; do
    IFS=: read -r b x e <<< "$v"
    s=$(date +%s)
    [ "$e" = - ] && e=""
    env ${e//,/ } timeout ${TUNE_S:-120} .carry/$x tune -i $O/grid.csv --family moe_2stages -o $O/tuned_${b}_$r.csv \
      -o2 $O/profile_${b}_$r.csv --device gpu --no-progress --retime-tolerance ${TOL:-0.1} \
      --kernels "$KRE" > $O/tune_${b}_$r.txt 2> $O/tune_${b}_$r.err
    echo "tune $b ($e .carry/$x) round $r rc=$? $(( $(date +%s) - s )) s"
  done
done
python3 docs/perf/data/moe_2026-11-29_s30/ab.py $O
(cd /tmp && tar czf "$OUT/s41.tgz" s41)
