SELECT completed, id, type, payload, attempts, kind
FROM {{schema}}.complete_and_reserve($1::bigint[], $2::text, $3::bigint[], $4::integer, $5::integer)
