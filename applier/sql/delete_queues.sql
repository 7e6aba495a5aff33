-- Deletes queues and every task on them (only with --allow-destroy when any
-- is unfinished).
WITH gone AS (
    DELETE FROM {{schema}}.tasks WHERE queue = ANY($1::text[])
)
DELETE FROM {{schema}}.queues WHERE name = ANY($1::text[])
