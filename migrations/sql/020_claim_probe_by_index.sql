-- pgseq schema, version 20: the claim's probe for scheduled tasks stays an
-- index probe when a queue holds tasks waiting for their partition key.
-- {{schema}} is replaced by the quoted schema name.
--
-- A task waiting for its key has gate 'scheduled' and key_wait (version
-- 19), and the probe at the start of claim asks for scheduled tasks that
-- are not: `gate = 'scheduled' AND NOT key_wait`. Without statistics on
-- the two columns together, the planner multiplies their shares: with
-- 24,559 of 40,000 tasks waiting for their key and 15,341 not, it expected
-- 9,464 matches where there were none, and chose a sequential scan that
-- stops at the first match, reading every task. In the "partitioned"
-- drain (10,000 keys, per-key limit 2, type limit 100) every claim took
-- 4.4 ms of server time in that probe (0.1 ms without keys), and the
-- drain ran at 0.38 of the same drain without per-key limits.
--
-- Two mends, each enough on its own:
--   - The probe reads in the order of tasks_scheduled (queue, run_at): a
--     LIMIT 1 in index order is cheapest by the index whatever the
--     estimate (EXPLAIN ANALYZE of the probe, same 40,000 tasks: 16.1 ms
--     sequential, 0.05 ms by the index).
--   - Statistics on (status, gate, key_wait) together (a most-common-values
--     list, filled by the next ANALYZE) give the planner, and status's
--     estimates, the true share of each combination.

CREATE STATISTICS {{schema}}.tasks_states (mcv) ON status, gate, key_wait FROM {{schema}}.tasks;

CREATE OR REPLACE FUNCTION {{schema}}.claim(queue text, worker_id text, batch integer, max_limited integer DEFAULT NULL::integer)
 RETURNS SETOF {{schema}}.tasks
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET jit TO 'off'
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
    v_queue   text := claim.queue;
    v_worker  text := claim.worker_id;
    v_batch   integer := claim.batch;
    v_max     integer := claim.max_limited;
    v_got     integer;
BEGIN
    IF v_batch IS NULL OR v_batch < 1 THEN
        RAISE EXCEPTION 'claim: batch must be at least 1, got %', v_batch USING ERRCODE = '22023';
    END IF;
    PERFORM 1 FROM {{schema}}.workers w WHERE w.id = v_worker AND w.dead_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker "%" is not registered or was declared dead', v_worker
            USING ERRCODE = 'PS002', HINT = 'Call register_worker first; a worker declared dead must register under a new id.';
    END IF;

    -- 1. Scheduled limited tasks now due look for a unit (an index probe when
    -- there are none: read in tasks_scheduled's order, whatever the
    -- planner expects to find).
    PERFORM 1 FROM {{schema}}.tasks t
    WHERE t.queue = v_queue AND t.status = 'pending' AND t.gate = 'scheduled' AND NOT t.key_wait AND t.run_at <= now()
    ORDER BY t.run_at
    LIMIT 1;
    IF FOUND THEN
        PERFORM {{schema}}.admit_due(v_queue, v_batch);
    END IF;

    -- 2. One index scan over the open tasks, locked SKIP LOCKED.
    RETURN QUERY SELECT * FROM {{schema}}.claim_open(v_queue, v_worker, v_batch, v_max);
    GET DIAGNOSTICS v_got = ROW_COUNT;

    -- 3. A short claim repairs admission when it is due (at most every
    -- 200 ms, one claimer at a time) and claims what that admitted. Its
    -- first part may have taken as many unit holders as tasks: the bound
    -- on holders shrinks by that much.
    IF v_got < v_batch AND {{schema}}.repair_if_due() > 0 THEN
        RETURN QUERY SELECT * FROM {{schema}}.claim_open(v_queue, v_worker, v_batch - v_got,
                                                         CASE WHEN v_max IS NOT NULL THEN greatest(v_max - v_got, 0) END);
    END IF;
END;
$function$;
