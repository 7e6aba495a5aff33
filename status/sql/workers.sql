-- Every worker not declared dead, and the $1 declared dead most recently
-- (the leader forgets dead workers after a day), with the age of their last
-- heartbeat by the snapshot's clock. The workers table holds one row per
-- worker process, so it is read whole.
(SELECT w.id, w.hostname, w.pool_size, coalesce(w.version, ''), w.started_at, w.last_heartbeat,
        extract(epoch FROM now() - w.last_heartbeat)::float8, w.dead_at
 FROM {{schema}}.workers w
 WHERE w.dead_at IS NULL)
UNION ALL
(SELECT w.id, w.hostname, w.pool_size, coalesce(w.version, ''), w.started_at, w.last_heartbeat,
        extract(epoch FROM now() - w.last_heartbeat)::float8, w.dead_at
 FROM {{schema}}.workers w
 WHERE w.dead_at IS NOT NULL
 ORDER BY w.dead_at DESC, w.id
 LIMIT $1::int)
