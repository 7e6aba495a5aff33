// Package dbconntest provides a fake PostgreSQL server for tests of what
// pgseq says when a login fails. The built-in local database trusts every
// connection on its unix socket, so it cannot reject a wrong password.
package dbconntest

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/jackc/pgx/v5/pgproto3"
)

// AuthFailServer is a fake PostgreSQL server on 127.0.0.1 that behaves as
// a server without TLS whose every login is a wrong password: it answers an
// SSLRequest with 'N' (so with sslmode=prefer the client first fails to
// start TLS, then tries again without), asks for a cleartext password,
// records it and rejects the login with FATAL 28P01 "password
// authentication failed for user ...".
type AuthFailServer struct {
	ln net.Listener
	wg sync.WaitGroup

	mu        sync.Mutex
	passwords []string
}

// NewAuthFailServer starts an AuthFailServer, stopped when t ends.
func NewAuthFailServer(t testing.TB) *AuthFailServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("starting the fake PostgreSQL server: %v", err)
	}
	s := &AuthFailServer{ln: ln}
	s.wg.Go(s.serve)
	t.Cleanup(func() {
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

// Host returns the server's host, 127.0.0.1.
func (s *AuthFailServer) Host() string { return "127.0.0.1" }

// Port returns the server's TCP port.
func (s *AuthFailServer) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Addr returns host:port.
func (s *AuthFailServer) Addr() string { return net.JoinHostPort(s.Host(), strconv.Itoa(s.Port())) }

// Passwords returns the passwords clients sent, in order, and forgets them.
func (s *AuthFailServer) Passwords() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.passwords
	s.passwords = nil
	return p
}

func (s *AuthFailServer) serve() {
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		s.wg.Go(func() {
			defer conn.Close()
			_ = s.login(conn)
		})
	}
}

// login runs one connection: startup, password, rejection.
func (s *AuthFailServer) login(conn net.Conn) error {
	backend := pgproto3.NewBackend(conn, conn)
	var user string
	for user == "" {
		msg, err := backend.ReceiveStartupMessage()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return err
			}
		case *pgproto3.StartupMessage:
			user = m.Parameters["user"]
		default:
			return errors.New("unexpected startup message")
		}
	}
	backend.Send(&pgproto3.AuthenticationCleartextPassword{})
	if err := backend.Flush(); err != nil {
		return err
	}
	if err := backend.SetAuthType(pgproto3.AuthTypeCleartextPassword); err != nil {
		return err
	}
	msg, err := backend.Receive()
	if err != nil {
		return err
	}
	pm, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		return errors.New("expected a password message")
	}
	s.mu.Lock()
	s.passwords = append(s.passwords, pm.Password)
	s.mu.Unlock()
	backend.Send(&pgproto3.ErrorResponse{
		Severity:            "FATAL",
		SeverityUnlocalized: "FATAL",
		Code:                "28P01",
		Message:             `password authentication failed for user "` + user + `"`,
	})
	return backend.Flush() // and hang up, as PostgreSQL does after a FATAL error
}

// Leaked returns what of password shows in out: the password itself, or a
// run of 4 or more of its letters and digits. Test passwords made of such
// runs that appear nowhere else (Kq7v, Wm3z) make any of them in out a
// piece of the password.
func Leaked(out, password string) []string {
	var found []string
	if strings.Contains(out, password) {
		found = append(found, password)
	}
	for _, w := range strings.FieldsFunc(password, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 4 && strings.Contains(out, w) {
			found = append(found, w)
		}
	}
	return found
}
