-- The access levels pgseq granted, as the apply recorded them.
SELECT g.level, g.role FROM {{schema}}.grants g ORDER BY g.level, g.role
