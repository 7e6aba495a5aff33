-- pgseq schema, version 30: every update of tasks the runtime and the
-- apply make reads only the tasks it updates, once, whatever the table's
-- statistics say.
-- {{schema}} is replaced by the quoted schema name.
--
-- Migration 029 bounded the claim's and the hand-off's updates. With the
-- statistics saying the tasks table is empty (ANALYZE after a load rolled
-- back: pages, no rows), the other updates that join tasks to the tasks
-- they change still read every task once per task they changed
-- (TestUpdatesReadOnlyTheirTasksWhenStatisticsSayEmpty, 5,000 tasks,
-- batches of 100, version 29):
--   - an apply lowering a limit (rebalance_units): 5.0 s, its holders
--     recomputed with a probe of slot rows per task for each task read,
--     while the apply held the types' locks exclusive (every claim and
--     completion of those types waited);
--   - an apply removing a partition block (apply_partitions): 5.7 s,
--     24,500,000 rows compared;
--   - the recovery of a dead worker's 100 tasks: 470 ms, 495,000 rows;
--   - a completion admitting keyed tasks of a limited type (admit_keys'
--     units step) and an enqueue of tasks with idempotency keys of a
--     limited type (enqueue_batch step 5): 500,000 and 505,000 rows.
-- And a join bounded to the changed tasks' ids, as 028 and 029 made them,
-- is not safe either: the plan may use the bound alone as the inner side
-- of a nested loop and read every bounded task again for each one. In the
-- partitioned drain, admit_keys' update of the tasks a completion admits
-- (028) did, with the statistics right: 4 ms of a 12 ms completion of 94
-- tasks (TestUpdatesReadNoTaskTwiceWhenStatisticsAreRight fails the same
-- way on rebalance_units with the bound alone).
--
-- So each of these is now an update of tasks alone, by the ids of the
-- tasks it changes (= ANY of an array: one index probe each), with no
-- join that a plan could misplace. Values that differ per task come from
-- one row: a jsonb object keyed by task id (the unit a task gets, its
-- start tag, its recovery's outcome), or an array of types. The keys'
-- and slots' counts come from the locked tasks, which the update changes
-- all of: admit_due, admit_waiting, admit_keys (its admission and units
-- steps), enqueue_batch step 5, rebalance_units, apply_partitions and
-- recover_dead_workers. (admit_keys is restated once, in its final form,
-- by migration 031, which changes its probes too: not twice, one body
-- replacing the other.) offer_units keeps 029's bounded join: every plan
-- of it seen (auto_explain over the drains) probes tasks by both the
-- join key and the bound.

CREATE OR REPLACE FUNCTION {{schema}}.admit_waiting(task_type text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_type   text := admit_waiting.task_type;
    v_free   integer;
    v_units  integer[];
    v_ids    bigint[];
    v_map    jsonb;
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
    -- An update of tasks alone, by id, each task's unit looked up by its
    -- id in a jsonb object (migration 030: see its header).
    SELECT jsonb_object_agg(u.id::text, u.grp) INTO v_map
    FROM unnest(v_ids[1:cardinality(v_units)], v_units) AS u(id, grp);
    UPDATE {{schema}}.tasks t
    SET gate = 'open', slot_group = (v_map ->> t.id::text)::integer, updated_at = now()
    WHERE t.id = ANY (v_ids[1:cardinality(v_units)]);
    RETURN cardinality(v_units);
END;
$$;

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
    -- that type. Ids are drawn up front, in input order, so each input row
    -- knows its own and claim order among equal due times follows the
    -- input; rows that hit an idempotency conflict leave their id unused.
    -- A partitioned row is inserted admitted when its key is new (step 3b)
    -- and its turn within the key comes within the key's limit (its start
    -- tag as run_at: the clock, then 1 µs apart; open, or, with a type limit
    -- and no unit of the type left, waiting in the type's lane), else
    -- waiting for its key (scheduled; key_wait when due).
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
    ), units AS (
        SELECT u.type, u.grp, row_number() OVER (PARTITION BY u.type ORDER BY u.ord) AS k
        FROM unnest(u_types, u_groups) WITH ORDINALITY AS u(type, grp, ord)
    ), rows AS (
        -- earlier_id: the task that already uses the row's key, as this
        -- statement sees it (looked up once: it is not inserted again,
        -- and it is the row's id).
        SELECT r.*, coalesce(u.grp, nullif(a_grp[r.ord], 0)) AS grp, e.id AS earlier_id,
               r.flag >= 2 AS admitted,
               -- Counted in a new key's row: admitted, or in its lane
               -- behind those (the row is at its limit then).
               r.flag >= 2 OR coalesce(r.pkey IS NOT NULL AND v_new_keys ? (r.type || E'\x1f' || r.pkey), false) AS new_key,
               CASE WHEN r.flag >= 2 THEN a_start[r.ord] ELSE r.run_at END AS start_at,
               CASE WHEN r.flag = 2 THEN 'open'
                    WHEN r.flag = 3 THEN 'waiting'
                    WHEN r.pkey IS NOT NULL THEN 'scheduled'
                    WHEN NOT r.limited OR u.grp IS NOT NULL THEN 'open'
                    WHEN r.run_at <= now() THEN 'waiting'
                    ELSE 'scheduled' END::{{schema}}.task_gate AS gate
        FROM ranked r
        LEFT JOIN units u ON u.type = r.type AND u.k = r.k
        LEFT JOIN {{schema}}.tasks e ON r.key IS NOT NULL AND e.type = r.type AND e.idempotency_key = r.key
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
        -- The units by task id, then an update of tasks alone, by id
        -- (migration 030: see its header).
        SELECT array_agg(w.id), jsonb_object_agg(w.id::text, u.grp) INTO v_given, v_map
        FROM (SELECT w.id, w.type,
                     row_number() OVER (PARTITION BY w.type ORDER BY w.priority DESC, w.run_at, w.id) AS k
              FROM {{schema}}.tasks w WHERE w.id = ANY (v_wait)) w
        JOIN (SELECT u.type, u.grp, row_number() OVER (PARTITION BY u.type ORDER BY u.ord) AS k
              FROM unnest(u_types, u_groups) WITH ORDINALITY AS u(type, grp, ord)) u
          ON u.type = w.type AND u.k = w.k;
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
        LEFT JOIN {{schema}}.tasks e ON u.id IS NULL AND e.type = u.type AND e.idempotency_key = u.key;
    END IF;
    RETURN QUERY SELECT unnest(v_ids);
END;
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.apply_partitions(types text[])
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
        -- The pending tasks are locked first and their keys' units counted
        -- from them; the update is of the tasks table alone, by their ids.
        -- (A join with the locked tasks, as until migration 030, compared
        -- every pair when the statistics said the table was empty: 4,900
        -- tasks, 24,010,000 rows.)
        WITH pending AS MATERIALIZED (
            SELECT t.id, t.type, t.partition_key, t.key_unit FROM {{schema}}.tasks t
            WHERE t.type = ANY (v_gone) AND t.partition_key IS NOT NULL AND t.status = 'pending'
            FOR UPDATE
        ), cleared AS (
            UPDATE {{schema}}.tasks t
            SET partition_key = NULL, key_unit = false, key_wait = false, updated_at = now(),
                gate = CASE WHEN NOT t.key_wait THEN t.gate
                            WHEN EXISTS (SELECT 1 FROM {{schema}}.task_types tt
                                         WHERE tt.name = t.type AND tt.concurrency IS NOT NULL) THEN 'waiting'
                            ELSE 'open' END::{{schema}}.task_gate
            WHERE t.id = ANY (ARRAY(SELECT p.id FROM pending p))
        )
        UPDATE {{schema}}.partition_slots s
        SET used = s.used - x.n
        FROM (SELECT p.type, p.partition_key, count(*)::integer AS n FROM pending p
              WHERE p.key_unit GROUP BY 1, 2) x
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
    ), revoked AS MATERIALIZED (
        -- The holders giving their units back (each locked above, so each
        -- is updated below).
        SELECT h.id, h.type, h.slot_group, h.limited FROM holders h WHERE h.k <= h.excess
    ), cleared AS (
        -- An update of tasks alone, by id (migration 030: joined with the
        -- holders, its plan ran their window and a probe of slot rows per
        -- task again for every task it read, 5 s for 134 tasks beside
        -- 5,000 with the statistics saying the table was empty, and read
        -- the holders again for each one with them right).
        UPDATE {{schema}}.tasks t
        SET gate = CASE WHEN NOT t.type = ANY (coalesce((SELECT array_agg(DISTINCT r.type) FILTER (WHERE r.limited)
                                                         FROM revoked r), '{}')) THEN 'open'
                        WHEN t.run_at <= now() THEN 'waiting'
                        ELSE 'scheduled' END::{{schema}}.task_gate,
            slot_group = NULL, updated_at = now()
        WHERE t.id = ANY (ARRAY(SELECT r.id FROM revoked r))
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
    -- or to the dead letter once its retries are spent. What happens to
    -- each is decided once (victims: all of them locked in step 1, so all
    -- of them updated) and the update, of tasks alone by id, looks its
    -- task up in one row (outcome). Migration 030: joined with victims,
    -- with the statistics saying the table was empty, the update read
    -- every task once per recovered task.
    WITH victims AS MATERIALIZED (
        SELECT t.id, t.type, t.slot_group, t.worker_id AS old_worker, tt.concurrency IS NOT NULL AS limited,
               t.key_unit, t.partition_key,
               t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.id = ANY (coalesce(v_ids, '{}'))
    ), outcome AS MATERIALIZED (
        SELECT jsonb_object_agg(v.id::text, jsonb_build_array(v.exhausted, v.limited)) AS m FROM victims v
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN (o.m -> t.id::text ->> 0)::boolean THEN 'dead_letter'
                          ELSE 'pending' END::{{schema}}.task_status,
            gate = CASE WHEN (o.m -> t.id::text ->> 1)::boolean AND NOT (o.m -> t.id::text ->> 0)::boolean THEN 'waiting'
                        ELSE 'open' END::{{schema}}.task_gate,
            completed_at = CASE WHEN (o.m -> t.id::text ->> 0)::boolean THEN now() END,
            worker_id = NULL, slot_group = NULL, run_at = now(), updated_at = now(),
            key_unit = t.key_unit AND NOT (o.m -> t.id::text ->> 0)::boolean,
            last_error = 'its worker stopped heartbeating; task recovered'
        FROM outcome o
        WHERE t.id = ANY (coalesce(v_ids, '{}'))
    ), dead AS (
        -- 4. The workers: those whose tasks were recovered, and every
        -- silent one.
        UPDATE {{schema}}.workers w SET dead_at = now()
        WHERE w.dead_at IS NULL
          AND (w.id IN (SELECT b.old_worker FROM victims b)
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
    FROM victims b;

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

CREATE OR REPLACE FUNCTION {{schema}}.admit_due(queue text, max_tasks integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
        -- An update of tasks alone, by the locked tasks' ids (migration
        -- 030: a join with them could read them again for each one).
        UPDATE {{schema}}.tasks t
        SET gate = CASE WHEN t.partition_key IS NULL OR t.key_unit THEN 'waiting' ELSE t.gate END::{{schema}}.task_gate,
            key_wait = t.partition_key IS NOT NULL AND NOT t.key_unit,
            updated_at = now()
        WHERE t.id = ANY (ARRAY(SELECT d.id FROM due d))
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
$function$;
