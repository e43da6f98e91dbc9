#!/usr/bin/env bash
# Installs what cktune needs from Debian 12's packages (idempotent; skips what is there).
# CUDA (nvcc) is not a Debian package: when /usr/local/cuda/bin/nvcc exists the GPU build is made too.
# chromium renders report.html headless in tests/cli/report_render.sh (it took 48 s to install here
# on Debian 12 with --no-install-recommends, a warm apt cache aside; the test skips when it is missing).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config git
      libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev libre2-dev zlib1g-dev libgtest-dev
      clang-19 clang-tools-19 lld-19 libamdhip64-dev librocprim-dev rocm-device-libs ccache chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "install_deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
