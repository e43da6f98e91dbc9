#!/usr/bin/env bash
# On the GPU machine: restore .carry/cktune and .carry/cktune_gpu_tests from the xz copies in .carryz/
# that scripts/build_portable.sh wrote (the device tool carries at most 64 MiB).
set -euo pipefail
mkdir -p .carry
for f in .carryz/*.xz; do
  exe=.carry/$(basename "$f" .xz)
  xz -dc "$f" > "$exe"
  chmod +x "$exe"
done
ls -la .carry
