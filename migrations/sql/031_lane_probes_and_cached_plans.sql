-- pgseq schema, version 31: the probes that ask whether a key or a type
-- has tasks waiting read its lane in the lane index's order, and the
-- runtime's statements that were planned again at every call (admit_keys',
-- claim_open's, and those of three SQL functions that cannot be inlined)
-- keep their plans. admit_keys also takes here migration 030's updates
-- of tasks by id (its admission and units steps: see 030's header).
-- {{schema}} is replaced by the quoted schema name.
--
-- admit_keys asked whether a key has tasks waiting with EXISTS (SELECT 1
-- FROM tasks WHERE type = … AND partition_key = … AND status = 'pending'
-- AND key_wait), and hand_off whether a type's lane shows tasks after its
-- admission lock the same way. PostgreSQL plans an EXISTS for its first
-- row: when ANALYZE ran while one key's (or type's) waiting tasks were
-- most of the table, as in a drain of one key's backlog, it expects a
-- match at once and scans the table from its start, where the completed
-- tasks are (kept for retention). Measured in the keys-one drain
-- (auto_explain): a sequential scan per completion, 600 to 5,000 rows
-- filtered out and growing with the tasks completed; with a million kept,
-- a million per completion. TestKeyProbesReadTheLaneInIndexOrder forces it.
-- The probes are now scalar subqueries ordered as the lane's index with
-- LIMIT 1 (an EXISTS drops its ORDER BY and LIMIT), as the claim's probe
-- of migration 020: an index scan reads the lane's head, whatever the
-- statistics say.
--
-- lane_clock, the probe of a lane's head that admit_keys and the keyed
-- enqueues call once a statement, becomes PL/pgSQL: as a SQL function it
-- could not be inlined (its body reads task_types), so every call planned
-- its query again, about 100 µs against 16 µs with PL/pgSQL's cached
-- plans (2,000 calls in a loop, one statement each). Same result: the
-- run_at of the lane's first task (a limited type's lane, or the queue's
-- open tasks for a type without a limit), now() when there is none or the
-- type is unknown. type_draining becomes PL/pgSQL too (a subquery: not
-- inlined either, planned once a transaction by take_units): an enqueue
-- of a limited type, autocommit, 601 µs a call before, 516 µs after
-- (BenchmarkEnqueueOne).
--
-- admit_keys' statements get one generic plan each for calls of up to
-- 1,000 keys (its step 0): PL/pgSQL planned them again at every call,
-- which cost more than running them (one key's enqueue 1.47 ms before,
-- 0.72 ms after, pgbench). claim_open keeps its generic plan too: it was
-- planned again at every claim (pg_stat_statements with track_planning:
-- 106 plans in 103 claims of `many`, 232 µs each, against a claim of
-- 3 ms). Its generic plan is safe since migration 029 (no join left;
-- TestClaimGenericPlanFindsTasksByIndex reads it with 100,000 tasks).
-- backoff_delay, the retry delay fail computes, becomes PL/pgSQL as well
-- (its FROM clause kept it from being inlined; planned in every
-- transaction of a fail): a claim and a fail of one task, autocommit,
-- 1.04-1.10 ms before, 0.83-0.96 ms after (pgbench, one client, three
-- alternations of 6 s). Same formula, same guard against overflow
-- (migration 004).

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

CREATE OR REPLACE FUNCTION {{schema}}.hand_off(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, OUT taken {{schema}}.taken_task[])
 RETURNS {{schema}}.taken_task[]
 LANGUAGE plpgsql
AS $function$
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
    -- then offer again to the types whose lanes now show tasks (I5).
    -- Admission locks are taken once, in key order, for every type that may
    -- need one here: never one by one. Exclusive when a drain may end (step
    -- 3 admits), else shared.
    IF o_types IS NOT NULL OR v_draining IS NOT NULL THEN
        PERFORM {{schema}}.lock_admission(coalesce(o_types, '{}') || coalesce(v_draining, '{}'), v_draining IS NOT NULL);
    END IF;
    IF o_types IS NOT NULL THEN
        -- The lane's head, in its index's order (migration 031: as EXISTS,
        -- a type whose tasks were most of the table when ANALYZE ran got a
        -- sequential scan through every completed task ahead of its lane).
        SELECT array_agg(DISTINCT u.t) INTO v_retry
        FROM unnest(o_types) AS u(t)
        WHERE (SELECT true FROM {{schema}}.tasks t
               WHERE t.type = u.t AND t.status = 'pending' AND t.gate = 'waiting'
               ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1);
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
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.lane_clock(task_type text)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
    v_queue   text;
    v_limited boolean;
    v_at      timestamp with time zone;
BEGIN
    SELECT tt.queue, tt.concurrency IS NOT NULL INTO v_queue, v_limited
    FROM {{schema}}.task_types tt WHERE tt.name = lane_clock.task_type;
    IF NOT FOUND THEN
        RETURN now();
    END IF;
    IF v_limited THEN
        SELECT t.run_at INTO v_at FROM {{schema}}.tasks t
        WHERE t.type = lane_clock.task_type AND t.status = 'pending' AND t.gate = 'waiting'
        ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1;
    ELSE
        SELECT t.run_at INTO v_at FROM {{schema}}.tasks t
        WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1;
    END IF;
    RETURN coalesce(v_at, now());
END;
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.type_draining(task_type text)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
    RETURN EXISTS (SELECT 1 FROM {{schema}}.task_types tt
                   WHERE tt.name = type_draining.task_type AND tt.draining);
END;
$function$;

ALTER FUNCTION {{schema}}.claim_open(text, text, integer, integer) SET plan_cache_mode TO 'force_generic_plan';

CREATE OR REPLACE FUNCTION {{schema}}.backoff_delay(q {{schema}}.queues, attempt integer)
 RETURNS interval
 LANGUAGE plpgsql
AS $function$
DECLARE
    v_initial double precision := extract(epoch FROM q.backoff_initial);
    v_max     double precision := extract(epoch FROM q.backoff_max);
    v_secs    double precision;
BEGIN
    v_secs := CASE
                  WHEN v_initial <= 0 OR v_max <= 0 THEN 0
                  WHEN v_max <= v_initial THEN v_max
                  WHEN attempt <= 1 OR q.backoff_factor <= 1 THEN v_initial
                  -- initial·factor^n ≥ max  ⇔  n·ln(factor) ≥ ln(max/initial)
                  WHEN (attempt - 1) * ln(q.backoff_factor) >= ln(v_max / v_initial) THEN v_max
                  ELSE v_initial * exp((attempt - 1) * ln(q.backoff_factor))
              END;
    RETURN make_interval(secs => v_secs * (1 + q.backoff_jitter * (2 * random() - 1)));
END;
$function$;
