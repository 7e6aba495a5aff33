-- pgseq schema, version 19: per-key limits (a task block's partition
-- block). {{schema}} is replaced by the quoted schema name.
--
-- The model (README "Per-key limits"):
--   - A partitioned task type has a per-key limit (task_types.partition_limit)
--     and, optionally, the payload field its key is read from
--     (partition_by). Each task of the type carries its key
--     (tasks.partition_key), given to enqueue or read from the payload.
--   - A key's units are counted in partition_slots, one row per key that
--     has work: created by the first task of the key that becomes due,
--     deleted as soon as the key has no task holding a unit and none
--     waiting for one. 10 million distinct keys over a week leave no rows
--     behind.
--   - A due task of a partitioned type first waits for a unit of its key
--     (key_wait: gate 'scheduled', kept out of tasks_scheduled, in its
--     key's lane tasks_key_waiting). Admitted by its key (key_unit), it
--     then goes the way any task of its type goes: open for claimers, or
--     to its type's lane when the type also has a limit. It holds the key
--     unit until it completes, fails or dies: a task released back to
--     pending (release, recovery) keeps it, and is claimed again first.
--   - Keys take turns: a task admitted by its key takes the admission's
--     time as its run_at, so the type's lane (and the queue's claim order)
--     serves keys in the order they were admitted, not in the order their
--     tasks were enqueued. Within a key, the key's lane keeps claim order
--     (priority, run_at, id).
-- Exactness: every admission and release of a key unit holds the key's
-- row (FOR UPDATE) and looks for the key's waiting tasks only then, in a
-- statement of its own: an enqueue that inserted a task before a release
-- took the row is seen by it once committed, or admits itself once the
-- release committed. Locking order, extended: task rows, type locks,
-- admission locks, slot rows, key rows (several in (type, key) order,
-- bytewise). No function waits for anything else while holding a key
-- row: the key lane and the type's units are taken SKIP LOCKED.

ALTER TABLE {{schema}}.task_types
    ADD COLUMN partition_limit integer CHECK (partition_limit >= 1 AND partition_limit <= 1000000),
    ADD COLUMN partition_by text;
COMMENT ON COLUMN {{schema}}.task_types.partition_limit IS 'Per-key limit: at most this many tasks of one partition key hold a unit (pending admitted or running); NULL for a type without a partition block.';
COMMENT ON COLUMN {{schema}}.task_types.partition_by IS 'The top-level payload field a task''s partition key is read from when enqueue is given none; NULL: the key must be given.';

ALTER TABLE {{schema}}.tasks
    ADD COLUMN partition_key text,
    ADD COLUMN key_wait boolean NOT NULL DEFAULT false,
    ADD COLUMN key_unit boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN {{schema}}.tasks.key_wait IS 'Due, waiting for a unit of its partition key (gate scheduled, out of tasks_scheduled).';
COMMENT ON COLUMN {{schema}}.tasks.key_unit IS 'Holds a unit of its partition key: cleared in the statement that gives the unit back.';

CREATE TABLE {{schema}}.partition_slots (
    task_type     text NOT NULL,
    partition_key text NOT NULL,
    used          integer NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (task_type, partition_key)
) WITH (fillfactor = 50);
COMMENT ON TABLE {{schema}}.partition_slots IS 'Units in use per partition key, a row per key with work; used by the runtime only.';

-- A key's lane: its due tasks waiting for one of its units.
CREATE INDEX tasks_key_waiting ON {{schema}}.tasks (type, partition_key, priority DESC, run_at, id)
    WHERE status = 'pending' AND key_wait;
-- Scheduled tasks, without those waiting for their key (which are due).
DROP INDEX {{schema}}.tasks_scheduled;
CREATE INDEX tasks_scheduled ON {{schema}}.tasks (queue, run_at)
    WHERE status = 'pending' AND gate = 'scheduled' AND NOT key_wait;

-- admit_keys: the keys' waiting tasks take the keys' free units. Called
-- with one (type, key) pair per task: when freed, each pair is also one
-- unit given back first (a completion, a failure, a dead letter). For each
-- key, in (type, key) order, bytewise:
--   1. its row, locked (created when missing: the key gets work);
--   2. the units given back (a row with fewer units in use than come
--      back is a bug: PS030, as for slot units);
--   3. the first tasks of the key's lane, up to its free units, admitted:
--      run_at becomes now, plus a microsecond per task the key admitted
--      before in this call (keys take turns), open, or waiting in the
--      type's lane when the type is limited;
--   4. the row deleted when the key holds no unit and nothing waits.
-- Then the admitted tasks of limited types take free units of their type
-- (SKIP LOCKED, as enqueue does; one left without waits in its lane).
-- Returns how many tasks it opened for claimers.
CREATE FUNCTION {{schema}}.admit_keys(types text[], keys text[], freed boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    v_type    text;
    v_key     text;
    v_back    integer;
    v_lim     integer;
    v_limited boolean;
    v_used    integer;
    v_ids     bigint[];
    w_ids     bigint[] := '{}';
    v_units   integer[];
    v_opened  integer := 0;
    n         integer;
BEGIN
    FOR v_type, v_key, v_back, v_lim, v_limited IN
        SELECT u.t, u.k, count(*)::integer, tt.partition_limit, tt.concurrency IS NOT NULL
        FROM unnest(types, keys) AS u(t, k)
        LEFT JOIN {{schema}}.task_types tt ON tt.name = u.t
        WHERE u.k IS NOT NULL
        GROUP BY u.t, u.k, tt.partition_limit, tt.concurrency
        ORDER BY u.t COLLATE "C", u.k COLLATE "C"
    LOOP
        -- 1. The key's row, locked.
        LOOP
            SELECT s.used INTO v_used FROM {{schema}}.partition_slots s
            WHERE s.task_type = v_type AND s.partition_key = v_key
            FOR UPDATE;
            EXIT WHEN FOUND;
            INSERT INTO {{schema}}.partition_slots (task_type, partition_key) VALUES (v_type, v_key)
            ON CONFLICT DO NOTHING;
        END LOOP;
        -- 2. Units given back.
        IF freed THEN
            IF v_used < v_back THEN
                RAISE EXCEPTION 'a partition key unit was given back twice: % key "%" (% given back, % in use)',
                    v_type, v_key, v_back, v_used
                    USING ERRCODE = 'PS030',
                          HINT = 'This is a pgseq bug (invariant I3): please report it with the output of pgseq status.';
            END IF;
            v_used := v_used - v_back;
        END IF;
        -- 3. The key's first waiting tasks, up to its free units (none when
        -- the type is no longer partitioned: pgseq apply releases those).
        v_ids := NULL;
        IF v_lim IS NOT NULL AND v_used < v_lim THEN
            WITH next AS (
                SELECT t.id, row_number() OVER (ORDER BY t.priority DESC, t.run_at, t.id) AS turn
                FROM (SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
                      WHERE t.type = v_type AND t.partition_key = v_key AND t.status = 'pending' AND t.key_wait
                      ORDER BY t.priority DESC, t.run_at, t.id
                      LIMIT v_lim - v_used
                      FOR UPDATE SKIP LOCKED) t
            ), admitted AS (
                -- The k-th task a key admits in this call runs at now + k-1
                -- microseconds: the keys admitted together alternate.
                UPDATE {{schema}}.tasks t
                SET key_wait = false, key_unit = true, updated_at = now(),
                    run_at = greatest(t.run_at, now() + (next.turn - 1) * interval '1 microsecond'),
                    gate = CASE WHEN v_limited THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate
                FROM next WHERE t.id = next.id
                RETURNING t.id, t.priority
            )
            SELECT array_agg(a.id ORDER BY a.priority DESC, a.id) INTO v_ids FROM admitted a;
        END IF;
        n := coalesce(cardinality(v_ids), 0);
        v_used := v_used + n;
        -- 4. The row follows.
        IF v_used = 0 AND NOT EXISTS (
            SELECT 1 FROM {{schema}}.tasks t
            WHERE t.type = v_type AND t.partition_key = v_key AND t.status = 'pending' AND t.key_wait) THEN
            DELETE FROM {{schema}}.partition_slots s WHERE s.task_type = v_type AND s.partition_key = v_key;
        ELSIF freed OR n > 0 THEN
            UPDATE {{schema}}.partition_slots s SET used = v_used
            WHERE s.task_type = v_type AND s.partition_key = v_key;
        END IF;
        IF n > 0 AND v_limited THEN
            w_ids := w_ids || v_ids;
        ELSE
            v_opened := v_opened + n;
        END IF;
    END LOOP;

    -- The admitted tasks of limited types: units of their types, in claim
    -- order per type.
    IF cardinality(w_ids) > 0 THEN
        FOR v_type, v_ids IN
            SELECT t.type, array_agg(t.id ORDER BY t.priority DESC, t.run_at, t.id)
            FROM {{schema}}.tasks t WHERE t.id = ANY (w_ids)
            GROUP BY t.type ORDER BY t.type
        LOOP
            v_units := {{schema}}.take_units(v_type, cardinality(v_ids));
            UPDATE {{schema}}.tasks t SET gate = 'open', slot_group = u.grp
            FROM unnest(v_ids[1:cardinality(v_units)], v_units) AS u(id, grp)
            WHERE t.id = u.id;
            v_opened := v_opened + cardinality(v_units);
        END LOOP;
    END IF;
    RETURN v_opened;
END;
$$;

-- partition_key_of: the key a task of a type is enqueued with: the one
-- given, else the declared payload field's value (text, as ->> gives it).
-- NULL for a type without a partition block (a key given is ignored: a
-- client may still pass keys while a block is being removed).
CREATE FUNCTION {{schema}}.partition_key_of(tt {{schema}}.task_types, payload jsonb, given text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE WHEN tt.partition_limit IS NOT NULL
                THEN coalesce(given, payload ->> tt.partition_by) END
$$;

-- enqueue, with a partition key. The old signature goes (a call without
-- partition_key resolves to the new one: it defaults to NULL).
DROP FUNCTION {{schema}}.enqueue(text, jsonb, text, integer, timestamptz);
CREATE FUNCTION {{schema}}.enqueue(type text, payload jsonb DEFAULT NULL, idempotency_key text DEFAULT NULL,
                                   priority integer DEFAULT NULL, run_at timestamptz DEFAULT NULL,
                                   partition_key text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_type  text := enqueue.type;
    v_key   text := enqueue.idempotency_key;
    v_at    timestamptz := coalesce(enqueue.run_at, now());
    tt      {{schema}}.task_types;
    v_pkey  text;
    v_prio  integer;
    v_unit  integer;
    v_gate  {{schema}}.task_gate := 'open';
    v_kwait boolean := false;
    v_id    bigint;
BEGIN
    -- 1. The type's lock (lock_types' key, shared), then the type.
    PERFORM pg_advisory_xact_lock_shared(1885827953, {{schema}}.type_lock_key(v_type));
    SELECT * INTO tt FROM {{schema}}.task_types t WHERE t.name = v_type;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_type
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;
    v_prio := coalesce(enqueue.priority, tt.priority);
    IF tt.partition_limit IS NOT NULL THEN
        -- A partitioned task waits for its key first (after the insert).
        v_pkey := {{schema}}.partition_key_of(tt, enqueue.payload, enqueue.partition_key);
        IF v_pkey IS NULL THEN
            RAISE EXCEPTION 'task type "%" is partitioned: enqueue needs a partition key', v_type
                USING ERRCODE = 'PS032',
                      HINT = CASE WHEN tt.partition_by IS NULL THEN 'Pass partition_key.'
                                  ELSE format('Pass partition_key, or a payload with a non-null top-level field "%s".', tt.partition_by) END;
        END IF;
        v_gate := 'scheduled';
        v_kwait := v_at <= now();
    ELSIF tt.concurrency IS NOT NULL THEN
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
        INSERT INTO {{schema}}.tasks AS t (queue, type, payload, priority, idempotency_key, run_at, gate, slot_group,
                                           partition_key, key_wait)
        VALUES (tt.queue, v_type, enqueue.payload, v_prio, v_key, v_at, v_gate, v_unit, v_pkey, v_kwait)
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
    -- 5. A due partitioned task: its key admits it, or it waits in the
    -- key's lane (the key's row is taken after the insert: never held
    -- while the insert waits for an idempotency key).
    IF v_kwait THEN
        PERFORM {{schema}}.admit_keys(ARRAY[v_type], ARRAY[v_pkey]);
    END IF;
    RETURN v_id;
END;
$$;

-- enqueue_batch, with partition keys (a parallel array). Rows of
-- partitioned types take no unit of their type before the insert: they
-- wait for their key first, and their keys admit them after the insert
-- and after every unit the call takes (slot rows before key rows).
DROP FUNCTION {{schema}}.enqueue_batch(text[], jsonb[], text[], integer[], timestamptz[]);
CREATE FUNCTION {{schema}}.enqueue_batch(types text[], payloads jsonb[] DEFAULT NULL, idempotency_keys text[] DEFAULT NULL,
                                         priorities integer[] DEFAULT NULL, run_ats timestamptz[] DEFAULT NULL,
                                         partition_keys text[] DEFAULT NULL)
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
    v_keyed   boolean;
    v_ord     bigint;
    k_types   text[];
    k_keys    text[];
BEGIN
    -- 0. The arrays: one row per index 1..n.
    IF (array_ndims(types) > 1 OR array_lower(types, 1) <> 1)
       OR (array_ndims(payloads) > 1 OR array_lower(payloads, 1) <> 1)
       OR (array_ndims(idempotency_keys) > 1 OR array_lower(idempotency_keys, 1) <> 1)
       OR (array_ndims(priorities) > 1 OR array_lower(priorities, 1) <> 1)
       OR (array_ndims(run_ats) > 1 OR array_lower(run_ats, 1) <> 1)
       OR (array_ndims(partition_keys) > 1 OR array_lower(partition_keys, 1) <> 1) THEN
        RAISE EXCEPTION 'enqueue_batch: every array must be one-dimensional and start at index 1'
            USING ERRCODE = '22023', HINT = 'Pass plain arrays such as ARRAY[''a'', ''b''].';
    END IF;
    IF (payloads IS NOT NULL AND cardinality(payloads) <> n)
       OR (idempotency_keys IS NOT NULL AND cardinality(idempotency_keys) <> n)
       OR (priorities IS NOT NULL AND cardinality(priorities) <> n)
       OR (run_ats IS NOT NULL AND cardinality(run_ats) <> n)
       OR (partition_keys IS NOT NULL AND cardinality(partition_keys) <> n) THEN
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
    -- Every row of a partitioned type has a key.
    SELECT i.ord, i.type INTO v_ord, v_type
    FROM unnest(types) WITH ORDINALITY AS i(type, ord)
    JOIN {{schema}}.task_types t ON t.name = i.type
    WHERE t.partition_limit IS NOT NULL
      AND {{schema}}.partition_key_of(t, payloads[i.ord], partition_keys[i.ord]) IS NULL
    ORDER BY i.ord LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'enqueue_batch: task % (type "%") has no partition key: the type is partitioned', v_ord, v_type
            USING ERRCODE = 'PS032',
                  HINT = 'Pass partition_keys, or payloads with the top-level field the type''s partition block names.';
    END IF;

    -- 2. A key already used by a task this call sees is not inserted again
    -- (the task is returned): its insert would wait for whoever is
    -- finishing that task. Does the call insert any key?
    SELECT idempotency_keys IS NOT NULL AND EXISTS (
        SELECT 1 FROM unnest(types, idempotency_keys) AS u(type, key)
        WHERE u.key IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM {{schema}}.tasks e WHERE e.type = u.type AND e.idempotency_key = u.key))
      INTO v_keyed;

    -- 3. Without a key to insert, the insert never waits: units for the due
    -- rows of limited (unpartitioned) types first, per type, and each row
    -- is inserted with its unit. With one, every unit is taken after the
    -- insert (step 5), so the call never waits for a key while holding a
    -- unit it took: a completion finishing the key's task may be waiting
    -- for that unit's slot row.
    FOR v_type, v_want IN
        SELECT u.type, count(*)::integer
        FROM unnest(types, run_ats, idempotency_keys) AS u(type, at, key)
        JOIN {{schema}}.task_types t ON t.name = u.type AND t.concurrency IS NOT NULL AND t.partition_limit IS NULL
        WHERE NOT v_keyed AND coalesce(u.at, now()) <= now() AND u.key IS NULL
        GROUP BY u.type ORDER BY u.type
    LOOP
        v_got := {{schema}}.take_units(v_type, v_want);
        u_types := u_types || array_fill(v_type, ARRAY[cardinality(v_got)]);
        u_groups := u_groups || v_got;
    END LOOP;

    -- 4. Insert, the k-th keyless due task of a type with the k-th unit of
    -- that type. Ids are drawn up front, in input order, so each input row
    -- knows its own and claim order among equal due times follows the
    -- input; rows that hit an idempotency conflict leave their id unused.
    -- A partitioned row is inserted waiting for its key (scheduled; key_wait
    -- when due).
    WITH input AS (
        SELECT x.*, nextval('{{schema}}.tasks_id_seq') AS new_id
        FROM (
            SELECT i.ord, i.type, payloads[i.ord] AS payload, idempotency_keys[i.ord] AS key,
                   coalesce(priorities[i.ord], t.priority) AS priority,
                   coalesce(run_ats[i.ord], now()) AS run_at,
                   t.queue, t.concurrency IS NOT NULL AND t.partition_limit IS NULL AS limited,
                   {{schema}}.partition_key_of(t, payloads[i.ord], partition_keys[i.ord]) AS pkey
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
        -- earlier_id: the task that already uses the row's key, as this
        -- statement sees it (looked up once: it is not inserted again,
        -- and it is the row's id).
        SELECT r.*, u.grp, e.id AS earlier_id,
               CASE WHEN r.pkey IS NOT NULL THEN 'scheduled'
                    WHEN NOT r.limited OR u.grp IS NOT NULL THEN 'open'
                    WHEN r.run_at <= now() THEN 'waiting'
                    ELSE 'scheduled' END::{{schema}}.task_gate AS gate
        FROM ranked r
        LEFT JOIN units u ON u.type = r.type AND u.k = r.k
        LEFT JOIN {{schema}}.tasks e ON r.key IS NOT NULL AND e.type = r.type AND e.idempotency_key = r.key
    ), inserted AS (
        INSERT INTO {{schema}}.tasks AS t (id, queue, type, payload, priority, idempotency_key, run_at, gate, slot_group,
                                           partition_key, key_wait)
        OVERRIDING SYSTEM VALUE
        SELECT new_id, queue, type, payload, priority, key, run_at, gate, grp,
               pkey, pkey IS NOT NULL AND run_at <= now() FROM rows
        WHERE rows.earlier_id IS NULL
        ORDER BY key IS NULL, type COLLATE "C", key COLLATE "C", ord
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id, t.type, t.idempotency_key, t.gate, t.key_wait, t.partition_key
    ), ids AS (
        SELECT array_agg(coalesce(mine.id, same_batch.id, rows.earlier_id) ORDER BY rows.ord) AS ids,
               array_agg(mine.id) FILTER (WHERE mine.gate = 'waiting' AND (v_keyed OR rows.key IS NOT NULL)) AS waiting,
               array_agg(mine.type) FILTER (WHERE mine.key_wait) AS k_types,
               array_agg(mine.partition_key) FILTER (WHERE mine.key_wait) AS k_keys
        FROM rows
        LEFT JOIN inserted mine ON mine.id = rows.new_id
        LEFT JOIN inserted same_batch ON rows.key IS NOT NULL
             AND same_batch.type = rows.type AND same_batch.idempotency_key = rows.key
    )
    SELECT ids.ids, ids.waiting, ids.k_types, ids.k_keys INTO v_ids, v_wait, k_types, k_keys FROM ids;

    -- 5. New tasks that wait (keyed ones; every due one of a limited type
    -- when the call inserted a key) take units now that they are inserted,
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

    -- 6. Due partitioned tasks: their keys admit them, or they wait in
    -- their keys' lanes.
    IF k_types IS NOT NULL THEN
        PERFORM {{schema}}.admit_keys(k_types, k_keys);
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

-- admit_due: scheduled tasks now due. A partitioned one that holds no
-- unit of its key waits for one (key_wait), its type's lock taken without
-- waiting (as for the admission below: a claim never waits for an apply
-- here; a task whose type is locked stays due for the next claim); the
-- others go to their type's lane. Then the types admit, and the keys.
CREATE OR REPLACE FUNCTION {{schema}}.admit_due(queue text, max_tasks integer)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_types text[];
    k_types text[];
    k_keys  text[];
BEGIN
    WITH due AS (
        SELECT t.id FROM {{schema}}.tasks t
        WHERE t.queue = admit_due.queue AND t.status = 'pending' AND t.gate = 'scheduled' AND NOT t.key_wait
          AND t.run_at <= now()
        ORDER BY t.run_at
        LIMIT max_tasks
        FOR UPDATE SKIP LOCKED
    ), joined AS (
        UPDATE {{schema}}.tasks t
        SET gate = CASE WHEN t.partition_key IS NULL OR t.key_unit THEN 'waiting' ELSE t.gate END::{{schema}}.task_gate,
            key_wait = t.partition_key IS NOT NULL AND NOT t.key_unit,
            updated_at = now()
        FROM due WHERE t.id = due.id
          AND (t.partition_key IS NULL OR t.key_unit OR {{schema}}.try_lock_type(t.type))
        RETURNING t.type, t.partition_key, t.key_wait
    )
    SELECT array_agg(DISTINCT j.type) FILTER (WHERE NOT j.key_wait AND {{schema}}.try_lock_type(j.type)),
           array_agg(j.type) FILTER (WHERE j.key_wait),
           array_agg(j.partition_key) FILTER (WHERE j.key_wait)
      INTO v_types, k_types, k_keys
    FROM joined j;
    PERFORM {{schema}}.try_admit_types(v_types);
    IF k_types IS NOT NULL THEN
        PERFORM {{schema}}.admit_keys(k_types, k_keys);
    END IF;
END;
$$;

-- claim: step 1's probe matches tasks_scheduled again (tasks waiting for
-- their key are due but not scheduled). Otherwise as in version 12.
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
    WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'scheduled' AND NOT t.key_wait AND t.run_at <= now()
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

-- lock_owned: also the keys whose units the tasks hold.
DROP FUNCTION {{schema}}.lock_owned(bigint[], text);
CREATE FUNCTION {{schema}}.lock_owned(task_ids bigint[], worker_id text, OUT ids bigint[], OUT unit_types text[],
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
        WHERE t.id = ANY (task_ids) AND t.worker_id = lock_owned.worker_id AND t.status = 'running'
        ORDER BY t.id
        FOR UPDATE
    ) o;
END;
$$;

-- finish_owned: the key units leave with the tasks (key_unit cleared in
-- the same update), and go to the caller, which gives them back last
-- (key rows after slot rows).
DROP FUNCTION {{schema}}.finish_owned(bigint[], text);
CREATE FUNCTION {{schema}}.finish_owned(task_ids bigint[], worker_id text, OUT n integer, OUT unit_types text[],
                                        OUT unit_groups integer[], OUT key_types text[], OUT key_keys text[])
RETURNS record
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    o record;
BEGIN
    -- 1. The fence: only the worker's own tasks, locked.
    o := {{schema}}.lock_owned(task_ids, finish_owned.worker_id);
    -- 2. They leave running; their units go to the caller.
    UPDATE {{schema}}.tasks t
    SET status = 'completed', completed_at = now(), updated_at = now(), slot_group = NULL, key_unit = false
    WHERE t.id = ANY (o.ids);
    GET DIAGNOSTICS n = ROW_COUNT;
    unit_types := o.unit_types;
    unit_groups := o.unit_groups;
    key_types := o.key_types;
    key_keys := o.key_keys;
    -- 3. The types' locks (after the task rows: the locking order), for
    -- the hand-off and the keys.
    IF unit_types IS NOT NULL OR key_types IS NOT NULL THEN
        PERFORM {{schema}}.lock_types(coalesce(unit_types, '{}') || coalesce(key_types, '{}'));
    END IF;
END;
$$;

-- complete and complete_and_take: the key units go back last.
CREATE OR REPLACE FUNCTION {{schema}}.complete(task_ids bigint[], worker_id text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER SET jit = off SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f record;
BEGIN
    f := {{schema}}.finish_owned(task_ids, worker_id);
    PERFORM {{schema}}.hand_off(f.unit_types, f.unit_groups);
    IF f.key_types IS NOT NULL THEN
        IF {{schema}}.admit_keys(f.key_types, f.key_keys, true) > 0 THEN
            PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
        END IF;
    END IF;
    RETURN f.n;
END;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.complete_and_take(task_ids bigint[], worker_id text, max_take integer DEFAULT NULL)
RETURNS TABLE(completed integer, id bigint, type text, payload jsonb, attempts integer)
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
    IF f.key_types IS NOT NULL THEN
        IF {{schema}}.admit_keys(f.key_types, f.key_keys, true) > 0 THEN
            PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
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

-- fail: the task's key unit goes back too (a retry waits for its key again
-- once due), after its type's unit.
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
    v_keyed   boolean;
BEGIN
    -- 1. The fence: only the worker's own task, locked; then its type's lock.
    o := {{schema}}.lock_owned(ARRAY[fail.task_id], fail.worker_id);
    IF o.ids IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT * INTO v_task FROM {{schema}}.tasks t WHERE t.id = fail.task_id;
    PERFORM {{schema}}.lock_types(ARRAY[v_task.type]);
    SELECT * INTO v_queue FROM {{schema}}.queues q WHERE q.name = v_task.queue;
    SELECT coalesce(v_task.max_retries, tt.max_retries, v_queue.max_retries, 3),
           tt.concurrency IS NOT NULL, tt.partition_limit IS NOT NULL
      INTO v_max, v_limited, v_keyed
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
    SET status = v_status, last_error = fail.error, worker_id = NULL, slot_group = NULL, key_unit = false,
        updated_at = now(),
        -- A retry of a type still partitioned waits for its key again; one
        -- whose partition block went belongs to no key.
        partition_key = CASE WHEN coalesce(v_keyed, false) THEN t.partition_key END,
        run_at = CASE WHEN v_status = 'pending'
                      THEN now() + coalesce({{schema}}.backoff_delay(v_queue, v_task.attempts), interval '1 second')
                      ELSE t.run_at END,
        gate = CASE WHEN v_status = 'pending' AND (coalesce(v_limited, false) OR coalesce(v_keyed, false))
                    THEN 'scheduled' ELSE 'open' END::{{schema}}.task_gate,
        completed_at = CASE WHEN v_status = 'pending' THEN NULL ELSE now() END
    WHERE t.id = v_task.id;

    -- 3. Its units pass on: its type's, then its key's.
    IF v_task.slot_group IS NOT NULL THEN
        PERFORM {{schema}}.hand_off(ARRAY[v_task.type], ARRAY[v_task.slot_group]);
    END IF;
    IF v_task.key_unit THEN
        IF {{schema}}.admit_keys(ARRAY[v_task.type], ARRAY[v_task.partition_key], true) > 0 THEN
            PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
        END IF;
    END IF;
    RETURN v_status::text;
END;
$$;

-- recover_dead_workers: a dead-lettered task's key unit goes back, after
-- its type's (key rows last); a task recovered to pending keeps its key
-- unit. Otherwise unchanged.
CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers()
RETURNS jsonb
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
    k_types   text[];
    k_keys    text[];
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
    PERFORM 1 FROM (
        SELECT w.id FROM {{schema}}.workers w
        WHERE w.dead_at IS NULL
          AND {{schema}}.heard_from(w.last_heartbeat) < now() - (SELECT coalesce(min(q.worker_timeout), interval '30 seconds')
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
               OR {{schema}}.heard_from(w.last_heartbeat) < now() - coalesce(q.worker_timeout, interval '30 seconds'))
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
               t.key_unit, t.partition_key,
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
            key_unit = t.key_unit AND NOT v.exhausted,
            last_error = 'its worker stopped heartbeating; task recovered'
        FROM victims v WHERE t.id = v.id
        RETURNING t.type, v.slot_group, v.exhausted, v.old_worker, v.limited, v.key_unit, v.partition_key
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
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.slot_group IS NOT NULL),
           array_agg(b.type) FILTER (WHERE b.exhausted AND b.key_unit),
           array_agg(b.partition_key) FILTER (WHERE b.exhausted AND b.key_unit)
      INTO n_pending, n_dead, n_workers, r_types, r_groups, w_types, k_types, k_keys
    FROM back b;

    -- 5. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    -- 6. Dead-lettered tasks give their key units back (a task that goes
    -- back to pending keeps its own: it is claimed again first).
    IF k_types IS NOT NULL THEN
        PERFORM {{schema}}.admit_keys(k_types, k_keys, true);
    END IF;
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers);
END;
$$;

-- apply_partitions: pgseq apply, for the types whose partition block
-- changed (added, removed, its limit changed) or that it deletes, after it
-- wrote task_types and holding their type locks exclusive (no runtime call
-- of those types runs). Tasks enqueued before a type had a partition block
-- belong to no key.
--   1. A type no longer partitioned: its pending tasks leave their keys (a
--      waiting one goes where its type sends a due task), and the keys'
--      units they held go back. Running tasks are not touched (the locking
--      order: a completion holding one may be waiting for the type's
--      lock): they keep their key's unit until they finish, and a key row
--      goes when its last unit does.
--   2. A partitioned type: every key with waiting tasks admits up to its
--      limit (a raised limit admits; a lowered one admits nothing until
--      the key's tasks finish below it: strict).
CREATE FUNCTION {{schema}}.apply_partitions(types text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_gone text[];
    v_type text;
    v_keys text[];
BEGIN
    -- 1. No longer partitioned.
    SELECT array_agg(u.t) INTO v_gone
    FROM unnest(types) AS u(t)
    LEFT JOIN {{schema}}.task_types tt ON tt.name = u.t
    WHERE tt.partition_limit IS NULL;
    IF v_gone IS NOT NULL THEN
        WITH pending AS (
            SELECT t.id, t.type, t.partition_key, t.key_unit FROM {{schema}}.tasks t
            WHERE t.type = ANY (v_gone) AND t.partition_key IS NOT NULL AND t.status = 'pending'
            FOR UPDATE
        ), cleared AS (
            UPDATE {{schema}}.tasks t
            SET partition_key = NULL, key_unit = false, key_wait = false, updated_at = now(),
                gate = CASE WHEN NOT t.key_wait THEN t.gate
                            WHEN tt.concurrency IS NOT NULL THEN 'waiting'
                            ELSE 'open' END::{{schema}}.task_gate
            FROM pending p
            LEFT JOIN {{schema}}.task_types tt ON tt.name = p.type
            WHERE t.id = p.id
            RETURNING p.type, p.partition_key, p.key_unit
        )
        UPDATE {{schema}}.partition_slots s
        SET used = s.used - x.n
        FROM (SELECT c.type, c.partition_key, count(*)::integer AS n FROM cleared c
              WHERE c.key_unit GROUP BY 1, 2) x
        WHERE s.task_type = x.type AND s.partition_key = x.partition_key;
        DELETE FROM {{schema}}.partition_slots s WHERE s.task_type = ANY (v_gone) AND s.used = 0;
        -- Tasks sent to a limited type's lane take its free units.
        FOR v_type IN
            SELECT tt.name FROM {{schema}}.task_types tt
            WHERE tt.name = ANY (v_gone) AND tt.concurrency IS NOT NULL ORDER BY 1
        LOOP
            PERFORM {{schema}}.admit_waiting(v_type);
        END LOOP;
    END IF;

    -- 2. Partitioned: the keys with waiting tasks (a skip scan over the
    -- type's key lanes), each admitting what its limit allows.
    FOR v_type IN
        SELECT tt.name FROM {{schema}}.task_types tt
        WHERE tt.name = ANY (types) AND tt.partition_limit IS NOT NULL ORDER BY 1
    LOOP
        WITH RECURSIVE k AS (
            (SELECT t.partition_key AS key FROM {{schema}}.tasks t
             WHERE t.type = v_type AND t.status = 'pending' AND t.key_wait
             ORDER BY t.partition_key LIMIT 1)
            UNION ALL
            SELECT (SELECT t.partition_key FROM {{schema}}.tasks t
                    WHERE t.type = v_type AND t.status = 'pending' AND t.key_wait AND t.partition_key > k.key
                    ORDER BY t.partition_key LIMIT 1)
            FROM k WHERE k.key IS NOT NULL
        )
        SELECT array_agg(k.key) INTO v_keys FROM k WHERE k.key IS NOT NULL;
        IF v_keys IS NOT NULL THEN
            PERFORM {{schema}}.admit_keys(array_fill(v_type, ARRAY[cardinality(v_keys)]), v_keys);
        END IF;
    END LOOP;
END;
$$;

-- New and recreated functions: PUBLIC gets nothing (migration 008); the
-- roles pgseq apply granted the enqueue level keep it on the new
-- signatures, and the read level reads the new table.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {{schema}} FROM PUBLIC;
REVOKE ALL ON TABLE {{schema}}.partition_slots FROM PUBLIC;
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT g.role, g.level FROM {{schema}}.grants g
             WHERE g.level IN ('enqueue', 'read') AND to_regrole(quote_ident(g.role)) IS NOT NULL ORDER BY 1, 2 LOOP
        IF r.level = 'enqueue' THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s, %s TO %I',
                           '{{schema}}.enqueue(text, jsonb, text, integer, timestamptz, text)',
                           '{{schema}}.enqueue_batch(text[], jsonb[], text[], integer[], timestamptz[], text[])', r.role);
        ELSE
            EXECUTE format('GRANT SELECT ON TABLE %s TO %I', '{{schema}}.partition_slots', r.role);
        END IF;
    END LOOP;
END;
$$;
