-- Trust (CheckTrust, trust.go): what makes schema $1 unsafe for current_user to write
-- to, one row per problem: kind, object, role (owner or grantee, empty for
-- PUBLIC), fix, detail (a trigger's function), current_user. $2, $3, $4
-- are pgseq's own triggers (table, trigger, function). Every name is
-- quoted on the server (format %I).
WITH s AS (
    SELECT n.oid, n.nspname, n.nspowner, n.nspacl
    FROM pg_catalog.pg_namespace n WHERE n.nspname = $1
),
owned (ord, object, owner, alter_what) AS (
    SELECT 0, format('schema %I', s.nspname), s.nspowner, format('SCHEMA %I', s.nspname) FROM s
    UNION ALL
    SELECT 1, format('%s %I.%I', k.word, s.nspname, c.relname), c.relowner,
           format('%s %I.%I', upper(k.word), s.nspname, c.relname)
    FROM s JOIN pg_catalog.pg_class c ON c.relnamespace = s.oid
    JOIN (VALUES ('r', 'table'), ('p', 'table'), ('v', 'view'), ('m', 'materialized view'),
                 ('f', 'foreign table'), ('c', 'type'), ('S', 'sequence')) AS k (relkind, word)
      ON k.relkind = c.relkind::text
    -- A sequence of an identity or serial column follows its table's owner.
    WHERE NOT (c.relkind = 'S' AND EXISTS (
        SELECT 1 FROM pg_catalog.pg_depend d
        WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
          AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i')))
    UNION ALL
    SELECT 2, format('%s %I.%I(%s)', k.word, s.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid)),
           p.proowner,
           format('%s %I.%I(%s)', upper(k.word), s.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid))
    FROM s JOIN pg_catalog.pg_proc p ON p.pronamespace = s.oid
    JOIN (VALUES ('f', 'function'), ('w', 'function'), ('p', 'procedure'), ('a', 'aggregate')) AS k (prokind, word)
      ON k.prokind = p.prokind::text
    UNION ALL
    SELECT 3, format('%s %I.%I', CASE t.typtype WHEN 'd' THEN 'domain' ELSE 'type' END, s.nspname, t.typname),
           t.typowner,
           format('%s %I.%I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, s.nspname, t.typname)
    FROM s JOIN pg_catalog.pg_type t ON t.typnamespace = s.oid
    -- Row types of relations, array types and multirange types follow the
    -- owner of the relation or type they belong to.
    WHERE t.typrelid = 0 AND t.typtype <> 'm'
      AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type e WHERE e.typarray = t.oid)
    UNION ALL
    SELECT 4, format('operator %I.%s(%s, %s)', s.nspname, o.oprname,
                     coalesce(pg_catalog.format_type(nullif(o.oprleft, 0), NULL), 'NONE'),
                     coalesce(pg_catalog.format_type(nullif(o.oprright, 0), NULL), 'NONE')),
           o.oprowner,
           format('OPERATOR %I.%s (%s, %s)', s.nspname, o.oprname,
                  coalesce(pg_catalog.format_type(nullif(o.oprleft, 0), NULL), 'NONE'),
                  coalesce(pg_catalog.format_type(nullif(o.oprright, 0), NULL), 'NONE'))
    FROM s JOIN pg_catalog.pg_operator o ON o.oprnamespace = s.oid
    UNION ALL
    SELECT 5, format('operator class %I.%I using %I', s.nspname, oc.opcname, am.amname), oc.opcowner,
           format('OPERATOR CLASS %I.%I USING %I', s.nspname, oc.opcname, am.amname)
    FROM s JOIN pg_catalog.pg_opclass oc ON oc.opcnamespace = s.oid
    JOIN pg_catalog.pg_am am ON am.oid = oc.opcmethod
    UNION ALL
    SELECT 5, format('operator family %I.%I using %I', s.nspname, f.opfname, am.amname), f.opfowner,
           format('OPERATOR FAMILY %I.%I USING %I', s.nspname, f.opfname, am.amname)
    FROM s JOIN pg_catalog.pg_opfamily f ON f.opfnamespace = s.oid
    JOIN pg_catalog.pg_am am ON am.oid = f.opfmethod
    UNION ALL
    SELECT 6, format('collation %I.%I', s.nspname, c.collname), c.collowner,
           format('COLLATION %I.%I', s.nspname, c.collname)
    FROM s JOIN pg_catalog.pg_collation c ON c.collnamespace = s.oid
    UNION ALL
    SELECT 6, format('conversion %I.%I', s.nspname, c.conname), c.conowner,
           format('CONVERSION %I.%I', s.nspname, c.conname)
    FROM s JOIN pg_catalog.pg_conversion c ON c.connamespace = s.oid
    UNION ALL
    SELECT 6, format('text search configuration %I.%I', s.nspname, c.cfgname), c.cfgowner,
           format('TEXT SEARCH CONFIGURATION %I.%I', s.nspname, c.cfgname)
    FROM s JOIN pg_catalog.pg_ts_config c ON c.cfgnamespace = s.oid
    UNION ALL
    SELECT 6, format('text search dictionary %I.%I', s.nspname, d.dictname), d.dictowner,
           format('TEXT SEARCH DICTIONARY %I.%I', s.nspname, d.dictname)
    FROM s JOIN pg_catalog.pg_ts_dict d ON d.dictnamespace = s.oid
    UNION ALL
    SELECT 6, format('statistics %I.%I', s.nspname, x.stxname), x.stxowner,
           format('STATISTICS %I.%I', s.nspname, x.stxname)
    FROM s JOIN pg_catalog.pg_statistic_ext x ON x.stxnamespace = s.oid
),
problems (ord, kind, object, role, fix, detail) AS (
    -- The schema first, then the code and privileges (ord 10 to 14), then
    -- the objects owned by others.
    SELECT CASE o.ord WHEN 0 THEN 0 ELSE 20 + o.ord END, CASE o.ord WHEN 0 THEN 'schema' ELSE 'owner' END, o.object,
           pg_catalog.pg_get_userbyid(o.owner), format('ALTER %s OWNER TO %I', o.alter_what, current_user), ''
    FROM owned o
    WHERE NOT pg_catalog.pg_has_role(o.owner, current_user, 'USAGE')
    UNION ALL
    SELECT 10, 'trigger', format('trigger %I on table %I.%I', t.tgname, s.nspname, c.relname),
           pg_catalog.pg_get_userbyid(p.proowner),
           format('DROP TRIGGER %I ON %I.%I', t.tgname, s.nspname, c.relname),
           format('%I.%I()', pn.nspname, p.proname)
    FROM s JOIN pg_catalog.pg_class c ON c.relnamespace = s.oid
    JOIN pg_catalog.pg_trigger t ON t.tgrelid = c.oid
    JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid
    JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
    WHERE NOT t.tgisinternal
      AND NOT EXISTS (
        SELECT 1 FROM unnest($2::text[], $3::text[], $4::text[]) AS k (tbl, trg, fn)
        WHERE k.tbl = c.relname AND k.trg = t.tgname
          AND k.fn = p.proname AND p.pronamespace = s.oid AND p.pronargs = 0)
    UNION ALL
    SELECT 11, 'rule', format('rule %I on %I.%I', r.rulename, s.nspname, c.relname),
           pg_catalog.pg_get_userbyid(c.relowner),
           format('DROP RULE %I ON %I.%I', r.rulename, s.nspname, c.relname), ''
    FROM s JOIN pg_catalog.pg_class c ON c.relnamespace = s.oid
    JOIN pg_catalog.pg_rewrite r ON r.ev_class = c.oid
    WHERE r.rulename <> '_RETURN'
    UNION ALL
    SELECT 12, 'policy', format('policy %I on table %I.%I', pol.polname, s.nspname, c.relname),
           pg_catalog.pg_get_userbyid(c.relowner),
           format('DROP POLICY %I ON %I.%I', pol.polname, s.nspname, c.relname), ''
    FROM s JOIN pg_catalog.pg_class c ON c.relnamespace = s.oid
    JOIN pg_catalog.pg_policy pol ON pol.polrelid = c.oid
    UNION ALL
    SELECT 13, 'create', format('schema %I', s.nspname),
           CASE WHEN a.grantee = 0 THEN '' ELSE pg_catalog.pg_get_userbyid(a.grantee) END,
           format('REVOKE CREATE ON SCHEMA %I FROM %s', s.nspname,
                  CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END), ''
    FROM s, LATERAL pg_catalog.aclexplode(s.nspacl) AS a
    -- The owner's own privileges: an untrusted owner is reported above.
    WHERE a.privilege_type = 'CREATE' AND a.grantee <> s.nspowner
      AND CASE WHEN a.grantee = 0 THEN true ELSE NOT pg_catalog.pg_has_role(a.grantee, current_user, 'USAGE') END
    UNION ALL
    SELECT 14, 'trigger privilege', format('table %I.%I', s.nspname, c.relname),
           CASE WHEN a.grantee = 0 THEN '' ELSE pg_catalog.pg_get_userbyid(a.grantee) END,
           format('REVOKE TRIGGER ON TABLE %I.%I FROM %s', s.nspname, c.relname,
                  CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END), ''
    FROM s JOIN pg_catalog.pg_class c ON c.relnamespace = s.oid,
         LATERAL pg_catalog.aclexplode(c.relacl) AS a
    WHERE a.privilege_type = 'TRIGGER' AND a.grantee <> c.relowner
      AND CASE WHEN a.grantee = 0 THEN true ELSE NOT pg_catalog.pg_has_role(a.grantee, current_user, 'USAGE') END
)
SELECT kind, object, role, fix, detail, current_user::text FROM problems ORDER BY ord, object
