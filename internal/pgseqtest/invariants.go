package pgseqtest

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/migrations"
)

// invariantsSQL checks the invariants of the slot accounting in one
// statement.
//
//go:embed invariants.sql
var invariantsSQL string

// Invariant names, as invariants.sql reports them: migration 005's number,
// then what must hold.
const (
	RunningWithinLimit  = "I1 running <= limit"
	CapacitiesSumLimit  = "I1 capacities sum to the limit"
	HoldersWithinGroup  = "I1 holders <= capacity"
	UsedEqualsHolders   = "I2 used = holders"
	PendingHolderIsOpen = "I2 a pending task holding a unit is open"
	LimitedTaskHoldsOne = "I2 a limited task running or open holds a unit"
	FinishedHoldsNone   = "I3 a finished task holds no unit"
	NoWaitBesideFree    = "I5 no due task waits beside a free unit"
	ReservedHoldsNone   = "I6 a reserved task holds no unit, for a live worker"
)

// Violation is one broken invariant of the slot accounting.
type Violation struct {
	Invariant string  // one of the names above
	TaskType  string  // the task type it concerns
	TaskIDs   []int64 // tasks it concerns (for I5, the one waiting task)
	Detail    string  // what is wrong, with the figures
}

// String returns the invariant and the detail.
func (v Violation) String() string { return v.Invariant + ": " + v.Detail }

// CheckInvariants checks the invariants of the slot accounting of schema in
// one statement, one snapshot, and returns the violations it finds.
// atRest says that no runtime call is in flight: only then does I5 hold.
func CheckInvariants(ctx context.Context, q Querier, schema string, atRest bool) ([]Violation, error) {
	var vs []Violation
	rows, err := q.Query(ctx, InvariantsSQL(schema), atRest)
	if err == nil {
		vs, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Violation])
	}
	if err != nil {
		return nil, fmt.Errorf("checking the slot invariants of schema %s: %w", schema, err)
	}
	return vs, nil
}

// InvariantsSQL returns the statement CheckInvariants runs on schema, for
// a caller that sends it in a batch of its own: its one parameter is
// atRest, and its rows scan into Violation by position
// (pgx.RowToStructByPos).
func InvariantsSQL(schema string) string { return migrations.Render(invariantsSQL, schema) }

// RequireInvariants fails the test, listing the violations, unless every
// invariant of the slot accounting holds, I5 included: for a test that has
// no runtime call in flight.
func (d *DB) RequireInvariants() {
	d.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	vs, err := CheckInvariants(ctx, d.querier(), d.Schema, true)
	if err != nil {
		d.T.Fatal(err)
	}
	if len(vs) > 0 {
		lines := make([]string, len(vs))
		for i, v := range vs {
			lines[i] = v.String()
		}
		d.T.Fatalf("invariant broken: %d violations of the slot accounting:\n%s", len(vs), strings.Join(lines, "\n"))
	}
}
