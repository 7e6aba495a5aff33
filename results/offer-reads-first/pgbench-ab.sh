#!/bin/bash
# pgbench-ab.sh: pgbench runs of one script per schema, alternated round by
# round (A B B A for two schemas, A B C C B A for three), each run printed
# and each schema's mean at the end. The schemas hold one configuration and
# its tasks each, with the function bodies under comparison.
#
# usage: pgbench-ab.sh "A B [C]" ROUNDS TRANSACTIONS
#
# Environment:
#   SUFFIX   the script of schema s is /tmp/exp/${s}${SUFFIX}.sql (default: none)
#   CLIENTS  pgbench clients (default 1); JOBS its threads (default: CLIENTS)
#   IDS      non-empty: pass -D ids=0, for scripts that carry the tasks a
#            call took over into the next transaction (take-loop.pgbench.sql)
#   RESET    before each run, complete what the workers still run: none
#            (default), w (worker w), w8 (workers w0 … w7)
#   METRIC   latency (ms a transaction, the default) or tps
set -e
URL=$(/tmp/pgseq-main --local-dir /tmp/pgseq-benchdb dev url)
read -r -a names <<< "$1"
rounds=$2 tx=$3
clients=${CLIENTS:-1} jobs=${JOBS:-${CLIENTS:-1}}
order=("${names[@]}")
for ((i = ${#names[@]} - 1; i >= 0; i--)); do order+=("${names[i]}"); done
for r in $(seq 1 "$rounds"); do
  for s in "${order[@]}"; do
    case ${RESET:-none} in
      w) psql "$URL" -qAt -c "select $s.complete(array(select id from $s.tasks where status='running' and worker_id='w'), 'w')" >/dev/null ;;
      w8) psql "$URL" -qAt -c "select sum($s.complete(array(select id from $s.tasks where status='running' and worker_id='w'||g), 'w'||g)) from generate_series(0,7) g" >/dev/null ;;
    esac
    out=$(/usr/lib/postgresql/15/bin/pgbench -n -c "$clients" -j "$jobs" ${IDS:+-D ids=0} -f "/tmp/exp/${s}${SUFFIX}.sql" -t "$tx" "$URL" 2>&1)
    if [ "${METRIC:-latency}" = tps ]; then
      echo "$s $(echo "$out" | grep "tps = " | awk '{print $3}')"
    else
      echo "$s $(echo "$out" | grep "latency average" | awk '{print $4}')"
    fi
  done
done | awk '{s[$1]+=$2; n[$1]++; v[$1]=v[$1] " " $2; print} END {for (k in s) printf "mean %s %.4f (%s)\n", k, s[k]/n[k], v[k]}'
