-- Per queue, its open pending tasks (claimable: unlimited, or of a limited
-- type and holding a unit), read through tasks_claimable (queue, priority
-- DESC, run_at, id) only, by lane_counts (fragments/lane_counts.sql): the
-- due ones, the later ones and the oldest due, counted up to $2 over the
-- highest $3 priorities.
--
-- $1: the queue, or NULL for all; $2: the count limit; $3: the priority limit.
SELECT q.name, c.due, c.later, c.oldest_due, c.truncated
FROM {{schema}}.queues q
CROSS JOIN LATERAL (
    {{template "lane_counts" lane "t.queue = q.name AND t.status = 'pending' AND t.gate = 'open'" true}}
) c
WHERE $1::text IS NULL OR q.name = $1::text
ORDER BY q.name
