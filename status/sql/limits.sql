-- Per limited task type (or type still holding slot groups), its slot
-- groups: how many, their capacities and units in use, the free units, and
-- the groups over capacity (draining after a lowered limit: held by running
-- tasks beyond the new capacity). At most 50 rows per type.
--
-- $1: the queue, or NULL for all.
SELECT tt.name, tt.queue, coalesce(tt.concurrency, 0), tt.draining,
       count(s.slot_group)::int,
       coalesce(sum(s.capacity), 0)::bigint,
       coalesce(sum(s.used), 0)::bigint,
       coalesce(sum(s.capacity - s.used) FILTER (WHERE s.used < s.capacity), 0)::bigint,
       coalesce(array_agg(s.slot_group ORDER BY s.slot_group) FILTER (WHERE s.used > s.capacity), '{}'),
       coalesce(array_agg(s.capacity ORDER BY s.slot_group) FILTER (WHERE s.used > s.capacity), '{}'),
       coalesce(array_agg(s.used ORDER BY s.slot_group) FILTER (WHERE s.used > s.capacity), '{}')
FROM {{schema}}.task_types tt
LEFT JOIN {{schema}}.concurrency_slots s ON s.task_type = tt.name
WHERE ($1::text IS NULL OR tt.queue = $1::text)
GROUP BY tt.name, tt.queue, tt.concurrency, tt.draining
HAVING tt.concurrency IS NOT NULL OR count(s.slot_group) > 0
ORDER BY tt.name
