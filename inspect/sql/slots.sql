SELECT task_type, slot_group, capacity, used
FROM {{schema}}.concurrency_slots
ORDER BY task_type, slot_group
