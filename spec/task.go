package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/internal/hcldecode"
)

// DefaultQueueName is the queue of a task block without a queue argument.
const DefaultQueueName = "default"

// MaxPriority bounds a task's priority: it lies in [-MaxPriority, MaxPriority].
const MaxPriority = catalog.MaxPriority

// task decodes a task block.
func (d *decoder) task(b *hclsyntax.Block, name string, nameRange hcl.Range) {
	valid := catalog.ValidTaskName(name)
	if !valid {
		d.Errorf(nameRange, "Invalid task name", "%s", invalidTaskNameDetail(name))
	}
	t := catalog.TaskType{Name: name, Queue: DefaultQueueName}
	attrs, blocks, _ := d.Content(b.Body, "task", []string{"queue", "concurrency", "max_retries", "priority"}, []string{"partition"}, nil)

	ref := queueRef{task: name, queue: DefaultQueueName, def: b.DefRange()}
	queueOK := true
	if a := attrs["queue"]; a != nil {
		if v, ok := d.Str(a, "queue"); ok {
			t.Queue, ref.queue, ref.expr = v, v, a.Expr.Range().Ptr()
		} else {
			queueOK = false
		}
	}
	if v, ok := d.WholeIn(attrs["concurrency"], catalog.ConcurrencyRange,
		"To let tasks of this type run without a limit, remove the concurrency argument."); ok {
		t.Concurrency = v
	}
	if v, ok := d.WholeIn(attrs["max_retries"], catalog.MaxRetriesRange, retriesHint); ok {
		t.MaxRetries = &v
	}
	if v, ok := d.WholeIn(attrs["priority"], catalog.PriorityRange, "Higher priorities run first; the default is 0."); ok {
		t.Priority = v
	}

	if pb := blocks["partition"]; pb != nil {
		t.Partition = d.partition(pb)
	}

	if first, dup := d.taskLabels[name]; dup {
		d.Errorf(nameRange, "Duplicate task",
			"A task named %q was already declared at %s. Task names are unique across all files of a configuration: rename or remove one of them.",
			name, hcldecode.PosString(first))
		return
	}
	if !valid {
		return
	}
	d.taskLabels[name] = nameRange
	d.tasks[name] = b.DefRange()
	d.state.TaskTypes = append(d.state.TaskTypes, t)
	if queueOK {
		d.refs = append(d.refs, ref)
	}
}

// checkRefs reports task references to undeclared queues.
func (d *decoder) checkRefs() {
	declared := make([]string, 0, len(d.queues))
	for name := range d.queues {
		declared = append(declared, name)
	}
	for _, r := range d.refs {
		if _, ok := d.queues[r.queue]; ok {
			continue
		}
		fix := "No queue is declared yet: add a queue block."
		if len(declared) > 0 {
			fix = "Declared queues: " + quotedList(declared) + "."
		}
		if r.expr == nil {
			d.Errorf(r.def, "Unknown queue",
				"Task %q has no queue argument, so it goes to queue %q, which is not declared. Declare it (queue %q {} takes every default) or set queue to a declared queue. %s",
				r.task, r.queue, r.queue, fix)
			continue
		}
		d.Errorf(*r.expr, "Unknown queue",
			"Task %q names queue %q, which is not declared.%s %s",
			r.task, r.queue, hcldecode.DidYouMean(r.queue, declared), fix)
	}
}

// partition decodes a task's partition block: concurrency (required) is
// the per-key limit, by (optional) names the top-level payload field the
// key is read from, written "payload.<field>". It returns nil when the
// block is invalid (its errors are reported).
func (d *decoder) partition(b *hclsyntax.Block) *catalog.Partition {
	attrs, _, _ := d.Content(b.Body, "partition", []string{"by", "concurrency"}, nil, nil)
	p := &catalog.Partition{}
	ok := true
	if a := attrs["concurrency"]; a == nil {
		d.Errorf(b.TypeRange, "Missing required argument",
			"A partition block needs concurrency: the most tasks of one partition key that may run at once (concurrency = 2).")
		ok = false
	} else if v, valid := d.WholeIn(a, catalog.PartitionConcurrencyRange,
		"To let a key's tasks run without a per-key limit, remove the partition block."); valid {
		p.Concurrency = v
	} else {
		ok = false
	}
	if a := attrs["by"]; a != nil {
		v, valid := d.Str(a, "partition.by")
		field, hasPrefix := strings.CutPrefix(v, catalog.PartitionByPrefix)
		switch {
		case !valid:
			ok = false
		case !hasPrefix || !catalog.ValidPartitionField(field):
			d.Errorf(a.Expr.Range(), "Invalid partition field",
				"by names the top-level payload field a task's partition key is read from, written %q followed by the field's name (by = \"payload.tenant_id\"); got %q. Nested fields are not supported: without by, every enqueue gives the key (partition_key).",
				catalog.PartitionByPrefix, v)
			ok = false
		default:
			p.By = field
		}
	}
	if !ok {
		return nil
	}
	return p
}
