SELECT count(*) FROM {{schema}}.tasks
WHERE queue = ANY($1::text[]) AND status IN ('pending', 'running')
