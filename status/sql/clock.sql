-- The snapshot's clock (the transaction's start: every query of the snapshot
-- sees the same now()), the tasks table's size as the planner last estimated
-- it (pg_class.reltuples: -1 before the first VACUUM or ANALYZE), and the
-- longest worker_timeout of the queues (30s without queues), after which a
-- worker whose heartbeat stopped is declared dead by the leader, as
-- recover_dead_workers decides.
SELECT now(),
       (SELECT c.reltuples::bigint FROM pg_class c WHERE c.oid = '{{schema}}.tasks'::regclass),
       (SELECT extract(epoch FROM coalesce(max(q.worker_timeout), interval '30 seconds'))::float8
        FROM {{schema}}.queues q)
