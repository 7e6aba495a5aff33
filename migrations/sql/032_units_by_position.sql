-- pgseq schema, version 32: units_by_type, with which enqueue_batch gives
-- a limited type's units to its tasks by position, not by a join that
-- could compare every task of the type with every unit.
-- {{schema}} is replaced by the quoted schema name.
--
-- enqueue_batch's body that makes the two changes below is stated once,
-- in migration 035, with that migration's own (032 to 035 landed
-- together: the schema at 35 is the same as with a body here replaced
-- whole there).
--
-- The k-th due task of a limited type in a call takes the k-th unit its
-- type took (enqueue_batch step 3 before the insert; step 5 after it,
-- for calls with idempotency keys). Both steps joined the tasks, numbered
-- per type, with the units, numbered per type, on (type, k). The planner
-- had no statistics for either side (an array and a window over it): it
-- merged them on the type alone and filtered on k, so a call of one type
-- compared every task with every unit. 10,000 tasks of a type limited to
-- 500, step 4's insert: 4,999,500 rows removed by the join filter, 822 ms
-- against 124 ms for an unlimited type (auto_explain); 2,000 tasks of a
-- type limited to 1,000, with or without idempotency keys, 1,998,001 and
-- 1,999,001 rows (TestEnqueueBatchWorkIsLinearBesideManyTypes). The bench
-- suite's seeding paid it in every `high` round.
--
-- The units are now one jsonb object, each type's groups in the order
-- taken (units_by_type), and a task reads its type's element k-1: one
-- lookup per task whatever the plan, as step 3b's arrays already were.
-- Same units to the same tasks: the k-th task of a type in input order
-- (step 4) or claim order (step 5) takes the k-th unit of that type in
-- the order take_units_of returned them.
--
-- The call's idempotency keys already taken were found by a join of the
-- batch with tasks, which the planner made a hash join over every task in
-- the table: a call of 2,000 keyed tasks beside 110,000 kept ones read
-- all 110,000 (26 ms of 134, growing with the tasks kept). Each keyed row
-- now probes the idempotency index once (a lateral subquery with LIMIT
-- 1, which cannot be turned into a join), as step 2's check already did.

-- A limited type's units by type: {type: [group, ...]}, each type's groups
-- in the order given (the k-th unit of a type is element k-1). '{}' for
-- none.
CREATE FUNCTION {{schema}}.units_by_type(types text[], groups integer[])
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
BEGIN
    RETURN coalesce((
        SELECT jsonb_object_agg(u.type, u.groups)
        FROM (SELECT x.type, jsonb_agg(x.grp ORDER BY x.ord) AS groups
              FROM unnest(types, groups) WITH ORDINALITY AS x(type, grp, ord)
              GROUP BY x.type) u), '{}');
END;
$function$;
REVOKE ALL ON FUNCTION {{schema}}.units_by_type(text[], integer[]) FROM PUBLIC;
