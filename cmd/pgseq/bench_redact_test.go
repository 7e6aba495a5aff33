package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/dbconn/dbconntest"
	"github.com/pgseq/pgseq/internal/pgtest"
)

// oneDrain is the smallest drain scenario: bench run's result files for
// it have every field a command line can reach.
const oneDrain = `
scenario "base" {
  workload = "drain"
  size {
    tasks      = 300
    rounds     = 2
    warmup     = 50
    batch_size = 50
  }
  types { count = 1 }
}
`

// A password given to bench run in --database-url, as a URL or a
// keyword/value string, after a space or an '=', is nowhere in what the
// run writes (run.json's command, run.md's "Reproduce:", every other file
// of --out) nor in what it prints.
func TestBenchRunWritesNoPassword(t *testing.T) {
	pool := pgtest.Pool(t)
	cfg, err := pgconn.ParseConfig(pgtest.ConnString(t))
	require.NoError(t, err)
	srv := server{host: cfg.Host, port: int(cfg.Port), user: createRole(t, pool), db: cfg.Database}
	schema := pgtest.Schema(t) // after createRole: dropped before the role
	const password = `Kq7v @:/#%'"\?&=ü Wm3z`
	setPassword(t, pool, srv.user, password)
	url := srv.url(percentEncode(password))
	keywords := srv.keywords() + " password='" + backslash(password, `'\`) + "'"
	scenarioDir := writeScenarios(t, oneDrain)

	cases := []struct {
		name string
		flag []string
	}{
		{"URL after a space", []string{"--database-url", url}},
		{"URL after =", []string{"--database-url=" + url}},
		{"keyword/value after a space", []string{"--database-url", keywords}},
		{"keyword/value after =", []string{"--database-url=" + keywords}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			useConnection(t, "PGSEQ_DATABASE_URL", "", nil) // no other connection setting
			out := t.TempDir()
			args := append(append([]string{}, c.flag...), "--schema", schema, "bench", "run", "--out", out, scenarioDir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			code, printed := runPgseq(ctx, args...)
			require.Equal(t, exitOK, code, printed)
			require.Empty(t, dbconntest.Leaked(printed, password), printed)

			files := 0
			require.NoError(t, filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				files++
				require.Empty(t, dbconntest.Leaked(string(b), password), "%s:\n%s", path, b)
				return nil
			}))
			require.GreaterOrEqual(t, files, 3, "run.json, run.md, run.bench.txt and charts")
			// The command line is still recorded, with the password masked.
			for _, f := range []string{"run.json", "run.md"} {
				b, err := os.ReadFile(filepath.Join(out, f))
				require.NoError(t, err)
				require.Contains(t, string(b), "***", f)
				require.Contains(t, string(b), srv.user, f)
				require.True(t, strings.Contains(string(b), "bench") && strings.Contains(string(b), "--database-url"), f)
			}
		})
	}
}
