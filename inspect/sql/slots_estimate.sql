-- The planner's estimate of the number of slot groups (pg_class.reltuples:
-- -1 before the table was first analyzed), to size the list read by
-- slots.sql once rather than growing it 20 times.
SELECT greatest(c.reltuples, 0)::bigint
FROM pg_catalog.pg_class c
WHERE c.oid = '{{schema}}.concurrency_slots'::regclass
