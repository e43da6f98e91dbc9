#!/usr/bin/env bash
# Session 40, call 7 (NEXT.md item 1; call 6 found no nsys on the machine): the duration and clock of each of the
# first 150 wgmma-stage launches while the tune times the 16384-token DeepSeek-V3 pipeline, one metric pass each
# (ncu still serialises the launches, but takes no cache flush and no clock lock here), to set beside the tune's part
# times. .carryz: cktune.xz (35257ba).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/seq40; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
K='cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$'
timeout 300 $NCU --clock-control none --cache-control none -k regex:'wg_stage_kernel|quantize_a' -c 150 \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second --csv --print-units base \
  .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/t.csv -o2 $O/p.csv --device gpu --no-progress \
  --kernels "$K" > $O/ncu.csv 2> $O/ncu.err
echo "ncu rc=$?"
python3 - $O <<'PY'
import csv, sys, statistics as st
O = sys.argv[1]
lines = [l for l in open(f"{O}/ncu.csv") if l.startswith('"')]
rows = list(csv.DictReader(lines))
seq = {}
for r in rows:
    k = (int(r["ID"]), r["Kernel Name"])
    seq.setdefault(k, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
out = []
for (i, n), m in sorted(seq.items()):
    s = "s1" if "WgCfg<128, 4, 0, 128, 1>, 1" in n else "s2" if "wg_stage" in n else "quant"
    out.append((i, s, m.get("gpu__time_duration.sum", 0) / 1000, m.get("sm__cycles_elapsed.avg.per_second", 0) / 1e9))
with open(f"{O}/seq.txt", "w") as f:
    for o in out: f.write("%d %s %.2f us %.3f GHz\n" % o)
for s in ("s1", "quant", "s2"):
    v = [o[2] for o in out if o[1] == s]; c = [o[3] for o in out if o[1] == s]
    if v: print(f"{s}: n={len(v)} median {st.median(v):.1f} us (min {min(v):.1f}, max {max(v):.1f}), clock median {st.median(c):.3f} GHz (min {min(c):.3f})")
print("first 12:", [(o[1], round(o[2]), round(o[3], 2)) for o in out[:12]])
PY
cat $O/p.csv | python3 -c "import csv,sys; [print(r['us'], r['parts'], r['protocol'][-30:]) for r in csv.DictReader(sys.stdin)]"
tar czf $OUT/seq40.tgz -C /tmp seq40
