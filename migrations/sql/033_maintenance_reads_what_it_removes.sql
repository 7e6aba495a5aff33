-- pgseq schema, version 33: a maintenance pass reads what it removes, not
-- what it keeps.
-- {{schema}} is replaced by the quoted schema name.
--
-- Two of run_maintenance's statements read a whole table on every pass
-- (TestMaintenanceReadsOnlyWhatItRemoves: 50,000 slot groups in use,
-- 100,000 finished tasks within their retention, 3 emptied groups and 10
-- tasks past retention):
--   - the slot groups a lowered limit emptied (capacity 0, used 0) were
--     found by a sequential scan of concurrency_slots: 50,000 rows and
--     17 ms a pass in the `many` drain (1,000 types limited to 1,000), a
--     million rows for 20,000 such types, whether any group was emptied
--     or not. A partial index now holds the groups of capacity 0 alone.
--     It leaves the runtime's updates of `used` heap-only (HOT): `used`
--     is neither indexed nor in the predicate; only an apply changing a
--     group's capacity updates the index.
--   - the purge of tasks past retention joined every task with its queue
--     and filtered (a sequential scan of all 100,010 tasks, pending ones
--     included), then hashed the whole table again to delete the 10 it
--     found: 95 ms a pass, growing with every task kept. It now reads
--     each queue's finished tasks in tasks_finished's order, oldest first,
--     up to the shorter retention, and deletes by id. Same tasks purged:
--     completed ones older than the queue's retention_completed, failed
--     and dead-lettered ones older than its retention_dead_letter, at
--     most 10,000 a pass.

CREATE INDEX concurrency_slots_emptied ON {{schema}}.concurrency_slots (task_type, slot_group)
    WHERE capacity = 0;

CREATE OR REPLACE FUNCTION {{schema}}.run_maintenance(worker_id text)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET jit TO 'off'
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
    v_result  jsonb;
    n_slots   integer;
    n_purged  integer;
    n_forgot  integer;
BEGIN
    PERFORM 1 FROM {{schema}}.leader l
    WHERE l.singleton AND l.worker_id = run_maintenance.worker_id AND l.lease_until >= now()
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker "%" is not the leader', run_maintenance.worker_id
            USING ERRCODE = 'PS003', HINT = 'Call elect_leader first; only the leader runs maintenance.';
    END IF;

    v_result := {{schema}}.recover_dead_workers();

    -- Slot groups a lowered limit emptied, through their partial index.
    WITH empty AS (
        SELECT s.task_type, s.slot_group FROM {{schema}}.concurrency_slots s
        WHERE s.capacity = 0 AND s.used = 0
        FOR UPDATE SKIP LOCKED
    ), gone AS (
        DELETE FROM {{schema}}.concurrency_slots s USING empty e
        WHERE s.task_type = e.task_type AND s.slot_group = e.slot_group
        RETURNING 1
    )
    SELECT count(*)::integer INTO n_slots FROM gone;

    -- Tasks past their queue's retention, at most 10,000 a pass: each
    -- queue's finished tasks read in tasks_finished's order, oldest first,
    -- up to the shorter of its two retentions (those of the other kind
    -- still within theirs are passed over), then deleted by id.
    WITH old AS (
        SELECT x.id
        FROM {{schema}}.queues q
        CROSS JOIN LATERAL (
            SELECT t.id FROM {{schema}}.tasks t
            WHERE t.queue = q.name AND t.status IN ('completed', 'failed', 'dead_letter')
              AND t.completed_at < now() - least(q.retention_completed, q.retention_dead_letter)
              AND CASE WHEN t.status = 'completed' THEN t.completed_at < now() - q.retention_completed
                       ELSE t.completed_at < now() - q.retention_dead_letter END
            ORDER BY t.completed_at
            LIMIT 10000) x
        LIMIT 10000
    ), purged AS (
        DELETE FROM {{schema}}.tasks t
        WHERE t.id = ANY (ARRAY(SELECT old.id FROM old))
        RETURNING 1
    )
    SELECT count(*)::integer INTO n_purged FROM purged;

    -- A dead worker is forgotten once it holds no task (a probe of
    -- tasks_held per worker).
    WITH forgot AS (
        DELETE FROM {{schema}}.workers w
        WHERE w.dead_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM {{schema}}.tasks t
                          WHERE t.worker_id = w.id AND t.status = 'running')
        RETURNING 1
    )
    SELECT count(*)::integer INTO n_forgot FROM forgot;

    RETURN v_result || jsonb_build_object('slot_groups_deleted', n_slots, 'purged', n_purged,
                                          'workers_forgotten', n_forgot)
                    || {{schema}}.maintenance_extras();
END;
$function$;
