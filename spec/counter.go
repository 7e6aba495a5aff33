package spec

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// Bounds and defaults of counter settings.
const (
	// MaxCounterStart is the largest start a counter may declare (2^62),
	// leaving room to count far beyond it within a bigint.
	MaxCounterStart = 1 << 62
	// MinLockTimeout and MaxLockTimeout bound a counter's lock_timeout.
	MinLockTimeout = catalog.Duration(time.Millisecond)
	MaxLockTimeout = catalog.Duration(time.Hour)
	// MinIdempotencyWindow is the shortest idempotency_window.
	MinIdempotencyWindow = catalog.Duration(time.Second)
	// DefaultSchema is the schema of a table named without one.
	DefaultSchema = "public"
)

// counterStrategies are the valid strategies of an attached counter.
var counterStrategies = []string{catalog.StrategyCounterTable, catalog.StrategyAdvisoryLock}

// CounterRanges says where a counter's block and the arguments that name
// database objects are in the source, so that checks against a database
// can point at them (see Config.CounterDiag). A range whose Filename is
// empty is not set: the argument is absent.
type CounterRanges struct {
	// Def is the header of the counter block, Name its name label.
	Def, Name hcl.Range
	// Table and Column are the values of the table and column arguments.
	Table, Column hcl.Range
	// Scope is the value of the scope argument, and ScopeElems the value of
	// each of its elements, in order (one per entry of catalog.Counter.Scope).
	Scope      hcl.Range
	ScopeElems []hcl.Range
	// PrefixFrom is the header of the prefix_from block; PrefixFromTable
	// and PrefixFromColumn are the values of its arguments.
	PrefixFrom, PrefixFromTable, PrefixFromColumn hcl.Range
}

// Range returns where attr is set. attr is one of "table", "column",
// "scope", "scope[i]" (element i, from 0), "prefix_from",
// "prefix_from.table", "prefix_from.column", "name", or "" for the block
// header. An argument that is not set, or an attr not listed, falls back to
// what encloses it: an element to its scope, prefix_from's arguments to
// the prefix_from block, and anything else to the block header.
func (r CounterRanges) Range(attr string) hcl.Range {
	pick := func(rs ...hcl.Range) hcl.Range {
		for _, x := range rs {
			if x.Filename != "" {
				return x
			}
		}
		return r.Def
	}
	switch attr {
	case "name":
		return pick(r.Name)
	case "table":
		return pick(r.Table)
	case "column":
		return pick(r.Column)
	case "scope":
		return pick(r.Scope)
	case "prefix_from":
		return pick(r.PrefixFrom)
	case "prefix_from.table":
		return pick(r.PrefixFromTable, r.PrefixFrom)
	case "prefix_from.column":
		return pick(r.PrefixFromColumn, r.PrefixFrom)
	}
	if idx, ok := strings.CutPrefix(attr, "scope["); ok {
		if n, err := strconv.Atoi(strings.TrimSuffix(idx, "]")); err == nil && strings.HasSuffix(idx, "]") &&
			n >= 0 && n < len(r.ScopeElems) {
			return pick(r.ScopeElems[n], r.Scope)
		}
		return pick(r.Scope)
	}
	return r.Def
}

// CounterDiag returns an error diagnostic about the counter named name,
// with summary and detail, whose Subject is where attr is set (see
// CounterRanges.Range for the values of attr). It is for checks made after
// parsing, such as whether the table and columns a counter names exist.
// The Subject is nil when no counter of that name was declared.
func (c *Config) CounterDiag(name, attr string, summary, detail string) *hcl.Diagnostic {
	diag := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
	if r, ok := c.Counters[name]; ok {
		diag.Subject = r.Range(attr).Ptr()
	}
	return diag
}

// numberedColumn is an attached counter's table column, to find two
// counters numbering the same one.
type numberedColumn struct {
	counter string
	at      hcl.Range
}

// counter decodes a counter block.
func (d *decoder) counter(b *hclsyntax.Block, name string, nameRange hcl.Range) {
	valid := catalog.ValidCounterName(name)
	if !valid {
		d.Errorf(nameRange, "Invalid counter name", "%s", invalidCounterNameDetail(name))
	}
	c := catalog.Counter{Name: name, Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout}
	rs := CounterRanges{Def: b.DefRange(), Name: nameRange}
	attrs, blocks, _ := d.Content(b.Body, "counter",
		[]string{"table", "column", "scope", "prefix", "start", "lock_timeout", "strategy", "idempotency_window"},
		[]string{"prefix_from"}, nil)
	for k, a := range attrs {
		if !hcldecode.IsSet(a) {
			delete(attrs, k)
		}
	}

	// A counter with a table or a column is attached, even when they are
	// invalid or one is missing: that is what the user meant.
	tableA, columnA := attrs["table"], attrs["column"]
	attached := tableA != nil || columnA != nil
	switch {
	case tableA != nil && columnA == nil:
		d.Errorf(tableA.NameRange, "Missing column",
			"Counter %q has a table but no column. An attached counter needs both table and column: add column = \"...\" naming the column of the table to number, or remove table to make a standalone counter.",
			name)
	case columnA != nil && tableA == nil:
		d.Errorf(columnA.NameRange, "Missing table",
			"Counter %q has a column but no table. An attached counter needs both table and column: add table = \"schema.name\" naming the table whose column it numbers, or remove column to make a standalone counter.",
			name)
	}
	if v, ok := d.tableName(tableA, "table"); ok {
		c.Table, rs.Table = v, tableA.Expr.Range()
	}
	if v, ok := d.columnName(columnA, "column"); ok {
		c.Column, rs.Column = v, columnA.Expr.Range()
	}

	scopeLen := 0 // -1: unknown, the scope could not be read
	if a := attrs["scope"]; a != nil {
		if attached {
			scopeLen = d.scope(a, &c, &rs)
		} else {
			d.Errorf(a.NameRange, "Scope on a standalone counter",
				"scope lists the columns of the attached table that numbering restarts for, and counter %q has no table. A standalone counter takes its scope when called: next_value('%s', scope). Remove scope, or add table and column to number the rows of a table.",
				name, name)
			scopeLen = -1
		}
	}

	prefixA, prefixFrom := attrs["prefix"], blocks["prefix_from"]
	if v, ok := d.Str(prefixA, "prefix"); ok {
		if catalog.ValidPrefix(v) {
			c.Prefix = strings.ToUpper(v)
		} else {
			d.Errorf(prefixA.Expr.Range(), "Invalid prefix", "%s", invalidPrefixDetail(v))
		}
	}
	if prefixFrom != nil {
		d.prefixFrom(prefixFrom, name, attached, &c, &rs)
	}
	switch {
	case prefixA != nil && prefixFrom != nil:
		d.Errorf(prefixA.NameRange, "Conflicting prefixes",
			"Counter %q sets both prefix, a constant key prefix, and prefix_from, a prefix per scope read from a table (block at %s). A key has one prefix: remove one of them.",
			name, hcldecode.PosString(prefixFrom.TypeRange))
	case prefixA != nil && attached && scopeLen > 0:
		d.Errorf(prefixA.Expr.Range(), "Prefix on a scoped counter",
			"Counter %q restarts its numbering for every scope, so a constant prefix would make keys ambiguous: %s-42 would exist once per scope and name no single row. Use a prefix_from block to take each scope's prefix from a column of another table, or remove prefix.",
			name, cmp.Or(c.Prefix, "PROJ"))
	case prefixFrom != nil && attached && scopeLen >= 0 && scopeLen != 1:
		d.Errorf(prefixFrom.TypeRange, "prefix_from needs one scope column",
			"prefix_from finds each scope's prefix by matching the scope column to the primary key of its table, so counter %q must have exactly one scope column; it has %d. Set scope to the one column that references that table, such as scope = [\"project_id\"], or remove prefix_from.",
			name, scopeLen)
	}

	if v, ok := d.whole(attrs["start"], "start", wholeRule{min: 1, max: MaxCounterStart,
		hint: "It is the first number of a new scope; the default is 1."}); ok {
		c.Start = int64(v)
	}
	if v, ok := d.durationIn(attrs["lock_timeout"], "lock_timeout", MinLockTimeout, MaxLockTimeout,
		"It bounds how long taking a number waits for another transaction holding the same scope."); ok {
		c.LockTimeout = v
	}
	if a := attrs["strategy"]; a != nil {
		if !attached {
			d.Errorf(a.NameRange, "Strategy on a standalone counter",
				"strategy chooses how an attached counter's trigger numbers rows, and counter %q has no table. Remove strategy, or add table and column to number the rows of a table.",
				name)
		} else if v, ok := d.Str(a, "strategy"); ok {
			if v == catalog.StrategyCounterTable || v == catalog.StrategyAdvisoryLock {
				c.Strategy = v
			} else {
				d.Errorf(a.Expr.Range(), "Invalid strategy",
					"strategy must be %q (a counter row per scope, the default) or %q (an advisory lock and MAX(column)+1, for small tables); got %q. Did you mean %q?",
					catalog.StrategyCounterTable, catalog.StrategyAdvisoryLock, v, closest(v, counterStrategies))
			}
		}
	}
	if attached && c.Strategy == "" {
		c.Strategy = catalog.StrategyCounterTable
	}
	if a := attrs["idempotency_window"]; a != nil {
		if attached {
			d.Errorf(a.NameRange, "Idempotency window on an attached counter",
				"Two-phase allocation (reserve, then commit) is for entities created outside the database, which take their numbers from a standalone counter; counter %q numbers rows in the transaction that inserts them and needs no reservation. Remove idempotency_window, or remove table and column to make the counter standalone.",
				name)
		} else if v, ok := d.durationIn(a, "idempotency_window", MinIdempotencyWindow, 0,
			"It is how long a reserved number may stay pending before the reaper fails the reservation; leave idempotency_window out to allocate in one phase."); ok {
			c.IdempotencyWindow = v
		}
	}

	if first, dup := d.counterLabels[name]; dup {
		d.Errorf(nameRange, "Duplicate counter",
			"A counter named %q was already declared at %s. Counter names are unique across all files of a configuration: rename or remove one of them.",
			name, hcldecode.PosString(first))
		return
	}
	if !valid {
		return
	}
	d.counterLabels[name] = nameRange
	if c.Table != "" && c.Column != "" {
		key := c.Table + "." + c.Column
		if first, dup := d.numbered[key]; dup {
			d.Errorf(rs.Column, "Column already numbered",
				"%s is already numbered by counter %q, whose column is set at %s. A column is numbered by one counter only: remove one of the counters or number another column.",
				key, first.counter, hcldecode.PosString(first.at))
		} else {
			d.numbered[key] = numberedColumn{counter: name, at: rs.Column}
		}
	}
	d.counters[name] = rs
	d.state.Counters = append(d.state.Counters, c)
}

// scope decodes an attached counter's scope into c and rs. It returns the
// number of scope columns written, or -1 when the value is not a list.
func (d *decoder) scope(a *hclsyntax.Attribute, c *catalog.Counter, rs *CounterRanges) int {
	v, ok := d.Value(a)
	if !ok {
		return -1
	}
	tuple, isTuple := a.Expr.(*hclsyntax.TupleConsExpr)
	if !isTuple || !(v.Type().IsTupleType() || v.Type().IsListType()) {
		hint := ""
		if v.Type() == cty.String {
			hint = fmt.Sprintf(" Put the column in brackets: scope = [%q].", v.AsString())
		}
		d.Errorf(a.Expr.Range(), "Incorrect value type",
			"scope must be a list of column names, such as [\"project_id\"] or [], not %s.%s", hcldecode.TypeName(v.Type()), hint)
		return -1
	}
	rs.Scope = a.Expr.Range()
	seen := map[string]hcl.Range{}
	var cols []string
	var ranges []hcl.Range
	for i, e := range tuple.Exprs {
		path := fmt.Sprintf("scope[%d]", i)
		ev, diags := e.Value(nil)
		if diags.HasErrors() {
			d.Diags = append(d.Diags, diags...)
			continue
		}
		if ev.IsNull() || ev.Type() != cty.String {
			d.Errorf(e.Range(), "Incorrect value type", "%s must be a column name in quotes, not %s.", path, hcldecode.TypeName(ev.Type()))
			continue
		}
		col := ev.AsString()
		if !catalog.ValidIdentifier(col) {
			d.Errorf(e.Range(), "Invalid column name", "%s", invalidColumnDetail(path, col))
			continue
		}
		if first, dup := seen[col]; dup {
			d.Errorf(e.Range(), "Duplicate scope column",
				"%s is %q, which is already in the scope at %s. Each scope column is listed once: remove one.",
				path, col, hcldecode.PosString(first))
			continue
		}
		seen[col] = e.Range()
		if col == c.Column {
			d.Errorf(e.Range(), "Numbered column in scope",
				"%s is %q, the column this counter numbers. The scope lists the columns numbering restarts for, such as project_id, so it cannot hold the numbered column itself: remove %q from scope.",
				path, col, col)
			continue
		}
		cols = append(cols, col)
		ranges = append(ranges, e.Range())
	}
	if len(cols) > 0 {
		c.Scope, rs.ScopeElems = cols, ranges
	}
	return len(tuple.Exprs)
}

// prefixFrom decodes a prefix_from block into c and rs.
func (d *decoder) prefixFrom(b *hclsyntax.Block, name string, attached bool, c *catalog.Counter, rs *CounterRanges) {
	attrs, _, _ := d.Content(b.Body, "prefix_from", []string{"table", "column"}, nil, nil)
	if !attached {
		d.Errorf(b.TypeRange, "prefix_from on a standalone counter",
			"prefix_from takes each scope's prefix from a table matched to the counter's scope column, and counter %q has no table. Use prefix for a constant prefix, or add table, column and scope to number the rows of a table.",
			name)
	}
	for _, arg := range []string{"table", "column"} {
		if a := attrs[arg]; !hcldecode.IsSet(a) {
			d.Errorf(b.TypeRange, "Missing required argument",
				"A prefix_from block needs both table and column: the table whose primary key the scope column references, and its column holding the prefix, such as table = \"app.projects\" and column = \"key\". Add %s.",
				arg)
		}
	}
	rs.PrefixFrom = b.DefRange()
	table, tableOK := d.tableName(attrs["table"], "prefix_from.table")
	column, columnOK := d.columnName(attrs["column"], "prefix_from.column")
	if tableOK {
		rs.PrefixFromTable = attrs["table"].Expr.Range()
	}
	if columnOK {
		rs.PrefixFromColumn = attrs["column"].Expr.Range()
	}
	if tableOK && columnOK {
		c.PrefixFrom = &catalog.PrefixSource{Table: table, Column: column}
	}
}

// tableName decodes a table name, qualified with DefaultSchema when it
// names no schema.
func (d *decoder) tableName(a *hclsyntax.Attribute, path string) (string, bool) {
	v, ok := d.Str(a, path)
	if !ok {
		return "", false
	}
	q, ok := QualifyTable(v)
	if !ok {
		d.Errorf(a.Expr.Range(), "Invalid table name", "%s", invalidTableDetail(path, v))
	}
	return q, ok
}

// columnName decodes a column name.
func (d *decoder) columnName(a *hclsyntax.Attribute, path string) (string, bool) {
	v, ok := d.Str(a, path)
	if !ok {
		return "", false
	}
	if !catalog.ValidIdentifier(v) {
		d.Errorf(a.Expr.Range(), "Invalid column name", "%s", invalidColumnDetail(path, v))
		return "", false
	}
	return v, true
}

// durationIn decodes a duration from least to most; most 0 sets no upper
// bound. hint ends the out-of-range detail.
func (d *decoder) durationIn(a *hclsyntax.Attribute, path string, least, most catalog.Duration, hint string) (catalog.Duration, bool) {
	v, ok := d.Value(a)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.String {
		d.WrongType(a, path, `a duration string such as "5s"`, v)
		return 0, false
	}
	dur, err := catalog.ParseDuration(v.AsString())
	if err != nil {
		d.Errorf(a.Expr.Range(), "Invalid duration",
			"%s: %s. Write whole numbers with units, such as \"250ms\", \"5s\" or \"1m\".",
			path, strings.TrimSuffix(err.Error(), "."))
		return 0, false
	}
	switch {
	case most == 0 && dur < least:
		d.Errorf(a.Expr.Range(), "Invalid "+path,
			"%s must be at least %s; got %s.%s", path, least, dur, hcldecode.PrefixSpace(hint))
		return 0, false
	case most != 0 && (dur < least || dur > most):
		d.Errorf(a.Expr.Range(), "Invalid "+path,
			"%s must be from %s to %s; got %s.%s", path, least, most, dur, hcldecode.PrefixSpace(hint))
		return 0, false
	}
	return dur, true
}
