-- psql -v a=SCHEMA -v b=SCHEMA -v ma=take|complete -v mb=... -v n=N -f paired3.sql
SET client_min_messages = warning;
DELETE FROM :a.tasks; DELETE FROM :b.tasks;
UPDATE :a.concurrency_slots SET used = 0; UPDATE :b.concurrency_slots SET used = 0;
SELECT format('DELETE FROM %I.unit_leases', x) FROM unnest(ARRAY[:'a', :'b']) x WHERE to_regclass(x || '.unit_leases') IS NOT NULL \gexec
SELECT :a.register_worker('w1','h',4), :b.register_worker('w1','h',4);
SELECT count(*) FROM (SELECT :a.enqueue_batch(array_agg('noop.' || lpad(((i % 1000))::text, 4, '0') ORDER BY i)) FROM generate_series(1, :n) i GROUP BY i / 10000) x;
SELECT count(*) FROM (SELECT :b.enqueue_batch(array_agg('noop.' || lpad(((i % 1000))::text, 4, '0') ORDER BY i)) FROM generate_series(1, :n) i GROUP BY i / 10000) x;
VACUUM ANALYZE :a.tasks; VACUUM ANALYZE :b.tasks; VACUUM :a.concurrency_slots; VACUUM :b.concurrency_slots;
CHECKPOINT;
CREATE OR REPLACE PROCEDURE pg_temp.step(s text, mode text, INOUT ids bigint[], INOUT t float8, INOUT done int)
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; c int; nxt bigint[];
BEGIN
  t0 := clock_timestamp();
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    IF mode = 'lease' THEN
      EXECUTE format('SELECT array_agg(id) FROM %I.claim_leased(''bench'', ''w1'', 200)', s) INTO ids;
    ELSE
      EXECUTE format('SELECT array_agg(id) FROM %I.claim(''bench'', ''w1'', 200)', s) INTO ids;
    END IF;
    IF ids IS NULL THEN t := t + extract(epoch FROM clock_timestamp() - t0) * 1000; RETURN; END IF;
  END IF;
  IF mode = 'take' THEN
    EXECUTE format('SELECT max(completed), array_agg(id) FILTER (WHERE id IS NOT NULL) FROM %I.complete_and_take($1, ''w1'', 200)', s) INTO c, nxt USING ids;
  ELSE
    EXECUTE format('SELECT %I.complete($1, ''w1'')', s) INTO c USING ids;
  END IF;
  t := t + extract(epoch FROM clock_timestamp() - t0) * 1000;
  done := done + c;
  ids := nxt;
END $$;
CREATE OR REPLACE PROCEDURE pg_temp.pair(a text, b text, ma text, mb text, n int)
LANGUAGE plpgsql AS $$
DECLARE ia bigint[]; ib bigint[]; ta float8 := 0; tb float8 := 0; da int := 0; db int := 0; i int := 0;
BEGIN
  WHILE da < n OR db < n LOOP
    i := i + 1;
    IF i % 2 = 0 THEN
      CALL pg_temp.step(a, ma, ia, ta, da); COMMIT;
      CALL pg_temp.step(b, mb, ib, tb, db); COMMIT;
    ELSE
      CALL pg_temp.step(b, mb, ib, tb, db); COMMIT;
      CALL pg_temp.step(a, ma, ia, ta, da); COMMIT;
    END IF;
    EXIT WHEN i > 10 * n / 200;
  END LOOP;
  RAISE WARNING 'RESULT % % ms/200: % | % % ms/200: % | ratio %', a, da, round((ta * 200 / greatest(da,1))::numeric, 3), b, db, round((tb * 200 / greatest(db,1))::numeric, 3), round(((tb/greatest(db,1))/(ta/greatest(da,1)))::numeric, 3);
END $$;
CALL pg_temp.pair(:'a', :'b', :'ma', :'mb', :n);

