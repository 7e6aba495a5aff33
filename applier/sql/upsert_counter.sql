INSERT INTO {{schema}}.counters AS c (
    name, table_name, column_name, scope, table_pk, prefix, prefix_table, prefix_column,
    prefix_table_pk, start, lock_timeout, strategy, idempotency_window)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 * interval '1 microsecond', $12,
        $13 * interval '1 microsecond')
ON CONFLICT (name) DO UPDATE SET
    table_name         = excluded.table_name,
    column_name        = excluded.column_name,
    scope              = excluded.scope,
    table_pk           = excluded.table_pk,
    prefix             = excluded.prefix,
    prefix_table       = excluded.prefix_table,
    prefix_column      = excluded.prefix_column,
    prefix_table_pk    = excluded.prefix_table_pk,
    start              = excluded.start,
    lock_timeout       = excluded.lock_timeout,
    strategy           = excluded.strategy,
    idempotency_window = excluded.idempotency_window,
    updated_at         = now()
