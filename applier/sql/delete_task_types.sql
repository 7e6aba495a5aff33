DELETE FROM {{schema}}.task_types WHERE name = ANY($1::text[])
