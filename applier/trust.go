package applier

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/migrations"
)

// ErrUntrustedSchema means the schema holds objects, or grants privileges,
// that would let a role the applying role does not trust run code with the
// applying role's rights. The error is an *UntrustedSchemaError.
var ErrUntrustedSchema = errors.New("schema not trusted")

// TrustProblem is one reason CheckTrust refused a schema.
type TrustProblem struct {
	// Object names the object: `function "s".f()`, `trigger "t" on table "s"."applies"`.
	Object string
	// Problem says what is wrong with it, naming the role involved.
	Problem string
	// Role is the role involved: the owner, or the grantee of a privilege
	// ("" for PUBLIC).
	Role string
	// Fix is a statement that removes the problem, run by a role allowed
	// to (a superuser, or the object's owner).
	Fix string
}

// UntrustedSchemaError is CheckTrust's refusal: schema Schema holds
// objects a role User (the applying role) cannot trust. Nothing was
// written.
type UntrustedSchemaError struct {
	Schema string
	User   string
	// Owner is the schema's owner when the schema itself is not trusted,
	// else "".
	Owner    string
	Problems []TrustProblem
}

// maxTrustProblems bounds the problems an UntrustedSchemaError lists; the
// rest are counted.
const maxTrustProblems = 12

func (e *UntrustedSchemaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refusing to write to schema %q as role %q: code in it could run with %q's rights, put there by a role that does not have them (trusted: %q itself, a superuser, or a role that has every privilege of %q):",
		e.Schema, e.User, e.User, e.User, e.User)
	for i, p := range e.Problems {
		if i == maxTrustProblems {
			var roles []string
			for _, rest := range e.Problems[i:] {
				if r := grantee(rest.Role); !slices.Contains(roles, r) {
					roles = append(roles, r)
				}
			}
			fmt.Fprintf(&b, "\n  … and %d more of %s", len(e.Problems)-i, strings.Join(roles, ", "))
			break
		}
		fmt.Fprintf(&b, "\n  - %s %s; fix: %s;", p.Object, p.Problem, p.Fix)
	}
	b.WriteString("\nNothing was changed. ")
	if e.Owner != "" {
		fmt.Fprintf(&b, "Run pgseq as the schema's owner, role %q, or have a superuser give the schema and every object in it to %q (ALTER SCHEMA %s OWNER TO %s and ALTER … OWNER TO for each object; REASSIGN OWNED BY %s TO %s does all at once, but for everything %q owns in this database), drop what pgseq did not create, then run it again.",
			e.Owner, e.User, pgx.Identifier{e.Schema}.Sanitize(), pgx.Identifier{e.User}.Sanitize(),
			pgx.Identifier{e.Owner}.Sanitize(), pgx.Identifier{e.User}.Sanitize(), e.Owner)
	} else {
		b.WriteString("Check the objects above, run the fixes (as a superuser or the objects' owners), then run it again.")
	}
	return b.String()
}

// Is makes an *UntrustedSchemaError match ErrUntrustedSchema.
func (e *UntrustedSchemaError) Is(target error) bool { return target == ErrUntrustedSchema }

// CheckTrust returns an *UntrustedSchemaError when schema is not safe for
// the current user to write to: an owner or grantee it cannot trust, or
// code pgseq did not put there. A schema that does not exist yet is safe.
// q is the apply transaction, so the check sees what the writes will.
//
// An apply (and a migration) writes to pgseq's schema as the role pgseq
// connected as, the applying role. Whatever code the schema makes run on
// those writes — triggers, rules, policies, the functions and types they
// use — runs with the applying role's rights. A role that can plant such
// code therefore gets the applying role's rights the next time someone
// applies: a schema owner adding a trigger that runs ALTER ROLE … SUPERUSER
// when a superuser applies.
//
// A role is trusted by the applying role when it already has every
// privilege the applying role has: pg_has_role(role, current_user,
// 'USAGE'). That holds for the applying role itself, for a superuser, and
// for a role that inherits from the applying role. Code such a role wrote
// gains nothing by running as the applying role. The opposite direction
// (the applying role is a member of the owner) is not enough: a superuser
// is a member of every role, and a group role's other members could plant
// code that runs with the applying role's extra rights.
//
// Before an apply or a migration writes anything, under the apply lock,
// CheckTrust refuses the schema when
//   - the schema, or any table, view, sequence, function, procedure,
//     aggregate, type, domain, operator, operator class or family,
//     collation, conversion, text search configuration or dictionary, or
//     statistics object in it, is owned by a role that is not trusted;
//   - a table in it has a trigger pgseq's migrations did not create (or one
//     of pgseq's trigger names that runs another function), a rule or a
//     row-level security policy (pgseq creates neither);
//   - a role that is not trusted (or PUBLIC) may CREATE in the schema or
//     create triggers on one of its tables (TRIGGER privilege): it could
//     plant code while the apply runs.
//
// Triggers pgseq creates on the application's tables for counters are not
// in the schema and are not checked here.
func CheckTrust(ctx context.Context, q RowsQuerier, schema string) error {
	tables, names, functions := pgseqTriggers()
	rows, err := q.Query(ctx, trustQuery, schema, tables, names, functions)
	if err != nil {
		return fmt.Errorf("checking who owns schema %q and what runs in it: %w", schema, err)
	}
	e := &UntrustedSchemaError{Schema: schema}
	var kind, object, role, fix, detail, user string
	_, err = pgx.ForEachRow(rows, []any{&kind, &object, &role, &fix, &detail, &user}, func() error {
		e.User = user
		var problem string
		switch kind {
		case "schema":
			e.Owner = role
			problem = fmt.Sprintf("is owned by role %q", role)
		case "owner":
			problem = fmt.Sprintf("is owned by role %q", role)
		case "trigger":
			problem = fmt.Sprintf("was not created by pgseq (it runs function %s, owned by role %q)", detail, role)
		case "rule", "policy":
			problem = fmt.Sprintf("was not created by pgseq (table owner: role %q)", role)
		case "create":
			problem = fmt.Sprintf("lets %s create objects in it", grantee(role))
		case "trigger privilege":
			problem = fmt.Sprintf("lets %s create triggers on it", grantee(role))
		default:
			return fmt.Errorf("unknown kind of trust problem %q", kind)
		}
		e.Problems = append(e.Problems, TrustProblem{Object: object, Problem: problem, Role: role, Fix: fix})
		return nil
	})
	if err != nil {
		return fmt.Errorf("checking who owns schema %q and what runs in it: %w", schema, err)
	}
	if len(e.Problems) > 0 {
		return e
	}
	return nil
}

// grantee names the grantee of a privilege: PUBLIC or a role.
func grantee(role string) string {
	if role == "" {
		return "PUBLIC (every role)"
	}
	return fmt.Sprintf("role %q", role)
}

// createTrigger finds CREATE TRIGGER name … ON {{schema}}.table …
// EXECUTE FUNCTION {{schema}}.function( in a migration.
var createTrigger = regexp.MustCompile(`(?is)CREATE\s+(?:OR\s+REPLACE\s+)?TRIGGER\s+(\w+)\s.*?\sON\s+\{\{schema\}\}\.(\w+)\s.*?EXECUTE\s+(?:FUNCTION|PROCEDURE)\s+\{\{schema\}\}\.(\w+)\s*\(`)

// pgseqTriggers returns the triggers pgseq's migrations create on the
// schema's tables, as three parallel lists: table, trigger, function (in
// the schema, without arguments).
func pgseqTriggers() (tables, names, functions []string) {
	for _, m := range migrations.All() {
		for _, s := range createTrigger.FindAllStringSubmatch(m.SQL, -1) {
			names = append(names, s[1])
			tables = append(tables, s[2])
			functions = append(functions, s[3])
		}
	}
	return tables, names, functions
}

// trustQuery lists what makes schema $1 unsafe for current_user to write
// to, one row per problem: kind, object, role (owner or grantee, empty for
// PUBLIC), fix, detail (a trigger's function), current_user. $2, $3, $4
// are pgseq's own triggers (table, trigger, function). Every name is
// quoted on the server (format %I).
const trustQuery = `
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
SELECT kind, object, role, fix, detail, current_user::text FROM problems ORDER BY ord, object`
