#!/usr/bin/env bash
# Session 46, call 3 (issue #11; session 42's open question): does a tuned decode row hold for another routing? The
# tune times every candidate on one seeded routing (all rotated input sets share its topk_ids), as AITER's tuner does;
# a server routes differently every step. DeepSeek-V3 TP8 at 1...512 tokens, uniform routing, tuned with --seed 0 and
# --seed 1; then at each seed s the table tuned on the other seed is benched against the one tuned on s, interleaved in
# one run. A ratio above 1 is what a row tuned on another routing costs. .carryz from scripts/build_portable.sh.
set -u
O=/tmp/s46c3; mkdir -p $O
scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
bin=.carry/cktune
g=$O/grid.csv
awk -F, 'NR == 1 || $1 <= 512' configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv > $g
for s in 0 1; do
  t0=$(date +%s)
  timeout -s KILL 200 $bin tune -i $g --family moe_2stages -o $O/T$s.csv -o2 $O/P$s.csv --device gpu --seed $s \
    --no-progress > $O/tune$s.txt 2> $O/tune$s.err
  echo "tune seed $s rc=$? $(( $(date +%s) - t0 )) s"
done
for s in 0 1; do
  o=$((1 - s))
  timeout -s KILL 100 $bin bench -i $g --family moe_2stages --device gpu --config $O/T$o.csv --against $O/T$s.csv \
    --seed $s -o $O/B$s.csv > $O/bench$s.txt 2> $O/bench$s.err
  echo "bench at seed $s (after = tuned on seed $o, before = tuned on seed $s) rc=$?"
  $bin compare --interleaved $O/B$s.csv > $O/cmp$s.txt 2>&1
  sed -n '/per shape/,/^summary/p' $O/cmp$s.txt | head -16
done
python3 - $O <<'PY'
import csv, sys
O = sys.argv[1]
def table(p):
    out = {}
    for r in csv.DictReader(open(p)):
        k2 = r["kernelName2"]
        out[int(r["token"])] = (r["block_m"], r["kernelName1"] + ("+" + k2 if k2 and k2 != "None" else ""))
    return out
T = [table(f"{O}/T{s}.csv") for s in (0, 1)]
B = {}
for s in (0, 1):
    for r in csv.DictReader(open(f"{O}/B{s}.csv")):
        B.setdefault((s, int(r["token"])), {})[r["role"]] = float(r["us"])
print("| tokens | winner, seed 0 | winner, seed 1 | same | seed 0: other/own | seed 1: other/own |")
print("|---|---|---|---|---|---|")
for t in sorted(T[0]):
    w0, w1 = T[0][t][1], T[1].get(t, ("", ""))[1]
    r = []
    for s in (0, 1):
        b = B.get((s, t), {})
        r.append(f"{b['dispatch'] / b['against']:.3f}" if "dispatch" in b and "against" in b else "-")
    print(f"| {t} | {w0} | {w1} | {'yes' if w0 == w1 else 'no'} | {r[0]} | {r[1]} |")
PY
tar czf $OUT/s46c3.tgz -C /tmp s46c3
