package counter_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgseq/pgseq/catalog"
	"github.com/pgseq/pgseq/counter"
)

// FuzzResolveKey sends arbitrary keys to resolve_key on the real database,
// with counters of every kind declared: a standalone counter with a
// constant prefix, an attached counter whose scopes take their prefix from
// a column (bigint primary keys), and one on a table keyed by UUID. Every
// key resolves or is refused with one of the three documented errors —
// never another database error (a failed cast, an encoding error) and
// never a panic. What resolves names a number the counter gave.
//
// The seed corpus runs in the default test run. A longer session (each
// input is a database round trip, so expect a few hundred per second):
//
//	go test ./counter -run '^$' -fuzz '^FuzzResolveKey$' -fuzztime 10m
func FuzzResolveKey(f *testing.F) {
	e := newEnv(f)
	pool, app := e.Pool, e.app
	ctx := f.Context()
	e.Exec(`CREATE TABLE {{app}}.projects (id bigint PRIMARY KEY, key text NOT NULL UNIQUE)`)
	e.Exec(`CREATE TABLE {{app}}.tasks (id bigserial PRIMARY KEY, project_id bigint NOT NULL REFERENCES {{app}}.projects, index bigint)`)
	e.Exec(`CREATE TABLE {{app}}.docs (id uuid PRIMARY KEY, project_id bigint NOT NULL, index bigint)`)
	e.Exec(`INSERT INTO {{app}}.projects VALUES (1, 'PROJ'), (2, 'ENG'), (3, 'X1')`)

	tasks := catalog.Counter{Name: "task_index", Table: app + ".tasks", Column: "index", Scope: []string{"project_id"},
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyCounterTable,
		PrefixFrom: &catalog.PrefixSource{Table: app + ".projects", Column: "key"}}
	docs := catalog.Counter{Name: "doc_index", Table: app + ".docs", Column: "index", Scope: []string{"project_id"},
		Start: 1, LockTimeout: catalog.DefaultCounterLockTimeout, Strategy: catalog.StrategyAdvisoryLock}
	invoices := standalone("invoice_number", 100)
	invoices.Prefix = "INV"
	e.Apply(counters(tasks, docs, invoices))
	e.Exec(`INSERT INTO {{app}}.tasks (project_id) VALUES (1), (2), (2), (3)`)
	e.Exec(`INSERT INTO {{app}}.docs (id, project_id) VALUES ('4f8a9c2d-1e3b-4a7c-b5e1-9c8f2a1d0e3b', 1), ('d4f8a9c2-1e3b-4a7c-b5e1-9c8f2a1d0e3b', 1)`)
	c := e.c
	for range 3 {
		if _, err := c.NextValue(ctx, pool, "invoice_number", ""); err != nil {
			f.Fatalf("next_value: %v", err)
		}
	}

	for _, key := range []string{
		"ENG-2", " eng-02 ", "inv-101", "INV-0000000000000000000100", "PROJ-1", "x1-1", "X1-2", "1", "2", "4",
		"4f8a9c2d-1e3b-4a7c-b5e1-9c8f2a1d0e3b", "D4F8A9C2-1E3B-4A7C-B5E1-9C8F2A1D0E3B", "4f8a9c2d-1e3b-4a7c-b5e1-9c8f2a1d0e3",
		"", " ", "\t\n", "NOPE-1", "PROJ-12a", "PROJ-", "-1", "1-1", "PROJ--1", "PROJ-9223372036854775807",
		"PROJ-9223372036854775808", "PROJ-99999999999999999999", "999999", "-5", "1e3", "0x10", "1.5",
		"99999999999999999999", "ENG-2; DROP TABLE x", "'", `"`, `\`, "%", "ÉNG-2", "ENG-２", "a\x00b", "\xff\xfe",
		strings.Repeat("A", 70) + "-1", strings.Repeat("9", 5000),
	} {
		f.Add(key)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got, err := c.ResolveKey(ctx, pool, key)
		if err != nil {
			if !errors.Is(err, counter.ErrMalformedKey) && !errors.Is(err, counter.ErrUnknownPrefix) && !errors.Is(err, counter.ErrNotFound) {
				t.Fatalf("ResolveKey(%q): not a documented error: %v", key, err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatalf("ResolveKey(%q): no error and no result", key)
		}
		for _, r := range got {
			switch r.Counter {
			case "task_index", "doc_index":
				if r.RowID == "" || r.Number < 1 || r.Number > 3 {
					t.Fatalf("ResolveKey(%q) = %+v: not a numbered row", key, r)
				}
			case "invoice_number":
				if r.Number < 100 || r.Number > 102 || r.Scope != "" {
					t.Fatalf("ResolveKey(%q) = %+v: not a number the counter gave", key, r)
				}
			default:
				t.Fatalf("ResolveKey(%q) = %+v: unknown counter", key, r)
			}
		}
	})
}
