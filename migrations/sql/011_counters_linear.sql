-- pgseq schema, version 11: a transaction pays the same for each number,
-- however many it takes, and resolve_key finds a prefixed key through the
-- counter's index. {{schema}} is replaced by the quoted schema name.
--
-- The cost (issue 18, part C). Every number updates its scope's row of
-- counter_values. A transaction that takes many numbers of one scope makes
-- a version of that row per number, and versions made by a transaction
-- still running are never pruned: they stay in the row's HOT chain (and,
-- once a page is full, behind one more index entry per page). take_value
-- found the row with INSERT … ON CONFLICT, which looks the key up in the
-- primary key and checks every version behind it: the k-th number read k
-- versions. Measured on one scope, in one transaction (EXPLAIN (ANALYZE,
-- BUFFERS) of one lookup of the row): 56 buffers after 10,000 numbers, 110
-- after 20,000, one buffer more per page of versions: INSERT … SELECT of
-- 20,000 rows into one scope took 3.8 s, 100,000 took 54 s.
--
-- The fix. increment_value updates the row through its current version's
-- ctid (a TID scan: one heap fetch, whatever the number of versions
-- before it) and remembers where the new version is in a transaction-local
-- setting (set_config(..., true)): pgseq.counter_rows_<n>, up to four row
-- versions per setting, 64 settings chosen by a hash of schema, counter
-- and scope. The remembered ctid is only a hint. The update also requires
-- counter and scope to match, and a TID scan returns a version only if it
-- is the one the transaction sees, so a stale hint (a savepoint rolled
-- back, another scope in the same setting, a value set by hand) finds no
-- row; the upsert of version 3 then runs, as for a transaction's first
-- number of a scope. The row is still written at every number, under the
-- same locks as before: each guarantee of version 3 holds unchanged
-- (never issued twice, gapless, a rollback or a rolled-back savepoint
-- returns the numbers with the row's versions, lock waits bounded by
-- lock_timeout, scopes locked in the same order, counter_values_guard
-- still sees every write). So does the foreign key's check on counters,
-- which runs at each update of a row version the transaction made itself
-- (RI_FKey_fk_upd_check_required): some 5 µs of the 37 a number takes.
--
-- Figures (go test ./counter -run '^$' -bench NumbersInOneTransaction
-- -benchtime 1x: one transaction of N numbers in one scope, rolled back; a
-- 2-core machine shared with other work, so ±30%):
--
--                                  5,000    10,000    20,000    100,000
--   next_value × N, version 10     0.49 s    1.59 s    3.52 s    89.3 s
--   next_value × N, version 11     0.19 s    0.41 s    0.78 s    4.25 s
--   INSERT … SELECT, the trigger
--     pgseq apply makes (as is)    0.27 s    0.85 s    3.84 s    54.4 s
--   INSERT … SELECT, a trigger
--     taking the scope's advisory
--     lock, then increment_value   0.14 s    0.29 s    0.57 s    3.28 s
--
-- Evaluated and left: keeping the running value itself in a
-- transaction-local setting and writing the row once (at the end of the
-- statement, or at commit through a deferred constraint trigger). It
-- takes a number for about 16 µs instead of 37 (next_value, no row
-- version per number), but the setting would then be the only record of
-- numbers already issued, and any session can change its own settings:
-- RESET ALL inside the transaction, SET CONSTRAINTS ALL IMMEDIATE (which
-- fires the write-back before later numbers), or a value set on purpose
-- would have the next transaction issue the same numbers again. A hint
-- that is wrong costs time only.
--
-- What is left: a page of the row's versions that fills up sends the next
-- version to another page, and that update checks the primary key against
-- every version so far, about once per 150 numbers: 37 µs a number at
-- 5,000, 42 µs at 100,000, and this part grows with the square of the
-- count beyond. The trigger of an attached counter is written by pgseq
-- apply (applier/counters.go), not by a migration: until its counter_table
-- body calls increment_value after its advisory lock, as take_value does,
-- an INSERT … SELECT into one scope keeps the cost of version 10.
--
-- resolve_key. A key whose prefix comes from a column (prefix_from) was
-- looked up with WHERE scope_column::text = $1, which no index serves: a
-- sequential scan of the numbered table per call. scoped_row_query now
-- casts the parameter to the scope column's type instead, so the counter's
-- unique index on (scope column, numbered column) finds the row.
--
-- CREATE OR REPLACE keeps a function's owner and grants but resets its
-- attributes to those it states: take_value stays a SECURITY INVOKER
-- helper without settings, resolve_key stays SECURITY DEFINER with
-- search_path = pg_catalog, pg_temp (migration 008). The new helpers are
-- SECURITY INVOKER and revoked from PUBLIC like every function of the
-- schema (they run inside an entry point, as its owner).

-- increment_value issues the next number of a counter's scope: start for
-- a scope without a row, else one more than the row holds, written to the
-- row, which then stays locked until the transaction ends. The caller holds
-- the scope's advisory lock (take_value; an attached counter's trigger),
-- so no other taker is between the read and the write.
--
--
-- Step 1 must read the row by ctid whatever the planner estimates: its
-- plan is cached for the session, and a plan made while counter_values was
-- one page (a hash join over a sequential scan, or the primary key) would
-- read every version later. Hence enable_seqscan = off and a key condition
-- that no index serves (IS NOT DISTINCT FROM; the columns are NOT NULL),
-- which leave the TID scan as the only plan. Its generic plan is estimated
-- dearer than a custom one (ten elements in an array parameter against
-- the few actually given), so without force_generic_plan it would be
-- planned again at every number (about 45 µs, most of the cost).
CREATE OR REPLACE FUNCTION {{schema}}.increment_value(counter text, scope text, start bigint) RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
    -- The setting that remembers this scope's row version, and what it
    -- holds: the ctids of the row versions this transaction last wrote for
    -- up to four scopes whose hash falls here.
    slot     text := 'pgseq.counter_rows_'
                     || (hashtext('{{schema}}' || chr(31) || increment_value.counter || chr(31) || increment_value.scope) & 63);
    known    tid[] := nullif(current_setting(slot, true), '')::tid[];
    replaced tid;    -- the version step 1 found
    written  tid;    -- the version this call wrote
    v        bigint;
BEGIN
    -- Step 1, the row version this transaction last wrote. A TID scan
    -- reads each remembered version (one heap fetch each) and keeps the one
    -- this transaction sees if it is this scope's row: that is the row's
    -- current version, so the increment is the one version 3 made, without
    -- walking the versions before it. Any other hint matches nothing.
    IF known IS NOT NULL THEN
        UPDATE {{schema}}.counter_values AS cv SET value = cv.value + 1
        FROM unnest(known) AS k(t)
        WHERE cv.ctid = k.t
          AND (cv.counter, cv.scope) IS NOT DISTINCT FROM (increment_value.counter, increment_value.scope)
        RETURNING cv.value, cv.ctid, k.t INTO v, written, replaced;
    END IF;

    -- Step 2, no hint: the scope's first number in this transaction (or a
    -- hint lost to a savepoint rollback or to three other scopes). The
    -- upsert of version 3 creates the row at start or increments it; it
    -- reads the row through the primary key, which costs one visit per
    -- version only when the transaction already wrote many of them.
    IF v IS NULL THEN
        INSERT INTO {{schema}}.counter_values AS cv (counter, scope, value)
        VALUES (increment_value.counter, increment_value.scope, increment_value.start)
        ON CONFLICT (counter, scope) DO UPDATE SET value = cv.value + 1
        RETURNING cv.value, cv.ctid INTO v, written;
    END IF;

    -- Step 3, remember the new version for the next number, in place of
    -- the one it replaces (a new scope goes first and pushes out the
    -- oldest of four). The setting is transaction-local: a commit or
    -- rollback clears it, a savepoint rollback restores it with the row.
    IF replaced IS NOT NULL THEN
        known := array_replace(known, replaced, written);
    ELSE
        known := (written || coalesce(known, '{}'))[1:4];
    END IF;
    PERFORM set_config(slot, known::text, true);
    RETURN v;
END;
$$;
REVOKE ALL ON FUNCTION {{schema}}.increment_value(text, text, bigint) FROM PUBLIC;

-- take_value issues the next value of a standalone counter's scope: the row
-- is locked until the caller's transaction ends, and a rollback gives the
-- number back. Waits at most the counter's lock_timeout (SQLSTATE 55P03).
CREATE OR REPLACE FUNCTION {{schema}}.take_value(c {{schema}}.counters, scope text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v       bigint;
    prev_lt text := current_setting('lock_timeout');
BEGIN
    -- Step 1, the scope's lock, held until the transaction ends. Waiters
    -- queue first-come first-served on an advisory lock per scope rather
    -- than on the counter row, whose every update would wake them all. The
    -- wait (and the row lock's, in step 2) is bounded by the counter's
    -- lock_timeout.
    PERFORM set_config('lock_timeout', (extract(epoch FROM c.lock_timeout) * 1000)::bigint || 'ms', true);
    PERFORM pg_advisory_xact_lock(hashtext('pgseq counter ' || c.name), hashtext(coalesce(take_value.scope, '')));

    -- Step 2, the number, written to the scope's row.
    v := {{schema}}.increment_value(c.name, coalesce(take_value.scope, ''), c.start);
    PERFORM set_config('lock_timeout', prev_lt, true);
    RETURN v;
END;
$$;

-- scoped_row_query is the statement resolve_key runs to find the row that
-- an attached counter with a prefix_from numbered: $1 is the scope as text
-- (the prefix table's key), $2 the number. $1 is cast to the scope
-- column's type, without its modifier (a cast to varchar(3) would cut a
-- longer key down to another one), so the comparison is the column's own
-- and the counter's unique index on (scope column, numbered column) serves
-- it.
CREATE OR REPLACE FUNCTION {{schema}}.scoped_row_query(c {{schema}}.counters) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT format('SELECT %I::text FROM %s WHERE %I = $1::%s AND %I = $2 LIMIT 1',
                  c.table_pk, a.attrelid::regclass, c.scope[1], format_type(a.atttypid, NULL), c.column_name)
    FROM pg_attribute a
    WHERE a.attrelid = {{schema}}.qualified_regclass(c.table_name) AND a.attname = c.scope[1] AND NOT a.attisdropped;
$$;
REVOKE ALL ON FUNCTION {{schema}}.scoped_row_query({{schema}}.counters) FROM PUBLIC;

-- resolve_key turns a human key into what it names. Accepts PREFIX-N
-- (prefix case-insensitive, surrounding whitespace ignored, leading zeros
-- allowed) or a primary key of a table with an attached counter. Returns
-- the counter, the scope, the number and, for attached counters, the row's
-- primary key as text. Unchanged from version 3 but for the lookup of a
-- prefix_from counter's row (scoped_row_query).
CREATE OR REPLACE FUNCTION {{schema}}.resolve_key(key text)
RETURNS TABLE (counter text, scope text, number bigint, row_id text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    k        text := btrim(resolve_key.key, E' \t\r\n\f');
    v_prefix text;
    v_digits text;
    v_num    bigint;
    c        {{schema}}.counters;
    v_scope  text;
    v_row    text;
    v_found  boolean := false;
    v_known  boolean := false;
    v_uuid   boolean;
BEGIN
    IF k IS NULL OR k = '' THEN
        RAISE EXCEPTION 'empty key' USING ERRCODE = 'PS011';
    END IF;
    -- A UUID is a primary key, even when it starts with a letter.
    v_uuid := k ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    IF NOT v_uuid AND k ~ '^[A-Za-z][A-Za-z0-9]*-[0-9]+$' THEN
        v_prefix := upper(substring(k FROM '^([A-Za-z][A-Za-z0-9]*)-'));
        v_digits := ltrim(substring(k FROM '-([0-9]+)$'), '0');
        IF length(v_digits) > 19 OR (length(v_digits) = 19 AND v_digits > '9223372036854775807') THEN
            RAISE EXCEPTION 'key "%": number out of range', k USING ERRCODE = 'PS011';
        END IF;
        v_num := coalesce(nullif(v_digits, ''), '0')::bigint;

        -- Counters with a constant prefix.
        FOR c IN SELECT * FROM {{schema}}.counters x WHERE upper(x.prefix) = v_prefix ORDER BY x.name LOOP
            v_known := true;
            IF c.table_name IS NULL THEN
                IF EXISTS (SELECT 1 FROM {{schema}}.counter_values cv
                           WHERE cv.counter = c.name AND cv.scope = '' AND v_num BETWEEN c.start AND cv.value) THEN
                    counter := c.name; scope := ''; number := v_num; row_id := NULL;
                    RETURN NEXT;
                    v_found := true;
                END IF;
            ELSE
                EXECUTE format('SELECT %I::text FROM %s WHERE %I = $1 LIMIT 1',
                               c.table_pk, {{schema}}.qualified_regclass(c.table_name), c.column_name)
                    INTO v_row USING v_num;
                IF v_row IS NOT NULL THEN
                    counter := c.name; scope := ''; number := v_num; row_id := v_row;
                    RETURN NEXT;
                    v_found := true;
                END IF;
            END IF;
        END LOOP;

        -- Counters whose scopes take their prefix from a column: the scope
        -- whose prefix it is, then the row numbered v_num in that scope,
        -- through the counter's index (scoped_row_query).
        FOR c IN SELECT * FROM {{schema}}.counters x WHERE x.prefix_table IS NOT NULL ORDER BY x.name LOOP
            EXECUTE format('SELECT %I::text FROM %s WHERE upper(%I::text) = $1 LIMIT 1',
                           c.prefix_table_pk, {{schema}}.qualified_regclass(c.prefix_table), c.prefix_column)
                INTO v_scope USING v_prefix;
            IF v_scope IS NULL THEN
                CONTINUE;
            END IF;
            v_known := true;
            BEGIN
                EXECUTE {{schema}}.scoped_row_query(c) INTO v_row USING v_scope, v_num;
            EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
                           OR invalid_datetime_format THEN
                -- The prefix table's key is no value of the scope column's
                -- type: no row of this counter can have it.
                v_row := NULL;
            END;
            IF v_row IS NOT NULL THEN
                counter := c.name; scope := v_scope; number := v_num; row_id := v_row;
                RETURN NEXT;
                v_found := true;
            END IF;
        END LOOP;

        IF NOT v_known THEN
            RAISE EXCEPTION 'unknown key prefix "%"', v_prefix USING ERRCODE = 'PS010';
        END IF;
        IF NOT v_found THEN
            RAISE EXCEPTION 'no entity has key %-%', v_prefix, v_num USING ERRCODE = 'PS012';
        END IF;
        RETURN;
    END IF;

    -- Otherwise a primary key of a numbered table.
    FOR c IN SELECT * FROM {{schema}}.counters x WHERE x.table_name IS NOT NULL AND x.table_pk IS NOT NULL ORDER BY x.name LOOP
        BEGIN
            EXECUTE format('SELECT %s, %I FROM %s WHERE %I = $1::%s',
                           CASE cardinality(c.scope)
                               WHEN 0 THEN quote_literal('')
                               WHEN 1 THEN format('%I::text', c.scope[1])
                               ELSE format('jsonb_build_array(%s)::text',
                                           (SELECT string_agg(quote_ident(s), ', ') FROM unnest(c.scope) s))
                           END,
                           c.column_name, {{schema}}.qualified_regclass(c.table_name), c.table_pk,
                           (SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                            WHERE a.attrelid = {{schema}}.qualified_regclass(c.table_name) AND a.attname = c.table_pk))
                INTO v_scope, v_num USING k;
        EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range OR datetime_field_overflow
                       OR invalid_datetime_format THEN
            CONTINUE;
        END;
        IF v_num IS NOT NULL THEN
            counter := c.name; scope := v_scope; number := v_num; row_id := k;
            RETURN NEXT;
            v_found := true;
        END IF;
    END LOOP;
    IF NOT v_found THEN
        IF NOT v_uuid AND k ~ '^[A-Za-z][A-Za-z0-9]*-' THEN
            RAISE EXCEPTION 'malformed key "%": expected PREFIX-NUMBER, such as %-42', k,
                upper(substring(k FROM '^([A-Za-z][A-Za-z0-9]*)-')) USING ERRCODE = 'PS011';
        END IF;
        RAISE EXCEPTION 'no entity has key or id "%"', k
            USING ERRCODE = 'PS012', HINT = 'Keys look like PREFIX-42.';
    END IF;
END;
$$;
