-- Running tasks of types whose slot groups are dropped stop referring to
-- them: they finish normally and release nothing.
UPDATE {{schema}}.tasks
SET slot_group = NULL
WHERE type = ANY($1::text[]) AND status = 'running' AND slot_group IS NOT NULL
