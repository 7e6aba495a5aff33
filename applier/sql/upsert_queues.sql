-- Creates or updates every queue of the plan in one statement.
INSERT INTO {{schema}}.queues AS q (
    name, batch_size, max_retries, backoff_initial, backoff_max, backoff_factor,
    backoff_jitter, worker_timeout, leader_lease, retention_completed, retention_dead_letter)
SELECT name, batch_size, max_retries,
       bi * interval '1 microsecond', bm * interval '1 microsecond', bf, bj,
       wt * interval '1 microsecond', ll * interval '1 microsecond',
       rc * interval '1 microsecond', rd * interval '1 microsecond'
FROM unnest($1::text[], $2::int[], $3::int[], $4::bigint[], $5::bigint[], $6::float8[],
            $7::float8[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[])
     AS u(name, batch_size, max_retries, bi, bm, bf, bj, wt, ll, rc, rd)
ON CONFLICT (name) DO UPDATE SET
    batch_size            = excluded.batch_size,
    max_retries           = excluded.max_retries,
    backoff_initial       = excluded.backoff_initial,
    backoff_max           = excluded.backoff_max,
    backoff_factor        = excluded.backoff_factor,
    backoff_jitter        = excluded.backoff_jitter,
    worker_timeout        = excluded.worker_timeout,
    leader_lease          = excluded.leader_lease,
    retention_completed   = excluded.retention_completed,
    retention_dead_letter = excluded.retention_dead_letter,
    updated_at            = now()
