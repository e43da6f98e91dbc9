#!/usr/bin/env bash
# The main job's workflow (scripts/workflow.sh: capture -> tune -> bench --against default -> compare ->
# report) on the bundled log, on the CPU, cut to one shape of the demo so it stays short: M=32 of
# N,K = 7168,2048, where the register-blocked kernel beats the untuned default by ~1.8x (docs/perf.md).
# Checks what issue 10 asks of the first run: the gain holds in the interleaved bench (improved outside
# the noise), nothing regressed, the verdict says deploy with the one command. --min-improvement is 10
# here, as on a GPU: the demo's 40% guards its M=1 shapes against rows written on noise, and tune's
# one-after-another timing of the real ~1.8x gain has been seen as low as 1.44x on a loaded machine.
# Usage: workflow.sh <cktune-binary> <tests/data>
# ctest: run serial
set -uo pipefail
BIN=$1
DATA=$2
root=$(cd "$DATA/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/wf.log" ] && tail -40 "$T/wf.log"; exit 1; }

CPU_NK="7168:2048" CPU_M="32" MIN_GAIN=10 ITERS=3 bash "$root/scripts/workflow.sh" "$BIN" "$T/wf" >"$T/wf.log" 2>&1 ||
  fail "workflow.sh exited $?"
cd "$T/wf"
[ "$(awk 'NR > 1' a8w8_blockscale_untuned_gemm.csv | wc -l)" -eq 1 ] || fail "shapes: $(cat a8w8_blockscale_untuned_gemm.csv)"
"$BIN" compare after.csv --json 2>/dev/null >cmp.json || fail "compare --json"
python3 - cmp.json <<'PY' || fail "compare of the main job's bench"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["summary"]
assert s["regressed"] == 0 and s["not_measured"] == 0, s
by_m = {x["key"]["M"]: x for x in j["shapes"]}
assert by_m[32]["change"] == "improved", by_m[32]
PY
grep -qx "## Verdict: deploy" report.md || fail "verdict: $(grep '^## Verdict' report.md)"
grep -q "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=" report.md || fail "no deploy command in the report"
# M=32 has a row, and its kernel is not the untuned default.
k=$(awk -F, 'NR > 1 && $3 == 32 { print $10 }' a8w8_blockscale_tuned_gemm.csv)
[ -n "$k" ] && [ "$k" != cpu_bs_tiled_m16n64_t0 ] || fail "M=32 row: $(cat a8w8_blockscale_tuned_gemm.csv)"
echo "workflow: ok"
