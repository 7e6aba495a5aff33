package counter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reservation is a pending two-phase reservation, as the Reaper shows it to
// its Exists callback.
type Reservation struct {
	// ID is the reservation's id, as Reserve returned it.
	ID int64
	// Counter and Scope say where its number will come from.
	Counter string
	Scope   string
	// IdempotencyKey is the key it was reserved with: the callback's handle
	// to find the entity.
	IdempotencyKey string
	// CreatedAt is when it was reserved.
	CreatedAt time.Time
}

// ExistsFunc reports whether the entity a pending reservation was made for
// exists in the outside store, and its id if so. An error means "unknown":
// the reaper then fails no reservation in that pass.
type ExistsFunc func(ctx context.Context, r Reservation) (entityID string, ok bool, err error)

// Defaults of the ReaperConfig fields left zero.
const (
	DefaultReapInterval = time.Minute
	DefaultReapBatch    = 500
)

// ReaperConfig configures a Reaper. Only DB is required.
type ReaperConfig struct {
	// DB is the database, usually a pool: every commit and the reap run
	// as statements of their own.
	DB DB
	// Client is the counter client (default New("")).
	Client *Client
	// Interval is the time between passes (default DefaultReapInterval).
	// Keep it well under the counters' idempotency_window, so that a
	// reservation whose entity exists is committed before it expires.
	Interval time.Duration
	// Exists, when set, is asked about every pending reservation older than
	// MinAge; those whose entity exists are committed for it (the
	// crash-between-create-and-commit case). Without it the reaper only
	// fails expired reservations.
	Exists ExistsFunc
	// MinAge leaves younger reservations alone: their phase two is probably
	// still running (default 0: all pending reservations are checked;
	// committing one concurrently with its own phase two is harmless, both
	// get the same number).
	MinAge time.Duration
	// BatchSize is how many pending reservations are read per query
	// (default DefaultReapBatch).
	BatchSize int
	// OnPass, when set, is called after every pass of Run with its result
	// and error.
	OnPass func(ReapResult, error)
}

// Reaper settles two-phase reservations left pending (seed 003's reaper):
// it commits those whose entity exists and fails those older than their
// counter's idempotency_window, which burns no number. Every pass is
// idempotent, so reapers may run in several processes at once.
//
// pgseq's queue maintenance (run_maintenance, run by the queue leader)
// also fails expired reservations, without asking Exists: with an Exists
// callback, run the Reaper often enough that it sees each reservation
// before its window ends.
type Reaper struct {
	cfg ReaperConfig
}

// ReapResult counts what one pass did.
type ReapResult struct {
	// Checked is the number of pending reservations shown to Exists.
	Checked int
	// Committed is the number committed because their entity exists.
	Committed int
	// Failed is the number failed because they expired.
	Failed int
}

// NewReaper returns a reaper for cfg.
func NewReaper(cfg ReaperConfig) (*Reaper, error) {
	if cfg.DB == nil {
		return nil, errors.New("counter.NewReaper: ReaperConfig.DB is required")
	}
	if cfg.Interval < 0 || cfg.MinAge < 0 || cfg.BatchSize < 0 {
		return nil, errors.New("counter.NewReaper: Interval, MinAge and BatchSize must not be negative")
	}
	if cfg.Client == nil {
		cfg.Client = New("")
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultReapInterval
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultReapBatch
	}
	return &Reaper{cfg: cfg}, nil
}

// Run makes a pass at once and then every Interval until ctx is cancelled,
// and returns nil then. Errors of a pass go to OnPass; the next pass tries
// again.
func (r *Reaper) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		res, err := r.RunOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if r.cfg.OnPass != nil {
			r.cfg.OnPass(res, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// RunOnce makes one pass: with Exists, it commits every pending
// reservation (older than MinAge) whose entity exists; then, unless Exists
// failed for some reservation, it fails the expired ones. A reservation
// that expired in the meantime, or was committed by its own phase two, is
// left as it is.
func (r *Reaper) RunOnce(ctx context.Context) (ReapResult, error) {
	var res ReapResult
	var errs []error
	if r.cfg.Exists != nil {
		after := int64(0)
		for {
			batch, err := r.pending(ctx, after)
			if err != nil {
				return res, err
			}
			for _, p := range batch {
				res.Checked++
				entity, ok, err := r.cfg.Exists(ctx, p)
				if err != nil {
					errs = append(errs, fmt.Errorf("checking the entity of reservation %d (counter %q, key %q): %w", p.ID, p.Counter, p.IdempotencyKey, err))
					continue
				}
				if !ok {
					continue
				}
				_, err = r.cfg.Client.CommitReservation(ctx, r.cfg.DB, p.ID, entity)
				switch {
				case err == nil:
					res.Committed++
				case errors.Is(err, ErrReservationExpired):
					// Failed by another reaper (or the queue maintenance)
					// since it was read.
				default:
					errs = append(errs, err)
				}
			}
			if len(batch) < r.cfg.BatchSize {
				break
			}
			after = batch[len(batch)-1].ID
		}
	}
	if len(errs) > 0 {
		return res, fmt.Errorf("reaper: not failing expired reservations in this pass: %w", errors.Join(errs...))
	}
	n, err := r.cfg.Client.ReapReservations(ctx, r.cfg.DB)
	res.Failed = n
	return res, err
}

func (r *Reaper) pending(ctx context.Context, after int64) ([]Reservation, error) {
	rows, err := r.cfg.DB.Query(ctx, r.cfg.Client.sql.pending, r.cfg.MinAge, after, r.cfg.BatchSize)
	if err != nil {
		return nil, fmt.Errorf("reading pending reservations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Reservation, error) {
		var p Reservation
		err := row.Scan(&p.ID, &p.Counter, &p.Scope, &p.IdempotencyKey, &p.CreatedAt)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading pending reservations: %w", err)
	}
	return out, nil
}
