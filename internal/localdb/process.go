package localdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// orphanTimeout bounds the wait for the backends of a killed server to exit.
const orphanTimeout = 30 * time.Second

// postmasterPID returns the process id recorded in <data>/postmaster.pid.
func (db *DB) postmasterPID() (int, bool) {
	b, err := os.ReadFile(filepath.Join(db.dataDir(), "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// runningPID returns the process id of the server running on the data
// directory, or 0 when none is.
func (db *DB) runningPID() int {
	pid, ok := db.postmasterPID()
	if !ok || !usesDir(pid, db.dataDir()) {
		return 0
	}
	return pid
}

// hasProc reports whether /proc describes processes (Linux).
func hasProc() bool {
	_, err := os.Stat("/proc/self/cwd")
	return err == nil
}

// usesDir reports whether process pid is alive and works in dir, as every
// PostgreSQL server process does in its data directory. On Linux this tells
// a live server from a zombie or an unrelated process that reuses the pid
// of a server that died (after a crash or a machine restart). Elsewhere it
// only tells whether the process exists.
func usesDir(pid int, dir string) bool {
	if !hasProc() {
		err := syscall.Kill(pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if errors.Is(err, fs.ErrPermission) {
		err := syscall.Kill(pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	return err == nil && sameFile(cwd, dir)
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// clearStaleLocks prepares a start after a server died without cleaning up
// (SIGKILL, crash, machine restart). It waits for orphaned backends of the
// dead server to exit, so two servers never share the data directory. Then,
// if the pid in postmaster.pid now belongs to another process (a zombie, or
// a pid reused after a restart), PostgreSQL would refuse to start ("lock file
// already exists"), so it removes that lock file and the socket's.
// PostgreSQL itself handles a pid that no longer exists.
func (db *DB) clearStaleLocks(ctx context.Context) error {
	pid, ok := db.postmasterPID()
	if !ok {
		return nil
	}
	if err := db.waitForOrphans(ctx); err != nil {
		return err
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return nil // no such process: PostgreSQL cleans up by itself
	}
	for _, p := range []string{
		filepath.Join(db.dataDir(), "postmaster.pid"),
		filepath.Join(db.socketDir, fmt.Sprintf(".s.PGSQL.%d.lock", port)),
		filepath.Join(db.socketDir, fmt.Sprintf(".s.PGSQL.%d", port)),
	} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing stale lock: %w", err)
		}
	}
	return nil
}

// waitForOrphans waits until no process works in the data directory.
// Backends notice the death of their server and exit within moments.
// Without /proc there is no way to look; PostgreSQL's own shared memory
// check then guards the start.
func (db *DB) waitForOrphans(ctx context.Context) error {
	if !hasProc() {
		return nil
	}
	deadline := time.Now().Add(orphanTimeout)
	for {
		pids := processesIn(db.dataDir())
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still use %s although its server is gone: stop them first", pids, db.dataDir())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// processesIn lists the processes whose working directory is dir.
func processesIn(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && sameFile(cwd, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}
