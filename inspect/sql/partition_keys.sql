-- Partition keys with work (a row in partition_slots, schema version 19),
-- per task type and units in use: one row per distinct use of a type's
-- keys, so a few rows per type however many keys it has (a key's use is at
-- most its per-key limit, or the limit before a lower one).
SELECT task_type, used, count(*)
FROM {{schema}}.partition_slots
GROUP BY task_type, used
ORDER BY task_type, used
