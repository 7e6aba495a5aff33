// Package counter is the Go client of pgseq's gapless counters: the SQL
// functions migration 003 installs in the pgseq schema (next_value,
// next_values, reserve, commit_reservation, reap_reservations,
// resolve_key).
//
// Numbers are taken inside the caller's transaction, which is the point:
// the scope stays locked until that transaction ends, a commit keeps the
// number and a rollback gives it back, so committed numbers have no gaps
// and never repeat.
//
//	c := counter.New("pgseq")
//	err := counter.InTx(ctx, pool, func(tx pgx.Tx) error {
//		n, err := c.NextValue(ctx, tx, "invoice_number", "")
//		if err != nil {
//			return err
//		}
//		_, err = tx.Exec(ctx, `INSERT INTO invoices (number, …) VALUES ($1, …)`, n)
//		return err
//	})
//
// Attached counters need no client call: their trigger numbers rows as
// they are inserted. Client.Translate names the counter in a lock timeout
// raised by such an insert.
//
// Waits are bounded: a scope held longer than the counter's lock_timeout
// gives a *LockTimeoutError naming the counter and scope. Transactions that
// take numbers from several scopes should do it in one NextValues call
// (which locks scopes in ascending order and never deadlocks); when they
// cannot, InTx runs them again after a deadlock.
//
// Entities created outside the database take their number in two phases
// (seed 003): Reserve records an idempotent reservation, CommitReservation
// assigns the number in the transaction that records the entity, and a
// Reaper commits reservations whose entity exists and fails those that
// expired.
//
// Errors are translated at this boundary: they match sentinels such as
// ErrNotFound, ErrUnknownPrefix, ErrMalformedKey, ErrLockTimeout and
// ErrDeadlock with errors.Is, and keep the *pgconn.PgError for errors.As.
package counter
