-- The leader lease row: who holds or last held it, until when, and whether
-- the lease is live by the snapshot's clock. A lease given up (resign_leader)
-- or never taken ends at -infinity, read as NULL.
SELECT l.worker_id,
       CASE WHEN isfinite(l.lease_until) THEN l.lease_until END,
       l.lease_until >= now(),
       CASE WHEN isfinite(l.lease_until) THEN extract(epoch FROM l.lease_until - now())::float8 END,
       l.elected_at
FROM {{schema}}.leader l
WHERE l.singleton
