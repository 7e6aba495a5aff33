-- Seeds key $3 of partitioned task type $2 (queue $1, priority $4) at its
-- limit: $5 running tasks of worker $6 hold the key's units, claimed as
-- claim would have left them, older than every pending task; the key's
-- row counts them.
WITH holders AS (
    INSERT INTO {{schema}}.tasks (queue, type, priority, run_at, gate, partition_key, key_unit,
                                  status, worker_id, attempts, claimed_at, started_at)
    SELECT $1::text, $2::text, $4::integer, now() - interval '1 day' - interval '1 second', 'open', $3::text, true,
           'running', $6::text, 1, now(), now()
    FROM generate_series(1, $5::integer)
    RETURNING run_at
)
INSERT INTO {{schema}}.partition_slots (task_type, partition_key, used, last_at)
SELECT $2::text, $3::text, count(*)::integer, max(h.run_at) FROM holders h;
