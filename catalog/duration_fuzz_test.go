package catalog

import (
	"strings"
	"testing"
)

// FuzzParseDuration: no input panics; an accepted duration is not negative
// and its canonical form parses back to the same value; a rejected one
// says which input it rejects. A longer session:
//
//	go test ./catalog -run '^$' -fuzz '^FuzzParseDuration$' -fuzztime 10m
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{
		"0", "30s", "10m", "7d", "1h30m", "250ms", " 5s ", "", "5", "s", "-1s", "1.5s",
		"9223372036854775807ms", "106751d23h47m16s854ms", "106751d23h47m16s855ms", "99999999999999999999d",
		"1d1d", "1m1ms", "1µs", "1ns", "1h 30m", "0s", "00000000000000000000001s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if !strings.Contains(err.Error(), "duration") {
				t.Fatalf("ParseDuration(%q): the error does not say what it rejects: %v", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %d, negative", s, d)
		}
		again, err := ParseDuration(d.String())
		if err != nil {
			t.Fatalf("ParseDuration(%q) = %s, which does not parse: %v", s, d, err)
		}
		if again != d {
			t.Fatalf("ParseDuration(%q) = %d; its canonical form %q parses to %d", s, d, d.String(), again)
		}
	})
}
