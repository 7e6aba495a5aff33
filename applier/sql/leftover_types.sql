-- The task types among $1 (those an apply creates) that have unfinished
-- tasks: left by an earlier apply that deleted a type of that name while
-- it had some (they claim as unlimited tasks until the type is back).
SELECT DISTINCT t.type FROM {{schema}}.tasks t
WHERE t.type = ANY($1::text[]) AND t.status IN ('pending', 'claimed', 'running')
