package catalog

// KeyUse is how many partition keys of a task type hold Used units each:
// the distribution of keys over their units in use that plans read
// (Live.Keys). A type's KeyUses are few whatever its number of keys: one
// per distinct use, and a key's use is at most its per-key limit (or the
// limit it had before a lower one).
type KeyUse struct {
	// Used is the units in use of each of these keys (≥ 0: a key keeps its
	// row at 0 while tasks wait for it).
	Used int `json:"used"`
	// Keys is the number of keys with that use (≥ 1).
	Keys int `json:"keys"`
}

// KeyUses is one task type's keys by units in use, in increasing Used.
type KeyUses []KeyUse

// Total returns the number of keys with work (a row in partition_slots:
// a task holding one of the key's units, or waiting for one).
func (us KeyUses) Total() int { return us.AtLeast(0) }

// AtLeast returns how many keys hold at least n units: the keys at a
// per-key limit of n (or above it).
func (us KeyUses) AtLeast(n int) int {
	k := 0
	for _, u := range us {
		if u.Used >= n {
			k += u.Keys
		}
	}
	return k
}

// Above returns how many keys hold more than n units: the keys over a
// per-key limit of n, which admit no task until they are below it.
func (us KeyUses) Above(n int) int { return us.AtLeast(n + 1) }
