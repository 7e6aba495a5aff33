package inspect

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/catalog"
)

// Problem is something in the desired state that the database cannot
// support, such as a counter on a table that does not exist. Attr names
// the offending attribute in spec's CounterRanges terms ("table", "column",
// "scope[1]", "prefix_from.column"), so the caller can point at the source.
type Problem struct {
	Counter string
	Attr    string
	Summary string
	Detail  string
}

// integerTypes are the column types a counter can number.
var integerTypes = map[string]bool{"smallint": true, "integer": true, "bigint": true, "numeric": true}

// CheckCounters checks that the tables and columns the desired counters
// reference exist, that numbered columns are integers, and that a
// prefix_from table has a single-column primary key. Tables in pgseq's own
// schema or in PostgreSQL's system schemas are refused. It reports every
// problem of every counter, in the counters' order. It only reads.
func CheckCounters(ctx context.Context, db Querier, schema string, counters []catalog.Counter) ([]Problem, error) {
	var out []Problem
	for _, c := range counters {
		if !c.Attached() {
			continue
		}
		problems, err := checkTable(ctx, db, schema, c)
		if err != nil {
			return nil, err
		}
		out = append(out, problems...)
		if c.PrefixFrom == nil {
			continue
		}
		if problems, err = checkPrefixFrom(ctx, db, c); err != nil {
			return nil, err
		}
		out = append(out, problems...)
	}
	return out, nil
}

// checkTable checks the table an attached counter numbers, its column and
// its scope columns.
func checkTable(ctx context.Context, db Querier, schema string, c catalog.Counter) ([]Problem, error) {
	if tschema, _ := catalog.SplitTable(c.Table); tschema == schema || catalog.SystemSchema(tschema) {
		what := fmt.Sprintf("%q is pgseq's own schema", tschema)
		if tschema != schema {
			what = fmt.Sprintf("%q is a PostgreSQL system schema", tschema)
		}
		return []Problem{{c.Name, "table", "Table not allowed",
			fmt.Sprintf("A counter cannot number %s: %s. Attach counters to the application's own tables.", c.Table, what)}}, nil
	}
	cols, exists, _, err := tableColumns(ctx, db, c.Table)
	if err != nil {
		return nil, err
	}
	if !exists {
		return []Problem{{c.Name, "table", "Unknown table",
			fmt.Sprintf("The table %s does not exist in the database. pgseq numbers an existing table's rows; create the table first (or fix the name).", c.Table)}}, nil
	}
	var out []Problem
	typ, ok := cols[c.Column]
	switch {
	case !ok:
		out = append(out, Problem{c.Name, "column", "Unknown column",
			fmt.Sprintf("The table %s has no column %q.%s", c.Table, c.Column, suggest(cols))})
	case !integerTypes[typ]:
		out = append(out, Problem{c.Name, "column", "Column is not an integer",
			fmt.Sprintf("The column %s.%s is %s; a counter numbers smallint, integer, bigint or numeric columns.", c.Table, c.Column, typ)})
	}
	for i, s := range c.Scope {
		if _, ok := cols[s]; !ok {
			out = append(out, Problem{c.Name, fmt.Sprintf("scope[%d]", i), "Unknown scope column",
				fmt.Sprintf("The table %s has no column %q to scope the counter by.%s", c.Table, s, suggest(cols))})
		}
	}
	return out, nil
}

// checkPrefixFrom checks the table a counter's key prefixes come from.
func checkPrefixFrom(ctx context.Context, db Querier, c catalog.Counter) ([]Problem, error) {
	pcols, exists, pk, err := tableColumns(ctx, db, c.PrefixFrom.Table)
	if err != nil {
		return nil, err
	}
	switch {
	case !exists:
		return []Problem{{c.Name, "prefix_from.table", "Unknown table",
			fmt.Sprintf("The table %s, which should hold each scope's key prefix, does not exist.", c.PrefixFrom.Table)}}, nil
	case pk == "":
		return []Problem{{c.Name, "prefix_from.table", "No single-column primary key",
			fmt.Sprintf("The table %s needs a single-column primary key: the scope column %q is matched to it to find a scope's prefix.", c.PrefixFrom.Table, firstOr(c.Scope))}}, nil
	}
	if _, ok := pcols[c.PrefixFrom.Column]; !ok {
		return []Problem{{c.Name, "prefix_from.column", "Unknown column",
			fmt.Sprintf("The table %s has no column %q.%s", c.PrefixFrom.Table, c.PrefixFrom.Column, suggest(pcols))}}, nil
	}
	return nil, nil
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func suggest(cols map[string]string) string {
	if len(cols) == 0 {
		return ""
	}
	names := make([]string, 0, len(cols))
	for n := range cols {
		names = append(names, n)
	}
	sortStrings(names)
	return fmt.Sprintf(" Its columns: %v.", names)
}

// tableColumns returns a table's columns with their types, whether it
// exists, and its single-column primary key ("" if none).
func tableColumns(ctx context.Context, db Querier, qualified string) (map[string]string, bool, string, error) {
	schema, table := catalog.SplitTable(qualified)
	name := pgx.Identifier{schema, table}.Sanitize()
	var exists bool
	var pk *string
	err := db.QueryRow(ctx, `
		SELECT to_regclass($1) IS NOT NULL,
		       (SELECT a.attname::text FROM pg_index i
		        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		        WHERE i.indrelid = to_regclass($1) AND i.indisprimary AND i.indnatts = 1)`, name).Scan(&exists, &pk)
	if err != nil {
		return nil, false, "", fmt.Errorf("looking up table %s: %w", qualified, err)
	}
	if !exists {
		return nil, false, "", nil
	}
	rows, err := db.Query(ctx, `
		SELECT a.attname::text, format_type(a.atttypid, NULL)
		FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, name)
	if err != nil {
		return nil, false, "", fmt.Errorf("reading the columns of %s: %w", qualified, err)
	}
	cols := map[string]string{}
	var col, typ string
	if _, err := pgx.ForEachRow(rows, []any{&col, &typ}, func() error { cols[col] = typ; return nil }); err != nil {
		return nil, false, "", fmt.Errorf("reading the columns of %s: %w", qualified, err)
	}
	key := ""
	if pk != nil {
		key = *pk
	}
	return cols, true, key, nil
}

func sortStrings(s []string) { sort.Strings(s) }

// readAttachFacts counts, for each desired attached counter that an apply
// would attach with a backfill (see catalog.NeedsBackfill), the rows of its
// table without a number and the rows without a scope. Only those counters'
// tables are read: counting scans the table. A table or column that does
// not exist yet is left out (CheckCounters reports it).
func readAttachFacts(ctx context.Context, db Querier, desired, actual []catalog.Counter) (map[string]catalog.AttachFacts, error) {
	have := make(map[string]catalog.Counter, len(actual))
	for _, c := range actual {
		have[c.Name] = c
	}
	out := map[string]catalog.AttachFacts{}
	for _, d := range desired {
		var a *catalog.Counter
		if c, ok := have[d.Name]; ok {
			a = &c
		}
		if !catalog.NeedsBackfill(d, a) {
			continue
		}
		cols, exists, _, err := tableColumns(ctx, db, d.Table)
		if err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		if _, ok := cols[d.Column]; !ok {
			continue
		}
		scopeOK := "true"
		if len(d.Scope) > 0 {
			conds := make([]string, len(d.Scope))
			for i, s := range d.Scope {
				if _, ok := cols[s]; !ok {
					scopeOK = ""
					break
				}
				conds[i] = "t." + pgx.Identifier{s}.Sanitize() + " IS NOT NULL"
			}
			if scopeOK == "" {
				continue
			}
			scopeOK = strings.Join(conds, " AND ")
		}
		schema, table := catalog.SplitTable(d.Table)
		var f catalog.AttachFacts
		err = db.QueryRow(ctx, fmt.Sprintf(`
			SELECT count(*) FILTER (WHERE t.%[1]s IS NULL AND %[2]s), count(*) FILTER (WHERE NOT (%[2]s))
			FROM %[3]s t`, pgx.Identifier{d.Column}.Sanitize(), scopeOK, pgx.Identifier{schema, table}.Sanitize())).
			Scan(&f.Unnumbered, &f.NullScope)
		if err != nil {
			return nil, fmt.Errorf("counting the rows counter %q would number in %s: %w", d.Name, d.Table, err)
		}
		if f != (catalog.AttachFacts{}) {
			out[d.Name] = f
		}
	}
	return out, nil
}
