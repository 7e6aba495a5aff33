SELECT e.id
FROM {{schema}}.enqueue_batch($1::text[], $2::jsonb[], $3::text[], $4::integer[], $5::timestamptz[], $6::text[])
     WITH ORDINALITY AS e (id, n)
ORDER BY e.n
