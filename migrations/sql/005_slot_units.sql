-- pgseq schema, version 5: concurrency limits enforced by handing slot units
-- from task to task, so that every claim is the fast path. {{schema}} is
-- replaced by the quoted schema name.
--
-- The model. A limited task type's slot groups (the declared layout: at most
-- 50 rows whose capacities sum to the limit) hold units. A task holds one
-- unit (tasks.slot_group) from the moment it is admitted until it leaves
-- claimed/running:
--
--   enqueue ─ free unit? ─ yes → pending, gate 'open' (holds a unit) → claim → running → complete/fail
--                        └ no  → pending, gate 'waiting' (its type's lane, no unit)
--   due later (scheduled, a retry) → pending, gate 'scheduled' (no unit until due)
--
-- Only open tasks are claimable, so claim reads no slot row and no lane: it is
-- one index scan over the queue's open tasks, limited or not, whatever the
-- number of limited types. When a holder finishes, its unit passes straight
-- to the first due waiting task of its type in claim order (hand_off), in the
-- same transaction, and the group's `used` does not change; a unit goes back
-- to its group only when nobody waits. A type whose slots are all held keeps
-- its backlog in its lane, never scanned by claims.
--
-- Invariants (tests and the chaos scenario check them):
--   I1 running ≤ tasks holding a unit ≤ Σ capacity = limit (a lowered limit:
--      until the over-capacity groups have drained);
--   I2 used(group) = tasks holding a unit of it (open pending, claimed,
--      running);
--   I3 a unit is given back exactly once, by the holder's own state change
--      (complete, fail, release, recovery), whose row lock fences zombies;
--   I4 while any group of a type is over capacity (draining after a lowered
--      limit), the type admits nothing: units of finished holders go back;
--   I5 a due waiting task and a free unit of its type do not coexist for
--      long: every path that frees a unit offers it to the lane first, and the
--      leader's maintenance repairs the rare race (a waiting task committed
--      just after a unit was freed).
--
-- Locking order (deadlock freedom), everywhere: task rows, then per-type
-- advisory locks (slot_lock_key), then slot rows, each in key order. The
-- runtime takes the type locks shared (admission, hand-off); pgseq apply
-- takes them exclusive while it changes capacities, so no unit is admitted
-- against a capacity being lowered. Advisory locks live in memory: taking
-- one writes nothing. Waiting tasks are taken with SKIP LOCKED, slot rows
-- with SKIP LOCKED when admitting and in key order when giving units back.

-- gate says whether a pending task may be claimed (see above).
CREATE TYPE {{schema}}.task_gate AS ENUM (
    'open',      -- claimable when due: unlimited, or holding a unit
    'waiting',   -- limited, due, waiting for a unit of its type
    'scheduled'  -- limited, not due when it last looked for a unit
);
ALTER TABLE {{schema}}.tasks ADD COLUMN gate {{schema}}.task_gate NOT NULL DEFAULT 'open';

-- Pending tasks of limited types held no unit under version 4: they wait.
UPDATE {{schema}}.tasks
SET gate = CASE WHEN run_at <= now() THEN 'waiting' ELSE 'scheduled' END::{{schema}}.task_gate
WHERE status = 'pending' AND limited;

DROP INDEX {{schema}}.tasks_claimable;
DROP INDEX {{schema}}.tasks_claimable_limited;
ALTER TABLE {{schema}}.tasks DROP COLUMN limited;
-- Claim order: priority (higher first), then due time, then id; open only.
CREATE INDEX tasks_claimable ON {{schema}}.tasks (queue, priority DESC, run_at, id)
    WHERE status = 'pending' AND gate = 'open';
-- A limited type's lane, in claim order: where hand_off finds the next task.
CREATE INDEX tasks_waiting ON {{schema}}.tasks (type, priority DESC, run_at, id)
    WHERE status = 'pending' AND gate <> 'open';
-- Scheduled limited tasks by due time: the claim admits them once due.
CREATE INDEX tasks_scheduled ON {{schema}}.tasks (queue, run_at)
    WHERE status = 'pending' AND gate = 'scheduled';
-- A type draining after a lowered limit (some group over capacity) admits
-- nothing (I4). pgseq apply sets the flag; the hand-off that ends the drain
-- clears it. A flag rather than an index on used > capacity: an index on
-- `used` would make every update of a slot row a non-HOT update.
ALTER TABLE {{schema}}.task_types ADD COLUMN draining boolean NOT NULL DEFAULT false;
CREATE INDEX task_types_draining ON {{schema}}.task_types (name) WHERE draining;
UPDATE {{schema}}.task_types tt SET draining = true
WHERE EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name AND s.used > s.capacity);

DROP FUNCTION {{schema}}.release_slots(text[], integer[]);
-- claim gains max_limited (below): drop the three-argument one, or calls
-- with three arguments would be ambiguous.
DROP FUNCTION {{schema}}.claim(text, text, integer);

-- ---------------------------------------------------------------------------
-- Type locks

-- slot_lock_key is the second key of a task type's advisory lock; the first
-- is the constant 1885827953 ('pgsq'). Types whose hashes collide share a
-- lock: that only serialises them more.
CREATE FUNCTION {{schema}}.slot_lock_key(task_type text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtext(task_type) $$;

-- lock_types takes the advisory locks of task types, shared (the runtime) or
-- exclusive (pgseq apply), in key order, waiting for them. Released at the
-- end of the transaction.
CREATE FUNCTION {{schema}}.lock_types(types text[], exclusive boolean DEFAULT false) RETURNS void
LANGUAGE sql AS $$
    -- One statement: the locks are taken in the subquery's key order.
    SELECT count(CASE WHEN exclusive THEN pg_advisory_xact_lock(1885827953, k)::text
                      ELSE pg_advisory_xact_lock_shared(1885827953, k)::text END)
    FROM (SELECT DISTINCT {{schema}}.slot_lock_key(t) AS k FROM unnest(types) AS u(t) ORDER BY 1) keys;
$$;

-- try_lock_type takes a type's lock shared if it is free of an apply right
-- now; false otherwise. For paths that must never wait (claim, enqueue).
CREATE FUNCTION {{schema}}.try_lock_type(task_type text) RETURNS boolean
LANGUAGE sql AS $$
    SELECT pg_try_advisory_xact_lock_shared(1885827953, {{schema}}.slot_lock_key(task_type));
$$;

-- ---------------------------------------------------------------------------
-- Units

-- type_draining reports whether a type is draining (I4: it admits nothing
-- until its groups are back within capacity).
CREATE FUNCTION {{schema}}.type_draining(task_type text) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM {{schema}}.task_types tt
                   WHERE tt.name = type_draining.task_type AND tt.draining);
$$;

-- end_drain clears the draining flag of the types among these whose groups
-- are all within capacity again and returns them: they admit again.
CREATE FUNCTION {{schema}}.end_drain(types text[]) RETURNS text[]
LANGUAGE sql AS $$
    WITH ended AS (
        UPDATE {{schema}}.task_types tt SET draining = false
        WHERE tt.name = ANY (types) AND tt.draining
          AND NOT EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                          WHERE s.task_type = tt.name AND s.used > s.capacity)
        RETURNING tt.name
    )
    SELECT array_agg(e.name ORDER BY e.name) FROM ended e;
$$;

-- take_units takes up to wanted free units of a type and returns their slot
-- groups, one element per unit (fewer, or none, when the type has fewer free
-- or they are locked by others, or while it drains). Groups are locked SKIP
-- LOCKED in a random order, so concurrent callers spread over them. The
-- caller holds the type's lock and gives each unit to a task (or back).
CREATE FUNCTION {{schema}}.take_units(task_type text, wanted integer) RETURNS integer[]
LANGUAGE plpgsql AS $$
DECLARE
    v_type   text := take_units.task_type;
    v_groups integer[];
BEGIN
    IF coalesce(wanted, 0) < 1 OR {{schema}}.type_draining(v_type) THEN
        RETURN '{}';
    END IF;
    WITH free AS (
        -- Enough groups for the units wanted (each has at least one free).
        SELECT s.slot_group, s.capacity - s.used AS free, random() AS ord
        FROM {{schema}}.concurrency_slots s
        WHERE s.task_type = v_type AND s.used < s.capacity
        LIMIT wanted
        FOR UPDATE SKIP LOCKED
    ), take AS (
        -- Fill the locked groups in order until wanted are taken.
        SELECT f.slot_group,
               least(f.free, wanted - coalesce(sum(f.free) OVER (ORDER BY f.ord, f.slot_group
                                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS n
        FROM free f
    ), taken AS (
        UPDATE {{schema}}.concurrency_slots s SET used = s.used + t.n
        FROM take t
        WHERE s.task_type = v_type AND s.slot_group = t.slot_group AND t.n > 0
        RETURNING s.slot_group, t.n
    )
    SELECT coalesce(array_agg(t.slot_group ORDER BY t.slot_group), '{}') INTO v_groups
    FROM taken t, generate_series(1, t.n);
    RETURN v_groups;
END;
$$;

-- give_back returns units to their groups, one element per unit: the part of
-- a hand-off nobody was waiting for.
CREATE FUNCTION {{schema}}.give_back(types text[], groups integer[]) RETURNS void
LANGUAGE sql
-- The rows are updated in the order of the sorted groups (one primary-key
-- probe each: no hash or merge join may reorder them), the deadlock-free
-- order, in one pass.
SET enable_hashjoin = off SET enable_mergejoin = off
AS $$
    UPDATE {{schema}}.concurrency_slots s
    SET used = greatest(s.used - x.n, 0)
    FROM (SELECT u.t, u.g, count(*)::integer AS n FROM unnest(types, groups) AS u(t, g)
          GROUP BY u.t, u.g ORDER BY u.t, u.g) x
    WHERE s.task_type = x.t AND s.slot_group = x.g;
$$;

-- admit_waiting gives a type's free units to its due waiting tasks, in claim
-- order, and returns how many it admitted. The caller holds the type's lock.
-- Used where units become free without a holder finishing: a raised limit, the
-- end of a drain, scheduled tasks coming due, the leader's repair (I5).
CREATE FUNCTION {{schema}}.admit_waiting(task_type text) RETURNS integer
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
    PERFORM {{schema}}.lock_admission(ARRAY[v_type]);
    SELECT coalesce(sum(s.capacity - s.used), 0)::integer INTO v_free
    FROM {{schema}}.concurrency_slots s
    WHERE s.task_type = v_type AND s.used < s.capacity;
    IF v_free = 0 THEN
        RETURN 0;
    END IF;

    -- 1. The tasks to admit: the first due ones of the lane, locked.
    SELECT array_agg(w.id ORDER BY w.priority DESC, w.run_at, w.id) INTO v_ids
    FROM (
        SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
        WHERE t.type = v_type AND t.status = 'pending' AND t.gate <> 'open' AND t.run_at <= now()
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
    UPDATE {{schema}}.tasks t
    SET gate = 'waiting', updated_at = now()
    FROM unnest(v_ids[cardinality(v_units) + 1:]) AS u(id)
    WHERE t.id = u.id AND t.gate = 'scheduled';
    RETURN cardinality(v_units);
END;
$$;

-- admit_types gives the free units of several types to their lanes and
-- returns how many tasks it admitted: the admission locks of all the types
-- first, in key order (one by one, two callers could deadlock), then
-- admit_waiting per type. The caller holds the types' locks.
CREATE FUNCTION {{schema}}.admit_types(types text[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_type text;
    n      integer := 0;
BEGIN
    IF types IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM {{schema}}.lock_admission(types);
    FOREACH v_type IN ARRAY types LOOP
        n := n + {{schema}}.admit_waiting(v_type);
    END LOOP;
    RETURN n;
END;
$$;

-- taken_task is a task handed to a worker by a hand-off: what the worker
-- needs to run it.
CREATE TYPE {{schema}}.taken_task AS (id bigint, type text, payload jsonb, attempts integer);

-- offer_units passes released units (one element per unit) to the next due
-- waiting tasks of their types, in claim order: those become open with the
-- same slot group, and `used` does not change. With a taker (a worker),
-- they become running for it instead, claimed in the same write, and their
-- ids are returned in taken. It returns in left_* the units nobody was
-- waiting for (waiting tasks locked by another admission are skipped).
CREATE FUNCTION {{schema}}.offer_units(types text[], groups integer[], taker text DEFAULT NULL, max_take integer DEFAULT NULL,
                                       OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[],
                                       OUT opened integer)
LANGUAGE plpgsql AS $$
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
        -- The first due tasks of each type's lane, as many as it released;
        -- the taker takes the first max_take of them in claim order.
        SELECT w.id, w.type,
               row_number() OVER (PARTITION BY w.type ORDER BY w.priority DESC, w.run_at, w.id) AS k,
               taker IS NOT NULL AND (max_take IS NULL OR
                   row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) <= max_take) AS take
        FROM per_type p, LATERAL (
            SELECT t.id, t.type, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = p.type AND t.status = 'pending' AND t.gate <> 'open' AND t.run_at <= now()
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

-- lock_admission serialises, per type, the decisions "no unit is free: the
-- task waits" (admit_waiting, exclusive) and "nobody waits: the unit goes
-- back" (hand_off, shared: hand-offs do not wait for each other), so a task
-- left waiting by an admission in flight is not missed by a unit going back
-- (I5). Taken in key order, released at transaction end.
CREATE FUNCTION {{schema}}.lock_admission(types text[], exclusive boolean DEFAULT true) RETURNS void
LANGUAGE sql AS $$
    SELECT count(CASE WHEN exclusive THEN pg_advisory_xact_lock(1885827954, k)::text
                      ELSE pg_advisory_xact_lock_shared(1885827954, k)::text END)
    FROM (SELECT DISTINCT {{schema}}.slot_lock_key(t) AS k FROM unnest(types) AS u(t) ORDER BY 1) keys;
$$;

-- hand_off passes the units of holders that just left claimed/running (one
-- element per unit; their rows already changed) to the due waiting tasks of
-- their types (offer_units), running for taker when one is given (their ids
-- come back in taken). A type's units nobody took go back to their group,
-- after a second offer under the admission lock when its lane has due tasks
-- that another admission had locked (I5). A draining type admits nothing
-- (I4): its units go back, and once it has drained its free units go to its
-- lane. The caller holds the types' locks.
CREATE FUNCTION {{schema}}.hand_off(types text[], groups integer[], taker text DEFAULT NULL, max_take integer DEFAULT NULL,
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
    -- then offer again to the types whose lanes now show due tasks (I5).
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
                      WHERE t.type = u.t AND t.status = 'pending' AND t.gate <> 'open' AND t.run_at <= now());
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

-- admit_due lets a queue's limited tasks that were scheduled for later and
-- are now due look for a unit, each once: they join their type's lane
-- (waiting), then each type's free units go to its lane in claim order. A
-- type being changed by an apply right now is left for the next call.
CREATE FUNCTION {{schema}}.admit_due(queue text, max_tasks integer) RETURNS void
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
    PERFORM {{schema}}.admit_types(v_types);
END;
$$;

-- ---------------------------------------------------------------------------
-- Enqueue: a limited task takes a free unit at once when it is due.

-- enqueue adds one task of a declared type and returns its id. With an
-- idempotency key already used for that type it returns the existing id and
-- adds nothing. A task of a limited type takes a free unit (open) or waits.
CREATE OR REPLACE FUNCTION {{schema}}.enqueue(
    type text,
    payload jsonb DEFAULT NULL,
    idempotency_key text DEFAULT NULL,
    priority integer DEFAULT NULL,
    run_at timestamptz DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql AS $$
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
    SELECT t.queue, coalesce(enqueue.priority, t.priority), t.concurrency IS NOT NULL
      INTO v_queue, v_prio, v_lim
      FROM {{schema}}.task_types t WHERE t.name = v_type;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_type
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;
    IF v_lim AND v_at > now() THEN
        v_gate := 'scheduled';
    ELSIF v_lim THEN
        v_gate := 'waiting';
        IF {{schema}}.try_lock_type(v_type) THEN
            v_unit := ({{schema}}.take_units(v_type, 1))[1];
            IF v_unit IS NOT NULL THEN
                v_gate := 'open';
            END IF;
        END IF;
    END IF;
    LOOP
        INSERT INTO {{schema}}.tasks AS t (queue, type, payload, priority, idempotency_key, run_at, gate, slot_group)
        VALUES (v_queue, v_type, enqueue.payload, v_prio, v_key, v_at, v_gate, v_unit)
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id INTO v_id;
        IF v_id IS NOT NULL OR v_key IS NULL THEN
            RETURN v_id;
        END IF;
        -- The key is taken: the unit is not needed.
        IF v_unit IS NOT NULL THEN
            PERFORM {{schema}}.hand_off(ARRAY[v_type], ARRAY[v_unit]);
            v_unit := NULL;
            v_gate := CASE WHEN v_gate = 'open' THEN 'waiting' ELSE v_gate END;
        END IF;
        -- Return the task that holds the key (it committed, or the ON
        -- CONFLICT above would have waited for it).
        SELECT t.id INTO v_id FROM {{schema}}.tasks t WHERE t.type = v_type AND t.idempotency_key = v_key;
        IF v_id IS NOT NULL THEN
            RETURN v_id;
        END IF;
        -- The holder was deleted between the two statements: try again.
    END LOOP;
END;
$$;

-- enqueue_batch adds many tasks in one statement; ids come back in input
-- order. Arrays other than types may be NULL (all defaults) or as long as
-- types. Idempotency keys already used (also earlier in the same batch)
-- return the existing ids. Due tasks of limited types take free units, one
-- batch of units per type.
CREATE OR REPLACE FUNCTION {{schema}}.enqueue_batch(
    types text[],
    payloads jsonb[] DEFAULT NULL,
    idempotency_keys text[] DEFAULT NULL,
    priorities integer[] DEFAULT NULL,
    run_ats timestamptz[] DEFAULT NULL
) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    n         integer := coalesce(cardinality(types), 0);
    v_unknown text;
    v_ids     bigint[];
    v_type    text;
    v_want    integer;
    u_types   text[] := '{}';
    u_groups  integer[] := '{}';
    v_got     integer[];
    l_types   text[];
    l_groups  integer[];
BEGIN
    IF (payloads IS NOT NULL AND cardinality(payloads) <> n)
       OR (idempotency_keys IS NOT NULL AND cardinality(idempotency_keys) <> n)
       OR (priorities IS NOT NULL AND cardinality(priorities) <> n)
       OR (run_ats IS NOT NULL AND cardinality(run_ats) <> n) THEN
        RAISE EXCEPTION 'enqueue_batch: every array must have as many elements as types (%)', n
            USING ERRCODE = '22023';
    END IF;
    SELECT u.type INTO v_unknown
    FROM unnest(types) AS u(type)
    WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.task_types t WHERE t.name = u.type)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_unknown
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;

    -- 1. Units for the due tasks of limited types, per type.
    FOR v_type, v_want IN
        SELECT u.type, count(*)::integer
        FROM unnest(types, run_ats) AS u(type, at)
        JOIN {{schema}}.task_types t ON t.name = u.type AND t.concurrency IS NOT NULL
        WHERE coalesce(u.at, now()) <= now()
        GROUP BY u.type ORDER BY u.type
    LOOP
        IF {{schema}}.try_lock_type(v_type) THEN
            v_got := {{schema}}.take_units(v_type, v_want);
            u_types := u_types || array_fill(v_type, ARRAY[cardinality(v_got)]);
            u_groups := u_groups || v_got;
        END IF;
    END LOOP;

    -- 2. Insert, the k-th due task of a type with the k-th unit of that type.
    -- Ids are drawn up front so each input row knows its own; rows that hit
    -- an idempotency conflict leave their id (and unit) unused.
    WITH input AS (
        -- Ids in input order (the ordered subquery feeds nextval), so claim
        -- order among equal due times follows the input.
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
        SELECT i.*, CASE WHEN i.limited AND i.run_at <= now()
                         THEN row_number() OVER (PARTITION BY i.type, i.limited AND i.run_at <= now() ORDER BY i.ord)
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
        SELECT new_id, queue, type, payload, priority, key, run_at, gate, grp FROM rows ORDER BY ord
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id, t.type, t.idempotency_key
    ), ids AS (
        SELECT array_agg(coalesce(mine.id, same_batch.id, earlier.id) ORDER BY rows.ord) AS ids,
               array_agg(rows.type) FILTER (WHERE mine.id IS NULL AND rows.grp IS NOT NULL) AS lost_types,
               array_agg(rows.grp) FILTER (WHERE mine.id IS NULL AND rows.grp IS NOT NULL) AS lost_groups
        FROM rows
        LEFT JOIN inserted mine ON mine.id = rows.new_id
        LEFT JOIN inserted same_batch ON rows.key IS NOT NULL
             AND same_batch.type = rows.type AND same_batch.idempotency_key = rows.key
        LEFT JOIN {{schema}}.tasks earlier ON rows.key IS NOT NULL
             AND earlier.type = rows.type AND earlier.idempotency_key = rows.key
    )
    SELECT ids.ids, ids.lost_types, ids.lost_groups INTO v_ids, l_types, l_groups FROM ids;

    -- 3. Units of rows that were not inserted (their key was taken) pass on.
    PERFORM {{schema}}.hand_off(l_types, l_groups);

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

-- ---------------------------------------------------------------------------
-- Claim: the fast path for every type.

-- claim moves up to batch due open tasks of a queue to running for a worker:
-- highest priority first, then due time, then id. Limited tasks are open only
-- while they hold a unit, so the limits hold without reading a slot row; the
-- queue's limited tasks that were scheduled for later and are now due first
-- look for a unit. With max_limited, at most that many of the tasks claimed
-- hold a unit (a worker whose handlers are busy does not hoard units that
-- others could run now); the others stay open.
CREATE FUNCTION {{schema}}.claim(queue text, worker_id text, batch integer, max_limited integer DEFAULT NULL)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_queue   text := claim.queue;
    v_worker  text := claim.worker_id;
    v_batch   integer := claim.batch;
    v_max     integer := claim.max_limited;
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
    IF v_max IS NULL THEN
        RETURN QUERY
        WITH picked AS (
            SELECT t.id FROM {{schema}}.tasks t
            WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT v_batch
            FOR UPDATE SKIP LOCKED
        )
        UPDATE {{schema}}.tasks t
        SET status = 'running', worker_id = v_worker, attempts = t.attempts + 1,
            claimed_at = now(), started_at = now(), updated_at = now()
        FROM picked WHERE t.id = picked.id
        RETURNING t.*;
        RETURN;
    END IF;
    -- The same with at most v_max unit holders among them: candidates
    -- beyond it stay open (locked only until this transaction ends).
    RETURN QUERY
    WITH candidates AS (
        SELECT t.id, t.slot_group, t.priority, t.run_at FROM {{schema}}.tasks t
        WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT v_batch
        FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT c.id FROM (
            SELECT c.id, c.slot_group,
                   count(c.slot_group) OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS holders
            FROM candidates c
        ) c
        WHERE c.slot_group IS NULL OR c.holders <= v_max
    )
    UPDATE {{schema}}.tasks t
    SET status = 'running', worker_id = v_worker, attempts = t.attempts + 1,
        claimed_at = now(), started_at = now(), updated_at = now()
    FROM picked WHERE t.id = picked.id
    RETURNING t.*;
END;
$$;

-- ---------------------------------------------------------------------------
-- Finishing: every holder that leaves claimed/running hands its unit off.

-- finish_owned marks the tasks done that the worker still owns (claimed or
-- running by it): a stale or zombie worker completes nothing (I3). It
-- returns how many, and the units they held (one element per unit) for the
-- caller to hand off, with the types' locks taken: complete and
-- complete_and_take differ only in who takes the units.
CREATE FUNCTION {{schema}}.finish_owned(task_ids bigint[], worker_id text,
                                        OUT n integer, OUT unit_types text[], OUT unit_groups integer[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    WITH owned AS (
        SELECT t.id, t.slot_group
        FROM unnest(task_ids) AS u(id)
        JOIN {{schema}}.tasks t ON t.id = u.id
        WHERE t.worker_id = finish_owned.worker_id AND t.status IN ('claimed', 'running')
        ORDER BY t.id
        FOR UPDATE OF t
    ), done AS (
        UPDATE {{schema}}.tasks t
        SET status = 'completed', completed_at = now(), updated_at = now(), slot_group = NULL
        FROM owned WHERE t.id = owned.id
        RETURNING t.type, owned.slot_group
    )
    SELECT count(*)::integer,
           array_agg(d.type) FILTER (WHERE d.slot_group IS NOT NULL),
           array_agg(d.slot_group) FILTER (WHERE d.slot_group IS NOT NULL)
      INTO n, unit_types, unit_groups
    FROM done d;
    IF unit_types IS NOT NULL THEN
        PERFORM {{schema}}.lock_types(unit_types);
    END IF;
END;
$$;

-- complete marks tasks done, only those the worker still owns; their units
-- pass to waiting tasks, which become open. Returns how many were completed.
CREATE OR REPLACE FUNCTION {{schema}}.complete(task_ids bigint[], worker_id text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    f record;
BEGIN
    f := {{schema}}.finish_owned(task_ids, worker_id);
    PERFORM {{schema}}.hand_off(f.unit_types, f.unit_groups);
    RETURN f.n;
END;
$$;

-- complete_and_take completes like complete and, instead of leaving the
-- waiting tasks the units pass to open for any claimer, claims them for the
-- same worker in the same write: for a worker that runs whatever its queue
-- holds (the Go worker), a limited task then costs no write more than an
-- unlimited one. It takes at most max_take (NULL: all): a worker whose
-- handlers are busy takes only what it can start soon, and the other units
-- pass to open tasks for other workers (who are woken by NOTIFY
-- pgseq_tasks). Returns one row per task taken, each with the number
-- completed (one row with NULL task columns when none was taken).
CREATE FUNCTION {{schema}}.complete_and_take(task_ids bigint[], worker_id text, max_take integer DEFAULT NULL)
RETURNS TABLE (completed integer, id bigint, type text, payload jsonb, attempts integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    f       record;
    v_taken {{schema}}.taken_task[];
BEGIN
    f := {{schema}}.finish_owned(task_ids, complete_and_take.worker_id);
    IF f.unit_types IS NOT NULL THEN
        -- A worker declared dead takes nothing (its tasks were recovered,
        -- so it completed none above anyway).
        PERFORM 1 FROM {{schema}}.workers w WHERE w.id = complete_and_take.worker_id AND w.dead_at IS NULL;
        IF FOUND THEN
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

-- fail records a failed attempt. The new status is returned: 'pending' with
-- run_at pushed back by the queue's backoff while retries remain,
-- 'dead_letter' after max_retries retries, 'failed' when retry is false
-- (for example no handler), or NULL when the worker no longer owns the task.
-- Its unit passes on; a retry of a limited type looks for a unit again once
-- due.
CREATE OR REPLACE FUNCTION {{schema}}.fail(task_id bigint, worker_id text, error text, retry boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_task    {{schema}}.tasks;
    v_queue   {{schema}}.queues;
    v_max     integer;
    v_status  {{schema}}.task_status;
    v_limited boolean;
BEGIN
    SELECT * INTO v_task FROM {{schema}}.tasks t
    WHERE t.id = fail.task_id AND t.worker_id = fail.worker_id AND t.status IN ('claimed', 'running')
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO v_queue FROM {{schema}}.queues q WHERE q.name = v_task.queue;
    SELECT coalesce(v_task.max_retries, tt.max_retries, v_queue.max_retries, 3), tt.concurrency IS NOT NULL
      INTO v_max, v_limited
    FROM (SELECT 1) one LEFT JOIN {{schema}}.task_types tt ON tt.name = v_task.type;

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
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    r_types  text[];
    r_groups integer[];
    w_types  text[];
    n        integer;
BEGIN
    WITH owned AS (
        SELECT t.id, t.slot_group, tt.concurrency IS NOT NULL AS limited
        FROM unnest(task_ids) AS u(id)
        JOIN {{schema}}.tasks t ON t.id = u.id
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.worker_id = release.worker_id AND t.status IN ('claimed', 'running')
        ORDER BY t.id
        FOR UPDATE OF t
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = 'pending', worker_id = NULL, slot_group = NULL, attempts = greatest(t.attempts - 1, 0),
            gate = CASE WHEN owned.limited THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate,
            claimed_at = NULL, started_at = NULL, updated_at = now()
        FROM owned WHERE t.id = owned.id
        RETURNING t.type, owned.slot_group, owned.limited
    )
    SELECT count(*)::integer,
           array_agg(b.type) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(b.slot_group) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.slot_group IS NOT NULL)
      INTO n, r_types, r_groups, w_types
    FROM back b;
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    RETURN n;
END;
$$;

-- requeue_limited finishes returning limited tasks to their lanes (release,
-- recovery): the units they held pass on, usually straight back to them, and
-- a type with free units admits the ones that held none.
CREATE FUNCTION {{schema}}.requeue_limited(types text[], unit_types text[], unit_groups integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF types IS NULL THEN
        RETURN;
    END IF;
    PERFORM {{schema}}.lock_types(types);
    -- Exclusive before hand_off takes it shared: never an upgrade.
    PERFORM {{schema}}.lock_admission(types);
    PERFORM {{schema}}.hand_off(unit_types, unit_groups);
    PERFORM {{schema}}.admit_types(types);
END;
$$;

-- recover_dead_workers returns the tasks of workers whose heartbeat is older
-- than their queue's worker_timeout (or that no longer exist) to pending —
-- dead_letter when their retries are used up — and passes their units on in
-- the same transaction. Those workers are declared dead, so their heartbeat
-- says stop and their late complete/fail calls change nothing.
CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers() RETURNS jsonb
LANGUAGE plpgsql AS $$
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
        SELECT t.id, t.slot_group, t.worker_id AS old_worker, tt.concurrency IS NOT NULL AS limited,
               t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.status IN ('claimed', 'running')
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

-- ---------------------------------------------------------------------------
-- Maintenance and pgseq apply.

-- repair_admission finds the limited types with due waiting tasks (one index
-- probe per such type, skipping through the lanes) and gives them their free
-- units (I5). Types being changed by an apply are left for the next run.
-- Returns how many tasks it admitted.
CREATE FUNCTION {{schema}}.repair_admission() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_types text[];
BEGIN
    WITH RECURSIVE lanes AS (
        (SELECT t.type FROM {{schema}}.tasks t
         WHERE t.status = 'pending' AND t.gate <> 'open' ORDER BY t.type LIMIT 1)
        UNION ALL
        SELECT (SELECT t.type FROM {{schema}}.tasks t
                WHERE t.status = 'pending' AND t.gate <> 'open' AND t.type > l.type
                ORDER BY t.type LIMIT 1)
        FROM lanes l WHERE l.type IS NOT NULL
    )
    SELECT array_agg(l.type) INTO v_types
    FROM lanes l
    JOIN {{schema}}.task_types tt ON tt.name = l.type AND tt.concurrency IS NOT NULL
    WHERE EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                  WHERE s.task_type = l.type AND s.used < s.capacity)
      AND {{schema}}.try_lock_type(l.type);
    RETURN {{schema}}.admit_types(v_types);
END;
$$;

-- rebalance_units brings the units of task types whose slot groups pgseq
-- apply just changed in line with the new capacities: a group over capacity
-- first takes its units back from open tasks not claimed yet (last in claim
-- order first; they wait again), so only running tasks keep it over (I4,
-- draining); drained groups outside the layout go; then free units go to the
-- lanes. The caller (apply) holds the types' locks exclusive and the slot
-- rows locked.
CREATE FUNCTION {{schema}}.rebalance_units(types text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    -- 1. Take back units of over-capacity groups from open pending holders.
    WITH over AS (
        SELECT s.task_type, s.slot_group, s.used - s.capacity AS excess
        FROM {{schema}}.concurrency_slots s
        WHERE s.task_type = ANY (types) AND s.used > s.capacity
    ), holders AS (
        SELECT t.id, o.task_type, o.slot_group, o.excess,
               row_number() OVER (PARTITION BY o.task_type, o.slot_group
                                  ORDER BY t.priority, t.run_at DESC, t.id DESC) AS k
        FROM over o
        JOIN {{schema}}.tasks t ON t.type = o.task_type AND t.slot_group = o.slot_group
             AND t.status = 'pending' AND t.gate = 'open'
    ), revoked AS (
        UPDATE {{schema}}.tasks t
        SET gate = CASE WHEN t.run_at <= now() THEN 'waiting' ELSE 'scheduled' END::{{schema}}.task_gate,
            slot_group = NULL, updated_at = now()
        FROM holders h
        WHERE t.id = h.id AND h.k <= h.excess
        RETURNING h.task_type, h.slot_group
    )
    UPDATE {{schema}}.concurrency_slots s
    SET used = s.used - x.n
    FROM (SELECT r.task_type, r.slot_group, count(*)::integer AS n FROM revoked r GROUP BY 1, 2) x
    WHERE s.task_type = x.task_type AND s.slot_group = x.slot_group;

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

-- maintenance_extras is where migrations add leader duties; the repair of
-- admissions (I5) runs beside the counters' reaper.
CREATE OR REPLACE FUNCTION {{schema}}.maintenance_extras() RETURNS jsonb
LANGUAGE sql AS $$
    SELECT jsonb_build_object('reservations_reaped', {{schema}}.reap_reservations(),
                              'tasks_admitted', {{schema}}.repair_admission());
$$;

-- Pending tasks of limited types that waited under version 4 get the free
-- units now.
SELECT {{schema}}.admit_waiting(tt.name)
FROM {{schema}}.task_types tt WHERE tt.concurrency IS NOT NULL ORDER BY tt.name;
