package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// Bounds of queue settings: the catalog's, which saved plans obey too.
const (
	MinBatchSize = catalog.MinBatchSize
	MaxBatchSize = catalog.MaxBatchSize
	// MaxRetries bounds max_retries in queue and task blocks.
	MaxRetries = catalog.MaxRetries
	// MinLease is the shortest worker_timeout and leader_lease.
	MinLease = catalog.MinLease
)

// retriesHint ends the detail of an out-of-range max_retries.
const retriesHint = "It counts retries after the first attempt; 0 sends a failed task straight to the dead letters."

// queue decodes a queue block.
func (d *decoder) queue(b *hclsyntax.Block, name string, nameRange hcl.Range) {
	valid := catalog.ValidQueueName(name)
	if !valid {
		d.Errorf(nameRange, "Invalid queue name", "%s", invalidQueueNameDetail(name))
	}
	q := catalog.DefaultQueue(name)
	attrs, blocks, _ := d.Content(b.Body, "queue",
		[]string{"batch_size", "max_retries", "worker_timeout", "leader_lease"},
		[]string{"backoff", "retention"}, nil)
	if v, ok := d.WholeIn(attrs["batch_size"], catalog.BatchSizeRange, "It is the most tasks a worker claims at once."); ok {
		q.BatchSize = v
	}
	if v, ok := d.WholeIn(attrs["max_retries"], catalog.MaxRetriesRange, retriesHint); ok {
		q.MaxRetries = v
	}
	if v, ok := d.durationRule(attrs["worker_timeout"], catalog.WorkerTimeoutRange); ok {
		q.WorkerTimeout = v
	}
	if v, ok := d.durationRule(attrs["leader_lease"], catalog.LeaderLeaseRange); ok {
		q.LeaderLease = v
	}
	if bb := blocks["backoff"]; bb != nil {
		d.backoff(bb.Body, &q.Backoff)
	}
	if rb := blocks["retention"]; rb != nil {
		ra, _, _ := d.Content(rb.Body, "retention", []string{"completed", "dead_letter"}, nil, nil)
		if v, ok := d.durationRule(ra["completed"], catalog.RetentionCompletedRange); ok {
			q.Retention.Completed = v
		}
		if v, ok := d.durationRule(ra["dead_letter"], catalog.RetentionDeadLetterRange); ok {
			q.Retention.DeadLetter = v
		}
	}

	if first, dup := d.queueLabels[name]; dup {
		d.Errorf(nameRange, "Duplicate queue",
			"A queue named %q was already declared at %s. Queue names are unique across all files of a configuration: rename or remove one of them.",
			name, hcldecode.PosString(first))
		return
	}
	if !valid {
		return
	}
	d.queueLabels[name] = nameRange
	d.queues[name] = b.DefRange()
	d.state.Queues = append(d.state.Queues, q)
}

// backoff decodes a backoff block into bo, which holds the defaults.
func (d *decoder) backoff(body *hclsyntax.Body, bo *catalog.Backoff) {
	attrs, _, _ := d.Content(body, "backoff", []string{"initial", "max", "factor", "jitter"}, nil, nil)
	initialOK, maxOK := true, true
	if v, ok := d.durationRule(attrs["initial"], catalog.BackoffInitialRange); ok {
		bo.Initial = v
	} else if attrs["initial"] != nil {
		initialOK = false
	}
	if v, ok := d.durationRule(attrs["max"], catalog.BackoffMaxRange); ok {
		bo.Max = v
	} else if attrs["max"] != nil {
		maxOK = false
	}
	if v, ok := d.numberIn(attrs["factor"], catalog.BackoffFactorRange,
		"Each retry waits factor times longer than the one before; 1 keeps the delay constant."); ok {
		bo.Factor = v
	}
	if v, ok := d.numberIn(attrs["jitter"], catalog.BackoffJitterRange,
		"It is the fraction of random spread around each delay: 0.2 means ±20%."); ok {
		bo.Jitter = v
	}
	if initialOK && maxOK && bo.Max < bo.Initial {
		subject := attrs["max"]
		which := "backoff.max"
		if subject == nil {
			subject, which = attrs["initial"], "backoff.initial"
		}
		d.Errorf(subject.Expr.Range(), "Backoff max less than initial",
			"backoff.max (%s) is less than backoff.initial (%s). max caps the delay between retries, so it must be at least initial: change %s.",
			bo.Max, bo.Initial, which)
	}
}
