-- pgseq schema, version 21: admit_keys handles all its keys in a few
-- statements instead of a loop of statements per key. {{schema}} is
-- replaced by the quoted schema name.
--
-- A completion of a batch of tasks of many keys gives back one unit per
-- key and admits each key's next waiting task. Version 19 did it key by
-- key: three to four statements per key, ~85 µs of server time per key
-- in the "partitioned" drain (10,000 keys), where the type's own hand-off
-- costs ~29 µs per task. Here each step is one statement over every key
-- of the call, and each says which invariant it keeps. What a call does
-- is unchanged: the same rows locked in the same order, the same tasks
-- admitted in the same order with the same run_at, the same rows
-- deleted, the same errors.
--
-- Measured (2 cores, PostgreSQL 15, bench ab --quick, 6 rounds, version 20
-- against 21 in turns): "keys-scale" (100,000 keys against one key)
-- 0.705× → 1.079× of its reference; "partitioned" (10,000 keys, per-key
-- limit 2, type limit 100) 0.468× → 0.531×. A completion of 200 tasks of
-- 200 keys, one task each: 11.7–12.6 ms → 9.4–10.5 ms. A first version
-- that upserted the rows on completion too, and joined the two CTEs of
-- step 1 without an index, was 38% slower on "keys-scale" than version
-- 20: on completion the rows exist and are only locked.
--
-- Every join here is meant as a nested loop over an index (the keys of the
-- call are few, partition_slots and tasks may be large): hash and merge
-- joins are off for the function, so a plan made without knowing how many
-- keys a call has (PL/pgSQL's generic plan) never reads a whole table.

CREATE OR REPLACE FUNCTION {{schema}}.admit_keys(types text[], keys text[], freed boolean DEFAULT false)
 RETURNS integer
 LANGUAGE plpgsql
 SET enable_hashjoin TO 'off'
 SET enable_mergejoin TO 'off'
AS $function$
DECLARE
    k_types   text[];
    k_keys    text[];
    k_used    integer[];
    k_free    integer[];
    v_bad     record;
    v_twice   bigint;
    v_type    text;
    v_ids     bigint[];
    w_ids     bigint[];
    v_units   integer[];
    v_opened  integer;
BEGIN
    -- 1. The keys' rows, locked (or created and so held) in bytewise (type,
    -- key) order, the locking order every caller keeps, with each key's
    -- units in use after the give-back and how many of its waiting tasks it
    -- may admit: none when the type is no longer partitioned (pgseq apply
    -- releases those), none above a lowered limit (strict draining).
    IF freed THEN
        -- A unit given back means its key's row exists: locked without a
        -- write, each occurrence of a key one unit off its count. A count
        -- that would fall below zero, or a row missing, is a unit given
        -- back twice.
        WITH given AS (
            SELECT u.t, u.k, count(*)::integer AS back
            FROM unnest(types, keys) AS u(t, k)
            WHERE u.k IS NOT NULL
            GROUP BY u.t, u.k
        ), locked AS (
            SELECT s.task_type, s.partition_key, s.used, g.back
            FROM given g JOIN {{schema}}.partition_slots s ON s.task_type = g.t AND s.partition_key = g.k
            ORDER BY s.task_type COLLATE "C", s.partition_key COLLATE "C"
            FOR UPDATE OF s
        )
        SELECT array_agg(l.task_type ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.partition_key ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.used - l.back ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(greatest(coalesce(tt.partition_limit, 0) - (l.used - l.back), 0)
                         ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               count(*) FILTER (WHERE l.used < l.back) + (SELECT count(*) FROM given) - count(*)
          INTO k_types, k_keys, k_used, k_free, v_twice
        FROM locked l LEFT JOIN {{schema}}.task_types tt ON tt.name = l.task_type;
        IF v_twice > 0 THEN
            SELECT u.t, u.k, coalesce(s.used, 0) AS used, count(*) AS back INTO v_bad
            FROM unnest(types, keys) AS u(t, k)
            LEFT JOIN {{schema}}.partition_slots s ON s.task_type = u.t AND s.partition_key = u.k
            WHERE u.k IS NOT NULL
            GROUP BY u.t, u.k, s.used
            HAVING coalesce(s.used, 0) < count(*)
            ORDER BY u.t COLLATE "C", u.k COLLATE "C"
            LIMIT 1;
            RAISE EXCEPTION 'a partition key unit was given back twice: % key "%" (% given back, % in use)',
                v_bad.t, v_bad.k, v_bad.back, v_bad.used
                USING ERRCODE = 'PS030',
                      HINT = 'This is a pgseq bug (invariant I3): please report it with the output of pgseq status.';
        END IF;
    ELSE
        -- On enqueue and admission of due tasks the row may not exist yet:
        -- an upsert locks an existing row and creates a missing one in one
        -- step, even when a concurrent transaction deletes the row
        -- meanwhile.
        WITH given AS (
            SELECT DISTINCT u.t, u.k FROM unnest(types, keys) AS u(t, k) WHERE u.k IS NOT NULL
        ), locked AS (
            INSERT INTO {{schema}}.partition_slots AS s (task_type, partition_key)
            SELECT g.t, g.k FROM given g ORDER BY g.t COLLATE "C", g.k COLLATE "C"
            ON CONFLICT (task_type, partition_key) DO UPDATE SET used = s.used
            RETURNING s.task_type, s.partition_key, s.used
        )
        SELECT array_agg(l.task_type ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.partition_key ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.used ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(greatest(coalesce(tt.partition_limit, 0) - l.used, 0)
                         ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C")
          INTO k_types, k_keys, k_used, k_free
        FROM locked l LEFT JOIN {{schema}}.task_types tt ON tt.name = l.task_type;
    END IF;
    IF k_types IS NULL THEN
        RETURN 0;
    END IF;

    -- 2. Each key admits its first waiting tasks in claim order, up to its
    -- free units (the key lane read SKIP LOCKED: a task another
    -- transaction holds stays waiting). The k-th task a key admits in this
    -- call runs at now + k-1 microseconds: keys admitted together
    -- alternate in their type's lane and in the claim order. Admitted
    -- tasks of types without a limit are open; of limited types, in their
    -- type's lane until step 4 gives them units.
    WITH k AS (
        SELECT k.t, k.k, k.free FROM unnest(k_types, k_keys, k_free) AS k(t, k, free) WHERE k.free > 0
    ), next AS (
        SELECT w.id, row_number() OVER (PARTITION BY k.t, k.k ORDER BY w.priority DESC, w.run_at, w.id) AS turn
        FROM k CROSS JOIN LATERAL (
            SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = k.t AND t.partition_key = k.k AND t.status = 'pending' AND t.key_wait
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT k.free
            FOR UPDATE SKIP LOCKED) w
    ), admitted AS (
        UPDATE {{schema}}.tasks t
        SET key_wait = false, key_unit = true, updated_at = now(),
            run_at = greatest(t.run_at, now() + (next.turn - 1) * interval '1 microsecond'),
            gate = CASE WHEN tt.concurrency IS NOT NULL THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate
        FROM next, {{schema}}.task_types tt
        WHERE t.id = next.id AND tt.name = t.type
        RETURNING t.id, t.type, t.partition_key, tt.concurrency IS NOT NULL AS limited
    ), counted AS (
        SELECT a.type, a.partition_key, count(*)::integer AS n FROM admitted a GROUP BY a.type, a.partition_key
    ), after AS (
        SELECT k.t, k.k, k.used + coalesce(c.n, 0) AS used
        FROM unnest(k_types, k_keys, k_used) AS k(t, k, used)
        LEFT JOIN counted c ON c.type = k.t AND c.partition_key = k.k
    )
    SELECT (SELECT array_agg(a.id) FROM admitted a WHERE a.limited),
           (SELECT count(*)::integer FROM admitted a WHERE NOT a.limited),
           array_agg(after.used ORDER BY after.t COLLATE "C", after.k COLLATE "C")
      INTO w_ids, v_opened, k_used
    FROM after;

    -- 3. The rows follow: a key with no unit in use and nothing waiting
    -- loses its row (so idle keys cost no rows); the others keep their
    -- new count.
    DELETE FROM {{schema}}.partition_slots s
    USING unnest(k_types, k_keys, k_used) AS n(t, k, used)
    WHERE n.used = 0 AND s.task_type = n.t AND s.partition_key = n.k
      -- A scalar subquery, not NOT EXISTS: it stays a probe of the key's
      -- lane per key, where an anti join planned for one key read the
      -- whole of tasks_key_waiting for each. It sees waiting tasks other
      -- transactions hold, which step 2 skipped.
      AND NOT (SELECT EXISTS (
          SELECT 1 FROM {{schema}}.tasks t
          WHERE t.type = n.t AND t.partition_key = n.k AND t.status = 'pending' AND t.key_wait));
    UPDATE {{schema}}.partition_slots s SET used = n.used
    FROM unnest(k_types, k_keys, k_used) AS n(t, k, used)
    WHERE s.task_type = n.t AND s.partition_key = n.k AND s.used <> n.used;

    -- 4. The admitted tasks of limited types: units of their types, in
    -- claim order per type (take_units: SKIP LOCKED, never waiting while
    -- holding key rows).
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
$function$;
