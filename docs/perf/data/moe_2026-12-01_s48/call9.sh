#!/usr/bin/env bash
# Session 48, call 9 (issue #11, prefill; NEXT.md item 2): stage 1's and stage 2's L2 requests by source and size at
# 4096 DeepSeek-V3 tokens, under ncu (clocks not locked), HEAD's binary. Which L2 metrics exist first (their names).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
NCU=/usr/local/cuda/bin/ncu
O=/tmp/n48c; mkdir -p $O
$NCU --query-metrics --chip gh100 2>/dev/null | grep -E "^lts__t_(requests|sectors)_srcunit|^lts__t_(requests|sectors)_op|^lts__t_requests |^lts__average|^lts__d_|^lts__lts2xbar|^lts__xbar2lts" \
  | awk '{print $1}' > $O/lts_metrics.txt
wc -l < $O/lts_metrics.txt
MET=gpu__time_duration.sum,lts__t_requests.sum,lts__t_sectors.sum
for m in lts__t_requests_srcunit_tex lts__t_sectors_srcunit_tex lts__t_requests_srcunit_ltcfabric \
         lts__t_sectors_srcunit_ltcfabric lts__t_requests_srcunit_tex_op_read lts__t_sectors_srcunit_tex_op_read \
         lts__t_requests_op_read lts__t_requests_op_red lts__t_sectors_op_read lts__t_sectors_op_red; do
  grep -qx "$m" $O/lts_metrics.txt && MET=$MET,$m.sum
done
MET=$MET,lts__throughput.avg.pct_of_peak_sustained_elapsed
echo "$MET" | tr , '\n' > $O/used_metrics.txt
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $f; grep "^4096," $f; } > $O/moe.csv
timeout 200 $NCU --clock-control none -k regex:wg_stage_kernel -c 2 --metrics $MET --csv \
  .carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t.csv --device gpu --no-progress \
  --kernels 'cktune_moe_s1wg_bm64_n256_st4[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g4$' > $O/ncu.csv 2> $O/ncu.err
echo "ncu rc=$?"
python3 - $O/ncu.csv <<'PY'
import csv, io, sys
txt = open(sys.argv[1]).read(); i = txt.find('"ID"')
rows = list(csv.DictReader(io.StringIO(txt[i:]))) if i >= 0 else []
for r in rows:
    print(f"launch {r['ID']} {r['Metric Name']:55s} {r['Metric Value']:>16s} {r['Metric Unit']}")
PY
rm -f $O/t.csv.provenance.json; rm -rf $O/t.csv.cktune
(cd /tmp && tar czf "$OUT/n48c.tgz" n48c)
