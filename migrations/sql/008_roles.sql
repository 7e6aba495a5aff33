-- pgseq schema, version 8: least-privilege roles. {{schema}} is replaced by
-- the quoted schema name.
--
-- The roles that may use the schema are declared in the configuration's
-- access block, by level (enqueue, work, counters, read), and pgseq apply
-- grants each exactly its level's privileges (catalog.LevelPrivileges):
-- USAGE on the schema, EXECUTE on the level's functions, SELECT on a few
-- tables — never a table write. Writes happen inside the runtime's
-- functions, which therefore run with the rights of their owner, the role
-- that applies (SECURITY DEFINER), below. A worker's role can then claim and
-- complete but cannot UPDATE concurrency_slots, INSERT into tasks or lower a
-- counter; and since it cannot read workers, tasks or leader, it never
-- learns another worker's id, which is what fences complete, fail and
-- release to the worker's own tasks.
--
-- A SECURITY DEFINER function must not let its caller choose what its
-- unqualified names mean: each gets a fixed search_path of pg_catalog (the
-- built-in functions and operators, first, so nothing shadows them) and
-- pg_temp last (a temporary object is never found before a system one).
-- Every pgseq object in these functions and in the helpers they call —
-- which inherit the setting — is written {{schema}}.name; the dynamic SQL of
-- resolve_key names tables through regclass and types through format_type,
-- which qualify what the search_path does not show. The helpers stay
-- SECURITY INVOKER: called from an entry point they already run as the
-- owner, and unchanged they keep being inlined where they are SQL.

-- What pgseq apply granted: the access levels of the roles it manages. A
-- role not named here is never touched by an apply. A later migration that
-- adds a function to a level grants it to the roles recorded here.
CREATE TABLE {{schema}}.grants (
    role       text NOT NULL,
    level      text NOT NULL CHECK (level IN ('enqueue', 'work', 'counters', 'read')),
    granted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (role, level)
);
COMMENT ON TABLE {{schema}}.grants IS 'Access levels granted to database roles, managed by pgseq apply.';

-- Enqueue.
ALTER FUNCTION {{schema}}.enqueue(text, jsonb, text, integer, timestamptz)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.enqueue_batch(text[], jsonb[], text[], integer[], timestamptz[])
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;

-- Work.
ALTER FUNCTION {{schema}}.register_worker(text, text, integer, text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.heartbeat(text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.claim(text, text, integer, integer)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.complete(bigint[], text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.complete_and_take(bigint[], text, integer)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.fail(bigint, text, text, boolean)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.release(bigint[], text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.elect_leader(text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.resign_leader(text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.run_maintenance(text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;

-- Counters.
ALTER FUNCTION {{schema}}.next_value(text, text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.next_values(text, text[])
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.reserve(text, text, text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.commit_reservation(bigint, text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.reap_reservations()
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION {{schema}}.resolve_key(text)
    SECURITY DEFINER SET search_path = pg_catalog, pg_temp;

-- PUBLIC (every role) gets nothing in the schema: PostgreSQL lets PUBLIC
-- execute every new function, and a SECURITY DEFINER one above would let
-- any role of the database claim tasks or take numbers.
REVOKE ALL ON SCHEMA {{schema}} FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA {{schema}} FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA {{schema}} FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {{schema}} FROM PUBLIC;
