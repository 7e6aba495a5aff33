#!/bin/bash
URL=$(/tmp/pgseq-main --local-dir /tmp/pgseq-benchdb dev url)
set -- $1 "$2" "$3"
A=$1; B=$2; C=$3; R=$4; T=$5
for r in $(seq 1 $R); do
  for s in $A $B $C $C $B $A; do
    psql "$URL" -qAt -c "select $s.complete(array(select id from $s.tasks where status='running' and worker_id='w'), 'w')" >/dev/null
    l=$(/usr/lib/postgresql/15/bin/pgbench -n -c 1 -D ids=0 -f /tmp/exp/${s}t500.sql -t $T "$URL" 2>&1 | grep "latency average" | awk '{print $4}')
    echo "$s $l"
  done
done | awk '{s[$1]+=$2; n[$1]++; v[$1]=v[$1] " " $2} END {for (k in s) printf "mean %s %.3f (%s)\n", k, s[k]/n[k], v[k]}'
