-- pgseq schema, version 17: a task type's lock is one of 1,024 per schema.
-- {{schema}} is replaced by the quoted schema name.
--
-- An apply took each changed task type's advisory lock (and, since version
-- 10, the name-only key of versions before it) in one transaction, and the
-- admission lock of each once more to admit into new units: three entries
-- of the server's shared lock table per type. On a default server
-- (max_locks_per_transaction 64, max_connections 300) the first apply of
-- 10,000 limited types went through and that of 20,000 failed with "out
-- of shared memory" (53200), nothing applied; only a restart with a larger
-- max_locks_per_transaction let it through.
--
-- Now:
--   - type_lock_key maps a type to one of 1,024 keys of its schema (a hash
--     bucket): the runtime takes its types' keys shared, as before, and an
--     apply takes at most 1,024 keys exclusive, however many types it
--     changes. A type that shares a key with one an apply changes waits for
--     that apply too (1 in 1,024 of the others, for an apply of one type);
--     the exclusion and the locking order are those of versions 10-16.
--   - the name-only keys of versions before 10 are no longer taken.
--   - rebalance_units (only an apply calls it, holding its types' locks
--     exclusive) admits without admission locks: every admission takes its
--     type's lock shared first, so none can run beside it.
--   - the apply creates no lock for a type it creates: no runtime call sees
--     the type before the apply commits (applier, not this file).
-- Admission locks (lock_admission, try_admit_types) stay one per type:
-- only runtime calls take them, a few types at a time.
--
-- While the apply that upgrades a schema to this version commits, runtime
-- sessions still run version 16's definitions, which take the per-type key
-- (slot_lock_key): that apply also takes those keys, exclusive, through
-- lock_types_v16, for the types it changes.

-- type_lock_key is the second key of a task type's lock (class 1885827953):
-- one of 1,024 per schema. Schema names are [a-z_][a-z0-9_]*, so the
-- literal holds no quote to escape. Every part of it is immutable, the
-- bucket cast to text explicitly (text || integer is anytextcat, only
-- stable), so the planner inlines it rather than calling it once per type
-- (200 calls in a completion batch of 200 types; no throughput change
-- that bench ab could see, 6 quick rounds, but no reason to pay them).
CREATE OR REPLACE FUNCTION {{schema}}.type_lock_key(task_type text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtext('{{schema}}#' || (hashtext(task_type) & 1023)::text) $$;

-- lock_keys_exclusive takes type-lock keys (class 1885827953),
-- exclusive, all or none at a time: it tries each in order, and when one
-- is held it releases those it took and waits for that one alone before
-- trying again. An apply never holds one key while it waits for another,
-- so a runtime call that holds a key and waits for another (in key order)
-- never waits for an apply that waits for it.
CREATE OR REPLACE FUNCTION {{schema}}.lock_keys_exclusive(keys integer[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_keys integer[];
    v_busy integer;
    k      integer;
BEGIN
    SELECT array_agg(DISTINCT u.k ORDER BY u.k) INTO v_keys FROM unnest(keys) AS u(k);
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

-- lock_types takes the locks of task types, shared (the runtime: in key
-- order, waiting for each) or exclusive (pgseq apply: lock_keys_exclusive).
-- Released at the end of the transaction.
CREATE OR REPLACE FUNCTION {{schema}}.lock_types(types text[], exclusive boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT exclusive THEN
        PERFORM count(pg_advisory_xact_lock_shared(1885827953, x.k)::text)
        FROM (SELECT DISTINCT {{schema}}.type_lock_key(u.t) AS k FROM unnest(types) AS u(t) ORDER BY 1) x;
        RETURN;
    END IF;
    PERFORM {{schema}}.lock_keys_exclusive(ARRAY(SELECT {{schema}}.type_lock_key(u.t) FROM unnest(types) AS u(t)));
END;
$$;

-- lock_types_v16 takes, exclusive, the keys version 16's runtime takes for
-- types (one per type): only the apply that upgrades a schema to this
-- version calls it, for the types it changes.
CREATE OR REPLACE FUNCTION {{schema}}.lock_types_v16(types text[]) RETURNS void
LANGUAGE sql AS $$
    SELECT {{schema}}.lock_keys_exclusive(ARRAY(SELECT {{schema}}.slot_lock_key(u.t) FROM unnest(types) AS u(t)));
$$;

-- try_lock_type takes a type's lock shared if it is free now.
CREATE OR REPLACE FUNCTION {{schema}}.try_lock_type(task_type text) RETURNS boolean
LANGUAGE sql AS $$
    SELECT pg_try_advisory_xact_lock_shared(1885827953, {{schema}}.type_lock_key(task_type));
$$;

-- enqueue: as in version 12, with the type's lock by type_lock_key.
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
    PERFORM pg_advisory_xact_lock_shared(1885827953, {{schema}}.type_lock_key(v_type));
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

-- rebalance_units: as in version 12, admitting without admission locks.
CREATE OR REPLACE FUNCTION {{schema}}.rebalance_units(types text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_type text;
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

    -- 3. Free units to the lanes. The apply holds these types' locks
    -- exclusive, and every admission takes its type's lock shared before
    -- its admission lock: none can run, so none is taken here (one per
    -- type, they filled the server's lock table at 20,000 types).
    FOREACH v_type IN ARRAY types LOOP
        PERFORM {{schema}}.admit_waiting(v_type);
    END LOOP;
END;
$$;

-- New functions are the owner's alone (as every function since version 8).
REVOKE ALL ON FUNCTION {{schema}}.type_lock_key(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION {{schema}}.lock_keys_exclusive(integer[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION {{schema}}.lock_types_v16(text[]) FROM PUBLIC;
