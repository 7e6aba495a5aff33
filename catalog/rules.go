package catalog

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The rules below are the ones a configuration is held to. Package spec
// checks each attribute of an HCL file with them (and adds where it was
// written); package plan checks every object of a saved plan with the
// Validate methods built from them. A value the configuration language
// refuses is therefore refused in a plan file too.

// Bounds of queue and task type settings.
const (
	// MinBatchSize and MaxBatchSize bound a queue's batch_size.
	MinBatchSize = 1
	MaxBatchSize = 10_000
	// MaxRetries bounds max_retries in queue and task blocks.
	MaxRetries = 1000
	// MaxPriority bounds a task's priority: it lies in [-MaxPriority, MaxPriority].
	MaxPriority = 1000
	// MinLease is the shortest worker_timeout and leader_lease.
	MinLease = Duration(time.Second)
)

// Bounds of counter settings.
const (
	// MaxCounterStart is the largest start a counter may declare (2^62).
	MaxCounterStart = 1 << 62
	// MinCounterLockTimeout and MaxCounterLockTimeout bound a counter's
	// lock_timeout.
	MinCounterLockTimeout = Duration(time.Millisecond)
	MaxCounterLockTimeout = Duration(time.Hour)
	// MinIdempotencyWindow is the shortest idempotency_window.
	MinIdempotencyWindow = Duration(time.Second)
)

// The range of every bounded attribute, named in HCL spelling.
var (
	BatchSizeRange           = IntRange{Attr: "batch_size", Min: MinBatchSize, Max: MaxBatchSize}
	MaxRetriesRange          = IntRange{Attr: "max_retries", Min: 0, Max: MaxRetries}
	WorkerTimeoutRange       = DurationRange{Attr: "worker_timeout", Min: MinLease}
	LeaderLeaseRange         = DurationRange{Attr: "leader_lease", Min: MinLease}
	BackoffInitialRange      = DurationRange{Attr: "backoff.initial"}
	BackoffMaxRange          = DurationRange{Attr: "backoff.max"}
	BackoffFactorRange       = NumberRange{Attr: "backoff.factor", Min: 1, Max: MaxBackoffFactor}
	BackoffJitterRange       = NumberRange{Attr: "backoff.jitter", Min: 0, Max: 1}
	RetentionCompletedRange  = DurationRange{Attr: "retention.completed"}
	RetentionDeadLetterRange = DurationRange{Attr: "retention.dead_letter"}

	// ConcurrencyRange bounds a declared limit; a TaskType's Concurrency may
	// also be 0, which means unlimited (no concurrency argument).
	ConcurrencyRange = IntRange{Attr: "concurrency", Min: 1, Max: MaxConcurrency}
	PriorityRange    = IntRange{Attr: "priority", Min: -MaxPriority, Max: MaxPriority}
	// PartitionConcurrencyRange bounds a per-key limit.
	PartitionConcurrencyRange = IntRange{Attr: "partition.concurrency", Min: 1, Max: MaxConcurrency}

	CounterStartRange       = IntRange{Attr: "start", Min: 1, Max: MaxCounterStart}
	CounterLockTimeoutRange = DurationRange{Attr: "lock_timeout", Min: MinCounterLockTimeout, Max: MaxCounterLockTimeout}
	IdempotencyWindowRange  = DurationRange{Attr: "idempotency_window", Min: MinIdempotencyWindow}
)

// AttrError is one invalid attribute of an object.
type AttrError struct {
	// Attr is the attribute in HCL spelling, dotted for nested blocks
	// ("backoff.max"), or "name" for the object's name.
	Attr string
	// Msg says what is wrong, as a sentence without its final period.
	Msg string
}

func (e *AttrError) Error() string { return e.Msg }

// Errors is the list of problems Validate found in one object.
type Errors []*AttrError

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Msg
	}
	return strings.Join(msgs, "; ")
}

// add appends err, an *AttrError or nil.
func (es *Errors) add(err error) {
	if e, ok := err.(*AttrError); ok && e != nil {
		*es = append(*es, e)
	}
}

func (es *Errors) addf(attr, format string, args ...any) {
	*es = append(*es, &AttrError{Attr: attr, Msg: fmt.Sprintf(format, args...)})
}

// orNil returns nil for no problems, so that Validate's result compares
// equal to nil.
func (es Errors) orNil() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// IntRange is the inclusive range of a whole-number attribute.
type IntRange struct {
	// Attr is the attribute in HCL spelling.
	Attr     string
	Min, Max int64
}

// Check returns nil when v lies in the range, else an *AttrError.
func (r IntRange) Check(v int64) error {
	if v >= r.Min && v <= r.Max {
		return nil
	}
	return r.Invalid(strconv.FormatInt(v, 10))
}

// Invalid returns the error for a value that is not a whole number in the
// range, written as got: "batch_size must be a whole number from 1 to
// 10000; got 0".
func (r IntRange) Invalid(got string) *AttrError {
	return &AttrError{Attr: r.Attr, Msg: fmt.Sprintf("%s must be a whole number from %d to %d; got %s", r.Attr, r.Min, r.Max, got)}
}

// NumberRange is the inclusive range of a number attribute (fractions
// allowed). Max may be +Inf.
type NumberRange struct {
	// Attr is the attribute in HCL spelling.
	Attr     string
	Min, Max float64
}

// Check returns nil when v is a finite number in the range, else an
// *AttrError.
func (r NumberRange) Check(v float64) error {
	if !math.IsNaN(v) && !math.IsInf(v, 0) && v >= r.Min && v <= r.Max {
		return nil
	}
	return r.Invalid(strconv.FormatFloat(v, 'g', -1, 64))
}

// Invalid returns the error for a value outside the range, written as got:
// "backoff.jitter must be a number from 0 to 1; got 2".
func (r NumberRange) Invalid(got string) *AttrError {
	bounds := fmt.Sprintf("a number from %g to %g", r.Min, r.Max)
	if math.IsInf(r.Max, 1) {
		bounds = fmt.Sprintf("a number of at least %g", r.Min)
	}
	return &AttrError{Attr: r.Attr, Msg: fmt.Sprintf("%s must be %s; got %s", r.Attr, bounds, got)}
}

// DurationRange is the inclusive range of a duration attribute. A Max of 0
// sets no upper bound.
type DurationRange struct {
	// Attr is the attribute in HCL spelling.
	Attr     string
	Min, Max Duration
}

// Check returns nil when d lies in the range, else an *AttrError:
// "worker_timeout must be at least 1s; got 500ms".
func (r DurationRange) Check(d Duration) error {
	switch {
	case d < 0:
		return &AttrError{Attr: r.Attr, Msg: fmt.Sprintf("%s must not be negative", r.Attr)}
	case r.Max == 0 && d < r.Min:
		return &AttrError{Attr: r.Attr, Msg: fmt.Sprintf("%s must be at least %s; got %s", r.Attr, r.Min, d)}
	case r.Max != 0 && (d < r.Min || d > r.Max):
		return &AttrError{Attr: r.Attr, Msg: fmt.Sprintf("%s must be from %s to %s; got %s", r.Attr, r.Min, r.Max, d)}
	}
	return nil
}

// MaxTaskNameLen is the longest task type name, in bytes.
const MaxTaskNameLen = 128

var (
	queueNameRE   = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	taskNameRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$`)
	counterNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)
	identRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]{0,62}$`)
	prefixRE      = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,15}$`)
)

var schemaNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// ValidSchemaName reports whether name may name the schema pgseq manages
// (--schema): ^[a-z_][a-z0-9_]{0,62}$, and not one of PostgreSQL's own
// (SystemSchema).
func ValidSchemaName(name string) bool { return schemaNameRE.MatchString(name) && !SystemSchema(name) }

// ValidQueueName reports whether name may name a queue:
// ^[a-z][a-z0-9_-]{0,62}$.
func ValidQueueName(name string) bool { return queueNameRE.MatchString(name) }

// ValidTaskName reports whether name may name a task type:
// ^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$, at most MaxTaskNameLen bytes.
func ValidTaskName(name string) bool {
	return len(name) <= MaxTaskNameLen && taskNameRE.MatchString(name)
}

// ValidCounterName reports whether name may name a counter:
// ^[a-z_][a-z0-9_]{0,62}$, as it becomes part of SQL object names.
func ValidCounterName(name string) bool { return counterNameRE.MatchString(name) }

// ValidIdentifier reports whether name is an SQL identifier that needs no
// quotes, at most 63 bytes: a column, a table or a schema.
func ValidIdentifier(name string) bool { return identRE.MatchString(name) }

// ValidQualifiedTable reports whether name is schema.table with both parts
// valid identifiers, the form in which a Counter holds its tables.
func ValidQualifiedTable(name string) bool {
	schema, table, ok := strings.Cut(name, ".")
	return ok && ValidIdentifier(schema) && ValidIdentifier(table)
}

// ValidPrefix reports whether p may be a counter's key prefix: a letter
// followed by at most 15 letters or digits.
func ValidPrefix(p string) bool { return prefixRE.MatchString(p) }

// Validate checks the queue against the rules of the configuration
// language: a valid name and every setting in its range. It returns nil or
// Errors, one *AttrError per problem.
func (q Queue) Validate() error {
	var es Errors
	if !ValidQueueName(q.Name) {
		es.addf("name", "%q is not a valid queue name (^[a-z][a-z0-9_-]{0,62}$)", q.Name)
	}
	es.add(BatchSizeRange.Check(int64(q.BatchSize)))
	es.add(MaxRetriesRange.Check(int64(q.MaxRetries)))
	es.add(WorkerTimeoutRange.Check(q.WorkerTimeout))
	es.add(LeaderLeaseRange.Check(q.LeaderLease))
	es.add(BackoffInitialRange.Check(q.Backoff.Initial))
	es.add(BackoffMaxRange.Check(q.Backoff.Max))
	es.add(BackoffFactorRange.Check(q.Backoff.Factor))
	es.add(BackoffJitterRange.Check(q.Backoff.Jitter))
	es.add(RetentionCompletedRange.Check(q.Retention.Completed))
	es.add(RetentionDeadLetterRange.Check(q.Retention.DeadLetter))
	if q.Backoff.Max < q.Backoff.Initial {
		es.addf("backoff.max", "backoff.max (%s) is less than backoff.initial (%s)", q.Backoff.Max, q.Backoff.Initial)
	}
	return es.orNil()
}

// Validate checks the task type against the rules of the configuration
// language: valid names, a limit that is 0 (unlimited) or in
// ConcurrencyRange, max_retries and priority in range. It returns nil or
// Errors.
func (t TaskType) Validate() error {
	var es Errors
	if !ValidTaskName(t.Name) {
		es.addf("name", "%q is not a valid task name (^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$, at most %d bytes)", t.Name, MaxTaskNameLen)
	}
	if !ValidQueueName(t.Queue) {
		es.addf("queue", "%q is not a valid queue name", t.Queue)
	}
	if t.Concurrency != 0 {
		es.add(ConcurrencyRange.Check(int64(t.Concurrency)))
	}
	if t.MaxRetries != nil {
		es.add(MaxRetriesRange.Check(int64(*t.MaxRetries)))
	}
	es.add(PriorityRange.Check(int64(t.Priority)))
	if p := t.Partition; p != nil {
		es.add(PartitionConcurrencyRange.Check(int64(p.Concurrency)))
		if p.By != "" && !ValidPartitionField(p.By) {
			es.addf("partition.by", "%q is not a top-level payload field name (1 to %d bytes, no dots)", p.By, MaxPartitionFieldLen)
		}
	}
	return es.orNil()
}

// MaxPartitionFieldLen bounds the payload field a partition block names.
const MaxPartitionFieldLen = 200

// ValidPartitionField reports whether name can be the top-level payload
// field of a partition block's by: not empty, at most
// MaxPartitionFieldLen bytes, no dot (a nested field is not supported).
func ValidPartitionField(name string) bool {
	return name != "" && len(name) <= MaxPartitionFieldLen && !strings.Contains(name, ".")
}

// Validate checks the counter against the rules of the configuration
// language, in the form package spec produces: names and identifiers, a
// table schema-qualified, table and column together, scope, prefix and
// strategy only where they apply, a prefix upper-case, and start,
// lock_timeout and idempotency_window in range. It returns nil or Errors.
func (c Counter) Validate() error {
	var es Errors
	if !ValidCounterName(c.Name) {
		es.addf("name", "%q is not a valid counter name (^[a-z_][a-z0-9_]{0,62}$)", c.Name)
	}
	switch {
	case c.Table != "" && c.Column == "":
		es.addf("column", "an attached counter needs a column")
	case c.Table == "" && c.Column != "":
		es.addf("table", "an attached counter needs a table")
	}
	if c.Table != "" && !ValidQualifiedTable(c.Table) {
		es.addf("table", "%q is not a schema-qualified table name (schema.name, each part ^[A-Za-z_][A-Za-z0-9_$]{0,62}$)", c.Table)
	}
	if c.Column != "" && !ValidIdentifier(c.Column) {
		es.addf("column", "%q is not a valid column name", c.Column)
	}
	seen := map[string]bool{}
	for i, s := range c.Scope {
		attr := fmt.Sprintf("scope[%d]", i)
		switch {
		case !ValidIdentifier(s):
			es.addf(attr, "%s: %q is not a valid column name", attr, s)
		case seen[s]:
			es.addf(attr, "%s: %q is listed twice", attr, s)
		case s == c.Column:
			es.addf(attr, "%s: %q is the numbered column itself", attr, s)
		}
		seen[s] = true
	}
	if c.Prefix != "" && (!ValidPrefix(c.Prefix) || c.Prefix != strings.ToUpper(c.Prefix)) {
		es.addf("prefix", "%q is not a valid prefix (an upper-case letter followed by at most 15 upper-case letters or digits)", c.Prefix)
	}
	if c.PrefixFrom != nil {
		if !ValidQualifiedTable(c.PrefixFrom.Table) {
			es.addf("prefix_from.table", "%q is not a schema-qualified table name", c.PrefixFrom.Table)
		}
		if !ValidIdentifier(c.PrefixFrom.Column) {
			es.addf("prefix_from.column", "%q is not a valid column name", c.PrefixFrom.Column)
		}
		if c.Prefix != "" {
			es.addf("prefix", "a counter has either prefix or prefix_from, not both")
		}
	}
	if c.Attached() {
		if c.Strategy != StrategyCounterTable && c.Strategy != StrategyAdvisoryLock {
			es.addf("strategy", "strategy must be %q or %q; got %q", StrategyCounterTable, StrategyAdvisoryLock, c.Strategy)
		}
		if c.Prefix != "" && len(c.Scope) > 0 {
			es.addf("prefix", "a scoped counter cannot have a constant prefix; use prefix_from")
		}
		if c.PrefixFrom != nil && len(c.Scope) != 1 {
			es.addf("prefix_from", "prefix_from needs exactly one scope column; the counter has %d", len(c.Scope))
		}
		if c.IdempotencyWindow != 0 {
			es.addf("idempotency_window", "idempotency_window is for standalone counters only")
		}
	} else {
		if len(c.Scope) > 0 {
			es.addf("scope", "scope is for attached counters only")
		}
		if c.Strategy != "" {
			es.addf("strategy", "strategy is for attached counters only")
		}
		if c.PrefixFrom != nil {
			es.addf("prefix_from", "prefix_from is for attached counters only")
		}
		if c.IdempotencyWindow != 0 {
			es.add(IdempotencyWindowRange.Check(c.IdempotencyWindow))
		}
	}
	es.add(CounterStartRange.Check(c.Start))
	es.add(CounterLockTimeoutRange.Check(c.LockTimeout))
	return es.orNil()
}
