package metrics

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
)

const (
	// PartitionCountLimit bounds what the partition query counts per task
	// type at each scrape: keys with work, keys at their limit and tasks
	// waiting for their key. A figure of PartitionCountLimit means at
	// least that many.
	PartitionCountLimit = 100_000
	// KeyWaitsObserved bounds the keys at their limit of a task type whose
	// wait the partition query reads at each scrape (one index probe
	// each): the first ones in key order.
	KeyWaitsObserved = 1_000
)

// KeyWaitBuckets are the buckets of pgseq_partition_key_wait_seconds: a
// second to a day.
var KeyWaitBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400}

// partitionQuery reads, per task type with a per-key limit (schema version
// 19 and later), its keys with work, those at their limit and the tasks
// waiting for their key, each counted up to $1 entries of an index
// (partition_slots' primary key, tasks_key_waiting); and the waits of at
// most $2 of its keys at their limit, the first in key order: how long the
// first task of each one's lane (the next the key admits) has been due.
// It runs under partitionSettings.
const partitionQuery = `SELECT tt.queue, tt.name, k.keys, k.at_limit, w.waiting, coalesce(h.waits, '{}')
FROM {{schema}}.task_types tt
CROSS JOIN LATERAL (
    SELECT count(*) AS keys, count(*) FILTER (WHERE s.used >= tt.partition_limit) AS at_limit
    FROM (SELECT s.used FROM {{schema}}.partition_slots s
          WHERE s.task_type = tt.name ORDER BY s.partition_key LIMIT $1::int) s
) k
CROSS JOIN LATERAL (
    SELECT count(*) AS waiting
    FROM (SELECT 1 FROM {{schema}}.tasks t
          WHERE t.type = tt.name AND t.status = 'pending' AND t.key_wait
          ORDER BY t.partition_key
          LIMIT $1::int) x
) w
CROSS JOIN LATERAL (
    SELECT array_agg(extract(epoch FROM now() - f.run_at)::float8) AS waits
    FROM (SELECT s.partition_key
          FROM (SELECT s.partition_key, s.used FROM {{schema}}.partition_slots s
                WHERE s.task_type = tt.name ORDER BY s.partition_key LIMIT $1::int) s
          WHERE s.used >= tt.partition_limit
          LIMIT $2::int) p
    CROSS JOIN LATERAL (
        SELECT t.run_at FROM {{schema}}.tasks t
        WHERE t.type = tt.name AND t.partition_key = p.partition_key AND t.status = 'pending' AND t.key_wait
        ORDER BY t.priority DESC, t.run_at, t.id
        LIMIT 1) f
) h
WHERE tt.partition_limit IS NOT NULL
ORDER BY tt.queue, tt.name`

// partitionSettings are the planner settings of the partition query's
// transaction, as pgseq status reads (package status): every read is a
// range of an index up to a LIMIT, which a bitmap or sequential scan
// would read whole first; and JIT, which the query's estimated cost
// (one lateral read per type) would turn on, costs more than the query.
const partitionSettings = `SET LOCAL jit = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off`

// partitionDescs are the partition figures' descriptions.
type partitionDescs struct {
	keys, atLimit, waiting, wait *prometheus.Desc
}

func newPartitionDescs(desc func(name, help string, labels []string) *prometheus.Desc) partitionDescs {
	qt := []string{"queue", "type"}
	return partitionDescs{
		keys: desc("partition_keys",
			"Partition keys of a task type with a per-key limit that have work: a task holding one of the key's units or waiting for one (counted up to 100,000).", qt),
		atLimit: desc("partition_keys_at_limit",
			"Of those, the keys whose units in use reach the per-key limit (or exceed a lowered one): their due tasks wait.", qt),
		waiting: desc("partition_tasks_waiting",
			"Due tasks of a task type with a per-key limit waiting for a unit of their key (counted up to 100,000).", qt),
		wait: desc("partition_key_wait_seconds",
			"At each scrape, one observation per key at its per-key limit with a waiting task (the first 1,000 keys at their limit, in key order): how long the next task it admits has been due. The distribution now, not accumulated: use it without rate().", qt),
	}
}

// typeKeys are one partitioned type's figures.
type typeKeys struct {
	queue, typ             string
	keys, atLimit, waiting int64
	waits                  []float64
}

// partitionsReadable says whether the schema has per-key limits (its
// partition_slots table: schema version 19 and later) and whether the
// collector's role may read them: partition_slots and tasks, which the
// read level grants and the work level does not (a worker's own role
// reads its queue's settings and slot groups only).
const partitionsReadable = `SELECT coalesce(has_table_privilege(to_regclass($1), 'SELECT')
                AND has_table_privilege(to_regclass($2), 'SELECT'), false)`

// readablePartitions reports whether there are partition figures to read
// (partitionsReadable), asked at each scrape: a schema is upgraded, and a
// role given the read level, while its workers run.
func (c *SlotCollector) readablePartitions(ctx context.Context) (bool, error) {
	var ok bool
	err := c.pool.QueryRow(ctx, partitionsReadable, c.tables[0], c.tables[1]).Scan(&ok)
	return ok, err
}

// readPartitions runs the partition query: nothing on a schema before
// per-key limits, or for a role that may not read them.
func (c *SlotCollector) readPartitions(ctx context.Context) ([]typeKeys, error) {
	ok, err := c.readablePartitions(ctx)
	if err != nil || !ok {
		return nil, err
	}
	tx, err := c.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	if _, err := tx.Exec(ctx, partitionSettings); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, c.partitionQuery, PartitionCountLimit, KeyWaitsObserved)
	if err != nil {
		return nil, err
	}
	var out []typeKeys
	var k typeKeys
	_, err = pgx.ForEachRow(rows, []any{&k.queue, &k.typ, &k.keys, &k.atLimit, &k.waiting, &k.waits}, func() error {
		x := k
		x.waits = append([]float64(nil), k.waits...)
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, tx.Commit(ctx)
}

// collectPartitions sends the figures of keys.
func (c *SlotCollector) collectPartitions(ch chan<- prometheus.Metric, keys []typeKeys) {
	for _, k := range keys {
		ch <- prometheus.MustNewConstMetric(c.part.keys, prometheus.GaugeValue, float64(k.keys), k.queue, k.typ)
		ch <- prometheus.MustNewConstMetric(c.part.atLimit, prometheus.GaugeValue, float64(k.atLimit), k.queue, k.typ)
		ch <- prometheus.MustNewConstMetric(c.part.waiting, prometheus.GaugeValue, float64(k.waiting), k.queue, k.typ)
		buckets := make(map[float64]uint64, len(KeyWaitBuckets))
		sum := 0.0
		for _, w := range k.waits {
			w = max(w, 0) // clock skew between sessions never makes a wait negative
			sum += w
			for _, b := range KeyWaitBuckets {
				if w <= b {
					buckets[b]++
				}
			}
		}
		ch <- prometheus.MustNewConstHistogram(c.part.wait, uint64(len(k.waits)), sum, buckets, k.queue, k.typ)
	}
}
