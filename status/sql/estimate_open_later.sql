-- The planner's estimate of a queue's open tasks due later ($1: the queue).
SELECT 1 FROM {{schema}}.tasks t
WHERE t.queue = $1::text AND t.status = 'pending' AND t.gate = 'open' AND t.run_at > now()
