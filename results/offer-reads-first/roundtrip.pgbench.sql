-- The round trip of issue 19 through pgbench: claim 10, then complete them.
-- A copy per schema: sed 's/SCHEMA/rtm/g' roundtrip.pgbench.sql > /tmp/exp/rtm.sql
SELECT array_to_string(array_agg(id), ',') AS ids FROM SCHEMA.claim('q','w',10) \gset
SELECT SCHEMA.complete('{:ids}'::bigint[],'w');
