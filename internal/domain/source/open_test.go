package source_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// secret is the password the DSNs of these tests hold.
const secret = "s3cr3tPW"

// checkNoSecret fails when an error from Open shows the password.
func checkNoSecret(t *testing.T, dsn string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, leak := range []string{secret, "s3cr", "3tPW"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("Open(%q) error shows the password: %v", dsn, err)
			return
		}
	}
}

func TestOpenBadDSNHidesPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, dsn := range []string{
		// Not a DSN Open knows.
		"host=127.0.0.1 user=postgres password=s3cr3tPW dbname=postgres",
		"sqlserver://sa:s3cr3tPW@127.0.0.1:1433/db",
		"s3cr3tPW",
		"scott/s3cr3tPW@orcl",
		// PostgreSQL DSNs pgx cannot parse.
		"postgres://postgres:s3cr3tPW@127.0.0.1:notaport/postgres",
		"postgres://postgres:s3cr3tPW@127.0.0.1:5432/postgres?sslmode=bogus",
		"postgres://postgres@127.0.0.1:notaport/postgres?password=s3cr3tPW",
		"postgres://postgres:s3cr3tPW@127.0.0.1:5432/postgres?connect_timeout=soon",
		"postgres://postgres:s3cr3tPW@[::1/postgres",
		// MySQL DSNs.
		"mysql://root:s3cr3tPW@127.0.0.1:notaport/test",
		"mysql://root:s3cr3tPW@127.0.0.1:3306/",
		"mysql://root:s3cr3tPW@127.0.0.1:3306/test?timeout=soon",
		"mysql://root:s3cr3tPW@127.0.0.1:3306/test?tls=nosuchconfig",
		"root:s3cr3tPW@tcp(127.0.0.1:3306)",
		"root:s3cr3tPW@tcp(127.0.0.1:3306)/test?timeout=soon",
		"root:s3cr3tPW@tcp(127.0.0.1:3306)/",
	} {
		src, err := source.Open(ctx, dsn)
		if err == nil {
			src.Close()
			t.Errorf("Open(%q) succeeded, want an error", dsn)
			continue
		}
		t.Logf("%v", err)
		if !strings.HasPrefix(err.Error(), "source: ") || strings.Contains(err.Error(), "%!") {
			t.Errorf("Open(%q) error %q: want a \"source: \" message", dsn, err)
		}
		checkNoSecret(t, dsn, err)
	}
}

func TestOpenBadDSNSaysWhy(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://postgres:s3cr3tPW@127.0.0.1:notaport/postgres":             "invalid port",
		"postgres://postgres:s3cr3tPW@127.0.0.1/postgres?connect_timeout=soon": "invalid connect_timeout",
		"mysql://root:s3cr3tPW@127.0.0.1:3306/":                                "names no database",
		"mysql://root:s3cr3tPW@127.0.0.1:3306/test?timeout=soon":               `invalid duration "soon"`,
	} {
		_, err := source.Open(context.Background(), dsn)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%q) = %v, want an error saying %q", dsn, err, want)
		}
	}
}

func TestOpenUnreachableHidesPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Port 1 on the loopback interface refuses connections at once.
	for _, dsn := range []string{
		"postgres://postgres:s3cr3tPW@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=5",
		"postgresql://postgres@127.0.0.1:1/postgres?sslmode=disable&password=s3cr3tPW",
		"mysql://root:s3cr3tPW@127.0.0.1:1/test?timeout=5s",
		"root:s3cr3tPW@tcp(127.0.0.1:1)/test?timeout=5s",
	} {
		src, err := source.Open(ctx, dsn)
		if err == nil {
			src.Close()
			t.Errorf("Open(%q) succeeded, want an error", dsn)
			continue
		}
		t.Logf("%v", err)
		if !strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("Open(%q) error %q does not say which server", dsn, err)
		}
		checkNoSecret(t, dsn, err)
	}
}

// withPassword returns the admin DSN of env with the user's password set to
// the test secret.
func withPassword(t *testing.T, env string) *url.URL {
	t.Helper()
	admin := os.Getenv(env)
	if admin == "" {
		if testenv.Require() {
			t.Fatalf("%s is not set and REMODEL_REQUIRE_SERVICES=1", env)
		}
		t.Skipf("%s is not set", env)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s is not a URL", env)
	}
	u.User = url.UserPassword(u.User.Username(), secret)
	return u
}

func TestOpenWrongPasswordHidesPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t.Run("mysql", func(t *testing.T) {
		u := withPassword(t, "REMODEL_TEST_MYSQL")
		native := u.User.Username() + ":" + secret + "@tcp(" + u.Host + ")" + u.Path
		for _, dsn := range []string{u.String(), native} {
			src, err := source.Open(ctx, dsn)
			if err == nil {
				// A server where this user's password is the secret: nothing to show.
				src.Close()
				t.Skipf("the MySQL server accepted %s", source.Redact(dsn))
			}
			t.Logf("%v", err)
			if !strings.Contains(err.Error(), "Access denied") {
				t.Errorf("Open(%q) error %q, want the server's access denied", source.Redact(dsn), err)
			}
			checkNoSecret(t, dsn, err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		u := withPassword(t, "REMODEL_TEST_POSTGRES")
		// A role whose password is checked whatever pg_hba.conf says is not
		// possible with trust authentication; the wrong password is at least
		// never shown, whether or not the server checks it.
		src, err := source.Open(ctx, u.String())
		if err == nil {
			src.Close()
			return
		}
		checkNoSecret(t, u.String(), err)
	})
}

func TestIdentity(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://u:secret@db.example:5433/shop?sslmode=disable", "postgres://u@db.example:5433/shop"},
		{"postgresql://u@db.example/shop", "postgres://u@db.example:5432/shop"},
		{"mysql://u:secret@db.example/shop?parseTime=false", "mysql://u@db.example:3306/shop"},
		{"u:secret@tcp(db.example:3306)/shop", "mysql://u@db.example:3306/shop"},
	} {
		got, err := source.Identity(tc.dsn)
		if err != nil || got != tc.want {
			t.Errorf("Identity(%s) = %q, %v; want %q", source.Redact(tc.dsn), got, err, tc.want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("Identity(%s) shows the password: %s", source.Redact(tc.dsn), got)
		}
	}
	if _, err := source.Identity("postgres://u@host:notaport/db"); err == nil {
		t.Error("Identity of a bad DSN: no error")
	}
}

// TestConnectErrorOneLine: pgx tries twice (sslmode=prefer: with TLS, then
// without) and joins both errors; a refused connection was printed twice,
// on two lines. It is one line, saying it once.
func TestConnectErrorOneLine(t *testing.T) {
	_, err := source.Open(context.Background(), "postgres://postgres@127.0.0.1:1/x?connect_timeout=2")
	if err == nil {
		t.Fatal("connected to port 1")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Count(msg, "connection refused") != 1 || !strings.HasPrefix(msg, "source: connecting to PostgreSQL at 127.0.0.1:1 as postgres: ") {
		t.Errorf("error %q: want one line, saying connection refused once", msg)
	}
}
