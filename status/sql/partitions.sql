-- Per partitioned task type (or type whose keys still hold units after its
-- partition block was removed), its partition keys with work (a row in
-- partition_slots: a task holding one of the key's units or waiting for
-- one) and the due tasks waiting for a unit of their key. Schema version
-- 19 and later; Read reads nothing of the kind before.
--
-- The keys are the first $2 rows of the type's range of partition_slots'
-- primary key (task_type, partition_key), those at their limit (used ≥ the
-- per-key limit) and over it (used above it: draining after a lowered
-- limit) counted among them; the waiting tasks one range of
-- tasks_key_waiting (type, partition_key, …), read up to $2 entries. A
-- count of $2 means "at least $2": the caller asks for one more than it
-- shows.
--
-- $1: the queue, or NULL for all; $2: the count limit.
SELECT tt.name, tt.queue, coalesce(tt.partition_limit, 0), coalesce(tt.partition_by, ''),
       k.keys, k.at_limit, k.over_limit, w.waiting
FROM {{schema}}.task_types tt
CROSS JOIN LATERAL (
    SELECT count(*) AS keys,
           count(*) FILTER (WHERE s.used >= tt.partition_limit) AS at_limit,
           count(*) FILTER (WHERE s.used > tt.partition_limit) AS over_limit
    FROM (SELECT s.used FROM {{schema}}.partition_slots s
          WHERE s.task_type = tt.name
          ORDER BY s.partition_key
          LIMIT $2::int) s
) k
CROSS JOIN LATERAL (
    SELECT count(*) AS waiting
    FROM (SELECT 1 FROM {{schema}}.tasks t
          WHERE t.type = tt.name AND t.status = 'pending' AND t.key_wait
          LIMIT $2::int) x
) w
WHERE ($1::text IS NULL OR tt.queue = $1::text)
  AND (tt.partition_limit IS NOT NULL
       OR EXISTS (SELECT 1 FROM {{schema}}.partition_slots s WHERE s.task_type = tt.name))
ORDER BY tt.name
