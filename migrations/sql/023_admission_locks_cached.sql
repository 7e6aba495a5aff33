-- pgseq schema, version 23: the admission locks in PL/pgSQL, whose plan
-- is kept.
-- {{schema}} is replaced by the quoted schema name.
--
-- lock_admission was a SQL function with an aggregate, which PostgreSQL
-- cannot inline: it planned its body again on every call. A completion
-- that gives units back calls it once (hand_off), so each paid the
-- planning: 110 µs of a 10-task round trip's 1.1 ms of runtime functions
-- on 1,000 types limited to 1,000 (pg_stat_user_functions, 300 calls),
-- 29 µs as PL/pgSQL. The locks are the same: shared or exclusive, one per
-- type, in key order, held until the transaction ends.

CREATE OR REPLACE FUNCTION {{schema}}.lock_admission(types text[], exclusive boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF exclusive THEN
        PERFORM count(pg_advisory_xact_lock(1885827954, x.k)::text)
        FROM (SELECT DISTINCT {{schema}}.slot_lock_key(u.t) AS k FROM unnest(types) AS u(t) ORDER BY 1) x;
    ELSE
        PERFORM count(pg_advisory_xact_lock_shared(1885827954, x.k)::text)
        FROM (SELECT DISTINCT {{schema}}.slot_lock_key(u.t) AS k FROM unnest(types) AS u(t) ORDER BY 1) x;
    END IF;
END;
$$;
