#!/bin/bash
URL=$(/tmp/pgseq-main --local-dir /tmp/pgseq-benchdb dev url)
for r in $(seq 1 $3); do
  for s in $1 $2 $2 $1; do
    psql "$URL" -qAt -c "select sum($s.complete(array(select id from $s.tasks where status='running' and worker_id='w'||g), 'w'||g)) from generate_series(0,7) g" >/dev/null
    l=$(/usr/lib/postgresql/15/bin/pgbench -n -c 8 -j 2 -D ids=0 -f /tmp/exp/${s}t.sql -t $4 "$URL" 2>&1 | grep "tps = " | awk '{print $3}')
    echo "$s $l"
  done
done | awk '{s[$1]+=$2; n[$1]++; print} END {for (k in s) printf "mean %s %.1f\n", k, s[k]/n[k]}'
