-- Prototype, for measurement only (results/lease-prototype/README.md): units
-- leased to a worker, admission at claim, completions that write no slot
-- row. Created in a schema named lease_many that pgseq apply made from a
-- 'many' configuration (1,000 task types limited to 1,000, queue "bench").
-- Steady state only: no recovery, no apply, no lane for a saturated type,
-- leases never go back. Not part of the product.
SET client_min_messages = warning;
CREATE TABLE IF NOT EXISTS lease_many.worker_leases (worker_id text PRIMARY KEY, types text[] NOT NULL DEFAULT '{}', units integer[] NOT NULL DEFAULT '{}');

CREATE OR REPLACE FUNCTION lease_many.claim_leased(queue text, worker_id text, n integer)
RETURNS SETOF lease_many.tasks LANGUAGE plpgsql SET jit = off AS $$
#variable_conflict use_column
DECLARE
    lt text[]; lu integer[];
    v_need text[]; v_need_n integer[];
    v_got_t text[]; v_got_n integer[];
    c_ids bigint[]; c_types text[];
BEGIN
    -- 1. The worker's leases, locked: one claim at a time per worker.
    INSERT INTO lease_many.worker_leases AS l (worker_id) VALUES (claim_leased.worker_id)
    ON CONFLICT (worker_id) DO NOTHING;
    SELECT l.types, l.units INTO lt, lu FROM lease_many.worker_leases l WHERE l.worker_id = claim_leased.worker_id FOR UPDATE;

    -- 2. Candidates: the fast path's one index scan, locked.
    SELECT array_agg(t.id), array_agg(t.type) INTO c_ids, c_types FROM (
        SELECT t.id, t.type FROM lease_many.tasks t
        WHERE t.queue = claim_leased.queue AND t.status = 'pending' AND t.gate = 'open' AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT n
        FOR UPDATE SKIP LOCKED) t;

    -- 3. Per limited type among them: units the lease lacks (the worker's
    -- running tasks of the type hold the others).
    SELECT array_agg(c.type), array_agg(c.k - coalesce(l.u, 0) + coalesce(r.running, 0))
      INTO v_need, v_need_n
    FROM (SELECT c.type, count(*)::integer AS k FROM unnest(c_types) AS c(type) GROUP BY c.type) c
    JOIN lease_many.task_types tt ON tt.name = c.type AND tt.concurrency IS NOT NULL
    LEFT JOIN unnest(lt, lu) AS l(t, u) ON l.t = c.type
    LEFT JOIN (SELECT t.type, count(*)::integer AS running FROM lease_many.tasks t
               WHERE t.worker_id = claim_leased.worker_id AND t.status = 'running'
               GROUP BY t.type) r ON r.type = c.type
    WHERE c.k - coalesce(l.u, 0) + coalesce(r.running, 0) > 0;

    -- 4. Extend the lease where it lacks units: a chunk of 50 at once (one
    -- slot-row write per type per 50 tasks), from a group with room.
    IF v_need IS NOT NULL THEN
        WITH want AS (SELECT u.t, greatest(u.n, 50) AS n FROM unnest(v_need, v_need_n) AS u(t, n)),
        avail AS (
            SELECT s.task_type, s.slot_group, least(w.n, s.capacity - s.used) AS amt
            FROM lease_many.concurrency_slots s JOIN want w ON s.task_type = w.t
            WHERE s.slot_group = 1 + abs(hashtext(claim_leased.worker_id)) % 50 AND s.used < s.capacity
            ORDER BY s.task_type
            FOR UPDATE OF s),
        took AS (
            UPDATE lease_many.concurrency_slots s SET used = s.used + a.amt
            FROM avail a WHERE s.task_type = a.task_type AND s.slot_group = a.slot_group
            RETURNING s.task_type, a.amt AS got)
        SELECT array_agg(t.task_type), array_agg(t.got) INTO v_got_t, v_got_n FROM took t;
        SELECT array_agg(x.t ORDER BY x.t), array_agg(x.u ORDER BY x.t) INTO lt, lu FROM (
            SELECT l.t, sum(l.u)::integer AS u FROM (
                SELECT * FROM unnest(lt, lu) UNION ALL SELECT * FROM unnest(v_got_t, v_got_n)) l(t, u)
            GROUP BY l.t) x;
        UPDATE lease_many.worker_leases l SET types = coalesce(lt, '{}'), units = coalesce(lu, '{}') WHERE l.worker_id = claim_leased.worker_id;
    END IF;

    -- 5. Claim (the prototype assumes every extension succeeded: 'many'
    -- never binds).
    RETURN QUERY
    UPDATE lease_many.tasks t
    SET status = 'running', worker_id = claim_leased.worker_id, attempts = t.attempts + 1,
        claimed_at = now(), started_at = now(), updated_at = now()
    WHERE t.id = ANY (c_ids)
    RETURNING t.*;
END;
$$;
