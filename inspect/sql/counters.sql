SELECT name, coalesce(table_name, ''), coalesce(column_name, ''), scope, coalesce(prefix, ''),
       prefix_table, prefix_column, start,
       (extract(epoch FROM lock_timeout) * 1000000)::bigint,
       coalesce(strategy, ''),
       coalesce((extract(epoch FROM idempotency_window) * 1000000)::bigint, 0)
FROM {{schema}}.counters
ORDER BY name
