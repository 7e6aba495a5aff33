package catalog

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
)

// Counter strategies for attached counters.
const (
	// StrategyCounterTable keeps one counter row per scope, upserted by a
	// BEFORE INSERT trigger: constant time, serialises per scope.
	StrategyCounterTable = "counter_table"
	// StrategyAdvisoryLock takes a per-scope advisory lock and computes
	// MAX(column)+1: no counter rows, for small tables and comparison.
	StrategyAdvisoryLock = "advisory_lock"
)

// Counter is a gapless counter. An attached counter (Table set) numbers the
// rows of a table per scope through a trigger; a standalone counter (Table
// empty) hands out numbers with next_value inside the caller's transaction.
type Counter struct {
	// Name is the counter's unique name (an identifier).
	Name string `json:"name"`
	// Table is the attached table, schema-qualified ("public.tasks"); empty
	// for a standalone counter.
	Table string `json:"table,omitempty"`
	// Column is the attached table's numbered column.
	Column string `json:"column,omitempty"`
	// Scope lists the columns numbering restarts for (may be empty).
	Scope []string `json:"scope,omitempty"`
	// Prefix is a constant key prefix ("INV" → INV-1042); only for a
	// counter with a single numbering (no scope).
	Prefix string `json:"prefix,omitempty"`
	// PrefixFrom takes each scope's prefix from a column of another table,
	// matched to the single scope column through that table's primary key.
	PrefixFrom *PrefixSource `json:"prefix_from,omitempty"`
	// Start is the first value of a new scope (≥ 1).
	Start int64 `json:"start"`
	// LockTimeout bounds the wait for a scope's lock.
	LockTimeout Duration `json:"lock_timeout"`
	// Strategy is StrategyCounterTable or StrategyAdvisoryLock (attached only).
	Strategy string `json:"strategy,omitempty"`
	// IdempotencyWindow enables two-phase allocation when non-zero: pending
	// reservations older than it are failed by the reaper.
	IdempotencyWindow Duration `json:"idempotency_window,omitempty"`
}

// PrefixSource names the table and column holding each scope's key prefix.
type PrefixSource struct {
	Table  string `json:"table"`
	Column string `json:"column"`
}

// Attached reports whether the counter numbers a table's rows.
func (c Counter) Attached() bool { return c.Table != "" }

// DefaultCounterLockTimeout is a counter's lock_timeout when not declared.
const DefaultCounterLockTimeout = Duration(5_000_000_000)

// CounterLive is runtime context about a counter: how much it has issued,
// and whether its database objects are intact. Never drift by itself.
type CounterLive struct {
	// Scopes is the number of scopes with a counter row.
	Scopes int64 `json:"scopes"`
	// MaxValue is the highest value issued in any scope (0: none).
	MaxValue int64 `json:"max_value"`
	// TableMax is the highest value present in the attached table (0: none).
	TableMax int64 `json:"table_max"`
	// TriggerOK is false when an attached counter's trigger is missing or
	// disabled (drift, repaired by apply).
	TriggerOK bool `json:"trigger_ok"`
	// IndexOK is false when the unique index on (scope…, column) is missing.
	IndexOK bool `json:"index_ok"`
}

// AttachFacts are what attaching a counter with a backfill finds in its
// table. Read at plan time for display; the applier checks again under the
// table lock.
type AttachFacts struct {
	// Unnumbered counts rows whose numbered column is NULL (and scope is
	// not): the backfill numbers them in primary-key order after their
	// scope's highest number.
	Unnumbered int64 `json:"unnumbered"`
	// NullScope counts rows with a NULL scope column: they cannot be
	// numbered, and the apply refuses until they have a scope.
	NullScope int64 `json:"null_scope"`
}

// NeedsBackfill reports whether applying desired over actual (the counter
// as it is in the database; nil when new) attaches desired to its table with
// a backfill: a new attached counter, or one whose table, column, scope or
// strategy changes.
func NeedsBackfill(desired Counter, actual *Counter) bool {
	if !desired.Attached() {
		return false
	}
	if actual == nil || !actual.Attached() {
		return true
	}
	if actual.Table != desired.Table || actual.Column != desired.Column || actual.Strategy != desired.Strategy ||
		len(actual.Scope) != len(desired.Scope) {
		return true
	}
	for i := range actual.Scope {
		if actual.Scope[i] != desired.Scope[i] {
			return true
		}
	}
	return false
}

// TriggerVersion marks the body of the trigger function pgseq generates for
// an attached counter. A trigger whose function lacks the current marker was
// made by an older pgseq and is repaired by the next apply, like drift.
// Version 3 runs as the owner (SECURITY DEFINER) with a fixed search_path;
// version 4 numbers through increment_value (migration 11), linear in the
// rows of one transaction.
const TriggerVersion = "pgseq counter trigger v4"

func sortCounters(cs []Counter) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
}

// CounterObjects are the database objects pgseq creates for an attached
// counter, named from the pgseq schema and the counter so that counters of
// different pgseq schemas on one table never collide.
type CounterObjects struct {
	// Function is the trigger function, in the pgseq schema.
	Function string
	// Trigger is the BEFORE INSERT trigger on the attached table.
	Trigger string
	// Index is the unique index on (scope…, column), in the table's schema.
	Index string
}

// ObjectsFor returns the object names of a counter in a pgseq schema.
// A name longer than PostgreSQL's 63-byte limit is cut and ends in a hash of
// the whole name, so long names that share a beginning never collide.
func ObjectsFor(schema, counter string) CounterObjects {
	cut := func(s string) string {
		if len(s) <= 63 {
			return s
		}
		h := fnv.New32a()
		h.Write([]byte(s))
		return fmt.Sprintf("%s_%08x", s[:54], h.Sum32())
	}
	return CounterObjects{
		Function: cut("counter__" + counter),
		Trigger:  cut(schema + "__" + counter),
		Index:    cut(schema + "__" + counter + "_key"),
	}
}

// SystemSchema reports whether a schema belongs to PostgreSQL itself:
// information_schema, or any name starting with pg_ (pg_catalog, pg_toast,
// pg_temp_N…, reserved for the system). pgseq installs nothing there and
// numbers no table there.
func SystemSchema(name string) bool {
	return name == "information_schema" || strings.HasPrefix(name, "pg_")
}

// SplitTable splits "schema.table" into its parts; a bare name is in public.
func SplitTable(qualified string) (schema, table string) {
	for i := 0; i < len(qualified); i++ {
		if qualified[i] == '.' {
			return qualified[:i], qualified[i+1:]
		}
	}
	return "public", qualified
}
