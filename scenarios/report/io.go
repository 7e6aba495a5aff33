package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pgseq/pgseq/internal/dbconn"
)

// WriteJSON writes v as indented JSON: every report's WriteJSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReadSuiteResult reads a run's result document (run.json). It refuses a
// document of a format major version this pgseq does not know; unknown
// fields of a known major version are ignored (a minor version may add
// some).
func ReadSuiteResult(r io.Reader) (*SuiteResult, error) {
	var head struct {
		FormatVersion *string `json:"format_version"`
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the run's result: %w", err)
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("reading the run's result: %w", err)
	}
	if head.FormatVersion == nil {
		return nil, errors.New("reading the run's result: it has no format_version: not a pgseq bench result")
	}
	want, _, _ := strings.Cut(ResultFormatVersion, ".")
	got, _, _ := strings.Cut(*head.FormatVersion, ".")
	if got != want {
		return nil, fmt.Errorf("reading the run's result: its format is %q and this pgseq reads format %s.x; use the pgseq that wrote it, or run the benchmark again",
			*head.FormatVersion, want)
	}
	var res SuiteResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("reading the run's result (format %s): %w", *head.FormatVersion, err)
	}
	return &res, nil
}

// RedactCommand returns a copy of the command line args with the password
// of every connection string in it masked (dbconn.Redact): a flag's value
// after '=' (--database-url=postgres://u:pw@h/db, --database-url='host=h
// password=pw'), and any argument that is one or holds one (the value of
// --database-url given as the next argument). A result's command line is
// committed with the result: no password may be in it.
func RedactCommand(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, arg := range args {
		if name, value, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(name, "-") {
			out[i] = name + "=" + dbconn.Redact(value)
			continue
		}
		out[i] = dbconn.Redact(arg)
	}
	return out
}

// WriteAligned writes rows as columns separated by two spaces, each column
// padded to its widest cell (on the left where right is set), trailing
// spaces trimmed: the plain-text tables of bench run and bench compare.
func WriteAligned(b *strings.Builder, rows [][]string, right []bool) {
	widths := make([]int, len(right))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-len([]rune(cell)))
			if right[i] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
