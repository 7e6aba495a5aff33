-- The planner's estimate of a queue's tasks in a finished status ($1: the
-- queue, $2: failed or dead_letter).
SELECT 1 FROM {{schema}}.tasks t
WHERE t.queue = $1::text AND t.status = $2::text::{{schema}}.task_status
