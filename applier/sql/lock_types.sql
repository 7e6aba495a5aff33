-- Takes the advisory locks of the task types whose slot groups change,
-- exclusive: admissions and hand-offs of those types (which take them
-- shared) finish first and later ones wait, so no unit is admitted against a
-- capacity being changed. After the task rows, before the slot rows: the
-- runtime's locking order.
SELECT {{schema}}.lock_types($1::text[], true)
