-- Deletes every slot group of types whose limit (or the type) is removed.
DELETE FROM {{schema}}.concurrency_slots WHERE task_type = ANY($1::text[])
