-- Pending tasks follow their type: its queue, and whether they wait for slot
-- units. Run for types whose limit appeared or disappeared, whose queue
-- changed, or that were deleted (their tasks become unlimited). A type that
-- gains a limit sends its pending tasks to its lane (waiting, or scheduled
-- when not due yet) to be admitted by rebalance_units; one that loses it
-- opens them all, and rebalance_units takes back the units of those that
-- hold one (their groups drain at capacity 0, see drop_slots.sql). A task
-- waiting for its partition key keeps waiting (apply_partitions decides).
UPDATE {{schema}}.tasks t
SET queue = coalesce(u.queue, t.queue),
    gate = CASE WHEN t.key_wait THEN t.gate
                WHEN NOT u.limited THEN 'open'
                WHEN t.gate <> 'open' OR t.slot_group IS NOT NULL THEN t.gate
                WHEN t.run_at <= now() THEN 'waiting'
                ELSE 'scheduled' END::{{schema}}.task_gate,
    updated_at = now()
FROM unnest($1::text[], $2::text[], $3::boolean[]) AS u(type, queue, limited)
WHERE t.type = u.type AND t.status = 'pending'
  AND ((t.gate <> 'open' OR t.slot_group IS NOT NULL) IS DISTINCT FROM u.limited
       OR (u.queue IS NOT NULL AND t.queue <> u.queue))
