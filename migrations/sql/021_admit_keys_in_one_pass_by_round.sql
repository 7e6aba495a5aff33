-- pgseq schema, version 21: admit_keys handles all its keys in a few
-- statements instead of a loop of statements per key, and keys take turns
-- by rounds: a key that starts work while others have backlogs starts
-- within one round of them. {{schema}} is replaced by the quoted schema
-- name.
--
-- One pass. A completion of a batch of tasks of many keys gives back one
-- unit per key and admits each key's next waiting task. Version 19 did it
-- key by key: three to four statements per key, ~85 µs of server time
-- per key in the "partitioned" drain (10,000 keys), where the type's own
-- hand-off costs ~29 µs per task. Here each step is one statement over
-- every key of the call, and each says which invariant it keeps: the same
-- rows locked in the same order, the same rows deleted, the same errors.
-- Each key that may admit is probed once for waiting tasks.
--
-- Rounds. Version 19 gave a task its key admitted the admission's time as
-- run_at, which orders its type's lane and the claims. A key enqueued
-- last then waited behind every task the other keys had admitted before
-- it, up to their per-key limit each: 100 keys with a per-key limit of 5
-- put a new key 5 rounds back. Now admission orders tasks by start tags,
-- as start-time fair queuing does. A key with a backlog tags its next
-- task 1 µs after its previous start (partition_slots.last_at), so keys
-- with backlogs alternate round by round; a key joining the lane (new, or
-- its lane emptied since) starts at the lane's clock: the run_at of the
-- task at the head of its type's lane (of its queue's open tasks, for a
-- type without a limit), the round being served. A key finds out whether
-- it keeps a backlog by reading one waiting task more than it admits, so
-- the clock costs one index probe per type per call, and only when a key
-- joins. Tags are never more than a few microseconds ahead of now, so an
-- admitted task is claimable at once; the tag is the task's run_at from
-- then on, and status and metrics see an admitted task as due since its
-- tag (which may be earlier than its enqueue).
--
-- Measured (2 cores, PostgreSQL 15, bench ab --quick, 6 rounds in turns).
-- The one pass alone, against version 20: "keys-scale" (100,000 keys
-- against one key) 0.705× → 1.079× of its reference; "partitioned"
-- (10,000 keys, per-key limit 2, type limit 100) 0.468× → 0.531×; a
-- completion of 200 tasks of 200 keys, one task each, 11.7–12.6 ms →
-- 9.4–10.5 ms. The rounds, against the one pass alone: "partitioned"
-- -2.9% [-6.8% … +1.2%], "keys-scale" ratio 1.057× → 1.058×, within
-- noise. Slower first versions: upserting the rows on completion too
-- (-38% on "keys-scale": on completion the rows exist and are only
-- locked), probing the clock once per admitted task (its CTE inlined) and
-- joining CTEs by nested loops ("partitioned" 0.538× → 0.477×).
--
-- Every join with a table is meant as a nested loop over an index (the
-- keys of the call are few, partition_slots and tasks may be large): hash
-- and merge joins are off for the function, so a plan made without
-- knowing how many keys a call has (PL/pgSQL's generic plan) never reads a
-- whole table. Results of CTEs are looked up by key in jsonb objects
-- rather than joined, which would compare every pair.

ALTER TABLE {{schema}}.partition_slots ADD COLUMN last_at timestamptz;
COMMENT ON COLUMN {{schema}}.partition_slots.last_at IS 'Start tag (run_at) of the last task the key admitted: its next starts 1 µs later, or at its lane''s clock if that is later.';

-- lane_clock returns the start tag being served in a task type's lane: the
-- run_at of the first task of its lane (a limited type) or of its queue's
-- open tasks (a type without a limit); now() when there is none. One index
-- probe (tasks_waiting or tasks_claimable).
CREATE FUNCTION {{schema}}.lane_clock(task_type text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
    SELECT coalesce((
        SELECT CASE WHEN tt.concurrency IS NOT NULL THEN
                   (SELECT t.run_at FROM {{schema}}.tasks t
                    WHERE t.type = tt.name AND t.status = 'pending' AND t.gate = 'waiting'
                    ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1)
               ELSE
                   (SELECT t.run_at FROM {{schema}}.tasks t
                    WHERE t.queue = tt.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
                    ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1)
               END
        FROM {{schema}}.task_types tt WHERE tt.name = lane_clock.task_type), now())
$function$;
-- Internal: called by admit_keys only.
REVOKE ALL ON FUNCTION {{schema}}.lane_clock(text) FROM PUBLIC;

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
    k_last    timestamp with time zone[];
    k_new     timestamp with time zone[];
    k_wait    boolean[];
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
        SELECT k.t, k.k, k.free, k.last_at,
               (SELECT EXISTS (
                   SELECT 1 FROM {{schema}}.tasks t
                   WHERE t.type = k.t AND t.partition_key = k.k AND t.status = 'pending' AND t.key_wait)) AS waiting
        FROM unnest(k_types, k_keys, k_free, k_last) AS k(t, k, free, last_at)
        WHERE k.free > 0
    ), found AS (
        -- One task more than the key may admit: finding it means the key
        -- keeps a backlog.
        SELECT k.t, k.k, k.free, k.last_at, w.id,
               row_number() OVER (PARTITION BY k.t, k.k ORDER BY w.priority DESC, w.run_at, w.id) AS turn
        FROM k CROSS JOIN LATERAL (
            SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = k.t AND t.partition_key = k.k AND t.status = 'pending' AND t.key_wait
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT k.free + 1
            FOR UPDATE SKIP LOCKED) w
        WHERE k.waiting
    ), clock AS MATERIALIZED (
        -- The lane's clock, probed once per type and only for keys joining
        -- the lane (inlined, it was probed once per admitted task).
        SELECT c.t, {{schema}}.lane_clock(c.t) AS v
        FROM (SELECT DISTINCT f.t FROM found f WHERE f.last_at IS NULL) c
    ), admitted AS (
        UPDATE {{schema}}.tasks t
        SET key_wait = false, key_unit = true, updated_at = now(),
            run_at = coalesce(f.last_at + interval '1 microsecond', c.v) + (f.turn - 1) * interval '1 microsecond',
            gate = CASE WHEN tt.concurrency IS NOT NULL THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate
        FROM found f LEFT JOIN clock c ON c.t = f.t, {{schema}}.task_types tt
        WHERE f.turn <= f.free AND t.id = f.id AND tt.name = t.type
        RETURNING t.id, t.type, t.partition_key, t.run_at, tt.concurrency IS NOT NULL AS limited
    ), counted AS MATERIALIZED (
        -- Per key (type and key joined by a unit separator): tasks admitted
        -- and the last start tag. A jsonb object looked up by key, not a
        -- join: a nested loop between two CTEs compares every pair.
        SELECT jsonb_object_agg(x.t || E'\x1f' || x.k, jsonb_build_array(x.n, x.last_at)) AS m
        FROM (SELECT a.type AS t, a.partition_key AS k, count(*) AS n, max(a.run_at) AS last_at
              FROM admitted a GROUP BY a.type, a.partition_key) x
    ), backlogs AS MATERIALIZED (
        -- The keys that found more waiting tasks than they admitted: their
        -- start tags go on; a key that looked and found no more joins the
        -- lane anew next time.
        SELECT jsonb_object_agg(x.t || E'\x1f' || x.k, true) AS m
        FROM (SELECT DISTINCT f.t, f.k FROM found f WHERE f.turn > f.free) x
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
      AND NOT coalesce(n.waiting, (SELECT EXISTS (
          SELECT 1 FROM {{schema}}.tasks t
          WHERE t.type = n.t AND t.partition_key = n.k AND t.status = 'pending' AND t.key_wait)));
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
            UPDATE {{schema}}.tasks t SET gate = 'open', slot_group = u.grp
            FROM unnest(v_ids[1:cardinality(v_units)], v_units) AS u(id, grp)
            WHERE t.id = u.id;
            v_opened := v_opened + cardinality(v_units);
        END LOOP;
    END IF;
    RETURN v_opened;
END;
$function$;
