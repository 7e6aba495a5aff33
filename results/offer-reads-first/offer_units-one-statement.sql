CREATE OR REPLACE FUNCTION {{schema}}.offer_units(types text[], groups integer[], taker text DEFAULT NULL::text, max_take integer DEFAULT NULL::integer, OUT left_types text[], OUT left_groups integer[], OUT taken {{schema}}.taken_task[], OUT opened integer)
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET jit TO 'off'
AS $function$
DECLARE
    v_found  integer;
    v_counts jsonb;
BEGIN
    IF coalesce(cardinality(types), 0) = 0 THEN
        RETURN;
    END IF;
    WITH lanes AS (
        SELECT w.id, w.type, w.grps[w.k] AS grp, w.take
        FROM (
            SELECT w.id, w.type, p.grps,
                   row_number() OVER (PARTITION BY w.type ORDER BY w.priority DESC, w.run_at, w.id) AS k,
                   taker IS NOT NULL AND (max_take IS NULL OR
                       row_number() OVER (ORDER BY w.priority DESC, w.run_at, w.id) <= max_take) AS take
            FROM (SELECT r.type, count(*) AS n, array_agg(r.grp ORDER BY r.grp) AS grps
                  FROM unnest(types, groups) AS r(type, grp)
                  GROUP BY r.type) p,
            LATERAL (
                SELECT t.id, t.type, t.priority, t.run_at FROM {{schema}}.tasks t
                WHERE t.type = p.type AND t.status = 'pending' AND t.gate = 'waiting'
                ORDER BY t.priority DESC, t.run_at, t.id
                LIMIT p.n
                FOR UPDATE SKIP LOCKED
            ) w
        ) w
    ), passed AS (
        UPDATE {{schema}}.tasks t
        SET gate = 'open', slot_group = n.grp, updated_at = now(),
            status = CASE WHEN n.take THEN 'running' ELSE t.status END::{{schema}}.task_status,
            worker_id = CASE WHEN n.take THEN taker END,
            attempts = t.attempts + CASE WHEN n.take THEN 1 ELSE 0 END,
            claimed_at = CASE WHEN n.take THEN now() END,
            started_at = CASE WHEN n.take THEN now() END
        FROM lanes n
        WHERE t.id = n.id
          AND t.id = ANY (ARRAY(SELECT x.id FROM lanes x))
        RETURNING t.id, t.type, n.take, t.payload, t.attempts, t.priority, t.run_at
    )
    SELECT (SELECT array_agg(ROW(p.id, p.type, p.payload, p.attempts)::{{schema}}.taken_task
                             ORDER BY p.priority DESC, p.run_at, p.id)
            FROM passed p WHERE p.take),
           (SELECT count(*)::integer FROM passed p WHERE NOT p.take),
           (SELECT count(*)::integer FROM passed),
           CASE WHEN (SELECT count(*) FROM passed) BETWEEN 1 AND cardinality(types) - 1 THEN
               (SELECT jsonb_object_agg(x.type, x.n) FROM (SELECT p.type, count(*) AS n FROM passed p GROUP BY p.type) x) END
      INTO taken, opened, v_found, v_counts;
    IF v_found = 0 THEN
        left_types := types;
        left_groups := groups;
    ELSIF v_found < cardinality(types) THEN
        SELECT array_agg(u.t ORDER BY u.t, u.k), array_agg(u.g ORDER BY u.t, u.k)
          INTO left_types, left_groups
        FROM (SELECT x.t, x.g, row_number() OVER (PARTITION BY x.t ORDER BY x.g) AS k
              FROM unnest(types, groups) AS x(t, g)) u
        WHERE u.k > coalesce((v_counts ->> u.t)::integer, 0);
    END IF;
END;
$function$;
