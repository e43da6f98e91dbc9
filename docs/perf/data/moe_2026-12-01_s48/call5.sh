#!/usr/bin/env bash
# Session 48, call 5 (issue #11, prefill): call 4 again, with a probe binary (cktune_st, `call5_probe_stores_for_adds.diff`)
# whose stage 2 stores its rows (plain 16-byte stores) where it adds them: what the adds cost. Its output is wrong, so
# the tune fails its candidate; ncu times its first (checked) launch like the base binary's. HEAD = cktune.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
NCU=/usr/local/cuda/bin/ncu
O=/tmp/n48b; mkdir -p $O
MET=gpu__time_duration.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
MET=$MET,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,lts__t_requests_op_red.sum,lts__t_sector_hit_rate.pct
MET=$MET,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
MET=$MET,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
run() {  # tokens, pipeline regex, tag (BIN: the binary)
  { head -1 $f; grep "^$1," $f; } > $O/moe_$3.csv
  timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel -c 2 --metrics $MET --csv \
    .carry/${BIN:-cktune} tune -i $O/moe_$3.csv --family moe_2stages -o $O/t_$3.csv --device gpu --no-progress \
    --kernels "$2" > $O/ncu_$3.csv 2> $O/ncu_$3.err
  echo "ncu $3 rc=$?"
}
for BIN in cktune cktune_st; do
run 4096 'cktune_moe_s1wg_bm64_n256_st4[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g4$' bm64_4096_$BIN
run 4096 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g4$' bm128_4096_$BIN
run 16384 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' bm128_16384_$BIN
done
python3 - $O <<'PY'
import csv, glob, io, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], 'ncu_*.csv'))):
    txt = open(p).read()
    i = txt.find('"ID"')
    if i < 0:
        print(os.path.basename(p), 'no ncu table'); continue
    rows = list(csv.DictReader(io.StringIO(txt[i:])))
    launches = {}
    for r in rows:
        launches.setdefault(r['ID'], {})[r['Metric Name']] = (r['Metric Value'], r['Metric Unit'])
    for k, m in sorted(launches.items(), key=lambda kv: int(kv[0])):
        g = lambda n: m.get(n, ('-', ''))[0]
        print(f"{os.path.basename(p)[4:-4]:24s} launch {k}: {g('gpu__time_duration.sum'):>10s} ns  L2 {g('lts__throughput.avg.pct_of_peak_sustained_elapsed'):>6s}%  "
              f"sectors read {g('lts__t_sectors_op_read.sum'):>12s} write {g('lts__t_sectors_op_write.sum'):>11s} red {g('lts__t_sectors_op_red.sum'):>11s}  "
              f"DRAM read {g('dram__bytes_read.sum'):>14s} write {g('dram__bytes_write.sum'):>12s}")
PY
(cd /tmp && tar czf "$OUT/n48b.tgz" n48b)
