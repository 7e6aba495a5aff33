-- prototype: lane reads skip rows changed since their snapshot without locking them

CREATE FUNCTION {{schema}}.task_still(task_id bigint, want_gate {{schema}}.task_gate) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM {{schema}}.tasks t WHERE t.id = task_id AND t.status = 'pending' AND t.gate = want_gate);
END;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.offer_units(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[], OUT opened integer)
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
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    -- 1. Who takes which unit: the first tasks of each type's lane, as many
    -- as it released (one descent of the lane per type), locked. The k-th
    -- task of a type takes the type's k-th unit (its units in group
    -- order); the taker takes the first max_take tasks in claim order.
    -- Nothing is written here: a completion whose lanes are empty stops
    -- after this one read (migration 037).
    SELECT array_agg(w.id), array_agg(w.type), array_agg(w.grp), array_agg(w.take)
      INTO w_ids, w_types, w_groups, w_take
    FROM (
        SELECT w.id, w.type, w.grp,
               taker IS NOT NULL AND (max_take IS NULL OR
                   row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) <= max_take) AS take
        FROM (SELECT r.type, count(*) AS n, array_agg(r.grp ORDER BY r.grp) AS grps
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
                  AND (t.xmax = '0'::xid OR {{schema}}.task_still(t.id, 'waiting'))
                ORDER BY t.priority DESC, t.run_at, t.id
                LIMIT p.n
                FOR UPDATE SKIP LOCKED
            ) l
        ) w
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

