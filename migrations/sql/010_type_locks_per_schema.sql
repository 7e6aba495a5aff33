-- pgseq schema, version 10: a task type's advisory locks belong to its
-- schema. {{schema}} is replaced by the quoted schema name.
--
-- slot_lock_key hashed the type's name alone, so the pgseq schemas of one
-- database shared the locks of their types of the same name: an apply in
-- one schema held back the claims' admissions and blocked the completions
-- of that type in every other until it committed, and their runtimes
-- serialised admissions (lock_admission) with each other. The key now
-- hashes the schema's name with the type's.
--
-- While the upgrade commits, sessions may still run the old definitions
-- (they took, or are about to take, the old key: hashtext of the name):
--   - lock_types: an exclusive caller (pgseq apply) takes the old key too,
--     so it still excludes a runtime session on the old key. Applies in two
--     schemas that change types of the same name still wait for each other
--     (rare and short); runtime sessions on the new definitions never meet
--     another schema's keys.
--   - lock_admission: both sides are the runtime. A session on the old key
--     and one on the new do not exclude each other for that moment; a task
--     left waiting beside a free unit then (I5) is admitted by the leader's
--     repair (repair_admission) at its next maintenance.
--   - try_lock_type: the new key, through slot_lock_key.
-- lock_admission and try_lock_type call slot_lock_key and need no change.

-- slot_lock_key is the second key of a task type's advisory locks (the
-- first is the lock's class): the schema's name and the type's. Schema
-- names are [a-z_][a-z0-9_]*, so the literal holds no quote to escape.
CREATE OR REPLACE FUNCTION {{schema}}.slot_lock_key(task_type text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$ SELECT hashtext('{{schema}}.' || task_type) $$;

-- lock_types takes the advisory locks of task types, shared (the runtime) or
-- exclusive (pgseq apply, which also takes the keys of versions before 10),
-- all in key order in one statement, waiting for them. Released at the end
-- of the transaction.
CREATE OR REPLACE FUNCTION {{schema}}.lock_types(types text[], exclusive boolean DEFAULT false) RETURNS void
LANGUAGE sql AS $$
    SELECT count(CASE WHEN exclusive THEN pg_advisory_xact_lock(1885827953, k)::text
                      ELSE pg_advisory_xact_lock_shared(1885827953, k)::text END)
    FROM (SELECT DISTINCT v.k
          FROM unnest(types) AS u(t),
               LATERAL (VALUES ({{schema}}.slot_lock_key(u.t)),
                               (CASE WHEN exclusive THEN hashtext(u.t) END)) AS v(k)
          WHERE v.k IS NOT NULL
          ORDER BY 1) keys;
$$;
