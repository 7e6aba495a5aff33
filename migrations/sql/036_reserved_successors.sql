-- pgseq schema, version 36: reserved successors, so that a binding limit's
-- units never sit idle for a completion's round trip.
-- {{schema}} is replaced by the quoted schema name.
--
-- With a limit that binds (a backlog in the type's lane), a unit passes
-- from a finished task to the next one in the completion's write
-- (complete_and_take): the successor starts only once that completion has
-- committed and come back. With 20 ms handlers and a 3 ms completion, each
-- unit sits idle for an eighth of every cycle (`binding` read 69-84% of the
-- ideal; results/limits-design.md, "Seventh round").
--
-- A worker may now hold, beside each task of a binding type it runs, one
-- reserved successor: a task taken from the head of the type's lane with no
-- unit, held by the worker (status 'claimed', worker_id set, slot_group
-- NULL), counted in no limit. When one of its running tasks of that type
-- ends, the worker starts a reserved successor at once, on the finished
-- task's handler, and reports both in one call: complete_and_reserve
-- completes the finished task and passes its unit straight to the started
-- successor (now running, holding the unit), in the same transaction.
-- Neither the database's count of running tasks nor the worker's handlers
-- running ever exceed the limit: a successor starts only after its
-- predecessor ended, and becomes running on the predecessor's unit.
--
-- What keeps it exact (each forced by a test in reserved_test.go):
--   - a worker reserves at most as many successors of a type as it runs
--     tasks of that type (counted under the type's lock, through tasks_held),
--     only from types that are limited, not draining and not partitioned,
--     and only from the lane's head (its order: priority, run_at, id);
--   - a started successor is promoted only on a unit its own worker freed
--     of its type in the same call, or with no unit if its type lost its
--     limit; anything else (its predecessor recovered, say) is refused: it
--     goes back to its lane, and the worker is told;
--   - reservations go back to their lane, in the same transaction as the
--     worker's units, when it releases them, when it unregisters and when
--     the leader's recovery declares it dead (run_at kept: they never ran,
--     and keep their place in the lane);
--   - an apply lowering a limit makes the type draining: no reservation is
--     made for it any more; those already made are started once each, on
--     the unit their predecessor frees (the count of running tasks does not
--     rise: it passes from one task to the next), which bounds the
--     lowering's transient to one successor per running task.
-- Every task row the entry points lock, they lock in id order before any
-- type lock (complete_and_reserve and release lock the finished and the
-- reserved tasks together), as recovery does.
--
-- complete_and_reserve and its two steps keep generic plans
-- (plan_cache_mode): a call carries one or a few tasks, and PL/pgSQL's
-- custom plans were planned again at every call, half of its server time
-- (the binding drain: 3.35 ms a call, 1.45 ms with generic plans; every
-- statement it runs reads by primary key or one index's order, and
-- offer_units, give_back and admit_keys force generic plans already).

-- 1. A started successor takes a unit its worker freed of its type in this
-- call (the k-th started of a type, in id order, takes the k-th unit of the
-- type freed), or none if its type has no limit now; the others are
-- refused and go back to their lane. Returns the promoted, the types of the
-- refused and the units not passed on.
CREATE FUNCTION {{schema}}.promote_started(started bigint[], worker_id text, unit_types text[], unit_groups integer[],
                                           OUT left_types text[], OUT left_groups integer[],
                                           OUT promoted bigint[], OUT refused_types text[])
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
DECLARE
    v_units jsonb := {{schema}}.units_by_type(unit_types, unit_groups);
    v_map   jsonb;
    v_used  jsonb;
BEGIN
    -- Each of the worker's reserved tasks named, with the unit it takes
    -- (null: none) and whether it is promoted. The rows were locked by the
    -- caller, in id order, before any type lock.
    WITH s AS MATERIALIZED (
        SELECT t.id, t.type, tt.concurrency IS NOT NULL AS limited,
               row_number() OVER (PARTITION BY t.type ORDER BY t.id) AS k
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.id = ANY (started) AND t.worker_id = promote_started.worker_id
          AND t.status::text = 'claimed' -- as text: by primary key, never through tasks_held
    ), d AS MATERIALIZED (
        SELECT s.id, s.type, s.limited, s.k,
               CASE WHEN s.limited THEN (v_units -> s.type ->> (s.k - 1)::integer)::integer END AS grp
        FROM s
    )
    SELECT jsonb_object_agg(d.id::text, jsonb_build_array(d.grp, NOT d.limited OR d.grp IS NOT NULL)),
           jsonb_object_agg(d.type, d.n_used) FILTER (WHERE d.n_used > 0),
           array_agg(d.id ORDER BY d.id) FILTER (WHERE NOT d.limited OR d.grp IS NOT NULL),
           array_agg(DISTINCT d.type) FILTER (WHERE d.limited AND d.grp IS NULL)
      INTO v_map, v_used, promoted, refused_types
    FROM (SELECT d.*, count(d.grp) OVER (PARTITION BY d.type) AS n_used FROM d) d;

    IF v_map IS NOT NULL THEN
        -- An update of tasks alone, by id (migration 030), each looking up
        -- its unit in one row.
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN (v_map -> t.id::text ->> 1)::boolean THEN 'running' ELSE 'pending' END::{{schema}}.task_status,
            gate = CASE WHEN (v_map -> t.id::text ->> 1)::boolean THEN 'open' ELSE 'waiting' END::{{schema}}.task_gate,
            slot_group = (v_map -> t.id::text ->> 0)::integer,
            worker_id = CASE WHEN (v_map -> t.id::text ->> 1)::boolean THEN t.worker_id END,
            attempts = t.attempts + CASE WHEN (v_map -> t.id::text ->> 1)::boolean THEN 1 ELSE 0 END,
            claimed_at = CASE WHEN (v_map -> t.id::text ->> 1)::boolean THEN t.claimed_at END,
            started_at = CASE WHEN (v_map -> t.id::text ->> 1)::boolean THEN now() END,
            updated_at = now()
        WHERE t.id = ANY (ARRAY(SELECT k::bigint FROM jsonb_object_keys(v_map) AS k));
    END IF;

    -- The units left: per type, those beyond the ones passed on.
    SELECT array_agg(u.t ORDER BY u.t, u.k), array_agg(u.g ORDER BY u.t, u.k)
      INTO left_types, left_groups
    FROM (
        SELECT x.t, x.g, row_number() OVER (PARTITION BY x.t ORDER BY x.ord) AS k
        FROM unnest(unit_types, unit_groups) WITH ORDINALITY AS x(t, g, ord)
    ) u
    WHERE u.k > coalesce((v_used ->> u.t)::integer, 0);
END;
$function$;

-- 2. Reservations: for each type named that is limited, not draining and
-- not partitioned, as many of its lane's first tasks as the worker runs
-- tasks of it beyond those it has reserved, at most max_reserve in all,
-- locked SKIP LOCKED (a task a concurrent hand-off or admission holds is
-- not taken). The caller holds the types' locks (shared), so no apply
-- changes their limits meanwhile.
CREATE FUNCTION {{schema}}.reserve_successors(worker_id text, types text[], max_reserve integer)
 RETURNS {{schema}}.taken_task[]
 LANGUAGE plpgsql
 SET enable_hashjoin TO 'off'
 SET enable_mergejoin TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
DECLARE
    v_kinds  text[];
    v_picked bigint[];
    v_taken  {{schema}}.taken_task[];
BEGIN
    IF coalesce(max_reserve, 0) < 1 OR coalesce(cardinality(types), 0) = 0 THEN
        RETURN NULL;
    END IF;
    -- 1. The types that may reserve and whose lanes hold a task (one probe
    -- of each lane's head, in its index's order): a limit that does not
    -- bind costs no more than that.
    SELECT array_agg(tt.name) INTO v_kinds
    FROM {{schema}}.task_types tt
    WHERE tt.name = ANY (types) AND tt.concurrency IS NOT NULL AND NOT tt.draining AND tt.partition_limit IS NULL
      AND (SELECT true FROM {{schema}}.tasks t
           WHERE t.type = tt.name AND t.status = 'pending' AND t.gate = 'waiting'
           ORDER BY t.priority DESC, t.run_at, t.id LIMIT 1);
    IF v_kinds IS NULL THEN
        RETURN NULL;
    END IF;
    -- 2. Per type, as many of its lane's first tasks as the worker runs of
    -- it beyond those it has reserved (counted through tasks_held), at most
    -- max_reserve in all.
    WITH held AS (
        SELECT h.type, count(*) FILTER (WHERE h.status = 'running') - count(*) FILTER (WHERE h.status = 'claimed') AS n
        FROM {{schema}}.tasks h
        WHERE h.worker_id = reserve_successors.worker_id AND h.status IN ('claimed', 'running')
          AND h.type = ANY (v_kinds)
        GROUP BY h.type
    ), lane AS (
        SELECT l.id, l.priority, l.run_at
        FROM held h, LATERAL (
            SELECT t.id, t.priority, t.run_at FROM {{schema}}.tasks t
            WHERE t.type = h.type AND t.status = 'pending' AND t.gate = 'waiting'
            ORDER BY t.priority DESC, t.run_at, t.id
            LIMIT greatest(h.n, 0)
            FOR UPDATE SKIP LOCKED
        ) l
        WHERE h.n > 0
    )
    SELECT array_agg(l.id) INTO v_picked
    FROM (SELECT l.id FROM lane l ORDER BY l.priority DESC, l.run_at, l.id LIMIT max_reserve) l;
    IF v_picked IS NULL THEN
        RETURN NULL;
    END IF;
    -- 3. Reserved: held by the worker, no unit.
    WITH r AS (
        UPDATE {{schema}}.tasks t
        SET status = 'claimed', worker_id = reserve_successors.worker_id, claimed_at = now(), updated_at = now()
        WHERE t.id = ANY (v_picked)
        RETURNING t.id, t.type, t.payload, t.attempts, t.priority, t.run_at
    )
    SELECT array_agg(ROW(r.id, r.type, r.payload, r.attempts)::{{schema}}.taken_task ORDER BY r.priority DESC, r.run_at, r.id)
      INTO v_taken
    FROM r;
    RETURN v_taken;
END;
$function$;

-- 3. The entry point: complete_and_take, with the successors the worker
-- started (started: reserved tasks it started in place of tasks of the same
-- type finished in this call) and new reservations (at most max_reserve).
-- One row per task: kind 'taken' (claimed for the worker, running: start
-- it), 'reserved' (start it only in place of a task of its type that ends)
-- or 'refused' (a started successor not promoted: no longer the worker's);
-- one row with a null id when there is none. completed counts the finished
-- tasks that were still the worker's.
CREATE FUNCTION {{schema}}.complete_and_reserve(task_ids bigint[], worker_id text, started bigint[] DEFAULT NULL::bigint[],
                                                max_take integer DEFAULT NULL::integer, max_reserve integer DEFAULT 0)
 RETURNS TABLE(completed integer, id bigint, type text, payload jsonb, attempts integer, kind text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET jit TO 'off'
 SET plan_cache_mode TO 'force_generic_plan'
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
    v_worker   text := complete_and_reserve.worker_id;
    v_started  bigint[] := coalesce(complete_and_reserve.started, '{}');
    v_alive    boolean;
    v_types    text[];
    f          record;
    p          record;
    u_types    text[];
    u_groups   integer[];
    v_promoted bigint[];
    v_back     text[];
    v_taken    {{schema}}.taken_task[];
    v_reserved {{schema}}.taken_task[];
    v_refused  bigint[];
BEGIN
    PERFORM 1 FROM {{schema}}.workers w
    WHERE w.id = v_worker AND w.dead_at IS NULL
    FOR KEY SHARE;
    v_alive := FOUND;
    IF cardinality(v_started) > 0 THEN
        -- 1. Every task row of the worker's this call changes, locked in id
        -- order, then all their types' locks at once (the order recovery
        -- and release take them in; finish_owned's own locks below are
        -- then held already).
        SELECT array_agg(DISTINCT x.type) INTO v_types
        FROM (
            SELECT t.id, t.type FROM {{schema}}.tasks t
            WHERE t.id = ANY (task_ids || v_started) AND t.worker_id = v_worker
              AND t.status::text IN ('running', 'claimed') -- as text: by primary key
            ORDER BY t.id
            FOR UPDATE
        ) x;
        IF v_types IS NOT NULL THEN
            PERFORM {{schema}}.lock_types(v_types);
        END IF;
    END IF;
    -- 2. The finished tasks complete.
    f := {{schema}}.finish_owned(task_ids, v_worker);
    u_types := f.unit_types;
    u_groups := f.unit_groups;
    -- 3. Started successors take their predecessors' units. (A dead
    -- worker's tasks were recovered: none is its any more, all are
    -- refused.)
    IF cardinality(v_started) > 0 THEN
        p := {{schema}}.promote_started(v_started, v_worker, coalesce(u_types, '{}'), coalesce(u_groups, '{}'));
        u_types := p.left_types;
        u_groups := p.left_groups;
        v_promoted := p.promoted;
        v_back := p.refused_types;
        v_refused := ARRAY(SELECT s.id FROM unnest(v_started) AS s(id)
                           WHERE NOT s.id = ANY (coalesce(v_promoted, '{}')) ORDER BY s.id);
    END IF;
    -- 4. The units left pass on, as complete_and_take passes them; refused
    -- successors, back in their lanes, take free units of their types (I5).
    IF u_types IS NOT NULL THEN
        IF v_alive THEN
            v_taken := {{schema}}.hand_off(u_types, u_groups, v_worker, max_take);
        ELSE
            PERFORM {{schema}}.hand_off(u_types, u_groups);
        END IF;
    END IF;
    IF v_back IS NOT NULL THEN
        PERFORM {{schema}}.admit_types(v_back);
    END IF;
    IF f.key_types IS NOT NULL THEN
        IF {{schema}}.admit_keys(f.key_types, f.key_keys, true) > 0 THEN
            PERFORM pg_notify('pgseq_tasks', '{{schema}}'::regnamespace::text);
        END IF;
    END IF;
    -- 5. New reservations, of the types whose units this call freed.
    IF v_alive AND coalesce(max_reserve, 0) > 0 AND f.unit_types IS NOT NULL THEN
        v_reserved := {{schema}}.reserve_successors(v_worker, ARRAY(SELECT DISTINCT u.t FROM unnest(f.unit_types) AS u(t)),
                                                    max_reserve);
    END IF;

    IF coalesce(cardinality(v_taken), 0) + coalesce(cardinality(v_reserved), 0) + coalesce(cardinality(v_refused), 0) = 0 THEN
        RETURN QUERY SELECT f.n, NULL::bigint, NULL::text, NULL::jsonb, NULL::integer, NULL::text;
        RETURN;
    END IF;
    -- Taken in claim order (the order offer_units took them in), then the
    -- reservations in lane order, then the refused.
    RETURN QUERY
    SELECT f.n, x.id, x.type, x.payload, x.attempts, 'taken'::text FROM unnest(v_taken) AS x
    UNION ALL
    SELECT f.n, x.id, x.type, x.payload, x.attempts, 'reserved'::text FROM unnest(v_reserved) AS x
    UNION ALL
    SELECT f.n, r.id, t.type, NULL::jsonb, t.attempts, 'refused'::text
    FROM unnest(v_refused) AS r(id) LEFT JOIN {{schema}}.tasks t ON t.id = r.id;
END;
$function$;

-- 4. Reservations go back with the worker's units: in the leader's
-- recovery, in release and when the worker unregisters.
CREATE OR REPLACE FUNCTION {{schema}}.recover_dead_workers()
 RETURNS jsonb
 LANGUAGE plpgsql
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
    v_ids     bigint[];
    v_types   text[];
    r_types   text[];
    r_groups  integer[];
    w_types   text[];
    k_types   text[];
    k_keys    text[];
    n_pending integer;
    n_dead    integer;
    n_workers integer;
    n_reserved integer;
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

    -- 1. Every task held, running or reserved (migration 036), by
    -- tasks_held, whose worker is gone or silent: locked, in id order.
    SELECT array_agg(v.id ORDER BY v.id), array_agg(DISTINCT v.type)
      INTO v_ids, v_types
    FROM (
        SELECT t.id, t.type FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        WHERE t.status IN ('claimed', 'running')
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
    -- or to the dead letter once its retries are spent. A reserved task
    -- (never started: no attempt counted, no unit) goes back to its lane
    -- as it was, its place in the lane (run_at) kept. What happens to
    -- each is decided once (victims: all of them locked in step 1, so all
    -- of them updated) and the update, of tasks alone by id, looks its
    -- task up in one row (outcome). Migration 030: joined with victims,
    -- with the statistics saying the table was empty, the update read
    -- every task once per recovered task.
    WITH victims AS MATERIALIZED (
        SELECT t.id, t.type, t.slot_group, t.worker_id AS old_worker, tt.concurrency IS NOT NULL AS limited,
               t.key_unit, t.partition_key,
               t.status = 'claimed' AS reserved,
               t.status <> 'claimed' AND t.attempts > coalesce(t.max_retries, tt.max_retries, q.max_retries, 3) AS exhausted
        FROM {{schema}}.tasks t
        LEFT JOIN {{schema}}.queues q ON q.name = t.queue
        LEFT JOIN {{schema}}.task_types tt ON tt.name = t.type
        WHERE t.id = ANY (coalesce(v_ids, '{}'))
    ), outcome AS MATERIALIZED (
        SELECT jsonb_object_agg(v.id::text, jsonb_build_array(v.exhausted, v.limited, v.reserved)) AS m FROM victims v
    ), back AS (
        UPDATE {{schema}}.tasks t
        SET status = CASE WHEN (o.m -> t.id::text ->> 0)::boolean THEN 'dead_letter'
                          ELSE 'pending' END::{{schema}}.task_status,
            gate = CASE WHEN (o.m -> t.id::text ->> 1)::boolean AND NOT (o.m -> t.id::text ->> 0)::boolean THEN 'waiting'
                        ELSE 'open' END::{{schema}}.task_gate,
            completed_at = CASE WHEN (o.m -> t.id::text ->> 0)::boolean THEN now() END,
            worker_id = NULL, slot_group = NULL, updated_at = now(),
            run_at = CASE WHEN (o.m -> t.id::text ->> 2)::boolean THEN t.run_at ELSE now() END,
            claimed_at = CASE WHEN (o.m -> t.id::text ->> 2)::boolean THEN NULL ELSE t.claimed_at END,
            key_unit = t.key_unit AND NOT (o.m -> t.id::text ->> 0)::boolean,
            last_error = CASE WHEN (o.m -> t.id::text ->> 2)::boolean THEN t.last_error
                              ELSE 'its worker stopped heartbeating; task recovered' END
        FROM outcome o
        WHERE t.id = ANY (coalesce(v_ids, '{}'))
    ), dead AS (
        -- 4. The workers: those whose tasks were recovered, and every
        -- silent one.
        UPDATE {{schema}}.workers w SET dead_at = now()
        WHERE w.dead_at IS NULL
          AND (w.id IN (SELECT b.old_worker FROM victims b)
               OR {{schema}}.heard_from(w.last_heartbeat) < now() - (SELECT coalesce(max(q.worker_timeout), interval '30 seconds')
                                              FROM {{schema}}.queues q))
        RETURNING 1
    )
    SELECT count(*) FILTER (WHERE NOT b.exhausted AND NOT b.reserved)::integer,
           count(*) FILTER (WHERE b.exhausted)::integer,
           (SELECT count(*)::integer FROM dead),
           array_agg(b.type) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(b.slot_group) FILTER (WHERE b.slot_group IS NOT NULL),
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.slot_group IS NOT NULL),
           array_agg(b.type) FILTER (WHERE b.exhausted AND b.key_unit),
           array_agg(b.partition_key) FILTER (WHERE b.exhausted AND b.key_unit),
           count(*) FILTER (WHERE b.reserved)::integer
      INTO n_pending, n_dead, n_workers, r_types, r_groups, w_types, k_types, k_keys, n_reserved
    FROM victims b;

    -- 5. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, r_types, r_groups);
    -- 6. Dead-lettered tasks give their key units back (a task that goes
    -- back to pending keeps its own: it is claimed again first).
    IF k_types IS NOT NULL THEN
        PERFORM {{schema}}.admit_keys(k_types, k_keys, true);
    END IF;
    RETURN jsonb_build_object('recovered', n_pending, 'dead_lettered', n_dead, 'workers_declared_dead', n_workers,
                              'reservations_returned', n_reserved);
END;
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.release(task_ids bigint[], worker_id text)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET jit TO 'off'
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
    o          record;
    v_types    text[];
    v_reserved bigint[];
    w_types    text[];
    n          integer;
BEGIN
    -- 1. The fence: only the worker's own tasks, running or reserved
    -- (migration 036), locked in id order; then their types' locks; then
    -- the running ones' units (lock_owned: locked already).
    SELECT array_agg(x.id ORDER BY x.id) FILTER (WHERE x.status::text = 'claimed'), array_agg(DISTINCT x.type)
      INTO v_reserved, v_types
    FROM (
        SELECT t.id, t.type, t.status FROM {{schema}}.tasks t
        WHERE t.id = ANY (task_ids) AND t.worker_id = release.worker_id
          AND t.status::text IN ('running', 'claimed') -- as text: by primary key
        ORDER BY t.id
        FOR UPDATE
    ) x;
    IF v_types IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM {{schema}}.lock_types(v_types);
    o := {{schema}}.lock_owned(task_ids, release.worker_id);

    -- 2. Pending again; a task of a limited type waits in its lane. (A
    -- reserved one never started: no attempt to take back.)
    WITH back AS (
        UPDATE {{schema}}.tasks t
        SET status = 'pending', worker_id = NULL, slot_group = NULL,
            attempts = CASE WHEN t.status = 'claimed' THEN t.attempts ELSE greatest(t.attempts - 1, 0) END,
            gate = CASE WHEN EXISTS (SELECT 1 FROM {{schema}}.task_types tt
                                     WHERE tt.name = t.type AND tt.concurrency IS NOT NULL)
                        THEN 'waiting' ELSE 'open' END::{{schema}}.task_gate,
            claimed_at = NULL, started_at = NULL, updated_at = now()
        WHERE t.id = ANY (coalesce(o.ids, '{}') || coalesce(v_reserved, '{}'))
        RETURNING t.type, t.gate = 'waiting' AS limited
    )
    -- The types to requeue: limited ones, and any whose tasks held units
    -- (a limit removed while they ran).
    SELECT count(*)::integer,
           array_agg(DISTINCT b.type) FILTER (WHERE b.limited OR b.type = ANY (coalesce(o.unit_types, '{}')))
      INTO n, w_types
    FROM back b;
    -- 3. Their units pass on, and free units go to the lanes.
    PERFORM {{schema}}.requeue_limited(w_types, o.unit_types, o.unit_groups);
    RETURN n;
END;
$function$;

CREATE OR REPLACE FUNCTION {{schema}}.unregister_worker(worker_id text)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
    v_running bigint[];
    v_back    integer;
BEGIN
    -- 1. Its running and reserved tasks go back (read by tasks_held: what
    -- it holds).
    SELECT array_agg(t.id) INTO v_running
    FROM {{schema}}.tasks t
    WHERE t.worker_id = unregister_worker.worker_id AND t.status IN ('claimed', 'running');
    v_back := CASE WHEN v_running IS NULL THEN 0
                   ELSE {{schema}}.release(v_running, unregister_worker.worker_id) END;
    -- 2. The leader lease, if it holds it.
    PERFORM {{schema}}.resign_leader(unregister_worker.worker_id);
    -- 3. Its row.
    DELETE FROM {{schema}}.workers w WHERE w.id = unregister_worker.worker_id;
    RETURN v_back;
END;
$function$;

-- New functions: PUBLIC gets nothing (migration 008); the roles pgseq apply
-- granted the work level get the new entry point.
REVOKE ALL ON FUNCTION {{schema}}.promote_started(bigint[], text, text[], integer[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION {{schema}}.reserve_successors(text, text[], integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION {{schema}}.complete_and_reserve(bigint[], text, bigint[], integer, integer) FROM PUBLIC;
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT g.role FROM {{schema}}.grants g
             WHERE g.level = 'work' AND to_regrole(quote_ident(g.role)) IS NOT NULL ORDER BY 1 LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I',
                       '{{schema}}.complete_and_reserve(bigint[], text, bigint[], integer, integer)', r.role);
    END LOOP;
END;
$$;
