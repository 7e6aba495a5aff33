-- pgseq schema, version 34: a completion whose units nobody took probes
-- each of their types' lanes once, not once per unit.
-- {{schema}} is replaced by the quoted schema name.
--
-- Before units go back, hand_off (step 2) asks which of their types' lanes
-- now show tasks, to offer the units again (I5). It asked once per unit:
-- array_agg(DISTINCT ...) removed the duplicates after the probes. In the
-- partitioned drain (one type limited to 100, its lane often empty while
-- the keys hold their tasks back) a completion giving back 84 units of
-- the one type made 84 probes of the same lane, each reading past the
-- index entries of tasks already handed on at its head: 2.2-3.9 ms a
-- statement (auto_explain, 30% of calls sampled), about 1.3 ms on average
-- over the 78 of 163 completions that ran it (pg_stat_statements). The
-- types are now made distinct first (TestHandOffProbesEachLaneOnce: 200
-- units of 2 types, 200 probes before, 2 after), and the probes stop at
-- the first lane that shows a task: only whether one does was used.

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
    -- then offer again to the types whose lanes now show tasks (I5).
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
        SELECT true INTO v_retry
        FROM (SELECT DISTINCT o.t FROM unnest(o_types) AS o(t)) u
        WHERE (SELECT true FROM {{schema}}.tasks t
               WHERE t.type = u.t AND t.status = 'pending' AND t.gate = 'waiting'
               ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1)
        LIMIT 1;
    END IF;
    IF v_retry THEN
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
