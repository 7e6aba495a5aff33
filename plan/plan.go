package plan

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/pgseq/pgseq/catalog"
)

// FormatVersion is the version of the JSON plan document. Readers reject a
// plan whose major version they do not know.
const FormatVersion = "1.0"

// Action is what a change does to one object.
type Action string

// The actions, with their symbols in the human view.
const (
	Create Action = "create" // +
	Update Action = "update" // ~
	Delete Action = "delete" // -
)

// Symbol returns the one-character marker of the action in the human view.
func (a Action) Symbol() string {
	switch a {
	case Create:
		return "+"
	case Update:
		return "~"
	case Delete:
		return "-"
	}
	return "?"
}

// Kinds of objects a change can address (catalog's, for readers of plans).
const (
	KindQueue   = catalog.KindQueue
	KindTask    = catalog.KindTask
	KindCounter = catalog.KindCounter
	// KindAccess is one access level given to one database role; its name
	// is catalog.Grant.Name (work["app_worker"]) and its address
	// access.work["app_worker"].
	KindAccess = catalog.KindAccess
)

// Plan is the set of changes that makes the database match the
// configuration. It is made against one actual state, identified by
// Fingerprint; the applier refuses to apply it to any other.
type Plan struct {
	// FormatVersion is the document version (FormatVersion).
	FormatVersion string `json:"format_version"`
	// Schema is the pgseq schema the plan was made for.
	Schema string `json:"schema"`
	// Database identifies the database the plan was made against; apply
	// refuses the plan in any other. Nil in a plan written by a pgseq that
	// did not record it: the database is unknown.
	Database *Database `json:"database,omitempty"`
	// Fingerprint identifies the actual state the plan was made from (see
	// Fingerprint); runtime values such as slot usage are not part of it.
	Fingerprint string `json:"state_fingerprint"`
	// Summary counts the changes by action.
	Summary Summary `json:"summary"`
	// Drift lists the objects changed outside pgseq since the last apply,
	// in canonical order like Changes. For display only: it never changes
	// what apply does. Absent when nothing drifted, or when no apply
	// recorded the state it left (a new database, or history from before
	// schema version 7).
	Drift []Drift `json:"drift,omitempty"`
	// SchemaUpgrade is the upgrade of pgseq's own schema (its tables and
	// runtime functions) that apply makes before the changes: the schema
	// exists at an older version than this pgseq's. Nil when the schema is
	// at this pgseq's version, or does not exist yet (the first apply
	// creates it with the changes).
	SchemaUpgrade *SchemaUpgrade `json:"schema_upgrade,omitempty"`
	// Changes are in canonical order: queues, then task types, then
	// counters, then access levels, each by name.
	Changes []Change `json:"changes"`
	// Warnings are for display only (for example drains in progress).
	Warnings []string `json:"warnings,omitempty"`
	// Checksum is the SHA-256 of the document's canonical encoding without
	// this field (Hash). Write sets it; Read refuses a document without it
	// or whose content does not match it. Empty in a plan in memory.
	Checksum string `json:"checksum,omitempty"`
}

// Database identifies a database: its cluster (PostgreSQL's system
// identifier, set by initdb and unique to a cluster and its physical
// replicas) and its name in that cluster.
type Database struct {
	// SystemIdentifier is pg_control_system()'s system_identifier in
	// decimal, or "" when the role that made the plan may not read it.
	SystemIdentifier string `json:"system_identifier"`
	// Name is the database's name (current_database()).
	Name string `json:"name"`
}

// String names the database for messages: database "app" of cluster
// 7712510206351543636.
func (d *Database) String() string {
	if d == nil {
		return "an unknown database"
	}
	if d.SystemIdentifier == "" {
		return fmt.Sprintf("database %q (cluster not known: the role could not read its system identifier)", d.Name)
	}
	return fmt.Sprintf("database %q of cluster %s", d.Name, d.SystemIdentifier)
}

// Same reports whether d and other are the same database: the same name,
// in the same cluster when both know their cluster's system identifier.
func (d *Database) Same(other *Database) bool {
	if d == nil || other == nil {
		return false
	}
	if d.Name != other.Name {
		return false
	}
	return d.SystemIdentifier == "" || other.SystemIdentifier == "" || d.SystemIdentifier == other.SystemIdentifier
}

// Summary counts changes by action.
type Summary struct {
	Add     int `json:"add"`
	Change  int `json:"change"`
	Destroy int `json:"destroy"`
}

// SchemaUpgrade is a pending upgrade of pgseq's schema: from the version
// the database is at to the version of the pgseq that made the plan.
type SchemaUpgrade struct {
	From int `json:"from"`
	To   int `json:"to"`
	// Migrations names the migrations the upgrade runs, in order
	// ("014_lean_hand_off").
	Migrations []string `json:"migrations"`
}

// Empty reports whether the plan changes nothing: no change to an object
// and no schema upgrade.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 && p.SchemaUpgrade == nil }

// Change is one action on one object. Before is nil for a create and After
// is nil for a delete; both are objects of the change's Kind (a
// *catalog.Queue for a queue, and so on: catalog.NewObject). An update of
// an access level has equal Before and After: it repairs privileges changed
// outside pgseq, as its Reasons say.
type Change struct {
	// Address names the object: `queue "default"`, `task "email:send"`.
	Address string `json:"address"`
	// Kind is one of the kinds of objects (catalog.Kinds).
	Kind string `json:"type"`
	// Name is the object's name.
	Name string `json:"name"`
	// Action is create, update or delete.
	Action Action `json:"action"`
	// Before is the object as it is in the database (nil for create).
	Before catalog.Object `json:"before"`
	// After is the object as the configuration declares it (nil for delete).
	After catalog.Object `json:"after"`
	// Attributes lists the attribute names (in HCL spelling, dotted for
	// nested blocks: "backoff.initial") whose values differ. Empty for
	// create and delete.
	Attributes []string `json:"changed_attributes,omitempty"`
	// Slots is the change to the task type's concurrency slot groups, if any.
	Slots *SlotChange `json:"slots,omitempty"`
	// Context is live information shown beside the change; never applied.
	Context *Context `json:"context,omitempty"`
	// Destructive marks a change that loses data (a queue with unfinished
	// tasks); the applier refuses it without explicit permission.
	Destructive bool `json:"destructive,omitempty"`
	// Reasons explain the change for display only.
	Reasons []string `json:"reasons,omitempty"`
}

// Context is live information about an object at plan time.
type Context struct {
	// Running is the number of running tasks of a task type.
	Running *int `json:"running,omitempty"`
	// Keys is the number of a task type's partition keys with work (a
	// task holding one of the key's units, or waiting for one). Set for a
	// type partitioned in the database, or with keys still holding units;
	// absent for other types.
	Keys *int `json:"keys,omitempty"`
	// KeysAtLimit is how many of Keys are at the per-key limit in force
	// (or above it): they admit no task until one of theirs ends. Set
	// when the type is partitioned in the database.
	KeysAtLimit *int `json:"keys_at_limit,omitempty"`
	// KeysOverLimit is how many of Keys hold more units than the
	// configuration's per-key limit: after the apply they admit no task
	// until they are below it (draining). Set when the change lowers the
	// per-key limit, or keys are over the one it declares.
	KeysOverLimit *int `json:"keys_over_limit,omitempty"`
	// Unfinished is the number of pending and running tasks of a queue.
	Unfinished *int64 `json:"unfinished,omitempty"`
	// Scopes is the number of scopes a counter has issued values in.
	Scopes *int64 `json:"scopes,omitempty"`
	// MaxValue is the highest value a counter has issued.
	MaxValue *int64 `json:"max_value,omitempty"`
	// Unnumbered is the number of rows an attached counter's backfill will
	// number (their column is NULL).
	Unnumbered *int64 `json:"unnumbered,omitempty"`
}

// SlotChange describes how a task type's slot groups change. The applier
// writes Set (insert or update capacity, keeping used) and removes Remove:
// a group with used = 0 at apply time is deleted, one still in use is set to
// capacity 0 (draining) and deleted by a later apply or maintenance once empty.
type SlotChange struct {
	// LimitBefore and LimitAfter are the concurrency limits (0: unlimited).
	LimitBefore int `json:"limit_before"`
	LimitAfter  int `json:"limit_after"`
	// Set lists groups to create or resize, with their new capacities.
	Set []GroupCapacity `json:"set,omitempty"`
	// Remove lists groups outside the new layout.
	Remove []int `json:"remove,omitempty"`
	// Draining lists the groups of Remove still in use at plan time (they
	// will be set to capacity 0 rather than deleted).
	Draining []int `json:"draining,omitempty"`
	// Drop deletes every slot group of the type, in use or not: the limit
	// (or the task type) is removed and running tasks finish normally.
	Drop bool `json:"drop,omitempty"`
	// Used is the total used across the type's groups at plan time.
	Used int `json:"used"`
}

// GroupCapacity is one slot group and its capacity.
type GroupCapacity struct {
	Group    int `json:"slot_group"`
	Capacity int `json:"capacity"`
}

// Count recomputes the summary from the changes.
func (p *Plan) Count() {
	p.Summary = Summary{}
	for _, c := range p.Changes {
		switch c.Action {
		case Create:
			p.Summary.Add++
		case Update:
			p.Summary.Change++
		case Delete:
			p.Summary.Destroy++
		}
	}
}

// Hash returns a hex SHA-256 of the plan's canonical encoding (compact
// JSON in field order, as json.Marshal writes it) without its Checksum. It
// is the checksum a saved plan carries, and the applier records it in the
// history row.
//
// The changes are encoded one at a time into the hash, not as one
// document in memory (the first plan of 100,000 limited types is some
// 200 MB of JSON); the bytes hashed are json.Marshal's all the same, so
// saved plans keep their checksum.
func (p *Plan) Hash() string {
	c := *p
	c.Checksum = ""
	changes := c.Changes
	c.Changes = nil
	head, err := json.Marshal(&c)
	const slot = `"changes":null`
	at := bytes.Index(head, []byte(slot))
	if err != nil || at < 0 {
		return hashError(err)
	}
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	w.Write(head[:at])
	w.WriteString(`"changes":`)
	if changes == nil {
		w.WriteString("null")
	} else {
		w.WriteByte('[')
		for i := range changes {
			b, err := json.Marshal(&changes[i])
			if err != nil {
				return hashError(err)
			}
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(b)
		}
		w.WriteByte(']')
	}
	w.Write(head[at+len(slot):])
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// hashError is the hash of a plan JSON cannot hold (a NaN): the hash of
// its error, never a valid plan's hash.
func hashError(err error) string {
	msg := "plan: no changes field"
	if err != nil {
		msg = err.Error()
	}
	sum := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(sum[:])
}

// Fingerprint identifies the managed part of an actual state: queues, task
// types, slot group capacities, counters and the access levels pgseq
// granted, but not usage, issued values, privileges or other live values,
// which change all the time without making a plan stale.
//
// It is the SHA-256 of one JSON document, written to the hash as it is
// encoded rather than built in memory first (100,000 task types have
// 5,000,000 slot groups): the document is the one json.Marshal made of
//
//	{"q": queues, "t": task types, "s": [{"t": type, "g": group, "c": capacity}, …],
//	 "c": counters (omitted when none), "a": grants (omitted when none)}
//
// so plans saved by earlier versions keep their fingerprint.
func Fingerprint(s catalog.State) string {
	c := s.Sorted()
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	// field writes a list; an empty one is null, as the copy json.Marshal
	// was given made it.
	field := func(sep, name string, n int, v any) {
		w.WriteString(sep)
		w.WriteString(name)
		if n == 0 {
			w.WriteString("null")
			return
		}
		b, _ := json.Marshal(v)
		w.Write(b)
	}
	field("{", `"q":`, len(c.Queues), c.Queues)
	field(",", `"t":`, len(c.TaskTypes), c.TaskTypes)
	w.WriteString(`,"s":[`)
	var typ string
	var quoted []byte
	first := true
	for _, r := range c.Slots {
		if quoted == nil || r.TaskType != typ {
			typ = r.TaskType
			quoted, _ = json.Marshal(typ)
		}
		capacity := strconv.Itoa(r.Capacity)
		for g := r.First; g <= r.Last; g++ {
			if !first {
				w.WriteByte(',')
			}
			first = false
			w.WriteString(`{"t":`)
			w.Write(quoted)
			w.WriteString(`,"g":`)
			w.WriteString(strconv.Itoa(g))
			w.WriteString(`,"c":`)
			w.WriteString(capacity)
			w.WriteByte('}')
		}
	}
	w.WriteByte(']')
	if len(c.Counters) > 0 {
		field(",", `"c":`, len(c.Counters), c.Counters)
	}
	if len(c.Access) > 0 {
		field(",", `"a":`, len(c.Access), c.Access)
	}
	w.WriteByte('}')
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// Write encodes the plan as indented JSON, with its checksum.
func (p *Plan) Write(w io.Writer) error {
	c := *p
	c.Checksum = p.Hash()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&c)
}
