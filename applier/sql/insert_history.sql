INSERT INTO {{schema}}.applies (client, pgseq_version, plan_hash, state_fingerprint, summary, changes, state)
VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
RETURNING id
