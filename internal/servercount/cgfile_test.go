package servercount

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/pgseqtest/golden"
)

// Cachegrind output files read into their summary and their functions,
// named and summed as cg_annotate does (the figures below are those of
// valgrind 3.19's cg_annotate for the same files, but compressed.cg's:
// it does not expand callgrind's compressed names).
func TestReadCachegrindFunctions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file         string
		instructions uint64
		functions    int               // how many
		some         map[string]uint64 // some of them
	}{{
		// A function under two fl= lines of one file sums; another file's
		// function is named by that file.
		file: "two-files.cg", instructions: 1300, functions: 3,
		some: map[string]uint64{
			"???:ExecScan":         1040,
			"???:heap_getnextslot": 250,
			"./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:memcpy@GLIBC_2.2.5": 10,
		},
	}, {
		// Ir among other events, "." and missing counts.
		file: "events.cg", instructions: 65, functions: 3,
		some: map[string]uint64{
			"bufmgr.c:ReadBuffer_common": 50,
			"bufmgr.c:PinBuffer":         0,
			"lwlock.c:LWLockAcquire":     15,
		},
	}, {
		// Callgrind's compressed names; "(below main)" is a name.
		file: "compressed.cg", instructions: 185, functions: 3,
		some: map[string]uint64{
			"???:ExecAgg":             120,
			"???:(below main)":        5,
			"nodeHash.c:ExecHashJoin": 60,
		},
	}, {
		// Captured: valgrind --tool=cachegrind --cache-sim=no
		// /usr/lib/postgresql/15/bin/postgres --describe-config (Debian's
		// PostgreSQL 15; glibc's debugging symbols name its files, the
		// stripped postgres's read ???).
		file: "postgres-describe-config.cg", instructions: 22_753_350, functions: 612,
		some: map[string]uint64{
			"./elf/./elf/dl-lookup.c:do_lookup_x":                        11_703_423,
			"./elf/../sysdeps/generic/dl-new-hash.h:_dl_lookup_symbol_x": 1_748_946,
			"./elf/./elf/dl-lookup.c:_dl_lookup_symbol_x":                1_157_388,
			"???:???": 805_348,
		},
	}} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			cg, err := readCachegrind(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			require.Equal(t, tc.instructions, cg.instructions)
			require.Len(t, cg.functions, tc.functions)
			for name, n := range tc.some {
				require.Contains(t, cg.functions, name)
				require.Equal(t, n, cg.functions[name], name)
			}
			var sum uint64
			for _, n := range cg.functions {
				sum += n
			}
			require.Equal(t, cg.instructions, sum, "the functions sum to the summary")
		})
	}
}

// What is not a cachegrind output file, or not one read right, is an
// error that says where.
func TestReadCachegrindErrors(t *testing.T) {
	t.Parallel()
	const header = "desc: I1 cache: 32768 B\ncmd: postgres\nevents: Ir\n"
	for _, tc := range []struct {
		name, text, err string
	}{
		{"no events line", "desc: x\ncmd: postgres\nfl=???\n", `line 3: "fl=???" before the events: line`},
		{"empty", "", "no events: line"},
		{"no Ir", "cmd: postgres\nevents: Dr Dw\n", `line 2: events "Dr Dw" do not count instructions (Ir)`},
		{"no summary", header + "fl=???\nfn=main\n0 5\n", "no summary line"},
		{"summary without counts", header + "summary:\n", `line 4: "summary:" has no count of instructions`},
		{"summary not the sum", header + "fl=???\nfn=main\n0 5\nsummary: 6\n", "its functions' instructions sum to 5, its summary says 6"},
		{"cost before a function", header + "12 5\nsummary: 5\n", "line 4: a cost line before any fl= or fn= line"},
		{"too many counts", header + "fl=???\nfn=main\n12 5 6\n", `line 6: cost line "12 5 6": 2 counts for 1 events`},
		{"not a count", header + "fl=???\nfn=main\n12 x5\n", `line 6: cost line "12 x5": strconv.ParseUint`},
		{"a callgrind call", header + "fl=???\nfn=main\ncalls=2 10\n", `line 6: "calls=2 10" is not a line of a cachegrind output file`},
		{"a relative position", header + "fl=???\nfn=main\n+3 5\n", `line 6: "+3 5" is not a line`},
		{"an undefined compressed name", header + "fl=(1)\n", "line 4: compressed name (1) used before it was defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseCachegrind(strings.NewReader(tc.text))
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// Collecting sums the processes' files: their summaries, their processes
// and each function over all of them; the functions still sum to the
// summaries.
func TestCountAddsProcesses(t *testing.T) {
	t.Parallel()
	var c Count
	for _, f := range []string{"two-files.cg", "compressed.cg", "two-files.cg"} {
		cg, err := readCachegrind(filepath.Join("testdata", f))
		require.NoError(t, err)
		c.add(cg)
	}
	require.Equal(t, uint64(1300+185+1300), c.Instructions)
	require.Equal(t, 3, c.Processes)
	require.Equal(t, []Function{
		{"???:ExecScan", 2080},
		{"???:heap_getnextslot", 500},
		{"???:ExecAgg", 120},
		{"nodeHash.c:ExecHashJoin", 60},
		{"./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:memcpy@GLIBC_2.2.5", 20},
		{"???:(below main)", 5},
	}, c.Sorted())
}

// The TSV beside each round: the functions of at least 0.01% of the
// total, most first, ties by name, and the rest as "(other)", summing to
// the total.
func TestWriteFunctionsTSV(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		count Count
		want  string
	}{{
		name: "ties by name, no other",
		count: Count{Instructions: 30, Processes: 1,
			Functions: map[string]uint64{"???:b": 10, "???:a": 10, "???:c\tx": 10}},
		want: "function\tinstructions\n???:a\t10\n???:b\t10\n???:c x\t10\n",
	}, {
		name: "below 0.01% is other",
		count: Count{Instructions: 1_000_000, Processes: 2,
			Functions: map[string]uint64{"???:ExecScan": 999_800, "???:small": 99, "???:smaller": 1, "???:edge": 100}},
		want: "function\tinstructions\n???:ExecScan\t999800\n???:edge\t100\n(other)\t100\n",
	}, {
		name:  "nothing counted",
		count: Count{},
		want:  "function\tinstructions\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			require.NoError(t, WriteFunctionsTSV(&b, tc.count))
			require.Equal(t, tc.want, b.String())
		})
	}

	// The captured file's, in full.
	cg, err := readCachegrind(filepath.Join("testdata", "postgres-describe-config.cg"))
	require.NoError(t, err)
	var c Count
	c.add(cg)
	var b bytes.Buffer
	require.NoError(t, WriteFunctionsTSV(&b, c))
	golden.Check(t, filepath.Join("testdata", "postgres-describe-config.tsv"), b.String())
}
