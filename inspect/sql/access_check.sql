-- For each role $1 names: does it exist, is it a superuser, and does it
-- own the schema named $2 (when the schema does not exist yet, the role
-- that applies will own it: current_user)?
SELECT u.role, x.oid IS NOT NULL, coalesce(x.rolsuper, false),
       u.role = coalesce((SELECT pg_catalog.pg_get_userbyid(s.nspowner)
                          FROM pg_catalog.pg_namespace s WHERE s.nspname = $2::text), current_user)
FROM unnest($1::text[]) AS u(role)
LEFT JOIN pg_catalog.pg_roles x ON x.rolname = u.role
ORDER BY u.role
