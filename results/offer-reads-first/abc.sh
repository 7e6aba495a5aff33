#!/bin/bash
# usage: abc.sh "A B C" rounds tx : order A B C C B A per round, one client
URL=$(/tmp/pgseq-main --local-dir /tmp/pgseq-benchdb dev url)
set -- $1 "$2" "$3"
A=$1; B=$2; C=$3; R=$4; T=$5
for r in $(seq 1 $R); do
  for s in $A $B $C $C $B $A; do
    l=$(/usr/lib/postgresql/15/bin/pgbench -n -f /tmp/exp/$s.sql -t $T "$URL" 2>&1 | grep "latency average" | awk '{print $4}')
    echo "$s $l"
  done
done | awk '{s[$1]+=$2; n[$1]++; v[$1]=v[$1] " " $2} END {for (k in s) printf "mean %s %.4f (%s)\n", k, s[k]/n[k], v[k]}'
