-- The access levels pgseq granted to the roles $1, as recorded.
SELECT g.role, g.level FROM {{schema}}.grants g WHERE g.role = ANY ($1::text[]) ORDER BY g.role, g.level
