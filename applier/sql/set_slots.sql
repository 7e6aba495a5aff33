-- Creates slot groups or sets their capacity; `used` is kept.
INSERT INTO {{schema}}.concurrency_slots AS s (task_type, slot_group, capacity)
SELECT * FROM unnest($1::text[], $2::int[], $3::int[]) AS u(task_type, slot_group, capacity)
ON CONFLICT (task_type, slot_group) DO UPDATE SET capacity = excluded.capacity
