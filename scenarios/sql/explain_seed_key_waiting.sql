-- Seeds $5 pending tasks of key $3 of partitioned task type $2 (queue $1,
-- priority $4) waiting for their key (key_wait, out of the type's paths),
-- as enqueue_batch leaves a key's tasks beyond its limit. Due times are a
-- microsecond apart in id order from a day ago (the transaction's now()),
-- ahead of the other types' tasks.
INSERT INTO {{schema}}.tasks (queue, type, priority, run_at, gate, partition_key, key_wait)
SELECT $1::text, $2::text, $4::integer, now() - interval '1 day' + g * interval '1 microsecond', 'scheduled', $3::text, true
FROM generate_series(0, $5::integer - 1) AS g;
