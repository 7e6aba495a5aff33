-- Creates or updates every task type of the plan in one statement.
INSERT INTO {{schema}}.task_types AS t (name, queue, concurrency, max_retries, priority)
SELECT name, queue, nullif(concurrency, 0), max_retries, priority
FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[])
     AS u(name, queue, concurrency, max_retries, priority)
ON CONFLICT (name) DO UPDATE SET
    queue       = excluded.queue,
    concurrency = excluded.concurrency,
    max_retries = excluded.max_retries,
    priority    = excluded.priority,
    updated_at  = now()
