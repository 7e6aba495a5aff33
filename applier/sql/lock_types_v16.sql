-- Takes, exclusive, the keys schema version 16's runtime takes for the task
-- types whose slot groups change or whose pending tasks move (one key per
-- type). Only the apply that upgrades the schema past version 16 runs it:
-- until it commits, runtime sessions run version 16's definitions.
SELECT {{schema}}.lock_types_v16($1::text[])
