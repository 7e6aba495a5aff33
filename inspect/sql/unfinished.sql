-- Unfinished tasks of the given queues (only queues a plan may delete are
-- counted, so a plan stays cheap with millions of pending tasks).
SELECT q.name, (SELECT count(*) FROM {{schema}}.tasks t
                WHERE t.queue = q.name AND t.status IN ('pending', 'running'))
FROM unnest($1::text[]) AS q(name)
