package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/pgseq/pgseq/queue"
	"github.com/pgseq/pgseq/render"
)

func (a *app) workerCommand() *cobra.Command {
	var (
		queueName string
		poolSize  int
		batchSize int
		workerID  string
	)
	cmd := &cobra.Command{
		Use:   "worker [--queue NAME] [--pool-size N] [--batch-size N]",
		Short: "Run a demo worker with no-op handlers on a queue",
		Long: `Runs a queue worker whose handlers do nothing, one for every task type
declared on the queue, and prints a line per second with its throughput.
For trying things out: enqueue tasks, watch them drain, apply a new
configuration and see the worker pick it up. Ctrl-C stops it gracefully
(unfinished tasks are handed back).

Task types declared after the worker started have no handler here and fail;
restart the worker to pick them up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if poolSize < 1 {
				return fmt.Errorf("--pool-size must be at least 1, got %d", poolSize)
			}
			if batchSize < 0 || batchSize > 10000 {
				return fmt.Errorf("--batch-size must be from 1 to 10000 (0: the queue's batch_size), got %d", batchSize)
			}
			ctx := cmd.Context()
			pool, err := a.connect(ctx, "pgseq worker")
			if err != nil {
				return err
			}
			defer pool.Close()

			types, err := queue.NewClient(pool, a.schema).TaskTypes(ctx, queueName)
			if err != nil {
				return err
			}
			handlers := make(map[string]queue.Handler, len(types))
			for _, t := range types {
				handlers[t] = func(context.Context, *queue.Task) error { return nil }
			}
			stats := &workerStats{}
			w, err := queue.NewWorker(queue.Config{
				Pool: pool, Schema: a.schema, Queue: queueName, WorkerID: workerID,
				PoolSize: poolSize, BatchSize: batchSize, Handlers: handlers,
				Observer: stats, Version: version(),
				Logger: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Worker %s on queue %q of schema %q: %s with no-op handlers, pool size %d. Ctrl-C stops.\n",
				w.ID(), queueName, a.schema, render.Plural(len(types), "task type"), poolSize)
			if len(types) == 0 {
				fmt.Fprintf(a.stdout, "Queue %q has no task types yet: declare some and apply, then restart the worker.\n", queueName)
			}

			var wg sync.WaitGroup
			printCtx, stopPrinting := context.WithCancel(context.WithoutCancel(ctx))
			wg.Go(func() { stats.print(printCtx, a, w) })
			err = w.Run(ctx)
			stopPrinting()
			wg.Wait()
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
	return cmd
}

// workerStats counts a worker's events for the once-a-second line.
type workerStats struct {
	queue.NopObserver
	claimed, completed, failed, released atomic.Int64
}

func (s *workerStats) Claimed(_, got int, _ time.Duration, _ error) { s.claimed.Add(int64(got)) }
func (s *workerStats) Completed(_, accepted int, _ time.Duration, _ error) {
	s.completed.Add(int64(accepted))
}
func (s *workerStats) Failed(*queue.Task, string, error, time.Duration) { s.failed.Add(1) }
func (s *workerStats) Released(n int, _ time.Duration, err error) {
	if err == nil {
		s.released.Add(int64(n))
	}
}

// print writes a line per second while tasks move, until ctx ends.
func (s *workerStats) print(ctx context.Context, a *app, w *queue.Worker) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var lastDone, lastFailed int64
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			done, failed := s.completed.Load(), s.failed.Load()
			elapsed := now.Sub(last)
			last = now
			if done == lastDone && failed == lastFailed {
				continue
			}
			rate := float64(done-lastDone) / elapsed.Seconds()
			fmt.Fprintf(a.stdout, "%s  %8.0f tasks/s  completed %d  failed %d  batch %d  worker %s\n",
				now.Format("15:04:05"), rate, done, failed, w.Settings().BatchSize, w.ID())
			lastDone, lastFailed = done, failed
		}
	}
}
