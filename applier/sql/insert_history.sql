INSERT INTO {{schema}}.applies (client, pgseq_version, plan_hash, state_fingerprint, summary, changes, state)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::jsonb, $6::text[], $7::jsonb)
RETURNING id
