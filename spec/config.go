package spec

import (
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// Config is a parsed configuration: the desired state its files declare and
// where each object was declared.
//
// Load and Parse return a Config even when they report errors, so that its
// Files can be passed to WriteDiagnostics; its state is then incomplete and
// must not be planned.
type Config struct {
	// Files holds every file that was read, by file name, with its source
	// (Bytes) for the snippets of diagnostics. Their syntax trees are not
	// kept once decoded: those of 100,000 task blocks are some 200 MB.
	Files map[string]*hcl.File
	// Queues maps each declared queue name to the header of its block.
	Queues map[string]hcl.Range
	// Tasks maps each declared task type name to the header of its block.
	Tasks map[string]hcl.Range
	// Counters maps each declared counter name to where its block and the
	// arguments naming database objects are (see CounterDiag).
	Counters map[string]CounterRanges
	// Roles maps each role the access block names to where it is first
	// named (see AccessDiag).
	Roles map[string]hcl.Range

	// state is sorted, with every default filled in.
	state catalog.State
}

// State returns the desired state: queues, task types and counters sorted
// by name, grants sorted by level then role, defaults filled in, no slots
// and no live values. Counters is nil when none is declared, Access when no
// role is granted a level, and a counter's Scope is nil when it has no scope
// columns; an attached counter's Table is schema-qualified and its
// Strategy set, a standalone counter's Strategy is empty. The result is a
// copy the caller may modify.
func (c *Config) State() catalog.State {
	s := catalog.State{
		Queues:    append([]catalog.Queue{}, c.state.Queues...),
		TaskTypes: append([]catalog.TaskType{}, c.state.TaskTypes...),
	}
	for i, t := range s.TaskTypes {
		if t.MaxRetries != nil {
			v := *t.MaxRetries
			s.TaskTypes[i].MaxRetries = &v
		}
	}
	if len(c.state.Access) > 0 {
		s.Access = append([]catalog.Grant{}, c.state.Access...)
	}
	if len(c.state.Counters) > 0 {
		s.Counters = append([]catalog.Counter{}, c.state.Counters...)
		for i, ctr := range s.Counters {
			s.Counters[i].Scope = slices.Clone(ctr.Scope)
			if ctr.PrefixFrom != nil {
				p := *ctr.PrefixFrom
				s.Counters[i].PrefixFrom = &p
			}
		}
	}
	return s
}

// Load reads and parses a configuration. Each path is a file or a
// directory; a directory contributes its *.hcl files (not its
// subdirectories) in name order. All files together form one
// configuration. A missing path, a directory without .hcl files or no path
// at all is an error. A file named twice is read once.
func Load(paths ...string) (*Config, hcl.Diagnostics) {
	files, diags := hcldecode.ReadFiles("configuration", MaxFileSize, paths...)
	if len(files) == 0 && diags.HasErrors() {
		return emptyConfig(), diags
	}
	cfg, parseDiags := Parse(files)
	return cfg, append(diags, parseDiags...)
}

// Parse parses and validates a configuration held in memory: file name to
// content. The file names appear in diagnostics. Files are decoded in name
// order, which decides which of two duplicates is reported. A file is
// checked against MaxFileSize, MaxNesting, MaxNumberLength,
// MaxStringLength and MaxIdentifierLength before it is parsed, and not
// parsed if it exceeds one.
// A configuration without errors that declares nothing gets a warning: a
// plan made from it deletes everything.
func Parse(files map[string][]byte) (*Config, hcl.Diagnostics) {
	cfg := emptyConfig()
	var diags hcl.Diagnostics
	if len(files) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No configuration files",
			Detail: "Give at least one .hcl file or a directory that holds .hcl files."})
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)

	d := newDecoder()
	complete := true
	for i, r := range parseAhead(files, names) {
		name := names[i]
		cfg.Files[name] = &hcl.File{Bytes: files[name]}
		if r.limit != nil {
			// Parsing would take too long or exhaust the stack: the file
			// is kept for its source lines only.
			diags = append(diags, r.limit)
			complete = false
			continue
		}
		fatal := false
		for _, diag := range r.diags {
			if redefined := duplicateArgument(diag, r.file); redefined != nil {
				diag = redefined
			} else if diag.Severity == hcl.DiagError {
				fatal = true
			}
			diags = append(diags, diag)
		}
		body, ok := r.file.Body.(*hclsyntax.Body)
		if fatal || !ok {
			// A body with syntax errors is partial: decoding it would
			// report errors that are not there.
			complete = false
			continue
		}
		d.file(body)
	}
	if complete {
		d.checkRefs()
	}
	diags = append(diags, d.Diags...)
	if !diags.HasErrors() && len(d.queues) == 0 && len(d.tasks) == 0 && len(d.counters) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Configuration declares nothing",
			Detail: "No queue, task or counter block is declared, so a plan made from this configuration deletes every queue, task type and counter in the pgseq schema; " +
				"only deleting a counter or a queue with unfinished tasks needs --allow-destroy. Check that the right files were given.",
		})
	}
	hcldecode.SortDiagnostics(diags)

	d.state.Sort()
	cfg.state = d.state
	cfg.Queues, cfg.Tasks, cfg.Counters = d.queues, d.tasks, d.counters
	if d.roles != nil {
		cfg.Roles = d.roles
	}
	return cfg, diags
}

func emptyConfig() *Config {
	return &Config{
		Files:    map[string]*hcl.File{},
		Queues:   map[string]hcl.Range{},
		Tasks:    map[string]hcl.Range{},
		Counters: map[string]CounterRanges{},
		Roles:    map[string]hcl.Range{},
		state:    catalog.State{Queues: []catalog.Queue{}, TaskTypes: []catalog.TaskType{}},
	}
}

// duplicateArgument rewrites hclsyntax's "Attribute redefined" error in
// pgseq's words. It returns nil for any other diagnostic. The parser keeps
// the first definition, so the body is still complete.
func duplicateArgument(diag *hcl.Diagnostic, f *hcl.File) *hcl.Diagnostic {
	body, ok := f.Body.(*hclsyntax.Body)
	if diag.Summary != "Attribute redefined" || diag.Subject == nil || !ok {
		return nil
	}
	s := diag.Subject
	if s.Start.Byte < 0 || s.End.Byte > len(f.Bytes) || s.Start.Byte > s.End.Byte {
		return nil
	}
	name := string(f.Bytes[s.Start.Byte:s.End.Byte])
	// The first definition is in the innermost body around the second;
	// VisitAll visits outer bodies before inner ones.
	var first *hclsyntax.Attribute
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if b, ok := n.(*hclsyntax.Body); ok && b.SrcRange.ContainsOffset(s.Start.Byte) {
			first = b.Attributes[name]
		}
		return nil
	})
	if first == nil {
		return nil
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate argument",
		Detail: fmt.Sprintf("The argument %s is already set at %s. Each argument may be set only once: remove one of them.",
			hcldecode.Quote(name), hcldecode.PosString(first.NameRange)),
		Subject: s,
	}
}

// parsedFile is one file parsed by parseAhead: its syntax tree and
// diagnostics, or the limit it exceeds (then it is not parsed).
type parsedFile struct {
	file  *hcl.File
	diags hcl.Diagnostics
	limit *hcl.Diagnostic
}

// parseAhead parses the files names lists, up to GOMAXPROCS of them at
// once, and yields them in the order of names: 100,000 task blocks in ten
// files parse in half the time on two cores. A file's syntax tree is held
// only until the caller has taken it and asked for the next, so no more
// than GOMAXPROCS+1 trees are alive at once.
func parseAhead(files map[string][]byte, names []string) iter.Seq2[int, parsedFile] {
	return func(yield func(int, parsedFile) bool) {
		results := make([]chan parsedFile, len(names))
		for i := range results {
			results[i] = make(chan parsedFile, 1)
		}
		slots := make(chan struct{}, runtime.GOMAXPROCS(0))
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for i, name := range names {
				select {
				case slots <- struct{}{}:
				case <-stop:
					return
				}
				go func() {
					src := files[name]
					if diag := checkLimits(src, name); diag != nil {
						results[i] <- parsedFile{limit: diag}
						return
					}
					f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
					results[i] <- parsedFile{file: f, diags: diags}
				}()
			}
		}()
		for i := range names {
			r := <-results[i]
			<-slots
			if !yield(i, r) {
				return
			}
		}
	}
}
