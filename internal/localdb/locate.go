package localdb

import (
	"fmt"
	"os"
	"path/filepath"
)

// Location is where a project's built-in local database lives.
type Location struct {
	// Dir is the absolute path of the .pgseq directory.
	Dir string
	// Exists is true when Dir was found; false when Locate chose where to
	// create it.
	Exists bool
}

// Locate finds the project's built-in local database, as git finds its
// repository: from each of starts in turn (the working directory first,
// then the directories of the configuration given, if any), it walks up
// looking for an existing DefaultDir directory, and stops at a repository
// root (a directory holding .git, which is still searched) or at the file
// system root. When none exists, the database belongs at the root of the
// repository holding starts[0], or in starts[0] itself outside a
// repository. starts must not be empty; relative paths are taken from the
// working directory.
func Locate(starts ...string) (Location, error) {
	if len(starts) == 0 {
		return Location{}, fmt.Errorf("locating the local database: no directory to start from")
	}
	for _, start := range starts {
		abs, err := filepath.Abs(start)
		if err != nil {
			return Location{}, fmt.Errorf("locating the local database from %s: %w", start, err)
		}
		if dir, ok := findUp(abs); ok {
			return Location{Dir: dir, Exists: true}, nil
		}
	}
	home, err := filepath.Abs(starts[0])
	if err != nil {
		return Location{}, fmt.Errorf("locating the local database from %s: %w", starts[0], err)
	}
	if root, ok := repositoryRoot(home); ok {
		home = root
	}
	return Location{Dir: filepath.Join(home, DefaultDir)}, nil
}

// findUp walks up from dir, an absolute path, to the repository root or
// the file system root, and returns the first DefaultDir directory found.
func findUp(dir string) (string, bool) {
	for {
		candidate := filepath.Join(dir, DefaultDir)
		if isDir(candidate) {
			return candidate, true
		}
		parent := filepath.Dir(dir)
		if isRepositoryRoot(dir) || parent == dir {
			return "", false
		}
		dir = parent
	}
}

// repositoryRoot returns the nearest directory at or above dir, an
// absolute path, that holds .git.
func repositoryRoot(dir string) (string, bool) {
	for {
		if isRepositoryRoot(dir) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// isRepositoryRoot reports whether dir holds .git: a directory, or a file
// in a worktree or submodule.
func isRepositoryRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
