-- Per task type, the due tasks of its lane: pending tasks of a limited type
-- that hold no unit and wait for one (gate 'waiting'; scheduled tasks join
-- the lane when the next claim on their queue finds them due), read through
-- tasks_waiting (type,
-- priority DESC, run_at, id) only, by lane_counts
-- (fragments/lane_counts.sql), as open.sql reads tasks_claimable. Lanes of
-- types that have no limit are empty; they are read anyway (one index probe)
-- so that a task left in one would show.
--
-- $1: the queue, or NULL for all; $2: the count limit; $3: the priority limit.
SELECT tt.name, tt.queue, c.due, c.oldest_due, c.truncated
FROM {{schema}}.task_types tt
CROSS JOIN LATERAL (
    {{template "lane_counts" lane "t.type = tt.name AND t.status = 'pending' AND t.gate = 'waiting'" false}}
) c
WHERE $1::text IS NULL OR tt.queue = $1::text
ORDER BY tt.name
