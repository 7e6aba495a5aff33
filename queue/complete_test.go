package queue

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// The completer's tests run without a database: its one database call is
// a fake that records each call and answers as the case says.

// completion is one call of the fake completeFunc.
type completion struct {
	ids  []int64
	take bool
}

// answer is the fake's answer to its n-th call (from 0).
type answer func(n int, ids []int64, take bool) (accepted int, taken []*Task, err error)

// acceptAll completes every task and takes none over.
func acceptAll(_ int, ids []int64, _ bool) (int, []*Task, error) { return len(ids), nil, nil }

// failFirst fails the first call with err, then accepts all.
func failFirst(err error) answer {
	return func(n int, ids []int64, take bool) (int, []*Task, error) {
		if n == 0 {
			return 0, nil, err
		}
		return acceptAll(n, ids, take)
	}
}

// retrying is the log line of a failed completion of n tasks.
func retrying(n int, err error) string {
	return fmt.Sprintf(`level=WARN msg="completing tasks failed; retrying" worker=w1 tasks=%d error=%q`, n, err.Error())
}

var (
	serverError = &pgconn.PgError{Severity: "ERROR", Code: "40P01", Message: "deadlock detected"}
	lostReply   = io.ErrUnexpectedEOF // the request was sent, no answer came
)

// completerRig is a completer wired to fakes that record what it does.
type completerRig struct {
	c *completer

	mu      sync.Mutex
	calls   []completion
	handed  []int64 // ids of the tasks handed off, in order
	obs     []string
	callc   chan struct{} // signalled at each call
	lost    int           // calls of lost
	flushed int           // calls of flushed
	log     bytes.Buffer  // written by the logger, read after stop
	idle    atomic.Bool   // what the session's nothingRunning reports
}

func newCompleterRig(flushSize int, flushInterval time.Duration, answer answer) *completerRig {
	r := &completerRig{callc: make(chan struct{}, 100)}
	r.c = newCompleter(completerConfig{
		id:             "w1",
		bg:             context.Background(),
		flushInterval:  flushInterval,
		flushSize:      func() int { return flushSize },
		nothingRunning: func() bool { return r.idle.Load() },
		complete: func(_ context.Context, ids []int64, _ []*Task, take bool) (completeResult, error) {
			r.mu.Lock()
			n := len(r.calls)
			r.calls = append(r.calls, completion{ids: slices.Clone(ids), take: take})
			r.mu.Unlock()
			r.callc <- struct{}{}
			accepted, taken, err := answer(n, ids, take)
			return completeResult{accepted: accepted, taken: taken}, err
		},
		handOff: func(tasks []*Task) {
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, t := range tasks {
				r.handed = append(r.handed, t.ID)
			}
		},
		lost:    func() { r.count(&r.lost) },
		flushed: func(bool) { r.count(&r.flushed) },
		obs:     &recordingObserver{rig: r},
		log:     slog.New(slog.NewTextHandler(&r.log, &slog.HandlerOptions{ReplaceAttr: dropTime})),
	})
	r.c.start()
	return r
}

// dropTime removes the time from log lines.
func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

func (r *completerRig) count(n *int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	(*n)++
}

// add adds finished tasks as a handler does (finish).
func (r *completerRig) add(holdsUnit, urgent bool, ids ...int64) {
	for _, id := range ids {
		if r.c.add(id, holdsUnit, false, urgent) {
			r.c.flushSoon()
		}
	}
}

// waitCalls waits until the fake was called n times in all (the n-th call
// may still be running).
func (r *completerRig) waitCalls(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		r.mu.Lock()
		got := len(r.calls)
		r.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-r.callc:
		case <-deadline:
			t.Fatalf("the completer made %d calls, want %d", got, n)
		}
	}
}

// recordingObserver records the completer's events.
type recordingObserver struct {
	NopObserver
	rig *completerRig
}

func (o *recordingObserver) record(format string, args ...any) {
	o.rig.mu.Lock()
	defer o.rig.mu.Unlock()
	o.rig.obs = append(o.rig.obs, fmt.Sprintf(format, args...))
}

func (o *recordingObserver) Completed(n, accepted int, _ time.Duration, err error) {
	if err != nil {
		o.record("completed %d failed", n)
		return
	}
	o.record("completed %d accepted %d", n, accepted)
}

func (o *recordingObserver) HandedOff(n int) { o.record("handed off %d", n) }

func (o *recordingObserver) Received(tasks []*Task, handedOff bool) {
	o.record("received %d handed off %t", len(tasks), handedOff)
}

func TestCompleter(t *testing.T) {
	t.Parallel()
	require.False(t, outcomeUnknown(serverError))
	require.True(t, outcomeUnknown(lostReply))
	const hour = time.Hour
	failLater := make(chan struct{}) // the first call fails once closed
	for _, tt := range []struct {
		name          string
		flushSize     int
		flushInterval time.Duration
		answer        answer
		// steps adds finished tasks; the completer is stopped after them.
		steps       func(t *testing.T, r *completerRig)
		wantCalls   []completion
		wantHanded  []int64
		wantObs     []string
		wantLost    int
		wantFlushed int
		// wantPending is the backlog after stop.
		wantPending int
		// wantLog has the log's lines, in order.
		wantLog []string
	}{
		{
			name:      "flush on size: a call as soon as FlushSize tasks are waiting",
			flushSize: 3, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1, 2)
				r.add(false, false, 3)
				r.waitCalls(t, 1)
			},
			wantCalls:   []completion{{ids: []int64{1, 2, 3}}},
			wantObs:     []string{"completed 3 accepted 3"},
			wantFlushed: 1,
		},
		{
			name:      "at most FlushSize tasks per call, the rest at shutdown",
			flushSize: 2, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1, 2, 3, 4, 5)
				r.waitCalls(t, 2)
			},
			wantCalls:   []completion{{ids: []int64{1, 2}}, {ids: []int64{3, 4}}, {ids: []int64{5}}},
			wantObs:     []string{"completed 2 accepted 2", "completed 2 accepted 2", "completed 1 accepted 1"},
			wantFlushed: 3,
		},
		{
			name:      "flush on timer: FlushInterval after the first finished task",
			flushSize: 100, flushInterval: 20 * time.Millisecond, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				start := time.Now()
				r.add(false, false, 1, 2)
				r.waitCalls(t, 1)
				require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
			},
			wantCalls:   []completion{{ids: []int64{1, 2}}},
			wantObs:     []string{"completed 2 accepted 2"},
			wantFlushed: 1,
		},
		{
			name:      "flush on shutdown: what is waiting is completed before stop returns",
			flushSize: 100, flushInterval: hour, answer: acceptAll,
			steps:       func(t *testing.T, r *completerRig) { r.add(false, false, 1, 2) },
			wantCalls:   []completion{{ids: []int64{1, 2}}},
			wantObs:     []string{"completed 2 accepted 2"},
			wantFlushed: 1,
		},
		{
			name:      "an urgent task is completed at once with what waits",
			flushSize: 100, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1)
				r.add(true, true, 2)
				r.waitCalls(t, 1)
			},
			wantCalls:   []completion{{ids: []int64{1, 2}, take: true}},
			wantObs:     []string{"completed 2 accepted 2"},
			wantFlushed: 1,
		},
		{
			name:      "tasks holding units: complete_and_take, and the tasks taken are handed off",
			flushSize: 2, flushInterval: hour,
			answer: func(_ int, ids []int64, take bool) (int, []*Task, error) {
				return len(ids), []*Task{{ID: 10, holdsUnit: true}, {ID: 11, holdsUnit: true}}, nil
			},
			steps: func(t *testing.T, r *completerRig) {
				r.add(true, false, 1)
				r.add(false, false, 2)
				r.waitCalls(t, 1)
			},
			wantCalls:   []completion{{ids: []int64{1, 2}, take: true}},
			wantHanded:  []int64{10, 11},
			wantObs:     []string{"completed 2 accepted 2", "handed off 2", "received 2 handed off true"},
			wantFlushed: 1,
		},
		{
			// One limited type among many: the fetcher claims the tasks the
			// units pass to with its next batch.
			name:      "fewer than half of the call's tasks hold units: complete only",
			flushSize: 3, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1)
				r.add(true, false, 2)
				r.add(false, false, 3)
				r.waitCalls(t, 1)
			},
			wantCalls:   []completion{{ids: []int64{1, 2, 3}}},
			wantObs:     []string{"completed 3 accepted 3"},
			wantFlushed: 1,
		},
		{
			name:      "take only when the call's own tasks hold units",
			flushSize: 1, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1)
				r.waitCalls(t, 1)
				r.add(true, false, 2)
				r.waitCalls(t, 2)
			},
			wantCalls:   []completion{{ids: []int64{1}}, {ids: []int64{2}, take: true}},
			wantObs:     []string{"completed 1 accepted 1", "completed 1 accepted 1"},
			wantFlushed: 2,
		},
		{
			name:      "a closing completer completes only",
			flushSize: 100, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(true, false, 1, 2)
				r.c.stopTaking()
			},
			wantCalls:   []completion{{ids: []int64{1, 2}}},
			wantObs:     []string{"completed 2 accepted 2"},
			wantFlushed: 1,
		},
		{
			name:      "tasks no longer the worker's are logged",
			flushSize: 2, flushInterval: hour,
			answer:      func(int, []int64, bool) (int, []*Task, error) { return 1, nil, nil },
			steps:       func(t *testing.T, r *completerRig) { r.add(false, false, 1, 2) },
			wantCalls:   []completion{{ids: []int64{1, 2}}},
			wantObs:     []string{"completed 2 accepted 1"},
			wantFlushed: 1,
			wantLog: []string{
				`level=WARN msg="some completed tasks were no longer this worker's (recovered by the leader)" worker=w1 tasks=2 completed=1`,
			},
		},
		{
			name:      "a failed completion is retried with the same tasks",
			flushSize: 2, flushInterval: hour, answer: failFirst(serverError),
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1, 2)
				r.waitCalls(t, 2)
			},
			wantCalls:   []completion{{ids: []int64{1, 2}}, {ids: []int64{1, 2}}},
			wantObs:     []string{"completed 2 failed", "completed 2 accepted 2"},
			wantFlushed: 1,
			wantLog:     []string{retrying(2, serverError)},
		},
		{
			name:      "the tasks of a failed completion go first in the next",
			flushSize: 2, flushInterval: hour,
			answer: func(n int, ids []int64, take bool) (int, []*Task, error) {
				if n == 0 {
					<-failLater
					return 0, nil, serverError
				}
				return acceptAll(n, ids, take)
			},
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1, 2)
				r.waitCalls(t, 1)
				r.add(false, false, 3)
				close(failLater)
				r.waitCalls(t, 2)
			},
			wantCalls:   []completion{{ids: []int64{1, 2}}, {ids: []int64{1, 2}}, {ids: []int64{3}}},
			wantObs:     []string{"completed 2 failed", "completed 2 accepted 2", "completed 1 accepted 1"},
			wantFlushed: 2,
			wantLog:     []string{retrying(2, serverError)},
		},
		{
			name:      "a taking completion of unknown outcome ends the session, and is retried",
			flushSize: 1, flushInterval: hour, answer: failFirst(lostReply),
			steps: func(t *testing.T, r *completerRig) {
				r.add(true, false, 1)
				r.waitCalls(t, 2)
			},
			wantCalls:   []completion{{ids: []int64{1}, take: true}, {ids: []int64{1}}},
			wantObs:     []string{"completed 1 failed", "completed 1 accepted 1"},
			wantLost:    1,
			wantFlushed: 1,
			wantLog: []string{
				`level=ERROR msg="completing tasks failed after the request was sent; tasks may have been handed over unseen" worker=w1 error="unexpected EOF"`,
				retrying(1, lostReply),
			},
		},
		{
			name:      "a plain completion of unknown outcome is only retried",
			flushSize: 1, flushInterval: hour, answer: failFirst(lostReply),
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1)
				r.waitCalls(t, 2)
			},
			wantCalls:   []completion{{ids: []int64{1}}, {ids: []int64{1}}},
			wantObs:     []string{"completed 1 failed", "completed 1 accepted 1"},
			wantFlushed: 1,
			wantLog:     []string{retrying(1, lostReply)},
		},
		{
			name:      "shutdown gives up after three failed completions; the tasks stay in the backlog",
			flushSize: 100, flushInterval: hour,
			answer:      func(int, []int64, bool) (int, []*Task, error) { return 0, nil, serverError },
			steps:       func(t *testing.T, r *completerRig) { r.add(false, false, 1) },
			wantCalls:   []completion{{ids: []int64{1}}, {ids: []int64{1}}, {ids: []int64{1}}},
			wantObs:     []string{"completed 1 failed", "completed 1 failed", "completed 1 failed"},
			wantPending: 1,
			wantLog: []string{
				retrying(1, serverError),
				retrying(1, serverError),
				retrying(1, serverError),
			},
		},
		{
			name:      "a worker declared dead drops its finished tasks",
			flushSize: 100, flushInterval: hour, answer: acceptAll,
			steps: func(t *testing.T, r *completerRig) {
				r.add(false, false, 1, 2)
				r.c.drop()
				r.add(false, false, 3)
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newCompleterRig(tt.flushSize, tt.flushInterval, tt.answer)
			tt.steps(t, r)
			r.c.stop()
			require.Equal(t, tt.wantCalls, r.calls)
			require.Equal(t, tt.wantHanded, r.handed)
			require.Equal(t, tt.wantObs, r.obs)
			require.Equal(t, tt.wantLost, r.lost)
			require.Equal(t, tt.wantFlushed, r.flushed)
			require.Equal(t, tt.wantPending, r.c.pending())
			var lines []string
			for l := range bytes.Lines(r.log.Bytes()) {
				lines = append(lines, string(bytes.TrimSuffix(l, []byte("\n"))))
			}
			require.Equal(t, tt.wantLog, lines)
		})
	}
}

// add reports when the completer must be woken: on the first finished
// task, the FlushSize-th and an urgent one.
func TestCompleterAddWakes(t *testing.T) {
	t.Parallel()
	c := newCompleter(completerConfig{flushSize: func() int { return 3 }})
	for i, tt := range []struct {
		urgent bool
		want   bool
	}{
		{false, true},  // the first
		{false, false}, // the second
		{false, true},  // the FlushSize-th
		{false, false}, // the fourth
		{true, true},   // urgent
	} {
		require.Equal(t, tt.want, c.add(int64(i+1), false, false, tt.urgent), "task %d", i+1)
	}
}

// The backlog counts finished tasks until their completion returns; the
// fetcher waits on it.
func TestCompleterBacklog(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	r := newCompleterRig(2, time.Hour, func(n int, ids []int64, take bool) (int, []*Task, error) {
		<-release
		return acceptAll(n, ids, take)
	})
	r.add(false, false, 1, 2, 3)
	r.waitCalls(t, 1)
	require.Equal(t, 3, r.c.pending(), "two in the call, one waiting")
	close(release)
	r.c.stop()
	require.Equal(t, 0, r.c.pending())
}

// Two completions run at once only where they take tasks over (most of
// their tasks hold units); else one at a time.
func TestCompleterCallsInFlight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// holders of the five finished tasks, in the order they finish
		holders []bool
		want    int
	}{
		{"all hold units", []bool{true, true, true, true, true}, 2},
		{"none holds a unit", []bool{false, false, false, false, false}, 1},
		// One limited type among many: the rare limited task does not
		// split the batches.
		{"one of five holds a unit", []bool{false, false, false, false, true}, 1},
		{"most hold units", []bool{false, true, true, true, false}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			var mu sync.Mutex
			inFlight, most := 0, 0
			r := newCompleterRig(1, time.Hour, func(n int, ids []int64, take bool) (int, []*Task, error) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				mu.Unlock()
				<-release
				mu.Lock()
				inFlight--
				mu.Unlock()
				return acceptAll(n, ids, take)
			})
			r.c.mu.Lock() // the five finish before the completer looks
			for i, holds := range tc.holders {
				r.c.done = append(r.c.done, int64(i+1))
				if holds {
					r.c.holding[int64(i+1)] = false
				}
				r.c.backlog++
			}
			r.c.firstDone = time.Now()
			r.c.mu.Unlock()
			r.c.flushSoon()
			r.waitCalls(t, tc.want)
			time.Sleep(50 * time.Millisecond) // a call too many would start meanwhile
			mu.Lock()
			require.Equal(t, tc.want, most)
			mu.Unlock()
			close(release)
			r.c.stop()
			require.Len(t, r.calls, len(tc.holders))
		})
	}
}

// A session's finished tasks are completed at once, not a flush interval
// later, when the session runs and queues nothing else: no task would join
// them. A second call may then start beside one in flight (completers).
func TestCompleterFlushesAnIdleSessionAtOnce(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	r := newCompleterRig(100, time.Hour, func(n int, ids []int64, take bool) (int, []*Task, error) {
		if n == 0 {
			<-release // the first call stays in flight until released
		}
		return acceptAll(n, ids, take)
	})
	r.add(true, false, 1, 2)
	time.Sleep(20 * time.Millisecond)
	r.mu.Lock()
	require.Empty(t, r.calls, "a busy session's tasks were completed before the interval")
	r.mu.Unlock()

	r.idle.Store(true)
	r.c.flushSoon() // as the session's last finished task wakes it
	r.waitCalls(t, 1)
	r.add(true, false, 3)
	r.waitCalls(t, 2) // beside the first, still in flight
	close(release)
	r.c.stop()
	require.Equal(t, []completion{{ids: []int64{1, 2}, take: true}, {ids: []int64{3}, take: true}}, r.calls)
}

// An idle session's batch of unit holders smaller than FlushSize goes out
// as two calls when no other is in flight: the units come back as two
// cohorts, completed by two server processes at once. Not when the batch
// is full, mostly unlimited or too small to halve, or the session runs
// other tasks.
func TestCompleterSplitsAnIdleSessionsBatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		holds  bool
		handed bool // the tasks came by a hand-off
		idle   bool
		want   []int // sizes of the calls
	}{
		{"40 holders, idle", 40, true, false, true, []int{20, 20}},
		{"41 holders, idle", 41, true, false, true, []int{21, 20}},
		{"40 unlimited, idle", 40, false, false, true, []int{40}},
		{"31 holders, idle: too few to halve", 31, true, false, true, []int{31}},
		{"100 holders claimed, idle: a full batch", 100, true, false, true, []int{100}},
		{"100 holders handed off, idle: a full cohort", 100, true, true, true, []int{50, 50}},
		{"150 holders claimed, idle: more than a batch", 150, true, false, true, []int{100, 50}},
		{"150 holders handed off, idle: more than a batch", 150, true, true, true, []int{50, 100}},
		{"40 holders, others running", 40, true, false, false, []int{40}},
		{"100 holders handed off, others running", 100, true, true, false, []int{100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newCompleterRig(100, time.Hour, acceptAll)
			r.idle.Store(tc.idle)
			r.c.mu.Lock() // the batch finishes before the completer looks
			for i := range tc.n {
				id := int64(i + 1)
				r.c.done = append(r.c.done, id)
				if tc.holds {
					r.c.holding[id] = tc.handed
				}
				r.c.backlog++
			}
			r.c.firstDone = time.Now()
			r.c.mu.Unlock()
			if tc.idle || tc.n >= 100 {
				r.c.flushSoon()
				r.waitCalls(t, len(tc.want))
			}
			r.c.stop() // a busy session's batch goes at shutdown
			var got []int
			for _, c := range r.calls {
				got = append(got, len(c.ids))
			}
			// (Two calls in flight may reach the fake in either order.)
			require.ElementsMatch(t, tc.want, got)
		})
	}
}

func TestKeptUnits(t *testing.T) {
	for _, tt := range []struct {
		name                              string
		started, reserved, holders, taken int
		tookOver                          bool
		want                              bool
	}{
		{name: "unlimited tasks, plain complete", want: false},
		{name: "holders, plain complete (their units opened tasks)", holders: 4, want: false},
		{name: "every unit taken over", tookOver: true, holders: 4, taken: 4, want: true},
		{name: "some units left to their groups", tookOver: true, holders: 4, taken: 3, want: false},
		{name: "a take of no holders", tookOver: true, want: false},
		{name: "successors started", started: 2, holders: 2, want: true},
		{name: "successors reserved", reserved: 1, tookOver: true, holders: 4, want: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, keptUnits(tt.started, tt.reserved, tt.tookOver, tt.holders, tt.taken))
		})
	}
}
