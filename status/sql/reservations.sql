-- Pending two-phase reservations per counter, and the oldest, read through
-- reservations_pending (created_at), at most $1 of them (the leader reaps
-- them once older than the counter's idempotency_window).
SELECT r.counter, count(*), min(r.created_at)
FROM (SELECT r.counter, r.created_at FROM {{schema}}.reservations r
      WHERE r.status = 'pending'
      ORDER BY r.created_at
      LIMIT $1::int) r
GROUP BY r.counter
ORDER BY r.counter
