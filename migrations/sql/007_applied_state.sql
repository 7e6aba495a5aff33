-- pgseq schema, version 7: the state each apply leaves, for drift.
-- {{schema}} is replaced by the quoted schema name.
--
-- pgseq plan shows the objects changed outside pgseq since the last apply
-- (a slot group's capacity edited by hand, a queue deleted, a counter's
-- trigger dropped) apart from the changes the configuration asks for. To
-- tell them apart it compares the database with the managed state the last
-- apply left, which the apply writes here in its own transaction: queues,
-- task types, slot group capacities (not usage), counters, and whether each
-- attached counter's trigger and unique index were intact (package inspect,
-- EncodeApplied, writes and reads the document). Rows written before this
-- version have none: there is then nothing to compare with, and plans show
-- no drift until the next apply.

ALTER TABLE {{schema}}.applies ADD COLUMN state jsonb;
COMMENT ON COLUMN {{schema}}.applies.state IS
    'Managed state after the apply (queues, task types, slot capacities, counters, counter object health); NULL before schema version 7. pgseq plan reports differences from the newest row as drift.';
