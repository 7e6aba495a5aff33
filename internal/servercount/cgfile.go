package servercount

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// cgFile is what one cachegrind output file holds: the instructions (Ir)
// of its summary line, and of each function.
type cgFile struct {
	instructions uint64
	// functions are named as cg_annotate names them: "file:function",
	// "???" where the binary does not say.
	functions map[string]uint64
}

// readCachegrind reads the cachegrind output file at path.
func readCachegrind(path string) (cgFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return cgFile{}, fmt.Errorf("reading a count: %w", err)
	}
	defer f.Close()
	cg, err := parseCachegrind(f)
	if err != nil {
		return cgFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return cg, nil
}

// parseCachegrind reads a cachegrind output file (valgrind's manual,
// "Cachegrind Output File Format"; cg_annotate reads it the same way):
//
//	desc: I1 cache: ...           header lines, then
//	cmd: /usr/lib/postgresql/15/bin/postgres ...
//	events: Ir                    the events counted, a column each
//	fl=./elf/./elf/dl-lookup.c    the source file of what follows
//	fn=do_lookup_x                the function of the cost lines below
//	128 2                         a source line, then a count per event
//	summary: 22753350             the totals, a count per event
//
// A count of "." is zero (the Perl cg_annotate's reading), and missing
// counts at the end of a line are zero. Callgrind's compressed names
// ("fn=(12) name", then "fn=(12)") are read too, though cachegrind writes
// names in full; the rest of callgrind's format (calls, relative
// positions) is an error: its cost lines do not add up as cachegrind's do.
//
// A function is named "file:function", the file of the fl= line before
// it ("???" where the binary has no debugging information: a stripped
// PostgreSQL's functions read "???:ExecScan"). Its instructions are the
// sum of its cost lines' Ir; they must sum to the summary's, or the file
// was not read right.
func parseCachegrind(r io.Reader) (cgFile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	lineNo := 0
	// The header: any "key: value" lines up to events:.
	ir := -1 // the column of Ir among the events
	nEvents := 0
	for ir < 0 && sc.Scan() {
		lineNo++
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "events:"); ok {
			events := strings.Fields(rest)
			for i, e := range events {
				if e == "Ir" {
					ir = i
				}
			}
			if ir < 0 {
				return cgFile{}, fmt.Errorf("line %d: events %q do not count instructions (Ir)", lineNo, strings.TrimSpace(rest))
			}
			nEvents = len(events)
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if key, _, ok := strings.Cut(line, ":"); !ok || strings.ContainsAny(key, " =") {
			return cgFile{}, fmt.Errorf("line %d: %q before the events: line", lineNo, line)
		}
	}
	if ir < 0 {
		if err := sc.Err(); err != nil {
			return cgFile{}, err
		}
		return cgFile{}, fmt.Errorf("no events: line (is it a cachegrind output file?)")
	}

	cg := cgFile{functions: map[string]uint64{}}
	fileNames := map[string]string{} // compressed names, by id
	funcNames := map[string]string{}
	file := ""
	name := ""       // the function the cost lines count, "file:function"
	var total uint64 // the functions' counts summed
	haveSummary := false
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case line[0] >= '0' && line[0] <= '9':
			if name == "" {
				return cgFile{}, fmt.Errorf("line %d: a cost line before any fl= or fn= line", lineNo)
			}
			n, err := costIr(line, ir, nEvents)
			if err != nil {
				return cgFile{}, fmt.Errorf("line %d: %w", lineNo, err)
			}
			cg.functions[name] += n
			total += n
		case strings.HasPrefix(line, "fl="):
			fl, err := expandName(fileNames, line[len("fl="):])
			if err != nil {
				return cgFile{}, fmt.Errorf("line %d: %w", lineNo, err)
			}
			// An fn= line follows; until then, cg_annotate's name.
			file, name = fl, fl+":<unspecified>"
		case strings.HasPrefix(line, "fn="):
			fn, err := expandName(funcNames, line[len("fn="):])
			if err != nil {
				return cgFile{}, fmt.Errorf("line %d: %w", lineNo, err)
			}
			name = file + ":" + fn
		case strings.HasPrefix(line, "summary:"):
			counts := strings.Fields(strings.TrimPrefix(line, "summary:"))
			if len(counts) <= ir {
				return cgFile{}, fmt.Errorf("line %d: %q has no count of instructions", lineNo, line)
			}
			n, err := irCount(counts, ir, nEvents)
			if err != nil {
				return cgFile{}, fmt.Errorf("line %d: %q: %w", lineNo, line, err)
			}
			cg.instructions, haveSummary = n, true
		default:
			return cgFile{}, fmt.Errorf("line %d: %q is not a line of a cachegrind output file", lineNo, line)
		}
	}
	if err := sc.Err(); err != nil {
		return cgFile{}, err
	}
	if !haveSummary {
		return cgFile{}, fmt.Errorf("no summary line (was the process killed before it could write its count?)")
	}
	if total != cg.instructions {
		return cgFile{}, fmt.Errorf("its functions' instructions sum to %d, its summary says %d", total, cg.instructions)
	}
	return cg, nil
}

// costIr returns the Ir count of a cost line: a line number, then a count
// per event.
func costIr(line string, ir, nEvents int) (uint64, error) {
	fields := strings.Fields(line)
	if _, err := strconv.ParseUint(fields[0], 10, 64); err != nil {
		return 0, fmt.Errorf("cost line %q: a line number that is not one (callgrind's relative positions are not read)", line)
	}
	n, err := irCount(fields[1:], ir, nEvents)
	if err != nil {
		return 0, fmt.Errorf("cost line %q: %w", line, err)
	}
	return n, nil
}

// irCount returns the Ir count among counts, one per event (Ir the
// column ir of nEvents): "." or missing at the end is zero.
func irCount(counts []string, ir, nEvents int) (uint64, error) {
	if len(counts) > nEvents {
		return 0, fmt.Errorf("%d counts for %d events", len(counts), nEvents)
	}
	if ir >= len(counts) || counts[ir] == "." {
		return 0, nil
	}
	return strconv.ParseUint(counts[ir], 10, 64)
}

// expandName returns the name of an fl= or fn= line's value: the value
// itself, or callgrind's compressed forms, "(id) name", which names id,
// and "(id)", which refers to it (names holds the ids seen).
func expandName(names map[string]string, value string) (string, error) {
	if !strings.HasPrefix(value, "(") {
		return value, nil
	}
	id, rest, ok := strings.Cut(value[1:], ")")
	if !ok {
		return value, nil // a name that starts with "(", such as "(below main)"
	}
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return value, nil
	}
	if rest == "" {
		name, ok := names[id]
		if !ok {
			return "", fmt.Errorf("compressed name (%s) used before it was defined", id)
		}
		return name, nil
	}
	name := strings.TrimPrefix(rest, " ")
	names[id] = name
	return name, nil
}
