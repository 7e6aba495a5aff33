-- pgseq schema, version 15: a worker that stops leaves cleanly.
-- {{schema}} is replaced by the quoted schema name.
--
-- A worker had no way to say it stopped: its row stayed, `pgseq status`
-- showed it dead once its heartbeat was older than worker_timeout, and the
-- recovery later "recovered" nothing. unregister_worker is the last call of
-- a worker that stops (the Go worker's shutdown, or a worker in another
-- language following the README):
--   1. the tasks it still runs go back to pending, exactly as release puts
--      them back (their units pass on; the attempt is not counted);
--   2. it gives up the leader lease, if it holds it;
--   3. its row is deleted.
-- Each step keeps what its function keeps: release's fence (only this
-- worker's running tasks, locked) and locking order, resign_leader's
-- "only the holder resigns". To the runtime the worker is then unknown:
-- its heartbeat answers false (as for a worker declared dead), and
-- complete_and_take hands it nothing.

CREATE OR REPLACE FUNCTION {{schema}}.unregister_worker(worker_id text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_running bigint[];
    v_back    integer;
BEGIN
    -- 1. Its running tasks go back (read by tasks_held: what it holds).
    SELECT array_agg(t.id) INTO v_running
    FROM {{schema}}.tasks t
    WHERE t.worker_id = unregister_worker.worker_id AND t.status = 'running';
    v_back := CASE WHEN v_running IS NULL THEN 0
                   ELSE {{schema}}.release(v_running, unregister_worker.worker_id) END;
    -- 2. The leader lease, if it holds it.
    PERFORM {{schema}}.resign_leader(unregister_worker.worker_id);
    -- 3. Its row.
    DELETE FROM {{schema}}.workers w WHERE w.id = unregister_worker.worker_id;
    RETURN v_back;
END;
$$;

REVOKE ALL ON FUNCTION {{schema}}.unregister_worker(text) FROM PUBLIC;
