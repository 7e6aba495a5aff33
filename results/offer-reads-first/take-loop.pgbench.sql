-- A worker's loop through pgbench: complete what the last transaction took
-- (complete_and_take, taking the successors), and claim when it took none.
-- Run with -D ids=0. A copy per schema, worker and batch:
--   sed 's/SCHEMA/hi37/g; s/WORKER/w:client_id/g; s/BATCH/120/g' take-loop.pgbench.sql > /tmp/exp/hi37t120.sql
-- (For the enabled-like schemas: WORKER w, BATCH 200, and the claim asks for
-- the rest of the batch, BATCH - (SELECT count(*) FROM done)::integer,
-- instead of claiming only when nothing was taken.)
WITH done AS (SELECT id FROM SCHEMA.complete_and_take('{:ids}'::bigint[], 'WORKER', BATCH) WHERE id IS NOT NULL) SELECT coalesce(array_to_string(array_agg(id), ','), '0') AS ids FROM (SELECT id FROM done UNION ALL SELECT id FROM SCHEMA.claim('q', 'WORKER', BATCH) WHERE NOT EXISTS (SELECT 1 FROM done)) x \gset
