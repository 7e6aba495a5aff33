SELECT type, count(*)
FROM {{schema}}.tasks
WHERE status IN ('claimed', 'running')
GROUP BY type
