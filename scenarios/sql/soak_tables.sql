-- The soak workload's sample of pgseq's tables in schema $1 whose names are
-- in $2: live and dead tuples as the statistics count them, the total size
-- (heap, indexes, TOAST), how often they were vacuumed (by hand and by
-- autovacuum) and analyzed by autovacuum, and the rows updated (HOT or not)
-- and deleted since the schema was created.
SELECT c.relname::text,
       coalesce(s.n_live_tup, 0),
       coalesce(s.n_dead_tup, 0),
       pg_catalog.pg_total_relation_size(c.oid),
       coalesce(s.vacuum_count, 0),
       coalesce(s.autovacuum_count, 0),
       coalesce(s.autoanalyze_count, 0),
       coalesce(s.n_tup_upd, 0),
       coalesce(s.n_tup_hot_upd, 0),
       coalesce(s.n_tup_del, 0)
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid
WHERE n.nspname = $1 AND c.relname = ANY ($2::text[]) AND c.relkind = 'r';
