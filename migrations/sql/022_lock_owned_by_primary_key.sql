-- pgseq schema, version 22: a completion finds its tasks by their ids, not
-- through the index of the worker's held tasks.
-- {{schema}} is replaced by the quoted schema name.
--
-- lock_owned (the fence of complete, complete_and_take, fail and release)
-- locks the given tasks that are still the worker's and running:
-- `t.id = ANY (task_ids) AND t.worker_id = … AND t.status = 'running'`.
-- The tasks' statistics come from an ANALYZE taken when nothing ran (after
-- seeding, or on an idle queue), so the planner expects one row for any
-- worker and PL/pgSQL's generic plan scans tasks_held (worker_id) and
-- filters the ids. That index keeps an entry for every task the worker
-- completed since the last VACUUM: each completion visits them all,
-- prunes their heap pages and marks their entries dead again. Counted with
-- `pgseq bench ab --instructions` (scenarios/instructions, 3 rounds,
-- against version 21), the server's work for a whole run: `mixed` (100
-- types, one limited) −3.0% [−4.2%, −1.8%] (_bt_killitems −112 M
-- instructions, ItemPointerEquals −72 M, the `= ANY` filter −79 M), `many`
-- −1.5% [−2.3%, −0.8%], `baseline` +0.4% [−1.2%, +2.1%].
--
-- Now the status is compared as text, which the planner cannot match with
-- tasks_held's predicate (status IN ('claimed', 'running')): that index is
-- out of the question, and the ids are found through tasks_pkey (`id = ANY`
-- as its index condition) whatever the statistics say. The fence is the
-- same: the worker's own running tasks, locked in id order.

CREATE OR REPLACE FUNCTION {{schema}}.lock_owned(task_ids bigint[], worker_id text, OUT ids bigint[], OUT unit_types text[],
                                                 OUT unit_groups integer[], OUT key_types text[], OUT key_keys text[])
RETURNS record
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
    -- = ANY: an id given twice is one task, locked and counted once.
    SELECT array_agg(o.id ORDER BY o.id),
           array_agg(o.type ORDER BY o.id) FILTER (WHERE o.slot_group IS NOT NULL),
           array_agg(o.slot_group ORDER BY o.id) FILTER (WHERE o.slot_group IS NOT NULL),
           array_agg(o.type ORDER BY o.id) FILTER (WHERE o.key_unit),
           array_agg(o.partition_key ORDER BY o.id) FILTER (WHERE o.key_unit)
      INTO ids, unit_types, unit_groups, key_types, key_keys
    FROM (
        SELECT t.id, t.type, t.slot_group, t.key_unit, t.partition_key FROM {{schema}}.tasks t
        WHERE t.id = ANY (task_ids) AND t.worker_id = lock_owned.worker_id
          AND t.status::text = 'running' -- as text: never through tasks_held (above)
        ORDER BY t.id
        FOR UPDATE
    ) o;
END;
$$;
