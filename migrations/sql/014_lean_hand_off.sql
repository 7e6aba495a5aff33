-- pgseq schema, version 14: the hand-off, leaner. {{schema}} is replaced by
-- the quoted schema name.
--
-- The same design (migration 005's units, 012's locking order), with fewer
-- passes over the same rows. Measured per call of 200 tasks, one session,
-- no other load (results/limits-design.md, "Lean hand-off"):
--   - offer_units matched the units it passed on by building a 'type:k'
--     string per unit and testing each released unit against that array
--     (quadratic in the batch): the k-th unit of a type passes on exactly
--     when the type's lane gave at least k tasks, so the units left are
--     those beyond each type's count, found in the same statement.
--   - give_back read every slot row it was about to update to check that no
--     group was given more than it lent out, then updated them: now the
--     update refuses itself (it skips a group that would go below zero and
--     counts the groups it changed), and a second read runs only to name
--     the group in the error. Its plan is the same for every call: generic.
-- Nothing a caller sees changes; the invariants and the locking order are
-- 012's.

-- offer_units passes each unit (types[i], groups[i]) to the first waiting
-- task of its type: running for taker (the first max_take of them in claim
-- order, returned in taken) or open for any claimer (counted in opened).
-- The units no task was waiting for come back in left_types/left_groups.
CREATE OR REPLACE FUNCTION {{schema}}.offer_units(types text[], groups integer[],
    taker text DEFAULT NULL, max_take integer DEFAULT NULL,
    OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[], OUT opened integer)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET jit = off
AS $$
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    WITH released AS (
        -- The units, numbered per type.
        SELECT r.type, r.grp, row_number() OVER (PARTITION BY r.type ORDER BY r.grp) AS k
        FROM unnest(types, groups) AS r(type, grp)
    ), per_type AS (
        SELECT r.type, count(*) AS n FROM released r GROUP BY r.type
    ), next AS (
        -- The first tasks of each type's lane, as many as it released (one
        -- descent of the lane per type); the taker takes the first max_take
        -- of them in claim order.
        SELECT w.id, w.type,
               row_number() OVER (PARTITION BY w.type ORDER BY w.priority DESC, w.run_at, w.id) AS k,
               taker IS NOT NULL AND (max_take IS NULL OR
                   row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) <= max_take) AS take
        FROM per_type p, LATERAL (
            SELECT t.id, t.type, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = p.type AND t.status = 'pending' AND t.gate = 'waiting'
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT p.n
            FOR UPDATE SKIP LOCKED
        ) w
    ), passed AS (
        -- The k-th task of a type takes the k-th unit: running for the
        -- taker, or open for any claimer. (Each was locked above, so each
        -- is updated: a type with m tasks passes on exactly its units 1..m.)
        UPDATE {{schema}}.tasks t
        SET gate = 'open', slot_group = r.grp, updated_at = now(),
            status = CASE WHEN n.take THEN 'running' ELSE t.status END::{{schema}}.task_status,
            worker_id = CASE WHEN n.take THEN taker END,
            attempts = t.attempts + CASE WHEN n.take THEN 1 ELSE 0 END,
            claimed_at = CASE WHEN n.take THEN now() END,
            started_at = CASE WHEN n.take THEN now() END
        FROM next n JOIN released r ON r.type = n.type AND r.k = n.k
        WHERE t.id = n.id
        RETURNING t.id, n.type, n.take, t.payload, t.attempts, t.priority, t.run_at
    ), passed_per_type AS (
        SELECT p.type, count(*) AS n FROM passed p GROUP BY p.type
    ), left_over AS (
        -- The units beyond each type's count passed on: nobody was waiting
        -- for them (none, in a backlog).
        SELECT r.type, r.grp, r.k
        FROM released r LEFT JOIN passed_per_type pp ON pp.type = r.type
        WHERE r.k > coalesce(pp.n, 0)
    )
    -- (A subquery below runs only when its value is needed: the units left
    -- are looked for only when fewer tasks took units than were released.)
    SELECT (SELECT array_agg(ROW(p.id, p.type, p.payload, p.attempts)::{{schema}}.taken_task
                             ORDER BY p.priority DESC, p.run_at, p.id)
            FROM passed p WHERE p.take),
           (SELECT count(*)::integer FROM passed p WHERE NOT p.take),
           CASE WHEN (SELECT count(*) FROM passed) < cardinality(types) THEN
               (SELECT array_agg(l.type ORDER BY l.type, l.k) FROM left_over l) END,
           CASE WHEN (SELECT count(*) FROM passed) < cardinality(types) THEN
               (SELECT array_agg(l.grp ORDER BY l.type, l.k) FROM left_over l) END
      INTO taken, opened, left_types, left_groups;
END;
$$;

-- give_back returns units (types[i], groups[i]) to their groups, refusing a
-- group that would give back more than it lent out (invariant I3).
CREATE OR REPLACE FUNCTION {{schema}}.give_back(types text[], groups integer[]) RETURNS void
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_back   integer;
    c_types  text[];
    c_groups integer[];
    v_bad    text;
BEGIN
    -- 1. One update, slot rows locked in key order; a group that lent out
    -- fewer units than come back (as the row stands once its lock is held:
    -- a concurrent give-back of the same unit has committed by then) is
    -- left alone, and the counts differ.
    WITH back AS (
        SELECT u.t, u.g, count(*)::integer AS n
        FROM unnest(types, groups) AS u(t, g)
        GROUP BY u.t, u.g
        ORDER BY u.t, u.g
    ), changed AS (
        UPDATE {{schema}}.concurrency_slots s
        SET used = s.used - b.n
        FROM back b
        WHERE s.task_type = b.t AND s.slot_group = b.g AND s.used >= b.n
        RETURNING s.task_type, s.slot_group
    )
    SELECT (SELECT count(*) FROM back), array_agg(c.task_type), array_agg(c.slot_group)
      INTO v_back, c_types, c_groups
    FROM changed c;
    IF v_back = coalesce(cardinality(c_types), 0) THEN
        RETURN;
    END IF;
    -- 2. Only then: name a group left alone (read anew, so a concurrent
    -- give-back shows). A group with no row, which nothing lends out from,
    -- is left alone as before.
    SELECT format('%s group %s (%s given back, %s lent out)', s.task_type, s.slot_group, x.n, s.used)
      INTO v_bad
    FROM (SELECT u.t, u.g, count(*)::integer AS n FROM unnest(types, groups) AS u(t, g) GROUP BY u.t, u.g) x
    JOIN {{schema}}.concurrency_slots s ON s.task_type = x.t AND s.slot_group = x.g
    WHERE s.used < x.n
      AND NOT EXISTS (SELECT 1 FROM unnest(c_types, c_groups) AS c(t, g) WHERE c.t = x.t AND c.g = x.g)
    ORDER BY x.t, x.g
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        RAISE EXCEPTION 'a slot unit was given back twice: %', v_bad
            USING ERRCODE = 'PS030',
                  HINT = 'This is a pgseq bug (invariant I3): please report it with the output of pgseq status.';
    END IF;
END;
$$;
