#!/bin/bash
# samples pg_stat_activity wait events of active bench backends every 5ms until killed
U="$1"; out="$2"
psql -qAt "$U" -c "create temp table s(w text, q text)" -c "
do \$\$ begin for i in 1..4000 loop
 insert into s select coalesce(wait_event_type||':'||wait_event,'CPU'), left(regexp_replace(query,'\s+',' ','g'),40) from pg_stat_activity where state='active' and pid<>pg_backend_pid() and query like '%pgseq_bench%';
 perform pg_sleep(0.005); commit; end loop; end \$\$;" -c "select count(*), w, q from s where q not like '%enqueue%' group by w, q order by 1 desc limit 25" > "$out" 2>&1
