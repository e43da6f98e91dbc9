#!/usr/bin/env bash
# The main job's workflow (scripts/workflow.sh: capture -> tune -> bench --against default -> compare ->
# report) on the bundled log, on the CPU, cut to two shapes of the demo so it stays short: one decode
# shape (M=1), where the untuned default is the right kernel and tune must keep it, and M=32, where the
# register-blocked kernel beats it by ~1.8x (docs/perf.md). Checks what issue 10 asks of the first run:
# no shape regressed outside noise, the gain holds in the interleaved bench, the verdict says deploy.
# Usage: workflow.sh <cktune-binary> <tests/data>
set -uo pipefail
BIN=$1
DATA=$2
root=$(cd "$DATA/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/wf.log" ] && tail -40 "$T/wf.log"; exit 1; }

CPU_NK="7168:2048" CPU_M="1 32" ITERS=3 bash "$root/scripts/workflow.sh" "$BIN" "$T/wf" >"$T/wf.log" 2>&1 ||
  fail "workflow.sh exited $?"
cd "$T/wf"
[ "$(awk 'NR > 1' a8w8_blockscale_untuned_gemm.csv | wc -l)" -eq 2 ] || fail "shapes: $(cat a8w8_blockscale_untuned_gemm.csv)"
"$BIN" compare after.csv --json 2>/dev/null >cmp.json || fail "compare --json"
python3 - cmp.json <<'PY' || fail "compare of the main job's bench"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["summary"]
assert s["regressed"] == 0 and s["not_measured"] == 0, s
by_m = {x["key"]["M"]: x for x in j["shapes"]}
assert by_m[32]["change"] == "improved", by_m[32]
# M=1: the default is the right kernel; on a loaded machine tune may still write a row on a
# noise-sized gain (a sequential measurement), which the interleaved bench must then not call a gain
# it cannot show: within noise (or, rarely, a real small gain), never regressed.
assert by_m[1]["change"] in ("within_noise", "improved"), by_m[1]
PY
grep -qx "## Verdict: deploy" report.md || fail "verdict: $(grep '^## Verdict' report.md)"
grep -q "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=" report.md || fail "no deploy command in the report"
# M=32 has a row, and its kernel is not the untuned default.
k=$(awk -F, 'NR > 1 && $3 == 32 { print $10 }' a8w8_blockscale_tuned_gemm.csv)
[ -n "$k" ] && [ "$k" != cpu_bs_tiled_m16n64_t0 ] || fail "M=32 row: $(cat a8w8_blockscale_tuned_gemm.csv)"
echo "workflow: ok"
