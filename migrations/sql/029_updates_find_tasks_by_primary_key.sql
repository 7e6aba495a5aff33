-- pgseq schema, version 29: a claim and a hand-off read only the tasks
-- they update, whatever the table's statistics say.
-- {{schema}} is replaced by the quoted schema name.
--
-- When ANALYZE (or autovacuum's) sees the tasks table empty but for pages
-- it has not given back (a queue drained; a load rolled back), it records
-- no rows, and the planner takes the table for one row until the next
-- ANALYZE, however many tasks are enqueued meanwhile. claim_open's update,
-- a nested loop between the picked tasks and tasks (hash and merge joins
-- are off for it), then put tasks outside: every task was read and
-- compared with every picked one. With 20,000 tasks due, a claim of 200
-- took 470-585 ms instead of 3-5 ms (Rows Removed by Join Filter:
-- 3,999,800), and the cost grows with the backlog until autoanalyze runs.
-- The update now finds the picked tasks by primary key (= ANY of their
-- ids), with no join to misplace, and returns them in claim order as
-- before. offer_units' update (every hand-off) and admit_due's (a claim
-- that finds scheduled tasks due) had the same join and need the locked
-- tasks' values, so they keep it, bounded to those tasks' ids: placed
-- either way, it reads only those tasks.

CREATE OR REPLACE FUNCTION {{schema}}.claim_open(queue text, worker_id text, n integer, max_limited integer)
 RETURNS SETOF {{schema}}.tasks
 LANGUAGE plpgsql
 SET enable_hashjoin TO 'off'
 SET enable_mergejoin TO 'off'
AS $function$
#variable_conflict use_column
BEGIN
    IF max_limited IS NULL THEN
        RETURN QUERY
        WITH picked AS (
            SELECT t.id FROM {{schema}}.tasks t
            WHERE t.queue = claim_open.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT n
            FOR UPDATE SKIP LOCKED
        )
        -- (The update finds the picked tasks by primary key: joined to
        -- them, a plan made while the statistics said the table was empty
        -- read every task once per picked task.)
        , claimed AS (
            UPDATE {{schema}}.tasks t
            SET status = 'running', worker_id = claim_open.worker_id, attempts = t.attempts + 1,
                claimed_at = now(), started_at = now(), updated_at = now()
            WHERE t.id = ANY (ARRAY(SELECT p.id FROM picked p))
            RETURNING t.*
        )
        SELECT c.* FROM claimed c ORDER BY c.priority DESC, c.run_at, c.id;
        RETURN;
    END IF;
    -- The same with at most max_limited unit holders among them: candidates
    -- beyond it stay open (locked only until this transaction ends).
    RETURN QUERY
    WITH candidates AS (
        SELECT t.id, t.slot_group, t.priority, t.run_at FROM {{schema}}.tasks t
        WHERE t.queue = claim_open.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT n
        FOR UPDATE SKIP LOCKED
    ), picked AS (
        SELECT c.id FROM (
            SELECT c.id, c.slot_group,
                   count(c.slot_group) OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS holders
            FROM candidates c
        ) c
        WHERE c.slot_group IS NULL OR c.holders <= max_limited
    )
    , claimed AS (
        UPDATE {{schema}}.tasks t
        SET status = 'running', worker_id = claim_open.worker_id, attempts = t.attempts + 1,
            claimed_at = now(), started_at = now(), updated_at = now()
        WHERE t.id = ANY (ARRAY(SELECT p.id FROM picked p))
        RETURNING t.*
    )
    SELECT c.* FROM claimed c ORDER BY c.priority DESC, c.run_at, c.id;
END;
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.offer_units(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[], OUT opened integer)
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET jit TO 'off'
AS $function$
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
          -- Bounds the tasks read to those locked above whatever the plan
          -- (one made while the statistics said the table was empty read
          -- every task once per task passed on).
          AND t.id = ANY (ARRAY(SELECT x.id FROM next x))
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
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.admit_due(queue text, max_tasks integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
    v_types text[];
    k_types text[];
    k_keys  text[];
BEGIN
    WITH due AS (
        SELECT t.id FROM {{schema}}.tasks t
        WHERE t.queue = admit_due.queue AND t.status = 'pending' AND t.gate = 'scheduled' AND NOT t.key_wait
          AND t.run_at <= now()
        ORDER BY t.run_at
        LIMIT max_tasks
        FOR UPDATE SKIP LOCKED
    ), joined AS (
        UPDATE {{schema}}.tasks t
        SET gate = CASE WHEN t.partition_key IS NULL OR t.key_unit THEN 'waiting' ELSE t.gate END::{{schema}}.task_gate,
            key_wait = t.partition_key IS NOT NULL AND NOT t.key_unit,
            updated_at = now()
        FROM due WHERE t.id = due.id
          -- Bounded to the locked tasks' ids, as offer_units' update.
          AND t.id = ANY (ARRAY(SELECT d.id FROM due d))
          AND (t.partition_key IS NULL OR t.key_unit OR {{schema}}.try_lock_type(t.type))
        RETURNING t.type, t.partition_key, t.key_wait
    )
    SELECT array_agg(DISTINCT j.type) FILTER (WHERE NOT j.key_wait AND {{schema}}.try_lock_type(j.type)),
           array_agg(j.type) FILTER (WHERE j.key_wait),
           array_agg(j.partition_key) FILTER (WHERE j.key_wait)
      INTO v_types, k_types, k_keys
    FROM joined j;
    PERFORM {{schema}}.try_admit_types(v_types);
    IF k_types IS NOT NULL THEN
        PERFORM {{schema}}.admit_keys(k_types, k_keys);
    END IF;
END;
$function$;
