INSERT INTO {{schema}}.applies (client, pgseq_version, plan_hash, state_fingerprint, summary, changes)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING id
