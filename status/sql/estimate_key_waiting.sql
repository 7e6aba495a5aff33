-- The planner's estimate of a task type's tasks waiting for their key ($1: the type).
SELECT 1 FROM {{schema}}.tasks t
WHERE t.type = $1::text AND t.status = 'pending' AND t.key_wait
