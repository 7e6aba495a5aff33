-- What holds back vacuum in this database: how many transactions behind the
-- oldest snapshot of the other sessions is (the age of their oldest
-- backend_xmin), and how long the oldest open transaction has run, in
-- seconds.
SELECT coalesce(max(pg_catalog.age(a.backend_xmin)), 0)::bigint,
       coalesce(extract(epoch FROM max(pg_catalog.now() - a.xact_start)), 0)::float8
FROM pg_catalog.pg_stat_activity a
WHERE a.datname = pg_catalog.current_database() AND a.pid <> pg_catalog.pg_backend_pid();
