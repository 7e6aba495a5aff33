-- The lock waits of the sessions $1 (pids): one row per session each one
-- waits for (pg_blocking_pids: those holding a conflicting lock, and those
-- queued ahead for one), with what is awaited — the table, from the lock
-- itself or, for a row, from the tuple lock the waiter holds — and what
-- each of them holds on it. No query text: it may hold a password.
SELECT me.pid::int,
       coalesce(format('%I.%I', n.nspname, c.relname), ''),
       w.locktype, w.mode,
       a.pid, coalesce(a.usename::text, ''), coalesce(a.application_name, ''),
       coalesce(host(a.client_addr), 'local'), coalesce(a.state, ''),
       extract(epoch FROM now() - coalesce(a.xact_start, a.backend_start))::float8,
       coalesce(held.modes, '{}')
FROM unnest($1::bigint[]) AS me(pid)
JOIN pg_locks w ON w.pid = me.pid AND NOT w.granted
CROSS JOIN LATERAL (
    SELECT coalesce(w.relation, (SELECT t.relation FROM pg_locks t
                                 WHERE t.pid = me.pid AND t.locktype = 'tuple' AND t.granted
                                 LIMIT 1)) AS relation
) rel
LEFT JOIN pg_class c ON c.oid = rel.relation
LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(pg_blocking_pids(me.pid::int)) AS blocker(pid)
JOIN pg_stat_activity a ON a.pid = blocker.pid
CROSS JOIN LATERAL (
    SELECT array_agg(DISTINCT h.mode ORDER BY h.mode) AS modes
    FROM pg_locks h
    WHERE h.pid = blocker.pid AND h.granted
      AND ((rel.relation IS NOT NULL AND h.locktype = 'relation' AND h.relation = rel.relation)
           OR (w.locktype = 'transactionid' AND h.locktype = 'transactionid' AND h.transactionid = w.transactionid)
           OR (w.locktype = 'advisory' AND h.locktype = 'advisory'
               AND h.classid = w.classid AND h.objid = w.objid AND h.objsubid = w.objsubid))
) held
ORDER BY me.pid, a.pid
