#!/bin/bash
# usage: ab.sh A B rounds tx
URL=$(/tmp/pgseq-main --local-dir /tmp/pgseq-benchdb dev url)
for r in $(seq 1 $3); do
  for s in $1 $2 $2 $1; do
    l=$(/usr/lib/postgresql/15/bin/pgbench -n -f /tmp/exp/$s.sql -t $4 "$URL" 2>&1 | grep "latency average" | awk '{print $4}')
    echo "$s $l"
  done
done | awk '{s[$1]+=$2; n[$1]++; print} END {for (k in s) printf "mean %s %.4f\n", k, s[k]/n[k]}'
