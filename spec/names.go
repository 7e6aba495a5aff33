package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// MaxTaskNameLen is the longest task type name, in bytes.
const MaxTaskNameLen = catalog.MaxTaskNameLen

// queueNameRule and taskNameRule explain the naming rules in diagnostics.
const (
	queueNameRule   = `A queue name starts with a lowercase letter, followed by at most 62 lowercase letters, digits, underscores or hyphens (^[a-z][a-z0-9_-]{0,62}$), such as "default" or "email-high".`
	counterNameRule = `A counter name starts with a lowercase letter or underscore, followed by at most 62 lowercase letters, digits or underscores (^[a-z_][a-z0-9_]{0,62}$), such as "invoice_number": it becomes part of SQL object names.`
	identRule       = `starts with a letter or underscore, followed by at most 62 letters, digits, underscores or dollar signs (^[A-Za-z_][A-Za-z0-9_$]{0,62}$)`
	taskNameRule    = `A task name starts with a letter, followed by letters, digits, '_', '.' or '-'; colons separate further non-empty parts of the same characters (^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$), such as "email:send" or "media:render.4k". It is at most 128 bytes long.`
)

// QualifyTable returns a table name as schema.name, adding DefaultSchema to
// a bare name. ok is false when name is neither a valid identifier nor two
// of them joined by a dot.
func QualifyTable(name string) (qualified string, ok bool) {
	schema, table, found := strings.Cut(name, ".")
	if !found {
		schema, table = DefaultSchema, name
	}
	if !catalog.ValidIdentifier(schema) || !catalog.ValidIdentifier(table) {
		return "", false
	}
	return schema + "." + table, true
}

// invalidCounterNameDetail says why name is not a valid counter name.
func invalidCounterNameDetail(name string) string {
	d := fmt.Sprintf("%s is not a valid counter name. %s", hcldecode.Quote(name), counterNameRule)
	fixed := strings.ToLower(strings.NewReplacer("-", "_", ".", "_", ":", "_", " ", "_").Replace(name))
	if fixed != name && catalog.ValidCounterName(fixed) {
		d += fmt.Sprintf(" Did you mean %q?", fixed)
	}
	return d
}

// invalidTableDetail says why name, the value of path, is not a valid
// table name.
func invalidTableDetail(path, name string) string {
	d := fmt.Sprintf("%s: %s is not a valid table name. Write name or schema.name, where each part %s, such as \"tasks\" (in schema %s) or \"app.tasks\".",
		path, hcldecode.Quote(name), identRule, DefaultSchema)
	switch {
	case name == "":
		d += " The name is empty."
	case strings.ContainsAny(name, "\"`"):
		d += " Write the name without quotes: names that SQL needs quoted are not supported."
	case strings.Count(name, ".") > 1:
		d += " A table name has at most one dot, between the schema and the table; a database cannot be named."
	}
	return d
}

// invalidColumnDetail says why name, the value of path, is not a valid
// column name.
func invalidColumnDetail(path, name string) string {
	d := fmt.Sprintf("%s: %s is not a valid column name. A column name %s, such as \"project_id\".", path, hcldecode.Quote(name), identRule)
	switch {
	case name == "":
		d += " The name is empty."
	case strings.ContainsAny(name, "\"`"):
		d += " Write the name without quotes: names that SQL needs quoted are not supported."
	case strings.Contains(name, "."):
		d += " Write the column alone, without a table or schema: the table is set separately."
	}
	return d
}

// invalidPrefixDetail says why p is not a valid key prefix.
func invalidPrefixDetail(p string) string {
	d := fmt.Sprintf("%s is not a valid prefix. A prefix starts with a letter, followed by at most 15 letters or digits (^[A-Za-z][A-Za-z0-9]{0,15}$), such as \"INV\"; it is stored upper-case and keys read PREFIX-N (INV-1042).", hcldecode.Quote(p))
	if trimmed := strings.TrimRight(p, "-_ "); trimmed != p && catalog.ValidPrefix(trimmed) {
		d += fmt.Sprintf(" The dash is added for you: write prefix = %q.", trimmed)
	} else if p == "" {
		d += " For keys without a prefix, remove prefix."
	}
	return d
}

// invalidTaskNameDetail says why name is not a valid task name.
func invalidTaskNameDetail(name string) string {
	if len(name) > MaxTaskNameLen {
		return fmt.Sprintf("The task name %s is %d bytes long; a task name is at most %d bytes. Shorten it.", hcldecode.Quote(name), len(name), MaxTaskNameLen)
	}
	return fmt.Sprintf("%s is not a valid task name. %s", hcldecode.Quote(name), taskNameRule)
}

// invalidQueueNameDetail says why name is not a valid queue name.
func invalidQueueNameDetail(name string) string {
	d := fmt.Sprintf("%s is not a valid queue name. %s", hcldecode.Quote(name), queueNameRule)
	if lower := strings.ToLower(name); lower != name && catalog.ValidQueueName(lower) {
		d += fmt.Sprintf(" Did you mean %q?", lower)
	}
	return d
}

// closest returns the candidate closest to given, however far.
func closest(given string, candidates []string) string {
	if s := hcldecode.Suggest(given, candidates); s != "" {
		return s
	}
	best, bestDist := "", -1
	for _, c := range candidates {
		d := hcldecode.EditDistance(strings.ToLower(given), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// quotedList renders names as "a", "b" and "c", sorted.
func quotedList(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	for i := range s {
		s[i] = hcldecode.Quote(s[i])
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
