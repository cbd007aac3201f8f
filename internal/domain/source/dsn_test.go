package source

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

const secret = "s3cr3tPW"

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		keep []string // parts that must survive, so the message still says which DSN
	}{
		{"postgres://alice:s3cr3tPW@db.example:5432/shop?sslmode=disable", []string{"postgres://", "alice", "db.example:5432", "/shop", "sslmode=disable"}},
		{"postgresql://alice:s3cr3tPW@db.example/shop", []string{"postgresql://", "alice", "db.example", "/shop"}},
		{"postgres://alice:s3cr%40tPW%2Fx@db.example/shop", []string{"alice", "db.example"}},
		{"postgres://alice@db.example/shop?password=s3cr3tPW&sslmode=disable", []string{"alice", "db.example", "sslmode=disable"}},
		{"postgres://alice:s3cr3tPW@db.example:notaport/shop", []string{"postgres://alice:xxxxx@db.example:notaport/shop"}},
		{"postgres://alice:s3cr/3tPW@db.example:notaport/shop", []string{"postgres://alice:xxxxx@db.example:notaport/shop"}},
		{"host=db.example user=alice password=s3cr3tPW dbname=shop", []string{"host=db.example", "user=alice", "dbname=shop"}},
		{"host=db.example password='s3cr3tPW and more' dbname=shop", []string{"host=db.example", "dbname=shop"}},
		{"mysql://root:s3cr3tPW@127.0.0.1:3306/shop?tls=false", []string{"mysql://", "root", "127.0.0.1:3306", "/shop", "tls=false"}},
		{"mysql://root:s3cr3tPW@127.0.0.1:notaport/shop", []string{"mysql://root:xxxxx@127.0.0.1:notaport/shop"}},
		{"root:s3cr3tPW@tcp(127.0.0.1:3306)/shop", []string{"root:", "@tcp(127.0.0.1:3306)/shop"}},
		{"my_user:s3cr3tPW@tcp(db:3306)/shop?parseTime=true", []string{"my_user:", "@tcp(db:3306)/shop?parseTime=true"}},
		{"root:s3cr3tPW@unix(/var/run/mysqld/mysqld.sock)/shop", []string{"root:", "@unix(/var/run/mysqld/mysqld.sock)/shop"}},
		{"root:s3cr3tPW@tcp(127.0.0.1:3306)", []string{"root:", "@tcp(127.0.0.1:3306)"}},
		// go-sql-driver takes the password up to the last @ before the last /.
		{"root:s3cr@3tPW@tcp(127.0.0.1:3306)/shop", []string{"root:", "@tcp(127.0.0.1:3306)/shop"}},
		{"root:s3c:r3tPW@tcp(127.0.0.1:3306)/shop", []string{"root:", "@tcp(127.0.0.1:3306)/shop"}},
	} {
		got := Redact(tc.dsn)
		for _, leak := range []string{secret, "s3cr", "3tPW", "r3tPW"} {
			if strings.Contains(got, leak) {
				t.Errorf("Redact(%q) = %q: shows (part of) the password", tc.dsn, got)
				break
			}
		}
		for _, k := range tc.keep {
			if !strings.Contains(got, k) {
				t.Errorf("Redact(%q) = %q: lost %q", tc.dsn, got, k)
			}
		}
	}
}

func TestRedactWithoutPassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://alice@db.example:5432/shop?sslmode=disable",
		"mysql://root@127.0.0.1:3306/shop",
		"root@tcp(127.0.0.1:3306)/shop",
		"tcp(127.0.0.1:3306)/shop",
		"host=db.example user=alice",
	} {
		if got := Redact(dsn); got != dsn {
			t.Errorf("Redact(%q) = %q, want it unchanged", dsn, got)
		}
	}
}

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
		src, err := Open(ctx, dsn)
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
		_, err := Open(context.Background(), dsn)
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
		src, err := Open(ctx, dsn)
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
			src, err := Open(ctx, dsn)
			if err == nil {
				// A server where this user's password is the secret: nothing to show.
				src.Close()
				t.Skipf("the MySQL server accepted %s", Redact(dsn))
			}
			t.Logf("%v", err)
			if !strings.Contains(err.Error(), "Access denied") {
				t.Errorf("Open(%q) error %q, want the server's access denied", Redact(dsn), err)
			}
			checkNoSecret(t, dsn, err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		u := withPassword(t, "REMODEL_TEST_POSTGRES")
		// A role whose password is checked whatever pg_hba.conf says is not
		// possible with trust authentication; the wrong password is at least
		// never shown, whether or not the server checks it.
		src, err := Open(ctx, u.String())
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
		got, err := Identity(tc.dsn)
		if err != nil || got != tc.want {
			t.Errorf("Identity(%s) = %q, %v; want %q", Redact(tc.dsn), got, err, tc.want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("Identity(%s) shows the password: %s", Redact(tc.dsn), got)
		}
	}
	if _, err := Identity("postgres://u@host:notaport/db"); err == nil {
		t.Error("Identity of a bad DSN: no error")
	}
}

// TestConnectErrorOneLine: pgx tries twice (sslmode=prefer: with TLS, then
// without) and joins both errors; a refused connection was printed twice,
// on two lines. It is one line, saying it once.
func TestConnectErrorOneLine(t *testing.T) {
	_, err := Open(context.Background(), "postgres://postgres@127.0.0.1:1/x?connect_timeout=2")
	if err == nil {
		t.Fatal("connected to port 1")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Count(msg, "connection refused") != 1 || !strings.HasPrefix(msg, "source: connecting to PostgreSQL at 127.0.0.1:1 as postgres: ") {
		t.Errorf("error %q: want one line, saying connection refused once", msg)
	}
}
