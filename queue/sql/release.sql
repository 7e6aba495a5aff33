SELECT {{schema}}.release($1::bigint[], $2::text)
