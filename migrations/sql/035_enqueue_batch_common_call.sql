-- pgseq schema, version 35: enqueue_batch inserts the common call (no
-- partition block, no idempotency key) in one statement.
-- {{schema}} is replaced by the quoted schema name.
--
-- The body below also makes migration 032's two changes (see its header):
-- a limited type's units given by position (units_by_type), and the
-- batch's idempotency keys looked up one index probe each.
--
-- A call of 10,000 tasks of an unlimited type took 190-280 ms through
-- enqueue_batch's step 4, against 87-99 ms for a plain INSERT of the same
-- rows (psql, rolled back, three each). Step 4 looks up each row's
-- idempotency key and step 3b's answer, sorts the rows in the keys' lock
-- order and joins the inserted rows back twice to return ids for rows
-- that hit a key. None of that applies when no type of the call has a
-- partition block and no row has an idempotency key: step 3a inserts
-- those rows as step 4 would (ids drawn and rows written in input order;
-- the k-th due task of a limited type with the k-th unit its type took in
-- step 3, or waiting in its lane; a limited type's task not yet due
-- scheduled; any other open) and returns the ids in input order.
-- TestEnqueueBatchFastPathInsertsWhatTheGeneralStepsDo compares the two
-- paths row by row. BenchmarkEnqueueBatchSizes, 10,000 tasks, µs a task:
-- one unlimited type 16.5-24.8 before, 11.4-18.5 after; one type limited
-- to 1,000 18.7-23.9 before, 11.1-12.9 after.

CREATE OR REPLACE FUNCTION {{schema}}.enqueue_batch(types text[], payloads jsonb[] DEFAULT NULL::jsonb[], idempotency_keys text[] DEFAULT NULL::text[], priorities integer[] DEFAULT NULL::integer[], run_ats timestamp with time zone[] DEFAULT NULL::timestamp with time zone[], partition_keys text[] DEFAULT NULL::text[])
 RETURNS SETOF bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET jit TO 'off'
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET plan_cache_mode TO 'auto'
AS $function$
#variable_conflict use_column
DECLARE
    n         integer := coalesce(cardinality(types), 0);
    v_unknown text;
    v_ids     bigint[];
    v_type    text;
    v_wait    bigint[];
    v_given   bigint[];
    v_map     jsonb;
    v_units   jsonb;
    u_types   text[] := '{}';
    u_groups  integer[] := '{}';
    v_keyed   boolean;
    v_ord     bigint;
    v_missing boolean;
    v_parts   boolean;
    v_limits  boolean;
    k_types   text[];
    k_keys    text[];
    a_ords    bigint[];
    a_types   text[];
    a_starts  timestamp with time zone[];
    a_limited boolean[];
    a_prios   integer[];
    v_new_keys jsonb;
    v_took_keys boolean;
    a_flag    smallint[];
    a_start   timestamp with time zone[];
    a_grp     integer[];
    p_types   text[];
    p_groups  integer[];
    v_next    integer;
    r         record;
BEGIN
    -- A large call is planned for its arrays (see the migration's header).
    IF n > 1000 THEN
        PERFORM set_config('plan_cache_mode', 'force_custom_plan', true);
    END IF;

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
    -- Each distinct type of the batch is looked up once (a subquery per
    -- type: one index probe, whatever the statistics): which is unknown
    -- (the first in input order is named), and whether any is partitioned
    -- or limited, so that the steps for those run only when needed.
    SELECT (array_agg(d.type ORDER BY d.first) FILTER (WHERE d.kind IS NULL))[1],
           coalesce(bool_or(d.kind IS NULL), false),
           coalesce(bool_or(d.kind = 'partitioned'), false),
           coalesce(bool_or(d.kind = 'limited'), false)
      INTO v_unknown, v_missing, v_parts, v_limits
    FROM (SELECT g.type, g.first,
                 (SELECT CASE WHEN t.partition_limit IS NOT NULL THEN 'partitioned'
                              WHEN t.concurrency IS NOT NULL THEN 'limited'
                              ELSE 'unlimited' END
                  FROM {{schema}}.task_types t WHERE t.name = g.type) AS kind
          FROM (SELECT u.type, min(u.ord) AS first
                FROM unnest(types) WITH ORDINALITY AS u(type, ord) GROUP BY u.type) g) d;
    IF v_missing THEN
        RAISE EXCEPTION 'unknown task type "%"', v_unknown
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;
    -- Every row of a partitioned type has a key.
    IF v_parts THEN
        SELECT i.ord, i.type INTO v_ord, v_type
        FROM unnest(types, payloads, partition_keys) WITH ORDINALITY AS i(type, payload, given_key, ord)
        JOIN {{schema}}.task_types t ON t.name = i.type
        WHERE t.partition_limit IS NOT NULL
          AND {{schema}}.partition_key_of(t, i.payload, i.given_key) IS NULL
        ORDER BY i.ord LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'enqueue_batch: task % (type "%") has no partition key: the type is partitioned', v_ord, v_type
                USING ERRCODE = 'PS032',
                      HINT = 'Pass partition_keys, or payloads with the top-level field the type''s partition block names.';
        END IF;
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
    -- All types' units in one statement (take_units_of), not one call per
    -- type. The rows are counted per type before the types are looked up,
    -- so the lookup is one per type of the batch, whatever plan the join
    -- gets (joined row by row, the planner's nested loop over an
    -- unanalyzed task_types compared every row with every declared type).
    IF v_limits AND NOT v_keyed THEN
        SELECT coalesce(x.unit_types, '{}'), coalesce(x.unit_groups, '{}') INTO u_types, u_groups
        FROM {{schema}}.take_units_of(ARRAY(
                 SELECT w.type
                 FROM (SELECT u.type, count(*) AS n
                       FROM unnest(types, run_ats, idempotency_keys) AS u(type, at, key)
                       WHERE coalesce(u.at, now()) <= now() AND u.key IS NULL
                       GROUP BY u.type) w
                 JOIN {{schema}}.task_types t ON t.name = w.type AND t.concurrency IS NOT NULL AND t.partition_limit IS NULL,
                 generate_series(1, w.n))) AS x;
    END IF;

    -- 3a. No partition block among the call's types and no idempotency
    -- key (the common call): the rows are inserted here in one statement,
    -- as step 4 would insert them (migration 035: without step 4's
    -- bookkeeping for keys). Ids are drawn and rows written in input
    -- order; the k-th due task of a limited type takes the k-th unit its
    -- type took in step 3 (open), or waits in its lane when there is none
    -- (waiting); a limited type's task not yet due is scheduled; every
    -- other task is open. Nothing is left for steps 5 and 6.
    IF NOT v_parts AND (idempotency_keys IS NULL OR cardinality(array_remove(idempotency_keys, NULL)) = 0) THEN
        v_units := {{schema}}.units_by_type(u_types, u_groups);
        WITH input AS MATERIALIZED (
            SELECT nextval('{{schema}}.tasks_id_seq') AS id, x.*
            FROM (SELECT i.ord, i.type, i.payload, t.queue, t.concurrency IS NOT NULL AS limited,
                         coalesce(i.priority, t.priority) AS priority, coalesce(i.run_at, now()) AS run_at
                  FROM unnest(types, payloads, priorities, run_ats)
                       WITH ORDINALITY AS i(type, payload, priority, run_at, ord)
                  JOIN {{schema}}.task_types t ON t.name = i.type
                  ORDER BY i.ord) x
        ), given AS (
            SELECT i.*,
                   CASE WHEN i.limited AND i.run_at <= now() THEN
                       (v_units #>> ARRAY[i.type, (row_number() OVER (PARTITION BY i.type, i.limited AND i.run_at <= now()
                                                                       ORDER BY i.ord) - 1)::text])::integer
                   END AS unit
            FROM input i
        ), inserted AS (
            INSERT INTO {{schema}}.tasks AS t (id, queue, type, payload, priority, run_at, gate, slot_group)
            OVERRIDING SYSTEM VALUE
            SELECT g.id, g.queue, g.type, g.payload, g.priority, g.run_at,
                   CASE WHEN NOT g.limited OR g.unit IS NOT NULL THEN 'open'
                        WHEN g.run_at <= now() THEN 'waiting'
                        ELSE 'scheduled' END::{{schema}}.task_gate,
                   g.unit
            FROM given g
            ORDER BY g.ord
        )
        SELECT array_agg(i.id ORDER BY i.ord) INTO v_ids FROM input i;
        RETURN QUERY SELECT unnest(v_ids);
        RETURN;
    END IF;

    -- 3b. Keys new to the runtime admit in the insert below. A key without
    -- a row has no task running on its units and none waiting (admit_keys
    -- deletes a row only then), so it admits its first due tasks in claim
    -- order, up to its limit, starting at its type's lane clock, as
    -- admit_keys would: its row is created here with their count (and, when
    -- more wait, the last one's start tag), and they are inserted admitted.
    -- One statement takes the rows of all the call's keys in bytewise
    -- (type, key) order, the order key rows are locked in: a new key's row
    -- is created, an existing one locked without a write (ON CONFLICT ...
    -- WHERE false locks the row it does not update), and a key another
    -- transaction is creating or deleting is waited for. Step 6 admits for
    -- the existing keys (admit_keys), whose rows the call already holds, so
    -- it never takes a key row out of order: holding a new key's row while
    -- waiting for an older key's would deadlock with an enqueue holding the
    -- older and waiting for the newer. Only for calls without idempotency
    -- keys (the insert never waits while the rows are held).
    v_took_keys := v_parts AND (idempotency_keys IS NULL OR cardinality(array_remove(idempotency_keys, NULL)) = 0);
    IF v_took_keys THEN
        WITH keyed AS MATERIALIZED (
            -- The call's due tasks of partitioned types.
            SELECT i.ord, i.type, t.partition_limit AS lim, t.concurrency IS NOT NULL AS limited,
                   {{schema}}.partition_key_of(t, i.payload, i.given_key) AS pkey,
                   coalesce(i.priority, t.priority) AS priority, coalesce(i.run_at, now()) AS run_at
            FROM unnest(types, payloads, run_ats, partition_keys, priorities)
                 WITH ORDINALITY AS i(type, payload, run_at, given_key, priority, ord)
            JOIN {{schema}}.task_types t ON t.name = i.type
            WHERE t.partition_limit IS NOT NULL AND coalesce(i.run_at, now()) <= now()
        ), due AS (
            SELECT k.type, k.pkey, k.lim, count(*)::integer AS n FROM keyed k GROUP BY k.type, k.pkey, k.lim
        ), clock AS MATERIALIZED (
            -- Each type's lane clock, read once.
            SELECT c.type, {{schema}}.lane_clock(c.type) AS v
            FROM (SELECT DISTINCT d.type FROM due d) c
        ), created AS (
            INSERT INTO {{schema}}.partition_slots AS s (task_type, partition_key, used, last_at)
            SELECT d.type, d.pkey, least(d.n, d.lim),
                   CASE WHEN d.n > d.lim THEN c.v + (d.lim - 1) * interval '1 microsecond' END
            FROM due d JOIN clock c ON c.type = d.type
            ORDER BY d.type COLLATE "C", d.pkey COLLATE "C"
            ON CONFLICT (task_type, partition_key) DO UPDATE SET used = s.used WHERE false
            RETURNING s.task_type, s.partition_key, s.used
        ), turns AS (
            -- A new key's tasks in claim order: those within its limit
            -- are admitted, at the clock and then 1 µs apart.
            -- (Only the new keys' tasks are ranked.)
            SELECT k.ord, k.type, k.limited, k.priority, k.turn <= k.used AS admit,
                   cl.v + (k.turn - 1) * interval '1 microsecond' AS start_at
            FROM (SELECT k.*, c.used,
                         row_number() OVER (PARTITION BY k.type, k.pkey ORDER BY k.priority DESC, k.run_at, k.ord) AS turn
                  FROM keyed k JOIN created c ON c.task_type = k.type AND c.partition_key = k.pkey) k
            JOIN clock cl ON cl.type = k.type
        )
        -- The admitted tasks, and the new keys (looked up by the insert as
        -- keys of a jsonb object: their tasks beyond their limits wait in
        -- their lanes, and admit_keys need not see them).
        SELECT array_agg(t.ord), array_agg(t.type), array_agg(t.start_at), array_agg(t.limited),
               array_agg(t.priority),
               (SELECT jsonb_object_agg(c.task_type || E'\x1f' || c.partition_key, true) FROM created c)
          INTO a_ords, a_types, a_starts, a_limited, a_prios, v_new_keys
        FROM turns t
        WHERE t.admit;
    END IF;
    IF a_ords IS NOT NULL THEN
        -- The admitted tasks of types with a type limit as well take units
        -- of their type (SKIP LOCKED: never waiting while holding key
        -- rows), the k-th of a type in claim order the k-th unit; those
        -- left without one wait in the type's lane, as admit_keys leaves
        -- them.
        IF true = ANY (a_limited) THEN
            SELECT x.unit_types, x.unit_groups INTO p_types, p_groups
            FROM {{schema}}.take_units_of(ARRAY(
                     SELECT a.t FROM unnest(a_types, a_limited) AS a(t, limited) WHERE a.limited)) AS x;
        END IF;
        -- Per task of the call, by position, for the insert (arrays of
        -- fixed-width values without NULLs, written and read by subscript
        -- in constant time; filled in a loop, not joined: no plan can make
        -- it compare every pair): a_flag 0 not admitted here, 2 admitted
        -- and open, 3 admitted and waiting in its type's lane; a_start its
        -- start tag; a_grp its unit of the type (0: none). The units come
        -- sorted by type (take_units_of), and the admitted tasks of limited
        -- types are walked in the same order, type by type in claim order,
        -- so each takes the next unit of its type.
        a_flag := array_fill(0::smallint, ARRAY[n]);
        a_start := array_fill('-infinity'::timestamptz, ARRAY[n]);
        a_grp := array_fill(0, ARRAY[n]);
        v_next := 1;
        FOR r IN
            SELECT a.ord, a.type, a.start_at, a.limited
            FROM unnest(a_ords, a_types, a_starts, a_limited, a_prios) AS a(ord, type, start_at, limited, priority)
            ORDER BY a.limited, a.type, a.priority DESC, a.start_at, a.ord
        LOOP
            a_start[r.ord] := r.start_at;
            IF NOT r.limited THEN
                a_flag[r.ord] := 2;
            ELSE
                WHILE v_next <= coalesce(cardinality(p_types), 0) AND p_types[v_next] < r.type LOOP
                    v_next := v_next + 1;
                END LOOP;
                IF v_next <= coalesce(cardinality(p_types), 0) AND p_types[v_next] = r.type THEN
                    a_flag[r.ord] := 2;
                    a_grp[r.ord] := p_groups[v_next];
                    v_next := v_next + 1;
                ELSE
                    a_flag[r.ord] := 3;
                END IF;
            END IF;
        END LOOP;
    END IF;

    -- 4. Insert, the k-th keyless due task of a type with the k-th unit of
    -- that type (by position in v_units: see units_by_type). Ids are
    -- drawn up front, in input order, so each input row knows its own and
    -- claim order among equal due times follows the input; rows that hit
    -- an idempotency conflict leave their id unused.
    -- A partitioned row is inserted admitted when its key is new (step 3b)
    -- and its turn within the key comes within the key's limit (its start
    -- tag as run_at: the clock, then 1 µs apart; open, or, with a type limit
    -- and no unit of the type left, waiting in the type's lane), else
    -- waiting for its key (scheduled; key_wait when due).
    v_units := {{schema}}.units_by_type(u_types, u_groups);
    WITH input AS (
        SELECT x.*, nextval('{{schema}}.tasks_id_seq') AS new_id
        FROM (
            -- Each array read once, in step (a subscript such as
            -- payloads[i.ord] walks the array to its element: a batch of
            -- n tasks with payloads took time in n squared).
            SELECT i.ord, i.type, i.payload, i.key,
                   coalesce(i.priority, t.priority) AS priority,
                   coalesce(i.run_at, now()) AS run_at,
                   t.queue, t.concurrency IS NOT NULL AND t.partition_limit IS NULL AS limited,
                   {{schema}}.partition_key_of(t, i.payload, i.given_key) AS pkey
            FROM unnest(types, payloads, idempotency_keys, priorities, run_ats, partition_keys)
                 WITH ORDINALITY AS i(type, payload, key, priority, run_at, given_key, ord)
            JOIN {{schema}}.task_types t ON t.name = i.type
            ORDER BY i.ord
        ) x
    ), ranked AS (
        SELECT i.*, CASE WHEN i.limited AND i.run_at <= now() AND i.key IS NULL
                         THEN row_number() OVER (PARTITION BY i.type, i.limited AND i.run_at <= now() AND i.key IS NULL
                                                 ORDER BY i.ord)
                    END AS k,
               -- Step 3b's answer for the task, by position.
               coalesce(a_flag[i.ord], 0) AS flag
        FROM input i
    ), given AS (
        -- Step 3's unit for the task: its type's k-th (none when the type
        -- took fewer, or the task is not a keyless due one of a limited
        -- type: k is NULL).
        SELECT r.*, (v_units #>> ARRAY[r.type, (r.k - 1)::text])::integer AS unit
        FROM ranked r
    ), rows AS (
        -- earlier_id: the task that already uses the row's key, as this
        -- statement sees it (looked up once: it is not inserted again,
        -- and it is the row's id). One probe of the idempotency index per
        -- keyed row (a LIMIT keeps the lookup a subquery of its own).
        SELECT r.*, coalesce(r.unit, nullif(a_grp[r.ord], 0)) AS grp, e.id AS earlier_id,
               r.flag >= 2 AS admitted,
               -- Counted in a new key's row: admitted, or in its lane
               -- behind those (the row is at its limit then).
               r.flag >= 2 OR coalesce(r.pkey IS NOT NULL AND v_new_keys ? (r.type || E'\x1f' || r.pkey), false) AS new_key,
               CASE WHEN r.flag >= 2 THEN a_start[r.ord] ELSE r.run_at END AS start_at,
               CASE WHEN r.flag = 2 THEN 'open'
                    WHEN r.flag = 3 THEN 'waiting'
                    WHEN r.pkey IS NOT NULL THEN 'scheduled'
                    WHEN NOT r.limited OR r.unit IS NOT NULL THEN 'open'
                    WHEN r.run_at <= now() THEN 'waiting'
                    ELSE 'scheduled' END::{{schema}}.task_gate AS gate
        FROM given r
        LEFT JOIN LATERAL (
            SELECT e.id FROM {{schema}}.tasks e
            WHERE r.key IS NOT NULL AND e.type = r.type AND e.idempotency_key = r.key
            LIMIT 1) e ON true
    ), inserted AS (
        INSERT INTO {{schema}}.tasks AS t (id, queue, type, payload, priority, idempotency_key, run_at, gate, slot_group,
                                           partition_key, key_wait, key_unit)
        OVERRIDING SYSTEM VALUE
        SELECT new_id, queue, type, payload, priority, key, start_at, gate, grp,
               pkey, pkey IS NOT NULL AND run_at <= now() AND NOT admitted, admitted FROM rows
        WHERE rows.earlier_id IS NULL
        -- Keyed rows first, in bytewise (type, key) order (the deadlock
        -- rule above); then the keyless ones in input order, the order
        -- claims take them in.
        ORDER BY key IS NULL, CASE WHEN key IS NOT NULL THEN type END COLLATE "C", key COLLATE "C", ord
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id, t.type, t.idempotency_key, t.gate, t.key_wait, t.partition_key
    ), ids AS (
        SELECT array_agg(coalesce(mine.id, same_batch.id, rows.earlier_id) ORDER BY rows.ord) AS ids,
               array_agg(mine.id) FILTER (WHERE mine.gate = 'waiting' AND (v_keyed OR rows.key IS NOT NULL)) AS waiting,
               array_agg(mine.type) FILTER (WHERE mine.key_wait AND NOT rows.new_key) AS k_types,
               array_agg(mine.partition_key) FILTER (WHERE mine.key_wait AND NOT rows.new_key) AS k_keys
        FROM rows
        LEFT JOIN inserted mine ON mine.id = rows.new_id
        LEFT JOIN inserted same_batch ON rows.key IS NOT NULL
             AND same_batch.type = rows.type AND same_batch.idempotency_key = rows.key
    )
    SELECT ids.ids, ids.waiting, ids.k_types, ids.k_keys INTO v_ids, v_wait, k_types, k_keys FROM ids;

    -- 5. New tasks that wait (keyed ones; every due one of a limited type
    -- when the call inserted a key) take units now that they are inserted,
    -- every type's at once (take_units_of), the k-th waiting task of a
    -- type in claim order with the k-th unit of that type. (One statement
    -- for all types: a statement per type read every waiting task of the
    -- call again, 6.8 s for 10,000 keyed tasks over 1,000 types.)
    IF v_wait IS NOT NULL THEN
        SELECT coalesce(x.unit_types, '{}'), coalesce(x.unit_groups, '{}') INTO u_types, u_groups
        FROM {{schema}}.take_units_of(ARRAY(
                 SELECT t.type FROM {{schema}}.tasks t WHERE t.id = ANY (v_wait))) AS x;
        -- The units by task id (the k-th task of a type in claim order
        -- takes the type's k-th unit, by position: see units_by_type), then
        -- an update of tasks alone, by id (migration 030: see its header).
        v_units := {{schema}}.units_by_type(u_types, u_groups);
        SELECT array_agg(w.id), jsonb_object_agg(w.id::text, w.unit) INTO v_given, v_map
        FROM (SELECT w.id,
                     (v_units #>> ARRAY[w.type, (row_number() OVER (PARTITION BY w.type
                                                     ORDER BY w.priority DESC, w.run_at, w.id) - 1)::text])::integer AS unit
              FROM {{schema}}.tasks w WHERE w.id = ANY (v_wait)) w
        WHERE w.unit IS NOT NULL;
        UPDATE {{schema}}.tasks t
        SET gate = 'open', slot_group = (v_map ->> t.id::text)::integer
        WHERE t.id = ANY (v_given);
    END IF;

    -- 6. Due partitioned tasks of keys step 3b did not create: their keys
    -- admit them, or they wait in their keys' lanes (rows step 3b holds
    -- are read, not taken again). (A new key's tasks beyond its limit wait
    -- in its lane: its row is at its limit.)
    IF k_types IS NOT NULL THEN
        PERFORM {{schema}}.admit_keys(k_types, k_keys, locked => v_took_keys);
    END IF;

    -- A key taken by a transaction that committed while this statement ran
    -- is not in its snapshot: look those up again.
    IF array_position(v_ids, NULL) IS NOT NULL THEN
        SELECT array_agg(coalesce(u.id, e.id) ORDER BY u.ord) INTO v_ids
        FROM unnest(v_ids, types, idempotency_keys) WITH ORDINALITY AS u(id, type, key, ord)
        LEFT JOIN LATERAL (
            SELECT e.id FROM {{schema}}.tasks e
            WHERE u.id IS NULL AND e.type = u.type AND e.idempotency_key = u.key
            LIMIT 1) e ON true;
    END IF;
    RETURN QUERY SELECT unnest(v_ids);
END;
$function$;
