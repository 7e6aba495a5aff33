SELECT name, batch_size, max_retries,
       (extract(epoch FROM backoff_initial) * 1000000)::bigint,
       (extract(epoch FROM backoff_max) * 1000000)::bigint,
       backoff_factor, backoff_jitter,
       (extract(epoch FROM worker_timeout) * 1000000)::bigint,
       (extract(epoch FROM leader_lease) * 1000000)::bigint,
       (extract(epoch FROM retention_completed) * 1000000)::bigint,
       (extract(epoch FROM retention_dead_letter) * 1000000)::bigint
FROM {{schema}}.queues
ORDER BY name
