SELECT type, count(*)
FROM {{schema}}.tasks
WHERE status = 'running'
GROUP BY type
