-- What each of the roles $1 holds in the schema named $2: whether it
-- exists, and every privilege granted to the role itself (not to PUBLIC,
-- not through membership of another role) on the schema, its tables and
-- views, their columns, its sequences and its functions. A role that holds
-- nothing has one row with NULL kind.
WITH r AS (
    SELECT u.role, x.oid
    FROM unnest($1::text[]) AS u(role)
    LEFT JOIN pg_catalog.pg_roles x ON x.rolname = u.role
), n AS (
    SELECT s.oid, s.nspacl FROM pg_catalog.pg_namespace s WHERE s.nspname = $2::text
), held AS (
    SELECT a.grantee, 'schema' AS kind, '' AS object, a.privilege_type, a.is_grantable
    FROM n, LATERAL pg_catalog.aclexplode(n.nspacl) a
    UNION ALL
    SELECT a.grantee, CASE WHEN c.relkind = 'S' THEN 'sequence' ELSE 'table' END, c.relname::text,
           a.privilege_type, a.is_grantable
    FROM n JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S'),
         LATERAL pg_catalog.aclexplode(c.relacl) a
    UNION ALL
    SELECT a.grantee, 'column', c.relname || '.' || t.attname, a.privilege_type, a.is_grantable
    FROM n JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid
    JOIN pg_catalog.pg_attribute t ON t.attrelid = c.oid AND t.attnum > 0 AND NOT t.attisdropped AND t.attacl IS NOT NULL,
         LATERAL pg_catalog.aclexplode(t.attacl) a
    UNION ALL
    SELECT a.grantee, 'function', p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')',
           a.privilege_type, a.is_grantable
    FROM n JOIN pg_catalog.pg_proc p ON p.pronamespace = n.oid,
         LATERAL pg_catalog.aclexplode(p.proacl) a
)
SELECT r.role, r.oid IS NOT NULL, h.kind, h.object, h.privilege_type, h.is_grantable
FROM r LEFT JOIN held h ON h.grantee = r.oid
ORDER BY r.role, h.kind, h.object, h.privilege_type
