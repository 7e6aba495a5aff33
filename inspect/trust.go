package inspect

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
func CheckTrust(ctx context.Context, q Querier, schema string) error {
	tables, names, functions := pgseqTriggers()
	rows, err := q.Query(ctx, query("trust", schema), schema, tables, names, functions)
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
