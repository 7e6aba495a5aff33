-- Pending tasks follow their type: the claim lane (limited or not) and the
-- queue. Run for types whose limit appeared or disappeared, whose queue
-- changed, or that were deleted (their tasks become unlimited).
UPDATE {{schema}}.tasks t
SET limited = u.limited, queue = coalesce(u.queue, t.queue), updated_at = now()
FROM unnest($1::text[], $2::text[], $3::boolean[]) AS u(type, queue, limited)
WHERE t.type = u.type AND t.status = 'pending'
  AND (t.limited IS DISTINCT FROM u.limited OR (u.queue IS NOT NULL AND t.queue <> u.queue))
