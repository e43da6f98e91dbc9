#!/usr/bin/env bash
# cktune discover: exits 0 whatever is missing; --json prints only JSON; a GPU-less machine reports none.
set -euo pipefail
cktune="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cktune" discover >"$tmp/text" 2>"$tmp/err" || fail "discover exited $? ($(cat "$tmp/err"))"
grep -q '^GPUs' "$tmp/text" || fail "no GPUs section"
grep -q '^This build' "$tmp/text" || fail "no build section"

"$cktune" discover --json >"$tmp/json" 2>"$tmp/err" || fail "discover --json exited $?"
python3 - "$tmp/json" <<'PY' || fail "--json output is not the expected JSON"
import json, os, sys
j = json.load(open(sys.argv[1]))   # the whole of stdout must be one JSON document
for key in ("gpus", "runtime", "visibility", "python", "aiter", "aiter_configs", "build", "warnings"):
    assert key in j, key
assert j["gpus"]["count"] == len(j["gpus"]["devices"])
assert "cpu" in j["build"]["backends"]
have_gpu = os.path.exists("/dev/nvidia0") or os.path.exists("/dev/kfd")
if not have_gpu:
    assert j["gpus"]["count"] == 0, j["gpus"]
    assert j["gpus"]["note"], "no reason given for the missing GPU"
PY

# Missing pieces are reported, not fatal: no Python, a table that does not exist, every GPU hidden.
CUDA_VISIBLE_DEVICES=-1 AITER_CONFIG_GEMM_A8W8=/nonexistent/a8w8_tuned_gemm.csv \
  "$cktune" discover --json --python cktune-no-such-python >"$tmp/json2" || fail "discover with missing pieces exited $?"
python3 - "$tmp/json2" <<'PY' || fail "missing pieces not reported"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["gpus"]["count"] == 0
assert j["python"]["found"] is False and j["python"]["error"]
assert j["aiter"]["found"] is False and j["aiter"]["note"]
f = j["aiter_configs"][0]["files"][0]
assert f["exists"] is False and f["error"] == "no such file"
assert any("hides every GPU" in w for w in j["warnings"])
PY
echo "ok"
