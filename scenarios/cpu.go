package scenarios

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuTimes is a reading of the host's CPU counters (/proc/stat, Linux).
type cpuTimes struct {
	ok          bool
	busy, total uint64
}

func hostCPU() cpuTimes {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuTimes{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return cpuTimes{}
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return cpuTimes{}
	}
	var t cpuTimes
	for i, s := range fields[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTimes{}
		}
		if i >= 8 { // guest and guest_nice are already counted in user
			break
		}
		t.total += v
		if i != 3 && i != 4 { // idle, iowait
			t.busy += v
		}
	}
	t.ok = true
	return t
}

// busySince returns the fraction of CPU time busy between t and later, or
// -1 when unknown.
func (t cpuTimes) busySince(later cpuTimes) float64 {
	if !t.ok || !later.ok || later.total <= t.total {
		return -1
	}
	return float64(later.busy-t.busy) / float64(later.total-t.total)
}

// cpuModel returns the CPU's model name (Linux), or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// procTicks returns a process's user+system CPU time in clock ticks and its
// parent's pid, from /proc/<pid>/stat.
func procTicks(pid string) (ticks uint64, ppid string, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, "", false
	}
	// The command name is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, "", false
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, "", false
	}
	return utime + stime, f[1], true
}

// serverTicks returns the CPU ticks of a postmaster and all its children.
func serverTicks(postmaster string) (uint64, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var total uint64
	found := false
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		t, ppid, ok := procTicks(pid)
		if ok && (pid == postmaster || ppid == postmaster) {
			total += t
			found = true
		}
	}
	return total, found
}

// cpuSplit is a reading of where the host's CPU time went, in clock ticks:
// all CPUs, this process, and the PostgreSQL server when it runs on this
// host (Linux only).
type cpuSplit struct {
	host         cpuTimes
	self, server uint64
	serverOK     bool
}

func sampleCPU(postmaster string) cpuSplit {
	c := cpuSplit{host: hostCPU()}
	c.self, _, _ = procTicks("self")
	if postmaster != "" {
		c.server, c.serverOK = serverTicks(postmaster)
	}
	return c
}

// shares returns the fractions of all CPUs' time between c and later used by
// the server and by everything else but this process and the server; -1
// when unknown.
func (c cpuSplit) shares(later cpuSplit) (server, other float64) {
	server, other = -1, -1
	if !c.host.ok || !later.host.ok || later.host.total <= c.host.total || !c.serverOK || !later.serverOK {
		return server, other
	}
	total := float64(later.host.total - c.host.total)
	busy := float64(later.host.busy - c.host.busy)
	srv := float64(later.server) - float64(c.server)
	self := float64(later.self) - float64(c.self)
	server = max(srv, 0) / total
	other = max(busy-srv-self, 0) / total
	return server, other
}
