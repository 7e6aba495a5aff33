-- pgseq schema, version 6: planner settings of the runtime functions.
-- {{schema}} is replaced by the quoted schema name.
--
-- Every runtime function is short OLTP work on a few hundred rows at most,
-- but two planner defaults made the unit hand-off slow (issue 8, measured in
-- results/limits-design.md):
--
-- JIT. The planner estimates array parameters (unnest of the released
-- units, a lateral probe per type) at a thousand rows or more, so the
-- estimated cost of offer_units' statement crossed jit_above_cost (100,000)
-- and PostgreSQL compiled it with LLVM at every call: offer_units took 9 ms
-- per 200 units with 100 limited types instead of 4.8 ms (a single call with
-- 1,000 units spent 63 ms compiling). JIT pays off for analytic queries that
-- run for seconds, never here, so the entry points of the runtime turn it
-- off; the functions they call inherit the setting.
--
-- Re-planning. offer_units' statement is planned for its actual arrays at
-- every call: its generic plan is estimated dearer than the custom ones, so
-- the plan cache never switches to it. Planning costs 0.28 ms, most of a
-- one-unit hand-off (0.39 ms against 0.12 ms with the generic plan), which
-- is what a binding limit pays at every task. The generic plan is the same
-- shape for any number of units (a probe per type of its lane, then one
-- update by primary key), so offer_units always uses it.
--
-- claim keeps custom plans: its generic plan cannot see the batch size and
-- chose a plan 15 times slower.

ALTER FUNCTION {{schema}}.offer_units(text[], integer[], text, integer)
    SET plan_cache_mode = force_generic_plan;

ALTER FUNCTION {{schema}}.enqueue(text, jsonb, text, integer, timestamptz) SET jit = off;
ALTER FUNCTION {{schema}}.enqueue_batch(text[], jsonb[], text[], integer[], timestamptz[]) SET jit = off;
ALTER FUNCTION {{schema}}.claim(text, text, integer, integer) SET jit = off;
ALTER FUNCTION {{schema}}.complete(bigint[], text) SET jit = off;
ALTER FUNCTION {{schema}}.complete_and_take(bigint[], text, integer) SET jit = off;
ALTER FUNCTION {{schema}}.fail(bigint, text, text, boolean) SET jit = off;
ALTER FUNCTION {{schema}}.release(bigint[], text) SET jit = off;
ALTER FUNCTION {{schema}}.recover_dead_workers() SET jit = off;
ALTER FUNCTION {{schema}}.run_maintenance(text) SET jit = off;
ALTER FUNCTION {{schema}}.offer_units(text[], integer[], text, integer) SET jit = off;

-- The counters' entry points: the same short work, the same reason.
ALTER FUNCTION {{schema}}.next_value(text, text) SET jit = off;
ALTER FUNCTION {{schema}}.next_values(text, text[]) SET jit = off;
ALTER FUNCTION {{schema}}.reserve(text, text, text) SET jit = off;
ALTER FUNCTION {{schema}}.commit_reservation(bigint, text) SET jit = off;
