package catalog

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kinds of objects pgseq manages. Each is one Go type implementing Object.
const (
	KindQueue   = "queue"
	KindTask    = "task"
	KindCounter = "counter"
	// KindAccess is one access level given to one database role; its key
	// is Grant.Name (work["app_worker"]).
	KindAccess = "access"
)

// Object is one object pgseq manages: a *Queue, a *TaskType, a *Counter or
// a *Grant. Plans carry objects in their changes (before and after); the
// planner pairs the desired and actual objects of a kind by key, and two
// objects of a kind are equal when their attributes are (Equal).
//
// A new kind of object is a type implementing Object, registered in kinds
// below, with a planner function, an applier function and an inspect
// reader; plans, their JSON, the human view, drift and the saved-plan
// checks take it from here.
type Object interface {
	// Kind is one of the Kind constants.
	Kind() string
	// Key names the object within its kind: the queue's, task type's or
	// counter's name, the grant's Name.
	Key() string
	// Attributes lists the object's managed attributes in display order,
	// with their values as HCL literals. Its key is not one of them.
	Attributes() []Attr
	// Validate checks the object against the configuration's rules; the
	// error is an Errors naming each attribute.
	Validate() error
}

// kind describes one kind of object.
type kind struct {
	name string
	// new returns an empty object of the kind, to decode into.
	new func() Object
	// validKey reports whether a key is valid for the kind.
	validKey func(string) bool
}

// kinds lists the kinds in plan order: a plan's changes are queues, then
// task types, then counters, then access levels (a task type needs its
// queue; revoking access comes last).
var kinds = []kind{
	{KindQueue, func() Object { return &Queue{} }, ValidQueueName},
	{KindTask, func() Object { return &TaskType{} }, ValidTaskName},
	{KindCounter, func() Object { return &Counter{} }, ValidCounterName},
	{KindAccess, func() Object { return &Grant{} }, validGrantKey},
}

// Kinds returns the kinds of objects in plan order.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// KindRank returns the position of kind in plan order; an unknown kind
// comes after every known one.
func KindRank(kind string) int {
	for i, k := range kinds {
		if k.name == kind {
			return i
		}
	}
	return len(kinds)
}

// NewObject returns an empty object of kind, to decode into, or false for
// an unknown kind.
func NewObject(kind string) (Object, bool) {
	for _, k := range kinds {
		if k.name == kind {
			return k.new(), true
		}
	}
	return nil, false
}

// ValidKey reports whether key is a valid key for an object of kind.
func ValidKey(kind, key string) bool {
	for _, k := range kinds {
		if k.name == kind {
			return k.validKey(key)
		}
	}
	return false
}

func validGrantKey(key string) bool {
	_, ok := ParseGrantName(key)
	return ok
}

// Equal reports whether a and b are the same object with the same managed
// attributes. Two nil objects are equal; nil and an object are not.
func Equal(a, b Object) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Kind() != b.Kind() || a.Key() != b.Key() {
		return false
	}
	return len(ChangedAttributes(a, b)) == 0
}

// ChangedAttributes returns the names of the attributes whose values differ
// between two objects of the same kind, in display order.
func ChangedAttributes(before, after Object) []string {
	a, b := AttributesOf(before), AttributesOf(after)
	var out []string
	for i := range a {
		if i < len(b) && a[i].Value != b[i].Value {
			out = append(out, a[i].Name)
		}
	}
	return out
}

// AttributesOf returns o's attributes, or none for nil (the before of a
// create, the after of a delete).
func AttributesOf(o Object) []Attr {
	if o == nil {
		return nil
	}
	return o.Attributes()
}

// Attr is one attribute of an object, in HCL spelling, with its value
// written as an HCL literal ("100", "\"30s\"", "null").
type Attr struct {
	// Name is the attribute name; nested blocks are dotted ("backoff.initial").
	Name string
	// Value is the HCL literal.
	Value string
}

// Kind is KindQueue.
func (q Queue) Kind() string { return KindQueue }

// Key is the queue's name.
func (q Queue) Key() string { return q.Name }

// Attributes lists the queue's settings in display order.
func (q Queue) Attributes() []Attr {
	return []Attr{
		{"batch_size", strconv.Itoa(q.BatchSize)},
		{"max_retries", strconv.Itoa(q.MaxRetries)},
		{"worker_timeout", quote(q.WorkerTimeout.String())},
		{"leader_lease", quote(q.LeaderLease.String())},
		{"backoff.initial", quote(q.Backoff.Initial.String())},
		{"backoff.max", quote(q.Backoff.Max.String())},
		{"backoff.factor", number(q.Backoff.Factor)},
		{"backoff.jitter", number(q.Backoff.Jitter)},
		{"retention.completed", quote(q.Retention.Completed.String())},
		{"retention.dead_letter", quote(q.Retention.DeadLetter.String())},
	}
}

// Kind is KindTask.
func (t TaskType) Kind() string { return KindTask }

// Key is the task type's name.
func (t TaskType) Key() string { return t.Name }

// Attributes lists the task type's settings in display order; an
// unlimited type's concurrency is null.
func (t TaskType) Attributes() []Attr {
	conc := "null"
	if t.Concurrency > 0 {
		conc = strconv.Itoa(t.Concurrency)
	}
	retries := "null"
	if t.MaxRetries != nil {
		retries = strconv.Itoa(*t.MaxRetries)
	}
	by, perKey := "null", "null"
	if p := t.Partition; p != nil {
		perKey = strconv.Itoa(p.Concurrency)
		if p.By != "" {
			by = quote(PartitionByPrefix + p.By)
		}
	}
	return []Attr{
		{"queue", quote(t.Queue)},
		{"concurrency", conc},
		{"max_retries", retries},
		{"priority", strconv.Itoa(t.Priority)},
		{"partition.concurrency", perKey},
		{"partition.by", by},
	}
}

// Kind is KindCounter.
func (c Counter) Kind() string { return KindCounter }

// Key is the counter's name.
func (c Counter) Key() string { return c.Name }

// Attributes lists the counter's settings in display order; those not set
// are null.
func (c Counter) Attributes() []Attr {
	str := func(s string) string {
		if s == "" {
			return "null"
		}
		return quote(s)
	}
	scope := make([]string, len(c.Scope))
	for i, s := range c.Scope {
		scope[i] = quote(s)
	}
	prefixTable, prefixColumn := "null", "null"
	if c.PrefixFrom != nil {
		prefixTable, prefixColumn = quote(c.PrefixFrom.Table), quote(c.PrefixFrom.Column)
	}
	window := "null"
	if c.IdempotencyWindow != 0 {
		window = quote(c.IdempotencyWindow.String())
	}
	return []Attr{
		{"table", str(c.Table)},
		{"column", str(c.Column)},
		{"scope", "[" + strings.Join(scope, ", ") + "]"},
		{"prefix", str(c.Prefix)},
		{"prefix_from.table", prefixTable},
		{"prefix_from.column", prefixColumn},
		{"start", strconv.FormatInt(c.Start, 10)},
		{"lock_timeout", quote(c.LockTimeout.String())},
		{"strategy", str(c.Strategy)},
		{"idempotency_window", window},
	}
}

// Kind is KindAccess.
func (g Grant) Kind() string { return KindAccess }

// Key is the grant's Name: work["app_worker"].
func (g Grant) Key() string { return g.Name() }

// Attributes is empty: a grant is its level and role, both in its key.
func (g Grant) Attributes() []Attr { return nil }

func quote(s string) string { return strconv.Quote(s) }

func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Objects returns every queue, task type, counter and access level of s as
// Objects, in plan order (s sorted), each a pointer to a copy.
func (s State) Objects() []Object {
	c := s.Clone()
	c.Sort()
	out := make([]Object, 0, len(c.Queues)+len(c.TaskTypes)+len(c.Counters)+len(c.Access))
	for i := range c.Queues {
		out = append(out, &c.Queues[i])
	}
	for i := range c.TaskTypes {
		out = append(out, &c.TaskTypes[i])
	}
	for i := range c.Counters {
		out = append(out, &c.Counters[i])
	}
	for i := range c.Access {
		out = append(out, &c.Access[i])
	}
	return out
}

// Add appends o to the list of its kind in s.
func (s *State) Add(o Object) {
	switch o := o.(type) {
	case *Queue:
		s.Queues = append(s.Queues, *o)
	case *TaskType:
		s.TaskTypes = append(s.TaskTypes, *o)
	case *Counter:
		s.Counters = append(s.Counters, *o)
	case *Grant:
		s.Access = append(s.Access, *o)
	}
}

// Sorted returns s with every list in Sort's order, without changing s: a
// list already in order is shared, not copied (the slot groups of 100,000
// task types, read in order, are 100,000 runs or more), and one out of order
// is copied and sorted. The result's lists must not be changed in place.
func (s State) Sorted() State {
	c := s
	if !slices.IsSortedFunc(c.Queues, func(a, b Queue) int { return strings.Compare(a.Name, b.Name) }) {
		c.Queues = slices.Clone(c.Queues)
		sort.Slice(c.Queues, func(i, j int) bool { return c.Queues[i].Name < c.Queues[j].Name })
	}
	if !slices.IsSortedFunc(c.TaskTypes, func(a, b TaskType) int { return strings.Compare(a.Name, b.Name) }) {
		c.TaskTypes = slices.Clone(c.TaskTypes)
		sort.Slice(c.TaskTypes, func(i, j int) bool { return c.TaskTypes[i].Name < c.TaskTypes[j].Name })
	}
	if !slices.IsSortedFunc(c.Counters, func(a, b Counter) int { return strings.Compare(a.Name, b.Name) }) {
		c.Counters = slices.Clone(c.Counters)
		sortCounters(c.Counters)
	}
	if !slices.IsSortedFunc(c.Access, func(a, b Grant) int { return strings.Compare(a.Name(), b.Name()) }) {
		c.Access = slices.Clone(c.Access)
		SortGrants(c.Access)
	}
	if !slices.IsSortedFunc(c.Slots, compareSlotRuns) {
		c.Slots = slices.Clone(c.Slots)
		slices.SortFunc(c.Slots, compareSlotRuns)
	}
	return c
}

// compareSlotRuns orders slot runs by task type, then first group: Sort's
// order.
func compareSlotRuns(a, b SlotRun) int {
	if c := strings.Compare(a.TaskType, b.TaskType); c != 0 {
		return c
	}
	return a.First - b.First
}

// Clone returns a copy of s whose lists can be sorted and appended to
// without changing s. Live values are shared.
func (s State) Clone() State {
	c := s
	c.Queues = append([]Queue(nil), s.Queues...)
	c.TaskTypes = append([]TaskType(nil), s.TaskTypes...)
	c.Slots = append([]SlotRun(nil), s.Slots...)
	c.Counters = append([]Counter(nil), s.Counters...)
	c.Access = append([]Grant(nil), s.Access...)
	return c
}
