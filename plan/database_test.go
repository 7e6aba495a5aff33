package plan_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/plan"
)

// A plan records the database it was made against; Read takes it back,
// refuses a record pgseq could not have written, and reads a plan without
// one (written by an older pgseq) with Database nil.
func TestReadTheDatabaseRecord(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		database *plan.Database
		want     string // "" reads
	}{
		{"none: an older pgseq's plan", nil, ""},
		{"cluster and name", &plan.Database{SystemIdentifier: "7712510206351543636", Name: "app"}, ""},
		{"cluster unknown", &plan.Database{Name: "app"}, ""},
		{"the largest identifier", &plan.Database{SystemIdentifier: "18446744073709551615", Name: "app"}, ""},
		{"no name", &plan.Database{SystemIdentifier: "1"}, `database.name "" is not a database name`},
		{"a name too long", &plan.Database{SystemIdentifier: "1", Name: string(bytes.Repeat([]byte("n"), 64))}, "is not a database name"},
		{"an identifier not a number", &plan.Database{SystemIdentifier: "abc", Name: "app"}, `database.system_identifier "abc" is not a system identifier`},
		{"an identifier with a sign", &plan.Database{SystemIdentifier: "-1", Name: "app"}, "is not a system identifier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := basePlan(t)
			p.Database = tc.database
			got, err := plan.Read(bytes.NewReader(encode(t, p)))
			if tc.want != "" {
				require.ErrorIs(t, err, plan.ErrInvalid)
				require.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.database, got.Database)
		})
	}
}

// Two records name the same database when their names are equal and so
// are their clusters, as far as both know theirs.
func TestDatabaseSame(t *testing.T) {
	t.Parallel()
	app := &plan.Database{SystemIdentifier: "1", Name: "app"}
	for _, tc := range []struct {
		name        string
		a, b        *plan.Database
		same        bool
		description string
	}{
		{"equal", app, &plan.Database{SystemIdentifier: "1", Name: "app"}, true, `database "app" of cluster 1`},
		{"another cluster", app, &plan.Database{SystemIdentifier: "2", Name: "app"}, false, `database "app" of cluster 1`},
		{"another name", app, &plan.Database{SystemIdentifier: "1", Name: "web"}, false, `database "app" of cluster 1`},
		{"cluster unknown on one side", &plan.Database{Name: "app"}, app, true, `database "app" (cluster not known: the role could not read its system identifier)`},
		{"unknown", nil, app, false, "an unknown database"},
	} {
		require.Equal(t, tc.same, tc.a.Same(tc.b), tc.name)
		require.Equal(t, tc.same, tc.b.Same(tc.a), tc.name)
		require.Equal(t, tc.description, tc.a.String(), tc.name)
	}
}
