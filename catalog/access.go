package catalog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Access levels: what a database role named in the access block may do in
// the pgseq schema. The privileges of each are in LevelPrivileges.
const (
	// LevelEnqueue may add tasks: enqueue and enqueue_batch.
	LevelEnqueue = "enqueue"
	// LevelWork may run workers: register, heartbeat, claim, complete,
	// fail, release, elect a leader and run the leader's maintenance, and
	// read the queue settings, task types and slot groups a worker and its
	// metrics read.
	LevelWork = "work"
	// LevelCounters may take numbers from standalone counters, reserve and
	// commit them in two phases, reap stale reservations and resolve keys.
	LevelCounters = "counters"
	// LevelRead may read every table of the schema (status, dashboards)
	// and call nothing.
	LevelRead = "read"
)

// Levels lists the access levels in the order the configuration and plans
// list them.
var Levels = []string{LevelEnqueue, LevelWork, LevelCounters, LevelRead}

// ValidLevel reports whether level is one of Levels.
func ValidLevel(level string) bool {
	for _, l := range Levels {
		if l == level {
			return true
		}
	}
	return false
}

// levelRank orders levels as Levels lists them.
func levelRank(level string) int {
	for i, l := range Levels {
		if l == level {
			return i
		}
	}
	return len(Levels)
}

// Grant is one access level given to one database role. The role must
// exist in the database when a plan is made; pgseq never creates roles.
type Grant struct {
	// Level is one of Levels.
	Level string `json:"level"`
	// Role is the database role, exactly as PostgreSQL spells it (case
	// matters; quoted in every statement).
	Role string `json:"role"`
}

// Name is the grant's name in plans: work["app_worker"]. The address of
// its change is access.work["app_worker"].
func (g Grant) Name() string { return g.Level + "[" + strconv.Quote(g.Role) + "]" }

// ParseGrantName reads a name written by Grant.Name. ok is false unless
// name is exactly what Name writes for a valid grant.
func ParseGrantName(name string) (g Grant, ok bool) {
	level, rest, found := strings.Cut(name, "[")
	if !found || !strings.HasSuffix(rest, "]") {
		return Grant{}, false
	}
	role, err := strconv.Unquote(strings.TrimSuffix(rest, "]"))
	if err != nil {
		return Grant{}, false
	}
	g = Grant{Level: level, Role: role}
	if g.Validate() != nil || g.Name() != name {
		return Grant{}, false
	}
	return g, true
}

// Validate checks the grant against the configuration's rules: a known
// level and a valid role name. The error is an Errors.
func (g Grant) Validate() error {
	var es Errors
	if !ValidLevel(g.Level) {
		es.addf("level", "level %q is not one of %s", g.Level, strings.Join(Levels, ", "))
	}
	if !ValidRoleName(g.Role) {
		es.addf("role", "%s", InvalidRoleName(g.Role))
	}
	return es.orNil()
}

// MaxRoleNameLen is the longest role name PostgreSQL keeps, in bytes.
const MaxRoleNameLen = 63

var roleNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$-]{0,62}$`)

// ValidRoleName reports whether name may name a role in the access block:
// ^[A-Za-z_][A-Za-z0-9_$-]{0,62}$, not starting with pg_ (PostgreSQL
// reserves those) and not public (PUBLIC is every role, and pgseq grants
// it nothing).
func ValidRoleName(name string) bool {
	return roleNameRE.MatchString(name) && !strings.HasPrefix(name, "pg_") && !strings.EqualFold(name, "public")
}

// InvalidRoleName says why name is not a valid role name, as a sentence
// without its final period.
func InvalidRoleName(name string) string {
	switch {
	case strings.EqualFold(name, "public"):
		return "public is not a role pgseq grants to: PUBLIC is every role, and it gets nothing in the pgseq schema; name the roles that need access"
	case strings.HasPrefix(name, "pg_") && roleNameRE.MatchString(name):
		return fmt.Sprintf("role %q starts with pg_, which PostgreSQL reserves for its own roles", name)
	}
	return fmt.Sprintf("role name %q is not valid: pgseq manages roles whose names are 1 to %d letters, digits, _, $ or -, starting with a letter or _",
		truncateName(name), MaxRoleNameLen)
}

func truncateName(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// SortGrants orders grants by name (Grant.Name): by level, alphabetically,
// then by role, as a plan orders their changes.
func SortGrants(gs []Grant) {
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name() < gs[j].Name() })
}

// Kinds of objects a privilege is on.
const (
	ObjectSchema   = "schema"
	ObjectTable    = "table"
	ObjectColumn   = "column"
	ObjectSequence = "sequence"
	ObjectFunction = "function"
)

// Privilege is one privilege on one object of the pgseq schema, as
// PostgreSQL's access control lists hold it.
type Privilege struct {
	// Kind is one of the Object constants.
	Kind string `json:"kind"`
	// Object names the object inside the pgseq schema: "" for the schema
	// itself, a table or sequence name, table.column for a column, and
	// name(argument types) for a function, the types written as PostgreSQL
	// writes them ("claim(text, text, integer, integer)").
	Object string `json:"object"`
	// Privilege is the SQL privilege: USAGE, SELECT, EXECUTE, UPDATE…
	Privilege string `json:"privilege"`
	// Grantable is true when the role may grant it on (WITH GRANT OPTION).
	// pgseq never grants so.
	Grantable bool `json:"grantable,omitempty"`
}

// String writes the privilege for plans: "EXECUTE on function claim",
// "SELECT on table queues", "USAGE on the schema".
func (p Privilege) String() string {
	s := p.Privilege + " on " + p.Kind + " " + p.Short()
	if p.Kind == ObjectSchema {
		s = p.Privilege + " on the schema"
	}
	if p.Grantable {
		s += " WITH GRANT OPTION"
	}
	return s
}

// Short is the object's name without a function's argument types.
func (p Privilege) Short() string {
	if i := strings.IndexByte(p.Object, '('); i >= 0 && p.Kind == ObjectFunction {
		return p.Object[:i]
	}
	return p.Object
}

// ComparePrivileges orders privileges by kind (schema, tables, columns,
// sequences, functions), object, then privilege.
func ComparePrivileges(a, b Privilege) int {
	rank := func(k string) int {
		return strings.Index("schema table column sequence function", k)
	}
	switch {
	case a.Kind != b.Kind:
		return rank(a.Kind) - rank(b.Kind)
	case a.Object != b.Object:
		return strings.Compare(a.Object, b.Object)
	case a.Privilege != b.Privilege:
		return strings.Compare(a.Privilege, b.Privilege)
	case a.Grantable != b.Grantable:
		if a.Grantable {
			return 1
		}
		return -1
	}
	return 0
}

// The runtime's entry points, as PostgreSQL writes their signatures. The
// migrations make each SECURITY DEFINER with a fixed search_path (008); a
// test checks every one exists with this signature.
var (
	enqueueFunctions = []string{
		"enqueue(text, jsonb, text, integer, timestamp with time zone, text)",
		"enqueue_batch(text[], jsonb[], text[], integer[], timestamp with time zone[], text[])",
	}
	workFunctions = []string{
		"claim(text, text, integer, integer)",
		"complete(bigint[], text)",
		"complete_and_reserve(bigint[], text, bigint[], integer, integer)",
		"complete_and_take(bigint[], text, integer)",
		"elect_leader(text)",
		"fail(bigint, text, text, boolean)",
		"heartbeat(text)",
		"register_worker(text, text, integer, text)",
		"release(bigint[], text)",
		"resign_leader(text)",
		"run_maintenance(text)",
		"unregister_worker(text)",
	}
	counterFunctions = []string{
		"commit_reservation(bigint, text)",
		"next_value(text, text)",
		"next_values(text, text[])",
		"reap_reservations()",
		"reserve(text, text, text)",
		"resolve_key(text)",
	}
	// workTables are what a worker reads itself: its queue's settings and
	// task types (queue.Worker), the slot groups its metrics export, and
	// the schema's version, which it checks against its own at start.
	workTables = []string{"concurrency_slots", "queues", "schema_migrations", "task_types"}
	// counterTables: the Go reaper lists pending reservations itself.
	counterTables = []string{"reservations"}
	// Tables lists every table of the pgseq schema: what the read level
	// may read.
	Tables = []string{
		"applies", "concurrency_slots", "counter_values", "counters", "grants", "leader",
		"partition_slots", "queues", "reservations", "runtime_clock", "schema_migrations", "task_types", "tasks", "workers",
	}
)

// EntryPoints lists every function some level may execute: the runtime
// functions that run with the owner's rights.
func EntryPoints() []string {
	var out []string
	out = append(out, enqueueFunctions...)
	out = append(out, workFunctions...)
	out = append(out, counterFunctions...)
	sort.Strings(out)
	return out
}

// LevelPrivileges returns the privileges a level grants, sorted
// (ComparePrivileges); nil for an unknown level. Every level includes
// USAGE on the schema. No level grants a table write, a sequence or
// anything WITH GRANT OPTION: writes go through the functions, which run
// with the owner's rights.
func LevelPrivileges(level string) []Privilege {
	var functions, tables []string
	switch level {
	case LevelEnqueue:
		functions = enqueueFunctions
	case LevelWork:
		functions, tables = workFunctions, workTables
	case LevelCounters:
		functions, tables = counterFunctions, counterTables
	case LevelRead:
		tables = Tables
	default:
		return nil
	}
	out := []Privilege{{Kind: ObjectSchema, Privilege: "USAGE"}}
	for _, t := range tables {
		out = append(out, Privilege{Kind: ObjectTable, Object: t, Privilege: "SELECT"})
	}
	for _, f := range functions {
		out = append(out, Privilege{Kind: ObjectFunction, Object: f, Privilege: "EXECUTE"})
	}
	SortPrivileges(out)
	return out
}

// SortPrivileges sorts privileges with ComparePrivileges.
func SortPrivileges(ps []Privilege) {
	sort.Slice(ps, func(i, j int) bool { return ComparePrivileges(ps[i], ps[j]) < 0 })
}

// RoleAccess is what one role holds in the pgseq schema, read from the
// database for the roles pgseq manages (and those a configuration names).
type RoleAccess struct {
	// Exists is false when no role of that name exists (any more).
	Exists bool `json:"exists"`
	// Held lists the privileges granted to the role itself (not through
	// membership of another role) on the schema, its tables, columns,
	// sequences and functions, sorted.
	Held []Privilege `json:"held,omitempty"`
}

// Missing returns the privileges of levels that ra does not hold.
func (ra RoleAccess) Missing(levels ...string) []Privilege {
	held := make(map[Privilege]bool, len(ra.Held))
	for _, p := range ra.Held {
		held[p] = true
	}
	var out []Privilege
	for _, p := range union(levels) {
		if !held[p] {
			out = append(out, p)
		}
	}
	return out
}

// Beyond returns the privileges ra holds beyond those of levels: what an
// apply revokes when the role ends with exactly those levels.
func (ra RoleAccess) Beyond(levels ...string) []Privilege {
	want := make(map[Privilege]bool)
	for _, p := range union(levels) {
		want[p] = true
	}
	var out []Privilege
	for _, p := range ra.Held {
		if !want[p] {
			out = append(out, p)
		}
	}
	return out
}

// union returns the privileges of levels, each once, sorted.
func union(levels []string) []Privilege {
	seen := map[Privilege]bool{}
	var out []Privilege
	for _, l := range levels {
		for _, p := range LevelPrivileges(l) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	SortPrivileges(out)
	return out
}

// LevelsOf returns the levels gs give role, in the order of Levels.
func LevelsOf(gs []Grant, role string) []string {
	var out []string
	for _, g := range gs {
		if g.Role == role {
			out = append(out, g.Level)
		}
	}
	sort.Slice(out, func(i, j int) bool { return levelRank(out[i]) < levelRank(out[j]) })
	return out
}
