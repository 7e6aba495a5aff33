// Package metrics exports a pgseq queue.Worker's metrics to Prometheus, with
// the official client (github.com/prometheus/client_golang).
//
// New returns a queue.Observer that records a worker's events in metrics
// registered with a prometheus.Registerer; with a pool it also registers the
// SlotCollector, which reads every limited task type's slot usage and limit,
// and every partitioned type's keys, at scrape time. One line wires a
// worker:
//
//	w, err := queue.NewWorker(queue.Config{Pool: pool, Queue: "default",
//		Observer: metrics.MustNew(prometheus.DefaultRegisterer, metrics.Options{Pool: pool})})
//
// and the application serves the registry as usual (promhttp.Handler() for
// the default registry), or with Listen, as pgseq worker --metrics-addr does.
//
// Every worker metric is labelled with the worker's queue (learnt from the
// worker's first event, SettingsLoaded, at the start of Run), and the per-task
// ones with the task type too. Use one Observer per worker; several workers of
// one process may share a registry: New reuses the metrics already
// registered, and each worker's series carry its queue.
//
// Counters, by queue and type:
//
//	pgseq_tasks_claimed_total          tasks the worker received: by its claims, or handed over by completions
//	pgseq_tasks_handed_off_total       of those, the ones handed over by completions (complete_and_take)
//	pgseq_tasks_completed_total        tasks whose handler succeeded (completed in the next batched completion)
//	pgseq_tasks_failed_total           tasks whose handler failed (error, panic, no handler): every failed attempt
//	pgseq_tasks_retried_total          of those, the ones that went back to pending for another attempt
//	pgseq_tasks_dead_lettered_total    of those, the ones moved to the dead letter (retries used up)
//
// Counters, by queue: pgseq_tasks_released_total (handed back unexecuted at
// shutdown), pgseq_tasks_lost_total (finished tasks the database no longer
// counted as the worker's when it completed or failed them: the leader had
// recovered them, and they run again; or a failure that could not be
// recorded) and pgseq_worker_call_errors_total{call="claim|complete|release"}
// (failed round trips).
//
// Histograms: pgseq_handler_duration_seconds by queue and type;
// pgseq_claim_duration_seconds and pgseq_complete_duration_seconds by queue
// (successful round trips; one claim or one batched completion each).
//
// Gauges: pgseq_tasks_in_flight by queue and type (handlers running now),
// and the SlotCollector's pgseq_slots_used, pgseq_slots_limit,
// pgseq_slots_capacity and pgseq_slots_draining by queue and type, with
// pgseq_slot_query_duration_seconds and the counter
// pgseq_slot_query_errors_total.
//
// Per-key limits, by queue and type of every task type with a partition
// block (schema version 19 and later, and a role that may read
// partition_slots and tasks: the read level, not the work level alone),
// from the SlotCollector at scrape time, never a series per key:
//
//	pgseq_partition_keys               gauge: keys with work (a task holding one of the key's units or waiting for one)
//	pgseq_partition_keys_at_limit      gauge: of those, keys whose units in use reach the per-key limit
//	pgseq_partition_tasks_waiting      gauge: due tasks waiting for a unit of their key
//	pgseq_partition_key_wait_seconds   histogram: per waiting key at its limit, how long its next task has been due
//
// The gauges count up to PartitionCountLimit per type; the histogram
// observes at most KeyWaitsObserved keys per type at each scrape and is
// the distribution at that moment (see SlotCollector).
//
// docs/metrics.md has the same table, with the meaning of each metric.
package metrics
