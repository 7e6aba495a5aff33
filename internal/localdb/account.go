package localdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is the unprivileged user the server programs run as when pgseq
// runs as root. A nil *account means "run as the current user".
type account struct {
	name string
	uid  uint32
	gid  uint32
}

// serverAccount returns nil when the current user is not root, else the
// postgres user, else nobody.
func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err := strconv.ParseUint(u.Uid, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
		}
		gid, err := strconv.ParseUint(u.Gid, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
		}
		return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
	}
	return nil, errors.New(`PostgreSQL cannot run as root and there is neither a "postgres" nor a "nobody" user to run it as: ` +
		`create one (useradd --system postgres) or run pgseq as an ordinary user`)
}

// credential makes a command run as a; nil when a is nil.
func (a *account) credential() *syscall.SysProcAttr {
	if a == nil {
		return nil
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{
		Uid:    a.uid,
		Gid:    a.gid,
		Groups: []uint32{a.gid}, // drop root's supplementary groups
	}}
}

// chown gives path to a; nothing to do when a is nil.
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Lchown(path, int(a.uid), int(a.gid)); err != nil {
		return fmt.Errorf("handing %s to user %s: %w", path, a.name, err)
	}
	return nil
}

// chownTree gives the tree at root to a unless root already belongs to a.
// It repairs a data directory made by another user (an earlier run as an
// ordinary user, or as nobody before a postgres user existed).
func (a *account) chownTree(root string) error {
	if a == nil {
		return nil
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("checking owner of %s: %w", root, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == a.uid && st.Gid == a.gid {
		return nil
	}
	return filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return a.chown(path)
	})
}

// canTraverse reports whether a may search every existing ancestor directory
// of dir (dir itself is created or handed to a later). Directories that do
// not exist yet will be created searchable. A nil account can always.
func (a *account) canTraverse(dir string) bool {
	if a == nil {
		return true
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok {
				return false
			}
			var bit fs.FileMode = 0o001
			switch {
			case st.Uid == a.uid:
				bit = 0o100
			case st.Gid == a.gid:
				bit = 0o010
			}
			if fi.Mode().Perm()&bit == 0 {
				return false
			}
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// RunAsServerUser makes cmd run as the user the built-in database's server
// runs as (postgres, else nobody) when this process is root, and hands the
// tree at dir to that user; as an ordinary user it changes nothing. For
// other programs that refuse to run as root, as PostgreSQL does (the tests'
// PgBouncer). The directories above dir must let that user through.
func RunAsServerUser(cmd *exec.Cmd, dir string) error {
	a, err := serverAccount()
	if err != nil {
		return err
	}
	if err := a.chownTree(dir); err != nil {
		return err
	}
	cmd.SysProcAttr = a.credential()
	return nil
}
