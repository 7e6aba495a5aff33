-- Sets each slot group's used to the units the seeded tasks hold of it
-- (one element of $1, $2 per unit; I2).
UPDATE {{schema}}.concurrency_slots s
SET used = x.n
FROM (SELECT u.t, u.g, count(*)::integer AS n
      FROM unnest($1::text[], $2::integer[]) AS u(t, g)
      GROUP BY u.t, u.g) x
WHERE s.task_type = x.t AND s.slot_group = x.g;
