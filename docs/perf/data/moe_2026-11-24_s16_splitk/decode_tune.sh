#!/usr/bin/env bash
# The device calls 5, 7, 8, 10 and 11 of session 16 (CALLS.md): the MoE GPU tests, then a tune of the
# DeepSeek-V3 TP8 token counts TOKENS (every pipeline), and per token count the six fastest pipelines and
# the three fastest whose stage 1 matches MARK (a Python expression on the stage-1 name s1).
# Usage (repository root, GPU machine, .carryz unpacked): TOKENS="1 2 4 8" MARK="s1.endswith('_pf')" decode_tune.sh
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/r4
s=$(date +%s); .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/r4/gt.txt 2>&1; echo "gtests rc=$? $(( $(date +%s) - s )) s"
grep -E "PASSED|FAILED|pipelines|runs" /tmp/r4/gt.txt | tail -8
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $f; for t in $TOKENS; do grep "^$t,7168" $f; done; } > /tmp/r4/untuned.csv
s=$(date +%s)
.carry/cktune tune -i /tmp/r4/untuned.csv -o /tmp/r4/tuned.csv --device gpu --profile-file /tmp/r4/profile.csv \
  > /tmp/r4/tune.txt 2> /tmp/r4/tune.log; echo "tune rc=$? $(( $(date +%s) - s )) s"
TOKENS="$TOKENS" MARK="$MARK" python3 - <<'PY'
import csv, os
r = list(csv.DictReader(open('/tmp/r4/profile.csv')))
for t in os.environ['TOKENS'].split():
    rows = sorted((x for x in r if x['token'] == t and x['verdict'] == 'passed'), key=lambda x: float(x['us']))
    bad = [x for x in r if x['token'] == t and x['verdict'] not in ('passed', 'not supported', 'skipped')]
    print(f"t={t}: {len(rows)} passed, {len(bad)} other: {set(x['verdict'] for x in bad)}")
    for x in rows[:6]: print('  ', x['us'], x['parts'], x['kernelName'])
    marked = [x for x in rows if eval(os.environ['MARK'], {'s1': x['kernelName'].split('+')[0]})]
    for x in marked[:3]: print('  marked:', x['us'], x['parts'], x['kernelName'])
PY
cut -d, -f1,14- /tmp/r4/tuned.csv | head -8
tar czf $OUT/r4.tgz -C /tmp r4
