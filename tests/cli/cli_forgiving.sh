#!/bin/bash
# The command line forgives: suggestions for misspelled verbs and options, `help VERB`, `version`,
# global flags after the verb, defaults in --help, numeric options range-checked before anything runs.
# Usage: cli_forgiving.sh <cktune-binary> <tests/data>
set -u
bin=$1
data=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=$data/results

# Misspelled verb: exit 2 and the closest verb.
"$bin" tunee >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] || fail "unknown verb exit $rc"
grep -q "unknown command 'tunee': did you mean 'tune'?" "$tmp/e" || fail "verb suggestion: $(cat "$tmp/e")"
"$bin" -v comprae a b >/dev/null 2>"$tmp/e"; [ $? -eq 2 ] || fail "comprae exit"
grep -q "did you mean 'compare'" "$tmp/e" || fail "compare suggestion: $(cat "$tmp/e")"
"$bin" zzzzzz >/dev/null 2>"$tmp/e"; [ $? -eq 2 ] || fail "far-off verb exit"
! grep -q "did you mean" "$tmp/e" || fail "no suggestion expected for zzzzzz: $(cat "$tmp/e")"

# Misspelled option: exit 2, closest option, pointer to the verb's help.
"$bin" tune --iter 5 -i x.csv -o y.csv >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] || fail "--iter exit $rc"
grep -q "unknown option '--iter' for 'cktune tune': did you mean '--iters'?" "$tmp/e" || fail "--iter: $(cat "$tmp/e")"
grep -q "cktune help tune" "$tmp/e" || fail "hint to help"
"$bin" compare --treshold=5 "$r/a8w8_blockscale_before.csv" "$r/a8w8_blockscale_after.csv" >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] || fail "--treshold exit"
grep -q "did you mean '--threshold'" "$tmp/e" || fail "--treshold: $(cat "$tmp/e")"

# help VERB, version, --version.
"$bin" help compare >"$tmp/h" 2>&1 || fail "help compare exited $?"
grep -q "cktune compare" "$tmp/h" || fail "help usage line does not say 'cktune compare': $(head -3 "$tmp/h")"
grep -q -- "--threshold" "$tmp/h" || fail "help compare lacks options"
grep -q "3" "$tmp/h" && grep -Eq -- "--threshold.*(3|\[3\])" "$tmp/h" || fail "default of --threshold not shown"
"$bin" compare --help >"$tmp/h2" 2>&1 || fail "compare --help"
grep -q "cktune compare" "$tmp/h2" || fail "--help usage line: $(head -3 "$tmp/h2")"
"$bin" help tunee >/dev/null 2>"$tmp/e"; [ $? -eq 2 ] || fail "help of unknown verb exit"
grep -q "did you mean 'tune'" "$tmp/e" || fail "help suggestion"
"$bin" help >"$tmp/h3" || fail "help"
grep -q "compare" "$tmp/h3" || fail "help lists verbs"
"$bin" version >"$tmp/v" || fail "version exited $?"
grep -Eq "^cktune [0-9]+\.[0-9]+\.[0-9]+ \(backend: (cpu|cuda|hip), device code: [^,]+, source: [^)]+\)$" "$tmp/v" \
  || fail "version line: $(cat "$tmp/v")"
"$bin" --version >"$tmp/v2" || fail "--version"
diff "$tmp/v" "$tmp/v2" >/dev/null || fail "version and --version differ"

# Global flags after the verb.
"$bin" compare "$r/a8w8_blockscale_before.csv" "$r/a8w8_blockscale_after.csv" -q >/dev/null 2>"$tmp/e" \
  || fail "-q after the verb: $(cat "$tmp/e")"
[ ! -s "$tmp/e" ] || fail "-q after the verb should silence the warnings log: $(cat "$tmp/e")"

# Numeric options checked before anything runs: NaN, negative, infinite.
for bad in nan -1 inf abc; do
  "$bin" compare "$r/a8w8_blockscale_before.csv" "$r/a8w8_blockscale_after.csv" --threshold "$bad" >"$tmp/o" 2>"$tmp/e"
  [ $? -eq 2 ] || fail "--threshold $bad should exit 2"
  [ ! -s "$tmp/o" ] || fail "--threshold $bad printed a comparison"
  grep -qi "threshold" "$tmp/e" || fail "--threshold $bad message does not name the option: $(cat "$tmp/e")"
done
"$bin" discover --python-timeout 0 --no-git --no-smi >/dev/null 2>&1; [ $? -eq 2 ] || fail "--python-timeout 0"
"$bin" capture --model deepseek-v3 --tp 0 --dry-run >/dev/null 2>&1; [ $? -eq 2 ] || fail "--tp 0"
echo "cli_forgiving.sh: ok"
