SELECT name
FROM {{schema}}.task_types
WHERE queue = $1
ORDER BY name
