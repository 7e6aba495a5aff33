package applier_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/applier"
	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/reconcile"
)

// grantCreateOnDatabase lets role create schemas in the test database, as
// a role that runs pgseq migrate on a managed database may, and revokes it
// again before the role is dropped. Parallel tests' grants on the one
// database row would fail ("tuple concurrently updated"): an advisory lock
// takes them one at a time.
func (e *env) grantCreateOnDatabase(role testRole) {
	e.T.Helper()
	change := func(ctx context.Context, sql string) error {
		tx, err := e.Pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('pgseq test: database grants'))`); err != nil {
			return err
		}
		var db string
		if err := tx.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(sql, pgx.Identifier{db}.Sanitize(), pgx.Identifier{role.Name}.Sanitize())); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	require.NoError(e.T, change(e.ctx(), `GRANT CREATE ON DATABASE %s TO %s`), "granting CREATE on the database to %s", role.Name)
	e.T.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := change(ctx, `REVOKE CREATE ON DATABASE %s FROM %s`); err != nil {
			e.T.Errorf("revoking CREATE on the database from %s: %v", role.Name, err)
		}
	})
}

// dropSchemaBeforeRoles drops the test's schema before the roles made so
// far are dropped (cleanups run last first): a role's DROP OWNED cannot
// drop its objects while others depend on them, nor its schema while it
// holds objects of others.
func (e *env) dropSchemaBeforeRoles() {
	e.T.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := e.Pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{e.Schema}.Sanitize()+` CASCADE`); err != nil {
			e.T.Errorf("dropping test schema %s: %v", e.Schema, err)
		}
	})
}

// isSuperuser reports whether role is a superuser now.
func (e *env) isSuperuser(name string) bool {
	e.T.Helper()
	var super bool
	require.NoError(e.T, e.Pool.QueryRow(e.ctx(), `SELECT rolsuper FROM pg_roles WHERE rolname = $1`, name).Scan(&super))
	return super
}

// count returns the number of rows of a table of the test's schema.
func (e *env) count(table string) int {
	e.T.Helper()
	var n int
	require.NoError(e.T, e.Pool.QueryRow(e.ctx(),
		`SELECT count(*) FROM `+pgx.Identifier{e.Schema, table}.Sanitize()).Scan(&n))
	return n
}

// The escalation of issue 18: a role that owns the schema (it ran pgseq
// migrate) plants a trigger on applies that makes it superuser; a
// superuser's apply into that schema must refuse before writing, so the
// trigger never runs.
func TestTrustRefusesSchemaOwnedByAnotherRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var me string
	require.NoError(t, e.Pool.QueryRow(e.ctx(), `SELECT current_user`).Scan(&me))
	require.True(t, e.isSuperuser(me), "this test needs the test database's role %q to be a superuser, as the victim", me)

	mallory := e.newRole("mallory")
	e.dropSchemaBeforeRoles()
	e.grantCreateOnDatabase(mallory)
	malloryPool := poolAs(t, mallory)
	_, err := applier.Migrate(e.ctx(), malloryPool, e.Schema, 0)
	require.NoError(t, err, "the owner migrates its own schema")
	_, err = malloryPool.Exec(e.ctx(), `
		CREATE FUNCTION `+pgx.Identifier{e.Schema, "audit"}.Sanitize()+`() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			EXECUTE format('ALTER ROLE %I SUPERUSER', `+"'"+mallory.Name+"'"+`);
			RETURN NEW;
		END $$;
		CREATE TRIGGER audit BEFORE INSERT ON `+pgx.Identifier{e.Schema, "applies"}.Sanitize()+`
			FOR EACH ROW EXECUTE FUNCTION `+pgx.Identifier{e.Schema, "audit"}.Sanitize()+`()`)
	require.NoError(t, err)

	_, applyErr := reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, config(4), applier.Options{Client: "test", Version: "test"})
	require.False(t, e.isSuperuser(mallory.Name), "the schema owner's trigger ran with the superuser's rights")
	require.ErrorIs(t, applyErr, inspect.ErrUntrustedSchema)
	var ute *inspect.UntrustedSchemaError
	require.True(t, errors.As(applyErr, &ute))
	require.Equal(t, mallory.Name, ute.Owner)
	for _, want := range []string{
		`schema "` + e.Schema + `"`,
		`is owned by role "` + mallory.Name + `"`,
		`trigger audit on table ` + e.Schema + `.applies was not created by pgseq`,
		`ALTER SCHEMA ` + e.Schema + ` OWNER TO ` + me,
		`DROP TRIGGER audit ON ` + e.Schema + `.applies`,
		`Nothing was changed`,
		`Run pgseq as the schema's owner, role "` + mallory.Name + `"`,
	} {
		require.Contains(t, applyErr.Error(), want)
	}
	require.Zero(t, e.count("applies"), "nothing written")
	require.Zero(t, e.count("queues"), "nothing written")

	// pgseq plan as the superuser is refused the same way: reading the
	// schema would run the owner's code too (a view in place of a table).
	_, err = reconcile.Plan(e.ctx(), e.Pool, e.Schema, config(4))
	require.ErrorIs(t, err, inspect.ErrUntrustedSchema)

	// pgseq migrate as the superuser is refused the same way.
	_, err = applier.Migrate(e.ctx(), e.Pool, e.Schema, 0)
	require.ErrorIs(t, err, inspect.ErrUntrustedSchema)
	require.False(t, e.isSuperuser(mallory.Name))

	// The owner itself may apply: its trigger runs with its own rights.
	_, err = reconcile.ApplyConfig(e.ctx(), malloryPool, e.Schema, config(4), applier.Options{Client: "test", Version: "test"})
	require.Error(t, err, "ALTER ROLE … SUPERUSER as mallory fails")
	require.False(t, e.isSuperuser(mallory.Name))
}

// A schema a trusted role owns is still refused for a single object,
// trigger, rule, policy or privilege a role the applier cannot trust could
// use to run code on the apply's writes; the fix the message gives makes
// the apply pass.
func TestTrustRefusesUntrustedObjects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup string // {{schema}} rendered, $R replaced by the role; in want, $S is the schema
		want  []string
	}{
		{
			name:  "function owned by another role",
			setup: `CREATE FUNCTION {{schema}}.helper() RETURNS int LANGUAGE sql AS 'SELECT 1'; ALTER FUNCTION {{schema}}.helper() OWNER TO $R`,
			want:  []string{`function $S.helper() is owned by role "$R"`, `ALTER FUNCTION $S.helper() OWNER TO`},
		},
		{
			name:  "pgseq trigger function owned by another role",
			setup: `ALTER FUNCTION {{schema}}.counter_values_guard() OWNER TO $R`,
			want:  []string{`function $S.counter_values_guard() is owned by role "$R"`},
		},
		{
			name:  "table owned by another role",
			setup: `ALTER TABLE {{schema}}.queues OWNER TO $R`,
			want:  []string{`table $S.queues is owned by role "$R"`, `ALTER TABLE $S.queues OWNER TO`},
		},
		{
			name:  "type owned by another role",
			setup: `ALTER TYPE {{schema}}.task_status OWNER TO $R`,
			want:  []string{`type $S.task_status is owned by role "$R"`, `ALTER TYPE $S.task_status OWNER TO`},
		},
		{
			name:  "sequence owned by another role",
			setup: `CREATE SEQUENCE {{schema}}.seq; ALTER SEQUENCE {{schema}}.seq OWNER TO $R`,
			want:  []string{`sequence $S.seq is owned by role "$R"`},
		},
		{
			name: "trigger pgseq did not create",
			setup: `CREATE FUNCTION {{schema}}.stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
				CREATE TRIGGER stamp BEFORE INSERT ON {{schema}}.applies FOR EACH ROW EXECUTE FUNCTION {{schema}}.stamp()`,
			want: []string{`trigger stamp on table $S.applies was not created by pgseq (it runs function $S.stamp()`, `DROP TRIGGER stamp ON $S.applies`},
		},
		{
			name: "pgseq trigger name running another function",
			setup: `CREATE FUNCTION {{schema}}.stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$;
				DROP TRIGGER counter_values_no_delete ON {{schema}}.counter_values;
				CREATE TRIGGER counter_values_no_delete BEFORE DELETE ON {{schema}}.counter_values FOR EACH ROW EXECUTE FUNCTION {{schema}}.stamp()`,
			want: []string{`trigger counter_values_no_delete on table $S.counter_values was not created by pgseq`},
		},
		{
			name:  "rule",
			setup: `CREATE RULE also_notify AS ON INSERT TO {{schema}}.applies DO ALSO NOTIFY somewhere`,
			want:  []string{`rule also_notify on $S.applies was not created by pgseq`, `DROP RULE also_notify ON $S.applies`},
		},
		{
			name:  "policy",
			setup: `CREATE POLICY everyone ON {{schema}}.queues USING (true)`,
			want:  []string{`policy everyone on table $S.queues was not created by pgseq`, `DROP POLICY everyone ON $S.queues`},
		},
		{
			name:  "CREATE on the schema",
			setup: `GRANT CREATE ON SCHEMA {{schema}} TO $R`,
			want:  []string{`schema $S lets role "$R" create objects in it`, `REVOKE CREATE ON SCHEMA $S FROM $R`},
		},
		{
			name:  "CREATE on the schema for PUBLIC",
			setup: `GRANT CREATE ON SCHEMA {{schema}} TO PUBLIC`,
			want:  []string{`schema $S lets PUBLIC (every role) create objects in it`, `REVOKE CREATE ON SCHEMA $S FROM PUBLIC`},
		},
		{
			name:  "TRIGGER on a table",
			setup: `GRANT TRIGGER ON {{schema}}.applies TO $R`,
			want:  []string{`table $S.applies lets role "$R" create triggers on it`, `REVOKE TRIGGER ON TABLE $S.applies FROM $R`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.apply(config(4))
			mallory := e.newRole("mallory")
			e.dropSchemaBeforeRoles()
			e.Exec(strings.ReplaceAll(c.setup, "$R", pgx.Identifier{mallory.Name}.Sanitize()))
			opts := applier.Options{Client: "test", Version: "test"}

			_, err := reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, config(6), opts)
			require.ErrorIs(t, err, inspect.ErrUntrustedSchema)
			for _, w := range c.want {
				w = strings.ReplaceAll(strings.ReplaceAll(w, "$S", e.Schema), "$R", mallory.Name)
				require.Contains(t, err.Error(), w)
			}
			require.Contains(t, err.Error(), "Nothing was changed")
			require.Equal(t, 4, capacitySum(e.slotsOf("render")), "nothing applied")
			_, merr := applier.Migrate(e.ctx(), e.Pool, e.Schema, 0)
			require.ErrorIs(t, merr, inspect.ErrUntrustedSchema)

			// The fixes the message gives make the schema trusted again.
			var ute *inspect.UntrustedSchemaError
			require.True(t, errors.As(err, &ute))
			require.Empty(t, ute.Owner, "the schema itself is trusted")
			for _, p := range ute.Problems {
				e.Exec(p.Fix)
			}
			_, err = reconcile.ApplyConfig(e.ctx(), e.Pool, e.Schema, config(6), opts)
			require.NoError(t, err)
			require.Equal(t, 6, capacitySum(e.slotsOf("render")))
		})
	}
}

// A role that is not a superuser migrates and applies into a schema of its
// own, and pgseq's own objects (the counter_values guard triggers among
// them) pass the check.
func TestTrustAllowsOwnersOwnSchema(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	owner := e.newRole("owner")
	e.dropSchemaBeforeRoles()
	e.grantCreateOnDatabase(owner)
	ownerPool := poolAs(t, owner)
	opts := applier.Options{Client: "test", Version: "test"}

	migrated, err := applier.Migrate(e.ctx(), ownerPool, e.Schema, 0)
	require.NoError(t, err)
	require.NotEmpty(t, migrated)
	_, err = reconcile.ApplyConfig(e.ctx(), ownerPool, e.Schema, config(4), opts)
	require.NoError(t, err)
	_, err = reconcile.ApplyConfig(e.ctx(), ownerPool, e.Schema, config(7), opts)
	require.NoError(t, err)
	require.Equal(t, 7, capacitySum(e.slotsOf("render")))
	require.NoError(t, inspect.CheckTrust(e.ctx(), ownerPool, e.Schema))
	// A superuser's objects in the owner's schema are trusted: they could
	// do anything the owner can anyway.
	e.Exec(`CREATE FUNCTION {{schema}}.helper() RETURNS int LANGUAGE sql AS 'SELECT 1'`)
	require.NoError(t, inspect.CheckTrust(e.ctx(), ownerPool, e.Schema))
	// The other way round is refused: the superuser does not apply into
	// the owner's schema.
	err = inspect.CheckTrust(e.ctx(), e.Pool, e.Schema)
	require.ErrorIs(t, err, inspect.ErrUntrustedSchema)
	require.Contains(t, err.Error(), `schema `+e.Schema+` is owned by role "`+owner.Name+`"`)

	// A schema that does not exist yet is trusted.
	require.NoError(t, inspect.CheckTrust(e.ctx(), e.Pool, e.Schema+"_none"))
}
