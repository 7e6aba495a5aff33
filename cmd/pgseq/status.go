package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/internal/dbconn"
	"github.com/pgseq/pgseq/status"
)

// statusTerminal reports whether status writes to a terminal (redraw in
// place, colours); tests replace it.
var statusTerminal = func(w io.Writer) bool { return isTerminal(w) }

// Terminal control for --watch: cursor home, clear the screen.
const clearScreen = "\x1b[H\x1b[2J"

func (a *app) statusCommand() *cobra.Command {
	var (
		asJSON    bool
		watch     bool
		interval  = 2 * time.Second
		queueName string
	)
	cmd := &cobra.Command{
		Use:   "status [--queue NAME] [--json] [--watch [--interval 2s]]",
		Short: "Show the live state: queues, limits, workers, leader, counters",
		Long: `Shows the live state of pgseq's schema at a glance, read in one snapshot:

  queues     pending tasks (due now: ready to claim or waiting for a unit of
             their limited type; scheduled for later), running, failed, dead
             letter, and how long the oldest due task has waited
  limits     per limited task type: running tasks against the limit, the slot
             groups' units in use, tasks waiting for a unit; "binding" when
             they wait because every unit is in use, "draining" (with the
             groups over capacity) after a lowered limit
  workers    alive, late (no heartbeat within the longest worker_timeout: the
             leader will declare them dead) and dead, with their last heartbeat
  leader     the worker holding the leader lease, and whether it is live
  counters   scopes numbered, the highest value issued, pending reservations

It never scans the tasks table: counts are read through the runtime's
indexes, exact up to 10,000; beyond that they show as "10,000+" with the
planner's estimate ("≈1.2M", from the statistics of the last ANALYZE).

  --queue NAME      only this queue and its task types (workers, the leader
                    and counters are shown all the same)
  --json            print one JSON document (see docs/cli.md); with --watch,
                    one document per line (JSON Lines)
  --watch           refresh every --interval until Ctrl-C: on a terminal the
                    screen is redrawn; otherwise a snapshot is printed every
                    interval, separated by a blank line
  --interval 2s     time between refreshes with --watch

Not to be confused with "pgseq dev status", which says whether the built-in
local database server is running.`,
		Example: `  pgseq status
  pgseq status --queue media --watch
  pgseq status --json | jq '.limits[] | select(.binding) | .task_type'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("interval") && !watch {
				return errors.New("--interval needs --watch")
			}
			ctx := cmd.Context()
			pool, err := a.connect(ctx, "pgseq status")
			if err != nil {
				return err
			}
			defer pool.Close()
			s := &statusRun{a: a, pool: pool, opts: status.Options{Queue: queueName}, json: asJSON}
			s.terminal = statusTerminal(a.stdout)
			s.color = s.terminal && os.Getenv("NO_COLOR") == ""
			if !watch {
				return s.once(ctx)
			}
			return s.watch(ctx, interval)
		},
	}
	f := cmd.Flags()
	f.StringVar(&queueName, "queue", "", "show only this queue and its task types")
	f.BoolVar(&asJSON, "json", false, "print JSON (with --watch: one document per line)")
	f.BoolVar(&watch, "watch", false, "refresh every --interval until Ctrl-C")
	f.Var(positiveDuration{&interval}, "interval", "time between refreshes with --watch")
	return cmd
}

// statusRun prints snapshots of one database.
type statusRun struct {
	a        *app
	pool     *pgxpool.Pool
	opts     status.Options
	json     bool
	terminal bool
	color    bool
}

func (s *statusRun) read(ctx context.Context) (*status.Snapshot, error) {
	snap, err := status.Read(ctx, s.pool, s.a.schema, s.opts)
	if err != nil && ctx.Err() == nil && !errors.Is(err, status.ErrNotMigrated) && !errors.Is(err, status.ErrUnknownQueue) {
		// Those two name the schema already.
		return nil, fmt.Errorf("reading the status of schema %q: %w", s.a.schema, err)
	}
	return snap, err
}

func (s *statusRun) once(ctx context.Context) error {
	snap, err := s.read(ctx)
	if err != nil {
		return err
	}
	if s.json {
		return snap.Write(s.a.stdout)
	}
	return status.Render(s.a.stdout, snap, status.RenderOptions{Color: s.color})
}

// watch prints a snapshot every interval until ctx ends (Ctrl-C), which is
// a normal end. A first read that fails is an error; later failures (the
// database restarting...) are reported and retried at the next refresh.
func (s *statusRun) watch(ctx context.Context, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for first := true; ; first = false {
		snap, err := s.read(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && first {
			return err
		}
		if err := s.frame(snap, err, first, interval); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// frame prints one refresh of --watch: the snapshot, or the error that
// prevented reading it.
func (s *statusRun) frame(snap *status.Snapshot, readErr error, first bool, interval time.Duration) error {
	w := s.a.stdout
	if readErr != nil {
		msg := fmt.Sprintf("Error: %s (trying again in %s)\n", dbconn.Redact(readErr.Error()), interval)
		if s.terminal && !s.json {
			_, err := io.WriteString(w, clearScreen+watchHeader(interval)+msg)
			return err
		}
		_, err := io.WriteString(s.a.stderr, msg)
		return err
	}
	if s.json {
		return snap.WriteLine(w)
	}
	var b strings.Builder
	switch {
	case s.terminal:
		b.WriteString(clearScreen + watchHeader(interval))
	case !first:
		b.WriteByte('\n')
	}
	if err := status.Render(&b, snap, status.RenderOptions{Color: s.color}); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func watchHeader(interval time.Duration) string {
	return fmt.Sprintf("Every %s: pgseq status (Ctrl-C to stop)\n\n", interval)
}
