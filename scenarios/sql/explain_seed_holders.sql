-- Seeds the running tasks of worker $4 that hold all the units $5 of a
-- saturated type $2 (queue $1, priority $3), claimed as claim would have
-- left them, older than every pending task.
INSERT INTO {{schema}}.tasks (queue, type, priority, run_at, gate, slot_group,
                              status, worker_id, attempts, claimed_at, started_at)
SELECT $1::text, $2::text, $3::integer, now() - interval '1 day' - interval '1 second', 'open', u.grp,
       'running', $4::text, 1, now(), now()
FROM unnest($5::integer[]) WITH ORDINALITY AS u(grp, ord)
ORDER BY u.ord;
