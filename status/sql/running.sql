-- Running and reserved tasks per queue, type and worker, read through
-- tasks_held (worker_id; status claimed or running), at most $1 of them: as
-- many as the workers' pools hold (and one reserved successor beside each
-- running task of a binding type, migration 036), so in practice all of
-- them.
SELECT x.queue, x.type, coalesce(x.worker_id, ''),
       count(*) FILTER (WHERE x.status = 'running'),
       count(*) FILTER (WHERE x.status = 'claimed')
FROM (SELECT t.queue, t.type, t.worker_id, t.status FROM {{schema}}.tasks t
      WHERE t.status IN ('claimed', 'running')
      ORDER BY t.worker_id
      LIMIT $1::int) x
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
