package dbconn

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		flag string
		env  map[string]string
		want Source
	}{
		{
			name: "nothing set: local database",
			want: Source{From: FromLocal, Local: true},
		},
		{
			name: "flag wins over everything",
			flag: "postgres://flag@h/db",
			env: map[string]string{
				"PGSEQ_DATABASE_URL": "postgres://pgseq@h/db",
				"DATABASE_URL":       "postgres://generic@h/db",
				"PGHOST":             "pghost",
			},
			want: Source{ConnString: "postgres://flag@h/db", From: FromFlag},
		},
		{
			name: "PGSEQ_DATABASE_URL before DATABASE_URL",
			env: map[string]string{
				"PGSEQ_DATABASE_URL": "postgres://pgseq@h/db",
				"DATABASE_URL":       "postgres://generic@h/db",
			},
			want: Source{ConnString: "postgres://pgseq@h/db", From: FromPGSeqEnv},
		},
		{
			name: "DATABASE_URL before PG* variables",
			env: map[string]string{
				"DATABASE_URL": "host=h dbname=db",
				"PGHOST":       "pghost",
			},
			want: Source{ConnString: "host=h dbname=db", From: FromDatabaseURL},
		},
		{
			name: "blank values are unset",
			flag: "  ",
			env:  map[string]string{"PGSEQ_DATABASE_URL": "", "DATABASE_URL": " "},
			want: Source{From: FromLocal, Local: true},
		},
		{name: "PGHOST", env: map[string]string{"PGHOST": "h"}, want: Source{From: FromLibpqEnv}},
		{name: "PGHOSTADDR", env: map[string]string{"PGHOSTADDR": "127.0.0.1"}, want: Source{From: FromLibpqEnv}},
		{name: "PGPORT", env: map[string]string{"PGPORT": "5433"}, want: Source{From: FromLibpqEnv}},
		{name: "PGDATABASE", env: map[string]string{"PGDATABASE": "db"}, want: Source{From: FromLibpqEnv}},
		{name: "PGUSER", env: map[string]string{"PGUSER": "u"}, want: Source{From: FromLibpqEnv}},
		{name: "PGSERVICE", env: map[string]string{"PGSERVICE": "svc"}, want: Source{From: FromLibpqEnv}},
		{
			name: "PGPASSWORD alone configures nothing",
			env:  map[string]string{"PGPASSWORD": "secret", "PGSSLMODE": "require"},
			want: Source{From: FromLocal, Local: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.flag, func(k string) string { return tt.env[k] })
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestResolveInvalid(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": "postgres://u:s3cretpw@h:notaport/db"}
	_, err := Resolve("", func(k string) string { return env[k] })
	require.Error(t, err)
	require.Contains(t, err.Error(), "DATABASE_URL")
	require.NotContains(t, err.Error(), "s3cretpw")
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		// URLs
		{"postgres://u:secret@h/db", "postgres://u:***@h/db"},
		{"postgresql://u:secret@h:5432/db?sslmode=require", "postgresql://u:***@h:5432/db?sslmode=require"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://u:@h/db", "postgres://u:***@h/db"},
		{"postgres://h/db", "postgres://h/db"},
		{"postgres:///db?host=%2Ftmp", "postgres:///db?host=%2Ftmp"},
		{"postgres://u:p%40ss@h1:5432,h2:5433/db", "postgres://u:***@h1:5432,h2:5433/db"},
		{"postgres://u@h/db?password=secret&sslmode=require", "postgres://u@h/db?password=***&sslmode=require"},
		{"postgres://u@h/db?sslpassword=secret&PassWord=x", "postgres://u@h/db?sslpassword=***&PassWord=***"},
		{"postgres://u@h/db?pass%77ord=secret", "postgres://u@h/db?pass%77ord=***"},
		{"postgres://u@[::1]:5432/db?password=secret", "postgres://u@[::1]:5432/db?password=***"},
		{"POSTGRES://u:secret@h/db", "POSTGRES://u:***@h/db"},
		// '@' in a query value is data, not the end of a userinfo.
		{"postgres://h:5432/db?application_name=a@b&password=secret", "postgres://h:5432/db?application_name=a@b&password=***"},
		{"postgres://h/db?password=secret&application_name=a@b", "postgres://h/db?password=***&application_name=a@b"},
		// Malformed: unencoded '@', '/' or '?' in the password.
		{"postgres://u:p@ss@h/db", "postgres://u:***@h/db"},
		{"postgres://u:pa/ss@h/db", "postgres://u:***@h/db"},
		{"postgres://u:pa?ss@h/db", "postgres://u:***@h/db"},
		// Keyword/value
		{"host=h password=secret dbname=db", "host=h password=*** dbname=db"},
		{"host=x password='a b'", "host=x password=***"},
		{"host=x password = 'a \\' b' user=u", "host=x password = *** user=u"},
		{"password=a\\ b user=u", "password=*** user=u"},
		{"host=x sslpassword=secret", "host=x sslpassword=***"},
		{"host=x PASSWORD=secret", "host=x PASSWORD=***"},
		{"host=x password='unterminated user=u", "host=x password=***"},
		{"host=x passwordless=1", "host=x passwordless=1"},
		{"host=x user=u", "host=x user=u"},
		// Text that embeds connection strings.
		{
			"connecting to postgres://u:secret@h:5432/db: dial error",
			"connecting to postgres://u:***@h:5432/db: dial error",
		},
		{
			"cannot parse `host=h password=secret`: bad and postgres://a:b@c/d too",
			"cannot parse `host=h password=*** bad and postgres://a:***@c/d too",
		},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.want, Redact(tt.in))
		})
	}
}

func TestConnectUnreachable(t *testing.T) {
	t.Parallel()
	// A loopback port nobody listens on: take a free one and close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	tests := []struct {
		name, connString, want string
	}{
		{
			name:       "closed TCP port",
			connString: "postgres://u:s3cretpw@" + addr + "/db",
			want:       "connecting to postgres://u:***@" + addr + "/db: ",
		},
		{
			name:       "socket directory without a server",
			connString: "host=" + t.TempDir() + " user=u password=s3cretpw dbname=db",
			want:       "password=***",
		},
		{
			name:       "unparsable",
			connString: "postgres://u:s3cretpw@h:notaport/db",
			want:       "connecting to postgres://u:***@h:notaport/db: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			start := time.Now()
			pool, err := Connect(ctx, tt.connString, "pgseq test")
			require.Error(t, err)
			require.Nil(t, pool)
			require.Less(t, time.Since(start), 3*time.Second, "fails fast")
			require.Contains(t, err.Error(), tt.want)
			require.NotContains(t, err.Error(), "s3cretpw")
			require.NotContains(t, err.Error(), "\n")
			t.Log(err)
		})
	}
}

func TestTargetFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PGHOST", dir)
	t.Setenv("PGUSER", "someone")
	t.Setenv("PGDATABASE", "somedb")
	t.Setenv("PGPASSWORD", "s3cretpw")
	_, err := Connect(t.Context(), "", "pgseq test")
	require.Error(t, err)
	require.Contains(t, err.Error(), "connecting to host="+dir+" port=5432 user=someone dbname=somedb")
	require.NotContains(t, err.Error(), "s3cretpw")
}
