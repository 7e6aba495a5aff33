-- The newest apply and the managed state it recorded (NULL before version 7).
SELECT id, applied_at, state
FROM {{schema}}.applies
ORDER BY id DESC
LIMIT 1
