-- Takes the advisory locks of the task types whose slot groups change or
-- whose pending tasks move, exclusive: runtime calls on those types (which
-- take them shared before they read the type) finish first and later ones
-- wait, so no unit is admitted against a capacity being changed and no task
-- is enqueued, retried or recovered by what the type was before the apply.
-- Before any task or slot row: see the locking order in migration 012.
SELECT {{schema}}.lock_types($1::text[], true)
