\timing on
-- pages but no rows in the statistics
BEGIN; SELECT count(*) FROM exp9.enqueue_batch(array_fill('plain'::text, ARRAY[20000])); ROLLBACK;
ANALYZE exp9.tasks;
SELECT relpages, reltuples FROM pg_class WHERE oid = 'exp9.tasks'::regclass;
SELECT exp9.register_worker('w1', 'h', 4);
SELECT 1;
SELECT count(*) FROM exp9.enqueue_batch(array_fill('plain'::text, ARRAY[20000]));
SELECT count(*) FROM exp9.claim('q', 'w1', 200);
SELECT count(*) FROM exp9.claim('q', 'w1', 200);
SELECT count(*) FROM exp9.complete(ARRAY(SELECT id FROM exp9.tasks WHERE status = 'running' LIMIT 200), 'w1');
SELECT count(*) FROM exp9.claim('q', 'w1', 200);
SELECT count(*) FROM exp9.claim('q', 'w1', 200);
