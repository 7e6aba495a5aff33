-- Per task type, the due tasks of its lane: pending tasks of a limited type
-- that hold no unit (gate 'waiting', or 'scheduled' and due by now, which the
-- next claim on their queue admits), read through tasks_waiting (type,
-- priority DESC, run_at, id) only, as open.sql reads tasks_claimable: a loose
-- index scan over the priorities (at most $3 + 1), then one range per
-- priority; a count reads at most $2 index entries. Lanes of types that have
-- no limit are empty; they are read anyway (one index probe) so that a task
-- left in one would show.
--
-- $1: the queue, or NULL for all; $2: the count limit; $3: the priority limit.
SELECT tt.name, tt.queue, c.due, c.oldest_due, c.truncated
FROM {{schema}}.task_types tt
CROSS JOIN LATERAL (
    WITH RECURSIVE prio AS (
        (SELECT t.priority, 1 AS n
         FROM {{schema}}.tasks t
         WHERE t.type = tt.name AND t.status = 'pending' AND t.gate <> 'open'
         ORDER BY t.priority DESC
         LIMIT 1)
        UNION ALL
        SELECT (SELECT t.priority
                FROM {{schema}}.tasks t
                WHERE t.type = tt.name AND t.status = 'pending' AND t.gate <> 'open' AND t.priority < p.priority
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
                    WHERE t.type = tt.name AND t.status = 'pending' AND t.gate <> 'open'
                      AND t.priority = p.priority AND t.run_at <= now()
                    LIMIT $2::int) x
                LIMIT $2::int) y) AS due,
           (SELECT min(m.run_at) FROM read p CROSS JOIN LATERAL (
                SELECT t.run_at FROM {{schema}}.tasks t
                WHERE t.type = tt.name AND t.status = 'pending' AND t.gate <> 'open'
                  AND t.priority = p.priority AND t.run_at <= now()
                ORDER BY t.run_at
                LIMIT 1) m) AS oldest_due,
           EXISTS (SELECT 1 FROM prio p WHERE p.priority IS NOT NULL AND p.n > $3::int) AS truncated
) c
WHERE $1::text IS NULL OR tt.queue = $1::text
ORDER BY tt.name
