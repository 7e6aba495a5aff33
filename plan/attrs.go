package plan

import (
	"strconv"
	"strings"

	"github.com/pgseq/pgseq/catalog"
)

// Attr is one attribute of an object, in HCL spelling, with its value
// written as an HCL literal ("100", "\"30s\"", "null").
type Attr struct {
	// Name is the attribute name; nested blocks are dotted ("backoff.initial").
	Name string
	// Value is the HCL literal.
	Value string
}

// Attributes lists an object's managed attributes in display order. obj is a
// *catalog.Queue or *catalog.TaskType; anything else yields nil.
func Attributes(obj any) []Attr {
	switch o := obj.(type) {
	case *catalog.Queue:
		return queueAttrs(*o)
	case *catalog.TaskType:
		return taskAttrs(*o)
	case *catalog.Counter:
		return counterAttrs(*o)
	}
	return nil
}

func counterAttrs(c catalog.Counter) []Attr {
	str := func(s string) string {
		if s == "" {
			return "null"
		}
		return quote(s)
	}
	scope := make([]string, len(c.Scope))
	for i, s := range c.Scope {
		scope[i] = quote(s)
	}
	prefixTable, prefixColumn := "null", "null"
	if c.PrefixFrom != nil {
		prefixTable, prefixColumn = quote(c.PrefixFrom.Table), quote(c.PrefixFrom.Column)
	}
	window := "null"
	if c.IdempotencyWindow != 0 {
		window = quote(c.IdempotencyWindow.String())
	}
	return []Attr{
		{"table", str(c.Table)},
		{"column", str(c.Column)},
		{"scope", "[" + strings.Join(scope, ", ") + "]"},
		{"prefix", str(c.Prefix)},
		{"prefix_from.table", prefixTable},
		{"prefix_from.column", prefixColumn},
		{"start", strconv.FormatInt(c.Start, 10)},
		{"lock_timeout", quote(c.LockTimeout.String())},
		{"strategy", str(c.Strategy)},
		{"idempotency_window", window},
	}
}

func queueAttrs(q catalog.Queue) []Attr {
	return []Attr{
		{"batch_size", strconv.Itoa(q.BatchSize)},
		{"max_retries", strconv.Itoa(q.MaxRetries)},
		{"worker_timeout", quote(q.WorkerTimeout.String())},
		{"leader_lease", quote(q.LeaderLease.String())},
		{"backoff.initial", quote(q.Backoff.Initial.String())},
		{"backoff.max", quote(q.Backoff.Max.String())},
		{"backoff.factor", number(q.Backoff.Factor)},
		{"backoff.jitter", number(q.Backoff.Jitter)},
		{"retention.completed", quote(q.Retention.Completed.String())},
		{"retention.dead_letter", quote(q.Retention.DeadLetter.String())},
	}
}

func taskAttrs(t catalog.TaskType) []Attr {
	conc := "null"
	if t.Concurrency > 0 {
		conc = strconv.Itoa(t.Concurrency)
	}
	retries := "null"
	if t.MaxRetries != nil {
		retries = strconv.Itoa(*t.MaxRetries)
	}
	return []Attr{
		{"queue", quote(t.Queue)},
		{"concurrency", conc},
		{"max_retries", retries},
		{"priority", strconv.Itoa(t.Priority)},
	}
}

// ChangedAttributes returns the names of the attributes whose values differ
// between two objects of the same kind, in display order.
func ChangedAttributes(before, after any) []string {
	a, b := Attributes(before), Attributes(after)
	var out []string
	for i := range a {
		if i < len(b) && a[i].Value != b[i].Value {
			out = append(out, a[i].Name)
		}
	}
	return out
}

func quote(s string) string { return strconv.Quote(s) }

func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
