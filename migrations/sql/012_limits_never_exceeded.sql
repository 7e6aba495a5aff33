-- pgseq schema, version 12: limits are never exceeded and never stall, and
-- the runtime never deadlocks with itself or with pgseq apply. {{schema}} is
-- replaced by the quoted schema name.
--
-- What was wrong (each reproduced by a test that holds a transaction open in
-- a second connection; see migrations/races_test.go):
--   - An apply lowering a limit took the unit back from a task a claim was
--     taking at that moment: the task ran without a unit and its group was
--     deleted, so the type ran over its new limit (rebalance_units).
--   - An enqueue racing an apply that removed a limit kept a unit of a group
--     the apply deleted; once the limit came back, its give-back freed a unit
--     another task held. give_back hid it by clamping used at 0.
--   - A due task could wait beside a free unit, nothing running, until the
--     leader's repair: a completion's give-back and an enqueue (or an
--     enqueue's rollback) crossed, and claim never admitted waiting tasks.
--   - Deadlocks between runtime calls: an enqueue held slot rows while its
--     insert waited for an idempotency key a completion or the recovery had
--     locked, which then waited for those slot rows; claim and maintenance
--     took admission locks in two rounds each.
--   - Scheduled tasks sat in the lane index (tasks_waiting), which leads
--     with priority: every hand-off probe walked past them.
--   - complete_and_take read whether its worker was alive without a lock.
--   - The recovery wrote the dead worker's id into last_error, which claim
--     returns to any worker.
--
-- The locking order, everywhere a call waits (try-locks and SKIP LOCKED
-- never wait, so they may come in any order):
--
--   0. workers' rows: the recovery locks the silent workers FOR UPDATE,
--      complete_and_take its own worker FOR KEY SHARE;
--   1. task rows a call owns (FOR UPDATE, in id order);
--   2. the task types' locks (lock_types: shared for the runtime, all of
--      one call's types at once, in key order; exclusive for pgseq apply,
--      which never waits while it holds one);
--   3. the admission locks (lock_admission), all at once, in key order;
--   4. slot rows, in key order (give_back), or SKIP LOCKED (take_units).
--
-- Two callers take a type's lock before task rows, and neither can close a
-- cycle: pgseq apply, which then touches only pending task rows (a runtime
-- call that holds a task row and waits for a type's lock holds a running
-- task, or one it inserted, which apply never waits for); and enqueue,
-- whose insert can wait only for another transaction writing a task with
-- the same idempotency key (a committed one is returned before the insert,
-- so in practice another enqueue of that key, which waits for nothing).
-- Whatever a call decides from task_types (limited or not, the queue) it
-- reads after it holds the type's lock, so an apply either waits for the
-- call to commit or the call sees what the apply committed.
--
-- A limit removed (or its task type deleted) no longer deletes the groups
-- its running tasks hold: they drain at capacity 0 like the groups of a
-- lowered limit, and each holder gives its unit back to its own group when
-- it ends. A limit declared again upserts the groups and keeps `used`, so
-- tasks that still hold units count against it. No apply has to touch a
-- running task's row to keep the books exact, so give_back can refuse to
-- take back more than a group lent out.
--
-- I5 (no due task waits beside a free unit for long) no longer rests on the
-- leader alone: a claim that comes back short runs the admission repair
-- when nobody has in the last 200 ms (one claimer at a time, SKIP LOCKED on
-- a clock row), with try-locks only, so an idle worker's next poll admits
-- what a race left waiting; a full claim, in a backlog, never pays for it.

-- ---------------------------------------------------------------------------
-- The lane index holds due waiting tasks only

-- Scheduled tasks wait in tasks_scheduled (queue, run_at) until a claim on
-- their queue finds them due (admit_due) and moves them to the lane. Waiting
-- tasks are always due: every path that sets 'waiting' does so for a task
-- whose run_at has passed.
DROP INDEX {{schema}}.tasks_waiting;
CREATE INDEX tasks_waiting ON {{schema}}.tasks (type, priority DESC, run_at, id)
    WHERE status = 'pending' AND gate = 'waiting';

-- runtime_clock holds the runtime's own clocks, one row: when the admission
-- repair last ran (claims run it at most every 200 ms, repair_if_due).
CREATE TABLE IF NOT EXISTS {{schema}}.runtime_clock (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    repaired_at timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO {{schema}}.runtime_clock DEFAULT VALUES ON CONFLICT DO NOTHING;

-- ---------------------------------------------------------------------------
-- Type locks

-- lock_types takes the advisory locks of task types, shared (the runtime)
-- or exclusive (pgseq apply, which also takes the keys of versions before
-- 10). Shared: all at once, in key order, waiting for them, as before.
-- Exclusive: never waiting while it holds one of them. It tries every key;
-- if one is held, it lets go of those it took (a subtransaction rolled
-- back), waits for that one alone, and tries the others again. A runtime
-- transaction that holds one type's lock while it waits for another's (an
-- application enqueueing tasks of two types in one transaction) can then
-- never be in a cycle with an apply; the wait for a busy key keeps the
-- apply's place in that key's queue, and lock_timeout bounds it.
CREATE OR REPLACE FUNCTION {{schema}}.lock_types(types text[], exclusive boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_keys integer[];
    v_busy integer;
    k      integer;
BEGIN
    IF NOT exclusive THEN
        PERFORM count(pg_advisory_xact_lock_shared(1885827953, x.k)::text)
        FROM (SELECT DISTINCT {{schema}}.slot_lock_key(u.t) AS k FROM unnest(types) AS u(t) ORDER BY 1) x;
        RETURN;
    END IF;
    SELECT array_agg(DISTINCT v.k ORDER BY v.k) INTO v_keys
    FROM unnest(types) AS u(t),
         LATERAL (VALUES ({{schema}}.slot_lock_key(u.t)), (hashtext(u.t))) AS v(k);
    IF v_keys IS NULL THEN
        RETURN;
    END IF;
    LOOP
        BEGIN
            IF v_busy IS NOT NULL THEN
                PERFORM pg_advisory_xact_lock(1885827953, v_busy);
            END IF;
            v_busy := NULL;
            FOREACH k IN ARRAY v_keys LOOP
                IF NOT pg_try_advisory_xact_lock(1885827953, k) THEN
                    v_busy := k;
                    -- Internal: rolls the block back, releasing its locks.
                    RAISE EXCEPTION 'task type lock % is held', k USING ERRCODE = 'PS031';
                END IF;
            END LOOP;
            RETURN; -- every key held: the block's locks pass to the transaction
        EXCEPTION WHEN SQLSTATE 'PS031' THEN
            NULL;   -- released: wait for v_busy, holding none of them
        END;
    END LOOP;
END;
$$;

-- ---------------------------------------------------------------------------
-- Units

-- give_back returns units to their groups, one element per unit: the part of
-- a hand-off nobody was waiting for. A group asked to take back more units
-- than it lent out means a unit was given back twice (I3): that is refused,
-- never clamped. A group that no longer exists (deleted by hand, outside
-- pgseq) takes nothing back.
CREATE OR REPLACE FUNCTION {{schema}}.give_back(types text[], groups integer[]) RETURNS void
LANGUAGE plpgsql
-- The rows are updated in the order of the sorted groups (one primary-key
-- probe each: no hash or merge join may reorder them), the deadlock-free
-- order, in one pass.
SET enable_hashjoin = off SET enable_mergejoin = off
AS $$
DECLARE
    v_bad text;
BEGIN
    SELECT format('%s group %s (%s given back, %s lent out)', s.task_type, s.slot_group, x.n, s.used)
      INTO v_bad
    FROM (SELECT u.t, u.g, count(*)::integer AS n FROM unnest(types, groups) AS u(t, g) GROUP BY u.t, u.g) x
    JOIN {{schema}}.concurrency_slots s ON s.task_type = x.t AND s.slot_group = x.g
    WHERE s.used < x.n
    ORDER BY x.t, x.g
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        RAISE EXCEPTION 'a slot unit was given back twice: %', v_bad
            USING ERRCODE = 'PS030',
                  HINT = 'This is a pgseq bug (invariant I3): please report it with the output of pgseq status.';
    END IF;
    -- (The CHECK (used >= 0) of concurrency_slots refuses what a concurrent
    -- give-back makes of the row between the check above and this update.)
    UPDATE {{schema}}.concurrency_slots s
    SET used = s.used - x.n
    FROM (SELECT u.t, u.g, count(*)::integer AS n FROM unnest(types, groups) AS u(t, g)
          GROUP BY u.t, u.g ORDER BY u.t, u.g) x
    WHERE s.task_type = x.t AND s.slot_group = x.g;
END;
$$;

-- admit_waiting gives a type's free units to its due waiting tasks, in claim
-- order, and returns how many it admitted. The caller holds the type's lock
-- and its admission lock (admit_types, try_admit_types, hand_off). Used where
-- units become free without a holder finishing: a raised limit, the end of a
-- drain, scheduled tasks coming due, the admission repair (I5).
CREATE OR REPLACE FUNCTION {{schema}}.admit_waiting(task_type text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_type   text := admit_waiting.task_type;
    v_free   integer;
    v_units  integer[];
    v_ids    bigint[];
BEGIN
    IF {{schema}}.type_draining(v_type) THEN
        RETURN 0;
    END IF;
    SELECT coalesce(sum(s.capacity - s.used), 0)::integer INTO v_free
    FROM {{schema}}.concurrency_slots s
    WHERE s.task_type = v_type AND s.used < s.capacity;
    IF v_free = 0 THEN
        RETURN 0;
    END IF;

    -- 1. The tasks to admit: the first of the lane, locked.
    SELECT array_agg(w.id ORDER BY w.priority DESC, w.run_at, w.id) INTO v_ids
    FROM (
        SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
        WHERE t.type = v_type AND t.status = 'pending' AND t.gate = 'waiting'
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT v_free
        FOR UPDATE SKIP LOCKED
    ) w;
    IF v_ids IS NULL THEN
        RETURN 0;
    END IF;

    -- 2. As many units, then the k-th task gets the k-th unit; tasks left
    -- without one (groups locked by others) go on waiting.
    v_units := {{schema}}.take_units(v_type, cardinality(v_ids));
    UPDATE {{schema}}.tasks t
    SET gate = 'open', slot_group = u.grp, updated_at = now()
    FROM unnest(v_ids[1:cardinality(v_units)], v_units) AS u(id, grp)
    WHERE t.id = u.id;
    RETURN cardinality(v_units);
END;
$$;

-- try_admit_types admits the waiting tasks of those of the types whose
-- admission lock is free right now (taken exclusive, never waited for), and
-- returns how many. For callers that hold task rows and must not wait: the
-- claim and the admission repair. A type it skips is being admitted or
-- handed off by someone else, who offers its units to the lane. The caller
-- holds the types' locks.
CREATE OR REPLACE FUNCTION {{schema}}.try_admit_types(types text[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_type text;
    n      integer := 0;
BEGIN
    FOR v_type IN SELECT DISTINCT u.t FROM unnest(types) AS u(t) ORDER BY 1 LOOP
        IF pg_try_advisory_xact_lock(1885827954, {{schema}}.slot_lock_key(v_type)) THEN
            n := n + {{schema}}.admit_waiting(v_type);
        END IF;
    END LOOP;
    RETURN n;
END;
$$;

-- admit_due moves a queue's scheduled limited tasks that are now due to
-- their lanes, at most max_tasks, and admits them where units are free. It
-- never waits: the tasks are taken SKIP LOCKED and the types' locks and
-- admission locks are tried; a type it cannot lock keeps its due tasks
-- waiting in the lane for the next hand-off or repair.
CREATE OR REPLACE FUNCTION {{schema}}.admit_due(queue text, max_tasks integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_types text[];
BEGIN
    WITH due AS (
        SELECT t.id FROM {{schema}}.tasks t
        WHERE t.queue = admit_due.queue AND t.status = 'pending' AND t.gate = 'scheduled' AND t.run_at <= now()
        ORDER BY t.run_at
        LIMIT max_tasks
        FOR UPDATE SKIP LOCKED
    ), joined AS (
        UPDATE {{schema}}.tasks t SET gate = 'waiting', updated_at = now()
        FROM due WHERE t.id = due.id
        RETURNING t.type
    )
    SELECT array_agg(DISTINCT j.type) INTO v_types
    FROM joined j WHERE {{schema}}.try_lock_type(j.type);
    PERFORM {{schema}}.try_admit_types(v_types);
END;
$$;

-- repair_admission admits the due waiting tasks of every limited type that
-- has a free unit (I5): what a completion and an enqueue that crossed left
-- behind. It finds the lanes by a loose index scan of tasks_waiting (one
-- probe per type with waiting tasks) and never waits for a lock: a type that
-- an apply, an admission or a hand-off holds is left to them.
CREATE OR REPLACE FUNCTION {{schema}}.repair_admission() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_types text[];
BEGIN
    WITH RECURSIVE lanes AS (
        (SELECT t.type FROM {{schema}}.tasks t
         WHERE t.status = 'pending' AND t.gate = 'waiting' ORDER BY t.type LIMIT 1)
        UNION ALL
        SELECT (SELECT t.type FROM {{schema}}.tasks t
                WHERE t.status = 'pending' AND t.gate = 'waiting' AND t.type > l.type
                ORDER BY t.type LIMIT 1)
        FROM lanes l WHERE l.type IS NOT NULL
    )
    SELECT array_agg(l.type) INTO v_types
    FROM lanes l
    JOIN {{schema}}.task_types tt ON tt.name = l.type AND tt.concurrency IS NOT NULL AND NOT tt.draining
    WHERE EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                  WHERE s.task_type = l.type AND s.used < s.capacity)
      AND {{schema}}.try_lock_type(l.type);
    RETURN {{schema}}.try_admit_types(v_types);
END;
$$;

-- repair_if_due runs the admission repair when nobody has in the last
-- 200 ms, and returns how many tasks it admitted. Short claims call it, so
-- a task a race left waiting beside a free unit is admitted at the next
-- poll of any idle worker, leader or not. One caller at a time: the others
-- skip the clock row it holds.
CREATE OR REPLACE FUNCTION {{schema}}.repair_if_due() RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    -- A read first: most calls stop here without locking anything.
    PERFORM 1 FROM {{schema}}.runtime_clock c
    WHERE c.singleton AND c.repaired_at < clock_timestamp() - interval '200 milliseconds';
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    UPDATE {{schema}}.runtime_clock c SET repaired_at = clock_timestamp()
    FROM (SELECT k.singleton FROM {{schema}}.runtime_clock k
          WHERE k.singleton AND k.repaired_at < clock_timestamp() - interval '200 milliseconds'
          FOR UPDATE SKIP LOCKED) mine
    WHERE c.singleton = mine.singleton;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    RETURN {{schema}}.repair_admission();
END;
$$;

-- offer_units passes units released by finished holders to the first due
-- waiting tasks of their types (see migration 005); unchanged but for the
-- lane, which now holds due waiting tasks only.
CREATE OR REPLACE FUNCTION {{schema}}.offer_units(types text[], groups integer[], taker text DEFAULT NULL, max_take integer DEFAULT NULL,
                                       OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[],
                                       OUT opened integer)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET jit = off
AS $$
DECLARE
    v_passed text[];  -- type:k of the units passed on
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    WITH released AS (
        -- The units, numbered per type.
        SELECT r.type, r.grp, row_number() OVER (PARTITION BY r.type ORDER BY r.grp) AS k
        FROM unnest(types, groups) AS r(type, grp)
    ), per_type AS (
        SELECT r.type, count(*) AS n FROM released r GROUP BY r.type
    ), next AS (
        -- The first tasks of each type's lane, as many as it released;
        -- the taker takes the first max_take of them in claim order.
        SELECT w.id, w.type,
               row_number() OVER (PARTITION BY w.type ORDER BY w.priority DESC, w.run_at, w.id) AS k,
               taker IS NOT NULL AND (max_take IS NULL OR
                   row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) <= max_take) AS take
        FROM per_type p, LATERAL (
            SELECT t.id, t.type, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = p.type AND t.status = 'pending' AND t.gate = 'waiting'
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT p.n
            FOR UPDATE SKIP LOCKED
        ) w
    ), passed AS (
        -- The k-th task of a type takes the k-th unit: running for the
        -- taker, or open for any claimer.
        UPDATE {{schema}}.tasks t
        SET gate = 'open', slot_group = r.grp, updated_at = now(),
            status = CASE WHEN n.take THEN 'running' ELSE t.status END::{{schema}}.task_status,
            worker_id = CASE WHEN n.take THEN taker END,
            attempts = t.attempts + CASE WHEN n.take THEN 1 ELSE 0 END,
            claimed_at = CASE WHEN n.take THEN now() END,
            started_at = CASE WHEN n.take THEN now() END
        FROM next n JOIN released r ON r.type = n.type AND r.k = n.k
        WHERE t.id = n.id
        RETURNING t.id, n.type, n.k, n.take, t.payload, t.attempts, t.priority, t.run_at
    )
    SELECT array_agg(ROW(p.id, p.type, p.payload, p.attempts)::{{schema}}.taken_task
                     ORDER BY p.priority DESC, p.run_at, p.id) FILTER (WHERE p.take),
           count(*) FILTER (WHERE NOT p.take)::integer,
           array_agg(p.type || ':' || p.k) FILTER (WHERE true)
      INTO taken, opened, v_passed
    FROM passed p;

    -- The units nobody was waiting for (none, in a backlog).
    IF coalesce(cardinality(v_passed), 0) < cardinality(types) THEN
        SELECT array_agg(r.type ORDER BY r.type, r.k), array_agg(r.grp ORDER BY r.type, r.k)
          INTO left_types, left_groups
        FROM (SELECT u.type, u.grp, row_number() OVER (PARTITION BY u.type ORDER BY u.grp) AS k
              FROM unnest(types, groups) AS u(type, grp)) r
        WHERE NOT ((r.type || ':' || r.k) = ANY (coalesce(v_passed, '{}')));
    END IF;
END;
$$;

-- hand_off passes finished holders' units on (see migration 005). The
-- caller holds the types' locks. Unchanged but for the lane probe of step
-- 2, which reads due waiting tasks only.
CREATE OR REPLACE FUNCTION {{schema}}.hand_off(types text[], groups integer[], taker text DEFAULT NULL, max_take integer DEFAULT NULL,
                                    OUT taken {{schema}}.taken_task[])
LANGUAGE plpgsql AS $$
DECLARE
    v_draining text[];
    v_retry    text[];
    o_types    text[];
    o_groups   integer[];
    b_types    text[];
    b_groups   integer[];
    v_taken    {{schema}}.taken_task[];
    v_opened   integer;
    v_more     integer;
    v_type     text;
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    -- 1. Units of draining types go back; the others are offered.
    SELECT array_agg(tt.name) INTO v_draining
    FROM {{schema}}.task_types tt
    WHERE tt.name = ANY (types) AND tt.draining;
    IF v_draining IS NULL THEN
        o_types := types;
        o_groups := groups;
    ELSE
        SELECT array_agg(u.t) FILTER (WHERE u.t = ANY (v_draining)),
               array_agg(u.g) FILTER (WHERE u.t = ANY (v_draining)),
               array_agg(u.t) FILTER (WHERE NOT (u.t = ANY (v_draining))),
               array_agg(u.g) FILTER (WHERE NOT (u.t = ANY (v_draining)))
          INTO b_types, b_groups, o_types, o_groups
        FROM unnest(types, groups) AS u(t, g);
    END IF;
    SELECT * INTO o_types, o_groups, taken, v_opened FROM {{schema}}.offer_units(o_types, o_groups, taker, max_take);

    -- 2. Units nobody took: before they go back, wait for any admission of
    -- their types in flight (it holds the admission lock until it commits,
    -- and may have left tasks waiting that the offer above did not see),
    -- then offer again to the types whose lanes now show tasks (I5).
    -- Admission locks are taken once, in key order, for every type that may
    -- need one here: never one by one. Exclusive when a drain may end (step
    -- 3 admits), else shared.
    IF o_types IS NOT NULL OR v_draining IS NOT NULL THEN
        PERFORM {{schema}}.lock_admission(coalesce(o_types, '{}') || coalesce(v_draining, '{}'), v_draining IS NOT NULL);
    END IF;
    IF o_types IS NOT NULL THEN
        SELECT array_agg(DISTINCT u.t) INTO v_retry
        FROM unnest(o_types) AS u(t)
        WHERE EXISTS (SELECT 1 FROM {{schema}}.tasks t
                      WHERE t.type = u.t AND t.status = 'pending' AND t.gate = 'waiting');
    END IF;
    IF v_retry IS NOT NULL THEN
        SELECT * INTO o_types, o_groups, v_taken, v_more
        FROM {{schema}}.offer_units(o_types, o_groups, taker, max_take - coalesce(cardinality(taken), 0));
        taken := coalesce(taken, '{}') || coalesce(v_taken, '{}');
        v_opened := coalesce(v_opened, 0) + coalesce(v_more, 0);
    END IF;
    -- Tasks opened for any claimer: wake idle workers, which LISTEN on
    -- pgseq_tasks (payload: the schema; schema names need no quotes, so the
    -- literal below is the quoted identifier itself).
    IF coalesce(v_opened, 0) > 0 THEN
        PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
    END IF;
    IF b_types IS NOT NULL OR o_types IS NOT NULL THEN
        PERFORM {{schema}}.give_back(coalesce(b_types, '{}') || coalesce(o_types, '{}'),
                                     coalesce(b_groups, '{}') || coalesce(o_groups, '{}'));
    END IF;

    -- 3. A type whose drain just ended admits again: its free units go to its lane.
    IF v_draining IS NOT NULL THEN
        FOREACH v_type IN ARRAY coalesce({{schema}}.end_drain(v_draining), '{}') LOOP
            PERFORM {{schema}}.admit_waiting(v_type);
        END LOOP;
    END IF;
END;
$$;

-- rebalance_units brings the units of types whose slot groups pgseq apply
-- changed in line with the new capacities. pgseq apply holds the types'
-- locks exclusive.
CREATE OR REPLACE FUNCTION {{schema}}.rebalance_units(types text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    -- 1. Over-capacity groups take units back from holders that are pending
    -- and open, locked SKIP LOCKED: a holder a claim is taking right now
    -- keeps its unit (it is running once that claim commits), and its group
    -- stays over capacity, draining, until it ends. A type left with no
    -- capacity (its limit removed, or the type deleted) opens the tasks it
    -- takes units from; a limited one sends them to its lane.
    WITH over AS (
        SELECT s.task_type, s.slot_group, s.used - s.capacity AS excess
        FROM {{schema}}.concurrency_slots s
        WHERE s.task_type = ANY (types) AND s.used > s.capacity
    ), candidates AS (
        SELECT t.id, t.type, t.slot_group, t.priority, t.run_at
        FROM over o
        JOIN {{schema}}.tasks t ON t.type = o.task_type AND t.slot_group = o.slot_group
             AND t.status = 'pending' AND t.gate = 'open'
        FOR UPDATE OF t SKIP LOCKED
    ), holders AS (
        SELECT c.id, c.type, c.slot_group, c.run_at,
               EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                       WHERE s.task_type = c.type AND s.capacity > 0) AS limited,
               row_number() OVER (PARTITION BY c.type, c.slot_group
                                  ORDER BY c.priority, c.run_at DESC, c.id DESC) AS k,
               o.excess
        FROM candidates c JOIN over o ON o.task_type = c.type AND o.slot_group = c.slot_group
    ), revoked AS (
        UPDATE {{schema}}.tasks t
        SET gate = CASE WHEN NOT h.limited THEN 'open'
                        WHEN t.run_at <= now() THEN 'waiting'
                        ELSE 'scheduled' END::{{schema}}.task_gate,
            slot_group = NULL, updated_at = now()
        FROM holders h
        WHERE t.id = h.id AND h.k <= h.excess
        RETURNING h.type, h.slot_group
    )
    UPDATE {{schema}}.concurrency_slots s
    SET used = s.used - x.n
    FROM (SELECT r.type, r.slot_group, count(*)::integer AS n FROM revoked r GROUP BY 1, 2) x
    WHERE s.task_type = x.type AND s.slot_group = x.slot_group;

    -- 2. Groups outside the layout (capacity 0) that nobody holds any more
    -- go; a type with groups still over capacity (held by running tasks)
    -- drains, the others admit.
    DELETE FROM {{schema}}.concurrency_slots s
    WHERE s.task_type = ANY (types) AND s.capacity = 0 AND s.used = 0;
    UPDATE {{schema}}.task_types tt
    SET draining = EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                           WHERE s.task_type = tt.name AND s.used > s.capacity)
    WHERE tt.name = ANY (types);

    -- 3. Free units to the lanes.
    PERFORM {{schema}}.admit_types(types);
END;
$$;

-- ---------------------------------------------------------------------------
-- Entry points (SECURITY DEFINER, fixed search_path: see migration 008)

-- enqueue: the type's lock first (shared), then everything read from
-- task_types, so the task follows the type as an apply left it (its queue,
-- limited or not). With an idempotency key, a task already holding the key
-- is returned before anything is locked or inserted; a new keyed task is
-- inserted before it takes a unit, so the insert (which may wait for
-- another transaction's key) never waits while holding a slot row.
CREATE OR REPLACE FUNCTION {{schema}}.enqueue(type text, payload jsonb DEFAULT NULL, idempotency_key text DEFAULT NULL,
                                   priority integer DEFAULT NULL, run_at timestamptz DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_type  text := enqueue.type;
    v_key   text := enqueue.idempotency_key;
    v_at    timestamptz := coalesce(enqueue.run_at, now());
    v_queue text;
    v_prio  integer;
    v_lim   boolean;
    v_unit  integer;
    v_gate  {{schema}}.task_gate := 'open';
    v_id    bigint;
BEGIN
    -- 1. The type's lock (lock_types' key, shared), then the type.
    PERFORM pg_advisory_xact_lock_shared(1885827953, {{schema}}.slot_lock_key(v_type));
    SELECT t.queue, coalesce(enqueue.priority, t.priority), t.concurrency IS NOT NULL
      INTO v_queue, v_prio, v_lim
      FROM {{schema}}.task_types t WHERE t.name = v_type;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_type
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;
    IF v_lim THEN
        v_gate := CASE WHEN v_at > now() THEN 'scheduled' ELSE 'waiting' END;
    END IF;

    -- 2. A key already used: its task.
    IF v_key IS NOT NULL THEN
        SELECT t.id INTO v_id FROM {{schema}}.tasks t WHERE t.type = v_type AND t.idempotency_key = v_key;
        IF v_id IS NOT NULL THEN
            RETURN v_id;
        END IF;
    END IF;

    -- 3. Without a key the insert never waits: the unit first, and the task
    -- is inserted holding it.
    IF v_gate = 'waiting' AND v_key IS NULL THEN
        v_unit := ({{schema}}.take_units(v_type, 1))[1];
        IF v_unit IS NOT NULL THEN
            v_gate := 'open';
        END IF;
    END IF;
    LOOP
        INSERT INTO {{schema}}.tasks AS t (queue, type, payload, priority, idempotency_key, run_at, gate, slot_group)
        VALUES (v_queue, v_type, enqueue.payload, v_prio, v_key, v_at, v_gate, v_unit)
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id INTO v_id;
        EXIT WHEN v_id IS NOT NULL OR v_key IS NULL;
        -- The key was taken by a transaction that committed since step 2:
        -- return its task (the ON CONFLICT above waited for it).
        SELECT t.id INTO v_id FROM {{schema}}.tasks t WHERE t.type = v_type AND t.idempotency_key = v_key;
        IF v_id IS NOT NULL THEN
            RETURN v_id;
        END IF;
        -- The holder was deleted between the two statements: try again.
    END LOOP;

    -- 4. A new keyed task that waits takes a unit now that it is inserted.
    IF v_gate = 'waiting' AND v_key IS NOT NULL THEN
        v_unit := ({{schema}}.take_units(v_type, 1))[1];
        IF v_unit IS NOT NULL THEN
            UPDATE {{schema}}.tasks t SET gate = 'open', slot_group = v_unit WHERE t.id = v_id;
        END IF;
    END IF;
    RETURN v_id;
END;
$$;

-- enqueue_batch: as enqueue, for many tasks in one call. The types' locks
-- first, all at once in key order; units for the rows without a key before
-- the insert (their insert never waits), units for new keyed rows after it.
-- Keyed rows are inserted in (type, key) order, bytewise (COLLATE "C", an
-- order any client can reproduce), so two batches that share keys wait for
-- each other in one order, never in a cycle. Every array must
-- be one-dimensional and start at index 1 (the rows are matched by index).
CREATE OR REPLACE FUNCTION {{schema}}.enqueue_batch(types text[], payloads jsonb[] DEFAULT NULL, idempotency_keys text[] DEFAULT NULL,
                                         priorities integer[] DEFAULT NULL, run_ats timestamptz[] DEFAULT NULL)
RETURNS SETOF bigint
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    n         integer := coalesce(cardinality(types), 0);
    v_unknown text;
    v_ids     bigint[];
    v_type    text;
    v_want    integer;
    v_wait    bigint[];
    u_types   text[] := '{}';
    u_groups  integer[] := '{}';
    v_got     integer[];
BEGIN
    -- 0. The arrays: one row per index 1..n.
    IF (array_ndims(types) > 1 OR array_lower(types, 1) <> 1)
       OR (array_ndims(payloads) > 1 OR array_lower(payloads, 1) <> 1)
       OR (array_ndims(idempotency_keys) > 1 OR array_lower(idempotency_keys, 1) <> 1)
       OR (array_ndims(priorities) > 1 OR array_lower(priorities, 1) <> 1)
       OR (array_ndims(run_ats) > 1 OR array_lower(run_ats, 1) <> 1) THEN
        RAISE EXCEPTION 'enqueue_batch: every array must be one-dimensional and start at index 1'
            USING ERRCODE = '22023', HINT = 'Pass plain arrays such as ARRAY[''a'', ''b''].';
    END IF;
    IF (payloads IS NOT NULL AND cardinality(payloads) <> n)
       OR (idempotency_keys IS NOT NULL AND cardinality(idempotency_keys) <> n)
       OR (priorities IS NOT NULL AND cardinality(priorities) <> n)
       OR (run_ats IS NOT NULL AND cardinality(run_ats) <> n) THEN
        RAISE EXCEPTION 'enqueue_batch: every array must have as many elements as types (%)', n
            USING ERRCODE = '22023';
    END IF;

    -- 1. The types' locks, then the types.
    PERFORM {{schema}}.lock_types(types);
    SELECT u.type INTO v_unknown
    FROM unnest(types) AS u(type)
    WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.task_types t WHERE t.name = u.type)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_unknown
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;

    -- 2. Units for the due rows of limited types that have no key, per type.
    FOR v_type, v_want IN
        SELECT u.type, count(*)::integer
        FROM unnest(types, run_ats, idempotency_keys) AS u(type, at, key)
        JOIN {{schema}}.task_types t ON t.name = u.type AND t.concurrency IS NOT NULL
        WHERE coalesce(u.at, now()) <= now() AND u.key IS NULL
        GROUP BY u.type ORDER BY u.type
    LOOP
        v_got := {{schema}}.take_units(v_type, v_want);
        u_types := u_types || array_fill(v_type, ARRAY[cardinality(v_got)]);
        u_groups := u_groups || v_got;
    END LOOP;

    -- 3. Insert, the k-th keyless due task of a type with the k-th unit of
    -- that type. Ids are drawn up front, in input order, so each input row
    -- knows its own and claim order among equal due times follows the
    -- input; rows that hit an idempotency conflict leave their id unused.
    WITH input AS (
        SELECT x.*, nextval('{{schema}}.tasks_id_seq') AS new_id
        FROM (
            SELECT i.ord, i.type, payloads[i.ord] AS payload, idempotency_keys[i.ord] AS key,
                   coalesce(priorities[i.ord], t.priority) AS priority,
                   coalesce(run_ats[i.ord], now()) AS run_at,
                   t.queue, t.concurrency IS NOT NULL AS limited
            FROM unnest(types) WITH ORDINALITY AS i(type, ord)
            JOIN {{schema}}.task_types t ON t.name = i.type
            ORDER BY i.ord
        ) x
    ), ranked AS (
        SELECT i.*, CASE WHEN i.limited AND i.run_at <= now() AND i.key IS NULL
                         THEN row_number() OVER (PARTITION BY i.type, i.limited AND i.run_at <= now() AND i.key IS NULL
                                                 ORDER BY i.ord)
                    END AS k
        FROM input i
    ), units AS (
        SELECT u.type, u.grp, row_number() OVER (PARTITION BY u.type ORDER BY u.ord) AS k
        FROM unnest(u_types, u_groups) WITH ORDINALITY AS u(type, grp, ord)
    ), rows AS (
        SELECT r.*, u.grp,
               CASE WHEN NOT r.limited OR u.grp IS NOT NULL THEN 'open'
                    WHEN r.run_at <= now() THEN 'waiting'
                    ELSE 'scheduled' END::{{schema}}.task_gate AS gate
        FROM ranked r LEFT JOIN units u ON u.type = r.type AND u.k = r.k
    ), inserted AS (
        INSERT INTO {{schema}}.tasks AS t (id, queue, type, payload, priority, idempotency_key, run_at, gate, slot_group)
        OVERRIDING SYSTEM VALUE
        SELECT new_id, queue, type, payload, priority, key, run_at, gate, grp FROM rows
        ORDER BY key IS NULL, type COLLATE "C", key COLLATE "C", ord
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id, t.type, t.idempotency_key, t.gate
    ), ids AS (
        SELECT array_agg(coalesce(mine.id, same_batch.id, earlier.id) ORDER BY rows.ord) AS ids,
               array_agg(mine.id) FILTER (WHERE mine.gate = 'waiting' AND rows.key IS NOT NULL) AS keyed_waiting
        FROM rows
        LEFT JOIN inserted mine ON mine.id = rows.new_id
        LEFT JOIN inserted same_batch ON rows.key IS NOT NULL
             AND same_batch.type = rows.type AND same_batch.idempotency_key = rows.key
        LEFT JOIN {{schema}}.tasks earlier ON rows.key IS NOT NULL
             AND earlier.type = rows.type AND earlier.idempotency_key = rows.key
    )
    SELECT ids.ids, ids.keyed_waiting INTO v_ids, v_wait FROM ids;

    -- 4. New keyed tasks that wait take units now that they are inserted,
    -- per type in claim order.
    IF v_wait IS NOT NULL THEN
        FOR v_type, v_want IN
            SELECT t.type, count(*)::integer FROM {{schema}}.tasks t
            WHERE t.id = ANY (v_wait) GROUP BY t.type ORDER BY t.type
        LOOP
            v_got := {{schema}}.take_units(v_type, v_want);
            UPDATE {{schema}}.tasks t
            SET gate = 'open', slot_group = u.grp
            FROM (SELECT w.id, row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) AS k
                  FROM {{schema}}.tasks w WHERE w.id = ANY (v_wait) AND w.type = v_type) w
            JOIN unnest(v_got) WITH ORDINALITY AS u(grp, k) ON u.k = w.k
            WHERE t.id = w.id;
        END LOOP;
    END IF;

    -- A key taken by a transaction that committed while this statement ran
    -- is not in its snapshot: look those up again.
    IF array_position(v_ids, NULL) IS NOT NULL THEN
        SELECT array_agg(coalesce(u.id, e.id) ORDER BY u.ord) INTO v_ids
        FROM unnest(v_ids, types, idempotency_keys) WITH ORDINALITY AS u(id, type, key, ord)
        LEFT JOIN {{schema}}.tasks e ON u.id IS NULL AND e.type = u.type AND e.idempotency_key = u.key;
    END IF;
    RETURN QUERY SELECT unnest(v_ids);
END;
$$;

-- claim_open moves up to n due open tasks of a queue, in claim order, to
-- running for worker, with at most max_limited unit holders among them
-- (NULL: no bound): the one index scan every claim is (migration 005).
CREATE OR REPLACE FUNCTION {{schema}}.claim_open(queue text, worker_id text, n integer, max_limited integer)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    IF max_limited IS NULL THEN
        RETURN QUERY
        WITH picked AS (
            SELECT t.id FROM {{schema}}.tasks t
            WHERE t.queue = claim_open.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT n
            FOR UPDATE SKIP LOCKED
        )
        UPDATE {{schema}}.tasks t
        SET status = 'running', worker_id = claim_open.worker_id, attempts = t.attempts + 1,
            claimed_at = now(), started_at = now(), updated_at = now()
        FROM picked WHERE t.id = picked.id
        RETURNING t.*;
        RETURN;
    END IF;
    -- The same with at most max_limited unit holders among them: candidates
    -- beyond it stay open (locked only until this transaction ends).
    RETURN QUERY
    WITH candidates AS (
        SELECT t.id, t.slot_group, t.priority, t.run_at FROM {{schema}}.tasks t
        WHERE t.queue = claim_open.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT n
        FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT c.id FROM (
            SELECT c.id, c.slot_group,
                   count(c.slot_group) OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS holders
            FROM candidates c
        ) c
        WHERE c.slot_group IS NULL OR c.holders <= max_limited
    )
    UPDATE {{schema}}.tasks t
    SET status = 'running', worker_id = claim_open.worker_id, attempts = t.attempts + 1,
        claimed_at = now(), started_at = now(), updated_at = now()
    FROM picked WHERE t.id = picked.id
    RETURNING t.*;
END;
$$;

-- claim: as in migration 005, and a claim that comes back short (the
-- worker has time to spare) runs the admission repair when it is due and
-- claims what it admitted. A full claim, in a backlog, never pays for it.
CREATE OR REPLACE FUNCTION {{schema}}.claim(queue text, worker_id text, batch integer, max_limited integer DEFAULT NULL)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_queue   text := claim.queue;
    v_worker  text := claim.worker_id;
    v_batch   integer := claim.batch;
    v_max     integer := claim.max_limited;
    v_got     integer;
BEGIN
    IF v_batch IS NULL OR v_batch < 1 THEN
        RAISE EXCEPTION 'claim: batch must be at least 1, got %', v_batch USING ERRCODE = '22023';
    END IF;
    PERFORM 1 FROM {{schema}}.workers w WHERE w.id = v_worker AND w.dead_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker "%" is not registered or was declared dead', v_worker
            USING ERRCODE = 'PS002', HINT = 'Call register_worker first; a worker declared dead must register under a new id.';
    END IF;

    -- 1. Scheduled limited tasks now due look for a unit (an index probe when
    -- there are none).
    PERFORM 1 FROM {{schema}}.tasks t
    WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'scheduled' AND t.run_at <= now()
    LIMIT 1;
    IF FOUND THEN
        PERFORM {{schema}}.admit_due(v_queue, v_batch);
    END IF;

    -- 2. One index scan over the open tasks, locked SKIP LOCKED.
    RETURN QUERY SELECT * FROM {{schema}}.claim_open(v_queue, v_worker, v_batch, v_max);
    GET DIAGNOSTICS v_got = ROW_COUNT;

    -- 3. A short claim repairs admission when it is due (at most every
    -- 200 ms, one claimer at a time) and claims what that admitted. Its
    -- first part may have taken as many unit holders as tasks: the bound
    -- on holders shrinks by that much.
    IF v_got < v_batch AND {{schema}}.repair_if_due() > 0 THEN
        RETURN QUERY SELECT * FROM {{schema}}.claim_open(v_queue, v_worker, v_batch - v_got,
                                                         CASE WHEN v_max IS NOT NULL THEN greatest(v_max - v_got, 0) END);
    END IF;
END;
$$;

-- complete_and_take: as in migration 005, but the worker's row is read
-- FOR KEY SHARE first, before its tasks: a recovery declaring the worker dead
-- locks the row FOR UPDATE before it looks at the worker's tasks, so either
-- it committed first (this worker takes nothing) or it waits for this call
-- and then finds, and recovers, the tasks handed to the worker here too.
CREATE OR REPLACE FUNCTION {{schema}}.complete_and_take(task_ids bigint[], worker_id text, max_take integer DEFAULT NULL)
RETURNS TABLE (completed integer, id bigint, type text, payload jsonb, attempts integer)
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_alive boolean;
    f       record;
    v_taken {{schema}}.taken_task[];
BEGIN
    PERFORM 1 FROM {{schema}}.workers w
    WHERE w.id = complete_and_take.worker_id AND w.dead_at IS NULL
    FOR KEY SHARE;
    v_alive := FOUND;
    f := {{schema}}.finish_owned(task_ids, complete_and_take.worker_id);
    IF f.unit_types IS NOT NULL THEN
        -- A worker declared dead takes nothing (its tasks were recovered,
        -- so it completed none above anyway).
        IF v_alive THEN
            v_taken := {{schema}}.hand_off(f.unit_types, f.unit_groups, complete_and_take.worker_id, max_take);
        ELSE
            PERFORM {{schema}}.hand_off(f.unit_types, f.unit_groups);
        END IF;
    END IF;
    IF v_taken IS NULL OR cardinality(v_taken) = 0 THEN
        RETURN QUERY SELECT f.n, NULL::bigint, NULL::text, NULL::jsonb, NULL::integer;
        RETURN;
    END IF;
    -- In claim order (the order offer_units took them in).
    RETURN QUERY
    SELECT f.n, x.id, x.type, x.payload, x.attempts FROM unnest(v_taken) AS x;
END;
$$;

-- fail: the task row (the fence), then the type's lock, then the type: a
-- retried task of a type an apply just made unlimited (or limited) goes
-- where the type now sends it.
CREATE OR REPLACE FUNCTION {{schema}}.fail(task_id bigint, worker_id text, error text, retry boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    o         record;
    v_task    {{schema}}.tasks;
    v_queue   {{schema}}.queues;
    v_max     integer;
    v_status  {{schema}}.task_status;
    v_limited boolean;
BEGIN
    -- 1. The fence: only the worker's own task, locked; then its type's lock.
    o := {{schema}}.lock_owned(ARRAY[fail.task_id], fail.worker_id);
    IF o.ids IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT * INTO v_task FROM {{schema}}.tasks t WHERE t.id = fail.task_id;
    PERFORM {{schema}}.lock_types(ARRAY[v_task.type]);
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

    -- 3. Its unit passes on.
    IF v_task.slot_group IS NOT NULL THEN
        PERFORM {{schema}}.hand_off(ARRAY[v_task.type], ARRAY[v_task.slot_group]);
    END IF;
    RETURN v_status::text;
END;
$$;

-- release: the task rows (the fence), then their types' locks, then the
-- types: a released task waits in its lane only if its type is limited as
-- the last apply left it.
CREATE OR REPLACE FUNCTION {{schema}}.release(task_ids bigint[], worker_id text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    o       record;
    v_types text[];
    w_types text[];
    n       integer;
BEGIN
    -- 1. The fence: only the worker's own tasks, locked; then their types' locks.
    o := {{schema}}.lock_owned(task_ids, release.worker_id);
    IF o.ids IS NULL THEN
        RETURN 0;
    END IF;
    SELECT array_agg(DISTINCT t.type) INTO v_types FROM {{schema}}.tasks t WHERE t.id = ANY (o.ids);
    PERFORM {{schema}}.lock_types(v_types);

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

-- recover_dead_workers returns the running tasks of dead or silent workers
-- to pending (or the dead letter) and frees their units, in one
-- transaction (I4). In steps, in the locking order: the silent workers'
-- rows, the tasks, their types' locks, then what the types say (limited or
-- not), then the workers are declared dead.
-- last_error does not name the worker: claim returns it to any worker, and a
-- worker's id is what fences its tasks.
CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers() RETURNS jsonb
LANGUAGE plpgsql
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    v_ids     bigint[];
    v_types   text[];
    r_types   text[];
    r_groups  integer[];
    w_types   text[];
    n_pending integer;
    n_dead    integer;
    n_workers integer;
BEGIN
    -- 0. The live workers that may be declared dead (silent for longer than
    -- the shortest worker_timeout), locked in id order before their tasks:
    -- complete_and_take reads its worker's row FOR KEY SHARE before it
    -- hands the worker tasks, so those tasks are either seen below or never
    -- handed to a worker this recovery declares dead.
    PERFORM 1 FROM (
        SELECT w.id FROM {{schema}}.workers w
        WHERE w.dead_at IS NULL
          AND w.last_heartbeat < now() - (SELECT coalesce(min(q.worker_timeout), interval '30 seconds')
                                          FROM {{schema}}.queues q)
        ORDER BY w.id
        FOR UPDATE
    ) silent;

    -- 1. Every running task, by tasks_held, whose worker is gone or silent:
    -- locked, in id order.
    SELECT array_agg(v.id ORDER BY v.id), array_agg(DISTINCT v.type)
      INTO v_ids, v_types
    FROM (
        SELECT t.id, t.type FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        WHERE t.status = 'running'
          AND (w.id IS NULL OR w.dead_at IS NOT NULL
               OR w.last_heartbeat < now() - coalesce(q.worker_timeout, interval '30 seconds'))
        ORDER BY t.id
        FOR UPDATE OF t
    ) v;

    -- 2. Their types' locks, all at once.
    IF v_types IS NOT NULL THEN
        PERFORM {{schema}}.lock_types(v_types);
    END IF;

    -- 3. Back to pending (waiting in its lane if its type is limited now),
    -- or to the dead letter once its retries are spent.
    WITH victims AS (
        SELECT t.id, t.slot_group, t.worker_id AS old_worker, tt.concurrency IS NOT NULL AS limited,
               t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.id = ANY (coalesce(v_ids, '{}'))
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN v.exhausted THEN 'dead_letter' ELSE 'pending' END::{{schema}}.task_status,
            gate = CASE WHEN v.limited AND NOT v.exhausted THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate,
            completed_at = CASE WHEN v.exhausted THEN now() END,
            worker_id = NULL, slot_group = NULL, run_at = now(), updated_at = now(),
            last_error = 'its worker stopped heartbeating; task recovered'
        FROM victims v WHERE t.id = v.id
        RETURNING t.type, v.slot_group, v.exhausted, v.old_worker, v.limited
    ), dead AS (
        -- 4. The workers: those whose tasks were recovered, and every
        -- silent one.
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

    -- 5. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers);
END;
$$;

-- run_maintenance: as in migration 009, but the empty groups of removed
-- limits are deleted SKIP LOCKED (a group a holder is giving its last unit
-- back to right now goes at the next round).
CREATE OR REPLACE FUNCTION {{schema}}.run_maintenance(worker_id text) RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
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

-- New functions: PUBLIC gets nothing (migration 008).
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {{schema}} FROM PUBLIC;
REVOKE ALL ON TABLE {{schema}}.runtime_clock FROM PUBLIC;
-- The read level reads every table (catalog.Tables): the roles pgseq apply
-- granted it read the new one too.
DO $$
DECLARE
    r text;
BEGIN
    FOR r IN SELECT g.role FROM {{schema}}.grants g
             WHERE g.level = 'read' AND to_regrole(quote_ident(g.role)) IS NOT NULL ORDER BY 1 LOOP
        EXECUTE format('GRANT SELECT ON TABLE %s TO %I', '{{schema}}.runtime_clock', r);
    END LOOP;
END;
$$;
