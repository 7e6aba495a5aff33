package status

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgseq/pgseq/inspect"
)

const (
	// KeysProbed is how many keys at their limit of a partitioned type are
	// probed for their waits (one index probe each); beyond them the
	// longest waits are those of the first KeysProbed keys, in key order.
	KeysProbed = 1_000
	// LongestWaitsListed is how many keys a partitioned type lists, the
	// longest waits first.
	LongestWaitsListed = 5
)

// Partition is one task type's partition keys (its per-key limit): the keys
// with work, those at their limit, the tasks waiting for their key and the
// keys that have waited longest.
type Partition struct {
	TaskType string `json:"task_type"`
	Queue    string `json:"queue"`
	// Limit is the per-key limit; 0 when the type has no partition block
	// any more but keys still hold units (their tasks run on).
	Limit int `json:"limit"`
	// By is the payload field a task's key is read from when its enqueue
	// gives none; "" when every enqueue gives it.
	By string `json:"by,omitempty"`
	// Keys are the keys with work: a task holding one of the key's units
	// (running, or admitted and not claimed yet) or waiting for one.
	Keys Count `json:"keys"`
	// AtLimit are those whose units in use reach the limit (or exceed it):
	// their due tasks wait. OverLimit are those above it, draining after a
	// lowered limit: they admit nothing until they are below it. Both are
	// counted among the keys read: lower bounds when Keys is.
	AtLimit   Count `json:"keys_at_limit"`
	OverLimit Count `json:"keys_over_limit"`
	// Waiting are the due tasks waiting for a unit of their key.
	Waiting Count `json:"waiting"`
	// OldestWaiting is the longest wait of LongestWaits: exact only when
	// every key at its limit was probed.
	OldestWaiting *Age `json:"oldest_waiting"`
	// LongestWaits are the keys at their limit whose next task has waited
	// longest, longest first (at most LongestWaitsListed), among the
	// KeysProbed keys probed.
	LongestWaits []KeyWait `json:"longest_waits"`
	// KeysProbed is how many keys at their limit were probed for their
	// waits. WaitsCapped: not every key at its limit was (more than
	// KeysProbed of them, or more keys than the count limit), so a key
	// not listed may have waited longer.
	KeysProbed  int  `json:"keys_probed"`
	WaitsCapped bool `json:"waits_capped"`
	// State sums it up: "draining" (keys over a lowered limit, or holding
	// units of a removed partition block until their tasks end), "binding"
	// (tasks wait for keys at their limit), "admitting" (tasks wait
	// although their keys are below the limit: a moment's race the next
	// completion or admission resolves) or "ok".
	State string `json:"state"`
}

// KeyWait is one partition key and how long its next task has waited.
type KeyWait struct {
	Key string `json:"key"`
	// Used is the key's units in use: its running tasks and those
	// admitted and not claimed yet.
	Used int `json:"used"`
	// Waiting are the key's due tasks waiting for one of its units.
	Waiting Count `json:"waiting"`
	// Oldest is when the key's next task (the first of its lane: highest
	// priority, then earliest due) became due: its oldest waiting task
	// unless the key's tasks have different priorities.
	Oldest Age `json:"oldest_waiting"`
}

// partitions reads the partitioned task types' keys (schema version 19
// and later; none before) into r.s.Partitions, for pending to count
// their waiting tasks in their queues.
func (r *reader) partitions() error {
	if r.s.SchemaVersion < inspect.PartitionsVersion {
		return nil
	}
	rows, err := r.q.Query(r.ctx, r.sql("partitions"), r.queue, r.limit+1)
	if err != nil {
		return err
	}
	var p Partition
	var keys, atLimit, overLimit, waiting int64
	_, err = pgx.ForEachRow(rows, []any{&p.TaskType, &p.Queue, &p.Limit, &p.By, &keys, &atLimit, &overLimit, &waiting}, func() error {
		x := p
		x.Keys, x.Waiting = capped(keys, r.limit), capped(waiting, r.limit)
		x.AtLimit = Count{Value: min(atLimit, int64(r.limit)), Exact: x.Keys.Exact}
		x.OverLimit = Count{Value: min(overLimit, int64(r.limit)), Exact: x.Keys.Exact}
		x.KeysProbed = int(min(atLimit, KeysProbed))
		x.WaitsCapped = !x.Keys.Exact || atLimit > KeysProbed
		x.LongestWaits = []KeyWait{}
		r.s.Partitions = append(r.s.Partitions, x)
		return nil
	})
	if err != nil {
		return err
	}
	if len(r.s.Partitions) == 0 {
		return nil
	}
	byType := make(map[string]*Partition, len(r.s.Partitions))
	for i := range r.s.Partitions {
		byType[r.s.Partitions[i].TaskType] = &r.s.Partitions[i]
	}
	rows, err = r.q.Query(r.ctx, r.sql("key_waits"), r.queue, r.limit+1, KeysProbed, LongestWaitsListed)
	if err != nil {
		return err
	}
	var typ string
	var w KeyWait
	var oldest time.Time
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&typ, &w.Key, &w.Used, &oldest, &n}, func() error {
		p, ok := byType[typ]
		if !ok {
			return nil
		}
		x := w
		x.Waiting = capped(n, r.limit)
		x.Oldest = *r.age(oldest, !p.WaitsCapped)
		p.LongestWaits = append(p.LongestWaits, x)
		return nil
	})
	if err != nil {
		return err
	}
	for i := range r.s.Partitions {
		p := &r.s.Partitions[i]
		if err := r.estimate(&p.Keys, "estimate_keys", p.TaskType); err != nil {
			return err
		}
		if err := r.estimate(&p.Waiting, "estimate_key_waiting", p.TaskType); err != nil {
			return err
		}
		if len(p.LongestWaits) > 0 {
			o := p.LongestWaits[0].Oldest
			p.OldestWaiting = &o
		}
		waits := p.Waiting.Value > 0
		switch {
		case p.OverLimit.Value > 0 || p.Limit == 0:
			p.State = "draining"
		case waits && p.AtLimit.Value > 0:
			p.State = "binding"
		case waits:
			p.State = "admitting"
		default:
			p.State = "ok"
		}
	}
	return nil
}
