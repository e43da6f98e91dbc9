#!/usr/bin/env bash
# Session 18: the one-launch decode kernel. GPU tests, then a tune of a few token counts (every candidate)
# per model; per token count the fastest candidates and every one-launch candidate.
set -u
root=$PWD; bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/s18
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s); timeout "${TT:-240}" .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuMoe.*}" > /tmp/s18/gt.txt 2>&1
  echo "gtests rc=$? $(( $(date +%s) - s )) s"
  grep -E "PASSED|FAILED|OK \]|seed|passed runs" /tmp/s18/gt.txt | tail -14
  grep -E "Failure|error|Expected|Which is|1stage" /tmp/s18/gt.txt | head -40
fi
for spec in ${SPECS:-"dsv3_tp8;1 2 4 8"}; do
  model=${spec%%;*}; toks=${spec#*;}; toks=${toks//_/ }
  f=configs/grids/moe_2stages_untuned_fmoe_${model}.csv
  { head -1 "$f"; for t in $toks; do grep "^$t," "$f"; done; } > /tmp/s18/untuned_$model.csv
  s=$(date +%s)
  timeout "${TUNE_T:-150}" .carry/cktune tune -i /tmp/s18/untuned_$model.csv -o /tmp/s18/tuned_$model.csv --device gpu \
    --profile-file /tmp/s18/profile_$model.csv ${KRE:+--kernels "$KRE"} > /tmp/s18/tune_$model.txt 2>&1
  echo "tune $model rc=$? $(( $(date +%s) - s )) s"
  python3 - /tmp/s18/profile_$model.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for t in sorted(set(x['token'] for x in rows), key=int):
    r = sorted((x for x in rows if x['token'] == t and x['verdict'] == 'passed'), key=lambda x: float(x['us']))
    for x in r[:3]: print('  ', t, x['us'], x['us_p10'], x['parts'], x['kernelName'][-60:])
    for x in rows:
        if x['token'] == t and '1stage' in x['kernelName']:
            print('   F', t, x['verdict'], x['us'], x['us_p10'], x['kernelName'], x['reason'][:160])
PY
  tail -3 /tmp/s18/tune_$model.txt
done
cd /tmp && tar czf "$OUT/s18.tgz" s18
if [ -n "${PROBE:-}" ]; then
  cd "$root"; xz -dc gpu-in/probe.xz > /tmp/s18/probe; chmod +x /tmp/s18/probe
  f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
  for t in $PROBE; do
    { head -1 $f; grep "^$t,7168" $f; } > /tmp/s18/pu$t.csv
    CKTUNE_FUSED_PROBE=1 timeout 100 /tmp/s18/probe tune -i /tmp/s18/pu$t.csv -o /tmp/s18/pt$t.csv --device gpu --kernels '1stage' --iters 5 --warmup 1 > /tmp/s18/plog$t.txt 2>&1
    echo "probe t=$t rc=$?"; grep PROBE /tmp/s18/plog$t.txt | awk '{c[$2]++; if (c[$2]==3) print}'
  done
fi
