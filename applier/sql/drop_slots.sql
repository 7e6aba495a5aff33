-- Removes the slot groups of types whose limit (or the type) is removed:
-- empty groups are deleted, groups still held are set to capacity 0 and
-- drain like those of a lowered limit: each holder gives its unit back to
-- its own group when it ends, and the leader's maintenance deletes the
-- group once empty. A limit declared again before then finds the groups and
-- their `used`, so the tasks still holding units count against it.
-- Decided on `used` under the row locks taken by lock_slots.sql.
WITH deleted AS (
    DELETE FROM {{schema}}.concurrency_slots s
    WHERE s.task_type = ANY($1::text[]) AND s.used = 0
    RETURNING s.task_type
)
UPDATE {{schema}}.concurrency_slots s
SET capacity = 0
WHERE s.task_type = ANY($1::text[]) AND s.used > 0
