-- Per counter, the scopes it has numbered and the highest value issued,
-- read through counter_values' primary key (counter, scope), at most $1 rows
-- per counter: a counter with more scopes gets a lower bound for both.
SELECT c.name, c.table_name IS NOT NULL, coalesce(c.table_name, ''), coalesce(c.column_name, ''),
       c.idempotency_window IS NOT NULL, v.scopes, v.highest
FROM {{schema}}.counters c
CROSS JOIN LATERAL (
    SELECT count(*) AS scopes, max(x.value) AS highest
    FROM (SELECT cv.value FROM {{schema}}.counter_values cv WHERE cv.counter = c.name LIMIT $1::int) x
) v
ORDER BY c.name
