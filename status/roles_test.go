package status

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgtest"
)

// pgseq status works for a role given the read level, and for a role
// without it says which level to grant.
func TestReadNeedsTheReadLevel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `queue "default" {}`)
	reader := pgtest.NewRole(t, e.Pool, e.Schema, "reader")
	worker := pgtest.NewRole(t, e.Pool, e.Schema, "worker")
	e.apply(fmt.Sprintf(`
queue "default" {}
access {
  read = [%q]
  work = [%q]
}`, reader.Name, worker.Name))

	s, err := Read(bg, pgtest.PoolAs(t, reader), e.Schema, Options{})
	require.NoError(t, err)
	require.Equal(t, e.Schema, s.Schema)

	_, err = Read(bg, pgtest.PoolAs(t, worker), e.Schema, Options{})
	require.ErrorContains(t, err, "permission denied")
	require.ErrorContains(t, err, "it needs the read level for this role")
}
