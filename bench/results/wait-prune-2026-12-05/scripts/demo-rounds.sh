#!/bin/bash
# usage: demo-rounds.sh WARP OUT ROUNDS
source "$(dirname "$0")/hogs.sh"
w=$1; out=$2; n=$3; mkdir -p $out
uptime > $out/machine.txt
for i in $(seq 1 $n); do
  $w demo --json > $out/quiet-$i.json 2>$out/quiet-$i.err
  start_hogs; sleep 1
  $w demo --json > $out/hogs-$i.json 2>$out/hogs-$i.err
  stop_hogs
  echo "$i $(date -u +%T) $(cat /proc/loadavg)" >> $out/machine.txt
done
