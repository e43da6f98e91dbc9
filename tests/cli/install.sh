#!/bin/bash
# `cmake --install` puts the binary, model presets, man page and completions under a prefix, and the
# installed binary finds its presets relative to itself (run from another folder, no environment help).
# Usage: install.sh <cktune-binary> <tests/data>
set -u
bin=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
build=$(cd "$(dirname "$bin")/.." 2>/dev/null && pwd)
[ -f "$build/cmake_install.cmake" ] || build=$(cd "$(dirname "$bin")" && pwd)
[ -f "$build/cmake_install.cmake" ] || { echo "install.sh: skipped: no cmake_install.cmake near $bin"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -5 "$tmp/install.log")"
p=$tmp/prefix
[ -x "$p/bin/cktune" ] || fail "no bin/cktune"
ls "$p/share/cktune/models/"*.json >/dev/null 2>&1 || fail "no presets in share/cktune/models"
[ -f "$p/share/man/man1/cktune.1" ] || fail "no man page"
[ -f "$p/share/bash-completion/completions/cktune" ] || fail "no bash completion"
[ -f "$p/share/zsh/site-functions/_cktune" ] || fail "no zsh completion"
bash -n "$p/share/bash-completion/completions/cktune" || fail "bash completion does not parse"

# Presets found relative to the installed binary: another cwd, CKTUNE_MODELS_DIR unset, and the source
# tree hidden is not possible, so check the summary names the installed preset file.
mkdir -p "$tmp/elsewhere"
(cd "$tmp/elsewhere" && env -u CKTUNE_MODELS_DIR "$p/bin/cktune" capture --model deepseek-v3 --tp 8 -o out --json) \
  >"$tmp/cap.json" 2>"$tmp/cap.err" || fail "installed capture --model: $(cat "$tmp/cap.err")"
[ -s "$tmp/elsewhere/out/a8w8_blockscale_untuned_gemm.csv" ] || fail "no untuned CSV from the installed binary"
python3 - "$tmp/cap.json" "$p" <<'PY' || fail "preset not read from the install prefix"
import json, sys
j = json.load(open(sys.argv[1]))
src = json.dumps(j.get("model", {}))
assert sys.argv[2] + "/share/cktune/models" in src or "share/cktune/models" in src, src[:400]
PY
# Completions offer the verbs.
out=$(bash -c "source '$p/share/bash-completion/completions/cktune'; COMP_WORDS=(cktune comp); COMP_CWORD=1; _cktune; echo \${COMPREPLY[*]}")
[ "$out" = "compare" ] || fail "bash completion of 'comp': '$out'"
"$p/bin/cktune" version | grep -q "backend:" || fail "installed version"
echo "install.sh: ok"
