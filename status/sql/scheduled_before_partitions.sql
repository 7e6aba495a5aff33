-- For a schema before version 19 (no partition keys).
-- Per queue, its limited tasks scheduled for later (gate 'scheduled': they
-- join their type's lane, lanes.sql, when a claim on the queue finds them
-- due), one range of tasks_scheduled (queue, run_at), read up to $2 entries.
--
-- $1: the queue, or NULL for all; $2: the count limit.
SELECT q.name,
       (SELECT count(*) FROM (
            SELECT 1 FROM {{schema}}.tasks t
            WHERE t.queue = q.name AND t.status = 'pending' AND t.gate = 'scheduled'
            LIMIT $2::int) x)
FROM {{schema}}.queues q
WHERE $1::text IS NULL OR q.name = $1::text
ORDER BY q.name
