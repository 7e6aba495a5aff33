package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// The fuzz targets run their seed corpora (testdata/fuzz/<target>, plus
// every .hcl file under testdata) in the default test run. A longer session:
//
//	go test ./spec -run '^$' -fuzz '^FuzzParse$' -fuzztime 10m
//	go test ./spec -run '^$' -fuzz '^FuzzFormat$' -fuzztime 10m
//
// An input the fuzzer finds failing is written to testdata/fuzz/<target>/
// and stays there as a regression test once fixed.

// addHCLSeeds adds every .hcl file under testdata to f's corpus.
func addHCLSeeds(f *testing.F) {
	f.Helper()
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".hcl") {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil {
			f.Add(b)
		}
		return err
	})
	if err != nil {
		f.Fatalf("reading the seed files: %v", err)
	}
}

// requireLocated fails unless every error in diags says where it is: a
// range in the file that was parsed, at line 1 or below.
func requireLocated(t *testing.T, diags hcl.Diagnostics, filename string) {
	t.Helper()
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject == nil {
			t.Fatalf("diagnostic without a location: %s: %s", d.Summary, d.Detail)
		}
		if d.Subject.Filename != filename || d.Subject.Start.Line < 1 || d.Subject.Start.Column < 1 {
			t.Fatalf("diagnostic %q located at %s, not in %s", d.Summary, d.Subject, filename)
		}
		if d.Summary == "" {
			t.Fatalf("diagnostic at %s without a summary", d.Subject)
		}
	}
}

// FuzzParse: any input parses without a panic; every error is located in
// the file; a configuration without errors survives WriteHCL and Parse
// again unchanged (what inspect writes back is what was declared).
func FuzzParse(f *testing.F) {
	addHCLSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.hcl"
		cfg, diags := Parse(map[string][]byte{name: src})
		requireLocated(t, diags, name)
		if diags.HasErrors() {
			return
		}
		state := cfg.State()
		again, diags := Parse(map[string][]byte{name: WriteHCL(state)})
		if diags.HasErrors() {
			t.Fatalf("WriteHCL's output does not parse: %s\n%s", diags.Error(), WriteHCL(state))
		}
		if d := cmp.Diff(state, again.State()); d != "" {
			t.Fatalf("WriteHCL and Parse changed the configuration (-parsed +written and parsed again):\n%s", d)
		}
	})
}

// FuzzFormat: formatting never panics, its errors are located, and it is
// idempotent.
func FuzzFormat(f *testing.F) {
	addHCLSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		const name = "fuzz.hcl"
		out, diags := Format(src, name)
		requireLocated(t, diags, name)
		if diags.HasErrors() {
			return
		}
		again, diags := Format(out, name)
		if diags.HasErrors() {
			t.Fatalf("formatted output does not parse: %s", diags.Error())
		}
		if string(again) != string(out) {
			t.Fatalf("Format is not idempotent:\nonce:\n%s\ntwice:\n%s", out, again)
		}
	})
}
