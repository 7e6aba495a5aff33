-- The slot groups, one row per task type: its groups' numbers, capacities
-- and use (100,000 rows for 100,000 limited types, not their 5,000,000
-- groups: readSlots makes runs of them as it reads). The arrays follow the
-- subquery's order, group order, as PostgreSQL aggregates a sorted input;
-- an ORDER BY inside array_agg would sort each type's groups again
-- (PostgreSQL 15: 2.6 s instead of 0.6 s at 100,000 types). readSlots
-- sorts a type's arrays itself should they ever come out of order.
SELECT s.task_type, array_agg(s.slot_group), array_agg(s.capacity), array_agg(s.used)
FROM (
    SELECT task_type, slot_group, capacity, used
    FROM {{schema}}.concurrency_slots
    ORDER BY task_type, slot_group
) s
GROUP BY s.task_type
ORDER BY s.task_type
