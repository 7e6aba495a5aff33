-- pgseq schema, version 11: counters stay linear in the rows of one
-- transaction (placeholder: filled in by the counters change).
SELECT 1;
