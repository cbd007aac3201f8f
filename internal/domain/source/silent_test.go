package source_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// silentPeer accepts connections on 127.0.0.1 and never writes a byte;
// it holds them open until the test ends.
func silentPeer(t *testing.T) string {
	t.Helper()
	return faultproxy.NewRelay(t, "").Addr
}

// TestOpenSilentPeer: a server that accepts the connection and never
// answers fails Open on both engines within --source-timeout (or the
// DSN's own connect timeout), with an error naming the server and the
// setting, and no password.
func TestOpenSilentPeer(t *testing.T) {
	addr := silentPeer(t)
	cases := []struct {
		dsn  string
		o    source.Options
		want string
	}{
		{"postgres://scott:" + secret + "@" + addr + "/x?sslmode=disable", source.Options{Timeout: 300 * time.Millisecond},
			`^source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as scott: no answer within 300ms \(--source-timeout\)$`},
		// sslmode=prefer: two attempts, bounded together.
		{"postgres://scott:" + secret + "@" + addr + "/x", source.Options{Timeout: 300 * time.Millisecond},
			`^source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as scott: no answer within 300ms \(--source-timeout\)$`},
		{"postgres://scott:" + secret + "@" + addr + "/x?sslmode=disable&connect_timeout=1", source.Options{Timeout: time.Hour},
			`^source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as scott: no answer within 1s \(connect_timeout in the DSN\)$`},
		{"mysql://scott:" + secret + "@" + addr + "/x", source.Options{Timeout: 300 * time.Millisecond},
			`^source: connecting to MySQL at 127\.0\.0\.1:\d+ as scott: no answer within 300ms \(--source-timeout\)$`},
		{"scott:" + secret + "@tcp(" + addr + ")/x?timeout=1s", source.Options{Timeout: time.Hour},
			`^source: connecting to MySQL at 127\.0\.0\.1:\d+ as scott: no answer within 1s \(timeout in the DSN\)$`},
	}
	for _, c := range cases {
		start := time.Now()
		src, err := source.OpenWith(sourcetest.LongContext(t), c.dsn, c.o)
		if err == nil {
			src.Close()
			t.Fatalf("%s: opened a silent peer", c.dsn)
		}
		var na *source.NoAnswerError
		if !regexp.MustCompile(c.want).MatchString(err.Error()) || !errors.As(err, &na) {
			t.Errorf("%s: %v\nwant %s", c.dsn, err, c.want)
		}
		checkNoSecret(t, c.dsn, err)
		sourcetest.Within(t, c.dsn, start, 20*time.Second)
	}
}

// TestSilentAfterConnect: a server that stops answering once connected
// fails the set-up steps after connecting (reading the schema, preparing
// and describing a query, opening the snapshot) within the deadline, the
// error naming the step and the server, and the snapshot's clean-up (a
// ROLLBACK on MySQL) does not wait for it either.
func TestSilentAfterConnect(t *testing.T) {
	for _, eng := range []struct{ name, dsn string }{
		{"PostgreSQL", testenv.Postgres(t)},
		{"MySQL", testenv.MySQL(t)},
	} {
		t.Run(eng.name, func(t *testing.T) {
			// Opening the snapshot: PostgreSQL connects anew (the
			// coordinator); MySQL takes the pool's idle connection and
			// sets its session for the read lock.
			snapshot := `connecting to PostgreSQL at 127\.0\.0\.1:\d+ as postgres`
			if eng.name == "MySQL" {
				snapshot = `setting lock_wait_timeout on MySQL at 127\.0\.0\.1:\d+`
			}
			at := " on " + eng.name + ` at 127\.0\.0\.1:\d+`
			steps := []struct {
				doing, want string
				run         func(context.Context, source.Source) error
			}{
				{"reading the schema", "reading the schema" + at, func(ctx context.Context, s source.Source) error { _, err := s.Inspect(ctx); return err }},
				{"preparing a statement", "preparing a statement" + at, func(ctx context.Context, s source.Source) error { return s.Prepare(ctx, "SELECT 1") }},
				{"describing a query", "describing a query" + at, func(ctx context.Context, s source.Source) error {
					_, err := s.QueryColumns(ctx, "SELECT 1 AS one")
					return err
				}},
				{"opening the snapshot", snapshot, func(ctx context.Context, s source.Source) error { _, err := s.Snapshot(ctx, 2); return err }},
			}
			for _, step := range steps {
				r := faultproxy.NewRelay(t, sourcetest.HostOf(t, eng.dsn))
				src, err := source.OpenWith(sourcetest.LongContext(t), sourcetest.Through(t, eng.dsn, r.Addr), source.Options{Timeout: 500 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				r.Mute()
				start := time.Now()
				err = step.run(sourcetest.LongContext(t), src)
				var na *source.NoAnswerError
				want := regexp.MustCompile(`^source: ` + step.want + `: no answer within 500ms \(--source-timeout\)$`)
				if !errors.As(err, &na) || !want.MatchString(err.Error()) {
					t.Errorf("%s through a silenced server: %v\nwant %s", step.doing, err, want)
				}
				sourcetest.Within(t, step.doing, start, 20*time.Second)
				src.Close()
			}
		})
	}
}
