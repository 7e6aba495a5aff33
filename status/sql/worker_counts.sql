-- The workers declared dead (those not declared dead are all listed by
-- workers.sql).
SELECT count(*) FROM {{schema}}.workers w WHERE w.dead_at IS NOT NULL
