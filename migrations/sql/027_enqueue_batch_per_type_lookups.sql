-- pgseq schema, version 27: enqueue_batch's cost no longer grows with the
-- number of task types declared.
-- {{schema}} is replaced by the quoted schema name.
--
-- Before it inserts, enqueue_batch takes the units of the due keyless
-- tasks of limited types, and found those tasks by joining every row of
-- the batch with task_types. Right after an apply, task_types has no
-- statistics, and the planner's default guesses (0.5% of rows with a
-- partition_limit IS NULL, a dozen rows in the batch) made that join a
-- nested loop over the whole table: every row compared with every
-- declared type. With 1,000 limited types declared, one call of 10,000
-- tasks spent 340 ms there, whether its tasks were limited or not (a
-- batch of one unlimited type: 426 ms instead of 100 ms; the suite's
-- `many` scenario seeded 20,000 tasks in 1.27 s). The rows are now counted
-- per type first and only the batch's distinct types are looked up, so
-- the join is as large as the number of types in the batch whatever plan
-- it gets. take_units_of counts its types before it looks for draining
-- ones, for the same reason. The check for unknown types looks each
-- distinct type up once (an index probe each) and learns on the way
-- whether the batch has partitioned or limited types at all: a batch
-- without skips the check of partition keys (a probe per row) and the
-- taking of units. Nothing else changes.

-- (CREATE OR REPLACE resets what is not restated: SECURITY DEFINER and
-- the settings of migrations 006 and 008 are restated.)
CREATE OR REPLACE FUNCTION {{schema}}.enqueue_batch(types text[], payloads jsonb[] DEFAULT NULL::jsonb[], idempotency_keys text[] DEFAULT NULL::text[], priorities integer[] DEFAULT NULL::integer[], run_ats timestamp with time zone[] DEFAULT NULL::timestamp with time zone[], partition_keys text[] DEFAULT NULL::text[])
 RETURNS SETOF bigint
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET jit TO 'off'
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
    n         integer := coalesce(cardinality(types), 0);
    v_unknown text;
    v_ids     bigint[];
    v_type    text;
    v_wait    bigint[];
    u_types   text[] := '{}';
    u_groups  integer[] := '{}';
    v_keyed   boolean;
    v_ord     bigint;
    v_missing boolean;
    v_parts   boolean;
    v_limits  boolean;
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

    -- 4. Insert, the k-th keyless due task of a type with the k-th unit of
    -- that type. Ids are drawn up front, in input order, so each input row
    -- knows its own and claim order among equal due times follows the
    -- input; rows that hit an idempotency conflict leave their id unused.
    -- A partitioned row is inserted waiting for its key (scheduled; key_wait
    -- when due).
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
        -- Keyed rows first, in bytewise (type, key) order (the deadlock
        -- rule above); then the keyless ones in input order, the order
        -- claims take them in.
        ORDER BY key IS NULL, CASE WHEN key IS NOT NULL THEN type END COLLATE "C", key COLLATE "C", ord
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
    -- every type's at once (take_units_of), the k-th waiting task of a
    -- type in claim order with the k-th unit of that type. (One statement
    -- for all types: a statement per type read every waiting task of the
    -- call again, 6.8 s for 10,000 keyed tasks over 1,000 types.)
    IF v_wait IS NOT NULL THEN
        SELECT coalesce(x.unit_types, '{}'), coalesce(x.unit_groups, '{}') INTO u_types, u_groups
        FROM {{schema}}.take_units_of(ARRAY(
                 SELECT t.type FROM {{schema}}.tasks t WHERE t.id = ANY (v_wait))) AS x;
        UPDATE {{schema}}.tasks t
        SET gate = 'open', slot_group = u.grp
        FROM (SELECT w.id, w.type,
                     row_number() OVER (PARTITION BY w.type ORDER BY w.priority DESC, w.run_at, w.id) AS k
              FROM {{schema}}.tasks w WHERE w.id = ANY (v_wait)) w
        JOIN (SELECT u.type, u.grp, row_number() OVER (PARTITION BY u.type ORDER BY u.ord) AS k
              FROM unnest(u_types, u_groups) WITH ORDINALITY AS u(type, grp, ord)) u
          ON u.type = w.type AND u.k = w.k
        WHERE t.id = w.id;
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
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.take_units_of(types text[], OUT unit_types text[], OUT unit_groups integer[])
LANGUAGE plpgsql AS $$
BEGIN
    WITH wanted AS (
        -- Each limited type named, with the units it wants (counted
        -- first: the lookup is one per type); draining types want none.
        SELECT c.t, c.n
        FROM (SELECT u.t, count(*)::integer AS n FROM unnest(types) AS u(t) GROUP BY u.t) c
        WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.task_types tt WHERE tt.name = c.t AND tt.draining)
    ), free AS (
        -- Per type, enough groups with a free unit for the units wanted
        -- (one index descent per type), locked.
        SELECT w.t, w.n, f.slot_group, f.free, random() AS ord
        FROM wanted w, LATERAL (
            SELECT s.slot_group, s.capacity - s.used AS free
            FROM {{schema}}.concurrency_slots s
            WHERE s.task_type = w.t AND s.used < s.capacity
            LIMIT w.n
            FOR UPDATE SKIP LOCKED
        ) f
    ), take AS (
        -- Fill each type's locked groups in order until it has its units.
        SELECT f.t, f.slot_group,
               least(f.free, f.n - coalesce(sum(f.free) OVER (PARTITION BY f.t ORDER BY f.ord, f.slot_group
                                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS n
        FROM free f
    ), taken AS (
        UPDATE {{schema}}.concurrency_slots s SET used = s.used + t.n
        FROM take t
        WHERE s.task_type = t.t AND s.slot_group = t.slot_group AND t.n > 0
        RETURNING s.task_type, s.slot_group, t.n
    )
    SELECT array_agg(t.task_type ORDER BY t.task_type, t.slot_group), array_agg(t.slot_group ORDER BY t.task_type, t.slot_group)
      INTO unit_types, unit_groups
    FROM taken t, generate_series(1, t.n);
END;
$$;
