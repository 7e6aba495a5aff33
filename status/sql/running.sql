-- Claimed and running tasks per queue, type and worker, read through
-- tasks_held (worker_id), at most $1 of them: as many as the workers' pools
-- hold, so in practice all of them.
SELECT x.queue, x.type, coalesce(x.worker_id, ''), count(*)
FROM (SELECT t.queue, t.type, t.worker_id FROM {{schema}}.tasks t
      WHERE t.status = 'running'
      ORDER BY t.worker_id
      LIMIT $1::int) x
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
