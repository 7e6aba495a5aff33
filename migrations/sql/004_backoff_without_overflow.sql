-- pgseq schema, version 4: a retry delay that cannot overflow.
--
-- Version 2 computed initial·factor^(attempt-1) as an interval before
-- capping it at max: at attempt 45 with factor 2 (or at the second failure
-- with a huge factor) the product overflowed, fail() raised "interval out of
-- range", and the task stayed running with its slot while its worker lived.
-- Now the exponent is compared with the cap in logarithms first, so the
-- power is only computed when it stays below max.

-- backoff_delay is the delay before retry number attempt (1-based) for a
-- queue: initial·factor^(attempt-1), capped at max, ± jitter. Defined for
-- every attempt and factor.
CREATE OR REPLACE FUNCTION {{schema}}.backoff_delay(q {{schema}}.queues, attempt integer) RETURNS interval
LANGUAGE sql VOLATILE AS $$
    SELECT make_interval(secs => capped.secs * (1 + q.backoff_jitter * (2 * random() - 1)))
    FROM (
        SELECT CASE
                   WHEN s.initial <= 0 OR s.max <= 0 THEN 0
                   WHEN s.max <= s.initial THEN s.max
                   WHEN attempt <= 1 OR q.backoff_factor <= 1 THEN s.initial
                   -- initial·factor^n ≥ max  ⇔  n·ln(factor) ≥ ln(max/initial)
                   WHEN (attempt - 1) * ln(q.backoff_factor) >= ln(s.max / s.initial) THEN s.max
                   ELSE s.initial * exp((attempt - 1) * ln(q.backoff_factor))
               END AS secs
        FROM (SELECT extract(epoch FROM q.backoff_initial)::double precision AS initial,
                     extract(epoch FROM q.backoff_max)::double precision AS max) s
    ) capped;
$$;
