package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest"
	"github.com/pgseq/pgseq/queue"
)

// pgseq worker --metrics-addr serves the worker's metrics while it drains a
// limited type, and stops serving when the worker stops.
func TestWorkerServesMetrics(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("apply", "--auto-approve", writeConfig(t, "queue \"default\" {}\ntask \"render\" { concurrency = 3 }\ntask \"plain\" {}\n"))
	require.Equal(t, exitOK, r.code, r.stderr)
	const renders, plains = 40, 10
	var batch []queue.NewTask
	for i := range renders + plains {
		typ := "render"
		if i >= renders {
			typ = "plain"
		}
		batch = append(batch, queue.NewTask{Type: typ})
	}
	_, err := queue.NewClient(c.Pool, c.Schema).EnqueueBatch(context.Background(), batch)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr pgseqtest.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--database-url", c.url, "--schema", c.Schema,
			"worker", "--metrics-addr", "127.0.0.1:0", "--pool-size", "4"}, strings.NewReader(""), &stdout, &stderr)
	}()

	metricsURL := regexp.MustCompile(`Metrics at (http://127\.0\.0\.1:\d+/metrics)\n`)
	var url string
	require.Eventually(t, func() bool {
		if m := metricsURL.FindStringSubmatch(stdout.String()); m != nil {
			url = m[1]
			return true
		}
		return false
	}, 30*time.Second, 10*time.Millisecond, "no metrics line: %s%s", stdout.String(), stderr.String())

	completed := regexp.MustCompile(`(?m)^pgseq_tasks_completed_total\{queue="default",type="(\w+)"\} (\d+)$`)
	var page string
	require.Eventually(t, func() bool {
		page = scrapeMetrics(t, url)
		total := 0
		for _, m := range completed.FindAllStringSubmatch(page, -1) {
			n, _ := strconv.Atoi(m[2])
			total += n
		}
		return total == renders+plains
	}, 60*time.Second, 20*time.Millisecond, "not drained: %s", page)
	for _, want := range []string{
		`pgseq_tasks_completed_total{queue="default",type="render"} 40`,
		`pgseq_tasks_completed_total{queue="default",type="plain"} 10`,
		`pgseq_tasks_claimed_total{queue="default",type="render"} 40`,
		`pgseq_tasks_in_flight{queue="default",type="render"} 0`,
		`pgseq_slots_limit{queue="default",type="render"} 3`,
		`pgseq_handler_duration_seconds_count{queue="default",type="render"} 40`,
		`pgseq_claim_duration_seconds_count{queue="default"} `,
		`go_goroutines `,
	} {
		require.Contains(t, page, want)
	}

	cancel()
	select {
	case code := <-done:
		require.Equal(t, exitOK, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop")
	}
	require.Contains(t, stdout.String(), fmt.Sprintf("Stopped: %d completed, 0 failed", renders+plains))
	_, err = http.Get(url) //nolint:noctx // a test against a local server
	require.Error(t, err, "the metrics server stopped with the worker")
}

func scrapeMetrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test against a local server
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// A malformed or busy --metrics-addr fails before the worker starts: exit 1,
// a message naming the flag, nothing registered in the database.
func TestWorkerMetricsAddrErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("apply", "--auto-approve", writeConfig(t, limit10))
	require.Equal(t, exitOK, r.code, r.stderr)

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	for _, tc := range []struct{ addr, says string }{
		{"localhost", `Error: --metrics-addr "localhost": listen tcp: address localhost: missing port in address`},
		{"127.0.0.1:99999", `Error: --metrics-addr "127.0.0.1:99999": listen tcp: address 99999: invalid port`},
		{busy.Addr().String(), fmt.Sprintf(`Error: --metrics-addr %q: listen tcp %s: bind: address already in use`,
			busy.Addr().String(), busy.Addr().String())},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var out, errb bytes.Buffer
		code := run(ctx, []string{"--database-url", c.url, "--schema", c.Schema, "worker", "--metrics-addr", tc.addr},
			strings.NewReader(""), &out, &errb)
		cancel()
		require.Equal(t, exitError, code, tc.addr)
		require.Equal(t, tc.says+"\n", errb.String())
		require.Empty(t, out.String(), "the worker never started")
	}
	var workers int
	c.Scalar(&workers, `SELECT count(*) FROM {{schema}}.workers`)
	require.Zero(t, workers)
}
