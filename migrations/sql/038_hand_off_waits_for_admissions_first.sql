-- pgseq schema, version 38: a completion waits for its types' admissions
-- in flight before it offers its units, and offers them once.
-- {{schema}} is replaced by the quoted schema name.
--
-- hand_off offered its units, then, for the units nobody took, waited for
-- the types' admission locks (an admission in flight holds its type's
-- until it commits, and may have left tasks waiting that the offer could
-- not see) and probed each type's lane again, to offer once more to those
-- that now showed a task (I5). A completion of a limit that does not bind
-- therefore read every lane twice, in two statements, and took the locks
-- in a third: with 1,000 types limited to 1,000, 10 units of 10 types a
-- call, the lane reads were the largest part of the hand-off left after
-- migration 037 (results/admission-first/).
--
-- The admission locks are now taken first, in the statement that reads
-- which types are draining, and the offer runs once, after them: an
-- admission that held a lock has committed by then, so the offer's own
-- read sees the tasks it left waiting; an admission that comes later
-- waits for this transaction, and sees the units it gave back. Same
-- locks, in the same order (task rows, type locks, admission locks in key
-- order, slot rows), and the same modes: exclusive when a type is draining
-- (its drain may end in step 3, which admits), else shared. They are held
-- a little longer (from before the offer rather than after it) and by
-- completions whose units all passed on, which held none before.

CREATE OR REPLACE FUNCTION {{schema}}.hand_off(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, OUT taken {{schema}}.taken_task[])
 RETURNS {{schema}}.taken_task[]
 LANGUAGE plpgsql
AS $function$
DECLARE
    v_draining text[];
    v_locked   bigint;
    o_types    text[];
    o_groups   integer[];
    b_types    text[];
    b_groups   integer[];
    v_opened   integer;
    v_type     text;
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    -- 1. The types that are draining, and every type's admission lock, in
    -- key order, once: exclusive when one is draining (its drain may end
    -- in step 4, which admits), else shared. (The flag is read before the
    -- locks are held: apply sets it only under the type locks this
    -- transaction holds shared, and a drain that ended meanwhile is ended
    -- again harmlessly by step 4.)
    SELECT d.names,
           (SELECT count(CASE WHEN d.names IS NULL THEN pg_advisory_xact_lock_shared(1885827954, x.k)::text
                              ELSE pg_advisory_xact_lock(1885827954, x.k)::text END)
            FROM (SELECT DISTINCT {{schema}}.slot_lock_key(u.t) AS k FROM unnest(types) AS u(t) ORDER BY 1) x)
      INTO v_draining, v_locked
    FROM (SELECT array_agg(tt.name) AS names
          FROM {{schema}}.task_types tt
          WHERE tt.name = ANY (types) AND tt.draining) d;

    -- 2. Units of draining types go back; the others are offered, once:
    -- with the admission locks held, the offer's read (a new statement, so
    -- a new snapshot) sees every task an admission left waiting (I5).
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
    -- Tasks opened for any claimer: wake idle workers, which LISTEN on
    -- pgseq_tasks (payload: the schema; schema names need no quotes, so the
    -- literal below is the quoted identifier itself).
    IF coalesce(v_opened, 0) > 0 THEN
        PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
    END IF;

    -- 3. The units nobody took, and the draining types', go back.
    IF b_types IS NOT NULL OR o_types IS NOT NULL THEN
        PERFORM {{schema}}.give_back(coalesce(b_types, '{}') || coalesce(o_types, '{}'),
                                     coalesce(b_groups, '{}') || coalesce(o_groups, '{}'));
    END IF;

    -- 4. A type whose drain just ended admits again: its free units go to its lane.
    IF v_draining IS NOT NULL THEN
        FOREACH v_type IN ARRAY coalesce({{schema}}.end_drain(v_draining), '{}') LOOP
            PERFORM {{schema}}.admit_waiting(v_type);
        END LOOP;
    END IF;
END;
$function$;
