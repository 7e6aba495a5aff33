package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"

	"github.com/pgseq/pgseq/catalog"
)

// A saved plan travels (through CI, between machines) before it is applied,
// so Read trusts nothing in it. In order, it refuses:
//
//   - a document that is not exactly one JSON object of the plan's shape:
//     unknown fields at any level, a key written twice, anything but
//     whitespace after the object (ErrFormat);
//   - a format_version that is not MAJOR.MINOR, or whose major version this
//     pgseq does not read (ErrFormat);
//   - a value not written the way pgseq writes it ("90s" for "1m30s"), so
//     that everything in the file is covered by the checksum (ErrFormat);
//   - a missing checksum, or one that does not match the content
//     (ErrChecksum): the file was damaged or edited;
//   - a plan pgseq could not have made (ErrInvalid, see Validate). An
//     edited plan with a recomputed checksum gets this far, and no further.

// ErrFormat marks a plan file that is not a pgseq plan or not one this
// version can read.
var ErrFormat = errors.New("not a pgseq plan")

// ErrChecksum marks a plan file whose checksum is missing or does not match
// its content.
var ErrChecksum = errors.New("plan file checksum does not match")

// ErrInvalid marks a plan that pgseq could not have made: a value outside
// the configuration's rules, a slot layout that does not fit its limit, a
// summary that does not count the changes…
var ErrInvalid = errors.New("invalid plan")

// Read decodes and checks a plan written by Write (see the comment above
// ErrFormat for what it refuses). The error says which change and which
// attribute are wrong.
func Read(r io.Reader) (*Plan, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: unexpected data after the plan document at byte %d", ErrFormat, dec.InputOffset())
	}
	if err := checkVersion(p.FormatVersion); err != nil {
		return nil, err
	}
	if err := checkCanonical(raw, &p); err != nil {
		return nil, err
	}
	if p.Checksum == "" {
		return nil, fmt.Errorf("%w: the plan has no checksum; pgseq plan --out writes one, and a plan without it is refused: make the plan again", ErrChecksum)
	}
	if sum := p.Hash(); p.Checksum != sum {
		return nil, fmt.Errorf("%w: the content was changed after pgseq plan wrote it (checksum %s, content %s); make the plan again", ErrChecksum, p.Checksum, sum)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

var versionRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$`)

// checkVersion accepts MAJOR.MINOR with the major version this pgseq reads.
func checkVersion(v string) error {
	m := versionRE.FindStringSubmatch(v)
	switch {
	case v == "":
		return fmt.Errorf("%w: no format_version", ErrFormat)
	case m == nil:
		return fmt.Errorf("%w: format_version %q is not MAJOR.MINOR", ErrFormat, v)
	case m[1] != major(FormatVersion):
		return fmt.Errorf("%w: format_version %q is not supported (this pgseq reads %s)", ErrFormat, v, FormatVersion)
	}
	return nil
}

func major(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '.' {
			return v[:i]
		}
	}
	return v
}

// UnmarshalJSON decodes a change strictly (no unknown fields, at any
// level), typing Before and After by Kind.
func (c *Change) UnmarshalJSON(b []byte) error {
	type plain Change
	var raw struct {
		plain
		Before json.RawMessage `json:"before"`
		After  json.RawMessage `json:"after"`
	}
	if err := strictDecode(b, &raw); err != nil {
		return err
	}
	*c = Change(raw.plain)
	decode := func(m json.RawMessage) (catalog.Object, error) {
		if len(m) == 0 || bytes.Equal(m, []byte("null")) {
			return nil, nil
		}
		v, ok := catalog.NewObject(c.Kind)
		if !ok {
			return nil, fmt.Errorf("unknown change type %q", c.Kind)
		}
		if err := strictDecode(m, v); err != nil {
			return nil, err
		}
		return v, nil
	}
	var err error
	if c.Before, err = decode(raw.Before); err != nil {
		return fmt.Errorf("change %s: before: %w", c.Address, err)
	}
	if c.After, err = decode(raw.After); err != nil {
		return fmt.Errorf("change %s: after: %w", c.Address, err)
	}
	return nil
}

// strictDecode decodes b into v, refusing unknown fields.
func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// checkCanonical compares the document as written with p as pgseq writes
// it: the same keys (exactly, not up to case), each once, with the same
// values written the same way. encoding/json matches keys without regard
// to case and keeps the last of two equal keys; this closes both doors, so
// the checksum (computed over p) covers every byte that means something.
func checkCanonical(raw []byte, p *Plan) error {
	written, err := parseTree(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	canonical, err := parseTree(b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if d := treeDiff(written, canonical, ""); d != "" {
		return fmt.Errorf("%w: %s", ErrFormat, d)
	}
	return nil
}

// object is a JSON object as parseTree reads it.
type object map[string]any

// parseTree reads one JSON value into maps (object), slices, json.Number,
// strings, bools and nil, refusing an object that has a key twice.
func parseTree(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return parseValue(dec, "")
}

func parseValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				at := joinPath(path, key)
				if _, dup := obj[key]; dup {
					return nil, fmt.Errorf("%s: the key %q appears twice", at, key)
				}
				if obj[key], err = parseValue(dec, at); err != nil {
					return nil, err
				}
			}
			_, err := dec.Token() // }
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec, fmt.Sprintf("%s[%d]", path, len(arr)))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ]
			return arr, err
		}
	}
	return tok, nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// treeDiff returns the first difference between the document as written
// (w) and as pgseq writes it (c), with its path, or "".
func treeDiff(w, c any, path string) string {
	at := path
	if at == "" {
		at = "the document"
	}
	switch wv := w.(type) {
	case object:
		cv, ok := c.(object)
		if !ok {
			return fmt.Sprintf("%s: an object where pgseq writes %s", at, describe(c))
		}
		keys := make([]string, 0, len(wv))
		for k := range wv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := cv[k]; !ok {
				return fmt.Sprintf("%s: unknown field", joinPath(path, k))
			}
		}
		keys = keys[:0]
		for k := range cv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := wv[k]; !ok {
				return fmt.Sprintf("%s: missing", joinPath(path, k))
			}
			if d := treeDiff(wv[k], cv[k], joinPath(path, k)); d != "" {
				return d
			}
		}
		return ""
	case []any:
		cv, ok := c.([]any)
		if !ok {
			return fmt.Sprintf("%s: a list where pgseq writes %s", at, describe(c))
		}
		if len(wv) != len(cv) {
			return fmt.Sprintf("%s: %d elements where pgseq reads %d", at, len(wv), len(cv))
		}
		for i := range wv {
			if d := treeDiff(wv[i], cv[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if w != c {
		return fmt.Sprintf("%s: %s is not written the way pgseq writes it (%s)", at, describe(w), describe(c))
	}
	return ""
}

// describe writes a parsed JSON value briefly, for messages.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case object:
		return "an object"
	case []any:
		return "a list"
	case string:
		return strconv.Quote(t)
	case json.Number:
		return t.String()
	}
	return fmt.Sprint(v)
}
