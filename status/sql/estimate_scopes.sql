-- The planner's estimate of a counter's scopes ($1: the counter).
SELECT 1 FROM {{schema}}.counter_values cv WHERE cv.counter = $1::text
