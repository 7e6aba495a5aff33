-- Groups outside the new layout: deleted when empty, else drained (capacity 0)
-- until the tasks holding them finish. Decided on `used` at apply time, under
-- the row locks taken by lock_slots.sql.
WITH r AS (
    SELECT * FROM unnest($1::text[], $2::int[]) AS u(task_type, slot_group)
), deleted AS (
    DELETE FROM {{schema}}.concurrency_slots s
    USING r
    WHERE s.task_type = r.task_type AND s.slot_group = r.slot_group AND s.used = 0
    RETURNING s.task_type
)
UPDATE {{schema}}.concurrency_slots s
SET capacity = 0
FROM r
WHERE s.task_type = r.task_type AND s.slot_group = r.slot_group AND s.used > 0
