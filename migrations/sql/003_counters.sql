-- pgseq schema, version 3: gapless counters, keys and two-phase allocation.
-- {{schema}} is replaced by the quoted schema name.
--
-- Error codes: PS010 unknown key prefix, PS011 malformed key, PS012 no
-- entity for key, PS020 counter values are protected, PS021 unknown counter,
-- PS022 wrong kind of counter for the call, PS023 two-phase allocation not
-- enabled, PS024 idempotency key used for another scope, PS025 unknown reservation, PS026 reservation committed for
-- another entity, PS027 reservation expired.
--
-- Locking order: a reservation row before counter rows; counter rows in the
-- order the caller takes them. A single next_values() call locks its scopes
-- in ascending order, so it never deadlocks with another; transactions that
-- take several scopes in separate calls should take them in ascending order
-- (or retry on deadlock, SQLSTATE 40P01, as the Go client does).

CREATE TABLE {{schema}}.counters (
    name               text PRIMARY KEY,
    -- Attached counters: the numbered table (schema-qualified) and column.
    table_name         text,
    column_name        text,
    scope              text[] NOT NULL DEFAULT '{}',
    -- The attached table's single-column primary key, for the resolver.
    table_pk           text,
    prefix             text,
    prefix_table       text,
    prefix_column      text,
    prefix_table_pk    text,
    start              bigint NOT NULL CHECK (start >= 1),
    lock_timeout       interval NOT NULL,
    strategy           text CHECK (strategy IN ('counter_table', 'advisory_lock')),
    idempotency_window interval,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((table_name IS NULL) = (column_name IS NULL))
);
COMMENT ON TABLE {{schema}}.counters IS 'Gapless counters, managed by pgseq apply.';

-- The last value issued per counter and scope. The scope of an attached
-- counter is its scope column's value as text (a JSON array for several
-- columns); a standalone counter's scope is whatever next_value was given.
CREATE TABLE {{schema}}.counter_values (
    counter text   NOT NULL REFERENCES {{schema}}.counters (name),
    scope   text   NOT NULL,
    value   bigint NOT NULL,
    PRIMARY KEY (counter, scope)
) WITH (fillfactor = 50);
COMMENT ON TABLE {{schema}}.counter_values IS 'Last value issued per counter and scope; cannot be lowered or deleted except by pgseq apply.';

-- pgseq apply marks its transaction (SET LOCAL pgseq.applying = on); only
-- then may counter values be lowered or deleted.
CREATE FUNCTION {{schema}}.counter_values_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('pgseq.applying', true) = 'on' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'counter values cannot be truncated'
            USING ERRCODE = 'PS020', HINT = 'Counters are changed through pgseq apply.';
    ELSIF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'counter values cannot be deleted (counter "%", scope "%")', OLD.counter, OLD.scope
            USING ERRCODE = 'PS020', HINT = 'Remove the counter block and run pgseq apply --allow-destroy.';
    END IF;
    RAISE EXCEPTION 'counter values cannot be lowered or moved (counter "%", scope "%": % to %)',
        OLD.counter, OLD.scope, OLD.value, NEW.value
        USING ERRCODE = 'PS020', HINT = 'Numbers already issued must never be issued again.';
END;
$$;
-- The WHEN clause keeps the increment path free of any function call.
CREATE TRIGGER counter_values_no_lowering
    BEFORE UPDATE ON {{schema}}.counter_values FOR EACH ROW
    WHEN (NEW.value < OLD.value OR NEW.counter IS DISTINCT FROM OLD.counter OR NEW.scope IS DISTINCT FROM OLD.scope)
    EXECUTE FUNCTION {{schema}}.counter_values_guard();
CREATE TRIGGER counter_values_no_delete
    BEFORE DELETE ON {{schema}}.counter_values FOR EACH ROW
    EXECUTE FUNCTION {{schema}}.counter_values_guard();
CREATE TRIGGER counter_values_no_truncate
    BEFORE TRUNCATE ON {{schema}}.counter_values FOR EACH STATEMENT
    EXECUTE FUNCTION {{schema}}.counter_values_guard();

CREATE TABLE {{schema}}.reservations (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter         text NOT NULL REFERENCES {{schema}}.counters (name),
    scope           text NOT NULL DEFAULT '',
    idempotency_key text NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'committed', 'failed')),
    -- Assigned only by commit_reservation, in the transaction that records
    -- the entity: a reservation that never commits burns no number.
    number          bigint,
    entity_id       text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    settled_at      timestamptz,
    UNIQUE (counter, idempotency_key)
);
CREATE INDEX reservations_pending ON {{schema}}.reservations (created_at) WHERE status = 'pending';

-- qualified_regclass resolves a stored "schema.table" name exactly as
-- written (each part quoted), as pgseq's generated DDL does.
CREATE FUNCTION {{schema}}.qualified_regclass(t text) RETURNS regclass
LANGUAGE sql STABLE AS $$
    SELECT to_regclass(format('%I.%I', split_part(t, '.', 1), split_part(t, '.', 2)));
$$;

-- counter_row returns a counter's settings or raises PS021.
CREATE FUNCTION {{schema}}.counter_row(name text) RETURNS {{schema}}.counters
LANGUAGE plpgsql STABLE AS $$
DECLARE
    c {{schema}}.counters;
BEGIN
    SELECT * INTO c FROM {{schema}}.counters k WHERE k.name = counter_row.name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown counter "%"', counter_row.name
            USING ERRCODE = 'PS021', HINT = 'Declare it in a counter block and run pgseq apply.';
    END IF;
    RETURN c;
END;
$$;

-- take_value issues the next value of a standalone counter's scope: the row
-- is locked until the caller's transaction ends, and a rollback gives the
-- number back. Waits at most the counter's lock_timeout (SQLSTATE 55P03).
CREATE FUNCTION {{schema}}.take_value(c {{schema}}.counters, scope text) RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v       bigint;
    prev_lt text := current_setting('lock_timeout');
BEGIN
    PERFORM set_config('lock_timeout', (extract(epoch FROM c.lock_timeout) * 1000)::bigint || 'ms', true);
    -- Waiters queue first-come first-served on an advisory lock per scope
    -- rather than on the counter row, whose every update would wake them all.
    PERFORM pg_advisory_xact_lock(hashtext('pgseq counter ' || c.name), hashtext(coalesce(take_value.scope, '')));
    INSERT INTO {{schema}}.counter_values AS cv (counter, scope, value)
    VALUES (c.name, coalesce(take_value.scope, ''), c.start)
    ON CONFLICT (counter, scope) DO UPDATE SET value = cv.value + 1
    RETURNING cv.value INTO v;
    PERFORM set_config('lock_timeout', prev_lt, true);
    RETURN v;
END;
$$;

-- check_scope refuses a scope for a counter with a constant prefix: its keys
-- (INV-42) name one numbering, so a second scope would make them ambiguous.
CREATE FUNCTION {{schema}}.check_scope(c {{schema}}.counters, scope text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF c.prefix IS NOT NULL AND coalesce(scope, '') <> '' THEN
        RAISE EXCEPTION 'counter "%" has the constant prefix % and a single numbering: it takes no scope (got "%")',
            c.name, c.prefix, scope
            USING ERRCODE = 'PS022', HINT = 'Call it with the empty scope, or declare a counter without a prefix.';
    END IF;
END;
$$;

-- next_value issues the next number of a standalone counter in the caller's
-- transaction: gapless (a rollback returns the number) and never issued
-- twice.
CREATE FUNCTION {{schema}}.next_value(name text, scope text DEFAULT '') RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    c {{schema}}.counters := {{schema}}.counter_row(next_value.name);
BEGIN
    IF c.table_name IS NOT NULL THEN
        RAISE EXCEPTION 'counter "%" is attached to %: its values are assigned when rows are inserted', c.name, c.table_name
            USING ERRCODE = 'PS022';
    END IF;
    PERFORM {{schema}}.check_scope(c, next_value.scope);
    RETURN {{schema}}.take_value(c, next_value.scope);
END;
$$;

-- next_values issues one number per scope, locking the scopes in ascending
-- lock-key order so that two such calls never deadlock. Values come back in the order
-- of the scopes given.
CREATE FUNCTION {{schema}}.next_values(name text, scopes text[]) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
DECLARE
    c    {{schema}}.counters := {{schema}}.counter_row(next_values.name);
    s    text;
    vals jsonb := '{}';
BEGIN
    IF c.table_name IS NOT NULL THEN
        RAISE EXCEPTION 'counter "%" is attached to %: its values are assigned when rows are inserted', c.name, c.table_name
            USING ERRCODE = 'PS022';
    END IF;
    -- Ascending lock-key order (the advisory key, then the text for keys
    -- that collide), so any two calls take their locks in the same order.
    FOR s IN SELECT d.u FROM (SELECT DISTINCT u FROM unnest(scopes) AS u) d
             ORDER BY hashtext(coalesce(d.u, '')), d.u LOOP
        PERFORM {{schema}}.check_scope(c, s);
        vals := vals || jsonb_build_object(s, {{schema}}.take_value(c, s));
    END LOOP;
    -- A scope named twice gets two numbers, in order.
    FOR s IN SELECT u FROM unnest(scopes) WITH ORDINALITY AS x(u, o) ORDER BY o LOOP
        IF vals ? s THEN
            RETURN NEXT (vals ->> s)::bigint;
            vals := vals - s;
        ELSE
            RETURN NEXT {{schema}}.take_value(c, s);
        END IF;
    END LOOP;
END;
$$;

-- reserve records an idempotent reservation (phase one): the same key
-- returns the same reservation. No number is assigned yet.
CREATE FUNCTION {{schema}}.reserve(counter text, scope text, idempotency_key text) RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    c       {{schema}}.counters := {{schema}}.counter_row(reserve.counter);
    v_id    bigint;
    v_scope text;
BEGIN
    IF c.idempotency_window IS NULL THEN
        RAISE EXCEPTION 'counter "%" has no idempotency_window: two-phase allocation is not enabled', c.name
            USING ERRCODE = 'PS023', HINT = 'Set idempotency_window in its counter block and run pgseq apply.';
    END IF;
    PERFORM {{schema}}.check_scope(c, reserve.scope);
    IF reserve.idempotency_key IS NULL OR reserve.idempotency_key = '' THEN
        RAISE EXCEPTION 'reserve: an idempotency key is required' USING ERRCODE = '22023';
    END IF;
    LOOP
        INSERT INTO {{schema}}.reservations AS r (counter, scope, idempotency_key)
        VALUES (c.name, coalesce(reserve.scope, ''), reserve.idempotency_key)
        ON CONFLICT (counter, idempotency_key) DO NOTHING
        RETURNING r.id INTO v_id;
        IF v_id IS NOT NULL THEN
            RETURN v_id;
        END IF;
        SELECT r.id, r.scope INTO v_id, v_scope FROM {{schema}}.reservations r
        WHERE r.counter = c.name AND r.idempotency_key = reserve.idempotency_key;
        IF v_id IS NOT NULL THEN
            IF v_scope <> coalesce(reserve.scope, '') THEN
                RAISE EXCEPTION 'idempotency key "%" of counter "%" was reserved for scope "%", not "%"',
                    reserve.idempotency_key, c.name, v_scope, coalesce(reserve.scope, '')
                    USING ERRCODE = 'PS024', HINT = 'Use one idempotency key per request.';
            END IF;
            RETURN v_id;
        END IF;
    END LOOP;
END;
$$;

-- commit_reservation assigns the number (phase two), inside the caller's
-- transaction that records the entity. Calling it again for the same entity
-- returns the same number.
CREATE FUNCTION {{schema}}.commit_reservation(reservation_id bigint, entity_id text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    r {{schema}}.reservations;
    v bigint;
BEGIN
    SELECT * INTO r FROM {{schema}}.reservations x WHERE x.id = commit_reservation.reservation_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no reservation %', commit_reservation.reservation_id USING ERRCODE = 'PS025';
    END IF;
    IF r.status = 'committed' THEN
        IF r.entity_id IS DISTINCT FROM commit_reservation.entity_id THEN
            RAISE EXCEPTION 'reservation % was committed for entity "%", not "%"', r.id, r.entity_id, commit_reservation.entity_id
                USING ERRCODE = 'PS026';
        END IF;
        RETURN r.number;
    ELSIF r.status = 'failed' THEN
        RAISE EXCEPTION 'reservation % expired: it stayed pending longer than the counter''s idempotency_window', r.id
            USING ERRCODE = 'PS027', HINT = 'Reserve again with a new idempotency key.';
    END IF;
    v := {{schema}}.take_value({{schema}}.counter_row(r.counter), r.scope);
    UPDATE {{schema}}.reservations x
    SET status = 'committed', number = v, entity_id = commit_reservation.entity_id, settled_at = now()
    WHERE x.id = r.id;
    RETURN v;
END;
$$;

-- reap_reservations fails pending reservations older than their counter's
-- idempotency_window. They burn no number. Reservations being committed
-- right now are skipped.
CREATE FUNCTION {{schema}}.reap_reservations() RETURNS integer
LANGUAGE sql AS $$
    WITH stale AS (
        SELECT r.id FROM {{schema}}.reservations r
        JOIN {{schema}}.counters c ON c.name = r.counter
        WHERE r.status = 'pending' AND r.created_at < now() - c.idempotency_window
        ORDER BY r.id
        FOR UPDATE OF r SKIP LOCKED
    ), failed AS (
        UPDATE {{schema}}.reservations r SET status = 'failed', settled_at = now()
        FROM stale WHERE r.id = stale.id
        RETURNING 1
    )
    SELECT count(*)::integer FROM failed;
$$;

-- resolve_key turns a human key into what it names. Accepts PREFIX-N
-- (prefix case-insensitive, surrounding whitespace ignored, leading zeros
-- allowed) or a primary key of a table with an attached counter. Returns
-- the counter, the scope, the number and, for attached counters, the row's
-- primary key as text.
CREATE FUNCTION {{schema}}.resolve_key(key text)
RETURNS TABLE (counter text, scope text, number bigint, row_id text)
LANGUAGE plpgsql STABLE AS $$
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

        -- Counters whose scopes take their prefix from a column.
        FOR c IN SELECT * FROM {{schema}}.counters x WHERE x.prefix_table IS NOT NULL ORDER BY x.name LOOP
            EXECUTE format('SELECT %I::text FROM %s WHERE upper(%I::text) = $1 LIMIT 1',
                           c.prefix_table_pk, {{schema}}.qualified_regclass(c.prefix_table), c.prefix_column)
                INTO v_scope USING v_prefix;
            IF v_scope IS NULL THEN
                CONTINUE;
            END IF;
            v_known := true;
            EXECUTE format('SELECT %I::text FROM %s WHERE %I::text = $1 AND %I = $2 LIMIT 1',
                           c.table_pk, {{schema}}.qualified_regclass(c.table_name), c.scope[1], c.column_name)
                INTO v_row USING v_scope, v_num;
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

-- The leader's maintenance also reaps stale reservations.
CREATE OR REPLACE FUNCTION {{schema}}.maintenance_extras() RETURNS jsonb
LANGUAGE sql AS $$
    SELECT jsonb_build_object('reservations_reaped', {{schema}}.reap_reservations());
$$;
