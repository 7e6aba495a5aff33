-- For a schema before version 19 (no partition keys).
-- The planner's estimate of a queue's limited tasks scheduled (not yet in their lanes; $1: the queue).
SELECT 1 FROM {{schema}}.tasks t
WHERE t.queue = $1::text AND t.status = 'pending' AND t.gate = 'scheduled'
