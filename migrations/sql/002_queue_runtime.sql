-- pgseq schema, version 2: the queue runtime workers call. {{schema}} is
-- replaced by the quoted schema name.
--
-- Locking order (deadlock freedom): every function that may wait locks task
-- rows before slot rows, each in key order (tasks by id, slots by
-- (task_type, slot_group)). claim never waits: it locks with SKIP LOCKED.
-- Error codes: PS001 unknown task type, PS002 worker not registered or dead,
-- PS003 not the leader, 22023 invalid argument.

-- Limited tasks (of a type with a concurrency limit) live in their own claim
-- index, per type, so a type whose slots are all in use is never scanned.
-- enqueue sets the flag from the task type; pgseq apply rewrites it for
-- pending tasks when a type gains or loses its limit.
ALTER TABLE {{schema}}.tasks ADD COLUMN limited boolean NOT NULL DEFAULT false;
DROP INDEX {{schema}}.tasks_claimable;
CREATE INDEX tasks_claimable ON {{schema}}.tasks (queue, priority DESC, run_at, id)
    WHERE status = 'pending' AND NOT limited;
CREATE INDEX tasks_claimable_limited ON {{schema}}.tasks (queue, type, priority DESC, run_at, id)
    WHERE status = 'pending' AND limited;
ALTER TABLE {{schema}}.tasks SET (fillfactor = 80);

-- enqueue adds one task of a declared type and returns its id. With an
-- idempotency key already used for that type it returns the existing id and
-- adds nothing.
CREATE FUNCTION {{schema}}.enqueue(
    type text,
    payload jsonb DEFAULT NULL,
    idempotency_key text DEFAULT NULL,
    priority integer DEFAULT NULL,
    run_at timestamptz DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_type  text := enqueue.type;
    v_key   text := enqueue.idempotency_key;
    v_queue text;
    v_prio  integer;
    v_lim   boolean;
    v_id    bigint;
BEGIN
    SELECT t.queue, coalesce(enqueue.priority, t.priority), t.concurrency IS NOT NULL
      INTO v_queue, v_prio, v_lim
      FROM {{schema}}.task_types t WHERE t.name = v_type;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_type
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;
    LOOP
        INSERT INTO {{schema}}.tasks AS t (queue, type, payload, priority, idempotency_key, run_at, limited)
        VALUES (v_queue, v_type, enqueue.payload, v_prio, v_key, coalesce(enqueue.run_at, now()), v_lim)
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id INTO v_id;
        IF v_id IS NOT NULL OR v_key IS NULL THEN
            RETURN v_id;
        END IF;
        -- The key is taken: return the task that holds it (it committed, or
        -- the ON CONFLICT above would have waited for it).
        SELECT t.id INTO v_id FROM {{schema}}.tasks t WHERE t.type = v_type AND t.idempotency_key = v_key;
        IF v_id IS NOT NULL THEN
            RETURN v_id;
        END IF;
        -- The holder was deleted between the two statements: try again.
    END LOOP;
END;
$$;

-- enqueue_batch adds many tasks in one statement; ids come back in input
-- order. Arrays other than types may be NULL (all defaults) or as long as
-- types. Idempotency keys already used (also earlier in the same batch)
-- return the existing ids.
CREATE FUNCTION {{schema}}.enqueue_batch(
    types text[],
    payloads jsonb[] DEFAULT NULL,
    idempotency_keys text[] DEFAULT NULL,
    priorities integer[] DEFAULT NULL,
    run_ats timestamptz[] DEFAULT NULL
) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    n         integer := coalesce(cardinality(types), 0);
    v_unknown text;
    v_ids     bigint[];
BEGIN
    IF (payloads IS NOT NULL AND cardinality(payloads) <> n)
       OR (idempotency_keys IS NOT NULL AND cardinality(idempotency_keys) <> n)
       OR (priorities IS NOT NULL AND cardinality(priorities) <> n)
       OR (run_ats IS NOT NULL AND cardinality(run_ats) <> n) THEN
        RAISE EXCEPTION 'enqueue_batch: every array must have as many elements as types (%)', n
            USING ERRCODE = '22023';
    END IF;
    SELECT u.type INTO v_unknown
    FROM unnest(types) AS u(type)
    WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.task_types t WHERE t.name = u.type)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'unknown task type "%"', v_unknown
            USING ERRCODE = 'PS001', HINT = 'Declare it in a task block and run pgseq apply.';
    END IF;

    -- Ids are drawn up front so each input row knows its own; rows that hit
    -- an idempotency conflict leave their id unused.
    WITH input AS (
        SELECT i.ord, i.type, payloads[i.ord] AS payload, idempotency_keys[i.ord] AS key,
               coalesce(priorities[i.ord], t.priority) AS priority,
               coalesce(run_ats[i.ord], now()) AS run_at,
               t.queue, t.concurrency IS NOT NULL AS limited,
               nextval('{{schema}}.tasks_id_seq') AS new_id
        FROM unnest(types) WITH ORDINALITY AS i(type, ord)
        JOIN {{schema}}.task_types t ON t.name = i.type
    ), inserted AS (
        INSERT INTO {{schema}}.tasks AS t (id, queue, type, payload, priority, idempotency_key, run_at, limited)
        OVERRIDING SYSTEM VALUE
        SELECT new_id, queue, type, payload, priority, key, run_at, limited FROM input ORDER BY ord
        ON CONFLICT (type, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING t.id, t.type, t.idempotency_key
    )
    SELECT array_agg(coalesce(mine.id, same_batch.id, earlier.id) ORDER BY input.ord) INTO v_ids
    FROM input
    LEFT JOIN inserted mine ON mine.id = input.new_id
    LEFT JOIN inserted same_batch ON input.key IS NOT NULL
         AND same_batch.type = input.type AND same_batch.idempotency_key = input.key
    LEFT JOIN {{schema}}.tasks earlier ON input.key IS NOT NULL
         AND earlier.type = input.type AND earlier.idempotency_key = input.key;

    -- A key taken by a transaction that committed while this statement ran
    -- is not in its snapshot: look those up again.
    IF array_position(v_ids, NULL) IS NOT NULL THEN
        SELECT array_agg(coalesce(u.id, e.id) ORDER BY u.ord) INTO v_ids
        FROM unnest(v_ids, types, idempotency_keys) WITH ORDINALITY AS u(id, type, key, ord)
        LEFT JOIN {{schema}}.tasks e ON u.id IS NULL AND e.type = u.type AND e.idempotency_key = u.key;
    END IF;
    RETURN QUERY SELECT unnest(v_ids);
END;
$$;

-- register_worker announces a worker (or revives an id declared dead).
CREATE FUNCTION {{schema}}.register_worker(
    worker_id text, hostname text, pool_size integer, version text DEFAULT NULL
) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO {{schema}}.workers AS w (id, hostname, pool_size, version)
    VALUES (worker_id, hostname, pool_size, version)
    ON CONFLICT (id) DO UPDATE SET
        hostname = excluded.hostname, pool_size = excluded.pool_size, version = excluded.version,
        started_at = now(), last_heartbeat = now(), dead_at = NULL;
$$;

-- heartbeat records that a worker is alive. False: the worker is unknown or
-- was declared dead, and must stop working its tasks.
CREATE FUNCTION {{schema}}.heartbeat(worker_id text) RETURNS boolean
LANGUAGE sql AS $$
    WITH beat AS (
        UPDATE {{schema}}.workers w SET last_heartbeat = now()
        WHERE w.id = heartbeat.worker_id AND w.dead_at IS NULL
        RETURNING true
    )
    SELECT EXISTS (SELECT 1 FROM beat);
$$;

-- release_slots gives back one unit per released task to the slot group it
-- held. Rows are locked in key order first (the deadlock-free order); a
-- missing row (the limit or type was removed) is ignored.
CREATE FUNCTION {{schema}}.release_slots(types text[], groups integer[]) RETURNS void
LANGUAGE sql AS $$
    UPDATE {{schema}}.concurrency_slots s
    SET used = greatest(s.used - x.n, 0)
    FROM (SELECT u.t, u.g, count(*)::integer AS n FROM unnest(types, groups) AS u(t, g)
          WHERE u.g IS NOT NULL GROUP BY u.t, u.g) x,
         (SELECT l.task_type, l.slot_group FROM {{schema}}.concurrency_slots l
          WHERE (l.task_type, l.slot_group) IN (SELECT * FROM unnest(types, groups))
          ORDER BY l.task_type, l.slot_group
          FOR UPDATE) locked
    WHERE locked.task_type = x.t AND locked.slot_group = x.g
      AND s.task_type = locked.task_type AND s.slot_group = locked.slot_group;
$$;

-- claim moves up to batch due pending tasks of a queue to running for a
-- worker: highest priority first, then due time, then id. Tasks of limited
-- types are admitted only into free slot units, never while any slot group of
-- their type is over capacity (draining after a lowered limit). A queue with
-- no limited type takes the fast path: one index scan, no slot rows touched.
CREATE FUNCTION {{schema}}.claim(queue text, worker_id text, batch integer)
RETURNS SETOF {{schema}}.tasks
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_queue   text := claim.queue;
    v_worker  text := claim.worker_id;
    v_batch   integer := claim.batch;
    v_types   text[];
    v_free    integer[];
    v_quota   integer;
    c_ids     bigint[];
    c_types   text[];
    c_lim     boolean[];
    g_types   text[];
    g_groups  integer[];
    g_free    integer[];
    g_ord     integer[];
    v_over    text[];
    a_ids     bigint[];
    a_types   text[];
    a_groups  integer[];
    v_off     integer := floor(random() * 50)::integer;
BEGIN
    IF v_batch IS NULL OR v_batch < 1 THEN
        RAISE EXCEPTION 'claim: batch must be at least 1, got %', v_batch USING ERRCODE = '22023';
    END IF;
    PERFORM 1 FROM {{schema}}.workers w WHERE w.id = v_worker AND w.dead_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker "%" is not registered or was declared dead', v_worker
            USING ERRCODE = 'PS002', HINT = 'Call register_worker first; a worker declared dead must register under a new id.';
    END IF;

    -- 1. The queue's limited types that may admit now: free units, and none
    -- of their groups over capacity (draining after a lowered limit).
    SELECT array_agg(f.task_type) FILTER (WHERE NOT f.over AND f.free > 0),
           array_agg(f.free) FILTER (WHERE NOT f.over AND f.free > 0)
      INTO v_types, v_free
    FROM (
        SELECT tt.name AS task_type,
               coalesce(sum(s.capacity - s.used) FILTER (WHERE s.used < s.capacity), 0)::integer AS free,
               coalesce(bool_or(s.used > s.capacity), false) AS over
        FROM {{schema}}.task_types tt
        LEFT JOIN {{schema}}.concurrency_slots s ON s.task_type = tt.name
        WHERE tt.queue = v_queue AND tt.concurrency IS NOT NULL
        GROUP BY tt.name
    ) f;

    IF v_types IS NULL THEN
        -- Fast path: no limited type on this queue, or none that may admit
        -- now (their tasks wait in their own lane, untouched).
        RETURN QUERY
        WITH picked AS (
            SELECT t.id FROM {{schema}}.tasks t
            WHERE t.queue = v_queue AND t.status = 'pending' AND NOT t.limited AND t.run_at <= now()
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT v_batch
            FOR UPDATE SKIP LOCKED
        )
        UPDATE {{schema}}.tasks t
        SET status = 'running', worker_id = v_worker, attempts = t.attempts + 1,
            claimed_at = now(), started_at = now(), updated_at = now()
        FROM picked WHERE t.id = picked.id
        RETURNING t.*;
        RETURN;
    END IF;

    -- Each admissible type contributes at most its free units and, with many
    -- types, about its share of the batch, so few rows are locked in vain.
    v_quota := ceil(v_batch::numeric / cardinality(v_types))::integer + 1;

    -- 2. Candidates, locked: the unlimited lane, and per admissible type its
    -- own lane. Merged in claim order; the first batch are chosen.
    WITH unl AS (
        SELECT t.id, t.type, t.priority, t.run_at, false AS lim
        FROM {{schema}}.tasks t
        WHERE t.queue = v_queue AND t.status = 'pending' AND NOT t.limited AND t.run_at <= now()
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT v_batch
        FOR UPDATE SKIP LOCKED
    ), lim AS (
        SELECT c.*
        FROM unnest(v_types, v_free) AS f(type, free),
        LATERAL (
            SELECT t.id, t.type, t.priority, t.run_at, true AS lim
            FROM {{schema}}.tasks t
            WHERE t.queue = v_queue AND t.type = f.type AND t.status = 'pending' AND t.limited
              AND t.run_at <= now()
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT least(f.free, v_batch, v_quota)
            FOR UPDATE SKIP LOCKED
        ) c
    ), chosen AS (
        SELECT * FROM (SELECT * FROM unl UNION ALL SELECT * FROM lim) x
        ORDER BY x.priority DESC, x.run_at, x.id
        LIMIT v_batch
    )
    SELECT array_agg(ch.id ORDER BY ch.priority DESC, ch.run_at, ch.id),
           array_agg(ch.type ORDER BY ch.priority DESC, ch.run_at, ch.id),
           array_agg(ch.lim ORDER BY ch.priority DESC, ch.run_at, ch.id)
      INTO c_ids, c_types, c_lim
    FROM chosen ch;

    IF c_ids IS NULL THEN
        RETURN;
    END IF;

    IF true = ANY (c_lim) THEN
        -- 3. Lock just enough slot groups per type for its chosen tasks, in
        -- a rotated order so concurrent claimers spread over the groups.
        WITH need AS (
            SELECT u.type, count(*)::integer AS n
            FROM unnest(c_types, c_lim) AS u(type, lim) WHERE u.lim GROUP BY u.type
        ), ranked AS (
            SELECT s.task_type, s.slot_group, n.n,
                   sum(s.capacity - s.used) OVER w - (s.capacity - s.used) AS before
            FROM {{schema}}.concurrency_slots s JOIN need n ON n.type = s.task_type
            WHERE s.used < s.capacity
            WINDOW w AS (PARTITION BY s.task_type ORDER BY (s.slot_group + v_off) % 50, s.slot_group
                         ROWS UNBOUNDED PRECEDING)
        ), locked AS (
            SELECT s.task_type, s.slot_group, s.capacity - s.used AS free,
                   (s.slot_group + v_off) % 50 AS ord
            FROM {{schema}}.concurrency_slots s
            WHERE (s.task_type, s.slot_group) IN (SELECT r.task_type, r.slot_group FROM ranked r WHERE r.before < r.n)
              AND s.used < s.capacity
            FOR UPDATE SKIP LOCKED
        )
        SELECT array_agg(l.task_type), array_agg(l.slot_group), array_agg(l.free), array_agg(l.ord)
          INTO g_types, g_groups, g_free, g_ord
        FROM locked l;

        -- 4. Strict admission: a type with a group over capacity admits
        -- nothing. Checked again now, with the groups locked (an apply that
        -- lowers the limit waits for those locks, so it cannot slip between).
        SELECT array_agg(DISTINCT s.task_type) INTO v_over
        FROM {{schema}}.concurrency_slots s
        WHERE s.task_type = ANY (g_types) AND s.used > s.capacity;

        -- 5. Give the k-th chosen task of a type the k-th free unit of its
        -- locked groups.
        WITH units AS (
            SELECT g.type, g.grp,
                   row_number() OVER (PARTITION BY g.type ORDER BY g.ord, g.grp, u.i) AS k
            FROM unnest(g_types, g_groups, g_free, g_ord) AS g(type, grp, free, ord),
                 generate_series(1, g.free) AS u(i)
            WHERE NOT (g.type = ANY (coalesce(v_over, '{}')))
        ), wanted AS (
            SELECT c.id, c.type, row_number() OVER (PARTITION BY c.type ORDER BY c.pos) AS k
            FROM unnest(c_ids, c_types, c_lim) WITH ORDINALITY AS c(id, type, lim, pos)
            WHERE c.lim
        )
        SELECT array_agg(w.id), array_agg(w.type), array_agg(u.grp)
          INTO a_ids, a_types, a_groups
        FROM wanted w JOIN units u ON u.type = w.type AND u.k = w.k;

        UPDATE {{schema}}.concurrency_slots s
        SET used = s.used + x.n
        FROM (SELECT t, g, count(*)::integer AS n FROM unnest(a_types, a_groups) AS a(t, g) GROUP BY t, g) x
        WHERE s.task_type = x.t AND s.slot_group = x.g;
    END IF;

    -- 6. Claim: unlimited candidates, and limited ones that got a unit. The
    -- rest stay pending.
    RETURN QUERY
    WITH assign AS (
        SELECT c.id, NULL::integer AS grp FROM unnest(c_ids, c_lim) AS c(id, lim) WHERE NOT c.lim
        UNION ALL
        SELECT a.id, a.grp FROM unnest(a_ids, a_groups) AS a(id, grp)
    )
    UPDATE {{schema}}.tasks t
    SET status = 'running', worker_id = v_worker, slot_group = a.grp, attempts = t.attempts + 1,
        claimed_at = now(), started_at = now(), updated_at = now()
    FROM assign a WHERE t.id = a.id
    RETURNING t.*;
END;
$$;

-- complete marks tasks done and releases their slots, only for tasks the
-- worker still owns (claimed or running by it): a stale or zombie worker
-- completes and releases nothing. Returns how many were completed.
CREATE FUNCTION {{schema}}.complete(task_ids bigint[], worker_id text) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    r_types  text[];
    r_groups integer[];
    n        integer;
BEGIN
    WITH owned AS (
        SELECT t.id, t.slot_group
        FROM unnest(task_ids) AS u(id)
        JOIN {{schema}}.tasks t ON t.id = u.id
        WHERE t.worker_id = complete.worker_id AND t.status IN ('claimed', 'running')
        ORDER BY t.id
        FOR UPDATE OF t
    ), done AS (
        UPDATE {{schema}}.tasks t
        SET status = 'completed', completed_at = now(), updated_at = now(), slot_group = NULL
        FROM owned WHERE t.id = owned.id
        RETURNING t.type, owned.slot_group
    )
    SELECT count(*)::integer,
           array_agg(d.type) FILTER (WHERE d.slot_group IS NOT NULL),
           array_agg(d.slot_group) FILTER (WHERE d.slot_group IS NOT NULL)
      INTO n, r_types, r_groups
    FROM done d;
    PERFORM {{schema}}.release_slots(r_types, r_groups);
    RETURN n;
END;
$$;

-- backoff_delay is the delay before retry number attempt (1-based) for a
-- queue: initial·factor^(attempt-1), capped at max, ± jitter.
CREATE FUNCTION {{schema}}.backoff_delay(q {{schema}}.queues, attempt integer) RETURNS interval
LANGUAGE sql VOLATILE AS $$
    SELECT least(q.backoff_initial * power(q.backoff_factor, greatest(attempt - 1, 0))::double precision,
                 q.backoff_max)
           * (1 + q.backoff_jitter * (2 * random() - 1));
$$;

-- fail records a failed attempt. The new status is returned: 'pending' with
-- run_at pushed back by the queue's backoff while retries remain,
-- 'dead_letter' after max_retries retries, 'failed' when retry is false
-- (for example no handler), or NULL when the worker no longer owns the task.
CREATE FUNCTION {{schema}}.fail(task_id bigint, worker_id text, error text, retry boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_task    {{schema}}.tasks;
    v_queue   {{schema}}.queues;
    v_max     integer;
    v_status  {{schema}}.task_status;
BEGIN
    SELECT * INTO v_task FROM {{schema}}.tasks t
    WHERE t.id = fail.task_id AND t.worker_id = fail.worker_id AND t.status IN ('claimed', 'running')
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT * INTO v_queue FROM {{schema}}.queues q WHERE q.name = v_task.queue;
    SELECT coalesce(v_task.max_retries, tt.max_retries, v_queue.max_retries, 3) INTO v_max
    FROM (SELECT 1) one LEFT JOIN {{schema}}.task_types tt ON tt.name = v_task.type;

    IF NOT retry THEN
        v_status := 'failed';
    ELSIF v_task.attempts > v_max THEN
        v_status := 'dead_letter';
    ELSE
        v_status := 'pending';
    END IF;

    UPDATE {{schema}}.tasks t
    SET status = v_status, last_error = fail.error, worker_id = NULL, slot_group = NULL, updated_at = now(),
        run_at = CASE WHEN v_status = 'pending'
                      THEN now() + coalesce({{schema}}.backoff_delay(v_queue, v_task.attempts), interval '1 second')
                      ELSE t.run_at END,
        completed_at = CASE WHEN v_status = 'pending' THEN NULL ELSE now() END
    WHERE t.id = v_task.id;

    IF v_task.slot_group IS NOT NULL THEN
        PERFORM {{schema}}.release_slots(ARRAY[v_task.type], ARRAY[v_task.slot_group]);
    END IF;
    RETURN v_status::text;
END;
$$;

-- release hands in-flight tasks back unexecuted (graceful shutdown): back to
-- pending, the attempt not counted, slots released. Returns how many.
CREATE FUNCTION {{schema}}.release(task_ids bigint[], worker_id text) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    r_types  text[];
    r_groups integer[];
    n        integer;
BEGIN
    WITH owned AS (
        SELECT t.id, t.slot_group
        FROM unnest(task_ids) AS u(id)
        JOIN {{schema}}.tasks t ON t.id = u.id
        WHERE t.worker_id = release.worker_id AND t.status IN ('claimed', 'running')
        ORDER BY t.id
        FOR UPDATE OF t
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = 'pending', worker_id = NULL, slot_group = NULL, attempts = greatest(t.attempts - 1, 0),
            claimed_at = NULL, started_at = NULL, updated_at = now()
        FROM owned WHERE t.id = owned.id
        RETURNING t.type, owned.slot_group
    )
    SELECT count(*)::integer,
           array_agg(b.type) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(b.slot_group) FILTER (WHERE b.slot_group IS NOT NULL)
      INTO n, r_types, r_groups
    FROM back b;
    PERFORM {{schema}}.release_slots(r_types, r_groups);
    RETURN n;
END;
$$;

-- leader_lease_length is the lease a leader takes: the longest leader_lease
-- of the queues (15s when there are none).
CREATE FUNCTION {{schema}}.leader_lease_length() RETURNS interval
LANGUAGE sql STABLE AS $$
    SELECT coalesce(max(q.leader_lease), interval '15 seconds') FROM {{schema}}.queues q;
$$;

-- elect_leader takes the single leader lease, or renews it for the current
-- leader. The lease row's lock serialises contenders: exactly one wins, and a
-- lease is only taken over once it has expired. The worker must be alive.
CREATE FUNCTION {{schema}}.elect_leader(worker_id text) RETURNS boolean
LANGUAGE sql AS $$
    WITH won AS (
        UPDATE {{schema}}.leader l
        SET worker_id = elect_leader.worker_id,
            lease_until = now() + {{schema}}.leader_lease_length(),
            elected_at = CASE WHEN l.worker_id IS NOT DISTINCT FROM elect_leader.worker_id
                                   AND l.lease_until >= now()
                              THEN l.elected_at ELSE now() END
        WHERE l.singleton
          AND (l.worker_id IS NOT DISTINCT FROM elect_leader.worker_id OR l.lease_until < now())
          AND EXISTS (SELECT 1 FROM {{schema}}.workers w
                      WHERE w.id = elect_leader.worker_id AND w.dead_at IS NULL)
        RETURNING true
    )
    SELECT EXISTS (SELECT 1 FROM won);
$$;

-- resign_leader gives the lease up at once (graceful shutdown).
CREATE FUNCTION {{schema}}.resign_leader(worker_id text) RETURNS void
LANGUAGE sql AS $$
    UPDATE {{schema}}.leader l SET lease_until = '-infinity'
    WHERE l.singleton AND l.worker_id = resign_leader.worker_id;
$$;

-- recover_dead_workers returns the tasks of workers whose heartbeat is older
-- than their queue's worker_timeout (or that no longer exist) to pending —
-- dead_letter when their retries are used up — and releases their slots in
-- the same transaction. Those workers are declared dead, so their heartbeat
-- says stop and their late complete/fail calls change nothing.
CREATE FUNCTION {{schema}}.recover_dead_workers() RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    r_types   text[];
    r_groups  integer[];
    n_pending integer;
    n_dead    integer;
    n_workers integer;
BEGIN
    WITH victims AS (
        SELECT t.id, t.slot_group, t.worker_id AS old_worker,
               t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.status IN ('claimed', 'running')
          AND (w.id IS NULL OR w.dead_at IS NOT NULL
               OR w.last_heartbeat < now() - coalesce(q.worker_timeout, interval '30 seconds'))
        ORDER BY t.id
        FOR UPDATE OF t
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN v.exhausted THEN 'dead_letter' ELSE 'pending' END::{{schema}}.task_status,
            completed_at = CASE WHEN v.exhausted THEN now() END,
            worker_id = NULL, slot_group = NULL, run_at = now(), updated_at = now(),
            last_error = format('worker %s stopped heartbeating; task recovered', v.old_worker)
        FROM victims v WHERE t.id = v.id
        RETURNING t.type, v.slot_group, v.exhausted, v.old_worker
    ), dead AS (
        UPDATE {{schema}}.workers w SET dead_at = now()
        WHERE w.dead_at IS NULL
          AND (w.id IN (SELECT b.old_worker FROM back b)
               OR w.last_heartbeat < now() - (SELECT coalesce(max(q.worker_timeout), interval '30 seconds')
                                              FROM {{schema}}.queues q))
        RETURNING 1
    )
    SELECT count(*) FILTER (WHERE NOT b.exhausted)::integer,
           count(*) FILTER (WHERE b.exhausted)::integer,
           (SELECT count(*)::integer FROM dead),
           array_agg(b.type) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(b.slot_group) FILTER (WHERE b.slot_group IS NOT NULL)
      INTO n_pending, n_dead, n_workers, r_types, r_groups
    FROM back b;
    PERFORM {{schema}}.release_slots(r_types, r_groups);
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers);
END;
$$;

-- maintenance_extras is where later migrations add leader duties (counters
-- reap stale reservations); it returns what it did, merged into
-- run_maintenance's report.
CREATE FUNCTION {{schema}}.maintenance_extras() RETURNS jsonb
LANGUAGE sql AS $$ SELECT '{}'::jsonb; $$;

-- run_maintenance does the leader's periodic duties: recover dead workers'
-- tasks, delete drained slot groups that are empty, purge finished tasks past
-- their queue's retention (at most 10,000 per call), forget workers dead for
-- a day. It holds the lease row's lock throughout, so it runs only while the
-- caller's lease is valid and no election can change hands meanwhile.
CREATE FUNCTION {{schema}}.run_maintenance(worker_id text) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_result  jsonb;
    n_slots   integer;
    n_purged  integer;
    n_forgot  integer;
BEGIN
    PERFORM 1 FROM {{schema}}.leader l
    WHERE l.singleton AND l.worker_id = run_maintenance.worker_id AND l.lease_until >= now()
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'worker "%" is not the leader', run_maintenance.worker_id
            USING ERRCODE = 'PS003', HINT = 'Call elect_leader first; only the leader runs maintenance.';
    END IF;

    v_result := {{schema}}.recover_dead_workers();

    WITH gone AS (
        DELETE FROM {{schema}}.concurrency_slots s
        WHERE s.capacity = 0 AND s.used = 0
        RETURNING 1
    )
    SELECT count(*)::integer INTO n_slots FROM gone;

    WITH old AS (
        SELECT t.id FROM {{schema}}.tasks t JOIN {{schema}}.queues q ON q.name = t.queue
        WHERE (t.status = 'completed' AND t.completed_at < now() - q.retention_completed)
           OR (t.status IN ('failed', 'dead_letter') AND t.completed_at < now() - q.retention_dead_letter)
        LIMIT 10000
    ), purged AS (
        DELETE FROM {{schema}}.tasks t USING old WHERE t.id = old.id RETURNING 1
    )
    SELECT count(*)::integer INTO n_purged FROM purged;

    WITH forgot AS (
        DELETE FROM {{schema}}.workers w
        WHERE w.dead_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM {{schema}}.tasks t
                          WHERE t.worker_id = w.id AND t.status IN ('claimed', 'running'))
        RETURNING 1
    )
    SELECT count(*)::integer INTO n_forgot FROM forgot;

    RETURN v_result || jsonb_build_object('slot_groups_deleted', n_slots, 'purged', n_purged,
                                          'workers_forgotten', n_forgot)
                    || {{schema}}.maintenance_extras();
END;
$$;
