SELECT batch_size,
       (extract(epoch FROM worker_timeout) * 1000000)::bigint,
       (extract(epoch FROM leader_lease) * 1000000)::bigint
FROM {{schema}}.queues
WHERE name = $1
