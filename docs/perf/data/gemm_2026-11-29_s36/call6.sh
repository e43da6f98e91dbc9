#!/usr/bin/env bash
# Session 36, call 6: the ragged set (40 shapes of other models' N, K and ragged M) with the build of 7238d8f
# (.carryz): tune, bench --against default, agreement (scripts/gpu_agreement.sh ragged), then tuned vs cuBLASLt
# (compare --vs-baseline) and own best vs cuBLASLt from tune's profile (own_vs_blaslt.py).
set -u
bash scripts/unpack_carry.sh > /dev/null
SKIP_PRELUDE=1 OUT=/tmp/rag timeout 300 bash scripts/gpu_agreement.sh ragged > /tmp/rag.log 2>&1
echo "agreement rc=$?"; grep -vE "^\s*$" /tmp/rag/summary.txt | tail -12
mkdir -p /tmp/rag/x && tar xzf /tmp/rag/agreement.tgz -C /tmp/rag/x
.carry/cktune compare /tmp/rag/x/after_ragged.csv --vs-baseline > /tmp/rag/vs_cublaslt.txt 2>&1
grep -E "^\s*(scope|all|decode|medium|prefill) " /tmp/rag/vs_cublaslt.txt | tail -5
python3 docs/perf/data/gemm_2026-11-25_s23/own_vs_blaslt.py /tmp/rag/x/profile_ragged.csv | tail -3
python3 -c "import json; j = json.load(open('/tmp/rag/x/tune_ragged.json')); print('ragged tune', j['seconds'], 's, first result', j['first_timing_s'], 's,', j['candidate_results'], 'candidate results')"
cp /tmp/rag/agreement.tgz /tmp/rag/vs_cublaslt.txt "$OUT/"
