-- The invariants of the slot accounting, as migration 005 numbers them,
-- checked in one statement (so in one snapshot): one row per violation,
-- (invariant, task_type, task_ids, detail). {{schema}} is the quoted schema
-- name; $1 (boolean) says whether the schema is at rest, no runtime call in
-- flight: I5 holds only then (a unit freed and a task committed waiting at
-- the same moment coexist until the next hand-off or maintenance).
--
-- A task holds a unit of its type's slot group slot_group while it is
-- pending (admitted: gate open) or running.
WITH holders AS (
    SELECT t.type, t.slot_group, count(*)::int AS n,
           count(*) FILTER (WHERE t.status = 'running')::int AS running,
           (array_agg(t.id ORDER BY t.id))[1:5] AS ids
    FROM {{schema}}.tasks t
    WHERE t.slot_group IS NOT NULL AND t.status IN ('pending', 'running')
    GROUP BY 1, 2
), groups AS (
    SELECT coalesce(s.task_type, h.type) AS type, coalesce(s.slot_group, h.slot_group) AS slot_group,
           s.capacity, s.used, coalesce(h.n, 0) AS holders, coalesce(h.running, 0) AS running,
           coalesce(h.ids, '{}') AS ids, coalesce(tt.draining, false) AS draining
    FROM {{schema}}.concurrency_slots s
    FULL JOIN holders h ON h.type = s.task_type AND h.slot_group = s.slot_group
    LEFT JOIN {{schema}}.task_types tt ON tt.name = coalesce(s.task_type, h.type)
), types AS (
    SELECT tt.name, tt.concurrency, tt.draining,
           (SELECT count(*) FROM {{schema}}.tasks t WHERE t.type = tt.name AND t.status = 'running')::int AS running,
           (SELECT coalesce(sum(s.capacity), 0) FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name)::int AS capacity,
           (SELECT coalesce(sum(greatest(s.capacity - s.used, 0)), 0) FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name)::int AS free,
           (SELECT coalesce(string_agg(s.slot_group || ':' || s.used || '/' || s.capacity, ' ' ORDER BY s.slot_group), 'none')
            FROM {{schema}}.concurrency_slots s WHERE s.task_type = tt.name) AS layout
    FROM {{schema}}.task_types tt
)
-- I1: running ≤ tasks holding a unit ≤ Σ capacity = limit (a lowered
-- limit: until the over-capacity groups have drained).
SELECT 'I1 running <= limit' AS invariant, ty.name AS task_type, '{}'::bigint[] AS task_ids,
       format('%s runs %s tasks, limit %s, not draining (groups used/capacity %s)', ty.name, ty.running, ty.concurrency, ty.layout) AS detail
FROM types ty
WHERE ty.concurrency IS NOT NULL AND NOT ty.draining AND ty.running > ty.concurrency
UNION ALL
SELECT 'I1 capacities sum to the limit', ty.name, '{}',
       format('%s capacities sum to %s, limit %s (groups used/capacity %s)', ty.name, ty.capacity, ty.concurrency, ty.layout)
FROM types ty
WHERE ty.concurrency IS NOT NULL AND ty.capacity <> ty.concurrency
UNION ALL
SELECT 'I1 holders <= capacity', g.type, g.ids,
       format('%s group %s has %s holders (%s running; first holders %s), capacity %s, type not draining',
              g.type, g.slot_group, g.holders, g.running, g.ids, g.capacity)
FROM groups g
WHERE g.capacity IS NOT NULL AND NOT g.draining AND g.holders > g.capacity
UNION ALL
-- I2: used(group) = tasks holding a unit of it; no running or open task of
-- a limited type is without a unit.
SELECT 'I2 used = holders', g.type, g.ids,
       format('%s group %s used %s, holders %s (%s running; first holders %s; capacity %s, draining %s)',
              g.type, g.slot_group, g.used, g.holders, g.running, g.ids, g.capacity, g.draining)
FROM groups g
WHERE g.capacity IS NOT NULL AND g.used <> g.holders
UNION ALL
SELECT 'I2 used = holders', g.type, g.ids,
       format('%s group %s does not exist, yet tasks %s hold it (%s holders, %s running)',
              g.type, g.slot_group, g.ids, g.holders, g.running)
FROM groups g
WHERE g.capacity IS NULL
UNION ALL
SELECT 'I2 a pending task holding a unit is open', t.type, array_agg(t.id ORDER BY t.id),
       format('%s tasks %s hold a unit, pending with gate %s', t.type, (array_agg(t.id ORDER BY t.id))[1:5], t.gate)
FROM {{schema}}.tasks t
WHERE t.status = 'pending' AND t.slot_group IS NOT NULL AND t.gate <> 'open'
GROUP BY t.type, t.gate
UNION ALL
SELECT 'I2 a limited task running or open holds a unit', t.type, array_agg(t.id ORDER BY t.id),
       format('%s tasks %s (id:status) hold no unit (groups used/capacity %s)', t.type,
              (array_agg(t.id || ':' || t.status ORDER BY t.id))[1:5], ty.layout)
FROM {{schema}}.tasks t
JOIN types ty ON ty.name = t.type AND ty.concurrency IS NOT NULL
WHERE t.slot_group IS NULL AND (t.status = 'running' OR (t.status = 'pending' AND t.gate = 'open'))
GROUP BY t.type, ty.layout
UNION ALL
-- I3: a unit is given back exactly once, by the holder's own state change:
-- a finished task holds none.
SELECT 'I3 a finished task holds no unit', t.type, array_agg(t.id ORDER BY t.id),
       format('%s tasks %s (id:status) finished, still holding a unit', t.type,
              (array_agg(t.id || ':' || t.status ORDER BY t.id))[1:5])
FROM {{schema}}.tasks t
WHERE t.slot_group IS NOT NULL AND t.status NOT IN ('pending', 'running')
GROUP BY t.type
UNION ALL
-- I6 (migration 036): a reserved task (status claimed) holds no unit and is
-- held by a worker; at rest, by a live one (recovery returns a dead
-- worker's reservations with its units).
SELECT 'I6 a reserved task holds no unit, for a live worker', t.type, array_agg(t.id ORDER BY t.id),
       format('%s tasks %s (id:worker:group) reserved with a unit, for no worker or for a dead one', t.type,
              (array_agg(t.id || ':' || coalesce(t.worker_id, 'none') || ':' || coalesce(t.slot_group::text, 'none') ORDER BY t.id))[1:5])
FROM {{schema}}.tasks t
LEFT JOIN {{schema}}.workers w ON w.id = t.worker_id
WHERE t.status = 'claimed'
  AND (t.slot_group IS NOT NULL OR t.worker_id IS NULL OR ($1::boolean AND (w.id IS NULL OR w.dead_at IS NOT NULL)))
GROUP BY t.type
UNION ALL
-- I5 (at rest): a due waiting task and a free unit of its type do not
-- coexist (unless the type is draining). One row per task.
SELECT 'I5 no due task waits beside a free unit', t.type, ARRAY[t.id],
       format('task %s (%s) due and waiting while its type has %s free units (groups used/capacity %s; %s running)',
              t.id, t.type, ty.free, ty.layout, ty.running)
FROM {{schema}}.tasks t
JOIN types ty ON ty.name = t.type AND ty.concurrency IS NOT NULL AND NOT ty.draining
WHERE $1::boolean AND t.status = 'pending' AND t.gate = 'waiting' AND t.run_at <= now() AND ty.free > 0
ORDER BY 1, 2, 3
