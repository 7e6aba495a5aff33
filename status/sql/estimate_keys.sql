-- The planner's estimate of a task type's partition keys with work ($1: the type).
SELECT 1 FROM {{schema}}.partition_slots s
WHERE s.task_type = $1::text
