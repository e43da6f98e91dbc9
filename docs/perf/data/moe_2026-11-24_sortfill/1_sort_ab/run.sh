#!/usr/bin/env bash
# session 15, call 4: A/B of the sort with fill blocks + stage setup before the PDL wait (new) against 9df4394 (old),
# DeepSeek-V3 and Qwen3.5 tuned tables at 1..512 tokens, alternating, two runs each; then the GPU tests of the new binary
set -u
bash scripts/unpack_carry.sh >/dev/null
xz -dc gpu-in/old/cktune.xz > .carry/cktune_old; chmod +x .carry/cktune_old
for r in 1 2; do
  for v in old new; do
    B=.carry/cktune; [ $v = old ] && B=.carry/cktune_old
    $B bench -i gpu-in/dsv3_small.csv --family moe_2stages --device gpu --config gpu-in/tuned_dsv3.csv -o $OUT/dsv3_${v}_$r.csv > $OUT/dsv3_${v}_$r.txt 2>&1; echo "dsv3 $v $r rc=$? $(date +%T)"
    $B bench -i gpu-in/q35_small.csv --family moe_2stages --device gpu --config gpu-in/tuned_q35.csv -o $OUT/q35_${v}_$r.csv > $OUT/q35_${v}_$r.txt 2>&1; echo "q35 $v $r rc=$? $(date +%T)"
  done
done
python3 - <<'PY'
import csv,glob,os,math,collections
out=os.environ['OUT']
for m in ('dsv3','q35'):
  t=collections.defaultdict(list)
  for f in sorted(glob.glob(f'{out}/{m}_*_*.csv')):
    v=f.split('_')[-2]
    for r in csv.DictReader(open(f)):
      if r.get('role')=='dispatch': t[(int(r['token']),v)].append(float(r['us']))
  toks=sorted({k[0] for k in t}); g=[]
  for k in toks:
    o=sorted(t[(k,'old')]); n=sorted(t[(k,'new')])
    mo=sum(o)/len(o); mn=sum(n)/len(n); g.append(mo/mn)
    print(m,k,'old',o,'new',n,'old/new %.3f'%(mo/mn))
  print(m,'geomean old/new %.4f'%math.exp(sum(map(math.log,g))/len(g)))
PY
echo "=== gpu tests (new) $(date +%T)"
timeout 150 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' > $OUT/gtests.txt 2>&1; echo rc=$?; tail -3 $OUT/gtests.txt
timeout 100 .carry/cktune_gpu_tests --gtest_filter="GpuMoeSorting.TimingTable" > $OUT/sorttiming.txt 2>&1; echo rc=$?; grep -A60 "moe_sorting timing" $OUT/sorttiming.txt | head -70
timeout 330 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter="GpuMoeSorting.*:-GpuMoeSorting.TimingTable" > $OUT/sorttests.txt 2>&1; echo rc=$?; tail -5 $OUT/sorttests.txt
echo "=== done $(date +%T)"
