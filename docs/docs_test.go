// Package docs_test checks the documentation against the code: every
// ```hcl block of README.md and docs/*.md is parsed with pgseq's own
// parsers, and every relative link of those pages and of results/README.md
// leads to a file (and heading) that exists.
//
// The info string of a fenced block says how it is parsed:
//
//	```hcl            a configuration: decoded and validated by spec.Parse
//	```hcl scenario   benchmark scenarios: scenarios.ParseScenarios
//	```hcl fragment   a part of a file on purpose: HCL syntax only (hclsyntax)
//
// A failure names the page and line of the diagnostic.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pgseq/pgseq/scenarios"
	"github.com/pgseq/pgseq/spec"
)

// root is the repository root, seen from this package's directory.
const root = ".."

// hclPages are the pages whose hcl blocks are parsed, relative to root.
func hclPages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatalf("listing docs/*.md: %v", err)
	}
	pages := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatalf("relative path of %s: %v", d, err)
		}
		pages = append(pages, filepath.ToSlash(rel))
	}
	return pages
}

// linkPages are the pages whose relative links are checked.
func linkPages(t *testing.T) []string {
	return append(hclPages(t), "results/README.md")
}

// block is one fenced code block of a page.
type block struct {
	// info is the fence's info string ("hcl scenario").
	info string
	// line is the line of the opening fence, from 1; the block's first
	// line of content is line+1.
	line int
	// text is the content, without the fence's indentation.
	text string
}

var fenceOpen = regexp.MustCompile("^( *)(```+|~~~+)[ \t]*([^`]*)$")

// fencedBlocks returns the fenced code blocks of a Markdown page, and for
// each line whether it lies inside one (fences included).
func fencedBlocks(src string) (blocks []block, inFence []bool) {
	lines := strings.Split(src, "\n")
	inFence = make([]bool, len(lines))
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence := len(m[1]), m[2]
		b := block{info: strings.TrimSpace(m[3]), line: i + 1}
		inFence[i] = true
		var body []string
		for i++; i < len(lines); i++ {
			inFence[i] = true
			trimmed := strings.TrimSpace(lines[i])
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				break
			}
			l := lines[i]
			if len(l)-len(strings.TrimLeft(l, " ")) >= indent {
				l = l[indent:]
			}
			body = append(body, l)
		}
		b.text = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks, inFence
}

// TestHCLExamplesParse parses every hcl block of the README and docs/ with
// the parser its info string names.
func TestHCLExamplesParse(t *testing.T) {
	counts := map[string]int{}
	for _, page := range hclPages(t) {
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatalf("reading %s: %v", page, err)
		}
		blocks, _ := fencedBlocks(string(src))
		for _, b := range blocks {
			fields := strings.Fields(b.info)
			if len(fields) == 0 || fields[0] != "hcl" {
				continue
			}
			kind := "configuration"
			if len(fields) > 1 {
				kind = strings.Join(fields[1:], " ")
			}
			var diags hcl.Diagnostics
			switch kind {
			case "configuration":
				_, diags = spec.Parse(map[string][]byte{page: []byte(b.text)})
			case "scenario":
				_, diags = scenarios.ParseScenarios(map[string][]byte{page: []byte(b.text)})
			case "fragment":
				_, diags = hclsyntax.ParseConfig([]byte(b.text), page, hcl.InitialPos)
			default:
				t.Errorf("%s:%d: unknown hcl block kind %q: write ```hcl, ```hcl scenario or ```hcl fragment", page, b.line, kind)
				continue
			}
			counts[kind]++
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					continue
				}
				line := b.line
				if d.Subject != nil {
					line += d.Subject.Start.Line
				}
				t.Errorf("%s:%d: %s (the %s block at line %d): %s", page, line, describe(d), kind, b.line, d.Detail)
			}
		}
	}
	// The pages hold many examples: finding few means the fences were
	// misread, not that the examples are fine.
	if counts["configuration"] < 4 || counts["scenario"] < 2 {
		t.Errorf("found %d configuration and %d scenario blocks; expected at least 4 and 2", counts["configuration"], counts["scenario"])
	}
}

// describe is a diagnostic's severity, column and summary.
func describe(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return "error: " + d.Summary
	}
	return "column " + strconv.Itoa(d.Subject.Start.Column) + ": error: " + d.Summary
}

var (
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// TestRelativeLinks checks that every relative link of the README, docs/
// and results/README.md leads to a file or directory that exists, and that
// a link to a heading (#anchor) of a Markdown page names one of its
// headings.
func TestRelativeLinks(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	anchors := func(page string) map[string]bool {
		if a, ok := anchorsOf[page]; ok {
			return a
		}
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatalf("reading %s: %v", page, err)
		}
		a := headingAnchors(string(src))
		anchorsOf[page] = a
		return a
	}
	links := 0
	for _, page := range linkPages(t) {
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatalf("reading %s: %v", page, err)
		}
		_, inFence := fencedBlocks(string(src))
		for i, line := range strings.Split(string(src), "\n") {
			if inFence[i] {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				path, anchor, _ := strings.Cut(target, "#")
				dest := page
				if path != "" {
					dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), path)))
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", page, i+1, target, dest)
						continue
					}
				}
				if anchor != "" {
					if !strings.HasSuffix(dest, ".md") {
						t.Errorf("%s:%d: link %s: an anchor in %s, which is not a Markdown page", page, i+1, target, dest)
					} else if !anchors(dest)[anchor] {
						t.Errorf("%s:%d: link %s: %s has no heading #%s", page, i+1, target, dest, anchor)
					}
				}
			}
		}
	}
	if links < 50 {
		t.Errorf("found %d relative links; expected at least 50", links)
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a page:
// the heading's text in lower case, without punctuation, spaces as
// hyphens, and -1, -2, … after a repeated one.
func headingAnchors(src string) map[string]bool {
	_, inFence := fencedBlocks(src)
	anchors := map[string]bool{}
	seen := map[string]int{}
	for i, line := range strings.Split(src, "\n") {
		if inFence[i] {
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
