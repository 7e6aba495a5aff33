package textfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{88_310, "88,310"},
		{1_234_567, "1,234,567"},
		{-1, "-1"},
		{-1000, "-1,000"},
		{-123_456, "-123,456"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Thousands(int32(-20_000)); got != "-20,000" {
		t.Errorf("Thousands(int32(-20000)) = %q", got)
	}
}

func TestThousandsFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{0.4, "0"},
		{999.4, "999"},
		{999.5, "1,000"},
		{2.5, "2"}, // halves to even, as %.0f
		{3.5, "4"},
		{23_456.5, "23,456"},
		{42_786.3, "42,786"},
		{-1234.6, "-1,235"},
		{-0.4, "-0"}, // as %.0f writes it
		{1e9, "1,000,000,000"},
		{math.Inf(1), "+Inf"},
		{math.Inf(-1), "-Inf"},
		{math.NaN(), "NaN"},
	} {
		if got := ThousandsFloat(tc.x); got != tc.want {
			t.Errorf("ThousandsFloat(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"plural 0", Plural(0, "round"), "0 rounds"},
		{"plural 1", Plural(1, "round"), "1 round"},
		{"plural 2", Plural(2, "task type"), "2 task types"},
		{"plural -1", Plural(-1, "round"), "-1 rounds"},
		{"plural thousands", Plural(200_000, "no-op task"), "200,000 no-op tasks"},
		{"plural int64", Plural(int64(1), "CPU"), "1 CPU"},
		{"count 1", Count(1, "unit is", "units are"), "1 unit is"},
		{"count 0", Count(0, "unit is", "units are"), "0 units are"},
		{"count thousands", Count(int64(1000), "unit is", "units are"), "1,000 units are"},
		{"word 1", Word(1, "row", "rows"), "row"},
		{"word 0", Word(0, "row", "rows"), "rows"},
		{"word 2", Word(int64(2), "finishes", "finish"), "finish"},
		{"word -1", Word(-1, "row", "rows"), "rows"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
