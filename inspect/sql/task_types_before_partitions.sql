-- task_types.sql for a schema before version 19: no per-key limits.
SELECT name, queue, coalesce(concurrency, 0), max_retries, priority, NULL::integer, NULL::text
FROM {{schema}}.task_types
ORDER BY name
