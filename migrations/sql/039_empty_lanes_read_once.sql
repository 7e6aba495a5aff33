-- pgseq schema, version 39: a completion whose units nobody waits for
-- reads one index page, not a lane per type.
-- {{schema}} is replaced by the quoted schema name.
--
-- A completion hands each unit it frees to the next task of its type's
-- lane (offer_units), and before giving back the units nobody took it
-- probes those types' lanes once more (hand_off, I5). Each is one descent
-- of tasks_waiting per type: a completion of 200 tasks over 180 types
-- whose limits do not bind (the `many` drain, the round trip with 1,000
-- limited types) descended 360 empty lanes. When few tasks wait in all
-- lanes together (none, where limits do not bind), one read of the first
-- entries of tasks_waiting, in the same statement's snapshot, names every
-- type that has a waiting task: the lanes of the other types are empty in
-- that snapshot, and neither the offer nor the probe descends them. When
-- more tasks wait than that read takes, every lane is read as before. The
-- read is made only for several types (several_types): it costs about what
-- a few descents cost (more at a lane head many workers take from), and a
-- completion of one type (one limited type among many, one type with a
-- high limit) or of a few units would pay it for nothing.

-- several_types says whether units (their types, one per unit) are more
-- than 8 and of more than one type: where reading waiting_types may save
-- more lane descents than it costs. It stops at the first type that
-- differs from the first unit's (no sort, no count of distinct types: a
-- materialized count of the types cost enabled's completions 1-2%). One
-- expression without a subquery, so that it is inlined where it is called.
CREATE FUNCTION {{schema}}.several_types(units text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $function$
    SELECT cardinality(units) > 8 AND units[1] <> ANY (units)
$function$;

-- waiting_types names every task type with a task waiting in its lane
-- (status pending, gate waiting) in the calling statement's snapshot, when
-- fewer than 8 tasks wait in all lanes together; NULL when 8 or more do
-- (then a lane not named may hold tasks). One read of tasks_waiting in its
-- own order, at most 8 entries: never a lane's backlog. PL/pgSQL, STABLE:
-- its plan is kept for the session (a SQL function that cannot be inlined
-- is planned again at every call: migration 031) and it reads in the
-- caller's snapshot.
CREATE FUNCTION {{schema}}.waiting_types() RETURNS text[]
LANGUAGE plpgsql STABLE
AS $function$
BEGIN
    RETURN (SELECT CASE WHEN count(*) < 8 THEN coalesce(array_agg(DISTINCT h.type), '{}') END
            FROM (SELECT t.type FROM {{schema}}.tasks t
                  WHERE t.status = 'pending' AND t.gate = 'waiting'
                  ORDER BY t.type, t.priority DESC, t.run_at, t.id
                  LIMIT 8) h);
END;
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.offer_units(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, skip_changed boolean DEFAULT true, OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[], OUT opened integer)
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET jit TO 'off'
AS $function$
DECLARE
    w_ids    bigint[];
    w_types  text[];
    w_groups integer[];
    w_take   boolean[];
    v_own    xid := xid(pg_current_xact_id_if_assigned()); -- rows this transaction marked are its own
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    -- 1. Who takes which unit: the first tasks of each type's lane, as many
    -- as it released (one descent of the lane per type), locked. The k-th
    -- task of a type takes the type's k-th unit (its units in group
    -- order); the taker takes the first max_take tasks in claim order.
    -- Nothing is written here: a completion whose lanes are empty stops
    -- after this one read (migration 037). With skip_changed, a task whose
    -- row was changed or locked by a transaction not yet done when this
    -- statement's snapshot was taken is passed over, never locked
    -- (migration 038): FOR UPDATE would lock the newest version of such a
    -- row, and when that no longer waits (another worker took the task)
    -- skip it with the lock held until this transaction ends, making the
    -- task's new owner wait for this one. SKIP LOCKED passes over the
    -- rows still locked anyway; what else is passed over was changed since
    -- the snapshot, and hand_off's second offer, which passes over
    -- nothing, takes any of it that still waits (I5). For several types
    -- (several_types), when few tasks wait in all lanes together, those with none
    -- are known from one read (waiting_types) and their lanes are not
    -- descended (migration 039).
    SELECT array_agg(w.id), array_agg(w.type), array_agg(w.grp), array_agg(w.take)
      INTO w_ids, w_types, w_groups, w_take
    FROM (
        SELECT w.id, w.type, w.grp,
               taker IS NOT NULL AND (max_take IS NULL OR
                   row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) <= max_take) AS take
        -- (OFFSET 0: read once, not wherever s is named.)
        FROM (SELECT pg_current_snapshot() AS snap,
                     CASE WHEN {{schema}}.several_types(types) THEN {{schema}}.waiting_types() END AS seen
              OFFSET 0) s,
             (SELECT r.type, count(*) AS n, array_agg(r.grp ORDER BY r.grp) AS grps
              FROM unnest(types, groups) AS r(type, grp)
              GROUP BY r.type) p,
        LATERAL (
            -- (The unit is looked up here, per type: its list carried along
            -- with every task to a later step was copied with each row,
            -- quadratic in the units of one type.)
            SELECT l.id, l.type, l.priority, l.run_at,
                   p.grps[row_number() OVER (ORDER BY l.priority DESC, l.run_at, l.id)] AS grp
            FROM (
                SELECT t.id, t.type, t.priority, t.run_at FROM {{schema}}.tasks t
                WHERE t.type = p.type AND t.status = 'pending' AND t.gate = 'waiting'
                  AND (NOT skip_changed OR t.xmax = v_own OR {{schema}}.done_before(t.xmax, s.snap))
                ORDER BY t.priority DESC, t.run_at, t.id
                LIMIT p.n
                FOR UPDATE SKIP LOCKED
            ) l
        ) w
        -- No descent into a lane the statement's snapshot shows empty
        -- (migration 039).
        WHERE s.seen IS NULL OR p.type = ANY (s.seen)
    ) w;

    -- 2. The units nobody takes: every unit when no lane has a task (as
    -- given: no caller depends on their order), none in a backlog, else
    -- each type's units beyond the tasks it found.
    IF w_ids IS NULL THEN
        left_types := types;
        left_groups := groups;
        opened := 0;
        RETURN;
    END IF;
    IF cardinality(w_ids) < cardinality(types) THEN
        -- (The count of tasks found per type is looked up, never joined:
        -- a nested loop over the two lists would compare every unit with
        -- every type, as the first build's join of tasks with units did.)
        SELECT array_agg(u.t ORDER BY u.t, u.k), array_agg(u.g ORDER BY u.t, u.k)
          INTO left_types, left_groups
        FROM (SELECT x.t, x.g, row_number() OVER (PARTITION BY x.t ORDER BY x.g) AS k
              FROM unnest(types, groups) AS x(t, g)) u
        WHERE u.k > coalesce((SELECT jsonb_object_agg(f.t, f.n)
                              FROM (SELECT y.t, count(*) AS n FROM unnest(w_types) AS y(t) GROUP BY y.t) f)
                             ->> u.t, '0')::integer;
    END IF;

    -- 3. The tasks found take their units: running for the taker, or open
    -- for any claimer. (Each was locked in step 1, so each is updated: a
    -- type with m tasks passes on exactly its units 1..m.)
    WITH passed AS (
        UPDATE {{schema}}.tasks t
        SET gate = 'open', slot_group = n.grp, updated_at = now(),
            status = CASE WHEN n.take THEN 'running' ELSE t.status END::{{schema}}.task_status,
            worker_id = CASE WHEN n.take THEN taker END,
            attempts = t.attempts + CASE WHEN n.take THEN 1 ELSE 0 END,
            claimed_at = CASE WHEN n.take THEN now() END,
            started_at = CASE WHEN n.take THEN now() END
        FROM unnest(w_ids, w_groups, w_take) AS n(id, grp, take)
        WHERE t.id = n.id
          -- Bounds the tasks read to those locked in step 1 whatever the plan.
          AND t.id = ANY (w_ids)
        RETURNING t.id, t.type, n.take, t.payload, t.attempts, t.priority, t.run_at
    )
    SELECT (SELECT array_agg(ROW(p.id, p.type, p.payload, p.attempts)::{{schema}}.taken_task
                             ORDER BY p.priority DESC, p.run_at, p.id)
            FROM passed p WHERE p.take),
           (SELECT count(*)::integer FROM passed p WHERE NOT p.take)
      INTO taken, opened;
END;
$function$;


CREATE OR REPLACE FUNCTION {{schema}}.hand_off(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, OUT taken {{schema}}.taken_task[])
 RETURNS {{schema}}.taken_task[]
 LANGUAGE plpgsql
AS $function$
DECLARE
    v_draining text[];
    v_retry    boolean;
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
    -- then offer again to the types whose lanes now show tasks (I5),
    -- passing over no task as changed since its snapshot (the first offer
    -- may have passed over one that still waits: migration 038).
    -- Admission locks are taken once, in key order, for every type that may
    -- need one here: never one by one. Exclusive when a drain may end (step
    -- 3 admits), else shared.
    IF o_types IS NOT NULL OR v_draining IS NOT NULL THEN
        PERFORM {{schema}}.lock_admission(coalesce(o_types, '{}') || coalesce(v_draining, '{}'), v_draining IS NOT NULL);
    END IF;
    IF o_types IS NOT NULL THEN
        -- Does any of their types' lanes show tasks now? One probe per
        -- type, not per unit, none after the first lane that does
        -- (migration 034); each reads the lane's head in its index's order
        -- (migration 031: as EXISTS, a type whose tasks were most of the
        -- table when ANALYZE ran got a sequential scan through every
        -- completed task ahead of its lane).
        -- For several types (several_types), when few tasks wait in all
        -- lanes together, one read names every type that has any
        -- (waiting_types, in this statement's snapshot) and no lane is
        -- probed (migration 039).
        SELECT true INTO v_retry
        FROM (SELECT CASE WHEN {{schema}}.several_types(o_types) THEN {{schema}}.waiting_types() END AS seen OFFSET 0) h,
             (SELECT DISTINCT o.t FROM unnest(o_types) AS o(t)) u
        WHERE CASE WHEN h.seen IS NOT NULL THEN u.t = ANY (h.seen)
                   ELSE (SELECT true FROM {{schema}}.tasks t
                         WHERE t.type = u.t AND t.status = 'pending' AND t.gate = 'waiting'
                         ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1) IS NOT NULL
              END
        LIMIT 1;
    END IF;
    IF v_retry THEN
        SELECT * INTO o_types, o_groups, v_taken, v_more
        FROM {{schema}}.offer_units(o_types, o_groups, taker, max_take - coalesce(cardinality(taken), 0), false);
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


REVOKE ALL ON FUNCTION {{schema}}.several_types(text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION {{schema}}.waiting_types() FROM PUBLIC;
