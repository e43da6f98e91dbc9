#!/usr/bin/env bash
# Session 43, call 5: what the machine is, and session 42's clock-stamp probe of the final code
# (probe_final_46a5c53_untested.diff + ../moe_2026-11-30_s42/probe_final_test.cpp.txt as tests/gpu/moe_probe_test.cpp;
# not committed) at 4, 8 and 16 DeepSeek-V3 tokens, the routing stage 1 on and off.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,vbios_version,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,power.limit,persistence_mode,ecc.mode.current,mig.mode.current,compute_mode,pcie.link.gen.current,pcie.link.width.current --format=csv
nvidia-smi -q | grep -iE "Product Name|Bus Id|Virtualization|Host VGPU|GPU Part|Module ID|Addressing|Clocks Event|HW Slowdown|Power Limit|Remapped|Pending" | head -30
for route in 1 0; do
  echo "=== CKTUNE_MOE_STAGE1_ROUTE=$route"
  CKTUNE_MOE_STAGE1_ROUTE=$route PROBE_T="4 8 16" timeout 120 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > /tmp/probe_$route.txt 2>&1
  echo "rc=$?"
  cp /tmp/probe_$route.txt "$OUT/"
done
grep -E "pipeline|run 0|stage|sort|s1:" /tmp/probe_1.txt | head -80
