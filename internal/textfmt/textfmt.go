// Package textfmt formats numbers and counted nouns for people: 88,310,
// "1 round", "200,000 tasks", "1 unit is", "3 units are". It is the one
// place the reports, status and the commands take these from, so that a
// count reads the same everywhere.
package textfmt

import (
	"math"
	"strconv"
	"strings"
)

// Integer is the integer types the functions take, so that callers pass
// len(x), an int field or an int64 count as they are.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

// Thousands writes n with a comma between groups of three digits:
// 88310 as "88,310", -1000 as "-1,000".
func Thousands[N Integer](n N) string {
	return group(strconv.FormatInt(int64(n), 10))
}

// ThousandsFloat writes x rounded to a whole number (halves to even, as
// %.0f rounds) with a comma between groups of three digits: 23456.5 as
// "23,456". Infinities and NaN read as %.0f writes them ("+Inf", "NaN").
func ThousandsFloat(x float64) string {
	s := strconv.FormatFloat(x, 'f', 0, 64)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return s
	}
	return group(s)
}

// group puts a comma between groups of three digits of s, decimal digits
// after an optional minus sign.
func group(s string) string {
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	if len(digits) < len(s) {
		b.WriteByte('-')
	}
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}

// Count writes n, with thousands separators, and one when n is 1, many
// otherwise: Count(1, "unit is", "units are") is "1 unit is",
// Count(1000, "unit is", "units are") is "1,000 units are". It takes
// irregular plurals and phrases with a verb; Plural is the regular case.
func Count[N Integer](n N, one, many string) string {
	return Thousands(n) + " " + Word(n, one, many)
}

// Plural writes n, with thousands separators, and noun, with an s added
// unless n is 1: "1 round", "0 rounds", "200,000 no-op tasks". noun is
// singular and takes a regular plural; Count takes any other.
func Plural[N Integer](n N, noun string) string {
	return Count(n, noun, noun+"s")
}

// Word returns one when n is 1 and many otherwise, without n: the word
// for a count written elsewhere ("row" or "rows", "finishes" or "finish").
func Word[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
