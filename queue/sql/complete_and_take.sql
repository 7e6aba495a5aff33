SELECT completed, id, type, payload, attempts
FROM {{schema}}.complete_and_take($1::bigint[], $2::text, $3::integer)
