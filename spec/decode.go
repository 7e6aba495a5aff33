package spec

import (
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// decoder turns the syntax trees of a configuration's files into a
// catalog.State, collecting every diagnostic on the way (Diags).
type decoder struct {
	hcldecode.Decoder
	state catalog.State

	// queues and tasks map declared names to the range of their block
	// header; queueLabels and taskLabels to the range of their name label.
	queues, tasks           map[string]hcl.Range
	queueLabels, taskLabels map[string]hcl.Range

	// refs are the tasks' queue references, checked once every file has
	// been decoded.
	refs []queueRef

	// counters maps declared counter names to their ranges, counterLabels
	// to the range of their name label.
	counters      map[string]CounterRanges
	counterLabels map[string]hcl.Range
	// numbered maps "schema.table.column" to the attached counter that
	// numbers it.
	numbered map[string]numberedColumn

	// accessBlock is the header of the access block, once decoded; roles
	// maps each role it names to where it is first named.
	accessBlock *hcl.Range
	roles       map[string]hcl.Range
}

// queueRef is a task's reference to its queue.
type queueRef struct {
	task, queue string
	// expr is the queue attribute's expression, nil when the task has no
	// queue attribute and uses the default queue.
	expr *hcl.Range
	// def is the task block's header.
	def hcl.Range
}

func newDecoder() *decoder {
	return &decoder{
		Decoder: hcldecode.Decoder{Takes: "pgseq configuration takes", Example: `500 or "30s"`},
		state:   catalog.State{Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}},
		queues:  map[string]hcl.Range{}, tasks: map[string]hcl.Range{},
		queueLabels: map[string]hcl.Range{}, taskLabels: map[string]hcl.Range{},
		counters: map[string]CounterRanges{}, counterLabels: map[string]hcl.Range{},
		numbered: map[string]numberedColumn{},
	}
}

// blockKind is a kind of top-level block: one kind of managed object.
type blockKind struct {
	// name is the block type.
	name string
	// example shows a block header, for diagnostics.
	example string
	// decode decodes a block of this kind, whose name label has been
	// checked to exist.
	decode func(d *decoder, b *hclsyntax.Block, name string, nameRange hcl.Range)
	// unlabeled, when set, decodes a block of a kind that takes no name
	// label (access) in place of decode.
	unlabeled func(d *decoder, b *hclsyntax.Block)
}

// blockKinds lists the top-level blocks. A new kind of managed object adds
// an entry here and a file with its decoder.
var blockKinds = []blockKind{
	{name: "queue", example: `queue "default" { ... }`, decode: (*decoder).queue},
	{name: "task", example: `task "email:send" { ... }`, decode: (*decoder).task},
	{name: "counter", example: `counter "invoice_number" { ... }`, decode: (*decoder).counter},
	{name: "access", example: accessExample, unlabeled: (*decoder).access},
}

func blockKindNames() []string {
	names := make([]string, len(blockKinds))
	for i, k := range blockKinds {
		names[i] = k.name
	}
	return names
}

// file decodes the top-level body of one file.
func (d *decoder) file(body *hclsyntax.Body) {
	for _, a := range hcldecode.SortedAttributes(body) {
		d.Errorf(a.NameRange, "Unsupported argument",
			"An argument named %s is not expected at the top level of a file. A pgseq file holds only %s blocks; settings go inside them.",
			hcldecode.Quote(a.Name), hcldecode.AndList(blockKindNames()))
	}
	for _, b := range body.Blocks {
		var kind *blockKind
		for i := range blockKinds {
			if blockKinds[i].name == b.Type {
				kind = &blockKinds[i]
			}
		}
		if kind == nil {
			d.Errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %s are not expected here.%s A pgseq file holds only %s blocks.",
				hcldecode.Quote(b.Type), hcldecode.DidYouMean(b.Type, blockKindNames()), hcldecode.AndList(blockKindNames()))
			continue
		}
		if kind.unlabeled != nil {
			kind.unlabeled(d, b)
			continue
		}
		switch len(b.Labels) {
		case 0:
			d.Errorf(b.DefRange(), "Missing name for "+kind.name,
				"A %s block needs one label, its name: %s.", kind.name, kind.example)
			continue
		case 1:
		default:
			extra := hcl.RangeBetween(b.LabelRanges[1], b.LabelRanges[len(b.LabelRanges)-1])
			d.Errorf(extra, "Extraneous label for "+kind.name,
				"A %s block takes exactly one label, its name: %s. Remove the other labels.", kind.name, kind.example)
		}
		kind.decode(d, b, b.Labels[0], b.LabelRanges[0])
	}
}

// wholeRule bounds a whole-number attribute.
type wholeRule struct {
	min, max int64
	// hint ends the out-of-range detail: what the value means or how to
	// express what the user may have wanted.
	hint string
}

// whole decodes a whole number within r's bounds.
func (d *decoder) whole(a *hclsyntax.Attribute, path string, r wholeRule) (int, bool) {
	bf, ok := d.Number(a, path, "a whole number")
	if !ok {
		return 0, false
	}
	if !bf.IsInt() || bf.Cmp(big.NewFloat(float64(r.min))) < 0 || bf.Cmp(big.NewFloat(float64(r.max))) > 0 {
		d.Errorf(a.Expr.Range(), "Invalid "+path,
			"%s must be a whole number from %d to %d; got %s.%s",
			path, r.min, r.max, bf.Text('g', 20), hcldecode.PrefixSpace(r.hint))
		return 0, false
	}
	i, _ := bf.Int64()
	return int(i), true
}

// numberIn decodes a number and checks it with r, the catalog rule a saved
// plan is checked with too. hint ends the out-of-range detail.
func (d *decoder) numberIn(a *hclsyntax.Attribute, r catalog.NumberRange, hint string) (float64, bool) {
	bf, ok := d.Number(a, r.Attr, "a number")
	if !ok {
		return 0, false
	}
	f, _ := bf.Float64()
	if r.Check(f) != nil {
		d.Errorf(a.Expr.Range(), "Invalid "+r.Attr, "%s.%s", r.Invalid(bf.Text('g', 20)), hcldecode.PrefixSpace(hint))
		return 0, false
	}
	return f, true
}

// durationRule decodes a duration string and checks it with r, the catalog
// rule a saved plan is checked with too.
func (d *decoder) durationRule(a *hclsyntax.Attribute, r catalog.DurationRange) (catalog.Duration, bool) {
	dur, ok := d.duration(a, r.Attr, 0)
	if !ok {
		return 0, false
	}
	if err := r.Check(dur); err != nil {
		d.Errorf(a.Expr.Range(), "Invalid "+r.Attr, "%s.", err)
		return 0, false
	}
	return dur, true
}

// duration decodes a duration string of at least least.
func (d *decoder) duration(a *hclsyntax.Attribute, path string, least catalog.Duration) (catalog.Duration, bool) {
	v, ok := d.Value(a)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.String {
		d.WrongType(a, path, `a duration string such as "30s"`, v)
		return 0, false
	}
	dur, err := catalog.ParseDuration(v.AsString())
	if err != nil {
		d.Errorf(a.Expr.Range(), "Invalid duration",
			"%s: %s. Write whole numbers with units, such as \"30s\", \"10m\", \"7d\" or \"1h30m\".",
			path, strings.TrimSuffix(err.Error(), "."))
		return 0, false
	}
	if dur < least {
		d.Errorf(a.Expr.Range(), "Invalid "+path,
			"%s must be at least %s; got %s.", path, least, dur)
		return 0, false
	}
	return dur, true
}
