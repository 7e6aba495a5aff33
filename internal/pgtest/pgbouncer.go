package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pgseq/pgseq/internal/localdb"
)

// PgBouncer starts a PgBouncer (Debian's pgbouncer) on 127.0.0.1 in front of the test database,
// in mode (transaction or session) with poolSize server connections, and
// returns a connection string to it. It is stopped when the test ends.
func PgBouncer(t testing.TB, mode string, poolSize int) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		bin = "/usr/sbin/pgbouncer"
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("pgbouncer not found (apt-get install pgbouncer; .ci/run installs it)")
		}
	}
	target, err := pgconn.ParseConfig(ConnString(t))
	require.NoError(t, err)
	dir := t.TempDir()
	// Only the test database's own user, with its own password (none for
	// the built-in database's trust authentication).
	users := fmt.Sprintf("%q %q\n", target.User, target.Password)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "users.txt"), []byte(users), 0o600))
	// PgBouncer refuses to run as root: as root, it runs as the built-in
	// database's server user, which must read its files and reach them.
	if os.Geteuid() == 0 {
		openAncestors(t, dir)
	}
	// A port found free may be taken before PgBouncer binds it (by another
	// test's PgBouncer, or any connection's local port): PgBouncer then
	// exits, and a dial to the port would reach whoever holds it. So it is
	// ready when its own log says it listens there, and started again on
	// another port when it exited.
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		logPath := filepath.Join(dir, fmt.Sprintf("pgbouncer-%d.log", attempt))
		ini := fmt.Sprintf(`[databases]
%s = host=%s port=%d dbname=%s user=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = %s
default_pool_size = %d
max_client_conn = 100
logfile = %s
pidfile = %s
`, target.Database, target.Host, target.Port, target.Database, target.User,
			port, filepath.Join(dir, "users.txt"), mode, poolSize, logPath, filepath.Join(dir, fmt.Sprintf("pgbouncer-%d.pid", attempt)))
		if target.Password != "" {
			ini = strings.Replace(ini, "user="+target.User, "user="+target.User+" password="+target.Password, 1)
		}
		cfgPath := filepath.Join(dir, fmt.Sprintf("pgbouncer-%d.ini", attempt))
		require.NoError(t, os.WriteFile(cfgPath, []byte(ini), 0o600))

		cmd := exec.Command(bin, cfgPath)
		require.NoError(t, localdb.RunAsServerUser(cmd, dir))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		exited := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(exited)
		}()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGINT)
			<-exited
		})
		listening := fmt.Sprintf("listening on 127.0.0.1:%d", port)
		deadline := time.Now().Add(10 * time.Second)
	wait:
		for {
			log, _ := os.ReadFile(logPath)
			select {
			case <-exited:
				if attempt == 5 {
					t.Fatalf("pgbouncer exited 5 times without listening; the last time:\n%s\n%s", out.String(), log)
				}
				break wait // the port was taken: another one
			default:
			}
			if strings.Contains(string(log), listening) {
				addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
				return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", target.User, addr, target.Database)
			}
			if time.Now().After(deadline) {
				t.Fatalf("pgbouncer did not listen on 127.0.0.1:%d within 10 s:\n%s\n%s", port, out.String(), log)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// openAncestors lets every user through the directories above dir (the
// test's temporary directory is made 0700 by root).
func openAncestors(t testing.TB, dir string) {
	t.Helper()
	for d := filepath.Dir(dir); d != "/" && d != "."; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 {
			require.NoError(t, os.Chmod(d, st.Mode().Perm()|0o711))
		}
	}
}
