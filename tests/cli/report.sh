#!/bin/bash
# cktune report: Markdown on stdout or to -o, self-contained HTML, export lines, errors.
# Usage: report.sh <cktune-binary> <tests/data>
set -u
bin=$1
data=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=$data/results
tuned_abs=$(cd "$r" && pwd)/a8w8_blockscale_tuned_gemm.csv

"$bin" report --before "$r/a8w8_blockscale_before.csv" --after "$r/a8w8_blockscale_after.csv" \
  --tuned "$r/a8w8_blockscale_tuned_gemm.csv" -o "$tmp/report.md" --html "$tmp/report.html" >"$tmp/out.txt" 2>"$tmp/err.txt" \
  || fail "report exited $?: $(cat "$tmp/err.txt")"
[ ! -s "$tmp/out.txt" ] || fail "stdout should be empty when -o is given"
md=$tmp/report.md
grep -qx "export AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=$tuned_abs" "$md" || fail "export line missing"
grep -q "cktune merge --check $tuned_abs" "$md" || fail "merge --check line missing"
for m in 1 32 128 4096 16 512 1024; do
  grep -Eq "^\| $m \| (4096|7168) \| (7168|2048) \|" "$md" || fail "shape M=$m missing from the report"
done
grep -q "^## Environment" "$md" || fail "environment section"
grep -q "| driver | 580.65.06 |" "$md" || fail "provenance sidecar not read"
grep -q "$tmp/report.html" "$md" || fail "report does not list where the HTML is"

html=$tmp/report.html
[ "$(grep -c "<svg" "$html")" -eq 2 ] || fail "expected one <svg> per (N,K) group (2)"
! grep -q "http://\|https://\|<script\|<link" "$html" || fail "HTML must be self-contained"
python3 - "$html" <<'PY' || fail "HTML does not parse"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    void = {"meta", "br", "hr", "img", "input", "link"}
    def __init__(self):
        super().__init__(); self.stack = []
    def handle_starttag(self, tag, attrs):
        if tag not in self.void: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()
p = P(); p.feed(open(sys.argv[1]).read()); p.close()
assert not p.stack, p.stack
PY

# Without -o the Markdown goes to stdout; AITER op-test logs work as inputs.
"$bin" report --before "$data/aiter-optest/test_moe_2stage_before.log" --after "$data/aiter-optest/test_moe_2stage_after.log" \
  >"$tmp/moe.md" 2>/dev/null || fail "report on MoE logs"
head -1 "$tmp/moe.md" | grep -q "^# cktune tuning report: moe_2stages" || fail "title"

# Errors: missing input, missing required option; nothing written.
"$bin" report --before "$tmp/none.csv" --after "$r/a8w8_blockscale_after.csv" -o "$tmp/x.md" >/dev/null 2>&1
[ $? -eq 1 ] || fail "missing input should exit 1"
[ ! -e "$tmp/x.md" ] || fail "no report may be written on error"
"$bin" report --after "$r/a8w8_blockscale_after.csv" >/dev/null 2>&1
[ $? -eq 2 ] || fail "missing --before should exit 2"
echo "report.sh: ok"
