package spec

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pgseq/pgseq/catalog"
)

// Bounds of queue settings.
const (
	MinBatchSize = 1
	MaxBatchSize = 10_000
	// MaxRetries bounds max_retries in queue and task blocks.
	MaxRetries = 1000
	// MinLease is the shortest worker_timeout and leader_lease.
	MinLease = catalog.Duration(time.Second)
)

var retriesRule = wholeRule{min: 0, max: MaxRetries,
	hint: "It counts retries after the first attempt; 0 sends a failed task straight to the dead letters."}

// queue decodes a queue block.
func (d *decoder) queue(b *hclsyntax.Block, name string, nameRange hcl.Range) {
	valid := ValidQueueName(name)
	if !valid {
		d.errorf(nameRange, "Invalid queue name", "%s", invalidQueueNameDetail(name))
	}
	q := catalog.DefaultQueue(name)
	attrs, blocks := d.content(b.Body, "queue",
		[]string{"batch_size", "max_retries", "worker_timeout", "leader_lease"},
		[]string{"backoff", "retention"})
	if v, ok := d.whole(attrs["batch_size"], "batch_size", wholeRule{min: MinBatchSize, max: MaxBatchSize,
		hint: "It is the most tasks a worker claims at once."}); ok {
		q.BatchSize = v
	}
	if v, ok := d.whole(attrs["max_retries"], "max_retries", retriesRule); ok {
		q.MaxRetries = v
	}
	if v, ok := d.duration(attrs["worker_timeout"], "worker_timeout", MinLease); ok {
		q.WorkerTimeout = v
	}
	if v, ok := d.duration(attrs["leader_lease"], "leader_lease", MinLease); ok {
		q.LeaderLease = v
	}
	if bb := blocks["backoff"]; bb != nil {
		d.backoff(bb.Body, &q.Backoff)
	}
	if rb := blocks["retention"]; rb != nil {
		ra, _ := d.content(rb.Body, "retention", []string{"completed", "dead_letter"}, nil)
		if v, ok := d.duration(ra["completed"], "retention.completed", 0); ok {
			q.Retention.Completed = v
		}
		if v, ok := d.duration(ra["dead_letter"], "retention.dead_letter", 0); ok {
			q.Retention.DeadLetter = v
		}
	}

	if first, dup := d.queueLabels[name]; dup {
		d.errorf(nameRange, "Duplicate queue",
			"A queue named %q was already declared at %s. Queue names are unique across all files of a configuration: rename or remove one of them.",
			name, posString(first))
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
	attrs, _ := d.content(body, "backoff", []string{"initial", "max", "factor", "jitter"}, nil)
	initialOK, maxOK := true, true
	if v, ok := d.duration(attrs["initial"], "backoff.initial", 0); ok {
		bo.Initial = v
	} else if attrs["initial"] != nil {
		initialOK = false
	}
	if v, ok := d.duration(attrs["max"], "backoff.max", 0); ok {
		bo.Max = v
	} else if attrs["max"] != nil {
		maxOK = false
	}
	if v, ok := d.number(attrs["factor"], "backoff.factor", numberRule{min: 1, max: catalog.MaxBackoffFactor,
		bounds: fmt.Sprintf("a number from 1 to %g", catalog.MaxBackoffFactor), hint: "Each retry waits factor times longer than the one before; 1 keeps the delay constant."}); ok {
		bo.Factor = v
	}
	if v, ok := d.number(attrs["jitter"], "backoff.jitter", numberRule{min: 0, max: 1,
		bounds: "a number from 0 to 1", hint: "It is the fraction of random spread around each delay: 0.2 means ±20%."}); ok {
		bo.Jitter = v
	}
	if initialOK && maxOK && bo.Max < bo.Initial {
		subject := attrs["max"]
		which := "backoff.max"
		if subject == nil {
			subject, which = attrs["initial"], "backoff.initial"
		}
		d.errorf(subject.Expr.Range(), "Backoff max less than initial",
			"backoff.max (%s) is less than backoff.initial (%s). max caps the delay between retries, so it must be at least initial: change %s.",
			bo.Max, bo.Initial, which)
	}
}
