package plan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/pgseq/pgseq/plan"
)

// The plan-file fuzz targets. The seed corpus (a real plan, its edits in
// the tests above, and testdata/fuzz/<target>) runs in the default test
// run. A longer session:
//
//	go test ./plan -run '^$' -fuzz '^FuzzRead$' -fuzztime 10m
//	go test ./plan -run '^$' -fuzz '^FuzzReadResigned$' -fuzztime 10m

// planSeeds are documents to start from: a real plan and a few edits of it.
func planSeeds(f *testing.F) [][]byte {
	var b bytes.Buffer
	if err := basePlan(f).Write(&b); err != nil {
		f.Fatal(err)
	}
	doc := b.Bytes()
	return [][]byte{
		doc,
		bytes.Replace(doc, []byte(`"batch_size": 200`), []byte(`"batch_size": -1`), 1),
		bytes.Replace(doc, []byte(`"concurrency": 20`), []byte(`"concurrency": 2000000000`), 1),
		bytes.Replace(doc, []byte(`"format_version": "1.0"`), []byte(`"format_version": "9.0"`), 1),
		doc[:len(doc)/2],
		[]byte(`{}`), []byte(`null`), []byte(`[]`), []byte(``),
	}
}

// requireKnownError fails unless err is one of the errors Read documents.
func requireKnownError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, plan.ErrFormat) && !errors.Is(err, plan.ErrChecksum) && !errors.Is(err, plan.ErrInvalid) {
		t.Fatalf("Read returned an error outside ErrFormat, ErrChecksum and ErrInvalid: %v", err)
	}
	if err.Error() == "" {
		t.Fatal("an error without a message")
	}
}

// requireRoundTrip fails unless writing p and reading it back gives the
// same document: what Read accepts is exactly what Write writes.
func requireRoundTrip(t *testing.T, p *plan.Plan) {
	t.Helper()
	var once bytes.Buffer
	if err := p.Write(&once); err != nil {
		t.Fatalf("writing an accepted plan: %v", err)
	}
	again, err := plan.Read(bytes.NewReader(once.Bytes()))
	if err != nil {
		t.Fatalf("an accepted plan, written again, is refused: %v", err)
	}
	var twice bytes.Buffer
	if err := again.Write(&twice); err != nil {
		t.Fatalf("writing the plan read back: %v", err)
	}
	if !bytes.Equal(once.Bytes(), twice.Bytes()) {
		t.Fatalf("write/read/write changed the plan:\n%s\n---\n%s", once.Bytes(), twice.Bytes())
	}
}

// FuzzRead: any bytes given as a plan file are refused with one of Read's
// errors or accepted as a plan that writes back unchanged; never a panic.
// Random edits rarely get past the checksum: FuzzReadResigned covers what
// lies behind it.
func FuzzRead(f *testing.F) {
	for _, s := range planSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := plan.Read(bytes.NewReader(raw))
		if err != nil {
			requireKnownError(t, err)
			return
		}
		requireRoundTrip(t, p)
	})
}

// FuzzReadResigned: edits of a plan whose checksum is then recomputed —
// a plan file edited by someone who knows the format — reach the checks
// behind the checksum (Validate): they are refused with ErrInvalid or
// ErrFormat, or accepted and written back unchanged; never a panic.
func FuzzReadResigned(f *testing.F) {
	for _, s := range planSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var p plan.Plan
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		p.Checksum = p.Hash()
		var b bytes.Buffer
		if p.Write(&b) != nil {
			return
		}
		got, err := plan.Read(bytes.NewReader(b.Bytes()))
		if err != nil {
			requireKnownError(t, err)
			if errors.Is(err, plan.ErrChecksum) {
				t.Fatalf("a plan whose checksum was just computed is refused for its checksum: %v", err)
			}
			return
		}
		requireRoundTrip(t, got)
	})
}
