SELECT id, type, payload, attempts
FROM {{schema}}.claim($1::text, $2::text, $3::integer)
