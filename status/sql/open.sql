-- Per queue, its open pending tasks (claimable: unlimited, or of a limited
-- type and holding a unit), read through tasks_claimable (queue, priority
-- DESC, run_at, id) only. A loose index scan finds the distinct priorities
-- (one probe each, at most $3 + 1 of them); within a priority, the due tasks
-- (run_at <= now()) and the later ones are each one range of the index, so
-- every count reads at most $2 index entries and the oldest due task of a
-- priority is the first entry of its range. A count of $2 means "at least
-- $2": the caller asks for one more than it shows. More than $3 priorities:
-- only the highest $3 are read (truncated).
--
-- $1: the queue, or NULL for all; $2: the count limit; $3: the priority limit.
SELECT q.name, c.due, c.later, c.oldest_due, c.truncated
FROM {{schema}}.queues q
CROSS JOIN LATERAL (
    WITH RECURSIVE prio AS (
        (SELECT t.priority, 1 AS n
         FROM {{schema}}.tasks t
         WHERE t.queue = q.name AND t.status = 'pending' AND t.gate = 'open'
         ORDER BY t.priority DESC
         LIMIT 1)
        UNION ALL
        SELECT (SELECT t.priority
                FROM {{schema}}.tasks t
                WHERE t.queue = q.name AND t.status = 'pending' AND t.gate = 'open' AND t.priority < p.priority
                ORDER BY t.priority DESC
                LIMIT 1),
               p.n + 1
        FROM prio p
        WHERE p.priority IS NOT NULL AND p.n <= $3::int
    ), read AS (
        SELECT p.priority FROM prio p WHERE p.priority IS NOT NULL AND p.n <= $3::int
    )
    SELECT (SELECT count(*) FROM (
                SELECT 1 FROM read p CROSS JOIN LATERAL (
                    SELECT 1 FROM {{schema}}.tasks t
                    WHERE t.queue = q.name AND t.status = 'pending' AND t.gate = 'open'
                      AND t.priority = p.priority AND t.run_at <= now()
                    LIMIT $2::int) x
                LIMIT $2::int) y) AS due,
           (SELECT count(*) FROM (
                SELECT 1 FROM read p CROSS JOIN LATERAL (
                    SELECT 1 FROM {{schema}}.tasks t
                    WHERE t.queue = q.name AND t.status = 'pending' AND t.gate = 'open'
                      AND t.priority = p.priority AND t.run_at > now()
                    LIMIT $2::int) x
                LIMIT $2::int) y) AS later,
           (SELECT min(m.run_at) FROM read p CROSS JOIN LATERAL (
                SELECT t.run_at FROM {{schema}}.tasks t
                WHERE t.queue = q.name AND t.status = 'pending' AND t.gate = 'open'
                  AND t.priority = p.priority AND t.run_at <= now()
                ORDER BY t.run_at
                LIMIT 1) m) AS oldest_due,
           EXISTS (SELECT 1 FROM prio p WHERE p.priority IS NOT NULL AND p.n > $3::int) AS truncated
) c
WHERE $1::text IS NULL OR q.name = $1::text
ORDER BY q.name
