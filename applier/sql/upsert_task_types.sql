-- Creates or updates every task type of the plan in one statement.
INSERT INTO {{schema}}.task_types AS t (name, queue, concurrency, max_retries, priority, partition_limit, partition_by)
SELECT name, queue, nullif(concurrency, 0), max_retries, priority, nullif(partition_limit, 0), partition_by
FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[])
     AS u(name, queue, concurrency, max_retries, priority, partition_limit, partition_by)
ON CONFLICT (name) DO UPDATE SET
    queue           = excluded.queue,
    concurrency     = excluded.concurrency,
    max_retries     = excluded.max_retries,
    priority        = excluded.priority,
    partition_limit = excluded.partition_limit,
    partition_by    = excluded.partition_by,
    updated_at      = now()
