-- The roles among $1 that exist.
SELECT r.rolname::text FROM pg_catalog.pg_roles r WHERE r.rolname = ANY ($1::text[]) ORDER BY 1
