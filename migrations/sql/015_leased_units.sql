-- pgseq schema, version 15: slot units leased to workers. {{schema}} is
-- replaced by the quoted schema name.
--
-- Why. Under the hand-off (005, 012, 014) every task of a limited type held
-- a unit of its own: an enqueue took one from a slot row, and every
-- completion passed it on or gave it back, which cost a lane probe, two
-- advisory locks and a slot-row write per type per completion. A limited
-- task cost 1.2-1.7x an unlimited one (results/limits-design.md).
--
-- The model now. A worker leases units of a type in chunks (one slot-row
-- write per chunk, in unit_leases) and admits the type's tasks itself when
-- it claims them: a claimed task of a limited type that holds no unit of its
-- own runs on one of its worker's leased units. Its completion writes
-- nothing but the task row: the unit stays with the worker for the next
-- task of the type. So, per worker W and limited type T:
--
--   running tasks of W of T that hold no unit  <=  units W leases of T
--
-- and slot rows count every unit lent out, to a task or to a lease:
--
--   I2  used(group) = tasks holding a unit of it + units leased from it.
--
-- Hence I1 (running <= limit) as before. Paths:
--
--   enqueue ─ type's lane empty and a unit free? ─ yes → pending, open, no unit
--                                                └ no  → pending, waiting (the lane)
--   claim: 1. tasks in the lanes of the queue's types, as many per type as
--             W has spare leased units (a lane with free units and no spare
--             gets a lease first: no due task waits beside a free unit, I5);
--          2. the open tasks (one index scan, as before); each that holds no
--             unit takes one of W's spare units, the lease growing by a
--             chunk when it lacks; those no unit is left for go to their
--             type's lane, once (a saturated type's backlog is never
--             scanned again);
--          3. when the claim comes back short (the worker is idle), W's
--             spare units go back to their groups (and idle workers are
--             woken when a lane waits for them: their next claim leases
--             them, step 1).
--
-- Units still pass task to task where tasks hold their own (the admission
-- repair, a raised limit, the end of a drain admit waiting tasks that way,
-- and complete_and_take hands those over as before).
--
-- Leases go back: when a claim comes back short; a draining type's spare
-- units at every claim of the worker (I4: a draining type admits nothing);
-- with release (the types released) and return_leases (a worker shutting
-- down); in the recovery that declares the worker dead, in the same
-- transaction; and in pgseq apply for every type whose slots it changes,
-- down to what the worker runs, before the lowered limit drains.
--
-- Locking. A worker's leases are guarded by its worker lock (lock_worker,
-- an advisory lock per worker id): claims take it first and after that
-- never wait for a type lock (try-locks only), so every caller that waits
-- for a worker lock takes it after its type locks (locking order step 2b,
-- between 012's steps 2 and 3): pgseq apply (lock_types, exclusive, locks
-- the workers leasing its types), release, return_leases and the recovery.
-- A claim that holds its worker lock waits only for admission locks and
-- slot rows of types whose lock it holds shared, which no holder of a
-- worker lock waits on.

CREATE TABLE IF NOT EXISTS {{schema}}.unit_leases (
    worker_id  text    NOT NULL,
    task_type  text    NOT NULL,
    slot_group integer NOT NULL,
    units      integer NOT NULL CHECK (units >= 0),
    PRIMARY KEY (worker_id, task_type, slot_group)
) WITH (fillfactor = 50);
CREATE INDEX IF NOT EXISTS unit_leases_type ON {{schema}}.unit_leases (task_type);
COMMENT ON TABLE {{schema}}.unit_leases IS
    'Slot units leased to a worker: its running tasks of the type that hold no unit of their own run on them. Counted in concurrency_slots.used.';

-- ---------------------------------------------------------------------------
-- Worker locks and leases

-- lock_worker takes a worker's lease lock until the transaction ends.
CREATE OR REPLACE FUNCTION {{schema}}.lock_worker(worker_id text) RETURNS void
LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(1885827955, hashtext('{{schema}}.' || worker_id));
$$;

-- lock_workers takes several workers' lease locks, in key order.
CREATE OR REPLACE FUNCTION {{schema}}.lock_workers(worker_ids text[]) RETURNS void
LANGUAGE sql AS $$
    SELECT count(pg_advisory_xact_lock(1885827955, k)::text)
    FROM (SELECT DISTINCT hashtext('{{schema}}.' || u.w) AS k FROM unnest(worker_ids) AS u(w) ORDER BY 1) keys;
$$;

-- lease_spare returns, per type of types the worker leases, its leased
-- units and those no running task of the worker holds. A running task of a
-- limited type that holds no unit of its own runs on its worker's lease;
-- one claimed before its type had a limit counts too, which only makes the
-- spare smaller. (types is never NULL: callers name the types, so both
-- reads are index range scans.)
CREATE OR REPLACE FUNCTION {{schema}}.lease_spare(worker_id text, types text[])
RETURNS TABLE (task_type text, units integer, spare integer)
LANGUAGE sql STABLE AS $$
    SELECT l.task_type, l.units, greatest(l.units - coalesce(r.n, 0), 0)
    FROM (
        SELECT l.task_type, sum(l.units)::integer AS units FROM {{schema}}.unit_leases l
        WHERE l.worker_id = lease_spare.worker_id AND l.task_type = ANY (types)
        GROUP BY l.task_type
    ) l
    LEFT JOIN (
        SELECT t.type, count(*)::integer AS n FROM {{schema}}.tasks t
        WHERE t.worker_id = lease_spare.worker_id AND t.status = 'running' AND t.slot_group IS NULL
        GROUP BY t.type
    ) r ON r.type = l.task_type;
$$;

-- lease_room returns, for the limited types among types, whether each
-- drains and the worker's spare units of it (lease_spare). A type the
-- worker leases and that does not drain is limited (leases are only ever
-- of limited types, and pgseq apply, which waits for a claim in flight,
-- takes back a lease whose type loses its limit or makes the type drain):
-- only the other types are looked up. Hash joins: the arrays' sizes are
-- unknown to the planner, and a nested loop over them is quadratic.
CREATE OR REPLACE FUNCTION {{schema}}.lease_room(worker_id text, types text[])
RETURNS TABLE (task_type text, draining boolean, spare integer)
LANGUAGE plpgsql STABLE
SET enable_nestloop = off
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    v_draining text[];
BEGIN
    SELECT array_agg(tt.name) INTO v_draining FROM {{schema}}.task_types tt WHERE tt.draining;
    RETURN QUERY
    WITH wanted AS (
        SELECT DISTINCT u.t FROM unnest(types) AS u(t)
    ), leased AS (
        SELECT l.task_type AS t, sum(l.units)::integer AS units FROM {{schema}}.unit_leases l
        WHERE l.worker_id = lease_room.worker_id AND l.task_type = ANY (types)
        GROUP BY l.task_type
    ), busy AS (
        SELECT t.type AS t, count(*)::integer AS n FROM {{schema}}.tasks t
        WHERE t.worker_id = lease_room.worker_id AND t.status = 'running' AND t.slot_group IS NULL
        GROUP BY t.type
    ), kinds AS (
        SELECT w.t,
               CASE WHEN l.t IS NOT NULL AND NOT (w.t = ANY (coalesce(v_draining, '{}'))) THEN 'limited'
                    ELSE (SELECT CASE WHEN tt.concurrency IS NULL THEN 'free'
                                      WHEN tt.draining THEN 'draining' ELSE 'limited' END
                          FROM {{schema}}.task_types tt WHERE tt.name = w.t)
               END AS kind,
               greatest(coalesce(l.units, 0) - coalesce(b.n, 0), 0)::integer AS spare
        FROM wanted w
        LEFT JOIN leased l ON l.t = w.t
        LEFT JOIN busy b ON b.t = w.t
    )
    SELECT k.t, k.kind = 'draining', k.spare FROM kinds k WHERE k.kind IN ('limited', 'draining');
END;
$$;

-- lease_units takes up to wanted free units of a type for a lease, from as
-- few groups as it can: at most 8 slot rows, locked SKIP LOCKED, starting
-- at a group that depends on the worker (workers leasing the same type at
-- once mostly lock different rows). One element per unit, like take_units.
CREATE OR REPLACE FUNCTION {{schema}}.lease_units(worker_id text, task_type text, wanted integer) RETURNS integer[]
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_groups integer[];
    v_start  integer := abs(hashtext(lease_units.worker_id)) % 64;
BEGIN
    IF coalesce(wanted, 0) < 1 OR {{schema}}.type_draining(lease_units.task_type) THEN
        RETURN '{}';
    END IF;
    WITH free AS (
        SELECT s.slot_group, s.capacity - s.used AS free,
               (s.slot_group + v_start) % 64 AS ord
        FROM {{schema}}.concurrency_slots s
        WHERE s.task_type = lease_units.task_type AND s.used < s.capacity
        ORDER BY (s.slot_group + v_start) % 64, s.slot_group
        LIMIT least(wanted, 8)
        FOR UPDATE SKIP LOCKED
    ), take AS (
        SELECT f.slot_group,
               least(f.free, wanted - coalesce(sum(f.free) OVER (ORDER BY f.ord, f.slot_group
                                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS n
        FROM free f
    ), taken AS (
        UPDATE {{schema}}.concurrency_slots s SET used = s.used + t.n
        FROM take t
        WHERE s.task_type = lease_units.task_type AND s.slot_group = t.slot_group AND t.n > 0
        RETURNING s.slot_group, t.n
    )
    SELECT coalesce(array_agg(t.slot_group ORDER BY t.slot_group), '{}') INTO v_groups
    FROM taken t, generate_series(1, t.n);
    RETURN v_groups;
END;
$$;

-- extend_lease leases up to wanted free units of a type to a worker and
-- returns how many it got: none while the type's lock is held exclusive
-- (an apply is changing it: try-lock, never a wait) or the type drains
-- (lease_units). The caller holds the worker's lock.
CREATE OR REPLACE FUNCTION {{schema}}.extend_lease(worker_id text, task_type text, wanted integer) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_units integer[];
BEGIN
    IF coalesce(wanted, 0) < 1 OR NOT {{schema}}.try_lock_type(extend_lease.task_type) THEN
        RETURN 0;
    END IF;
    v_units := {{schema}}.lease_units(extend_lease.worker_id, extend_lease.task_type, wanted);
    INSERT INTO {{schema}}.unit_leases AS l (worker_id, task_type, slot_group, units)
    SELECT extend_lease.worker_id, extend_lease.task_type, u.g, count(*)::integer
    FROM unnest(v_units) AS u(g) GROUP BY u.g ORDER BY u.g
    ON CONFLICT (worker_id, task_type, slot_group) DO UPDATE SET units = l.units + excluded.units;
    RETURN cardinality(v_units);
END;
$$;

-- lease_chunk is how many units a lease grows by at least: an eighth of
-- the limit, at most 64, so a type's units spread over several workers and
-- a busy type's lease grows once per dozens of tasks.
CREATE OR REPLACE FUNCTION {{schema}}.lease_chunk(task_type text) RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT coalesce(least(64, greatest(1, tt.concurrency / 8)), 1)
    FROM (SELECT 1) one LEFT JOIN {{schema}}.task_types tt ON tt.name = lease_chunk.task_type;
$$;

-- shrink_leases takes back the worker's spare units of types (all when
-- NULL) and returns them, one element per unit, for the caller to offer
-- and give back (hand_off) or give back (give_back). The caller holds the
-- worker's lock and the types' locks. Units leave the highest groups first.
CREATE OR REPLACE FUNCTION {{schema}}.shrink_leases(worker_id text, types text[],
    OUT unit_types text[], OUT unit_groups integer[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    WITH spare AS (
        SELECT s.task_type, s.spare
        FROM {{schema}}.lease_spare(shrink_leases.worker_id,
                                    coalesce(types, (SELECT array_agg(DISTINCT l.task_type) FROM {{schema}}.unit_leases l
                                                     WHERE l.worker_id = shrink_leases.worker_id))) s
        WHERE s.spare > 0
    ), rows AS (
        SELECT l.task_type, l.slot_group, l.units, s.spare,
               coalesce(sum(l.units) OVER (PARTITION BY l.task_type ORDER BY l.slot_group DESC
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM {{schema}}.unit_leases l JOIN spare s ON s.task_type = l.task_type
        WHERE l.worker_id = shrink_leases.worker_id
    ), back AS (
        SELECT r.task_type, r.slot_group, least(r.units, greatest(r.spare - r.before, 0))::integer AS n
        FROM rows r
    ), shrunk AS (
        UPDATE {{schema}}.unit_leases l SET units = l.units - b.n
        FROM back b
        WHERE l.worker_id = shrink_leases.worker_id AND l.task_type = b.task_type
          AND l.slot_group = b.slot_group AND b.n > 0
        RETURNING l.task_type, l.slot_group, b.n
    )
    SELECT array_agg(s.task_type ORDER BY s.task_type, s.slot_group),
           array_agg(s.slot_group ORDER BY s.task_type, s.slot_group)
      INTO unit_types, unit_groups
    FROM shrunk s, generate_series(1, s.n);
    IF unit_types IS NOT NULL THEN
        DELETE FROM {{schema}}.unit_leases l
        WHERE l.worker_id = shrink_leases.worker_id AND l.task_type = ANY (unit_types) AND l.units = 0;
    END IF;
END;
$$;

-- return_spare_now gives a worker's spare units of types (all when NULL)
-- back to their groups from inside a claim, which holds the worker's lock:
-- only for the types whose lock it gets without waiting (the others are
-- kept for a later call). Units are not handed to waiting tasks here: the
-- next claim on the type's queue leases them to its worker and takes the
-- tasks (claim_lanes), and idle workers are woken for that when a lane
-- waits (then it returns true). A draining type whose drain this ends
-- admits again (end_drain).
CREATE OR REPLACE FUNCTION {{schema}}.return_spare_now(worker_id text, types text[]) RETURNS boolean
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
#variable_conflict use_column
DECLARE
    v_types    text[];
    v_draining text[];
    v_back     record;
BEGIN
    SELECT array_agg(x.t ORDER BY x.t) INTO v_types
    FROM (SELECT DISTINCT l.task_type AS t FROM {{schema}}.unit_leases l
          WHERE l.worker_id = return_spare_now.worker_id AND (types IS NULL OR l.task_type = ANY (types))) x
    WHERE {{schema}}.try_lock_type(x.t);
    IF v_types IS NULL THEN
        RETURN false;
    END IF;
    v_back := {{schema}}.shrink_leases(return_spare_now.worker_id, v_types);
    IF v_back.unit_types IS NULL THEN
        RETURN false;
    END IF;
    PERFORM {{schema}}.give_back(v_back.unit_types, v_back.unit_groups);
    -- Whether a drain ends is decided by one caller at a time (the
    -- admission lock, exclusive): two workers giving back the last units
    -- of a draining type at once would each still see the other's.
    SELECT array_agg(tt.name ORDER BY tt.name) INTO v_draining
    FROM {{schema}}.task_types tt WHERE tt.draining AND tt.name = ANY (v_types);
    IF v_draining IS NOT NULL THEN
        PERFORM {{schema}}.lock_admission(v_draining, true);
        PERFORM {{schema}}.end_drain(v_draining);
    END IF;
    PERFORM 1 FROM {{schema}}.tasks t
    WHERE t.type = ANY (v_back.unit_types) AND t.status = 'pending' AND t.gate = 'waiting'
    LIMIT 1;
    IF FOUND THEN
        -- Idle workers LISTEN on pgseq_tasks (payload: the schema; schema
        -- names need no quotes, so the literal is the quoted identifier).
        PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
        RETURN true;
    END IF;
    RETURN false;
END;
$$;

-- return_leases gives every spare unit a worker leases back: offered to
-- the lanes, then to the groups. A worker calls it when it stops (after
-- release); claims do it themselves when they come back short. Returns
-- the units given back.
CREATE OR REPLACE FUNCTION {{schema}}.return_leases(worker_id text) RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET jit = off
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_types text[];
    v_back  record;
BEGIN
    -- The types' locks, then the worker's (the locking order).
    SELECT array_agg(DISTINCT l.task_type) INTO v_types
    FROM {{schema}}.unit_leases l WHERE l.worker_id = return_leases.worker_id;
    IF v_types IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM {{schema}}.lock_types(v_types);
    PERFORM {{schema}}.lock_worker(return_leases.worker_id);
    v_back := {{schema}}.shrink_leases(return_leases.worker_id, v_types);
    PERFORM {{schema}}.requeue_limited(v_types, v_back.unit_types, v_back.unit_groups);
    RETURN coalesce(cardinality(v_back.unit_types), 0);
END;
$$;

-- ---------------------------------------------------------------------------
-- lock_types, exclusive (pgseq apply): the workers leasing the types too

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
            EXIT; -- every key held: the block's locks pass to the transaction
        EXCEPTION WHEN SQLSTATE 'PS031' THEN
            NULL;   -- released: wait for v_busy, holding none of them
        END;
    END LOOP;
    -- The workers leasing units of these types (step 2b): a claim of theirs
    -- in flight, which may be running a task on a spare unit, commits
    -- before the apply reads what they run; later ones wait for the apply.
    -- No worker can start leasing these types meanwhile (extend_lease
    -- try-locks the type).
    PERFORM {{schema}}.lock_workers(array_agg(DISTINCT l.worker_id))
    FROM {{schema}}.unit_leases l WHERE l.task_type = ANY (types);
END;
$$;

-- ---------------------------------------------------------------------------
-- hand_off: units of tasks that held their own go back to their groups

-- A task still holds a unit of its own when the admission repair, a raised
-- limit, a recovery or a release admitted it from its lane (admit_waiting).
-- When it ends, its unit goes back to its group, and the next claim on the
-- queue leases it to its worker with the lane's tasks (claim_lanes): units
-- no longer pass from task to task, which kept every later task of the type
-- on the slow path (a completion writing a slot row and probing the lane).
-- Idle workers are woken when a lane waits for the units given back. A
-- draining type whose drain this ends admits again; ending a drain is
-- decided by one caller at a time (the admission lock, exclusive). taker
-- and max_take are kept for callers (complete_and_take): nothing is taken.
CREATE OR REPLACE FUNCTION {{schema}}.hand_off(types text[], groups integer[],
    taker text DEFAULT NULL, max_take integer DEFAULT NULL, OUT taken {{schema}}.taken_task[])
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
DECLARE
    v_draining text[];
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    SELECT array_agg(tt.name ORDER BY tt.name) INTO v_draining
    FROM {{schema}}.task_types tt
    WHERE tt.draining AND tt.name IN (SELECT DISTINCT u.t FROM unnest(types) AS u(t));
    IF v_draining IS NOT NULL THEN
        PERFORM {{schema}}.lock_admission(v_draining, true);
    END IF;
    PERFORM {{schema}}.give_back(types, groups);
    IF v_draining IS NOT NULL THEN
        PERFORM {{schema}}.end_drain(v_draining);
    END IF;
    PERFORM 1 FROM {{schema}}.tasks t
    WHERE t.type IN (SELECT DISTINCT u.t FROM unnest(types) AS u(t)) AND t.status = 'pending' AND t.gate = 'waiting'
    LIMIT 1;
    IF FOUND THEN
        -- Idle workers LISTEN on pgseq_tasks (payload: the schema; schema
        -- names need no quotes, so the literal is the quoted identifier).
        PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
    END IF;
END;
$$;

-- ---------------------------------------------------------------------------
-- Claim

-- claim_lanes claims, for each limited type of the queue with tasks in its
-- lane, up to as many as the worker has spare leased units of it, in claim
-- order, at most n (and at most max_limited). A lane whose type has free
-- units and the worker no spare one gets a lease first (I5).
CREATE OR REPLACE FUNCTION {{schema}}.claim_lanes(queue text, worker_id text, n integer, max_limited integer)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql
SET jit = off
SET enable_seqscan = off
AS $$
#variable_conflict use_column
DECLARE
    v_types   text[];
    v_spare   integer[];
    v_room    integer[];
    v_lacking text[];
    v_other   text;
    v_back    record;
    i         integer;
BEGIN
    IF least(n, coalesce(max_limited, n)) < 1 THEN
        RETURN;
    END IF;
    -- 1. The lanes: one probe of tasks_waiting per type in it (a skip
    -- scan), the queue's limited types that do not drain; then the
    -- worker's spare units of each.
    WITH RECURSIVE lanes AS (
        (SELECT t.type FROM {{schema}}.tasks t
         WHERE t.status = 'pending' AND t.gate = 'waiting' ORDER BY t.type LIMIT 1)
        UNION ALL
        SELECT (SELECT t.type FROM {{schema}}.tasks t
                WHERE t.status = 'pending' AND t.gate = 'waiting' AND t.type > l.type
                ORDER BY t.type LIMIT 1)
        FROM lanes l WHERE l.type IS NOT NULL
    )
    SELECT array_agg(l.type ORDER BY l.type) INTO v_types
    FROM lanes l
    JOIN {{schema}}.task_types tt ON tt.name = l.type AND tt.queue = claim_lanes.queue
         AND tt.concurrency IS NOT NULL AND NOT tt.draining;
    IF v_types IS NULL THEN
        RETURN;
    END IF;
    SELECT array_agg(coalesce(s.spare, 0) ORDER BY u.ord) INTO v_spare
    FROM unnest(v_types) WITH ORDINALITY AS u(type, ord)
    LEFT JOIN {{schema}}.lease_spare(claim_lanes.worker_id, v_types) s ON s.task_type = u.type;

    -- 2. A lane beside free units, where the worker has fewer spare ones
    -- than the claim could take: the lease grows first (rare: units come
    -- free when a worker returns its spare ones, a limit is raised or a
    -- task holding its own unit ends; unneeded ones go back at the end of
    -- a short claim).
    v_room := v_spare;
    FOR i IN 1 .. cardinality(v_types) LOOP
        IF v_spare[i] < n AND EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                                      WHERE s.task_type = v_types[i] AND s.used < s.capacity) THEN
            v_room[i] := v_spare[i] + {{schema}}.extend_lease(claim_lanes.worker_id, v_types[i], n - v_spare[i]);
        END IF;
    END LOOP;

    -- 2b. Lanes still without room: the spare units of workers that have
    -- gone quiet (no heartbeat for a quarter of the shortest
    -- worker_timeout: killed, stuck or cut off) go back to their groups
    -- under those workers' locks, taken without waiting, and this worker
    -- leases them. Taking a worker's spare units is always safe under its
    -- lock (it runs nothing on them); a live worker only leases again.
    -- Without this a killed worker's spare units would wait for its
    -- recovery beside the lane (I5).
    SELECT array_agg(u.type) INTO v_lacking
    FROM unnest(v_types, v_room) AS u(type, room)
    WHERE u.room = 0 AND {{schema}}.try_lock_type(u.type);
    IF v_lacking IS NOT NULL THEN
        FOR v_other IN
            SELECT DISTINCT l.worker_id FROM {{schema}}.unit_leases l
            JOIN {{schema}}.workers w ON w.id = l.worker_id
            WHERE l.task_type = ANY (v_lacking) AND l.worker_id <> claim_lanes.worker_id
              AND {{schema}}.heard_from(w.last_heartbeat)
                  < now() - (SELECT coalesce(min(q.worker_timeout), interval '30 seconds') FROM {{schema}}.queues q) / 4
            ORDER BY 1
        LOOP
            IF pg_try_advisory_xact_lock(1885827955, hashtext('{{schema}}.' || v_other)) THEN
                v_back := {{schema}}.shrink_leases(v_other, v_lacking);
                IF v_back.unit_types IS NOT NULL THEN
                    PERFORM {{schema}}.give_back(v_back.unit_types, v_back.unit_groups);
                END IF;
            END IF;
        END LOOP;
        FOR i IN 1 .. cardinality(v_types) LOOP
            IF v_room[i] = 0 AND v_types[i] = ANY (v_lacking) THEN
                v_room[i] := {{schema}}.extend_lease(claim_lanes.worker_id, v_types[i], n);
            END IF;
        END LOOP;
    END IF;

    -- 3. The first tasks of each lane, as many as the room (one descent
    -- per lane), the first n of them in claim order: running on the
    -- worker's leased units. Tasks locked beyond n stay in their lane.
    RETURN QUERY
    WITH room AS (
        SELECT u.type, u.room FROM unnest(v_types, v_room) AS u(type, room) WHERE u.room > 0
    ), next AS (
        SELECT w.id, w.priority, w.run_at
        FROM room r, LATERAL (
            SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = r.type AND t.status = 'pending' AND t.gate = 'waiting'
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT r.room
            FOR UPDATE SKIP LOCKED
        ) w
    ), picked AS (
        SELECT x.id FROM next x
        ORDER BY x.priority DESC, x.run_at, x.id
        LIMIT least(n, coalesce(max_limited, n))
    )
    UPDATE {{schema}}.tasks t
    SET status = 'running', gate = 'open', worker_id = claim_lanes.worker_id, attempts = t.attempts + 1,
        claimed_at = now(), started_at = now(), updated_at = now()
    FROM picked WHERE t.id = picked.id
    RETURNING t.*;
END;
$$;

-- claim_open claims up to n open tasks of the queue in claim order (one
-- index scan, locked SKIP LOCKED), at most max_limited of them of limited
-- types. A task holding a unit of its own runs on it; one of a limited type
-- that holds none runs on a spare unit the worker leases, the lease growing
-- by at least a chunk where it lacks; those no unit is left for go to their
-- type's lane (once: claims never scan them again).
CREATE OR REPLACE FUNCTION {{schema}}.claim_open(queue text, worker_id text, n integer, max_limited integer)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql
SET jit = off
SET enable_seqscan = off
AS $$
#variable_conflict use_column
DECLARE
    c_ids    bigint[];
    c_types  text[];
    c_groups integer[];
    l_types  text[];
    l_room   integer[];
    l_lack   integer[];
    l_try    boolean[];
    i        integer;
    v_got    integer;
    v_pick   bigint[];
    v_demote bigint[];
BEGIN
    -- 1. The candidates, locked, in claim order.
    WITH candidates AS (
        SELECT t.id, t.type, t.slot_group, t.priority, t.run_at FROM {{schema}}.tasks t
        WHERE t.queue = claim_open.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT n
        FOR UPDATE SKIP LOCKED
    )
    SELECT array_agg(c.id ORDER BY c.priority DESC, c.run_at, c.id),
           array_agg(c.type ORDER BY c.priority DESC, c.run_at, c.id),
           array_agg(c.slot_group ORDER BY c.priority DESC, c.run_at, c.id)
      INTO c_ids, c_types, c_groups
    FROM candidates c;
    IF c_ids IS NULL THEN
        RETURN;
    END IF;

    -- 2. Per limited type among the candidates that hold no unit: the
    -- worker's spare units, and how many more they need (lease_room).
    WITH wanted AS (
        SELECT u.type, count(*)::integer AS k
        FROM unnest(c_types, c_groups) AS u(type, grp)
        WHERE u.grp IS NULL
        GROUP BY u.type
    )
    SELECT array_agg(r.task_type ORDER BY r.task_type),
           array_agg(CASE WHEN r.draining THEN 0 ELSE r.spare END ORDER BY r.task_type),
           array_agg(CASE WHEN r.draining THEN 0 ELSE greatest(w.k - r.spare, 0) END ORDER BY r.task_type),
           array_agg(true ORDER BY r.task_type)
      INTO l_types, l_room, l_lack, l_try
    FROM {{schema}}.lease_room(claim_open.worker_id, (SELECT array_agg(w.type) FROM wanted w)) r
    JOIN wanted w ON w.type = r.task_type;

    -- 3. Leases grow where they lack (a chunk at least: one slot-row write
    -- per type per chunk). A type whose lock an apply holds is not leased
    -- now: its candidates stay open for a later claim (l_try false).
    IF l_types IS NOT NULL THEN
        FOR i IN 1 .. cardinality(l_types) LOOP
            IF l_lack[i] > 0 AND l_try[i] THEN
                IF {{schema}}.try_lock_type(l_types[i]) THEN
                    v_got := {{schema}}.extend_lease(claim_open.worker_id, l_types[i],
                                                     greatest(l_lack[i], {{schema}}.lease_chunk(l_types[i])));
                    l_room[i] := l_room[i] + v_got;
                ELSE
                    l_try[i] := false;
                END IF;
            END IF;
        END LOOP;
    END IF;

    -- Nothing limited without a unit among them, and holders of a unit
    -- within max_limited: the fast path's claim.
    IF l_types IS NULL AND (max_limited IS NULL
                            OR (SELECT count(g) FROM unnest(c_groups) AS g) <= max_limited) THEN
        RETURN QUERY
        UPDATE {{schema}}.tasks t
        SET status = 'running', worker_id = claim_open.worker_id, attempts = t.attempts + 1,
            claimed_at = now(), started_at = now(), updated_at = now()
        FROM unnest(c_ids) AS p(id)
        WHERE t.id = p.id
        RETURNING t.*;
        RETURN;
    END IF;

    -- 4. Which candidates run: a holder of a unit; a task of an unlimited
    -- type; the k-th unitless task of a limited type while k is within the
    -- room. At most max_limited holders and leased ones, in claim order.
    -- Unitless tasks beyond the room go to the lane, unless their type
    -- could not be leased now (then they stay open).
    WITH c AS (
        SELECT u.id, u.type, u.grp, u.ord, r.room, r.try,
               row_number() OVER (PARTITION BY u.type, u.grp IS NULL ORDER BY u.ord) AS k
        FROM unnest(c_ids, c_types, c_groups) WITH ORDINALITY AS u(id, type, grp, ord)
        LEFT JOIN unnest(l_types, l_room, l_try) AS r(type, room, try) ON r.type = u.type AND u.grp IS NULL
    ), fits AS (
        SELECT c.*, (c.room IS NULL OR c.k <= c.room) AS fits,
               (c.grp IS NOT NULL OR c.room IS NOT NULL) AS limited
        FROM c
    ), capped AS (
        SELECT f.*, count(*) FILTER (WHERE f.limited AND f.fits) OVER (ORDER BY f.ord) AS holders
        FROM fits f
    )
    SELECT array_agg(x.id) FILTER (WHERE x.fits AND (NOT x.limited OR max_limited IS NULL OR x.holders <= max_limited)),
           array_agg(x.id) FILTER (WHERE NOT x.fits AND x.try)
      INTO v_pick, v_demote
    FROM capped x;

    -- 5. The tasks left without a unit go to their lane (they are due).
    IF v_demote IS NOT NULL THEN
        UPDATE {{schema}}.tasks t SET gate = 'waiting', updated_at = now()
        FROM unnest(v_demote) AS d(id)
        WHERE t.id = d.id;
    END IF;

    -- 6. The others run.
    RETURN QUERY
    UPDATE {{schema}}.tasks t
    SET status = 'running', worker_id = claim_open.worker_id, attempts = t.attempts + 1,
        claimed_at = now(), started_at = now(), updated_at = now()
    FROM unnest(v_pick) AS p(id)
    WHERE t.id = p.id
    RETURNING t.*;
END;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.claim(queue text, worker_id text, batch integer, max_limited integer DEFAULT NULL)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql
SECURITY DEFINER
SET jit = off
SET enable_seqscan = off
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_queue    text := claim.queue;
    v_worker   text := claim.worker_id;
    v_batch    integer := claim.batch;
    v_max      integer := claim.max_limited;
    v_got      integer := 0;
    v_n        integer;
    v_draining text[];
BEGIN
    IF v_batch IS NULL OR v_batch < 1 THEN
        RAISE EXCEPTION 'claim: batch must be at least 1, got %', v_batch USING ERRCODE = '22023';
    END IF;
    -- 0. The worker's lock (its leases: one claim at a time per worker; the
    -- recovery and pgseq apply wait for it), then whether it lives.
    PERFORM {{schema}}.lock_worker(v_worker);
    PERFORM 1 FROM {{schema}}.workers w WHERE w.id = v_worker AND w.dead_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker "%" is not registered or was declared dead', v_worker
            USING ERRCODE = 'PS002', HINT = 'Call register_worker first; a worker declared dead must register under a new id.';
    END IF;

    -- 1. Scheduled limited tasks now due go to their lane (an index probe
    -- when there are none).
    PERFORM 1 FROM {{schema}}.tasks t
    WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'scheduled' AND t.run_at <= now()
    LIMIT 1;
    IF FOUND THEN
        PERFORM {{schema}}.admit_due(v_queue, v_batch);
    END IF;

    -- 2. A draining type admits nothing (I4): the worker's spare units of
    -- one go back (an index probe when none drains).
    SELECT array_agg(tt.name) INTO v_draining FROM {{schema}}.task_types tt WHERE tt.draining;
    IF v_draining IS NOT NULL THEN
        PERFORM {{schema}}.return_spare_now(v_worker, v_draining);
    END IF;

    -- 3. The lanes, on the worker's leased units (an index probe when no
    -- task waits in any); then the open tasks.
    PERFORM 1 FROM {{schema}}.tasks t WHERE t.status = 'pending' AND t.gate = 'waiting' LIMIT 1;
    IF FOUND THEN
        RETURN QUERY SELECT * FROM {{schema}}.claim_lanes(v_queue, v_worker, v_batch, v_max);
        GET DIAGNOSTICS v_got = ROW_COUNT;
    END IF;
    IF v_got < v_batch THEN
        RETURN QUERY SELECT * FROM {{schema}}.claim_open(v_queue, v_worker, v_batch - v_got,
                                                         CASE WHEN v_max IS NOT NULL THEN greatest(v_max - v_got, 0) END);
        GET DIAGNOSTICS v_n = ROW_COUNT;
        v_got := v_got + v_n;
    END IF;

    -- (Claims no longer run the admission repair: step 3 leases a lane's
    -- free units and takes its tasks, which is what the repair did for a
    -- due task left waiting beside a free unit. The leader's maintenance
    -- still runs it, for lanes of queues nobody claims from.)

    -- 4. Short: the worker found no more work for its spare units, which
    -- go back to their groups.
    -- A lane waiting for them (its type's drain ended just now): this
    -- claim takes its tasks after all.
    IF v_got < v_batch AND {{schema}}.return_spare_now(v_worker, NULL) THEN
        RETURN QUERY SELECT * FROM {{schema}}.claim_lanes(v_queue, v_worker, v_batch - v_got,
                                                          CASE WHEN v_max IS NOT NULL THEN greatest(v_max - v_got, 0) END);
    END IF;
END;
$$;

-- ---------------------------------------------------------------------------
-- Enqueue: no unit taken; the gate says where the task waits

-- enqueue_gate is where a new pending task of a type goes: open when the
-- type has no limit, or is due, has an empty lane and a free unit (a
-- claimer's lease will admit it); waiting (its lane) when due otherwise;
-- scheduled when not due.
CREATE OR REPLACE FUNCTION {{schema}}.enqueue_gate(task_type text, limited boolean, run_at timestamptz)
RETURNS {{schema}}.task_gate
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN NOT limited THEN 'open'
        WHEN run_at > now() THEN 'scheduled'
        WHEN NOT EXISTS (SELECT 1 FROM {{schema}}.tasks t
                         WHERE t.type = enqueue_gate.task_type AND t.status = 'pending' AND t.gate = 'waiting')
             AND EXISTS (SELECT 1 FROM {{schema}}.concurrency_slots s
                         WHERE s.task_type = enqueue_gate.task_type AND s.used < s.capacity)
             AND NOT {{schema}}.type_draining(enqueue_gate.task_type) THEN 'open'
        ELSE 'waiting'
    END::{{schema}}.task_gate;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.enqueue(type text, payload jsonb DEFAULT NULL, idempotency_key text DEFAULT NULL,
    priority integer DEFAULT NULL, run_at timestamptz DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET jit = off
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_type  text := enqueue.type;
    v_key   text := enqueue.idempotency_key;
    v_at    timestamptz := coalesce(enqueue.run_at, now());
    v_queue text;
    v_prio  integer;
    v_lim   boolean;
    v_gate  {{schema}}.task_gate;
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

    -- 2. A key already used: its task.
    IF v_key IS NOT NULL THEN
        SELECT t.id INTO v_id FROM {{schema}}.tasks t WHERE t.type = v_type AND t.idempotency_key = v_key;
        IF v_id IS NOT NULL THEN
            RETURN v_id;
        END IF;
    END IF;

    -- 3. Insert where it waits (no unit: a claim admits it).
    v_gate := {{schema}}.enqueue_gate(v_type, v_lim, v_at);
    LOOP
        INSERT INTO {{schema}}.tasks AS t (queue, type, payload, priority, idempotency_key, run_at, gate)
        VALUES (v_queue, v_type, enqueue.payload, v_prio, v_key, v_at, v_gate)
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
    RETURN v_id;
END;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.enqueue_batch(types text[], payloads jsonb[] DEFAULT NULL,
    idempotency_keys text[] DEFAULT NULL, priorities integer[] DEFAULT NULL, run_ats timestamptz[] DEFAULT NULL)
RETURNS SETOF bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET jit = off
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    n         integer := coalesce(cardinality(types), 0);
    v_unknown text;
    v_ids     bigint[];
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

    -- 2. Insert. No unit is taken: per limited type, as many due tasks as
    -- it has free units go open when its lane is empty (a claimer's lease
    -- admits them), the others to the lane. Ids are drawn up front, in
    -- input order, so each input row knows its own and claim order among
    -- equal due times follows the input; rows that hit an idempotency
    -- conflict leave their id unused.
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
    ), room AS (
        -- Per limited type with due tasks here: how many may go open.
        SELECT d.type,
               CASE WHEN {{schema}}.type_draining(d.type)
                         OR EXISTS (SELECT 1 FROM {{schema}}.tasks t
                                    WHERE t.type = d.type AND t.status = 'pending' AND t.gate = 'waiting')
                    THEN 0
                    ELSE (SELECT coalesce(sum(s.capacity - s.used), 0) FROM {{schema}}.concurrency_slots s
                          WHERE s.task_type = d.type AND s.used < s.capacity)
               END AS room
        FROM (SELECT DISTINCT i.type FROM input i WHERE i.limited AND i.run_at <= now()) d
    ), rows AS (
        SELECT i.*,
               CASE WHEN NOT i.limited THEN 'open'
                    WHEN i.run_at > now() THEN 'scheduled'
                    WHEN row_number() OVER (PARTITION BY i.type, i.limited AND i.run_at <= now() ORDER BY i.ord)
                         <= r.room THEN 'open'
                    ELSE 'waiting' END::{{schema}}.task_gate AS gate
        FROM input i LEFT JOIN room r ON r.type = i.type
    ), inserted AS (
        INSERT INTO {{schema}}.tasks AS t (id, queue, type, payload, priority, idempotency_key, run_at, gate)
        OVERRIDING SYSTEM VALUE
        SELECT new_id, queue, type, payload, priority, key, run_at, gate FROM rows
        ORDER BY key IS NULL, type COLLATE "C", key COLLATE "C", ord
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id, t.type, t.idempotency_key
    )
    SELECT array_agg(coalesce(mine.id, same_batch.id, earlier.id) ORDER BY rows.ord) INTO v_ids
    FROM rows
    LEFT JOIN inserted mine ON mine.id = rows.new_id
    LEFT JOIN inserted same_batch ON rows.key IS NOT NULL
         AND same_batch.type = rows.type AND same_batch.idempotency_key = rows.key
    LEFT JOIN {{schema}}.tasks earlier ON rows.key IS NOT NULL
         AND earlier.type = rows.type AND earlier.idempotency_key = rows.key;

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
-- Leases go back: release, recovery, apply

CREATE OR REPLACE FUNCTION {{schema}}.release(task_ids bigint[], worker_id text) RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET jit = off
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    o       record;
    v_back  record;
    v_types text[];
    w_types text[];
    n       integer;
BEGIN
    -- 1. The fence: only the worker's own tasks, locked; then their types'
    -- locks, then the worker's (its leases).
    o := {{schema}}.lock_owned(task_ids, release.worker_id);
    IF o.ids IS NULL THEN
        RETURN 0;
    END IF;
    SELECT array_agg(DISTINCT t.type) INTO v_types FROM {{schema}}.tasks t WHERE t.id = ANY (o.ids);
    PERFORM {{schema}}.lock_types(v_types);
    PERFORM {{schema}}.lock_worker(release.worker_id);

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

    -- 3. The leased units the released tasks ran on are spare now: they go
    -- back with the tasks' own units, offered to the lanes first.
    v_back := {{schema}}.shrink_leases(release.worker_id, v_types);
    PERFORM {{schema}}.requeue_limited(w_types,
                                       coalesce(o.unit_types, '{}') || coalesce(v_back.unit_types, '{}'),
                                       coalesce(o.unit_groups, '{}') || coalesce(v_back.unit_groups, '{}'));
    RETURN n;
END;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers() RETURNS jsonb
LANGUAGE plpgsql
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    v_ids     bigint[];
    v_types   text[];
    v_silent  text[];
    v_owners  text[];
    l_types   text[];
    l_groups  integer[];
    r_types   text[];
    r_groups  integer[];
    w_types   text[];
    n_pending integer;
    n_dead    integer;
    n_workers integer;
BEGIN
    -- The caller (the leader's maintenance) reached the database: after a
    -- gap, every worker gets a fresh worker_timeout before it is judged.
    PERFORM {{schema}}.note_contact();

    -- 0. The live workers that may be declared dead (silent for longer than
    -- the shortest worker_timeout), locked in id order before their tasks:
    -- complete_and_take reads its worker's row FOR KEY SHARE before it
    -- hands the worker tasks, so those tasks are either seen below or never
    -- handed to a worker this recovery declares dead.
    SELECT array_agg(silent.id) INTO v_silent FROM (
        SELECT w.id FROM {{schema}}.workers w
        WHERE w.dead_at IS NULL
          AND {{schema}}.heard_from(w.last_heartbeat) < now() - (SELECT coalesce(min(q.worker_timeout), interval '30 seconds')
                                          FROM {{schema}}.queues q)
        ORDER BY w.id
        FOR UPDATE
    ) silent;

    -- 1. Every running task, by tasks_held, whose worker is gone or silent:
    -- locked, in id order.
    SELECT array_agg(v.id ORDER BY v.id), array_agg(DISTINCT v.type), array_agg(DISTINCT v.worker_id)
      INTO v_ids, v_types, v_owners
    FROM (
        SELECT t.id, t.type, t.worker_id FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        WHERE t.status = 'running'
          AND (w.id IS NULL OR w.dead_at IS NOT NULL
               OR {{schema}}.heard_from(w.last_heartbeat) < now() - coalesce(q.worker_timeout, interval '30 seconds'))
        ORDER BY t.id
        FOR UPDATE OF t
    ) v;

    -- 2. The types' locks, all at once: the tasks' types and the types
    -- leased by the workers this recovery may declare dead (or declared
    -- dead before); then those workers' locks (step 2b: a claim of theirs
    -- in flight commits first, later ones find them dead).
    SELECT array_agg(DISTINCT l.task_type) INTO l_types
    FROM {{schema}}.unit_leases l
    LEFT JOIN {{schema}}.workers w ON w.id = l.worker_id
    WHERE l.worker_id = ANY (coalesce(v_silent, '{}') || coalesce(v_owners, '{}'))
       OR w.id IS NULL OR w.dead_at IS NOT NULL;
    v_types := coalesce(v_types, '{}') || coalesce(l_types, '{}');
    IF cardinality(v_types) > 0 THEN
        PERFORM {{schema}}.lock_types(v_types);
    END IF;
    PERFORM {{schema}}.lock_workers(coalesce(v_silent, '{}') || coalesce(v_owners, '{}'));

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
               OR {{schema}}.heard_from(w.last_heartbeat) < now() - (SELECT coalesce(max(q.worker_timeout), interval '30 seconds')
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

    -- 5. Every unit the dead workers leased goes back with the recovered
    -- tasks' own (their tasks are pending again: no unit of theirs is in
    -- use), in this transaction.
    WITH gone AS (
        DELETE FROM {{schema}}.unit_leases l
        USING {{schema}}.workers w
        WHERE w.id = l.worker_id AND w.dead_at IS NOT NULL
        RETURNING l.task_type, l.slot_group, l.units
    ), orphans AS (
        DELETE FROM {{schema}}.unit_leases l
        WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.workers w WHERE w.id = l.worker_id)
        RETURNING l.task_type, l.slot_group, l.units
    )
    SELECT array_agg(g.task_type ORDER BY g.task_type, g.slot_group),
           array_agg(g.slot_group ORDER BY g.task_type, g.slot_group)
      INTO l_types, l_groups
    FROM (SELECT * FROM gone UNION ALL SELECT * FROM orphans) g, generate_series(1, g.units);
    IF l_types IS NOT NULL THEN
        r_types := coalesce(r_types, '{}') || l_types;
        r_groups := coalesce(r_groups, '{}') || l_groups;
        SELECT array_agg(DISTINCT x.t) INTO w_types
        FROM unnest(coalesce(w_types, '{}') || l_types) AS x(t);
    END IF;

    -- 6. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers);
END;
$$;

-- rebalance_units (pgseq apply, which holds the types' locks exclusive and
-- so the locks of the workers leasing them): leases shrink to what their
-- workers run first, so a lowered limit drains strictly; then as before.
CREATE OR REPLACE FUNCTION {{schema}}.rebalance_units(types text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_worker text;
    v_back   record;
BEGIN
    -- 0. Leases back down to the tasks running on them.
    FOR v_worker IN
        SELECT DISTINCT l.worker_id FROM {{schema}}.unit_leases l WHERE l.task_type = ANY (types) ORDER BY 1
    LOOP
        v_back := {{schema}}.shrink_leases(v_worker, types);
        IF v_back.unit_types IS NOT NULL THEN
            PERFORM {{schema}}.give_back(v_back.unit_types, v_back.unit_groups);
        END IF;
    END LOOP;

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

-- New functions: PUBLIC gets nothing (migration 008). return_leases is a
-- worker's entry point (the work access level, catalog.workFunctions) and
-- the read level reads every table: the roles pgseq apply granted those
-- levels get the new ones too.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {{schema}} FROM PUBLIC;
REVOKE ALL ON TABLE {{schema}}.unit_leases FROM PUBLIC;
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT g.role, g.level FROM {{schema}}.grants g
             WHERE g.level IN ('work', 'read') AND to_regrole(quote_ident(g.role)) IS NOT NULL ORDER BY 1, 2 LOOP
        IF r.level = 'work' THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', '{{schema}}.return_leases(text)', r.role);
        ELSE
            EXECUTE format('GRANT SELECT ON TABLE %s TO %I', '{{schema}}.unit_leases', r.role);
        END IF;
    END LOOP;
END;
$$;
