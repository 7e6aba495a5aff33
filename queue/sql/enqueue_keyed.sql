SELECT {{schema}}.enqueue($1::text, $2::jsonb, $3::text, $4::integer, $5::timestamptz, $6::text)
