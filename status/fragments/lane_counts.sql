{{- /*
lane_counts is the lateral subquery that open.sql and lanes.sql count a
lane's pending tasks with. Its argument is a lane (status.go's sqlLane):
Where selects the lane's pending tasks t and matches a partial index on
(lane, priority DESC, run_at, id), through which alone they are read:
tasks_claimable for a queue's open tasks, tasks_waiting for a limited
type's waiting ones.

A loose index scan finds the lane's distinct priorities (one probe each, at
most $3 + 1 of them); within a priority, the due tasks (run_at <= now())
and the later ones are each one range of the index, so every count reads
at most $2 index entries and the oldest due task of a priority is the first
entry of its range. A count of $2 means "at least $2": the caller asks for
one more than it shows. More than $3 priorities: only the highest $3 are
read (truncated).

Columns: due, later (only when Later), oldest_due, truncated.
$2: the count limit; $3: the priority limit.
*/ -}}
{{define "lane_counts" -}}
    WITH RECURSIVE prio AS (
        (SELECT t.priority, 1 AS n
         FROM {{schema}}.tasks t
         WHERE {{.Where}}
         ORDER BY t.priority DESC
         LIMIT 1)
        UNION ALL
        SELECT (SELECT t.priority
                FROM {{schema}}.tasks t
                WHERE {{.Where}} AND t.priority < p.priority
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
                    WHERE {{.Where}}
                      AND t.priority = p.priority AND t.run_at <= now()
                    LIMIT $2::int) x
                LIMIT $2::int) y) AS due,
{{- if .Later}}
           (SELECT count(*) FROM (
                SELECT 1 FROM read p CROSS JOIN LATERAL (
                    SELECT 1 FROM {{schema}}.tasks t
                    WHERE {{.Where}}
                      AND t.priority = p.priority AND t.run_at > now()
                    LIMIT $2::int) x
                LIMIT $2::int) y) AS later,
{{- end}}
           (SELECT min(m.run_at) FROM read p CROSS JOIN LATERAL (
                SELECT t.run_at FROM {{schema}}.tasks t
                WHERE {{.Where}}
                  AND t.priority = p.priority AND t.run_at <= now()
                ORDER BY t.run_at
                LIMIT 1) m) AS oldest_due,
           EXISTS (SELECT 1 FROM prio p WHERE p.priority IS NOT NULL AND p.n > $3::int) AS truncated
{{- end}}
