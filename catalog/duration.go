package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written the way pgseq's HCL writes it:
// a sequence of whole units from days to milliseconds ("7d", "1h30m", "250ms").
// Its text form is canonical, so equal durations print the same.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

var durationUnits = []struct {
	suffix string
	size   time.Duration
}{
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
	{"ms", time.Millisecond},
}

// String returns the canonical form: "0s" for zero, otherwise the largest
// units first with no zero parts ("1d12h", "90s" prints as "1m30s").
// Sub-millisecond remainders are dropped.
func (d Duration) String() string {
	v := time.Duration(d)
	if v < time.Millisecond {
		return "0s"
	}
	var b strings.Builder
	for _, u := range durationUnits {
		if n := v / u.size; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10))
			b.WriteString(u.suffix)
			v -= n * u.size
		}
	}
	return b.String()
}

// ParseDuration parses a duration such as "30s", "10m", "7d", "1h30m" or
// "250ms". Units: d, h, m, s, ms. The value must be non-negative.
func ParseDuration(s string) (Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("empty duration; write a number and a unit, such as \"30s\"")
	}
	if in == "0" {
		return 0, nil
	}
	var total time.Duration
	rest := in
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("invalid duration %q: expected a number at %q", s, rest)
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: number out of range", s)
		}
		rest = rest[i:]
		j := 0
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		var size time.Duration
		for _, u := range durationUnits {
			if u.suffix == unit {
				size = u.size
			}
		}
		if size == 0 {
			if unit == "" {
				return 0, fmt.Errorf("invalid duration %q: missing unit after %d (use d, h, m, s or ms)", s, n)
			}
			return 0, fmt.Errorf("invalid duration %q: unknown unit %q (use d, h, m, s or ms)", s, unit)
		}
		if n > int64((1<<63-1)/size) || total > time.Duration(1<<63-1)-time.Duration(n)*size {
			return 0, fmt.Errorf("invalid duration %q: too long", s)
		}
		total += time.Duration(n) * size
	}
	return Duration(total), nil
}

// MarshalText writes the canonical form.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses what MarshalText wrote (and any ParseDuration input).
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
