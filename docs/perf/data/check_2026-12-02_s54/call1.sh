#!/usr/bin/env bash
# Session 54, call 1 (issues #13 and #11; session 53's NEXT.md items 0 and 4). HEAD's portable binaries
# (scripts/build_portable.sh at 2bfc468: 13c6045's persistent scales by TMA and 870b07a's host-side mend).
# (a) Session 51's never-tuned check as it was: GPU tests; 8 GEMM shapes and 7 DeepSeek-V3 token counts no tune has
#     held, tuned as two shards, merged, merge --check, bench --config against the default, report --tuned.
# (b) The bench's first shape (1 x 32768 x 512, ~8.7 us): tuned alone, then benched after 5 s idle, at once again,
#     after 5 s idle behind a long shape, and after 5 s idle once more, with the SM clock sampled every 20 ms.
set -u
bash docs/perf/data/check_2026-12-01_s51/call1.sh
O=/tmp/s54c1b; mkdir -p $O; B=.carry/cktune
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv,noheader -lms 20 > $O/clocks.log 2>&1 &
CL=$!
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
printf 'M,N,K\n4096,7168,2048\n1,32768,512\n' > $O/two.csv
stamp() { echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $*" | tee -a $O/stamps.txt; }
show() { awk -F, -v tag="$1" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["N"]==32768 {printf "%s %s %s us=%s p10=%s p90=%s %s\n", tag, $h["role"], $h["kernelName"], $h["us"], $h["us_p10"], $h["us_p90"], $h["verdict"]}' "$2" | tee -a $O/summary.txt; }
stamp tune start
$B tune -i $O/one.csv -o $O/one_tuned.csv -o2 $O/one_profile.csv --device gpu --no-progress > $O/tune.txt 2> $O/tune.err
stamp tune end rc=$?
awk -F, 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{print "tuned:", $h["kernelName"], "us=" $h["us"]}' $O/one_tuned.csv | tee -a $O/summary.txt
run() { # tag sleep file
  sleep $2; stamp "$1 start"
  $B bench -i $3 --config $O/one_tuned.csv --device gpu -o $O/$1.csv > $O/$1.txt 2> $O/$1.err
  stamp "$1 end rc=$?"; show $1 $O/$1.csv
}
run idle5_a 5 $O/one.csv
run at_once 0 $O/one.csv
run idle5_behind_long 5 $O/two.csv
run idle5_b 5 $O/one.csv
run at_once_b 0 $O/one.csv
kill $CL
cp $O/summary.txt $OUT/item4_summary.txt
(cd /tmp && tar czf "$OUT/s54c1b.tgz" s54c1b)
