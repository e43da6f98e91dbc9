#!/usr/bin/env bash
# session 15, call 6: stage-2 metadata staged by the producer (new) against the same tree without it (old):
# GPU tests, A/B on the DeepSeek-V3 grid (15 token counts) and Qwen3.5 (1..512), then gpu_moe.sh dsv3_tp8
set -u
bash scripts/unpack_carry.sh >/dev/null
xz -dc gpu-in/old/cktune.xz > .carry/cktune_old; chmod +x .carry/cktune_old
echo "=== gpu tests $(date +%T)"
timeout 200 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' > $OUT/gtests.txt 2>&1; echo rc=$?
grep -E "moe pipelines|PASSED|FAILED|comparisons|outside" $OUT/gtests.txt | sort | uniq -c | sort -rn | head -8
mkdir -p /tmp/ab
for r in 1 2; do
  for v in old new; do
    B=.carry/cktune; [ $v = old ] && B=.carry/cktune_old
    $B bench -i configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv --family moe_2stages --device gpu --config gpu-in/tuned_dsv3.csv -o /tmp/ab/dsv3_${v}_$r.csv > /tmp/ab/dsv3_${v}_$r.txt 2>&1; echo "dsv3 $v $r rc=$? $(date +%T)"
    $B bench -i gpu-in/q35_small.csv --family moe_2stages --device gpu --config gpu-in/tuned_q35.csv -o /tmp/ab/q35_${v}_$r.csv > /tmp/ab/q35_${v}_$r.txt 2>&1; echo "q35 $v $r rc=$? $(date +%T)"
  done
done
python3 - <<'PY'
import csv,glob,math,collections
for m in ('dsv3','q35'):
  t=collections.defaultdict(list); parts=collections.defaultdict(list)
  for f in sorted(glob.glob(f'/tmp/ab/{m}_*_*.csv')):
    v=f.split('_')[-2]
    for r in csv.DictReader(open(f)):
      if r.get('role')=='dispatch':
        t[(int(r['token']),v)].append(float(r['us'])); parts[(int(r['token']),v)].append(r['parts'])
  g=[]
  for k in sorted({k[0] for k in t}):
    o=t[(k,'old')]; n=t[(k,'new')]; mo=sum(o)/len(o); mn=sum(n)/len(n); g.append(mo/mn)
    print(m,k,'old',o,'new',n,'old/new %.3f'%(mo/mn),'|',parts[(k,'old')][0],'|',parts[(k,'new')][0])
  print(m,'geomean old/new %.4f'%math.exp(sum(map(math.log,g))/len(g)))
PY
tar czf $OUT/ab.tgz -C /tmp ab
mkdir -p /tmp/moe; OUT=/tmp/moe SKIP_TESTS=1 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/moe/run.log 2>&1; echo rc=$?
cat /tmp/moe/moe_summary.txt | tail -25
tar czf $OUT/moe.tgz -C /tmp moe
echo "=== done $(date +%T)"
