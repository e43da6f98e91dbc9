#!/usr/bin/env bash
# Session 55, call 3: call 2's binary + the timer's spin sized from what queueing takes (EventTimer: a batch the device
# reached before the host had queued it is timed again, with a longer spin). (1) The grid tuned at -vv (the timer's
# lines: how often a batch was late, the allowance per launch), then benched with its table: tune time, bench/tune
# agreement, vs cuBLASLt. (2) 1 x 32768 x 512 tuned and benched alone at -vv: every timed launch. (3) GPU tests.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
O=/tmp/s55c3; mkdir -p $O; B=.carry/cktune; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
timeout 150 $B tune -vv -i $g -o $O/tuned.csv -o2 $O/profile.csv --device gpu --json > $O/tune.json 2> $O/tune.err
echo "tune rc=$?"
python3 -c "import json; d=json.load(open('$O/tune.json')); print('tune s', round(d['seconds'],1), 'first', round(d['first_timing_s'],2), d['candidate_results'], {k: round(v,1) for k,v in d['phases_s'].items()})"
echo "timer batches: $(grep -c 'timer: ' $O/tune.err), late: $(grep -c 'reached them first' $O/tune.err)"
grep 'timer: ' $O/tune.err | sed 's/.*(\([0-9.]*\) a launch).*allows \([0-9.]*\) a launch now/\1 \2/' | python3 -c "
import sys, statistics as st
a = [tuple(map(float, l.split())) for l in sys.stdin if len(l.split()) == 2]
q = sorted(x for x, _ in a); w = [y for _, y in a]
print('queue us a launch: median', q[len(q)//2], 'p90', q[int(len(q)*0.9)], 'max', q[-1], '| allowance median', st.median(w), 'max', max(w))"
grep 'reached them first' $O/tune.err | head -5 | cut -c1-200
timeout 100 $B bench -i $g --config $O/tuned.csv --device gpu -o $O/after.csv > $O/bench.txt 2> $O/bench.err; echo "bench rc=$?"
$B compare --vs-baseline $O/after.csv --json > $O/vs_blaslt.json 2>/dev/null
python3 -c "import json; d=json.load(open('$O/vs_blaslt.json')); print('vs cuBLASLt', round(d['summary']['geomean'],3), {k: round(v['geomean'],3) for k,v in d['by_class'].items()})"
python3 - $O <<'PY'
import csv, sys, math
O = sys.argv[1]
key = lambda r: (r["M"], r["N"], r["K"])
t = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{O}/tuned.csv"))}
b = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{O}/after.csv")) if r["role"] == "dispatch"}
r = {k: b[k] / t[k] for k in t if k in b}
v = list(r.values())
print(f"bench/tune: {sum(abs(x - 1) <= 0.10 for x in v)} of {len(v)} within 10%, geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}, "
      f"range {min(v):.3f}-{max(v):.3f}; outside 5%: " + ", ".join(f"{'x'.join(k)} {x:.3f}" for k, x in r.items() if abs(x - 1) > 0.05))
PY
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
k=gemv_m1_n64_k512_st2_w8_sk1
$B tune -vv -i $O/one.csv -o $O/one_tuned.csv -o2 $O/one_profile.csv --device gpu > /dev/null 2> $O/one_tune.err; echo "one tune rc=$?"
$B bench -vv -i $O/one.csv --config $O/one_tuned.csv --device gpu -o $O/one_bench.csv > /dev/null 2> $O/one_bench.err; echo "one bench rc=$?"
for f in one_tune one_bench; do
  grep "$k: .* timed launches" $O/$f.err | python3 -c "
import sys, statistics as st
for l in sys.stdin:
    v = [float(x) for x in l.split('us: ')[1].split()]
    q = len(v) // 4
    print('$f', len(v), 'median', round(st.median(v), 2), 'quarters', [round(st.median(v[i*q:(i+1)*q]), 2) for i in range(4)] if q else [])
"
done
grep -h "1,32768,512" $O/one_tuned.csv $O/tuned.csv | cut -d, -f1-10
awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["M"]==1 && $h["N"]==32768{print "bench grid 1x32768x512", $h["role"], $h["us"], $h["kernelName"]}' $O/after.csv
awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{print "bench one", $h["role"], $h["us"], $h["kernelName"]}' $O/one_bench.csv
timeout 200 .carry/cktune_gpu_tests > $O/gtests.log 2>&1; echo "gtests rc=$?"; grep -E "^\[  (PASSED|FAILED)|instance runs passed" $O/gtests.log
rm -rf $O/*.cktune; xz -T4 $O/tune.err; (cd /tmp && tar czf "$OUT/s55c3.tgz" s55c3)
