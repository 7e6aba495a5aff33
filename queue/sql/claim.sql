SELECT id, type, payload, attempts, slot_group IS NOT NULL
FROM {{schema}}.claim($1::text, $2::text, $3::integer, $4::integer)
