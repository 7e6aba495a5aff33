-- Creates slot groups or sets their capacity; `used` is kept. The groups
-- come as runs: groups first..last of one task type, each of one capacity.
INSERT INTO {{schema}}.concurrency_slots AS s (task_type, slot_group, capacity)
SELECT u.task_type, g.slot_group, u.capacity
FROM unnest($1::text[], $2::int[], $3::int[], $4::int[]) AS u(task_type, first, last, capacity),
     generate_series(u.first, u.last) AS g(slot_group)
ON CONFLICT (task_type, slot_group) DO UPDATE SET capacity = excluded.capacity
