-- Tasks follow their types' partition blocks (migration 019): a type that
-- lost its block releases its pending tasks from their keys; a partitioned
-- one admits what its keys' limits now allow.
SELECT {{schema}}.apply_partitions($1::text[])
