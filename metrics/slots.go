package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pgseq/pgseq/migrations"
)

// SlotQueryTimeout bounds the slot collector's query at each scrape.
const SlotQueryTimeout = 3 * time.Second

// slotQuery reads every limited type's limit, draining flag and slot groups'
// usage and capacity: task_types joined to concurrency_slots by its primary
// key (at most 50 rows per type), aggregated per type. tasks is not read.
const slotQuery = `SELECT tt.queue, tt.name, tt.concurrency, tt.draining,
       coalesce(sum(s.used), 0)::bigint, coalesce(sum(s.capacity), 0)::bigint
FROM {{schema}}.task_types tt
LEFT JOIN {{schema}}.concurrency_slots s ON s.task_type = tt.name
WHERE tt.concurrency IS NOT NULL
GROUP BY tt.queue, tt.name, tt.concurrency, tt.draining
ORDER BY tt.queue, tt.name`

// SlotCollector exports the slot usage and limit of every limited task type
// of a pgseq schema, every queue's, and the partition keys of every task
// type with a per-key limit.
//
// It reads them from the database at scrape time, with one query on the
// small configuration tables (task_types and concurrency_slots: at most 50
// slot groups per limited type, read by primary key; never tasks), rather
// than from the worker's own knowledge: a limit is shared by every worker of
// the type, and one worker knows only the units its own tasks hold, while
// concurrency_slots holds the units every worker's tasks hold, and the
// limit as applied. The figures are therefore the same on every worker of a
// schema: aggregate them with max by (queue, type), not sum.
//
// The partition figures (schema version 19 and later; none before) come
// from a second query at the same scrape, on partition_slots — a row per
// key with work, read by its primary key — and the key lanes of
// tasks_key_waiting: pgseq_partition_keys, pgseq_partition_keys_at_limit
// and pgseq_partition_tasks_waiting, each counted up to
// PartitionCountLimit per type, and pgseq_partition_key_wait_seconds,
// never a series per key. The key waits are read at scrape time rather
// than observed by the worker as it claims: a queue.Task carries neither
// its key nor when it became due (its key's admission moves its run_at),
// so a worker cannot tell a key's wait from its type's limit's, and a key
// that waits does so in the database, visible before any worker claims
// its task. Each scrape observes the keys at their limit with a waiting
// task (the first KeyWaitsObserved in key order, one index probe each):
// the histogram is the distribution of their waits at that moment, not
// accumulated over time, so read it without rate().
//
// A failed query (the database down, SlotQueryTimeout exceeded) exports no
// slot figures for that scrape, or no partition figures when the partition
// query failed, and counts pgseq_slot_query_errors_total; the scrape itself
// succeeds, with the worker's other metrics.
type SlotCollector struct {
	pool           *pgxpool.Pool
	schema         string
	query          string
	partitionQuery string
	// tables are the schema's partition_slots and tasks, quoted, for
	// partitionsReadable.
	tables [2]string

	used, limit, capacity, draining, duration *prometheus.Desc
	part                                      partitionDescs
	errors                                    prometheus.Counter
}

// NewSlotCollector returns the collector of schema's slots ("" means pgseq's
// default schema), read through pool. Register it with a registry; New does
// when given a pool.
func NewSlotCollector(pool *pgxpool.Pool, schema string) *SlotCollector {
	if schema == "" {
		schema = migrations.DefaultSchema
	}
	qt := []string{"queue", "type"}
	desc := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil)
	}
	return &SlotCollector{
		pool:           pool,
		schema:         schema,
		query:          migrations.Render(slotQuery, schema),
		partitionQuery: migrations.Render(partitionQuery, schema),
		tables:         [2]string{migrations.Render("{{schema}}.partition_slots", schema), migrations.Render("{{schema}}.tasks", schema)},
		part:           newPartitionDescs(desc),
		used: desc("slots_used",
			"Slot units held by tasks of a limited type, cluster-wide: running tasks and tasks admitted but not yet claimed (sum of its slot groups' used).", qt),
		limit: desc("slots_limit",
			"A limited task type's concurrency limit, as applied.", qt),
		capacity: desc("slots_capacity",
			"Sum of the capacities of a limited type's slot groups: its limit, unless the groups were changed outside pgseq.", qt),
		draining: desc("slots_draining",
			"1 while a limited type drains after a lowered limit (some slot group over capacity; it admits no task), else 0.", qt),
		duration: desc("slot_query_duration_seconds",
			"How long the last scrape's slot and partition queries took.", nil),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "slot_query_errors_total",
			Help: "Scrapes whose slot or partition query failed; they exported no slot figures, or no partition figures."}),
	}
}

// Schema returns the schema the collector reads.
func (c *SlotCollector) Schema() string { return c.schema }

// Describe implements prometheus.Collector.
func (c *SlotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.used
	ch <- c.limit
	ch <- c.capacity
	ch <- c.draining
	ch <- c.duration
	ch <- c.part.keys
	ch <- c.part.atLimit
	ch <- c.part.waiting
	ch <- c.part.wait
	c.errors.Describe(ch)
}

// Collect implements prometheus.Collector: it runs the slot query, then
// the partition query, both within SlotQueryTimeout.
func (c *SlotCollector) Collect(ch chan<- prometheus.Metric) {
	defer c.errors.Collect(ch)
	ctx, cancel := context.WithTimeout(context.Background(), SlotQueryTimeout)
	defer cancel()
	start := time.Now()
	slots, err := c.read(ctx)
	if err != nil {
		c.errors.Inc()
		return
	}
	keys, err := c.readPartitions(ctx)
	if err != nil {
		c.errors.Inc()
		keys = nil
	}
	ch <- prometheus.MustNewConstMetric(c.duration, prometheus.GaugeValue, time.Since(start).Seconds())
	c.collectPartitions(ch, keys)
	for _, s := range slots {
		ch <- prometheus.MustNewConstMetric(c.used, prometheus.GaugeValue, float64(s.used), s.queue, s.typ)
		ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(s.limit), s.queue, s.typ)
		ch <- prometheus.MustNewConstMetric(c.capacity, prometheus.GaugeValue, float64(s.capacity), s.queue, s.typ)
		d := 0.0
		if s.draining {
			d = 1
		}
		ch <- prometheus.MustNewConstMetric(c.draining, prometheus.GaugeValue, d, s.queue, s.typ)
	}
}

type typeSlots struct {
	queue, typ            string
	limit, used, capacity int64
	draining              bool
}

func (c *SlotCollector) read(ctx context.Context) ([]typeSlots, error) {
	rows, err := c.pool.Query(ctx, c.query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []typeSlots
	for rows.Next() {
		var s typeSlots
		if err := rows.Scan(&s.queue, &s.typ, &s.limit, &s.draining, &s.used, &s.capacity); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// registerSlots registers a SlotCollector of schema with reg, unless one of
// the same schema is registered already.
func registerSlots(reg prometheus.Registerer, pool *pgxpool.Pool, schema string) error {
	c := NewSlotCollector(pool, schema)
	existing, err := register(reg, c)
	if err != nil {
		return err
	}
	if existing.schema != c.schema {
		return fmt.Errorf("%w: the slots of schema %q are registered already; to export those of schema %q too, give each "+
			"schema's workers a registerer of its own, such as prometheus.WrapRegistererWith(prometheus.Labels{\"schema\": NAME}, reg) "+
			"for every schema", errDuplicateSlots, existing.schema, c.schema)
	}
	return nil
}

var errDuplicateSlots = errors.New("duplicate slot collector")
