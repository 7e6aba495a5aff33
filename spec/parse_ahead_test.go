package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Files parsed ahead, several at once, are decoded and reported in name
// order: the diagnostics of 30 files come file by file, and the tasks of
// the good ones are all there.
func TestParseAheadKeepsTheOrderOfFiles(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"00-queue.hcl": []byte(`queue "q" {}` + "\n")}
	var want []string
	for i := 1; i < 30; i++ {
		name := fmt.Sprintf("%02d.hcl", i)
		switch {
		case i%7 == 0:
			files[name] = []byte("task \"t" + name + "\" {\n  queue = \n}\n") // a syntax error
			want = append(want, name)
		case i == 13:
			files[name] = []byte(strings.Repeat("#", MaxFileSize+1)) // over the limit: not parsed
			want = append(want, name)
		default:
			files[name] = []byte(fmt.Sprintf("task %q {\n  queue = \"q\"\n}\n", "t"+name))
		}
	}
	cfg, diags := Parse(files)
	var got []string
	for _, d := range diags {
		require.NotNil(t, d.Subject, d.Summary)
		if len(got) == 0 || got[len(got)-1] != d.Subject.Filename {
			got = append(got, d.Subject.Filename)
		}
	}
	require.Equal(t, want, got, "one file's diagnostics after another's, in name order")
	require.Len(t, cfg.Files, 30)
	require.Len(t, cfg.Tasks, 29-4-1, "every task of a file without errors")
}
