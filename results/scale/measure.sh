#!/bin/bash
# Side-by-side scale measurements: old (/tmp/pgseq-old, main before this session's scale work) and new.
export DBURL='postgres://pgseq@/pgseq?host=%2Ftmp%2Fpgseq-benchdb%2Frun&port=5432'
t() { local label=$1; shift; /usr/bin/time -f "$label %e s %M KB rc=%x" "$@" >/dev/null 2>/tmp/scale/last.err; tail -1 /tmp/scale/last.err; }
psql "$DBURL" -qc "DROP SCHEMA IF EXISTS m_old_10k, m_new_10k, m_old_20k, m_new_20k, m_new_100k CASCADE" 2>/dev/null
for b in old new; do t "$b 10k first apply" /tmp/pgseq-$b --database-url "$DBURL" apply --auto-approve --schema m_${b}_10k /tmp/scale/10k; done
for r in 1 2 3; do for b in old new; do t "$b 10k noop plan (round $r)" /tmp/pgseq-$b --database-url "$DBURL" plan --schema m_${b}_10k /tmp/scale/10k; done; done
for b in old new; do t "$b 20k first apply" /tmp/pgseq-$b --database-url "$DBURL" apply --auto-approve --schema m_${b}_20k /tmp/scale/20k; done
t "new 100k first apply" /tmp/pgseq-new --database-url "$DBURL" apply --auto-approve --schema m_new_100k /tmp/scale/100k
for r in 1 2 3; do t "new 100k noop plan (round $r)" /tmp/pgseq-new --database-url "$DBURL" plan --schema m_new_100k /tmp/scale/100k; done
t "new 100k 1% change apply" /tmp/pgseq-new --database-url "$DBURL" apply --auto-approve --schema m_new_100k /tmp/scale/100k_1pct
t "new 100k 1% change back apply" /tmp/pgseq-new --database-url "$DBURL" apply --auto-approve --schema m_new_100k /tmp/scale/100k
t "new 100k noop plan --compact" /tmp/pgseq-new --database-url "$DBURL" plan --compact --schema m_new_100k /tmp/scale/100k
