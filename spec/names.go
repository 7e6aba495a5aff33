package spec

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// MaxTaskNameLen is the longest task type name, in bytes.
const MaxTaskNameLen = 128

var (
	queueNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	taskNameRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$`)
)

// queueNameRule and taskNameRule explain the naming rules in diagnostics.
const (
	queueNameRule = `A queue name starts with a lowercase letter, followed by at most 62 lowercase letters, digits, underscores or hyphens (^[a-z][a-z0-9_-]{0,62}$), such as "default" or "email-high".`
	taskNameRule  = `A task name starts with a letter, followed by letters, digits, '_', '.' or '-'; colons separate further non-empty parts of the same characters (^[A-Za-z][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)*$), such as "email:send" or "media:render.4k". It is at most 128 bytes long.`
)

// ValidQueueName reports whether name may name a queue.
func ValidQueueName(name string) bool { return queueNameRE.MatchString(name) }

// ValidTaskName reports whether name may name a task type.
func ValidTaskName(name string) bool {
	return len(name) <= MaxTaskNameLen && taskNameRE.MatchString(name)
}

// invalidTaskNameDetail says why name is not a valid task name.
func invalidTaskNameDetail(name string) string {
	if len(name) > MaxTaskNameLen {
		return fmt.Sprintf("The task name %q is %d bytes long; a task name is at most %d bytes. Shorten it.", name, len(name), MaxTaskNameLen)
	}
	return fmt.Sprintf("%q is not a valid task name. %s", name, taskNameRule)
}

// invalidQueueNameDetail says why name is not a valid queue name.
func invalidQueueNameDetail(name string) string {
	d := fmt.Sprintf("%q is not a valid queue name. %s", name, queueNameRule)
	if lower := strings.ToLower(name); lower != name && ValidQueueName(lower) {
		d += fmt.Sprintf(" Did you mean %q?", lower)
	}
	return d
}

// suggest returns the candidate closest to given, or "" when none is close
// enough to be a likely typo.
func suggest(given string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		if strings.EqualFold(c, given) {
			return c
		}
		d := editDistance(strings.ToLower(given), strings.ToLower(c))
		if d <= max(2, len(c)/4) && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean returns " Did you mean "x"?" for the closest candidate, or "".
func didYouMean(given string, candidates []string) string {
	if s := suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quotedList renders names as "a", "b" and "c", sorted.
func quotedList(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	for i := range s {
		s[i] = fmt.Sprintf("%q", s[i])
	}
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
