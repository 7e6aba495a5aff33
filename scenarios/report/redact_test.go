package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRedactCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"URL after a space",
			[]string{"pgseq", "--database-url", "postgres://u:SECRET@db.example/app", "bench", "run"},
			[]string{"pgseq", "--database-url", "postgres://u:***@db.example/app", "bench", "run"}},
		{"URL after =",
			[]string{"pgseq", "--database-url=postgres://u:SECRET@db.example/app?sslmode=require", "bench", "run"},
			[]string{"pgseq", "--database-url=postgres://u:***@db.example/app?sslmode=require", "bench", "run"}},
		{"password parameter of a URL",
			[]string{"--database-url=postgresql://u@db.example/app?password=SECRET&sslmode=require"},
			[]string{"--database-url=postgresql://u@db.example/app?password=***&sslmode=require"}},
		{"keyword/value after a space",
			[]string{"--database-url", "host=db.example user=u password=SECRET dbname=app"},
			[]string{"--database-url", "host=db.example user=u password=*** dbname=app"}},
		{"keyword/value after =",
			[]string{"--database-url=host=db.example password='SE CRET' user=u"},
			[]string{"--database-url=host=db.example password=*** user=u"}},
		{"other arguments unchanged",
			[]string{"pgseq", "bench", "run", "--quick", "--scenario=enabled", "--out", "results/x", "scenarios/"},
			[]string{"pgseq", "bench", "run", "--quick", "--scenario=enabled", "--out", "results/x", "scenarios/"}},
		{"none", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, RedactCommand(c.args))
		})
	}
}

// A result made elsewhere than scenarios.RunSuite, with a password in its command
// line, is still written without it.
func TestSuiteResultWritesNoPassword(t *testing.T) {
	t.Parallel()
	r := &SuiteResult{FormatVersion: ResultFormatVersion, Command: []string{"pgseq", "--database-url=postgres://u:SECRET@h/db", "bench", "run"}}
	var j, md bytes.Buffer
	require.NoError(t, r.WriteJSON(&j))
	require.NoError(t, r.WriteMarkdown(&md, nil))
	for _, out := range []string{j.String(), md.String()} {
		require.NotContains(t, out, "SECRET")
		require.True(t, strings.Contains(out, "postgres://u:***@h/db"), out)
	}
	require.Equal(t, "postgres://u:SECRET@h/db", r.Command[1][len("--database-url="):], "r itself is left as it is")
}
