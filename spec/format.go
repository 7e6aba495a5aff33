package spec

import (
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/pgseq/pgseq/catalog"
	"github.com/zclconf/go-cty/cty"
)

// Format returns src in canonical layout (indentation, aligned equals
// signs, spacing). It only changes whitespace. If src does not parse, it
// returns the syntax errors and no output. Only syntax is checked: a
// well-formed file with invalid settings (even an argument set twice) is
// formatted. Formatting is idempotent: formatting the result again returns
// it unchanged. A file that exceeds one of the limits Parse checks is
// reported, not parsed.
func Format(src []byte, filename string) ([]byte, hcl.Diagnostics) {
	if diag := checkLimits(src, filename); diag != nil {
		return nil, hcl.Diagnostics{diag}
	}
	f, parseDiags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	var diags hcl.Diagnostics
	for _, d := range parseDiags {
		if duplicateArgument(d, f) == nil {
			diags = append(diags, d)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), diags
}

// WriteHCL renders a state as a formatted configuration that Parse turns
// back into the same state: queues, then task types, then counters, each
// sorted by name, then the access block (when roles are granted any
// level), its levels in the order of catalog.Levels. Every queue setting is written out; a task's concurrency
// is omitted when unlimited (0) and its max_retries when it inherits the
// queue's (nil). Every counter setting is written out except those that
// are unset: prefix, prefix_from and idempotency_window when empty, and
// table, column, scope and strategy for a standalone counter. Slots and
// live values are not configuration and are not written.
func WriteHCL(s catalog.State) []byte {
	s = catalog.State{
		Queues:    append([]catalog.Queue(nil), s.Queues...),
		TaskTypes: append([]catalog.TaskType(nil), s.TaskTypes...),
		Counters:  append([]catalog.Counter(nil), s.Counters...),
		Access:    append([]catalog.Grant(nil), s.Access...),
	}
	s.Sort()

	f := hclwrite.NewEmptyFile()
	body := f.Body()
	first := true
	separate := func() {
		if !first {
			body.AppendNewline()
		}
		first = false
	}
	for _, q := range s.Queues {
		separate()
		qb := body.AppendNewBlock("queue", []string{q.Name}).Body()
		qb.SetAttributeValue("batch_size", cty.NumberIntVal(int64(q.BatchSize)))
		qb.SetAttributeValue("max_retries", cty.NumberIntVal(int64(q.MaxRetries)))
		bb := qb.AppendNewBlock("backoff", nil).Body()
		bb.SetAttributeValue("initial", cty.StringVal(q.Backoff.Initial.String()))
		bb.SetAttributeValue("max", cty.StringVal(q.Backoff.Max.String()))
		bb.SetAttributeValue("factor", floatVal(q.Backoff.Factor))
		bb.SetAttributeValue("jitter", floatVal(q.Backoff.Jitter))
		qb.SetAttributeValue("worker_timeout", cty.StringVal(q.WorkerTimeout.String()))
		qb.SetAttributeValue("leader_lease", cty.StringVal(q.LeaderLease.String()))
		rb := qb.AppendNewBlock("retention", nil).Body()
		rb.SetAttributeValue("completed", cty.StringVal(q.Retention.Completed.String()))
		rb.SetAttributeValue("dead_letter", cty.StringVal(q.Retention.DeadLetter.String()))
	}
	for _, t := range s.TaskTypes {
		separate()
		tb := body.AppendNewBlock("task", []string{t.Name}).Body()
		tb.SetAttributeValue("queue", cty.StringVal(t.Queue))
		if t.Concurrency != 0 {
			tb.SetAttributeValue("concurrency", cty.NumberIntVal(int64(t.Concurrency)))
		}
		if t.MaxRetries != nil {
			tb.SetAttributeValue("max_retries", cty.NumberIntVal(int64(*t.MaxRetries)))
		}
		tb.SetAttributeValue("priority", cty.NumberIntVal(int64(t.Priority)))
		if p := t.Partition; p != nil {
			pb := tb.AppendNewBlock("partition", nil).Body()
			if p.By != "" {
				pb.SetAttributeValue("by", cty.StringVal(catalog.PartitionByPrefix+p.By))
			}
			pb.SetAttributeValue("concurrency", cty.NumberIntVal(int64(p.Concurrency)))
		}
	}
	for _, c := range s.Counters {
		separate()
		writeCounter(body.AppendNewBlock("counter", []string{c.Name}).Body(), c)
	}
	if len(s.Access) > 0 {
		separate()
		writeAccess(body, s.Access)
	}
	return hclwrite.Format(f.Bytes())
}

// floatVal returns f as a number that prints as the shortest decimal that
// reads back as f ("0.2", not 0.2's exact binary expansion).
func floatVal(f float64) cty.Value {
	v, err := cty.ParseNumberVal(strconv.FormatFloat(f, 'f', -1, 64))
	if err != nil {
		return cty.NumberFloatVal(f)
	}
	return v
}

// writeCounter writes a counter's settings into its block body.
func writeCounter(body *hclwrite.Body, c catalog.Counter) {
	if c.Attached() {
		body.SetAttributeValue("table", cty.StringVal(c.Table))
		body.SetAttributeValue("column", cty.StringVal(c.Column))
		scope := make([]cty.Value, len(c.Scope))
		for i, col := range c.Scope {
			scope[i] = cty.StringVal(col)
		}
		body.SetAttributeValue("scope", cty.TupleVal(scope))
	}
	if c.Prefix != "" {
		body.SetAttributeValue("prefix", cty.StringVal(c.Prefix))
	}
	if p := c.PrefixFrom; p != nil {
		pb := body.AppendNewBlock("prefix_from", nil).Body()
		pb.SetAttributeValue("table", cty.StringVal(p.Table))
		pb.SetAttributeValue("column", cty.StringVal(p.Column))
	}
	body.SetAttributeValue("start", cty.NumberIntVal(c.Start))
	body.SetAttributeValue("lock_timeout", cty.StringVal(c.LockTimeout.String()))
	if c.Attached() {
		body.SetAttributeValue("strategy", cty.StringVal(c.Strategy))
	}
	if c.IdempotencyWindow != 0 {
		body.SetAttributeValue("idempotency_window", cty.StringVal(c.IdempotencyWindow.String()))
	}
}
