package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "30s", want: 30 * time.Second},
		{in: "10m", want: 10 * time.Minute},
		{in: "7d", want: 7 * 24 * time.Hour},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "250ms", want: 250 * time.Millisecond},
		{in: "1d2h3m4s5ms", want: 26*time.Hour + 3*time.Minute + 4*time.Second + 5*time.Millisecond},
		{in: "0", want: 0},
		{in: " 5s ", want: 5 * time.Second},
		{in: "", wantErr: "empty duration"},
		{in: "5", wantErr: "missing unit"},
		{in: "5w", wantErr: `unknown unit "w"`},
		{in: "1.5h", wantErr: "unknown unit"},
		{in: "-5s", wantErr: "expected a number"},
		{in: "s", wantErr: "expected a number"},
		{in: "99999999999999999999s", wantErr: "out of range"},
		{in: "999999999d", wantErr: "too long"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.wantErr != "" {
			require.ErrorContains(t, err, tt.wantErr, "input %q", tt.in)
			continue
		}
		require.NoError(t, err, "input %q", tt.in)
		require.Equal(t, tt.want, got.Std(), "input %q", tt.in)
	}
}

func TestDurationCanonicalForm(t *testing.T) {
	t.Parallel()
	tests := map[time.Duration]string{
		0:                       "0s",
		90 * time.Second:        "1m30s",
		168 * time.Hour:         "7d",
		36 * time.Hour:          "1d12h",
		1500 * time.Millisecond: "1s500ms",
		time.Microsecond:        "0s",
	}
	for d, want := range tests {
		require.Equal(t, want, Duration(d).String())
	}
	// Every canonical form parses back to the same duration.
	for ms := int64(0); ms < 200_000; ms += 997 {
		for _, scale := range []time.Duration{time.Millisecond, time.Second, time.Minute, time.Hour} {
			d := Duration(time.Duration(ms) * scale)
			back, err := ParseDuration(d.String())
			require.NoError(t, err)
			require.Equal(t, d, back)
		}
	}
}
