-- Locks the slot rows of the task types whose groups change, in key order.
-- In-flight claims finish first; later claims skip these rows (SKIP LOCKED)
-- and releases wait, so `used` is stable while the layout changes.
SELECT 1 FROM {{schema}}.concurrency_slots
WHERE task_type = ANY($1::text[])
ORDER BY task_type, slot_group
FOR UPDATE
