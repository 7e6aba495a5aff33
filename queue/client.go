package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgseq/pgseq/internal/pgcode"
	"github.com/pgseq/pgseq/migrations"
)

// DB is what the Client needs: a *pgxpool.Pool, a *pgx.Conn or a pgx.Tx.
// Enqueueing on a transaction makes the task appear exactly when the
// caller's own changes commit.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// SQLSTATEs the runtime raises.
const (
	// CodeUnknownTaskType: enqueue of a task type that is not declared.
	CodeUnknownTaskType = "PS001"
	// CodeNotLeader: run_maintenance by a worker that does not hold the lease.
	CodeNotLeader = "PS003"
	// CodePartitionKeyMissing: enqueue of a task of a partitioned type
	// without a partition key (none given, and no payload field).
	CodePartitionKeyMissing = "PS032"
)

// ErrUnknownTaskType means a task type is not declared in the schema (no
// task block for it was applied). Errors from Enqueue and EnqueueBatch wrap
// it together with the database error.
var ErrUnknownTaskType = errors.New("unknown task type")

// ErrPartitionKeyMissing means a task of a partitioned type was enqueued
// without a partition key: none was given (WithPartitionKey) and its
// payload lacks the field the type's partition block names.
var ErrPartitionKeyMissing = errors.New("partition key missing")

// Client enqueues tasks into a pgseq schema. It is safe for concurrent use
// (when its DB is: a pool is, a transaction is not).
type Client struct {
	db     DB
	schema string
	sql    *statements
}

// NewClient returns a client for the runtime in schema ("" means pgseq's
// default schema) that runs its statements on db.
func NewClient(db DB, schema string) *Client {
	if schema == "" {
		schema = migrations.DefaultSchema
	}
	return &Client{db: db, schema: schema, sql: newStatements(schema)}
}

// WithDB returns a client for the same schema that runs its statements on
// db, typically the caller's transaction:
//
//	id, err := c.WithDB(tx).Enqueue(ctx, "invoice:render", payload)
func (c *Client) WithDB(db DB) *Client {
	return &Client{db: db, schema: c.schema, sql: c.sql}
}

// Schema returns the pgseq schema the client works in.
func (c *Client) Schema() string { return c.schema }

// EnqueueOptions are the optional attributes of a new task. The zero value
// means: no idempotency key, the task type's priority, due now.
type EnqueueOptions struct {
	// IdempotencyKey, when not empty, makes enqueueing idempotent per task
	// type: enqueueing a used key again returns the existing task's id.
	IdempotencyKey string
	// Priority overrides the task type's default priority when not nil
	// (higher first).
	Priority *int
	// RunAt, when not zero, is when the task becomes due.
	RunAt time.Time
	// PartitionKey is the task's key for its type's per-key limit (the
	// task block's partition block). Empty: the key comes from the payload
	// field the block names; a partitioned type with neither refuses the
	// task (CodePartitionKeyMissing). Ignored for a type without a
	// partition block.
	PartitionKey string
}

// EnqueueOption sets one of the EnqueueOptions.
type EnqueueOption func(*EnqueueOptions)

// WithIdempotencyKey sets the task's idempotency key.
func WithIdempotencyKey(key string) EnqueueOption {
	return func(o *EnqueueOptions) { o.IdempotencyKey = key }
}

// WithPriority sets the task's priority (higher first).
func WithPriority(p int) EnqueueOption {
	return func(o *EnqueueOptions) { o.Priority = &p }
}

// WithPartitionKey sets the task's partition key: at most the task
// block's partition.concurrency tasks of one key run at once.
func WithPartitionKey(key string) EnqueueOption {
	return func(o *EnqueueOptions) { o.PartitionKey = key }
}

// WithRunAt makes the task due at t.
func WithRunAt(t time.Time) EnqueueOption {
	return func(o *EnqueueOptions) { o.RunAt = t }
}

// NewTask is one task to enqueue with EnqueueBatch.
type NewTask struct {
	// Type is the declared task type; it decides the queue.
	Type string
	// Payload is encoded as the task's JSON payload (see Enqueue).
	Payload any
	EnqueueOptions
}

// Enqueue adds a task of taskType and returns its id. payload is stored as
// JSON: nil stores SQL NULL, json.RawMessage and []byte are taken as encoded
// JSON, anything else goes through encoding/json.
func (c *Client) Enqueue(ctx context.Context, taskType string, payload any, opts ...EnqueueOption) (int64, error) {
	var o EnqueueOptions
	for _, opt := range opts {
		opt(&o)
	}
	p, err := encodePayload(payload)
	if err != nil {
		return 0, fmt.Errorf("enqueueing %q: %w", taskType, err)
	}
	var id int64
	err = c.retry(ctx, func() error {
		if o.PartitionKey != "" {
			// Only with a key: a schema before version 19 takes the others.
			return c.db.QueryRow(ctx, c.sql.enqueueKeyed, taskType, p, nullString(o.IdempotencyKey), o.Priority, nullTime(o.RunAt),
				o.PartitionKey).Scan(&id)
		}
		return c.db.QueryRow(ctx, c.sql.enqueue, taskType, p, nullString(o.IdempotencyKey), o.Priority, nullTime(o.RunAt)).Scan(&id)
	})
	if err != nil {
		return 0, enqueueError(fmt.Sprintf("enqueueing %q", taskType), missingFunction(ctx, c.db, c.schema, err))
	}
	return id, nil
}

// EnqueueBatch adds tasks in one statement and returns their ids in input
// order. Either all are enqueued or none. Keep batches to a few thousand
// tasks: the statement carries every payload.
func (c *Client) EnqueueBatch(ctx context.Context, tasks []NewTask) ([]int64, error) {
	if len(tasks) == 0 {
		return nil, nil
	}
	types := make([]string, len(tasks))
	// Arrays whose elements are all NULL are passed as NULL, so the runtime
	// can take its defaults in one go.
	var (
		payloads   []*string
		keys       []*string
		priorities []*int32
		runAts     []*time.Time
		partitions []*string
	)
	for i, t := range tasks {
		types[i] = t.Type
		p, err := encodePayload(t.Payload)
		if err != nil {
			return nil, fmt.Errorf("enqueueing task %d (%q): %w", i, t.Type, err)
		}
		if p != nil {
			if payloads == nil {
				payloads = make([]*string, len(tasks))
			}
			payloads[i] = p
		}
		if t.IdempotencyKey != "" {
			if keys == nil {
				keys = make([]*string, len(tasks))
			}
			keys[i] = &t.IdempotencyKey
		}
		if t.Priority != nil {
			if priorities == nil {
				priorities = make([]*int32, len(tasks))
			}
			v := int32(*t.Priority)
			priorities[i] = &v
		}
		if !t.RunAt.IsZero() {
			if runAts == nil {
				runAts = make([]*time.Time, len(tasks))
			}
			at := t.RunAt
			runAts[i] = &at
		}
		if t.PartitionKey != "" {
			if partitions == nil {
				partitions = make([]*string, len(tasks))
			}
			partitions[i] = &t.PartitionKey
		}
	}
	var ids []int64
	err := c.retry(ctx, func() error {
		query, args := c.sql.enqueueBatch, []any{types, payloads, keys, priorities, runAts}
		if partitions != nil {
			query, args = c.sql.enqueueBatchKeyed, append(args, partitions)
		}
		rows, err := c.db.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return nil, enqueueError(fmt.Sprintf("enqueueing %d tasks", len(tasks)), missingFunction(ctx, c.db, c.schema, err))
	}
	if len(ids) != len(tasks) {
		return nil, fmt.Errorf("enqueueing %d tasks: the database returned %d ids", len(tasks), len(ids))
	}
	return ids, nil
}

// retryAttempts is how many times an enqueue runs when PostgreSQL aborts it
// as a deadlock victim or for a serialization failure.
const retryAttempts = 4

// retry runs one enqueue statement, again after a short pause when
// PostgreSQL aborted it as a deadlock victim (40P01) or for a serialization
// failure (40001): the statement ran alone, its effects are gone, and
// running it again is what the caller would do. Inside the caller's own
// transaction nothing is retried: the transaction is aborted and only the
// caller can run it again.
func (c *Client) retry(ctx context.Context, run func() error) error {
	if _, inTx := c.db.(pgx.Tx); inTx {
		return run()
	}
	var err error
	for attempt := 1; ; attempt++ {
		if err = run(); err == nil || attempt == retryAttempts || !abortedByServer(err) {
			return err
		}
		pause := time.Duration(attempt*attempt) * 5 * time.Millisecond
		pause += time.Duration(rand.Int64N(int64(pause)))
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// abortedByServer reports whether err is PostgreSQL aborting a statement
// that may succeed when run again.
func abortedByServer(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == pgcode.DeadlockDetected || pgErr.Code == pgcode.SerializationFailure)
}

// encodePayload returns the payload's JSON text, nil for SQL NULL.
func encodePayload(payload any) (*string, error) {
	var b []byte
	switch p := payload.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if p == nil {
			return nil, nil
		}
		b = p
	case []byte:
		if p == nil {
			return nil, nil
		}
		b = p
	default:
		var err error
		if b, err = json.Marshal(payload); err != nil {
			return nil, fmt.Errorf("encoding the payload as JSON: %w", err)
		}
	}
	if !json.Valid(b) {
		return nil, errors.New("the payload is not valid JSON")
	}
	s := string(b)
	return &s, nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// enqueueError says what was being done and marks unknown task types.
func enqueueError(doing string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == CodeUnknownTaskType {
		return fmt.Errorf("%s: %w: %w", doing, ErrUnknownTaskType, err)
	}
	if errors.As(err, &pgErr) && pgErr.Code == CodePartitionKeyMissing {
		return fmt.Errorf("%s: %w: %w", doing, ErrPartitionKeyMissing, err)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// TaskTypes returns the names of the task types declared on a queue, sorted.
func (c *Client) TaskTypes(ctx context.Context, queueName string) ([]string, error) {
	rows, err := c.db.Query(ctx, c.sql.taskTypes, queueName)
	if err != nil {
		return nil, fmt.Errorf("reading the task types of queue %q: %w", queueName, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reading the task types of queue %q: %w", queueName, err)
	}
	return names, nil
}
