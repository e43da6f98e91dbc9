set -u
bash scripts/unpack_carry.sh > /dev/null
PROBE_T="8 16" timeout 120 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $OUT/probe.txt 2>&1
echo rc=$?
grep -v "^\[" $OUT/probe.txt | head -120
