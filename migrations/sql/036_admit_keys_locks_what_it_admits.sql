-- pgseq schema, version 36: a key admitting its tasks locks those it
-- admits, not one more.
-- {{schema}} is replaced by the quoted schema name.
--
-- admit_keys read each admitting key's lane for one task more than the
-- key had units free, FOR UPDATE SKIP LOCKED, only to learn whether the
-- key keeps a backlog (its start tags go on) or joins its type's lane
-- anew next time. Locking a row writes it: in the partitioned drain, a
-- completion admitting for 100 keys locked 175 tasks to admit 89
-- (auto_explain). The lane is now read, and locked, for the tasks the key
-- admits; whether one more waits is a probe without a lock past them, as
-- the key's first probe (waiting) already is. The answer differs only
-- for a task another transaction holds locked in the key's lane while
-- this one holds the key's row, which no caller does (the apply, the one
-- other writer of waiting tasks, holds the types' locks exclusive).

CREATE OR REPLACE FUNCTION {{schema}}.admit_keys(types text[], keys text[], freed boolean DEFAULT false, locked boolean DEFAULT false)
 RETURNS integer
 LANGUAGE plpgsql
 SET enable_hashjoin TO 'off'
 SET enable_mergejoin TO 'off'
 SET plan_cache_mode TO 'auto'
AS $function$
DECLARE
    k_types   text[];
    k_keys    text[];
    k_used    integer[];
    k_free    integer[];
    k_last    timestamp with time zone[];
    k_new     timestamp with time zone[];
    k_wait    boolean[];
    v_bad     record;
    v_twice   bigint;
    v_type    text;
    v_ids     bigint[];
    w_ids     bigint[];
    v_units   integer[];
    v_map     jsonb;
    v_opened  integer;
BEGIN
    -- 0. Plans: one generic plan per statement for the calls a completion
    -- or an enqueue makes (PL/pgSQL planned these statements again at every
    -- call, each cheaper for its own arrays than the generic one, and the
    -- planning cost more than the running: one key's enqueue 1.47 ms with,
    -- 0.72 ms without, migration 031); planned for their own arrays for
    -- calls of more than 1,000 keys (enqueue_batch's), where a plan made
    -- for an unknown number of keys may not do. Until the call returns
    -- (the SET clause above restores the caller's).
    PERFORM set_config('plan_cache_mode',
                       CASE WHEN cardinality(types) > 1000 THEN 'force_custom_plan' ELSE 'force_generic_plan' END,
                       true);
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
            SELECT s.task_type, s.partition_key, s.used, s.last_at, g.back
            FROM given g JOIN {{schema}}.partition_slots s ON s.task_type = g.t AND s.partition_key = g.k
            ORDER BY s.task_type COLLATE "C", s.partition_key COLLATE "C"
            FOR UPDATE OF s
        )
        SELECT array_agg(l.task_type ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.partition_key ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.used - l.back ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(greatest(coalesce(tt.partition_limit, 0) - (l.used - l.back), 0)
                         ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.last_at ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               count(*) FILTER (WHERE l.used < l.back) + (SELECT count(*) FROM given) - count(*)
          INTO k_types, k_keys, k_used, k_free, k_last, v_twice
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
    ELSIF locked THEN
        -- The caller created or locked every key's row already, in key
        -- order (enqueue_batch, step 3b): read, not written again.
        WITH given AS (
            SELECT DISTINCT u.t, u.k FROM unnest(types, keys) AS u(t, k) WHERE u.k IS NOT NULL
        ), held AS (
            SELECT s.task_type, s.partition_key, s.used, s.last_at
            FROM given g JOIN {{schema}}.partition_slots s ON s.task_type = g.t AND s.partition_key = g.k
        )
        SELECT array_agg(l.task_type ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.partition_key ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.used ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(greatest(coalesce(tt.partition_limit, 0) - l.used, 0)
                         ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.last_at ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C")
          INTO k_types, k_keys, k_used, k_free, k_last
        FROM held l LEFT JOIN {{schema}}.task_types tt ON tt.name = l.task_type;
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
            RETURNING s.task_type, s.partition_key, s.used, s.last_at
        )
        SELECT array_agg(l.task_type ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.partition_key ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.used ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(greatest(coalesce(tt.partition_limit, 0) - l.used, 0)
                         ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C"),
               array_agg(l.last_at ORDER BY l.task_type COLLATE "C", l.partition_key COLLATE "C")
          INTO k_types, k_keys, k_used, k_free, k_last
        FROM locked l LEFT JOIN {{schema}}.task_types tt ON tt.name = l.task_type;
    END IF;
    IF k_types IS NULL THEN
        RETURN 0;
    END IF;

    -- 2. Each key admits its first waiting tasks in claim order, up to its
    -- free units (the key lane read SKIP LOCKED: a task another
    -- transaction holds stays waiting). Each admitted task takes a start
    -- tag as its run_at, 1 µs apart within the key: a key with a backlog
    -- goes on from 1 µs after its previous start (last_at), so keys with
    -- backlogs alternate round by round in their type's lane and in the
    -- claim order; a key joining the lane (new, or its lane emptied since)
    -- starts at the lane's clock, in the round being served. Admitted tasks
    -- of types without a limit are open; of limited types, in their type's
    -- lane until step 4 gives them units.
    WITH k AS (
        -- The keys that may admit, and whether anything waits in their
        -- lane at all (one probe that sees tasks other transactions hold;
        -- the lane is read for tasks only when it is not empty, and step 3
        -- deletes an idle key's row on this answer).
        -- (The probe reads the key's lane in its index's order, a scalar
        -- subquery with LIMIT 1, migration 031: as EXISTS, whose ORDER BY
        -- and LIMIT PostgreSQL drops, a key whose tasks were most of the
        -- table when ANALYZE ran got a sequential scan from the table's
        -- start, through every completed task ahead of its lane.)
        SELECT k.t, k.k, k.free, k.last_at,
               (SELECT true FROM {{schema}}.tasks t
                WHERE t.type = k.t AND t.partition_key = k.k AND t.status = 'pending' AND t.key_wait
                ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1) IS NOT NULL AS waiting
        FROM unnest(k_types, k_keys, k_free, k_last) AS k(t, k, free, last_at)
        WHERE k.free > 0
    ), found AS (
        -- The tasks the key admits, locked (migration 036: no longer one
        -- more, locked only to learn whether the key keeps a backlog; see
        -- backlogs).
        SELECT k.t, k.k, k.free, k.last_at, w.id,
               row_number() OVER (PARTITION BY k.t, k.k ORDER BY w.priority DESC, w.run_at, w.id) AS turn
        FROM k CROSS JOIN LATERAL (
            SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = k.t AND t.partition_key = k.k AND t.status = 'pending' AND t.key_wait
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT k.free
            FOR UPDATE SKIP LOCKED) w
        WHERE k.waiting
    ), clock AS MATERIALIZED (
        -- The lane's clock, probed once per type and only for keys joining
        -- the lane (inlined, it was probed once per admitted task).
        SELECT c.t, {{schema}}.lane_clock(c.t) AS v
        FROM (SELECT DISTINCT f.t FROM found f WHERE f.last_at IS NULL) c
    ), tags AS MATERIALIZED (
        -- One row: the tasks to admit, and by id each one's start tag and
        -- whether its type has a limit.
        SELECT array_agg(f.id) AS ids,
               jsonb_object_agg(f.id::text, jsonb_build_array(
                   coalesce(f.last_at + interval '1 microsecond', c.v) + (f.turn - 1) * interval '1 microsecond',
                   tt.concurrency IS NOT NULL)) AS m
        FROM found f LEFT JOIN clock c ON c.t = f.t
        JOIN {{schema}}.task_types tt ON tt.name = f.t
        WHERE f.turn <= f.free
    ), admitted AS (
        -- An update of tasks alone, by id, its values looked up by id in
        -- tags (migration 030: a join with found let the planner read the
        -- admitted tasks again for each admitted task, 4 ms of a 12 ms
        -- completion of 94 keyed tasks; or, the statistics saying the table
        -- was empty, every task for each).
        UPDATE {{schema}}.tasks t
        SET key_wait = false, key_unit = true, updated_at = now(),
            run_at = ((SELECT g.m FROM tags g) -> t.id::text ->> 0)::timestamp with time zone,
            gate = CASE WHEN ((SELECT g.m FROM tags g) -> t.id::text ->> 1)::boolean THEN 'waiting'
                        ELSE 'open' END::{{schema}}.task_gate
        WHERE t.id = ANY ((SELECT g.ids FROM tags g)::bigint[])
        RETURNING t.id, t.type, t.partition_key, t.run_at, t.gate = 'waiting' AS limited
    ), counted AS MATERIALIZED (
        -- Per key (type and key joined by a unit separator): tasks admitted
        -- and the last start tag. A jsonb object looked up by key, not a
        -- join: a nested loop between two CTEs compares every pair.
        SELECT jsonb_object_agg(x.t || E'\x1f' || x.k, jsonb_build_array(x.n, x.last_at)) AS m
        FROM (SELECT a.type AS t, a.partition_key AS k, count(*) AS n, max(a.run_at) AS last_at
              FROM admitted a GROUP BY a.type, a.partition_key) x
    ), backlogs AS MATERIALIZED (
        -- The keys that keep a backlog: they admitted as many tasks as they
        -- had units free, and a task still waits in their lane (a probe
        -- without a lock, past the tasks admitted). Their start tags go on;
        -- a key that looked and found no more joins the lane anew next
        -- time.
        SELECT jsonb_object_agg(x.t || E'\x1f' || x.k, true) AS m
        FROM (SELECT f.t, f.k, array_agg(f.id) AS ids
              FROM found f GROUP BY f.t, f.k, f.free HAVING count(*) = f.free) x
        WHERE (SELECT true FROM {{schema}}.tasks t
               WHERE t.type = x.t AND t.partition_key = x.k AND t.status = 'pending' AND t.key_wait
                 AND t.id <> ALL (x.ids)
               ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1)
    ), waits AS MATERIALIZED (
        SELECT jsonb_object_agg(k.t || E'\x1f' || k.k, k.waiting) AS m FROM k
    )
    SELECT (SELECT array_agg(a.id) FROM admitted a WHERE a.limited),
           (SELECT count(*)::integer FROM admitted a WHERE NOT a.limited),
           array_agg(k.used + coalesce((c.m -> (k.t || E'\x1f' || k.k) ->> 0)::integer, 0)
                     ORDER BY k.t COLLATE "C", k.k COLLATE "C"),
           array_agg(CASE WHEN k.free = 0 THEN k.last_at    -- did not look: unchanged
                          WHEN b.m ? (k.t || E'\x1f' || k.k)
                          THEN (c.m -> (k.t || E'\x1f' || k.k) ->> 1)::timestamp with time zone
                     END ORDER BY k.t COLLATE "C", k.k COLLATE "C"),
           array_agg((wt.m -> (k.t || E'\x1f' || k.k))::boolean ORDER BY k.t COLLATE "C", k.k COLLATE "C")
      INTO w_ids, v_opened, k_used, k_new, k_wait
    FROM unnest(k_types, k_keys, k_used, k_last, k_free) AS k(t, k, used, last_at, free), counted c, backlogs b, waits wt;

    -- 3. The rows follow: a key with no unit in use and nothing waiting
    -- loses its row (so idle keys cost no rows); the others keep their
    -- new count and start tag.
    DELETE FROM {{schema}}.partition_slots s
    USING unnest(k_types, k_keys, k_used, k_wait) AS n(t, k, used, waiting)
    WHERE n.used = 0 AND s.task_type = n.t AND s.partition_key = n.k
      -- Step 2's answer when it looked; else a probe of its own, a scalar
      -- subquery rather than NOT EXISTS: it stays a probe of the key's lane
      -- per key, where an anti join planned for one key read the whole of
      -- tasks_key_waiting for each. An enqueue whose task neither saw
      -- admits it itself once this commits (it waits for the key's row).
      AND NOT coalesce(n.waiting, (SELECT true FROM {{schema}}.tasks t
                                   WHERE t.type = n.t AND t.partition_key = n.k AND t.status = 'pending' AND t.key_wait
                                   ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1) IS NOT NULL);
    UPDATE {{schema}}.partition_slots s SET used = n.used, last_at = n.last_at
    FROM unnest(k_types, k_keys, k_used, k_new) AS n(t, k, used, last_at)
    WHERE s.task_type = n.t AND s.partition_key = n.k
      AND (s.used <> n.used OR s.last_at IS DISTINCT FROM n.last_at);

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
            -- Of tasks alone, by id (migration 030), as admit_waiting.
            SELECT jsonb_object_agg(u.id::text, u.grp) INTO v_map
            FROM unnest(v_ids[1:cardinality(v_units)], v_units) AS u(id, grp);
            UPDATE {{schema}}.tasks t SET gate = 'open', slot_group = (v_map ->> t.id::text)::integer
            WHERE t.id = ANY (v_ids[1:cardinality(v_units)]);
            v_opened := v_opened + cardinality(v_units);
        END LOOP;
    END IF;
    RETURN v_opened;
END;
$function$;
