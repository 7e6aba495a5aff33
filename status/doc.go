// Package status reads the live state of a pgseq schema at a glance — per
// queue the pending, running, failed and dead-lettered tasks and the age of
// the oldest due one; per limited task type its running tasks against the
// limit, its slot groups and the tasks waiting for a unit; per partitioned
// task type its keys with work, those at their per-key limit, the tasks
// waiting for their key and the keys that have waited longest; the workers
// and the leader; the counters — for pgseq status, as a Snapshot (JSON) or
// as text (Render).
//
// # Cheap on a big table
//
// Read never scans the tasks table. Every figure about tasks comes from one
// of the runtime's partial indexes, and no figure reads more than a bounded
// number of index entries (Options.Limit, default 10,000):
//
//   - due and later open tasks: tasks_claimable (queue, priority DESC, run_at,
//     id). A loose index scan finds a queue's distinct priorities (one probe
//     each, at most 100); within one priority the due tasks (run_at <= now())
//     and the later ones are each a single range of the index, and the oldest
//     due task is the first entry of its range;
//   - tasks waiting for a unit of their limited type: tasks_waiting (type,
//     priority DESC, run_at, id), read the same way per type;
//   - limited tasks scheduled for later: tasks_scheduled (queue, run_at);
//   - running tasks: tasks_held (worker_id) — as many as the workers' pools
//     hold;
//   - failed and dead-lettered tasks: the newest finished tasks of the queue,
//     backwards through tasks_finished (queue, completed_at);
//   - partition keys (schema version 19 and later): the first keys of a
//     type's range of partition_slots' primary key (task_type,
//     partition_key), those at and over their limit counted among them;
//     the tasks waiting for their key, a range of tasks_key_waiting (type,
//     partition_key, priority DESC, run_at, id); and the longest waits, one
//     probe of that index per key at its limit for at most KeysProbed keys
//     (the first task of the key's lane, the next it admits), the
//     LongestWaitsListed longest kept.
//
// So the work grows with the number of queues, task types and priorities,
// not with the number of tasks. A count that reaches the limit is a lower
// bound (Count.Exact is false; shown as "10,000+"), and Read adds the
// planner's estimate of the whole figure (Count.Estimate, from the
// statistics ANALYZE keeps: EXPLAIN of the figure's predicate, never
// executed). Estimates assume independent columns, so they can be far off
// for strongly correlated data (a single task type's backlog, for
// instance); an estimate not above the lower bound is left out.
// The slot groups, task types, queues, workers and leader tables are small
// and read whole.
//
// Everything is read in one read-only REPEATABLE READ transaction, so every
// figure comes from the same snapshot and ages are measured against the
// same clock (the transaction's now()). The transaction turns sequential
// and bitmap scans off, so that no misestimate swaps a bounded index range
// for a read of every matching row, and JIT off: compiling these short
// queries would cost more than running them. A test checks the plan of
// every query on 100,000 analyzed tasks (plans_test.go).
package status
