SELECT name, queue, coalesce(concurrency, 0), max_retries, priority, partition_limit, partition_by
FROM {{schema}}.task_types
ORDER BY name
