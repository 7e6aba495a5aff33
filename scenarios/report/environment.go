package report

import (
	"fmt"
	"strings"
)

// Environment describes where a benchmark ran.
type Environment struct {
	GoVersion  string `json:"go_version"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUModel   string `json:"cpu_model,omitempty"`
	// Postgres is the server's version string.
	Postgres string `json:"postgres"`
	// PostgresSettings are the server settings that decide durability and
	// write throughput.
	PostgresSettings map[string]string `json:"postgres_settings"`
}

// ReportedSettings are the server settings an Environment records: those
// that decide durability and write throughput.
var ReportedSettings = []string{
	"fsync", "synchronous_commit", "wal_sync_method", "full_page_writes", "wal_level",
	"shared_buffers", "max_wal_size", "checkpoint_timeout", "commit_delay", "max_connections",
}

// SettingsLine renders the recorded server settings in ReportedSettings'
// order: `fsync=on`, `synchronous_commit=on`, ….
func SettingsLine(m map[string]string) string {
	var parts []string
	for _, k := range ReportedSettings {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("`%s=%s`", k, v))
		}
	}
	return strings.Join(parts, ", ")
}

// FirstWords returns the first n words of s: "PostgreSQL 17.4" of a
// server's version string.
func FirstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}
