-- Who holds the apply lock: the sessions granted the advisory lock key $1.
SELECT a.pid, coalesce(a.usename, ''), coalesce(a.application_name, ''),
       coalesce(host(a.client_addr), 'local'), coalesce(a.xact_start, a.backend_start),
       extract(epoch FROM now() - coalesce(a.xact_start, a.backend_start))::float8
FROM pg_locks l
JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND ((l.classid::bigint << 32) | l.objid::bigint) = $1
