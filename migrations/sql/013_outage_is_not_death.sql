-- pgseq schema, version 13: after an outage, no live worker is declared
-- dead for the outage itself, whoever runs maintenance. {{schema}} is
-- replaced by the quoted schema name.
--
-- The recovery declared a worker dead once its heartbeat was older than
-- worker_timeout. After an outage longer than that (the server down or
-- restarted, the network gone) every heartbeat is that old the moment
-- contact returns, and the first maintenance declared every live worker
-- dead and ran their tasks a second time. The Go leader guarded against it
-- on its side; a worker started after the outage, or a maintenance caller in
-- another language, did not.
--
-- The rule now lives here. The runtime notes each contact with a worker
-- (heartbeat, register_worker, elect_leader, and the recovery that the
-- leader's run_maintenance runs) in runtime_clock.contact_at. A contact
-- that finds the previous one older than the shortest worker_timeout ends
-- a gap: nobody could reach the database (or nobody was there), and
-- judged_from moves to now. The recovery
-- judges a worker by the later of its heartbeat, judged_from and the
-- server's start (pg_postmaster_start_time(): a restart is a gap too)
-- (heard_from), so every worker gets a fresh worker_timeout after a gap:
-- live ones heartbeat within it, and a truly dead one is declared dead
-- worker_timeout after contact returned (within two worker_timeouts, at
-- the leader's next maintenance).
--
-- While any worker lives, contact_at is at most a third of worker_timeout
-- old (workers heartbeat every worker_timeout/3; a contact writes the row
-- only when it is older than a quarter of the shortest timeout), so no gap
-- is seen and recovery is as before.

ALTER TABLE {{schema}}.runtime_clock
    ADD COLUMN IF NOT EXISTS contact_at  timestamptz NOT NULL DEFAULT '-infinity',
    ADD COLUMN IF NOT EXISTS judged_from timestamptz NOT NULL DEFAULT '-infinity';
-- The upgrade is a contact: the workers running now are not in a gap.
UPDATE {{schema}}.runtime_clock SET contact_at = now();

-- note_contact records that a worker reached the database now, and ends a
-- gap when the previous contact is older than the shortest worker_timeout.
-- At most one write per quarter timeout: concurrent callers wait for the
-- writer's commit and then find the row fresh.
CREATE OR REPLACE FUNCTION {{schema}}.note_contact() RETURNS void
LANGUAGE sql AS $$
    WITH timeout AS (
        SELECT coalesce(min(q.worker_timeout), interval '30 seconds') AS t FROM {{schema}}.queues q
    )
    UPDATE {{schema}}.runtime_clock c
    SET contact_at = now(),
        judged_from = CASE WHEN c.contact_at < now() - timeout.t THEN now() ELSE c.judged_from END
    FROM timeout
    WHERE c.singleton AND c.contact_at < now() - timeout.t / 4;
$$;

-- heard_from is when the recovery last heard from a worker whose last
-- heartbeat is at: that heartbeat, or the end of the last gap, or the
-- server's start, whichever is later.
CREATE OR REPLACE FUNCTION {{schema}}.heard_from(at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
    SELECT greatest(at, (SELECT c.judged_from FROM {{schema}}.runtime_clock c WHERE c.singleton),
                    pg_postmaster_start_time());
$$;

-- heartbeat, register_worker and elect_leader: as before, and a contact.
CREATE OR REPLACE FUNCTION {{schema}}.heartbeat(worker_id text) RETURNS boolean
LANGUAGE sql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT {{schema}}.note_contact();
    WITH beat AS (
        UPDATE {{schema}}.workers w SET last_heartbeat = now()
        WHERE w.id = heartbeat.worker_id AND w.dead_at IS NULL
        RETURNING true
    )
    SELECT EXISTS (SELECT 1 FROM beat);
$$;

CREATE OR REPLACE FUNCTION {{schema}}.register_worker(worker_id text, hostname text, pool_size integer, version text DEFAULT NULL)
RETURNS void
LANGUAGE sql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT {{schema}}.note_contact();
    INSERT INTO {{schema}}.workers AS w (id, hostname, pool_size, version)
    VALUES (worker_id, hostname, pool_size, version)
    ON CONFLICT (id) DO UPDATE SET
        hostname = excluded.hostname, pool_size = excluded.pool_size, version = excluded.version,
        started_at = now(), last_heartbeat = now(), dead_at = NULL;
$$;

CREATE OR REPLACE FUNCTION {{schema}}.elect_leader(worker_id text) RETURNS boolean
LANGUAGE sql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT {{schema}}.note_contact();
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

-- recover_dead_workers: as in migration 012, a contact first, and each
-- worker judged by heard_from (above) instead of its bare heartbeat.
CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers() RETURNS jsonb
LANGUAGE plpgsql
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    v_ids     bigint[];
    v_types   text[];
    r_types   text[];
    r_groups  integer[];
    w_types   text[];
    n_pending integer;
    n_dead    integer;
    n_workers integer;
BEGIN
    -- The caller (the leader's maintenance) reached the database: after a
    -- gap, every worker gets a fresh worker_timeout before it is judged.
    PERFORM {{schema}}.note_contact();

    -- 0. The live workers that may be declared dead (silent for longer than
    -- the shortest worker_timeout), locked in id order before their tasks:
    -- complete_and_take reads its worker's row FOR KEY SHARE before it
    -- hands the worker tasks, so those tasks are either seen below or never
    -- handed to a worker this recovery declares dead.
    PERFORM 1 FROM (
        SELECT w.id FROM {{schema}}.workers w
        WHERE w.dead_at IS NULL
          AND {{schema}}.heard_from(w.last_heartbeat) < now() - (SELECT coalesce(min(q.worker_timeout), interval '30 seconds')
                                          FROM {{schema}}.queues q)
        ORDER BY w.id
        FOR UPDATE
    ) silent;

    -- 1. Every running task, by tasks_held, whose worker is gone or silent:
    -- locked, in id order.
    SELECT array_agg(v.id ORDER BY v.id), array_agg(DISTINCT v.type)
      INTO v_ids, v_types
    FROM (
        SELECT t.id, t.type FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        WHERE t.status = 'running'
          AND (w.id IS NULL OR w.dead_at IS NOT NULL
               OR {{schema}}.heard_from(w.last_heartbeat) < now() - coalesce(q.worker_timeout, interval '30 seconds'))
        ORDER BY t.id
        FOR UPDATE OF t
    ) v;

    -- 2. Their types' locks, all at once.
    IF v_types IS NOT NULL THEN
        PERFORM {{schema}}.lock_types(v_types);
    END IF;

    -- 3. Back to pending (waiting in its lane if its type is limited now),
    -- or to the dead letter once its retries are spent.
    WITH victims AS (
        SELECT t.id, t.slot_group, t.worker_id AS old_worker, tt.concurrency IS NOT NULL AS limited,
               t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.id = ANY (coalesce(v_ids, '{}'))
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN v.exhausted THEN 'dead_letter' ELSE 'pending' END::{{schema}}.task_status,
            gate = CASE WHEN v.limited AND NOT v.exhausted THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate,
            completed_at = CASE WHEN v.exhausted THEN now() END,
            worker_id = NULL, slot_group = NULL, run_at = now(), updated_at = now(),
            last_error = 'its worker stopped heartbeating; task recovered'
        FROM victims v WHERE t.id = v.id
        RETURNING t.type, v.slot_group, v.exhausted, v.old_worker, v.limited
    ), dead AS (
        -- 4. The workers: those whose tasks were recovered, and every
        -- silent one.
        UPDATE {{schema}}.workers w SET dead_at = now()
        WHERE w.dead_at IS NULL
          AND (w.id IN (SELECT b.old_worker FROM back b)
               OR {{schema}}.heard_from(w.last_heartbeat) < now() - (SELECT coalesce(max(q.worker_timeout), interval '30 seconds')
                                              FROM {{schema}}.queues q))
        RETURNING 1
    )
    SELECT count(*) FILTER (WHERE NOT b.exhausted)::integer,
           count(*) FILTER (WHERE b.exhausted)::integer,
           (SELECT count(*)::integer FROM dead),
           array_agg(b.type) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(b.slot_group) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.slot_group IS NOT NULL)
      INTO n_pending, n_dead, n_workers, r_types, r_groups, w_types
    FROM back b;

    -- 5. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers);
END;
$$;


-- New functions: PUBLIC gets nothing (migration 008).
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {{schema}} FROM PUBLIC;
