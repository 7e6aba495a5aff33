SELECT {{schema}}.complete($1::bigint[], $2::text)
