-- pgseq schema, version 9: 'running' is the one status of a task a worker
-- holds, and complete, fail and release share one ownership fence.
-- {{schema}} is replaced by the quoted schema name.
--
-- No version ever wrote the status 'claimed': claim (and a hand-off to a
-- taker) moves a task from pending straight to running. Yet the runtime's
-- predicates for "a worker holds this task" read status IN ('claimed',
-- 'running'), which suggested a state that does not exist. They now read
-- status = 'running'. The partial index tasks_held (WHERE status IN
-- ('claimed', 'running'), migration 001) stays: status = 'running' implies
-- its predicate, so the planner still uses it, and rebuilding it would lock
-- tasks for nothing. 'claimed' stays a value of the enum task_status, unused:
-- PostgreSQL cannot drop an enum value without rewriting the tasks table.
--
-- complete (through finish_owned, which complete_and_take shares), fail and
-- release each began with their own copy of the fence "the tasks among
-- these that this worker still owns, locked in id order" (I3 of migration
-- 005: a stale or zombie worker changes nothing and gives back no unit).
-- lock_owned is that fence, once.
--
-- CREATE OR REPLACE keeps a function's owner and grants but resets its
-- attributes to those it states, so each function below restates exactly
-- what migrations 006 (SET jit = off) and 008 (SECURITY DEFINER, SET
-- search_path = pg_catalog, pg_temp) gave it. Every statement may run
-- again on a schema that already has them (OR REPLACE throughout).

-- lock_owned locks the tasks among task_ids that the worker still owns
-- (running, by it) in id order — any two callers lock shared rows in the
-- same order, so they never deadlock — and returns their ids and the units
-- they hold, one element per unit. The caller changes those rows (still
-- locked, nobody else can) and passes the units on.
CREATE OR REPLACE FUNCTION {{schema}}.lock_owned(task_ids bigint[], worker_id text,
                                                 OUT ids bigint[], OUT unit_types text[], OUT unit_groups integer[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    -- = ANY: an id given twice is one task, locked and counted once.
    SELECT array_agg(o.id ORDER BY o.id),
           array_agg(o.type ORDER BY o.id) FILTER (WHERE o.slot_group IS NOT NULL),
           array_agg(o.slot_group ORDER BY o.id) FILTER (WHERE o.slot_group IS NOT NULL)
      INTO ids, unit_types, unit_groups
    FROM (
        SELECT t.id, t.type, t.slot_group FROM {{schema}}.tasks t
        WHERE t.id = ANY (task_ids) AND t.worker_id = lock_owned.worker_id AND t.status = 'running'
        ORDER BY t.id
        FOR UPDATE
    ) o;
END;
$$;
REVOKE ALL ON FUNCTION {{schema}}.lock_owned(bigint[], text) FROM PUBLIC;

-- finish_owned marks the tasks done that the worker still owns. It returns
-- how many, and the units they held (one element per unit) for the caller
-- to hand off, with the types' locks taken: complete and complete_and_take
-- differ only in who takes the units.
CREATE OR REPLACE FUNCTION {{schema}}.finish_owned(task_ids bigint[], worker_id text,
                                                   OUT n integer, OUT unit_types text[], OUT unit_groups integer[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    o record;
BEGIN
    -- 1. The fence: only the worker's own tasks, locked.
    o := {{schema}}.lock_owned(task_ids, finish_owned.worker_id);
    -- 2. They leave running; their units go to the caller.
    UPDATE {{schema}}.tasks t
    SET status = 'completed', completed_at = now(), updated_at = now(), slot_group = NULL
    WHERE t.id = ANY (o.ids);
    GET DIAGNOSTICS n = ROW_COUNT;
    unit_types := o.unit_types;
    unit_groups := o.unit_groups;
    -- 3. The types' locks (after the task rows: the locking order), for
    -- the hand-off.
    IF unit_types IS NOT NULL THEN
        PERFORM {{schema}}.lock_types(unit_types);
    END IF;
END;
$$;

-- fail records a failed attempt. The new status is returned: 'pending' with
-- run_at pushed back by the queue's backoff while retries remain,
-- 'dead_letter' after max_retries retries, 'failed' when retry is false
-- (for example no handler), or NULL when the worker no longer owns the task.
-- Its unit passes on; a retry of a limited type looks for a unit again once
-- due.
CREATE OR REPLACE FUNCTION {{schema}}.fail(task_id bigint, worker_id text, error text, retry boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    o         record;
    v_task    {{schema}}.tasks;
    v_queue   {{schema}}.queues;
    v_max     integer;
    v_status  {{schema}}.task_status;
    v_limited boolean;
BEGIN
    -- 1. The fence: only the worker's own task, locked.
    o := {{schema}}.lock_owned(ARRAY[fail.task_id], fail.worker_id);
    IF o.ids IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT * INTO v_task FROM {{schema}}.tasks t WHERE t.id = fail.task_id;
    SELECT * INTO v_queue FROM {{schema}}.queues q WHERE q.name = v_task.queue;
    SELECT coalesce(v_task.max_retries, tt.max_retries, v_queue.max_retries, 3), tt.concurrency IS NOT NULL
      INTO v_max, v_limited
    FROM (SELECT 1) one LEFT JOIN {{schema}}.task_types tt ON tt.name = v_task.type;

    -- 2. Retry, dead letter, or failed for good.
    IF NOT retry THEN
        v_status := 'failed';
    ELSIF v_task.attempts > v_max THEN
        v_status := 'dead_letter';
    ELSE
        v_status := 'pending';
    END IF;
    UPDATE {{schema}}.tasks t
    SET status = v_status, last_error = fail.error, worker_id = NULL, slot_group = NULL, updated_at = now(),
        run_at = CASE WHEN v_status = 'pending'
                      THEN now() + coalesce({{schema}}.backoff_delay(v_queue, v_task.attempts), interval '1 second')
                      ELSE t.run_at END,
        gate = CASE WHEN v_status = 'pending' AND coalesce(v_limited, false) THEN 'scheduled' ELSE 'open' END::{{schema}}.task_gate,
        completed_at = CASE WHEN v_status = 'pending' THEN NULL ELSE now() END
    WHERE t.id = v_task.id;

    -- 3. Its unit passes on (the type's lock after the task row).
    IF v_task.slot_group IS NOT NULL THEN
        PERFORM {{schema}}.lock_types(ARRAY[v_task.type]);
        PERFORM {{schema}}.hand_off(ARRAY[v_task.type], ARRAY[v_task.slot_group]);
    END IF;
    RETURN v_status::text;
END;
$$;

-- release hands in-flight tasks back unexecuted (graceful shutdown): back to
-- pending, the attempt not counted. A limited task rejoins its type's lane
-- and its unit passes on (usually straight back to it: it is due and keeps
-- its place in claim order). Returns how many.
CREATE OR REPLACE FUNCTION {{schema}}.release(task_ids bigint[], worker_id text) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    o       record;
    w_types text[];
    n       integer;
BEGIN
    -- 1. The fence: only the worker's own tasks, locked.
    o := {{schema}}.lock_owned(task_ids, release.worker_id);
    -- 2. Pending again; a task of a limited type waits in its lane.
    WITH back AS (
        UPDATE {{schema}}.tasks t
        SET status = 'pending', worker_id = NULL, slot_group = NULL, attempts = greatest(t.attempts - 1, 0),
            gate = CASE WHEN EXISTS (SELECT 1 FROM {{schema}}.task_types tt
                                     WHERE tt.name = t.type AND tt.concurrency IS NOT NULL)
                        THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate,
            claimed_at = NULL, started_at = NULL, updated_at = now()
        WHERE t.id = ANY (o.ids)
        RETURNING t.type, t.gate = 'waiting' AS limited
    )
    -- The types to requeue: limited ones, and any whose tasks held units
    -- (a limit removed while they ran).
    SELECT count(*)::integer,
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.type = ANY (coalesce(o.unit_types, '{}')))
      INTO n, w_types
    FROM back b;
    -- 3. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, o.unit_types, o.unit_groups);
    RETURN n;
END;
$$;

-- recover_dead_workers returns the tasks of workers whose heartbeat is older
-- than their queue's worker_timeout (or that no longer exist) to pending —
-- dead_letter when their retries are used up — and passes their units on in
-- the same transaction. Those workers are declared dead, so their heartbeat
-- says stop and their late complete/fail calls change nothing.
CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers() RETURNS jsonb
LANGUAGE plpgsql SET jit = off AS $$
#variable_conflict use_column
DECLARE
    r_types   text[];
    r_groups  integer[];
    w_types   text[];
    n_pending integer;
    n_dead    integer;
    n_workers integer;
BEGIN
    WITH victims AS (
        -- Every running task, by tasks_held, whose worker is gone or silent.
        SELECT t.id, t.slot_group, t.worker_id AS old_worker, tt.concurrency IS NOT NULL AS limited,
               t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.status = 'running'
          AND (w.id IS NULL OR w.dead_at IS NOT NULL
               OR w.last_heartbeat < now() - coalesce(q.worker_timeout, interval '30 seconds'))
        ORDER BY t.id
        FOR UPDATE OF t
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN v.exhausted THEN 'dead_letter' ELSE 'pending' END::{{schema}}.task_status,
            gate = CASE WHEN v.limited AND NOT v.exhausted THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate,
            completed_at = CASE WHEN v.exhausted THEN now() END,
            worker_id = NULL, slot_group = NULL, run_at = now(), updated_at = now(),
            last_error = format('worker %s stopped heartbeating; task recovered', v.old_worker)
        FROM victims v WHERE t.id = v.id
        RETURNING t.type, v.slot_group, v.exhausted, v.old_worker, v.limited
    ), dead AS (
        UPDATE {{schema}}.workers w SET dead_at = now()
        WHERE w.dead_at IS NULL
          AND (w.id IN (SELECT b.old_worker FROM back b)
               OR w.last_heartbeat < now() - (SELECT coalesce(max(q.worker_timeout), interval '30 seconds')
                                              FROM {{schema}}.queues q))
        RETURNING 1
    )
    SELECT count(*) FILTER (WHERE NOT b.exhausted)::integer,
           count(*) FILTER (WHERE b.exhausted)::integer,
           (SELECT count(*)::integer FROM dead),
           array_agg(b.type) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(b.slot_group) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.slot_group IS NOT NULL)
      INTO n_pending, n_dead, n_workers, r_types, r_groups, w_types
    FROM back b;
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers);
END;
$$;

-- run_maintenance does the leader's periodic duties: recover dead workers'
-- tasks, delete drained slot groups that are empty, purge finished tasks past
-- their queue's retention (at most 10,000 per call), forget workers dead for
-- a day. It holds the lease row's lock throughout, so it runs only while the
-- caller's lease is valid and no election can change hands meanwhile.
CREATE OR REPLACE FUNCTION {{schema}}.run_maintenance(worker_id text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp AS $$
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

    WITH gone AS (
        DELETE FROM {{schema}}.concurrency_slots s
        WHERE s.capacity = 0 AND s.used = 0
        RETURNING 1
    )
    SELECT count(*)::integer INTO n_slots FROM gone;

    WITH old AS (
        SELECT t.id FROM {{schema}}.tasks t JOIN {{schema}}.queues q ON q.name = t.queue
        WHERE (t.status = 'completed' AND t.completed_at < now() - q.retention_completed)
           OR (t.status IN ('failed', 'dead_letter') AND t.completed_at < now() - q.retention_dead_letter)
        LIMIT 10000
    ), purged AS (
        DELETE FROM {{schema}}.tasks t USING old WHERE t.id = old.id RETURNING 1
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
$$;

COMMENT ON TYPE {{schema}}.task_status IS
    'Task status. A worker holds a task while it is running; claimed is never written (schema version 9).';
