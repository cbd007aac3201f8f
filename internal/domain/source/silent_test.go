package source

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// silentPeer accepts connections on 127.0.0.1 and never writes a byte;
// it holds them open until the test ends.
func silentPeer(t *testing.T) string {
	t.Helper()
	return forwarder(t, "").addr
}

// relay is a TCP forwarder in front of a server (silentPeer's has none):
// once silence is called, no byte more of the server's reaches a client
// (what the server sends is read and dropped), while the client's bytes
// still reach the server. Its connections are held open until the test
// ends.
type relay struct {
	addr   string
	silent atomic.Bool
}

func (r *relay) silence() { r.silent.Store(true) }

func forwarder(t *testing.T, target string) *relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{addr: l.Addr().String()}
	if target == "" {
		r.silence()
	}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	keep := func(c net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c)
	}
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			keep(c)
			if target == "" {
				wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				t.Errorf("forwarder: %v", err)
				continue
			}
			keep(s)
			wg.Go(func() { _, _ = io.Copy(s, c) })
			wg.Go(func() { r.copyBack(c, s) })
		}
	})
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return r
}

// copyBack copies the server's bytes to the client until silenced.
func (r *relay) copyBack(client, server net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 && !r.silent.Load() {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// through is dsn (a URL) with its host replaced by addr.
func through(t *testing.T, dsn, addr string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// within fails the test when what took more than d: the deadline under
// test did not end it.
func within(t *testing.T, what string, start time.Time, d time.Duration) {
	t.Helper()
	if took := time.Since(start); took > d {
		t.Errorf("%s took %s, want at most %s", what, took, d)
	}
}

// longCtx is a context that ends long after every deadline under test: a
// step without its deadline fails on it instead of hanging the test.
func longCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestOpenSilentPeer: a server that accepts the connection and never
// answers fails Open on both engines within --source-timeout (or the
// DSN's own connect timeout), with an error naming the server and the
// setting, and no password.
func TestOpenSilentPeer(t *testing.T) {
	addr := silentPeer(t)
	cases := []struct {
		dsn  string
		o    Options
		want string
	}{
		{"postgres://scott:" + secret + "@" + addr + "/x?sslmode=disable", Options{Timeout: 300 * time.Millisecond},
			`^source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as scott: no answer within 300ms \(--source-timeout\)$`},
		// sslmode=prefer: two attempts, bounded together.
		{"postgres://scott:" + secret + "@" + addr + "/x", Options{Timeout: 300 * time.Millisecond},
			`^source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as scott: no answer within 300ms \(--source-timeout\)$`},
		{"postgres://scott:" + secret + "@" + addr + "/x?sslmode=disable&connect_timeout=1", Options{Timeout: time.Hour},
			`^source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as scott: no answer within 1s \(connect_timeout in the DSN\)$`},
		{"mysql://scott:" + secret + "@" + addr + "/x", Options{Timeout: 300 * time.Millisecond},
			`^source: connecting to MySQL at 127\.0\.0\.1:\d+ as scott: no answer within 300ms \(--source-timeout\)$`},
		{"scott:" + secret + "@tcp(" + addr + ")/x?timeout=1s", Options{Timeout: time.Hour},
			`^source: connecting to MySQL at 127\.0\.0\.1:\d+ as scott: no answer within 1s \(timeout in the DSN\)$`},
	}
	for _, c := range cases {
		start := time.Now()
		src, err := OpenWith(longCtx(t), c.dsn, c.o)
		if err == nil {
			src.Close()
			t.Fatalf("%s: opened a silent peer", c.dsn)
		}
		var na *NoAnswerError
		if !regexp.MustCompile(c.want).MatchString(err.Error()) || !errors.As(err, &na) {
			t.Errorf("%s: %v\nwant %s", c.dsn, err, c.want)
		}
		checkNoSecret(t, c.dsn, err)
		within(t, c.dsn, start, 20*time.Second)
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
				run         func(context.Context, Source) error
			}{
				{"reading the schema", "reading the schema" + at, func(ctx context.Context, s Source) error { _, err := s.Inspect(ctx); return err }},
				{"preparing a statement", "preparing a statement" + at, func(ctx context.Context, s Source) error { return s.Prepare(ctx, "SELECT 1") }},
				{"describing a query", "describing a query" + at, func(ctx context.Context, s Source) error {
					_, err := s.QueryColumns(ctx, "SELECT 1 AS one")
					return err
				}},
				{"opening the snapshot", snapshot, func(ctx context.Context, s Source) error { _, err := s.Snapshot(ctx, 2); return err }},
			}
			for _, step := range steps {
				r := forwarder(t, hostOf(t, eng.dsn))
				src, err := OpenWith(longCtx(t), through(t, eng.dsn, r.addr), Options{Timeout: 500 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				r.silence()
				start := time.Now()
				err = step.run(longCtx(t), src)
				var na *NoAnswerError
				want := regexp.MustCompile(`^source: ` + step.want + `: no answer within 500ms \(--source-timeout\)$`)
				if !errors.As(err, &na) || !want.MatchString(err.Error()) {
					t.Errorf("%s through a silenced server: %v\nwant %s", step.doing, err, want)
				}
				within(t, step.doing, start, 20*time.Second)
				src.Close()
			}
		})
	}
}

// hostOf is the host:port of a URL DSN.
func hostOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
