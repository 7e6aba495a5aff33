-- Per partitioned task type, the keys whose next task has waited longest:
-- the $4 longest waits among the keys at their limit (used ≥ the per-key
-- limit: a key below it admits its due tasks at once) of the first $2 keys
-- of the type (partition_slots' primary key range, as partitions.sql reads
-- it), at most $3 of them probed. A key's wait is that of the first task
-- of its lane in tasks_key_waiting (type, partition_key, priority DESC,
-- run_at, id): the next it admits, due since its run_at — its oldest
-- waiting task unless the key's tasks have different priorities. One
-- index probe per key, so at most $3 per type whatever the lanes hold; and
-- each key listed counts its waiting tasks, one range of the same index
-- read up to $2 entries.
-- Schema version 19 and later.
--
-- Columns: type, key, units in use, head's run_at, waiting tasks of the
-- key.
--
-- $1: the queue, or NULL for all; $2: the count limit; $3: the keys
-- probed; $4: the keys listed.
SELECT tt.name, l.partition_key, l.used, l.oldest,
       (SELECT count(*) FROM (
            SELECT 1 FROM {{schema}}.tasks t
            WHERE t.type = tt.name AND t.partition_key = l.partition_key AND t.status = 'pending' AND t.key_wait
            LIMIT $2::int) x)
FROM {{schema}}.task_types tt
CROSS JOIN LATERAL (
    SELECT p.partition_key, p.used, h.run_at AS oldest
    FROM (SELECT s.partition_key, s.used
          FROM (SELECT s.partition_key, s.used FROM {{schema}}.partition_slots s
                WHERE s.task_type = tt.name
                ORDER BY s.partition_key
                LIMIT $2::int) s
          WHERE s.used >= tt.partition_limit
          LIMIT $3::int) p
    LEFT JOIN LATERAL (
        SELECT t.run_at FROM {{schema}}.tasks t
        WHERE t.type = tt.name AND t.partition_key = p.partition_key AND t.status = 'pending' AND t.key_wait
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT 1) h ON true
    ORDER BY h.run_at NULLS LAST, p.partition_key
    LIMIT $4::int
) l
WHERE ($1::text IS NULL OR tt.queue = $1::text) AND tt.partition_limit IS NOT NULL
  AND l.oldest IS NOT NULL
ORDER BY tt.name, l.oldest, l.partition_key
