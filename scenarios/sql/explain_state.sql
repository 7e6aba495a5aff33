-- The state RunExplain checks after the rolled-back claim: pending tasks,
-- tasks in any other status, units held (Σ used of the slot groups and of
-- the partition keys), and how many of the tasks $1 (the claimed ones) are
-- pending without a worker.
SELECT count(*) FILTER (WHERE t.status = 'pending')::integer,
       count(*) FILTER (WHERE t.status <> 'pending')::integer,
       (SELECT coalesce(sum(s.used), 0)::integer FROM {{schema}}.concurrency_slots s),
       (SELECT coalesce(sum(p.used), 0)::integer FROM {{schema}}.partition_slots p),
       (SELECT count(*)::integer FROM {{schema}}.tasks c
        WHERE c.id = ANY ($1::bigint[]) AND c.status = 'pending' AND c.worker_id IS NULL)
FROM {{schema}}.tasks t;
