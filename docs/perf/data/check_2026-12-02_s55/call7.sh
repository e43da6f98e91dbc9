#!/usr/bin/env bash
# Session 55, call 7 (NEXT.md item 2, the checks): the final tuner + DeviceOutput::gather packing the sampled rows on
# the device and bringing them back in one copy (was one pageable copy a row). (1) Its GPU test. (2) The grid tuned:
# time, the check phase (call 4: 9.3 s), every candidate verified through the new read-back. (3) Session 51's
# never-tuned DeepSeek-V3 token counts, shard 1/2 (the fused-MoE check reads its sampled tokens through it too).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
O=$OUT/s55c7; mkdir -p $O; B=.carry/cktune; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
timeout 60 .carry/cktune_gpu_tests --gtest_filter='GpuDeviceOutput.*:GpuRuntime.*' > $O/gtests.log 2>&1; echo "gtests rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED|Failure" $O/gtests.log | head
timeout 150 $B tune -i $g -o $O/tuned.csv -o2 $O/profile.csv --device gpu --json > $O/tune.json 2> $O/tune.err
echo "tune rc=$?"
python3 -c "import json; d=json.load(open('$O/tune.json')); print('tune s', round(d['seconds'],1), 'first', round(d['first_timing_s'],2), d['candidate_results'], d['tuned'], {k: round(v,1) for k,v in d['phases_s'].items()})"
awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{c[$h["verdict"]]++} END{for(k in c) print "profile verdicts:", k, c[k]}' $O/profile.csv
python3 - $O docs/perf/data/check_2026-12-02_s55/call1_tuned_new2.csv <<'PY'
import csv, sys
O, ref = sys.argv[1:3]
key = lambda r: (r["M"], r["N"], r["K"])
a = {key(r): r for r in csv.DictReader(open(f"{O}/tuned.csv"))}
b = {key(r): r for r in csv.DictReader(open(ref))}
same = sum(a[k]["kernelName"] == b[k]["kernelName"] for k in a if k in b)
print(f"winners as in call 1's new2 table: {same} of {len(b)}")
PY
D=docs/perf/data/check_2026-12-01_s51
timeout 120 $B tune -i $D/never_tuned_dsv3_tp8_s51.csv --family moe_2stages --shard 1/2 -o $O/moe.csv -o2 $O/moe_profile.csv \
  --device gpu --no-progress > $O/moe_tune.txt 2> $O/moe_tune.err; echo "moe tune rc=$?"
grep -E "candidate results in|worker time" $O/moe_tune.txt
awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{c[$h["verdict"]]++} END{for(k in c) print "moe verdicts:", k, c[k]}' $O/moe_profile.csv
rm -rf $O/*.cktune
