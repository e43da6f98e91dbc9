#!/bin/bash
# cktune compare on the hand-made results pair and AITER op-test samples: exit codes, text and --json output.
# Usage: compare.sh <cktune-binary> <tests/data>
set -u
bin=$1
data=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
before=$data/results/a8w8_blockscale_before.csv
after=$data/results/a8w8_blockscale_after.csv

# Text: per-shape table, summary, groups, unmatched shapes.
"$bin" compare "$before" "$after" >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "compare exited $?: $(cat "$tmp/err.txt")"
grep -q "a8w8_blockscale: per shape" "$tmp/out.txt" || fail "no per-shape table"
grep -Eq "^ +1 +4096 +7168 +decode +20\.0000 +10\.0000 +2\.000x +5\.0%/5\.0% +improved" "$tmp/out.txt" || fail "M=1 row wrong"
grep -Eq "^ +128 +4096 +7168 .* 0\.800x +[0-9.]+%/[0-9.]+% +regressed" "$tmp/out.txt" || fail "M=128 not regressed"
grep -Eq "^ +all +6 +1\.[0-9]+x" "$tmp/out.txt" || fail "summary line wrong"
grep -q "N=7168,K=2048" "$tmp/out.txt" || fail "group label missing"
grep -q "only in before" "$tmp/out.txt" || fail "unmatched shapes not listed"

# --json: stdout is only JSON, with the numbers of the hand-made pair.
"$bin" compare "$before" "$after" --json >"$tmp/out.json" 2>/dev/null || fail "compare --json exited $?"
python3 - "$tmp/out.json" <<'PY' || fail "JSON content"
import json, math, sys
j = json.load(open(sys.argv[1]))
s = j["summary"]
assert s["count"] == 6 and s["improved"] == 3 and s["regressed"] == 1 and s["within_noise"] == 2, s
assert "p10..p90" in j["rule"], j["rule"]
m32 = [x for x in j["shapes"] if x["key"]["M"] == 32][0]
assert m32["change"] == "within_noise" and m32["spread_known"], m32
assert m32["before_p10"] == 19.6 and m32["after_p90"] == 20.806, m32
assert m32["speedup_low"] < m32["speedup"] < m32["speedup_high"], m32
assert s["not_measured"] == 1, s
g = (2.0 * (20 / 20.2) * 0.8 * 1.25 * 1.0 * 1.5) ** (1 / 6)
assert abs(s["geomean"] - g) < 1e-9, (s["geomean"], g)
assert j["by_class"]["decode"]["count"] == 3
assert len(j["groups"]) == 2 and len(j["shapes"]) == 7
assert [k["key"]["M"] for k in j["unmatched"]["only_after"]] == [2]
PY

# --threshold lowers the floor, but 20 -> 20.2 us stays within noise: the p10..p90 intervals overlap.
"$bin" compare "$before" "$after" --json --threshold 0.5 >"$tmp/t.json" 2>/dev/null || fail "--threshold"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['summary']['regressed']==1 and j['summary']['within_noise']==2, j['summary']" "$tmp/t.json" \
  || fail "--threshold 0.5: 20/20.2 is inside the measured noise"
grep -q "rule: improved / regressed" "$tmp/out.txt" || fail "text output does not state the noise rule"
grep -Eq "^ +32 +4096 +7168 .* within noise" "$tmp/out.txt" || fail "M=32 not within noise"

# --csv: one line per shape with the intervals.
"$bin" compare "$before" "$after" --csv >"$tmp/out.csv" 2>/dev/null || fail "--csv"
[ "$(wc -l <"$tmp/out.csv")" -eq 8 ] || fail "--csv: header + 7 shapes expected"
head -1 "$tmp/out.csv" | grep -q "^family,group,size,size_class,before,before_p10,before_p90,after" || fail "--csv header"
grep -q "^a8w8_blockscale,4096;7168,32,decode,20,19.6,20.6,20.2,19.796,20.806,.*,within_noise," "$tmp/out.csv" \
  || fail "--csv M=32 line: $(grep ',32,' "$tmp/out.csv")"

# One interleaved file (bench --against): against rows are before, dispatch rows after.
python3 - "$before" "$after" "$tmp/inter.csv" <<'PY'
import csv, sys
b = list(csv.DictReader(open(sys.argv[1])))
a = list(csv.DictReader(open(sys.argv[2])))
rows = []
for r in b:
    if r["role"] == "dispatch":
        r = dict(r); r["role"] = "against"; rows.append(r)
rows += [r for r in a if r["role"] == "dispatch"]
w = csv.DictWriter(open(sys.argv[3], "w", newline=""), fieldnames=list(b[0].keys()), lineterminator="\n")
w.writeheader(); w.writerows(rows)
PY
"$bin" compare "$tmp/inter.csv" --json >"$tmp/i1.json" 2>/dev/null || fail "compare FILE (interleaved)"
"$bin" compare --interleaved "$tmp/inter.csv" --json >"$tmp/i2.json" 2>/dev/null || fail "compare --interleaved FILE"
python3 - "$tmp/i1.json" "$tmp/i2.json" "$tmp/out.json" <<'PY' || fail "interleaved comparison differs from the two-file one"
import json, sys
i1, i2, two = (json.load(open(p)) for p in sys.argv[1:])
for k in ("count", "improved", "regressed", "within_noise", "not_measured"):
    assert i1["summary"][k] == two["summary"][k] == i2["summary"][k], (k, i1["summary"], two["summary"])
PY
"$bin" compare "$before" >/dev/null 2>"$tmp/e0.txt"
[ $? -eq 1 ] || fail "a single file without against rows should exit 1"
grep -q "no rows of role 'against'" "$tmp/e0.txt" || fail "single-file message: $(cat "$tmp/e0.txt")"
"$bin" compare "$before" "$after" --metric tflops --json >"$tmp/m.json" 2>/dev/null || fail "--metric tflops"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['metric']=='tflops' and j['summary']['count']==6" "$tmp/m.json" \
  || fail "--metric tflops content"

# AITER op-test outputs: markdown in a log, and the CSV; baseline rows by backend.
"$bin" compare "$data/aiter-optest/test_gemm_a8w8_blockscale_before.log" "$data/aiter-optest/gemm_a8w8_blockscale_after.csv" \
  --json >"$tmp/a.json" 2>/dev/null || fail "compare AITER markdown vs csv"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['summary']['count']==8, j['summary']; assert j['before']['format'].startswith('aiter-markdown')" "$tmp/a.json" \
  || fail "AITER comparison content"
"$bin" compare "$data/aiter-optest/test_moe_2stage_before.log" "$data/aiter-optest/test_moe_2stage_after.log" >"$tmp/moe.txt" 2>/dev/null \
  || fail "compare MoE logs"
grep -q "moe_2stages: per shape" "$tmp/moe.txt" || fail "MoE table"
"$bin" compare "$before" "$after" --role baseline --backend cublaslt --json >"$tmp/b.json" 2>/dev/null || fail "--role baseline"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['summary']['within_noise']==7" "$tmp/b.json" || fail "baseline rows"

# Errors: unreadable input, wrong kind of file, no matching shape, bad option.
"$bin" compare "$before" "$tmp/missing.csv" >/dev/null 2>"$tmp/e1.txt"
[ $? -eq 1 ] || fail "missing file should exit 1"
grep -q "cktune: error:.*missing.csv" "$tmp/e1.txt" || fail "missing-file message: $(cat "$tmp/e1.txt")"
printf 'hello\x00world' >"$tmp/binary.csv"
"$bin" compare "$before" "$tmp/binary.csv" >/dev/null 2>"$tmp/e2.txt"
[ $? -eq 1 ] || fail "binary file should exit 1"
grep -q "not a cktune results file or an AITER op-test table" "$tmp/e2.txt" || fail "binary message: $(cat "$tmp/e2.txt")"
"$bin" compare "$before" "$data/aiter-optest/test_moe_2stage_after.log" >"$tmp/o.txt" 2>"$tmp/e3.txt"
[ $? -eq 1 ] || fail "no matching shape should exit 1"
[ ! -s "$tmp/o.txt" ] || fail "nothing on stdout on error"
grep -q "no shape matches" "$tmp/e3.txt" || fail "no-match message"
"$bin" compare "$before" "$after" --metric speed >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad --metric should exit 2"
printf 'family,M,N,K,us\na8w8_blockscale,1,2,3,fast\n' >"$tmp/bad.csv"
"$bin" compare "$tmp/bad.csv" "$after" >/dev/null 2>"$tmp/e4.txt"
[ $? -eq 1 ] || fail "malformed results should exit 1"
grep -q "bad.csv:2:23" "$tmp/e4.txt" || fail "malformed message lacks file:line:col: $(cat "$tmp/e4.txt")"
# --models: the per-model table (DeepSeek-V3 at TP8 has o_proj = N 7168, K 2048; Maverick none of the
# fixture's layers: a warning), --group-by: other key columns, a bad column or preset exits 1.
"$bin" compare "$before" "$after" --models deepseek-v3@8,llama-4-maverick@8 --group-by K >"$tmp/m.txt" 2>"$tmp/m.err" \
  || fail "compare --models exited $?: $(cat "$tmp/m.err")"
grep -q "^per model" "$tmp/m.txt" || fail "no per-model table"
grep -Eq "^ *deepseek-v3 +8 +a8w8_blockscale +2 " "$tmp/m.txt" || fail "deepseek-v3 TP8 line wrong: $(grep -A3 '^per model' "$tmp/m.txt")"
grep -q "no compared shape is a layer of llama-4-maverick TP8" "$tmp/m.err" || fail "no warning for a model without shapes"
grep -q "K=2048" "$tmp/m.txt" || fail "--group-by K labels missing"
"$bin" compare "$before" "$after" --models deepseek-v3@8 --json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
m = j["models"]
assert len(m) == 1 and m[0]["model"] == "deepseek-v3" and m[0]["tp"] == 8 and m[0]["stats"]["not_measured"] == 1, m
' || fail "--models JSON"
"$bin" compare "$before" "$after" --models deepseek-v3 >/dev/null 2>"$tmp/m2.err"
[ $? -eq 1 ] || fail "--models without @TP should exit 1"
grep -q "NAME@TP" "$tmp/m2.err" || fail "--models error does not say NAME@TP: $(cat "$tmp/m2.err")"
"$bin" compare "$before" "$after" --group-by expert >/dev/null 2>"$tmp/m3.err"
[ $? -eq 1 ] || fail "--group-by with a foreign column should exit 1"
grep -q "key columns: M, N, K" "$tmp/m3.err" || fail "--group-by error lacks the key columns: $(cat "$tmp/m3.err")"

# --vs-baseline: one bench file's cuBLASLt rows (before) against its dispatch rows (after).
"$bin" compare --vs-baseline "$after" >"$tmp/vb.txt" 2>"$tmp/vb.err" || fail "compare --vs-baseline exited $?: $(cat "$tmp/vb.err")"
grep -Eq "^ +1 +4096 +7168 +decode +18\.0000 +10\.0000 +1\.800x" "$tmp/vb.txt" || fail "--vs-baseline M=1 row wrong: $(head -8 "$tmp/vb.txt")"
"$bin" compare --vs-baseline "$before" "$after" >/dev/null 2>"$tmp/vb2.err"
[ $? -eq 1 ] || fail "--vs-baseline with two files should exit 1"
grep -q "takes one results file" "$tmp/vb2.err" || fail "--vs-baseline two-file error unclear: $(cat "$tmp/vb2.err")"
grep -v ",baseline," "$after" > "$tmp/nobase.csv"
"$bin" compare --vs-baseline "$tmp/nobase.csv" >/dev/null 2>"$tmp/vb3.err"
[ $? -eq 1 ] || fail "--vs-baseline without baseline rows should exit 1"
grep -q "no rows of role 'baseline'" "$tmp/vb3.err" || fail "--vs-baseline error unclear: $(cat "$tmp/vb3.err")"

echo "compare.sh: ok"
