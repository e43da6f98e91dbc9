#!/usr/bin/env bash
# Session 54, call 2 (trustworthy numbers; issue #13's decode). Same binaries as call 1 (2bfc468).
# (a) 1 x 32768 x 512: tune alone twice, once without the near ties' re-timing; bench with 5 (default), 2,000 and
#     20,000 untimed launches first. (b) The 48-shape grid benched twice in a row with session 53's tuned table
#     (call 7), 5 s after the GPU went idle and at once after: where 1 x 32768 x 512 falls. (c) M = 16 and 64 at
#     the grid's six (N, K): the tune's best candidates, to see why M = 16 tunes slower than M = 64.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
O=/tmp/s54c2; mkdir -p $O; B=.carry/cktune; D=docs/perf/data/check_2026-12-02_s54
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 50 > $O/clocks.log 2>&1 &
CL=$!
stamp() { echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $*" | tee -a $O/stamps.txt; }
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
top() { awk -F, -v tag="$1" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["verdict"]=="passed"{print tag, $h["M"]"x"$h["N"]"x"$h["K"], $h["us"], $h["us_p10"], $h["us_p90"], $h["kernelName"]}' "$2" | sort -k2,2 -k3n | awk '{c[$2]++} c[$2]<=4' | tee -a $O/summary.txt; }
for t in t1 t2; do
  $B tune -i $O/one.csv -o $O/$t.csv -o2 $O/${t}_profile.csv --device gpu --no-progress > /dev/null 2> $O/$t.err; top $t $O/${t}_profile.csv
done
$B tune -i $O/one.csv -o $O/t0.csv -o2 $O/t0_profile.csv --device gpu --no-progress --retime-tolerance 0 > /dev/null 2> $O/t0.err
top no_retime $O/t0_profile.csv
for w in 5 2000 20000; do
  $B bench -i $O/one.csv --config $O/t1.csv --device gpu --warmup $w -o $O/b_w$w.csv > /dev/null 2> $O/b_w$w.err
  awk -F, -v tag="bench_warmup_$w" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{print tag, $h["role"], $h["kernelName"], $h["us"], $h["us_p10"], $h["us_p90"]}' $O/b_w$w.csv | tee -a $O/summary.txt
done
sleep 5
for r in g1 g2; do
  stamp "grid bench $r start"
  timeout 150 $B bench -i configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv --config docs/perf/data/check_2026-12-02_s53/call7_grid/tuned_mp1.csv --device gpu -o $O/$r.csv > $O/$r.txt 2> $O/$r.err
  stamp "grid bench $r end rc=$?"
  awk -F, -v tag="$r" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["role"]=="dispatch" && ($h["M"]<=16 || NR<=4) {print tag, $h["M"]"x"$h["N"]"x"$h["K"], $h["us"], $h["us_p10"], $h["us_p90"], $h["kernelName"], $h["timestamp"]}' $O/$r.csv | tee -a $O/summary.txt
done
printf 'M,N,K\n16,2112,7168\n16,4096,7168\n16,7168,2048\n16,7168,16384\n16,24576,1536\n16,32768,512\n64,2112,7168\n64,4096,7168\n64,7168,2048\n64,7168,16384\n64,24576,1536\n64,32768,512\n' > $O/m16_64.csv
$B tune -i $O/m16_64.csv -o $O/m16_64_tuned.csv -o2 $O/m16_64_profile.csv --device gpu --no-progress > /dev/null 2> $O/m16_64.err
echo "m16_64 tune rc=$?"; top m16_64 $O/m16_64_profile.csv
awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["kernelName"] ~ /^wgmmak_m64_n64_k128_st8_w12_sk[12]$/ {print "wgmmak", $h["M"]"x"$h["N"]"x"$h["K"], $h["us"], $h["verdict"], $h["kernelName"]}' $O/m16_64_profile.csv | sort -k2 | tee -a $O/summary.txt
kill $CL
cp $O/summary.txt $OUT/summary.txt
(cd /tmp && tar czf "$OUT/s54c2.tgz" s54c2)
