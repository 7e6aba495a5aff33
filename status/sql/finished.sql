-- Per queue, the failed and dead-lettered tasks among its newest $2 finished
-- ones, read backwards through tasks_finished (queue, completed_at): exact
-- when the queue holds fewer than $2 finished tasks, else a lower bound (the
-- caller adds the planner's estimate). Each row read is a heap fetch (the
-- index does not hold the status), so $2 bounds the cost.
--
-- $1: the queue, or NULL for all; $2: the count limit.
SELECT q.name, f.finished, f.failed, f.dead_letter
FROM {{schema}}.queues q
CROSS JOIN LATERAL (
    SELECT count(*) AS finished,
           count(*) FILTER (WHERE x.status = 'failed') AS failed,
           count(*) FILTER (WHERE x.status = 'dead_letter') AS dead_letter
    FROM (SELECT t.status FROM {{schema}}.tasks t
          WHERE t.queue = q.name AND t.status IN ('completed', 'failed', 'dead_letter')
          ORDER BY t.completed_at DESC
          LIMIT $2::int) x
) f
WHERE $1::text IS NULL OR q.name = $1::text
ORDER BY q.name
