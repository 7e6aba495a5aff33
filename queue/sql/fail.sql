SELECT {{schema}}.fail($1::bigint, $2::text, $3::text, $4::boolean)::text
