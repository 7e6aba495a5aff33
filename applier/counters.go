package applier

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/plan"
)

// applyCounters executes the counter changes, one counter at a time: each
// attached counter has its own trigger, function and table lock. The
// transaction is marked so the guard triggers let pgseq lower or delete
// counter values.
func applyCounters(ctx context.Context, tx pgx.Tx, p *plan.Plan) error {
	var changes []plan.Change
	for _, c := range p.Changes {
		if c.Kind == plan.KindCounter {
			changes = append(changes, c)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('pgseq.applying', 'on', true)`); err != nil {
		return fmt.Errorf("marking the apply transaction: %w", err)
	}
	for _, c := range changes {
		if err := applyCounter(ctx, tx, p.Schema, c); err != nil {
			return fmt.Errorf("applying %s: %w", c.Address, err)
		}
	}
	return nil
}

func applyCounter(ctx context.Context, tx pgx.Tx, schema string, c plan.Change) error {
	before, _ := c.Before.(*catalog.Counter)
	after, _ := c.After.(*catalog.Counter)
	switch c.Action {
	case plan.Create:
		if after == nil {
			return errors.New("a create needs the counter")
		}
		if err := writeCounterRow(ctx, tx, schema, *after); err != nil {
			return err
		}
		if after.Attached() {
			return attach(ctx, tx, schema, *after, true)
		}
		return nil
	case plan.Delete:
		if before == nil {
			return errors.New("a delete needs the counter")
		}
		if before.Attached() {
			if err := detach(ctx, tx, schema, *before); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`DELETE FROM {{schema}}.reservations WHERE counter = $1`,
			`DELETE FROM {{schema}}.counter_values WHERE counter = $1`,
			`DELETE FROM {{schema}}.counters WHERE name = $1`,
		} {
			if _, err := tx.Exec(ctx, render(q, schema), before.Name); err != nil {
				return fmt.Errorf("deleting counter %q: %w", before.Name, err)
			}
		}
		return nil
	case plan.Update:
		if before == nil || after == nil {
			return errors.New("an update needs before and after")
		}
		retarget := before.Table != after.Table || before.Column != after.Column
		rebuild := retarget || !equalScope(before.Scope, after.Scope) || before.Strategy != after.Strategy
		if before.Attached() && (retarget || !after.Attached()) {
			if err := detach(ctx, tx, schema, *before); err != nil {
				return err
			}
		}
		if err := writeCounterRow(ctx, tx, schema, *after); err != nil {
			return err
		}
		if rebuild && before.Attached() {
			// Counter rows keyed by the old scope or column mean nothing now.
			if _, err := tx.Exec(ctx, render(`DELETE FROM {{schema}}.counter_values WHERE counter = $1`, schema), after.Name); err != nil {
				return fmt.Errorf("clearing counter rows for the rebuild: %w", err)
			}
		}
		if after.Attached() {
			if err := attach(ctx, tx, schema, *after, rebuild); err != nil {
				return err
			}
		}
		return moveStart(ctx, tx, schema, *before, *after)
	}
	return fmt.Errorf("unknown action %q", c.Action)
}

func equalScope(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeCounterRow upserts the counters row, with the primary keys the
// resolver needs.
func writeCounterRow(ctx context.Context, tx pgx.Tx, schema string, k catalog.Counter) error {
	var table, column, pk, prefix, prefixTable, prefixColumn, prefixPK, strategy *string
	if k.Attached() {
		pkName, err := primaryKey(ctx, tx, k.Table)
		if err != nil {
			return err
		}
		table, column, strategy = &k.Table, &k.Column, &k.Strategy
		pk = pkName
	}
	if k.Prefix != "" {
		prefix = &k.Prefix
	}
	if k.PrefixFrom != nil {
		pkName, err := primaryKey(ctx, tx, k.PrefixFrom.Table)
		if err != nil {
			return err
		}
		if pkName == nil {
			return fmt.Errorf("prefix_from table %s needs a single-column primary key to match scopes", k.PrefixFrom.Table)
		}
		prefixTable, prefixColumn, prefixPK = &k.PrefixFrom.Table, &k.PrefixFrom.Column, pkName
	}
	var window *int64
	if k.IdempotencyWindow != 0 {
		us := k.IdempotencyWindow.Std().Microseconds()
		window = &us
	}
	scope := k.Scope
	if scope == nil {
		scope = []string{}
	}
	_, err := tx.Exec(ctx, statement("upsert_counter", schema),
		k.Name, table, column, scope, pk, prefix, prefixTable, prefixColumn, prefixPK,
		k.Start, k.LockTimeout.Std().Microseconds(), strategy, window)
	if err != nil {
		return fmt.Errorf("writing counter %q: %w", k.Name, err)
	}
	return nil
}

// primaryKey returns the single-column primary key of a table, nil if it
// has none (or a composite one), or an error if the table does not exist.
func primaryKey(ctx context.Context, tx pgx.Tx, table string) (*string, error) {
	var exists bool
	var pk *string
	err := tx.QueryRow(ctx, `
		SELECT to_regclass($1) IS NOT NULL,
		       (SELECT a.attname::text FROM pg_index i
		        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		        WHERE i.indrelid = to_regclass($1) AND i.indisprimary AND i.indnatts = 1)`,
		quoteTable(table)).Scan(&exists, &pk)
	if err != nil {
		return nil, fmt.Errorf("looking up table %s: %w", table, err)
	}
	if !exists {
		return nil, fmt.Errorf("table %s does not exist", table)
	}
	return pk, nil
}

// quoteTable quotes "schema.table" as an identifier pair.
func quoteTable(qualified string) string {
	s, t := catalog.SplitTable(qualified)
	return pgx.Identifier{s, t}.Sanitize()
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// literal quotes a string as an SQL literal (standard_conforming_strings).
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func render(q, schema string) string { return strings.ReplaceAll(q, "{{schema}}", ident(schema)) }

// scopeExpr is the text key of a row's scope, as the trigger and the
// resolver compute it: the empty string with no scope, the column text for
// one, a JSON array for several. row is "NEW" or a table alias. Scope
// columns are never NULL in a numbered row (the trigger refuses it).
func scopeExpr(k catalog.Counter, row string) string {
	switch len(k.Scope) {
	case 0:
		return "''"
	case 1:
		return fmt.Sprintf("%s.%s::text", row, ident(k.Scope[0]))
	}
	cols := make([]string, len(k.Scope))
	for i, s := range k.Scope {
		cols[i] = row + "." + ident(s)
	}
	return "jsonb_build_array(" + strings.Join(cols, ", ") + ")::text"
}

// advisoryKey is the first half of an advisory_lock counter's lock key.
func advisoryKey(schema, counter string) int32 {
	h := fnv.New32a()
	h.Write([]byte("pgseq counter\x00" + schema + "\x00" + counter))
	return int32(h.Sum32())
}

// triggerFunction writes the trigger function of an attached counter.
func triggerFunction(schema string, k catalog.Counter) string {
	obj := catalog.ObjectsFor(schema, k.Name)
	fn := ident(schema) + "." + ident(obj.Function)
	lockTimeout := literal(fmt.Sprintf("%dms", k.LockTimeout.Std().Milliseconds()))
	var body string
	switch k.Strategy {
	case catalog.StrategyAdvisoryLock:
		conds := []string{"true"}
		for _, s := range k.Scope {
			conds = append(conds, fmt.Sprintf("t.%s = NEW.%s", ident(s), ident(s)))
		}
		body = fmt.Sprintf(`    PERFORM pg_advisory_xact_lock(%d, hashtext(%s));
    SELECT coalesce(max(t.%s), %d) + 1 INTO v FROM %s t WHERE %s;`,
			advisoryKey(schema, k.Name), scopeExpr(k, "NEW"),
			ident(k.Column), k.Start-1, quoteTable(k.Table), strings.Join(conds, " AND "))
	default:
		// The advisory lock queues the scope's waiters first-come first-served;
		// waiting on the counter row itself wakes every waiter at each commit to
		// race for the new row version, which collapses under many clients.
		// increment_value (migration 11) reads the scope's row through the
		// version this transaction wrote last, so many rows numbered in one
		// transaction cost each the same, not more and more.
		body = fmt.Sprintf(`    PERFORM pg_advisory_xact_lock(%d, hashtext(%s));
    v := %s.increment_value(%s, %s, %d);`, advisoryKey(schema, k.Name), scopeExpr(k, "NEW"),
			ident(schema), literal(k.Name), scopeExpr(k, "NEW"), k.Start)
	}
	var nullCheck strings.Builder
	for _, s := range k.Scope {
		fmt.Fprintf(&nullCheck, `    IF NEW.%s IS NULL THEN
        RAISE EXCEPTION 'counter %%: the scope column %%.%%.%% of a numbered row must not be NULL', %s, %s, %s, %s
            USING ERRCODE = 'not_null_violation';
    END IF;
`, ident(s), literal(k.Name), literal(tableSchema(k.Table)), literal(tableName(k.Table)), literal(s))
	}
	// advisory_lock's MAX must stay an index probe: a plan cached while the
	// table was small would otherwise scan the whole scope on every insert.
	settings := "SET lock_timeout = " + lockTimeout
	// The trigger runs as the owner, so a role that may insert into the
	// table needs no privilege in the pgseq schema; every name in the body
	// is qualified, and the search_path is fixed so that the caller cannot
	// choose what the built-in names mean.
	settings += " SECURITY DEFINER SET search_path = pg_catalog, pg_temp"
	if k.Strategy == catalog.StrategyAdvisoryLock {
		settings += " SET enable_seqscan = off"
	}
	// A value given in the INSERT is refused unless it is exactly the number
	// the counter assigns: replacing it silently would hide a caller's bug,
	// and keeping any other value would break gaplessness. The error rolls
	// the statement back, number included.
	explicit := fmt.Sprintf(`    IF NEW.%[1]s IS NOT NULL AND NEW.%[1]s <> v THEN
        RAISE EXCEPTION 'counter %%: %%.%% is numbered by pgseq; the INSERT gave %%, the next number is %%', %[2]s, %[3]s, %[4]s, NEW.%[1]s, v
            USING ERRCODE = 'PS028', HINT = 'Leave the column out of the INSERT (or NULL); the trigger assigns it.';
    END IF;
`, ident(k.Column), literal(k.Name), literal(k.Table), literal(k.Column))
	return fmt.Sprintf(`CREATE OR REPLACE FUNCTION %s() RETURNS trigger
LANGUAGE plpgsql %s AS $pgseq$
-- Generated by pgseq for counter %s: numbers %s.%s. Do not edit.
-- %s
DECLARE
    v bigint;
BEGIN
%s%s
%s    NEW.%s := v;
    RETURN NEW;
END
$pgseq$`, fn, settings, literal(k.Name), k.Table, k.Column, catalog.TriggerVersion, nullCheck.String(), body, explicit, ident(k.Column))
}

// attach installs an attached counter's objects on its table, under a
// SHARE ROW EXCLUSIVE lock: in-flight inserts finish first, new ones wait
// for the commit and then go through the trigger, so none collides with the
// backfill. With backfill, the counter rows are built from MAX(column) per
// scope (counter_table strategy).
func attach(ctx context.Context, tx pgx.Tx, schema string, k catalog.Counter, backfill bool) error {
	obj := catalog.ObjectsFor(schema, k.Name)
	table := quoteTable(k.Table)
	exec := func(what, sql string, args ...any) error {
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	if err := exec("locking "+k.Table, "LOCK TABLE "+table+" IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return err
	}
	cols := make([]string, 0, len(k.Scope)+1)
	for _, s := range k.Scope {
		cols = append(cols, ident(s))
	}
	cols = append(cols, ident(k.Column))
	if backfill {
		if err := backfillTable(ctx, tx, schema, k, cols); err != nil {
			return err
		}
	}
	if err := exec("creating the trigger function", triggerFunction(schema, k)); err != nil {
		return err
	}
	if err := exec("revoking the trigger function from PUBLIC", fmt.Sprintf("REVOKE ALL ON FUNCTION %s.%s() FROM PUBLIC",
		ident(schema), ident(obj.Function))); err != nil {
		return err
	}
	trigger := ident(obj.Trigger)
	if err := exec("dropping the old trigger", fmt.Sprintf("DROP TRIGGER IF EXISTS %s ON %s", trigger, table)); err != nil {
		return err
	}
	if err := exec("creating the trigger", fmt.Sprintf("CREATE TRIGGER %s BEFORE INSERT ON %s FOR EACH ROW EXECUTE FUNCTION %s.%s()",
		trigger, table, ident(schema), ident(obj.Function))); err != nil {
		return err
	}
	var haveIndex bool
	err := tx.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM pg_index i
		               WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indisvalid AND i.indpred IS NULL
		                 AND (SELECT array_agg(a.attname::text ORDER BY k.ord)
		                      FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) = $2::text[])`,
		table, append(append([]string{}, k.Scope...), k.Column)).Scan(&haveIndex)
	if err != nil {
		return fmt.Errorf("looking for a unique index on %s: %w", k.Table, err)
	}
	if !haveIndex {
		tschema, _ := catalog.SplitTable(k.Table)
		if err := exec("dropping a stale index", fmt.Sprintf("DROP INDEX IF EXISTS %s", pgx.Identifier{tschema, obj.Index}.Sanitize())); err != nil {
			return err
		}
		if err := exec("creating the unique index", fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (%s)", ident(obj.Index), table, strings.Join(cols, ", "))); err != nil {
			return err
		}
	}
	return nil
}

// backfillTable prepares a table for its counter, under the attach's table lock:
// it refuses rows that cannot be numbered (a NULL scope) or that break
// uniqueness, numbers the rows whose column is NULL, and (counter_table)
// builds the counter rows from MAX(column) per scope. cols are the quoted
// scope columns followed by the numbered column.
func backfillTable(ctx context.Context, tx pgx.Tx, schema string, k catalog.Counter, cols []string) error {
	table := quoteTable(k.Table)
	scopeCols, column := cols[:len(cols)-1], cols[len(cols)-1]

	// A numbered row's scope must not be NULL (the trigger refuses such
	// inserts), so a row without a scope has no numbering to join.
	if len(scopeCols) > 0 {
		var n int64
		if err := tx.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s t WHERE NOT (%s)`, table, notNull("t.", scopeCols))).Scan(&n); err != nil {
			return fmt.Errorf("counting rows of %s without a scope: %w", k.Table, err)
		}
		if n > 0 {
			return fmt.Errorf("%s has %s with a NULL scope column (%s): a counter cannot number them; give them a scope or delete them, then apply again",
				k.Table, textfmt.Plural(n, "row"), strings.Join(k.Scope, ", "))
		}
	}

	var dup *string
	err := tx.QueryRow(ctx, fmt.Sprintf(`SELECT %s FROM %s t WHERE %s GROUP BY %s HAVING count(*) > 1 LIMIT 1`,
		"concat_ws(', ', "+prefixed("t.", cols)+")", table, notNull("t.", cols), prefixed("t.", cols))).Scan(&dup)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("checking %s for duplicate numbers: %w", k.Table, err)
	}
	if dup != nil {
		return fmt.Errorf("%s has rows with the same (%s) = (%s): a gapless counter cannot number it until they are fixed",
			k.Table, strings.Join(append(append([]string{}, k.Scope...), k.Column), ", "), *dup)
	}

	if err := numberUnnumbered(ctx, tx, k, scopeCols, column); err != nil {
		return err
	}

	if k.Strategy == catalog.StrategyAdvisoryLock {
		return nil // numbers come from MAX(column) at each insert
	}
	// One counter row per scope present in the table. HAVING drops the
	// single all-NULL row an unscoped aggregate returns for an empty table:
	// a scope without rows gets its row, at start, from its first insert.
	group := ""
	if len(scopeCols) > 0 {
		group = "GROUP BY " + prefixed("t.", scopeCols)
	}
	_, err = tx.Exec(ctx, fmt.Sprintf(`
		INSERT INTO %s.counter_values AS cv (counter, scope, value)
		SELECT %s, %s, max(t.%s) FROM %s t WHERE %s %s HAVING max(t.%s) IS NOT NULL
		ON CONFLICT (counter, scope) DO UPDATE SET value = greatest(cv.value, excluded.value)`,
		ident(schema), literal(k.Name), scopeExpr(k, "t"), column, table, notNull("t.", cols), group, column))
	if err != nil {
		return fmt.Errorf("backfilling counter rows from %s: %w", k.Table, err)
	}
	return nil
}

// numberUnnumbered gives the rows whose numbered column is NULL the numbers
// after their scope's highest (start for a scope with none), in
// primary-key order (physical order for a table without a primary key), so
// that every row is numbered and each scope stays gapless.
func numberUnnumbered(ctx context.Context, tx pgx.Tx, k catalog.Counter, scopeCols []string, column string) error {
	table := quoteTable(k.Table)
	order, err := primaryKeyOrder(ctx, tx, k.Table)
	if err != nil {
		return err
	}
	scopeOK, partition, group, join := "true", "", "", "true"
	if len(scopeCols) > 0 {
		scopeOK = notNull("t.", scopeCols)
		partition = "PARTITION BY " + prefixed("t.", scopeCols)
		group = "GROUP BY " + prefixed("t.", scopeCols)
		conds := make([]string, len(scopeCols))
		for i, c := range scopeCols {
			conds[i] = fmt.Sprintf("top.%s = todo.%s", c, c)
		}
		join = strings.Join(conds, " AND ")
	}
	scopeList := ""
	if len(scopeCols) > 0 {
		scopeList = prefixed("t.", scopeCols) + ", "
	}
	// top: each scope's highest number; todo: the unnumbered rows, ranked
	// within their scope; each gets top + rank.
	_, err = tx.Exec(ctx, fmt.Sprintf(`
		WITH top AS (
			SELECT %[1]smax(t.%[2]s) AS top FROM %[3]s t WHERE %[4]s %[5]s
		), todo AS (
			SELECT t.ctid AS row_id, %[1]srow_number() OVER (%[6]s ORDER BY %[7]s) AS rank
			FROM %[3]s t WHERE t.%[2]s IS NULL AND %[4]s
		)
		UPDATE %[3]s t SET %[2]s = coalesce(top.top, %[8]d) + todo.rank
		FROM todo LEFT JOIN top ON %[9]s
		WHERE t.ctid = todo.row_id`,
		scopeList, column, table, scopeOK, group, partition, order, k.Start-1, join))
	if err != nil {
		return fmt.Errorf("numbering the rows of %s without a number: %w", k.Table, err)
	}
	return nil
}

// primaryKeyOrder returns "t.a, t.b" for a table's primary key columns, or
// "t.ctid" (physical order) when it has none.
func primaryKeyOrder(ctx context.Context, tx pgx.Tx, table string) (string, error) {
	var cols []string
	err := tx.QueryRow(ctx, `
		SELECT coalesce(array_agg(a.attname::text ORDER BY k.ord), '{}')
		FROM pg_index i
		CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indrelid = to_regclass($1) AND i.indisprimary`, quoteTable(table)).Scan(&cols)
	if err != nil {
		return "", fmt.Errorf("reading the primary key of %s: %w", table, err)
	}
	if len(cols) == 0 {
		return "t.ctid", nil
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = ident(c)
	}
	return prefixed("t.", quoted), nil
}

func tableSchema(qualified string) string { s, _ := catalog.SplitTable(qualified); return s }

func tableName(qualified string) string { _, t := catalog.SplitTable(qualified); return t }

func scopeNotNull(k catalog.Counter) string {
	if len(k.Scope) == 0 {
		return "true"
	}
	cols := make([]string, len(k.Scope))
	for i, s := range k.Scope {
		cols[i] = ident(s)
	}
	return notNull("t.", cols)
}

// notNull is "t.a IS NOT NULL AND t.b IS NOT NULL …": rows with a NULL
// scope or number take no part in numbering.
func notNull(p string, cols []string) string {
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = p + c + " IS NOT NULL"
	}
	return strings.Join(conds, " AND ")
}

func prefixed(p string, cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = p + c
	}
	return strings.Join(out, ", ")
}

// detach drops an attached counter's trigger and function. The unique index
// stays: the rows keep their numbers and their uniqueness.
func detach(ctx context.Context, tx pgx.Tx, schema string, k catalog.Counter) error {
	obj := catalog.ObjectsFor(schema, k.Name)
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, quoteTable(k.Table)).Scan(&exists); err != nil {
		return fmt.Errorf("looking up %s: %w", k.Table, err)
	}
	if exists {
		if _, err := tx.Exec(ctx, fmt.Sprintf("DROP TRIGGER IF EXISTS %s ON %s", ident(obj.Trigger), quoteTable(k.Table))); err != nil {
			return fmt.Errorf("dropping the trigger on %s: %w", k.Table, err)
		}
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("DROP FUNCTION IF EXISTS %s.%s()", ident(schema), ident(obj.Function))); err != nil {
		return fmt.Errorf("dropping the trigger function: %w", err)
	}
	return nil
}

// moveStart applies a changed start to existing scopes. Raised: scopes below
// it jump up to it. Lowered (only with permission): scopes are rewound, but
// never below the highest value present in the attached table.
func moveStart(ctx context.Context, tx pgx.Tx, schema string, before, after catalog.Counter) error {
	switch {
	case after.Start > before.Start:
		_, err := tx.Exec(ctx, render(`UPDATE {{schema}}.counter_values SET value = $2 - 1 WHERE counter = $1 AND value < $2 - 1`, schema),
			after.Name, after.Start)
		if err != nil {
			return fmt.Errorf("raising counter values to start %d: %w", after.Start, err)
		}
	case after.Start < before.Start && after.Attached() && after.Strategy != catalog.StrategyAdvisoryLock:
		group := ""
		if len(after.Scope) > 0 {
			cols := make([]string, len(after.Scope))
			for i, s := range after.Scope {
				cols[i] = "t." + ident(s)
			}
			group = "GROUP BY " + strings.Join(cols, ", ")
		}
		_, err := tx.Exec(ctx, fmt.Sprintf(`
			UPDATE %s.counter_values cv
			SET value = greatest($2 - 1, coalesce(m.top, 0))
			FROM (SELECT %s AS scope, max(t.%s) AS top FROM %s t WHERE %s %s) m
			WHERE cv.counter = $1 AND cv.scope = m.scope AND cv.value >= $2`,
			ident(schema), scopeExpr(after, "t"), ident(after.Column), quoteTable(after.Table), scopeNotNull(after), group),
			after.Name, after.Start)
		if err != nil {
			return fmt.Errorf("rewinding counter values to start %d: %w", after.Start, err)
		}
	case after.Start < before.Start && !after.Attached():
		_, err := tx.Exec(ctx, render(`UPDATE {{schema}}.counter_values SET value = $2 - 1 WHERE counter = $1 AND value >= $2`, schema),
			after.Name, after.Start)
		if err != nil {
			return fmt.Errorf("rewinding counter values to start %d: %w", after.Start, err)
		}
	}
	return nil
}
