package localdb

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoBinaries is returned (wrapped) when the PostgreSQL server binaries
// cannot be found. Its message is one line that says how to fix it.
var ErrNoBinaries = errors.New(`PostgreSQL server binaries (initdb, pg_ctl, postgres) not found: ` +
	`install them with "apt-get install postgresql" (Debian/Ubuntu), or set --database-url / DATABASE_URL`)

// debianRoot is where Debian and Ubuntu install the server binaries, one
// directory per major version, outside PATH. Tests change it.
var debianRoot = "/usr/lib/postgresql"

// Binaries are the PostgreSQL server programs a cluster is managed with.
// All paths are absolute.
type Binaries struct {
	Initdb   string // initdb program
	PgCtl    string // pg_ctl program
	Postgres string // postgres server program
}

// FindBinaries locates initdb, pg_ctl and postgres: on PATH if all three are
// there, else in the highest version directory /usr/lib/postgresql/*/bin that
// has all three. It returns an error wrapping ErrNoBinaries when there are none.
func FindBinaries() (Binaries, error) {
	var b Binaries
	var err error
	if b.Initdb, err = exec.LookPath("initdb"); err == nil {
		if b.PgCtl, err = exec.LookPath("pg_ctl"); err == nil {
			if b.Postgres, err = exec.LookPath("postgres"); err == nil {
				return b.absolute()
			}
		}
	}

	dirs, _ := filepath.Glob(filepath.Join(debianRoot, "*", "bin"))
	sort.Slice(dirs, func(i, j int) bool {
		return versionLess(versionOfDir(dirs[j]), versionOfDir(dirs[i])) // highest first
	})
	for _, dir := range dirs {
		b := Binaries{
			Initdb:   filepath.Join(dir, "initdb"),
			PgCtl:    filepath.Join(dir, "pg_ctl"),
			Postgres: filepath.Join(dir, "postgres"),
		}
		if isExecutable(b.Initdb) && isExecutable(b.PgCtl) && isExecutable(b.Postgres) {
			return b, nil
		}
	}
	return Binaries{}, ErrNoBinaries
}

// absolute makes the paths found on PATH absolute, so they still work when
// a command runs in another directory.
func (b Binaries) absolute() (Binaries, error) {
	for _, p := range []*string{&b.Initdb, &b.PgCtl, &b.Postgres} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return Binaries{}, fmt.Errorf("locating %s: %w", *p, err)
		}
		*p = abs
	}
	return b, nil
}

// versionOfDir returns the version directory name of /usr/lib/postgresql/<v>/bin.
func versionOfDir(binDir string) string {
	return filepath.Base(filepath.Dir(binDir))
}

// versionLess orders PostgreSQL versions such as "9.6", "15" and "16"
// numerically, component by component; a non-numeric component counts as -1.
func versionLess(a, b string) bool {
	as, bs := versionParts(a), versionParts(b)
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] != bs[i] {
			return as[i] < bs[i]
		}
	}
	return len(as) < len(bs)
}

func versionParts(v string) []int {
	var parts []int
	for _, s := range strings.Split(v, ".") {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = -1
		}
		parts = append(parts, n)
	}
	return parts
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
