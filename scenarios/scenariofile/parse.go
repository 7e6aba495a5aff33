package scenariofile

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/spec"
)

// Load reads and parses scenario files. Each path is a file or a
// directory; a directory contributes its *.hcl files (not its
// subdirectories) in name order, and one without any is an error. All
// files together form one set of scenarios (names are unique across
// them, against may name a scenario of another file). A file named twice
// is read once.
//
// The scenarios come in file name order, then in the order of their
// blocks. Every problem is reported, each with its source range; when
// diags has errors the scenarios are incomplete and must not be run.
func Load(paths ...string) ([]Scenario, hcl.Diagnostics) {
	files, diags := ReadFiles(paths...)
	if len(files) == 0 && diags.HasErrors() {
		return nil, diags
	}
	scenarios, parseDiags := Parse(files)
	diags = append(diags, parseDiags...)
	hcldecode.SortDiagnostics(diags)
	return scenarios, diags
}

// ReadFiles reads the files that Load would parse, by file name, for Parse,
// and for printing diagnostics with their source lines
// (spec.WriteDiagnostics). A file is read up to spec.MaxFileSize+1 bytes,
// enough for Parse to report it as too large.
func ReadFiles(paths ...string) (map[string][]byte, hcl.Diagnostics) {
	return hcldecode.ReadFiles("scenario", spec.MaxFileSize, paths...)
}

// Parse parses and validates scenario files held in memory: file name to
// content. The file names appear in diagnostics. Files are decoded in name
// order, which decides the order of the scenarios and which of two
// duplicates is reported. Each file is checked against spec's limits
// (spec.MaxFileSize, spec.MaxNesting, …) before it is parsed, and not
// parsed if it exceeds one. When any file has syntax errors, the checks
// between scenarios (against) are skipped: a missing reference may be in
// the part that could not be read.
func Parse(files map[string][]byte) ([]Scenario, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if len(files) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No scenario files",
			Detail: "Give at least one .hcl file or a directory that holds .hcl files."})
	}
	names := slices.Sorted(maps.Keys(files))

	d := &fileDecoder{
		Decoder: hcldecode.Decoder{Takes: "Scenario files take", Example: `200000 or "20ms"`, FractionalDurations: true},
		byName:  map[string]int{},
	}
	complete := true
	for _, name := range names {
		f, parseDiags, ok := spec.ParseFile(files[name], name)
		diags = append(diags, parseDiags...)
		if !ok {
			complete = false
			continue
		}
		d.file(f.Body.(*hclsyntax.Body))
	}
	if complete {
		d.checkGroups()
		d.checkTables()
	}
	diags = append(diags, d.Diags...)
	if !diags.HasErrors() && len(d.scenarios) == 0 && len(names) > 0 {
		// Located at the start of the first file, so that even this error
		// reads file:line:col like every other.
		start := hcl.Pos{Line: 1, Column: 1}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No scenarios",
			Detail:  `The files declare no scenario. A scenario file holds scenario blocks: scenario "baseline" { workload = "drain" ... }.`,
			Subject: &hcl.Range{Filename: names[0], Start: start, End: start}})
	}
	hcldecode.SortDiagnostics(diags)
	return d.scenarios, diags
}

// fileDecoder turns the syntax trees of scenario files into Scenarios,
// collecting every diagnostic on the way.
type fileDecoder struct {
	hcldecode.Decoder
	scenarios []Scenario
	// decls[i] is where scenarios[i]'s cross-checked arguments are.
	decls []scenarioDecl
	// byName maps a scenario name to its index in scenarios.
	byName map[string]int
}

// scenarioDecl is where a scenario's name and the arguments checked
// against other scenarios are written.
type scenarioDecl struct {
	nameRange hcl.Range
	// against is the against argument, nil when absent or invalid.
	against *hclsyntax.Attribute
	// rounds and quickRounds are size.rounds and quick.rounds, nil when
	// absent or invalid.
	rounds, quickRounds *hclsyntax.Attribute
	// roundsBad and quickRoundsBad say the argument is there but invalid.
	roundsBad, quickRoundsBad bool
	// table is counter.table, nil when absent or when the counter block
	// has errors.
	table *hclsyntax.Attribute
}

// configBlockTypes are the blocks of a pgseq configuration file; at the top
// level of a scenario file they are most likely a configuration file given
// by mistake.
var configBlockTypes = []string{"queue", "task", "counter"}

// file decodes the top-level body of one file.
func (d *fileDecoder) file(body *hclsyntax.Body) {
	for _, a := range hcldecode.SortedAttributes(body) {
		d.Errorf(a.NameRange, "Unsupported argument",
			"An argument named %s is not expected at the top level of a scenario file. A scenario file holds only scenario blocks; settings go inside them.",
			hcldecode.Quote(a.Name))
	}
	for _, b := range body.Blocks {
		if b.Type != "scenario" {
			hint := hcldecode.DidYouMean(b.Type, []string{"scenario"})
			if slices.Contains(configBlockTypes, b.Type) {
				hint = " This looks like a pgseq configuration file: a scenario's queue and task blocks go inside its scenario block."
			}
			d.Errorf(b.TypeRange, "Unsupported block type",
				"Blocks of type %s are not expected here.%s A scenario file holds only scenario blocks: scenario \"name\" { ... }.",
				hcldecode.Quote(b.Type), hint)
			continue
		}
		switch len(b.Labels) {
		case 0:
			d.Errorf(b.DefRange(), "Missing name for scenario",
				`A scenario block needs one label, its name: scenario "baseline" { ... }.`)
			continue
		case 1:
		default:
			d.Errorf(hcl.RangeBetween(b.LabelRanges[1], b.LabelRanges[len(b.LabelRanges)-1]), "Extraneous label for scenario",
				`A scenario block takes exactly one label, its name: scenario "baseline" { ... }. Remove the other labels.`)
		}
		d.scenario(b, b.Labels[0], b.LabelRanges[0])
	}
}

// scenarioNameRE is the rule for scenario names.
var scenarioNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)

const scenarioNameRule = `A scenario name starts with a lowercase letter, followed by at most 62 lowercase letters, digits, underscores or hyphens (^[a-z][a-z0-9_-]{0,62}$), such as "baseline" or "high-baseline".`

// The arguments and blocks of a scenario block.
var (
	scenarioAttrs   = []string{"description", "workload", "against", "handler_delay", "hold_snapshot", "measure_until"}
	scenarioBlocks  = []string{"size", "quick", "types", "keys", "explain", "counter"}
	scenarioLabeled = []string{"queue", "task", "threshold", "storage"}
)

// scenario decodes a scenario block.
func (d *fileDecoder) scenario(b *hclsyntax.Block, name string, nameRange hcl.Range) {
	valid := scenarioNameRE.MatchString(name)
	if !valid {
		detail := fmt.Sprintf("%s is not a valid scenario name. %s", hcldecode.Quote(name), scenarioNameRule)
		if fixed := strings.ToLower(strings.NewReplacer(" ", "-", ".", "-", ":", "-").Replace(name)); fixed != name && scenarioNameRE.MatchString(fixed) {
			detail += fmt.Sprintf(" Did you mean %q?", fixed)
		}
		d.Errorf(nameRange, "Invalid scenario name", "%s", detail)
	}
	s := Scenario{Name: name, DeclRange: b.DefRange()}
	decl := scenarioDecl{nameRange: nameRange}
	attrs, blocks, labeled := d.Content(b.Body, "scenario", scenarioAttrs, scenarioBlocks, scenarioLabeled)

	// The workload decides what else the scenario may say; while it is
	// unknown, only what every workload shares is checked.
	if a := attrs["workload"]; !hcldecode.IsSet(a) {
		d.Errorf(b.DefRange(), "Missing workload",
			"Scenario %q has no workload. Say what it measures: workload = %s.", name, diagOr(workloadStrings()))
	} else if v, ok := d.Str(a, "workload"); ok {
		if w := Workload(v); slices.Contains(Workloads, w) {
			s.Workload = w
		} else {
			d.Errorf(a.Expr.Range(), "Invalid workload", "workload must be %s; got %s.%s",
				diagOr(workloadStrings()), hcldecode.Quote(v), hcldecode.DidYouMean(v, workloadStrings()))
		}
	}
	w := s.Workload

	if v, ok := d.Str(attrs["description"], "description"); ok {
		s.Description = v
	}
	if a := attrs["against"]; hcldecode.IsSet(a) && w == WorkloadSoak {
		d.notForWorkload(a.NameRange, "against", w, "A soak scenario runs on its own, for its whole duration; it has no ratio to a reference.")
	} else if hcldecode.IsSet(a) && w == WorkloadScale {
		d.notForWorkload(a.NameRange, "against", w, "A scale scenario runs on its own, once; it has no ratio to a reference.")
	} else if hcldecode.IsSet(a) {
		if v, ok := d.Str(a, "against"); ok {
			switch v {
			case "":
				d.Errorf(a.Expr.Range(), "Invalid against",
					"against names the scenario this one is measured against; it is empty. Name a scenario, or remove against.")
			case name:
				d.Errorf(a.Expr.Range(), "Scenario against itself",
					"Scenario %q names itself in against. against names another scenario, the reference this one runs interleaved with: name another one, or remove against.", name)
			default:
				s.Against, decl.against = v, a
			}
		}
	}
	if a := attrs["handler_delay"]; hcldecode.IsSet(a) {
		if w != "" && w != WorkloadDrain && w != WorkloadSoak {
			d.notForWorkload(a.NameRange, "handler_delay", w, "It is how long each task's handler sleeps, which only the drain and soak workloads have.")
		} else if v, ok := d.duration(a, "handler_delay"); ok {
			s.HandlerDelay = v
		}
	}
	if a := attrs["hold_snapshot"]; hcldecode.IsSet(a) {
		if w != "" && w != WorkloadSoak {
			d.notForWorkload(a.NameRange, "hold_snapshot", w, "It holds a snapshot open for the whole of a soak run.")
		} else if v, ok := d.Bool(a, "hold_snapshot"); ok {
			s.Soak.HoldSnapshot = v
		}
	}

	if a := attrs["measure_until"]; hcldecode.IsSet(a) {
		if w != "" && w != WorkloadDrain {
			d.notForWorkload(a.NameRange, "measure_until", w, "It ends a drain's throughput measurement early.")
		} else if v, ok := d.share(a, "measure_until", 0, "the share of the tasks completed when the throughput measurement ends"); ok {
			s.MeasureUntil = v
		}
	}

	var sizeAttrs, quickAttrs map[string]*hclsyntax.Attribute
	if sb := blocks["size"]; sb != nil {
		s.Size, sizeAttrs = d.size(sb, "size", w)
	}
	if qb := blocks["quick"]; qb != nil {
		s.Quick, quickAttrs = d.size(qb, "quick", w)
	}
	if a := sizeAttrs["rounds"]; hcldecode.IsSet(a) {
		decl.rounds, decl.roundsBad = a, s.Size.Rounds == 0
	}
	if a := quickAttrs["rounds"]; hcldecode.IsSet(a) {
		decl.quickRounds, decl.quickRoundsBad = a, s.Quick.Rounds == 0
	}
	if decl.roundsBad {
		decl.rounds = nil
	}
	if decl.quickRoundsBad {
		decl.quickRounds = nil
	}

	configOK := d.config(b, &s, blocks["types"], labeled, sizeAttrs, quickAttrs)
	if kb := blocks["keys"]; kb != nil {
		if w != "" && w != WorkloadDrain {
			d.notForWorkload(kb.TypeRange, "keys", w, "It gives the tasks a drain seeds their partition keys.")
		} else {
			d.keys(kb, &s)
		}
	}
	if configOK && w == WorkloadDrain && s.Keys.Count == 0 {
		d.checkKeysGiven(b, s)
	}

	if eb := blocks["explain"]; eb != nil {
		if w != "" && w != WorkloadExplain {
			d.notForWorkload(eb.TypeRange, "explain", w, "It says what the explain workload seeds.")
		} else {
			d.explain(eb, &s, configOK)
		}
	}
	if w == WorkloadCounters {
		d.checkConnections(s, sizeAttrs, quickAttrs)
	}
	if cb := blocks["counter"]; cb != nil {
		if w != "" && w != WorkloadCounters {
			d.notForWorkload(cb.TypeRange, "counter", w, "It says how the counters workload numbers its rows.")
		} else {
			decl.table = d.counter(cb, &s)
		}
	} else if w == WorkloadCounters {
		d.Errorf(b.DefRange(), "Missing counter block",
			`Counters scenario %q has no counter block, which says how its rows are numbered: counter { strategy = "counter_table" }.`, name)
	}

	d.storage(&s, labeled)
	d.thresholds(&s, labeled, attrs["against"])

	if first, dup := d.byName[name]; dup {
		d.Errorf(nameRange, "Duplicate scenario",
			"A scenario named %q was already declared at %s. Scenario names are unique across all the files of a run: rename or remove one of them.",
			name, hcldecode.PosString(d.decls[first].nameRange))
		return
	}
	if !valid {
		return
	}
	d.byName[name] = len(d.scenarios)
	d.scenarios = append(d.scenarios, s)
	d.decls = append(d.decls, decl)
}

// notForWorkload records that an argument or block (what) is written in a
// scenario whose workload does not use it.
func (d *fileDecoder) notForWorkload(subject hcl.Range, what string, w Workload, why string) {
	d.Errorf(subject, "Not used by the "+string(w)+" workload",
		"%s is not used by the %s workload. %s Remove it, or change the workload.", what, w, why)
}

// sizeArgs are the arguments of size and quick blocks, in documentation
// order, with the workloads that use each and their ranges.
var sizeArgs = []struct {
	name      string
	workloads []Workload
	max       int64
}{
	{"tasks", []Workload{WorkloadDrain, WorkloadExplain}, 100_000_000},
	{"rounds", []Workload{WorkloadDrain, WorkloadExplain, WorkloadCounters, WorkloadScale}, 1000},
	{"warmup", []Workload{WorkloadDrain}, 100_000_000},
	{"workers", []Workload{WorkloadDrain, WorkloadSoak}, 1000},
	{"pool_size", []Workload{WorkloadDrain, WorkloadSoak}, 10_000},
	{"batch_size", []Workload{WorkloadDrain, WorkloadExplain, WorkloadSoak}, catalog.MaxBatchSize},
	{"clients", []Workload{WorkloadCounters}, 1000},
	{"connections", []Workload{WorkloadCounters}, 1000},
	{"duration", []Workload{WorkloadCounters, WorkloadSoak}, 0},
	{"rate", []Workload{WorkloadSoak}, 1_000_000},
	{"task_types", []Workload{WorkloadScale}, MaxScaleTypes},
	{"limit", []Workload{WorkloadScale}, catalog.ConcurrencyRange.Max},
}

// sizeArgNames returns the size arguments a workload uses (every one for
// an unknown workload).
func sizeArgNames(w Workload) []string {
	var names []string
	for _, a := range sizeArgs {
		if w == "" || slices.Contains(a.workloads, w) {
			names = append(names, a.name)
		}
	}
	return names
}

// size decodes a size or quick block (which). It returns the decoded size
// and the block's arguments by name.
func (d *fileDecoder) size(b *hclsyntax.Block, which string, w Workload) (Size, map[string]*hclsyntax.Attribute) {
	attrs, _, _ := d.Content(b.Body, which, sizeArgNames(""), nil, nil)
	var s Size
	ints := map[string]*int{
		"tasks": &s.Tasks, "rounds": &s.Rounds, "warmup": &s.Warmup, "workers": &s.Workers,
		"pool_size": &s.PoolSize, "batch_size": &s.BatchSize, "clients": &s.Clients, "connections": &s.Connections, "rate": &s.Rate,
		"task_types": &s.TaskTypes, "limit": &s.Limit,
	}
	for _, arg := range sizeArgs {
		a := attrs[arg.name]
		if !hcldecode.IsSet(a) {
			continue
		}
		if w != "" && !slices.Contains(arg.workloads, w) {
			d.Errorf(a.NameRange, "Not used by the "+string(w)+" workload",
				"%s.%s is not used by the %s workload. Its %s block takes %s.",
				which, arg.name, w, which, hcldecode.AndList(sizeArgNames(w)))
			continue
		}
		path := which + "." + arg.name
		if arg.name == "duration" {
			if v, ok := d.duration(a, path); ok {
				s.Duration = v
			}
			continue
		}
		hint := "Leave it out for the workload's default."
		if v, ok := d.WholeIn(a, catalog.IntRange{Attr: path, Min: 1, Max: arg.max}, hint); ok {
			*ints[arg.name] = v
		}
	}
	return s, attrs
}

// config decodes the scenario's configuration: a types block or inline
// queue and task blocks (among labeled). It reports whether the
// configuration decoded without errors.
func (d *fileDecoder) config(b *hclsyntax.Block, s *Scenario, types *hclsyntax.Block, labeled []*hclsyntax.Block, sizeAttrs, quickAttrs map[string]*hclsyntax.Attribute) bool {
	var inline []*hclsyntax.Block
	for _, lb := range labeled {
		if lb.Type == "queue" || lb.Type == "task" {
			inline = append(inline, lb)
		}
	}
	w := s.Workload
	if why, ok := noConfigWorkloads[w]; ok {
		if types != nil {
			d.notForWorkload(types.TypeRange, "types", w, why)
		}
		for _, lb := range inline {
			d.notForWorkload(lb.TypeRange, lb.Type+" "+hcldecode.Quote(blockLabel(lb)), w, why)
		}
		return false
	}

	before := len(d.Diags)
	switch {
	case types != nil && len(inline) > 0:
		d.Errorf(types.TypeRange, "Conflicting configuration",
			"types generates the scenario's configuration, and the %s block at %s declares one too. Use either types or queue and task blocks.",
			inline[0].Type, hcldecode.PosString(inline[0].TypeRange))
		return false
	case types != nil:
		s.Config = d.types(types, s.Size.BatchSize)
	case len(inline) > 0:
		state, diags := spec.DecodeConfigBlocks(inline)
		d.Diags = append(d.Diags, diags...)
		s.Config = state
		for _, a := range []*hclsyntax.Attribute{sizeAttrs["batch_size"], quickAttrs["batch_size"]} {
			if hcldecode.IsSet(a) {
				d.Errorf(a.NameRange, "batch_size with inline configuration",
					"The queue and task blocks declare the scenario's configuration, so the queue's batch_size is set in its queue block: queue \"%s\" { batch_size = ... }. Remove batch_size here.",
					firstQueueBlock(inline))
			}
		}
		if !diags.HasErrors() && len(state.TaskTypes) == 0 {
			d.Errorf(inline[0].DefRange(), "Missing task block",
				"Scenario %q declares a queue but no task type; the %s workload needs at least one: task \"noop\" { queue = %q }.",
				s.Name, diagWorkload(w), firstQueueBlock(inline))
		}
	default:
		if w != "" {
			d.Errorf(b.DefRange(), "Missing configuration",
				"The %s workload runs against a pgseq configuration, and scenario %q has none. Generate one with a types block (types { count = 1 } for one unlimited task type) or declare it with queue and task blocks.",
				w, s.Name)
		}
		return false
	}
	return len(d.Diags) == before
}

// noConfigWorkloads are the workloads that take no configuration (types,
// queue and task blocks), each with why.
var noConfigWorkloads = map[Workload]string{
	WorkloadCounters: "The counters workload inserts into tables of its own and takes no queue configuration.",
	WorkloadScale:    "The scale workload generates its configuration from size.task_types and size.limit and takes no other.",
}

// blockLabel returns a block's first label, or "".
func blockLabel(b *hclsyntax.Block) string {
	if len(b.Labels) == 0 {
		return ""
	}
	return b.Labels[0]
}

// firstQueueBlock returns the name of the first queue block among blocks, or
// "bench".
func firstQueueBlock(blocks []*hclsyntax.Block) string {
	for _, b := range blocks {
		if b.Type == "queue" && len(b.Labels) > 0 {
			return b.Labels[0]
		}
	}
	return "bench"
}

func diagWorkload(w Workload) string {
	if w == "" {
		return "scenario's"
	}
	return string(w)
}

// Generated configurations.
const (
	// DefaultTypesQueue is the queue of generated task types when the types
	// block names none.
	DefaultTypesQueue = "bench"
	// MaxGeneratedTypes is the most task types a types block generates.
	MaxGeneratedTypes = 100_000
)

// types decodes a types block and generates its configuration (empty when
// the block has errors). batchSize is size.batch_size (0: unset).
func (d *fileDecoder) types(b *hclsyntax.Block, batchSize int) catalog.State {
	attrs, _, _ := d.Content(b.Body, "types", []string{"count", "limited", "limit", "queue"}, nil, nil)
	before := len(d.Diags)
	count, limited, limit := 0, 0, 0
	if a := attrs["count"]; !hcldecode.IsSet(a) {
		d.Errorf(b.DefRange(), "Missing count",
			"A types block needs count, the number of task types to generate: types { count = 100 }.")
	} else if v, ok := d.WholeIn(a, catalog.IntRange{Attr: "types.count", Min: 1, Max: MaxGeneratedTypes}, ""); ok {
		count = v
	}
	limitedAttr := attrs["limited"]
	if v, ok := d.WholeIn(limitedAttr, catalog.IntRange{Attr: "types.limited", Min: 0, Max: MaxGeneratedTypes},
		"It is how many of the generated types, the first ones, have the limit."); ok {
		limited = v
		if count > 0 && limited > count {
			d.Errorf(limitedAttr.Expr.Range(), "Invalid types.limited",
				"types.limited (%d) is more than types.count (%d): at most every generated type can be limited.", limited, count)
		}
	}
	if a := attrs["limit"]; hcldecode.IsSet(a) {
		if v, ok := d.WholeIn(a, catalog.IntRange{Attr: "types.limit", Min: catalog.ConcurrencyRange.Min, Max: catalog.ConcurrencyRange.Max},
			"It is the concurrency of each limited type."); ok {
			limit = v
			if !hcldecode.IsSet(limitedAttr) || (limited == 0 && len(d.Diags) == before) {
				d.Errorf(a.Expr.Range(), "Limit without limited types",
					"types.limit is the concurrency of the first types.limited types, and limited is 0, so no type has it. Set limited, or remove limit.")
			}
		}
	} else if limited > 0 {
		d.Errorf(limitedAttr.Expr.Range(), "Missing limit",
			"types.limited = %d limits that many task types, but the block has no limit saying to how many running tasks: add limit, such as limit = 10.", limited)
	}
	queueName := DefaultTypesQueue
	if a := attrs["queue"]; hcldecode.IsSet(a) {
		if v, ok := d.Str(a, "types.queue"); ok {
			if catalog.ValidQueueName(v) {
				queueName = v
			} else {
				d.Errorf(a.Expr.Range(), "Invalid queue name",
					`%s is not a valid queue name. A queue name starts with a lowercase letter, followed by at most 62 lowercase letters, digits, underscores or hyphens (^[a-z][a-z0-9_-]{0,62}$), such as "bench".`, hcldecode.Quote(v))
			}
		}
	}
	if len(d.Diags) > before {
		return catalog.State{}
	}
	return GenerateTypes(count, limited, limit, queueName, batchSize)
}

// GenerateTypes returns the configuration a types block declares: count
// task types on one queue named queueName, the first limited of them with
// concurrency limit. The types are named "noop" when count is 1, else
// noop.0000, noop.0001, … (more digits from 10,000 types on). The queue
// has catalog.DefaultQueue's settings and batchSize as its batch_size when
// batchSize is not 0. The arguments are assumed valid.
func GenerateTypes(count, limited, limit int, queueName string, batchSize int) catalog.State {
	q := catalog.DefaultQueue(queueName)
	if batchSize > 0 {
		q.BatchSize = batchSize
	}
	width := max(4, len(strconv.Itoa(count-1)))
	types := make([]catalog.TaskType, count)
	for i := range types {
		name := "noop"
		if count > 1 {
			name = fmt.Sprintf("noop.%0*d", width, i)
		}
		types[i] = catalog.TaskType{Name: name, Queue: queueName}
		if i < limited {
			types[i].Concurrency = limit
		}
	}
	return catalog.State{Queues: []catalog.Queue{q}, TaskTypes: types}
}

// explain decodes an explain block. configOK says the configuration
// decoded without errors, so that saturated can be checked against it.
func (d *fileDecoder) explain(b *hclsyntax.Block, s *Scenario, configOK bool) {
	attrs, _, _ := d.Content(b.Body, "explain", []string{"saturated", "batch"}, nil, nil)
	if a := attrs["saturated"]; hcldecode.IsSet(a) {
		if v, ok := d.Str(a, "explain.saturated"); ok {
			s.Explain.Saturated = v
			if configOK {
				d.checkSaturated(a, v, s.Config)
			}
		}
	}
	if v, ok := d.WholeIn(attrs["batch"], catalog.IntRange{Attr: "explain.batch", Min: catalog.MinBatchSize, Max: catalog.MaxBatchSize},
		"It is the claim's batch size; leave it out for the queue's batch_size."); ok {
		s.Explain.Batch = v
	}
}

// checkSaturated checks that name, the value of a, is a task type of cfg
// with a limit to saturate: a concurrency (its units held) or a partition
// block (one key's units held), not both.
func (d *fileDecoder) checkSaturated(a *hclsyntax.Attribute, name string, cfg catalog.State) {
	var limited []string
	for _, t := range cfg.TaskTypes {
		if t.Name == name {
			switch {
			case t.Concurrency == 0 && t.Partition == nil:
				d.Errorf(a.Expr.Range(), "Saturated type without a limit",
					"explain.saturated names task type %q, which has no concurrency limit and no partition block, so it cannot be saturated. Name a limited or partitioned task type, or give %q a concurrency.", name, name)
			case t.Concurrency > 0 && t.Partition != nil:
				d.Errorf(a.Expr.Range(), "Saturated type with two limits",
					"explain.saturated names task type %q, which has both a concurrency limit and a partition block; the explain workload saturates one of them: remove the other from %q, or name another task type.", name, name)
			}
			return
		}
		if t.Concurrency > 0 || t.Partition != nil {
			limited = append(limited, t.Name)
		}
	}
	fix := "The configuration has no limited or partitioned task type: give one a concurrency."
	if len(limited) > 0 {
		shown := limited
		if len(shown) > 10 {
			shown = append(slices.Clone(shown[:10]), "…")
		}
		fix = "Limited or partitioned task types: " + strings.Join(shown, ", ") + "."
	}
	d.Errorf(a.Expr.Range(), "Unknown task type",
		"explain.saturated names task type %s, which the scenario's configuration does not declare.%s %s",
		hcldecode.Quote(name), hcldecode.DidYouMean(name, limited), fix)
}

// diagShare renders a measure_until value: "30%", or "100%" for 0.
func diagShare(f float64) string {
	if f == 0 {
		return "100%"
	}
	return strconv.FormatFloat(f*100, 'g', -1, 64) + "%"
}

// keys decodes a keys block.
func (d *fileDecoder) keys(b *hclsyntax.Block, s *Scenario) {
	attrs, _, _ := d.Content(b.Body, "keys", []string{"count", "hot_share"}, nil, nil)
	if !hcldecode.IsSet(attrs["count"]) {
		d.Errorf(b.DefRange(), "Missing count",
			"A keys block needs count, the number of distinct partition keys the tasks spread over: keys { count = 10000 }.")
		return
	}
	count, ok := d.WholeIn(attrs["count"], catalog.IntRange{Attr: "keys.count", Min: 1, Max: MaxKeys}, "It is the number of distinct partition keys.")
	if !ok {
		return
	}
	s.Keys.Count = count
	if a := attrs["hot_share"]; hcldecode.IsSet(a) {
		if v, ok := d.share(a, "keys.hot_share", 1/float64(count),
			fmt.Sprintf("the share of the tasks the hottest key gets, at least 1/count (%g: every key alike)", 1/float64(count))); ok {
			s.Keys.HotShare = v
		}
	}
}

// checkKeysGiven reports a drain scenario without a keys block whose
// configuration has a partitioned task type: its seeded tasks would have
// no key, and enqueue refuses them.
func (d *fileDecoder) checkKeysGiven(b *hclsyntax.Block, s Scenario) {
	for _, t := range s.Config.TaskTypes {
		if t.Partitioned() {
			d.Errorf(b.DefRange(), "Missing keys block",
				"Task type %q of scenario %q has a partition block, so every task it seeds needs a partition key, and the scenario gives none. Add a keys block: keys { count = 10000 }.",
				t.Name, s.Name)
			return
		}
	}
}

// share decodes a number in (low, 1] when low is 0, else in [low, 1];
// what says what it is.
func (d *fileDecoder) share(a *hclsyntax.Attribute, path string, low float64, what string) (float64, bool) {
	bf, ok := d.Number(a, path, "a number between 0 and 1")
	if !ok {
		return 0, false
	}
	f, _ := bf.Float64()
	if f > 1 || f < low || f <= 0 {
		bound := "above 0"
		if low > 0 {
			bound = fmt.Sprintf("at least %g", low)
		}
		d.Errorf(a.Expr.Range(), "Invalid "+path, "%s is %s: a number %s and at most 1; got %g.", path, what, bound, f)
		return 0, false
	}
	return f, true
}

// counterStrategies are the counter block's strategies, in documentation
// order.
var counterStrategies = []string{StrategyCounterTable, StrategyAdvisoryLock, StrategyOptimistic, StrategyPlain}

// counterTableRE is the rule for counter.table: the table's name is also
// its counter's, and with a suffix its constraint's, within PostgreSQL's 63
// bytes.
var counterTableRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// counter decodes a counter block. It returns its table argument when
// the block has one and no error.
func (d *fileDecoder) counter(b *hclsyntax.Block, s *Scenario) *hclsyntax.Attribute {
	before := len(d.Diags)
	attrs, _, _ := d.Content(b.Body, "counter", []string{"strategy", "scopes", "rows_per_scope", "table"}, nil, nil)
	if a := attrs["strategy"]; !hcldecode.IsSet(a) {
		d.Errorf(b.DefRange(), "Missing strategy",
			"A counter block needs strategy, how the rows are numbered: %s.", diagOr(counterStrategies))
	} else if v, ok := d.Str(a, "counter.strategy"); ok {
		if slices.Contains(counterStrategies, v) {
			s.Counter.Strategy = v
		} else {
			d.Errorf(a.Expr.Range(), "Invalid strategy", "counter.strategy must be %s; got %s.%s",
				diagOr(counterStrategies), hcldecode.Quote(v), hcldecode.DidYouMean(v, counterStrategies))
		}
	}
	s.Counter.Scopes = 1
	if v, ok := d.WholeIn(attrs["scopes"], catalog.IntRange{Attr: "counter.scopes", Min: 1, Max: 1_000_000},
		"It is how many scopes the inserts spread over; 1 is one hot scope."); ok {
		s.Counter.Scopes = v
	}
	if v, ok := d.WholeIn(attrs["rows_per_scope"], catalog.IntRange{Attr: "counter.rows_per_scope", Min: 0, Max: 10_000_000},
		"It is how many rows each scope holds before the run."); ok {
		s.Counter.RowsPerScope = v
	}
	a := attrs["table"]
	if !hcldecode.IsSet(a) {
		return nil
	}
	if v, ok := d.Str(a, "counter.table"); ok {
		if counterTableRE.MatchString(v) {
			s.Counter.Table = v
		} else {
			d.Errorf(a.Expr.Range(), "Invalid table name",
				`%s is not a valid table name. A counters table name starts with a lowercase letter, followed by at most 39 lowercase letters, digits or underscores (^[a-z][a-z0-9_]{0,39}$), such as "hot".`,
				hcldecode.Quote(v))
		}
	}
	if len(d.Diags) > before {
		return nil
	}
	return a
}

// checkConnections checks that a counters scenario has at least as many
// clients as the connections they share (size.connections), at its size
// and under --quick. sizeAttrs and quickAttrs are the arguments of its
// size and quick blocks.
func (d *fileDecoder) checkConnections(s Scenario, sizeAttrs, quickAttrs map[string]*hclsyntax.Attribute) {
	const fix = "The clients share the connections, so there are at most as many connections as clients: lower connections, or leave it out for a connection per client."
	if hcldecode.IsSet(sizeAttrs["clients"]) && s.Size.Clients == 0 || hcldecode.IsSet(quickAttrs["clients"]) && s.Quick.Clients == 0 {
		return // clients is invalid, and reported
	}
	full := countersDefaults.Merge(s.Size)
	if full.Connections > full.Clients {
		clients := fmt.Sprintf("size.clients = %d", full.Clients)
		if s.Size.Clients == 0 {
			clients = fmt.Sprintf("the default of %s", textfmt.Plural(full.Clients, "client"))
		}
		d.Errorf(sizeAttrs["connections"].Expr.Range(), "More connections than clients",
			"size.connections is %d, more than the clients (%s). %s", full.Connections, clients, fix)
		return
	}
	quick := full.Merge(s.Quick)
	if quick.Connections <= quick.Clients {
		return
	}
	subject := quickAttrs["connections"]
	if s.Quick.Connections == 0 {
		subject = quickAttrs["clients"]
	}
	d.Errorf(subject.Expr.Range(), "More connections than clients",
		"Under --quick the scenario has %s sharing %s. %s", textfmt.Plural(quick.Clients, "client"), textfmt.Plural(quick.Connections, "connection"), fix)
}

// checkTables checks that the counters scenarios sharing a table
// (counter.table) declare it alike: the first one to name it decides.
func (d *fileDecoder) checkTables() {
	first := map[string]int{}
	for i, s := range d.scenarios {
		a := d.decls[i].table
		if a == nil {
			continue
		}
		j, seen := first[s.Counter.Table]
		if !seen {
			first[s.Counter.Table] = i
			continue
		}
		ref := d.scenarios[j]
		if s.Counter != ref.Counter {
			d.Errorf(a.Expr.Range(), "Shared table declared differently",
				"Table %q is shared with scenario %q (declared at %s), whose counter block says %s, and this one's says %s. Scenarios sharing a table declare the same strategy, scopes and rows_per_scope: make them agree, or give this scenario a table of its own.",
				s.Counter.Table, ref.Name, hcldecode.PosString(d.decls[j].table.Expr.Range()), diagCounter(ref.Counter), diagCounter(s.Counter))
		}
	}
}

// diagCounter renders what a counter block declares about its table.
func diagCounter(c CounterSpec) string {
	return fmt.Sprintf("strategy = %q, scopes = %d, rows_per_scope = %d", c.Strategy, c.Scopes, c.RowsPerScope)
}

// StorageTables are the pgseq tables a soak scenario's storage block may
// name.
var StorageTables = []string{"tasks", "concurrency_slots", "workers", "leader"}

// storageKind is the type of a storage parameter's value.
type storageKind int

const (
	storageInt storageKind = iota
	storageReal
	storageBool
)

// storageParam is a table storage parameter a storage block may set, with
// PostgreSQL's range for it.
type storageParam struct {
	name     string
	kind     storageKind
	min, max float64
}

// storageParams are the storage parameters a storage block may set, in
// documentation order.
var storageParams = []storageParam{
	{"fillfactor", storageInt, 10, 100},
	{"autovacuum_enabled", storageBool, 0, 0},
	{"autovacuum_vacuum_threshold", storageInt, 0, math.MaxInt32},
	{"autovacuum_vacuum_scale_factor", storageReal, 0, 100},
	{"autovacuum_vacuum_insert_threshold", storageInt, -1, math.MaxInt32},
	{"autovacuum_vacuum_insert_scale_factor", storageReal, 0, 100},
	{"autovacuum_analyze_threshold", storageInt, 0, math.MaxInt32},
	{"autovacuum_analyze_scale_factor", storageReal, 0, 100},
	{"autovacuum_vacuum_cost_delay", storageReal, 0, 100},
	{"autovacuum_vacuum_cost_limit", storageInt, 1, 10000},
}

func storageParamNames() []string {
	names := make([]string, len(storageParams))
	for i, p := range storageParams {
		names[i] = p.name
	}
	return names
}

// storage decodes the storage blocks among labeled.
func (d *fileDecoder) storage(s *Scenario, labeled []*hclsyntax.Block) {
	seen := map[string]hcl.Range{}
	for _, b := range labeled {
		if b.Type != "storage" {
			continue
		}
		if s.Workload != "" && s.Workload != WorkloadSoak {
			d.notForWorkload(b.TypeRange, "storage", s.Workload, "It sets storage parameters of pgseq's tables for a soak run.")
			continue
		}
		switch len(b.Labels) {
		case 0:
			d.Errorf(b.DefRange(), "Missing table for storage",
				`A storage block needs one label, the pgseq table it sets parameters of: storage "tasks" { fillfactor = 90 }.`)
			continue
		case 1:
		default:
			d.Errorf(hcl.RangeBetween(b.LabelRanges[1], b.LabelRanges[len(b.LabelRanges)-1]), "Extraneous label for storage",
				`A storage block takes exactly one label, the pgseq table it sets parameters of: storage "tasks" { ... }. Remove the other labels.`)
		}
		table, tableRange := b.Labels[0], b.LabelRanges[0]
		attrs, _, _ := d.Content(b.Body, "storage", storageParamNames(), nil, nil)
		if !slices.Contains(StorageTables, table) {
			d.Errorf(tableRange, "Unknown table",
				"storage names table %s, which is not one of pgseq's tables it may set.%s Tables: %s.",
				hcldecode.Quote(table), hcldecode.DidYouMean(table, StorageTables), strings.Join(StorageTables, ", "))
			continue
		}
		if first, dup := seen[table]; dup {
			d.Errorf(tableRange, "Duplicate storage block",
				"Table %q already has a storage block at %s. Put all of its parameters in one block.", table, hcldecode.PosString(first))
			continue
		}
		seen[table] = tableRange
		set := StorageSetting{Table: table}
		for _, a := range hcldecode.SortedAttributes(b.Body) {
			i := slices.Index(storageParamNames(), a.Name)
			if i < 0 || !hcldecode.IsSet(a) {
				continue
			}
			if v, ok := d.storageValue(a, table, storageParams[i]); ok {
				set.Params = append(set.Params, StorageParam{Name: a.Name, Value: v})
			}
		}
		if len(set.Params) == 0 && len(attrs) == 0 {
			d.Errorf(b.DefRange(), "Empty storage block",
				"The storage block of %q sets no parameter. Set one, such as fillfactor = 90, or remove the block.", table)
			continue
		}
		s.Soak.Storage = append(s.Soak.Storage, set)
	}
}

// storageValue decodes a storage parameter's value and renders it as SQL.
func (d *fileDecoder) storageValue(a *hclsyntax.Attribute, table string, p storageParam) (string, bool) {
	path := fmt.Sprintf("storage %q %s", table, p.name)
	if p.kind == storageBool {
		v, ok := d.Bool(a, path)
		if !ok {
			return "", false
		}
		return strconv.FormatBool(v), true
	}
	what := "a number"
	if p.kind == storageInt {
		what = "a whole number"
	}
	bf, ok := d.Number(a, path, what)
	if !ok {
		return "", false
	}
	f, _ := bf.Float64()
	if (p.kind == storageInt && !bf.IsInt()) || f < p.min || f > p.max {
		d.Errorf(a.Expr.Range(), "Invalid "+p.name, "%s must be %s from %s to %s; got %s.",
			path, what, strconv.FormatFloat(p.min, 'f', -1, 64), strconv.FormatFloat(p.max, 'f', -1, 64), bf.Text('g', 20))
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}

// thresholds decodes the threshold blocks among labeled. against is the
// scenario's against argument (nil when absent).
func (d *fileDecoder) thresholds(s *Scenario, labeled []*hclsyntax.Block, against *hclsyntax.Attribute) {
	seen := map[string]hcl.Range{}
	for _, b := range labeled {
		if b.Type != "threshold" {
			continue
		}
		switch len(b.Labels) {
		case 0:
			d.Errorf(b.DefRange(), "Missing metric for threshold",
				`A threshold block needs one label, the metric it bounds: threshold "throughput" { min = 20000 }.`)
			continue
		case 1:
		default:
			d.Errorf(hcl.RangeBetween(b.LabelRanges[1], b.LabelRanges[len(b.LabelRanges)-1]), "Extraneous label for threshold",
				`A threshold block takes exactly one label, the metric it bounds: threshold "throughput" { min = 20000 }. Remove the other labels.`)
		}
		name, nameRange := b.Labels[0], b.LabelRanges[0]
		attrs, _, _ := d.Content(b.Body, "threshold", []string{"min", "max"}, nil, nil)
		if !hcldecode.IsSet(attrs["min"]) && !hcldecode.IsSet(attrs["max"]) {
			d.Errorf(b.DefRange(), "Missing bound",
				"Threshold %s sets neither min nor max. Give it a lower bound (min), an upper bound (max) or both.", hcldecode.Quote(name))
		}
		if s.Workload == "" {
			continue // the metric cannot be looked up
		}
		m, ok := LookupMetric(s.Workload, name)
		if !ok {
			d.unknownMetric(nameRange, name, s.Workload)
			continue
		}
		if first, dup := seen[name]; dup {
			d.Errorf(nameRange, "Duplicate threshold",
				"Metric %q already has a threshold at %s. A metric is bounded once per scenario: put min and max in one threshold block.",
				name, hcldecode.PosString(first))
			continue
		}
		seen[name] = nameRange
		if m.Relative && !hcldecode.IsSet(against) {
			d.Errorf(nameRange, "Ratio without against",
				"%s compares this scenario with the one it runs against, round by round, and scenario %q has no against. Add against = \"name of the reference scenario\", or bound an absolute metric instead.",
				name, s.Name)
		}
		t := Threshold{Metric: name, Range: b.DefRange()}
		var minOK, maxOK bool
		t.Min, minOK = d.bound(attrs["min"], "min of threshold "+hcldecode.Quote(name), m)
		t.Max, maxOK = d.bound(attrs["max"], "max of threshold "+hcldecode.Quote(name), m)
		if t.Min != nil && t.Max != nil && *t.Min > *t.Max {
			d.Errorf(attrs["max"].Expr.Range(), "Threshold max below min",
				"The threshold on %s has max %s below min %s, so no value can meet it. Swap them, or fix one.",
				name, diagBound(*t.Max, m), diagBound(*t.Min, m))
			continue
		}
		if minOK && maxOK && (t.Min != nil || t.Max != nil) {
			s.Thresholds = append(s.Thresholds, t)
		}
	}
}

// unknownMetric records that name is not a metric of workload w.
func (d *fileDecoder) unknownMetric(subject hcl.Range, name string, w Workload) {
	names := MetricNames(w)
	for _, other := range Workloads {
		if _, ok := LookupMetric(other, name); ok {
			d.Errorf(subject, "Unknown metric",
				"%s is a metric of the %s workload, and this scenario's workload is %s. Metrics of the %s workload: %s.",
				hcldecode.Quote(name), other, w, w, strings.Join(names, ", "))
			return
		}
	}
	d.Errorf(subject, "Unknown metric", "The %s workload has no metric named %s.%s Its metrics: %s.",
		w, hcldecode.Quote(name), hcldecode.DidYouMean(name, names), strings.Join(names, ", "))
}

// bound decodes a threshold's min or max (path names it). It returns nil
// when a is absent; ok is false when a value is there but invalid (an
// error is recorded).
func (d *fileDecoder) bound(a *hclsyntax.Attribute, path string, m Metric) (v *float64, ok bool) {
	if !hcldecode.IsSet(a) {
		return nil, true
	}
	val, ok := d.Value(a)
	if !ok {
		return nil, false
	}
	seconds := m.Unit == UnitSeconds
	var f float64
	switch {
	case val.Type() == cty.Number:
		f, _ = val.AsBigFloat().Float64()
	case val.Type() == cty.String && seconds:
		dur, err := time.ParseDuration(strings.TrimSpace(val.AsString()))
		if err != nil {
			d.Errorf(a.Expr.Range(), "Invalid duration",
				"%s: %s. Write a duration with its unit, such as \"1ms\", \"250us\" or \"1.5s\", or a bare number of seconds.",
				path, diagDurationError(err))
			return nil, false
		}
		f = dur.Seconds()
	default:
		what := fmt.Sprintf("a number (%s)", m.Unit)
		if seconds {
			what = `a duration string such as "1ms", or a number of seconds`
		}
		d.WrongType(a, path, what, val)
		return nil, false
	}
	if f < 0 {
		d.Errorf(a.Expr.Range(), "Invalid threshold",
			"%s must not be negative: %s is never below 0; got %s.", path, m.Name, diagBound(f, m))
		return nil, false
	}
	return &f, true
}

// diagBound renders a threshold value in its metric's unit.
func diagBound(f float64, m Metric) string {
	if m.Unit == UnitSeconds {
		return fmt.Sprintf("%s (%gs)", time.Duration(f*float64(time.Second)), f)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// checkGroups checks every scenario's against: an existing scenario of the
// same workload that names none itself, with the same rounds.
func (d *fileDecoder) checkGroups() {
	names := make([]string, len(d.scenarios))
	for i, s := range d.scenarios {
		names[i] = s.Name
	}
	for i, s := range d.scenarios {
		decl := d.decls[i]
		if decl.against == nil {
			continue
		}
		subject := decl.against.Expr.Range()
		j, ok := d.byName[s.Against]
		if !ok {
			d.Errorf(subject, "Unknown scenario",
				"against names scenario %s, which is not declared in the files of this run.%s Declared scenarios: %s.",
				hcldecode.Quote(s.Against), hcldecode.DidYouMean(s.Against, names), strings.Join(names, ", "))
			continue
		}
		ref, refDecl := d.scenarios[j], d.decls[j]
		if s.Workload != "" && ref.Workload != "" && s.Workload != ref.Workload {
			d.Errorf(subject, "Reference of another workload",
				"Scenario %q is a %s scenario and %q, which it is measured against, a %s one. A scenario is measured against one of the same workload.",
				s.Name, s.Workload, ref.Name, ref.Workload)
			continue
		}
		if ref.Against != "" {
			d.Errorf(subject, "Reference measured against another",
				"Scenario %q is itself measured against %q. Groups are stars: every member names the reference, which names none. Write against = %q, or remove against from %q.",
				ref.Name, ref.Against, ref.Against, ref.Name)
			continue
		}
		if s.MeasureUntil != ref.MeasureUntil {
			d.Errorf(subject, "Measured over another share of the drain",
				"Scenario %q measures its throughput until %s of its tasks have completed, and %q, which it is measured against, until %s. Ratios compare the same part of each drain: give both the same measure_until.",
				s.Name, diagShare(s.MeasureUntil), ref.Name, diagShare(ref.MeasureUntil))
			continue
		}
		if refDecl.roundsBad || refDecl.quickRoundsBad {
			continue
		}
		if decl.rounds != nil && s.Size.Rounds != ref.Size.Rounds {
			d.Errorf(decl.rounds.Expr.Range(), "Rounds differ from the reference",
				"size.rounds is %d, and %q, which this scenario runs against, has %s. A member runs in its reference's rounds: set size.rounds to the reference's, or remove it.",
				s.Size.Rounds, ref.Name, diagRounds("size.rounds", ref.Size.Rounds))
			continue
		}
		if decl.rounds == nil && decl.quickRounds == nil {
			continue
		}
		if mine, theirs := s.Size.Merge(s.Quick).Rounds, ref.Size.Merge(ref.Quick).Rounds; mine != theirs {
			subject, fix := decl.rounds, fmt.Sprintf("add quick.rounds = %d", theirs)
			if decl.quickRounds != nil {
				subject, fix = decl.quickRounds, "set quick.rounds to the reference's, or remove it"
			}
			if theirs == 0 {
				fix = "remove quick.rounds here"
			}
			d.Errorf(subject.Expr.Range(), "Rounds differ from the reference",
				"Under --quick this scenario runs %s, and %q, which it runs against, %s. A member runs in its reference's rounds: %s.",
				diagRounds("", mine), ref.Name, diagRounds("", theirs), fix)
		}
	}
}

// diagRounds says how many rounds a reference has.
func diagRounds(attr string, rounds int) string {
	switch {
	case rounds == 0:
		return "the workload's default number of rounds"
	case attr != "":
		return fmt.Sprintf("%s = %d", attr, rounds)
	}
	return textfmt.Plural(rounds, "round")
}

// duration decodes a positive Go duration string ("20ms", "1.5s").
func (d *fileDecoder) duration(a *hclsyntax.Attribute, path string) (time.Duration, bool) {
	v, ok := d.Value(a)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.String {
		d.WrongType(a, path, `a duration string such as "20ms"`, v)
		return 0, false
	}
	dur, err := time.ParseDuration(strings.TrimSpace(v.AsString()))
	if err != nil {
		d.Errorf(a.Expr.Range(), "Invalid duration",
			"%s: %s. Write numbers with units ns, us, ms, s, m or h, such as \"20ms\", \"1.5s\" or \"1m30s\".", path, diagDurationError(err))
		return 0, false
	}
	if dur <= 0 {
		d.Errorf(a.Expr.Range(), "Invalid "+path, "%s must be positive; got %s.", path, dur)
		return 0, false
	}
	return dur, true
}

// diagDurationError renders a time.ParseDuration error without its package
// prefix, the value in it shortened.
func diagDurationError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "time: ")
	if i := strings.IndexByte(msg, '"'); i >= 0 {
		if s, uerr := strconv.Unquote(msg[i:]); uerr == nil {
			msg = msg[:i] + hcldecode.Quote(s)
		}
	}
	return msg
}

func workloadStrings() []string {
	names := make([]string, len(Workloads))
	for i, w := range Workloads {
		names[i] = string(w)
	}
	return names
}

// diagOr renders names quoted, as "a", "b" or "c".
func diagOr(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
