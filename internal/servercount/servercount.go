// Package servercount counts the instructions PostgreSQL executes for a
// client: it runs the server of a throw-away local database under
// valgrind's cachegrind, which writes the count of every server process
// when it exits, and sums the counts of the backends that served a
// workload once they are gone, in total and per function (the same
// files: cgfile.go reads them).
//
// Instruction counts do not depend on what else the machine is doing, so
// two builds compared by them differ by their own work, not by the
// machine's noise (a run's time on a shared 2-core machine varies by 10-20%;
// its instruction count by about 1%: results/gate-calibration/). They
// count the server only: the client's own work (the Go worker) is not in
// them.
package servercount

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgseq/pgseq/internal/localdb"
)

// Settings are the server settings of a counted cluster, on top of the
// local database's: nothing runs that no client asked for (autovacuum,
// parallel workers) and nothing is compiled at run time (JIT), so that a
// workload's count is the same from one run to the next.
var Settings = []string{
	"autovacuum = off                      # pgseq: a counted server runs only what clients ask",
	"max_parallel_workers_per_gather = 0",
	"jit = off",
}

// Server is a throw-away cluster whose server runs under cachegrind.
type Server struct {
	dir        string // holds the cluster and the counts; removed by Stop
	countDir   string // cachegrind's files: cg.<pid>, one per exited process
	db         *localdb.DB
	url        string
	postmaster int
	// own are the postmaster's own processes (checkpointer, writers,
	// launchers): they run until the server stops, and no client's work
	// is counted in them.
	own []int
}

// ErrNoValgrind says valgrind is not installed.
var ErrNoValgrind = errors.New("counting instructions runs PostgreSQL under valgrind's cachegrind, and valgrind was not found on PATH: install it (apt-get install valgrind)")

// Start creates a cluster under a new directory in os.TempDir() (where the
// server's user can write its counts), starts its server under cachegrind
// and waits until the server's own processes have settled. Stop removes
// it.
func Start(ctx context.Context) (*Server, error) {
	valgrind, err := exec.LookPath("valgrind")
	if err != nil {
		return nil, ErrNoValgrind
	}
	dir, err := os.MkdirTemp("", "pgseq-counted-")
	if err != nil {
		return nil, fmt.Errorf("creating the counted cluster's directory: %w", err)
	}
	s := &Server{dir: dir, countDir: filepath.Join(dir, "counts")}
	ok := false
	defer func() {
		if !ok {
			_ = s.Stop(context.WithoutCancel(ctx))
		}
	}()
	// The server's user (postgres when this runs as root) writes the
	// counts: the directory is open to it, the one above is not to others.
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, err
	}
	if err := os.Mkdir(s.countDir, 0o777); err != nil {
		return nil, err
	}
	if err := os.Chmod(s.countDir, 0o777); err != nil {
		return nil, err
	}
	s.db, err = localdb.NewWithOptions(filepath.Join(dir, "db"), localdb.Options{
		Wrapper: []string{valgrind, "--tool=cachegrind", "--cache-sim=no", "--quiet",
			"--cachegrind-out-file=" + filepath.Join(s.countDir, "cg.%p")},
		Settings: Settings,
	})
	if err != nil {
		return nil, err
	}
	if s.url, err = s.db.Start(ctx); err != nil {
		return nil, err
	}
	st, err := s.db.Status()
	if err != nil {
		return nil, err
	}
	s.postmaster = st.PID
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	// What ran so far (the startup process, Start's own connection) is
	// nobody's workload.
	if _, err := s.Collect(ctx); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// URL is the connection string of the cluster's pgseq database.
func (s *Server) URL() string { return s.url }

// Stop stops the server and removes the cluster.
func (s *Server) Stop(ctx context.Context) error {
	var err error
	if s.db != nil {
		err = s.db.Stop(ctx)
	}
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	return err
}

// settle waits until the postmaster's children have stayed the same for a
// second (they are then its own processes: Start's connection has gone)
// and records them.
func (s *Server) settle(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Minute)
	var last []int
	stableSince := time.Now()
	for {
		kids, err := children(s.postmaster)
		if err != nil {
			return err
		}
		if !slices.Equal(kids, last) {
			last, stableSince = kids, time.Now()
		}
		if time.Since(stableSince) >= time.Second {
			s.own = last
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the counted server's processes did not settle within 2 minutes (postmaster %d)", s.postmaster)
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// Count is what the server's processes executed.
type Count struct {
	// Instructions is the sum over Processes backends that exited: their
	// summary lines, the authoritative count.
	Instructions uint64
	Processes    int
	// Functions are the instructions of each function, summed over the
	// processes, named as cg_annotate names them: "file:function", with
	// "???" where the binary does not say (a stripped PostgreSQL's own
	// functions read "???:ExecScan"). They sum to Instructions. Nil when
	// no process was counted.
	Functions map[string]uint64
}

// Collect waits until every backend the server started since the last
// Collect has exited (their clients must have disconnected), then returns
// the sum of their counts. Each process is counted by one Collect only.
func (s *Server) Collect(ctx context.Context) (Count, error) {
	if err := s.waitForBackends(ctx); err != nil {
		return Count{}, err
	}
	entries, err := os.ReadDir(s.countDir)
	if err != nil {
		return Count{}, fmt.Errorf("reading the counts: %w", err)
	}
	var c Count
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), "cg.") {
			continue
		}
		path := filepath.Join(s.countDir, e.Name())
		cg, err := readCachegrind(path)
		if err != nil {
			return Count{}, err
		}
		// Counted once: a later process with the same pid writes a new file.
		if err := os.Remove(path); err != nil {
			return Count{}, err
		}
		c.add(cg)
	}
	return c, nil
}

// add counts one process's file in c.
func (c *Count) add(cg cgFile) {
	c.Instructions += cg.instructions
	c.Processes++
	if c.Functions == nil {
		c.Functions = make(map[string]uint64, len(cg.functions))
	}
	for name, n := range cg.functions {
		c.Functions[name] += n
	}
}

// Function is one function's instructions.
type Function struct {
	Name         string
	Instructions uint64
}

// Sorted returns c's functions, the most instructions first, ties by
// name.
func (c Count) Sorted() []Function {
	out := make([]Function, 0, len(c.Functions))
	for name, n := range c.Functions {
		out = append(out, Function{Name: name, Instructions: n})
	}
	slices.SortFunc(out, func(a, b Function) int {
		if a.Instructions != b.Instructions {
			return cmp.Compare(b.Instructions, a.Instructions)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// FunctionsTSVShare is the smallest share of the total a function has to
// have to get a line of its own in WriteFunctionsTSV: 0.01%, one part in
// 10,000.
const FunctionsTSVShare = 1.0 / 10_000

// WriteFunctionsTSV writes c's functions as tab-separated values: a header
// line ("function", "instructions"), then each function with at least
// FunctionsTSVShare of c.Instructions, the most first (ties by name), then
// a line "(other)" with the instructions of all the others, when they
// have some. Its counts sum to c.Instructions. (A drain's processes run a
// few thousand functions, most of them a handful of instructions: the
// lines of its own are the few hundred that matter.)
func WriteFunctionsTSV(w io.Writer, c Count) error {
	var b strings.Builder
	b.WriteString("function\tinstructions\n")
	var listed uint64
	for _, f := range c.Sorted() {
		if float64(f.Instructions) < FunctionsTSVShare*float64(c.Instructions) {
			break
		}
		// A name holds no newline (it is a line's end); a tab would shift
		// the columns.
		fmt.Fprintf(&b, "%s\t%d\n", strings.ReplaceAll(f.Name, "\t", " "), f.Instructions)
		listed += f.Instructions
	}
	if listed < c.Instructions {
		fmt.Fprintf(&b, "(other)\t%d\n", c.Instructions-listed)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// waitForBackends waits until the postmaster has no children but its own.
func (s *Server) waitForBackends(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		kids, err := children(s.postmaster)
		if err != nil {
			return err
		}
		var others []int
		for _, k := range kids {
			if !slices.Contains(s.own, k) {
				others = append(others, k)
			}
		}
		if len(others) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server processes %v still run 2 minutes after their clients should have disconnected", others)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// children returns the pids of pid's child processes, sorted.
func children(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var kids []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == pid {
			kids = append(kids, p)
		}
	}
	slices.Sort(kids)
	return kids, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
