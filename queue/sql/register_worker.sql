SELECT {{schema}}.register_worker($1::text, $2::text, $3::integer, $4::text)
