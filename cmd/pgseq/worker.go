package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/inspect"
	"github.com/pgseq/pgseq/internal/textfmt"
	"github.com/pgseq/pgseq/metrics"
	"github.com/pgseq/pgseq/queue"
)

func (a *app) workerCommand() *cobra.Command {
	var (
		queueName   string
		poolSize    int
		batchSize   int
		workerID    string
		metricsAddr string
		sleep       time.Duration
		execLog     string
		pollOnly    bool
	)
	cmd := &cobra.Command{
		Use:   "worker [--queue NAME] [--pool-size N] [--batch-size N] [--metrics-addr ADDR] [--handler-sleep D] [--exec-log FILE] [--poll-only]",
		Short: "Run a demo worker with no-op handlers on a queue",
		Long: `Runs a queue worker whose handlers do nothing, one for every task type
declared on the queue, and prints a line per second with its throughput.
For trying things out: enqueue tasks, watch them drain, apply a new
configuration and see the worker pick it up. Ctrl-C stops it gracefully
(unfinished tasks are handed back).

Task types declared after the worker started have no handler here and fail;
restart the worker to pick them up.

--metrics-addr serves the worker's Prometheus metrics (tasks claimed,
completed and failed, handler and round-trip latencies, tasks in flight, slot
usage against each limit) at http://ADDR/metrics while it runs;
docs/metrics.md lists them.

--handler-sleep makes every handler take that long, as if it did work (a
limit then binds). --exec-log appends a line to FILE when a handler starts
and when it ends ("start|end TASK_ID UNIX_NANOS"): the crash tests check
from it that no task ran twice at the same time.`,
		Example: `  pgseq worker --queue default --pool-size 20
  pgseq worker --metrics-addr :9090            # every interface, port 9090
  pgseq worker --metrics-addr 127.0.0.1:9090   # this machine only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if poolSize < 1 {
				return fmt.Errorf("--pool-size must be at least 1, got %d", poolSize)
			}
			if sleep < 0 {
				return fmt.Errorf("--handler-sleep must not be negative, got %s", sleep)
			}
			if batchSize < 0 || batchSize > 10000 {
				return fmt.Errorf("--batch-size must be from 1 to 10000 (0: the queue's batch_size), got %d", batchSize)
			}
			ctx := cmd.Context()
			// Listen first: a bad or busy address fails before anything
			// touches the database.
			var (
				reg *prometheus.Registry
				srv *metrics.Server
			)
			if metricsAddr != "" {
				reg = prometheus.NewRegistry()
				reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
				var err error
				if srv, err = metrics.Listen(metricsAddr, reg); err != nil {
					return fmt.Errorf("--metrics-addr %q: %w", metricsAddr, err)
				}
				defer srv.Shutdown(context.WithoutCancel(ctx)) //nolint:errcheck // stopped below; this is for early returns
			}
			pool, err := a.connect(ctx, "pgseq worker")
			if err != nil {
				return err
			}
			defer pool.Close()

			if err := checkQueue(ctx, pool, a.schema, queueName); err != nil {
				return err
			}
			types, err := queue.NewClient(pool, a.schema).TaskTypes(ctx, queueName)
			if err != nil {
				return err
			}
			var logFile *os.File
			if execLog != "" {
				if logFile, err = os.OpenFile(execLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
					return fmt.Errorf("--exec-log: %w", err)
				}
				defer logFile.Close()
			}
			handlers := make(map[string]queue.Handler, len(types))
			for _, t := range types {
				handlers[t] = demoHandler(sleep, logFile)
			}
			stats := &workerStats{Observer: queue.NopObserver{}}
			if reg != nil {
				obs, err := metrics.New(reg, metrics.Options{Pool: pool, Schema: a.schema})
				if err != nil {
					return err
				}
				stats.Observer = obs
			}
			w, err := queue.NewWorker(queue.Config{
				Pool: pool, Schema: a.schema, Queue: queueName, WorkerID: workerID,
				PoolSize: poolSize, BatchSize: batchSize, Handlers: handlers,
				Observer: stats, Version: version(), PollOnly: pollOnly,
				Logger: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Worker %s on queue %q of schema %q: %s with no-op handlers, pool size %d. Ctrl-C stops.\n",
				w.ID(), queueName, a.schema, textfmt.Plural(len(types), "task type"), poolSize)
			if len(types) == 0 {
				fmt.Fprintf(a.stdout, "Queue %q has no task types yet: declare some and apply, then restart the worker.\n", queueName)
			}
			if srv != nil {
				fmt.Fprintf(a.stdout, "Metrics at %s\n", srv.URL())
			}

			var wg sync.WaitGroup
			printCtx, stopPrinting := context.WithCancel(context.WithoutCancel(ctx))
			wg.Go(func() { stats.print(printCtx, a, w) })
			err = w.Run(ctx)
			stopPrinting()
			wg.Wait()
			if srv != nil {
				// After the worker: a last scrape sees its final counts.
				sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				serr := srv.Shutdown(sctx)
				cancel()
				if serr != nil && err == nil {
					err = fmt.Errorf("serving metrics: %w", serr)
				}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Stopped: %d completed, %d failed, %d handed back.\n",
				stats.completed.Load(), stats.failed.Load(), stats.released.Load())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&queueName, "queue", queue.DefaultQueue, "the queue to work")
	f.IntVar(&poolSize, "pool-size", queue.DefaultPoolSize, "handlers running at once")
	f.IntVar(&batchSize, "batch-size", 0, "tasks per claim (default: the queue's batch_size, reloaded on apply)")
	f.StringVar(&workerID, "worker-id", "", "the worker's id (default: hostname-pid-random)")
	f.StringVar(&metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics (host:port, e.g. :9090)")
	f.DurationVar(&sleep, "handler-sleep", 0, "how long each handler takes (simulated work)")
	f.StringVar(&execLog, "exec-log", "", "append a line per handler start and end to FILE (for crash tests)")
	f.BoolVar(&pollOnly, "poll-only", false, "open no LISTEN connection: follow applies every 10s and look for tasks every 250ms (behind a pooler in transaction mode)")
	return cmd
}

// demoHandler returns the demo worker's handler: it does nothing for sleep
// (returning early when its context ends) and, when log is not nil, appends
// "start TASK_ID UNIX_NANOS" before and "end TASK_ID UNIX_NANOS" after. Each
// line is one write to a file opened for appending, so the lines of
// concurrent handlers never mix.
func demoHandler(sleep time.Duration, log *os.File) queue.Handler {
	return func(ctx context.Context, t *queue.Task) (err error) {
		if log != nil {
			if _, err := fmt.Fprintf(log, "start %d %d\n", t.ID, time.Now().UnixNano()); err != nil {
				return fmt.Errorf("writing the execution log: %w", err)
			}
			defer func() {
				if _, lerr := fmt.Fprintf(log, "end %d %d\n", t.ID, time.Now().UnixNano()); lerr != nil && err == nil {
					err = fmt.Errorf("writing the execution log: %w", lerr)
				}
			}()
		}
		if sleep <= 0 {
			return nil
		}
		timer := time.NewTimer(sleep)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		}
	}
}

// workerStats counts a worker's events for the once-a-second line and passes
// every event on to Observer (the metrics, or NopObserver).
type workerStats struct {
	queue.Observer
	completed, failed, released atomic.Int64
	// received counts the tasks the worker got (claimed or handed over),
	// finished those it is done with (completed, accepted or not, failed,
	// handed back or abandoned): their difference is the tasks in flight.
	received, finished atomic.Int64
}

func (s *workerStats) Received(tasks []*queue.Task, handedOff bool) {
	s.received.Add(int64(len(tasks)))
	s.Observer.Received(tasks, handedOff)
}

func (s *workerStats) Handled(t *queue.Task, took time.Duration, err error, abandoned bool) {
	if abandoned {
		s.finished.Add(1)
	}
	s.Observer.Handled(t, took, err, abandoned)
}

func (s *workerStats) Completed(n, accepted int, latency time.Duration, err error) {
	s.completed.Add(int64(accepted))
	if err == nil {
		s.finished.Add(int64(n))
	}
	s.Observer.Completed(n, accepted, latency, err)
}

func (s *workerStats) Failed(t *queue.Task, status string, cause error, latency time.Duration) {
	s.failed.Add(1)
	s.finished.Add(1)
	s.Observer.Failed(t, status, cause, latency)
}

func (s *workerStats) Released(n int, latency time.Duration, err error) {
	if err == nil {
		s.released.Add(int64(n))
		s.finished.Add(int64(n))
	}
	s.Observer.Released(n, latency, err)
}

// print writes a line per second while tasks move, until ctx ends.
func (s *workerStats) print(ctx context.Context, a *app, w *queue.Worker) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	rate := newRateWindow(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			done, failed := s.completed.Load(), s.failed.Load()
			perSecond, ok := rate.tick(now, done, failed, s.inFlight())
			if !ok {
				continue
			}
			fmt.Fprintf(a.stdout, "%s  %8.1f tasks/s  completed %d  failed %d  batch %d  worker %s\n",
				now.Format("15:04:05"), perSecond, done, failed, w.Settings().BatchSize, w.ID())
		}
	}
}

// inFlight is the number of tasks received and not yet finished: queued
// for a handler, running, or waiting for their batched completion.
func (s *workerStats) inFlight() int64 {
	return s.received.Load() - s.finished.Load()
}

// rateWindow computes the completion rate the worker prints: tasks
// completed per second of the time since the last line printed. A second
// in which nothing finished still counts while tasks were in flight (four
// handlers that sleep 4s complete 1 task/s, not 4 in the second they
// finish), but not while the worker was idle, which would dilute the rate
// of the next burst.
type rateWindow struct {
	since              time.Time
	lastDone, lastFail int64
}

func newRateWindow(start time.Time) *rateWindow { return &rateWindow{since: start} }

// tick takes the counts at now and the tasks in flight; it returns the
// rate and true when a line is due (a task completed or failed since the
// last one).
func (r *rateWindow) tick(now time.Time, done, failed, inFlight int64) (float64, bool) {
	if done == r.lastDone && failed == r.lastFail {
		if inFlight <= 0 {
			r.since = now
		}
		return 0, false
	}
	rate := float64(done-r.lastDone) / now.Sub(r.since).Seconds()
	r.since, r.lastDone, r.lastFail = now, done, failed
	return rate, true
}

// checkQueue fails unless schema declares the queue name, naming the
// queues it declares; before the worker reads anything else of the queue.
func checkQueue(ctx context.Context, db inspect.Querier, schema, name string) error {
	names, err := inspect.QueueNames(ctx, db, schema)
	if err != nil {
		return err
	}
	if slices.Contains(names, name) {
		return nil
	}
	declared := "it declares no queue: apply a configuration first"
	if len(names) > 0 {
		declared = "it declares " + strings.Join(names, ", ") + "; declare the queue in a queue block and apply, or pass --queue"
	}
	return fmt.Errorf("%w %q: schema %q does not declare it (%s)", queue.ErrUnknownQueue, name, schema, declared)
}
