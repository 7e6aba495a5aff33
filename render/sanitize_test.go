package render

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/plan"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain text", "queue \"default\" will be created", "queue \"default\" will be created"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"unicode text kept", "Zählerstände — ü €", "Zählerstände — ü €"},
		{"ESC and CSI", "\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"OSC title and BEL", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"carriage return", "safe\rEVIL", `safe\rEVIL`},
		{"backspace, NUL, DEL", "a\bb\x00c\x7f", `a\x08b\x00c\x7f`},
		{"C1 CSI", "\u009b31m", `\x9b31m`},
		{"bidi override", "abc\u202edcb", `abc\u202edcb`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, Sanitize(c.in))
		})
	}
}

// Every string of a plan that Plan prints reaches the output escaped.
func TestPlanEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	const evil = "\x1b]0;owned\x07\x1b[2J\r\u009b1m"
	const shown = `\x1b]0;owned\x07\x1b[2J\r\x9b1m`
	p := &plan.Plan{
		Changes: []plan.Change{{
			Address: `queue "q` + evil + `"`, Kind: plan.KindQueue, Name: "q" + evil, Action: plan.Delete,
			Before:  &catalog.Queue{Name: "q" + evil},
			Reasons: []string{"reason " + evil},
		}},
		Warnings: []string{"warning " + evil},
	}
	var out strings.Builder
	require.NoError(t, Plan(&out, p))
	got := out.String()
	for _, r := range got {
		require.False(t, unsafeRune(r) || r == '\r', "raw control character %U in:\n%s", r, got)
	}
	require.Contains(t, got, "reason "+shown)
	require.Contains(t, got, "warning "+shown)
	require.Contains(t, got, `queue "q`+shown)
}
