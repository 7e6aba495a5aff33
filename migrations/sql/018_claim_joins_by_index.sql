-- pgseq schema, version 18: a claim finds its tasks' rows by their primary
-- key, whatever plan PL/pgSQL keeps. {{schema}} is replaced by the quoted
-- schema name.
--
-- claim_open picks up to n open tasks (an index scan, LIMIT n, SKIP
-- LOCKED) and then updates them, joining the picked ids to tasks. Planned
-- for a given n the join is a nested loop over tasks_pkey. A plan cached
-- for any n (PL/pgSQL's generic plan) does not know n, estimates a tenth
-- of the table, and hashes the whole of tasks instead: a sequential scan
-- of every task, completed ones kept for retention included, on each
-- claim. EXPLAIN ANALYZE of the generic plan over 20,000 tasks, 200
-- claimed: 9.1 ms (hash join, 20,000 rows read) against 2.0 ms with hash
-- and merge joins off (200 index probes).
ALTER FUNCTION {{schema}}.claim_open(text, text, integer, integer)
    SET enable_hashjoin = off SET enable_mergejoin = off;


-- Only claim_open: the same settings on offer_units and admit_waiting made
-- the drain of 100 types limited to 10 ("enabled") 40% slower (bench ab,
-- 6 quick rounds: 40,622 → 24,951 tasks/s); their plans stay as they
-- were.
