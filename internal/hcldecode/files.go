package hcldecode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// ReadFile reads the file name, but no more than maxSize+1 bytes of it:
// enough for the caller to report a file that is too large without reading
// all of it.
func ReadFile(name string, maxSize int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSize+1))
}

// ReadFiles reads the .hcl files that paths name, by file name, each with
// ReadFile. Each path is a file or a directory; a directory contributes
// its *.hcl files (not its subdirectories) in name order. A file named
// twice is read once. A missing path, a directory without .hcl files or no
// path at all is an error. noun names the kind of file in diagnostics, in
// lower case ("configuration", "scenario"): "No configuration files",
// "Configuration path not found", "Cannot read configuration file".
func ReadFiles(noun string, maxSize int64, paths ...string) (map[string][]byte, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if len(paths) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No " + noun + " files",
			Detail:   "Give at least one .hcl file or a directory that holds .hcl files.",
		}}
	}
	var names []string
	for _, p := range paths {
		found, err := hclFiles(noun, p)
		if err != nil {
			diags = append(diags, err)
			continue
		}
		names = append(names, found...)
	}
	files := map[string][]byte{}
	seen := map[string]bool{}
	for _, name := range names {
		key := name
		if abs, err := filepath.Abs(name); err == nil {
			key = abs
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		src, err := ReadFile(name, maxSize)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot read " + noun + " file",
				Detail:   err.Error() + ".",
			})
			continue
		}
		files[name] = src
	}
	return files, diags
}

// hclFiles lists the .hcl files a path names; noun is as for ReadFiles.
func hclFiles(noun, path string) ([]string, *hcl.Diagnostic) {
	info, err := os.Stat(path)
	if err != nil {
		summary := "Cannot read " + noun + " path"
		if os.IsNotExist(err) {
			summary = strings.ToUpper(noun[:1]) + noun[1:] + " path not found"
		}
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: fmt.Sprintf("%v. Give an existing .hcl file or a directory that holds .hcl files.", err)}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read " + noun + " path",
			Detail: err.Error() + "."}
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".hcl") {
			continue
		}
		names = append(names, filepath.Join(path, e.Name()))
	}
	if len(names) == 0 {
		return nil, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No " + noun + " files",
			Detail: fmt.Sprintf("The directory %s holds no .hcl files. pgseq reads the *.hcl files of a directory, not of its subdirectories.", path)}
	}
	return names, nil
}
