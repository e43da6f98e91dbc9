#!/usr/bin/env bash
# session 16, call 11: + stage 1 prefetching the experts stage-2 weights into L2 (_pf): MoE GPU tests, then a tune of DeepSeek-V3 1..32 tokens
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/r4
s=$(date +%s); .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/r4/gt.txt 2>&1; echo "gtests rc=$? $(( $(date +%s) - s )) s"; grep -E "PASSED|FAILED|pipelines|runs" /tmp/r4/gt.txt | tail -8
s=$(date +%s)
.carry/cktune tune -i gpu-in/moe_small5.csv -o /tmp/r4/tuned.csv --device gpu --profile-file /tmp/r4/profile.csv > /tmp/r4/tune.txt 2> /tmp/r4/tune.log; echo "tune rc=$? $(( $(date +%s) - s )) s"
python3 - <<'PY'
import csv
r=list(csv.DictReader(open('/tmp/r4/profile.csv')))
for t in ['1','2','4','8','16','64']:
    rows=[x for x in r if x['token']==t and x['verdict']=='passed']
    rows.sort(key=lambda x: float(x['us']))
    bad=[x for x in r if x['token']==t and x['verdict'] not in ('passed','not supported','skipped')]
    print(f"t={t}: {len(rows)} passed, {len(bad)} other: {set(x['verdict'] for x in bad)}")
    for x in rows[:6]: print('  ', x['us'], x['parts'], x['kernelName'])
    sk=[x for x in rows if x['kernelName'].split('+')[0].endswith('_pf')]
    for x in sk[:3]: print('  sk:', x['us'], x['parts'], x['kernelName'])
PY
cat /tmp/r4/tuned.csv | cut -d, -f1,14- | head -8
tar czf $OUT/r4.tgz -C /tmp r4
