#!/usr/bin/env bash
# The main job (README): install dependencies, build, and run the whole workflow on the bundled server
# log on this machine's CPU: capture -> bench before -> tune -> bench after -> compare -> report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=${CKTUNE_GPU:-off} -DCMAKE_BUILD_TYPE=Release -DCKTUNE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target cktune
exec "$root/scripts/workflow.sh" "$build/src/cktune" "${1:-$root/out/workflow}"
