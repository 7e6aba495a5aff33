-- pgseq schema, version 12: limits never exceeded, never stalled
-- (placeholder: filled in by the limits change).
SELECT 1;
