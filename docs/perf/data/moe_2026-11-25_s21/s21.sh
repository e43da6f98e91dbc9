#!/usr/bin/env bash
# Session 21: the swapped-operand stage 2. GPU tests (GF), then per model a tune of a few token counts
# restricted to KRE; per token count the fastest candidates with their parts, and every swapped one.
set -u
root=$PWD; bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/s21
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s); timeout "${TT:-300}" .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuMoe.*}" > /tmp/s21/gt.txt 2>&1
  echo "gtests rc=$? $(( $(date +%s) - s )) s"
  grep -E "PASSED|FAILED|OK \]|passed runs|comparisons" /tmp/s21/gt.txt | tail -14
  grep -E "_sw_" /tmp/s21/gt.txt | head -12
  grep -E "Failure|error|Expected|Which is" /tmp/s21/gt.txt | head -30
fi
for spec in ${SPECS:-"dsv3_tp8;8 16 64 512"}; do
  model=${spec%%;*}; toks=${spec#*;}; toks=${toks//_/ }
  f=configs/grids/moe_2stages_untuned_fmoe_${model}.csv
  { head -1 "$f"; for t in $toks; do grep "^$t," "$f"; done; } > /tmp/s21/untuned_$model.csv
  s=$(date +%s)
  timeout "${TUNE_T:-200}" .carry/cktune tune -i /tmp/s21/untuned_$model.csv -o /tmp/s21/tuned_$model.csv --device gpu \
    --profile-file /tmp/s21/profile_$model.csv ${KRE:+--kernels "$KRE"} > /tmp/s21/tune_$model.txt 2>&1
  echo "tune $model rc=$? $(( $(date +%s) - s )) s"
  python3 - /tmp/s21/profile_$model.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for t in sorted(set(x['token'] for x in rows), key=int):
    r = sorted((x for x in rows if x['token'] == t and x['verdict'] == 'passed'), key=lambda x: float(x['us']))
    for x in r[:4]: print('  ', t, x['us'], x['us_p10'], x['parts'], x['kernelName'][-75:])
    for x in rows:
        if x['token'] == t and x['verdict'] != 'passed':
            print('   X', t, x['verdict'], x['kernelName'][-60:], x['reason'][:160])
PY
  tail -3 /tmp/s21/tune_$model.txt
done
cd /tmp && tar czf "$OUT/s21.tgz" s21
