#!/usr/bin/env bash
# Session 17 (2026-11-25), calls 6 and 10 of CALLS.md: the MoE GPU tests of the binary in .carry/, then
# tunes of DeepSeek-V3 TP8 at TOKENS with only the pipelines KRE matches, alternating an older binary
# (OLD_XZ, an xz copy of a build of the commit to compare with) and this one, REPS times; per token count
# the four fastest pipelines (median, p10, parts).
# Usage (repository root, GPU machine): OLD_XZ=path/cktune.xz TOKENS="64 4096" KRE='...' ab.sh
# A variant with a perturbation switched at run time (1_probes) used the scratch patch 1_probe_scratch.diff
# and CKTUNE_PROBE=<bits> on the one binary instead of two binaries.
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/ab/bin
xz -dc "${OLD_XZ:?an xz copy of the older cktune}" > /tmp/ab/bin/old; chmod +x /tmp/ab/bin/old
cp .carry/cktune /tmp/ab/bin/new
if [ -z "${SKIP_TESTS:-}" ]; then
  s=$(date +%s); timeout "${TT:-120}" .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/ab/gt.txt 2>&1
  echo "gtests rc=$? $(( $(date +%s) - s )) s"
  grep -E "PASSED|FAILED|OK \]" /tmp/ab/gt.txt | tail -12
  grep -q "^\[  PASSED  \]" /tmp/ab/gt.txt && ! grep -q "FAILED" /tmp/ab/gt.txt || { tail -30 /tmp/ab/gt.txt; exit 1; }
fi
f=configs/grids/moe_2stages_untuned_fmoe_${MODEL:-dsv3_tp8}.csv
{ head -1 "$f"; for t in ${TOKENS:-16 64 256 1024 4096 16384}; do grep "^$t," "$f"; done; } > /tmp/ab/untuned.csv
n=0
for rep in ${REPS:-1 2}; do
  for v in old new; do
    n=$((n+1)); s=$(date +%s)
    timeout 90 /tmp/ab/bin/$v tune -i /tmp/ab/untuned.csv -o /tmp/ab/tuned_$n.csv --device gpu --profile-file /tmp/ab/profile_${n}_$v.csv \
      --kernels "${KRE:-s1wg_bm(128_n128_st4[+].*s2wg_bm128_n128_st4_so_acc_g4|64_n128_st4[+].*s2wg_bm64_n128_st4_so_acc_g1)}" > /tmp/ab/tune_$n.txt 2>&1
    echo "$v rc=$? $(( $(date +%s) - s )) s"
    python3 - /tmp/ab/profile_${n}_$v.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for x in rows:
    if x['verdict'] != 'passed': print('  NOT PASSED', x['token'], x['kernelName'], x['verdict'], x['reason'][:200])
for t in sorted(set(x['token'] for x in rows), key=int):
    r = sorted((x for x in rows if x['token'] == t and x['verdict'] == 'passed'), key=lambda x: float(x['us']))
    for x in r[:4]: print('  ', t, x['us'], x['us_p10'], x['parts'], x['kernelName'][-45:])
PY
  done
done
cd /tmp && tar czf "$OUT/ab.tgz" ab/profile_*.csv ab/tune_*.txt ab/gt.txt
