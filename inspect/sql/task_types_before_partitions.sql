SELECT name, queue, coalesce(concurrency, 0), max_retries, priority
FROM {{schema}}.task_types
ORDER BY name
