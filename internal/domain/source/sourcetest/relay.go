package sourcetest

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Relay is a TCP forwarder in front of a server (silentPeer's has none):
// once Silence is called, no byte more of the server's reaches a client
// (what the server sends is read and dropped), while the client's bytes
// still reach the server. Its connections are held open until the test
// ends.
type Relay struct {
	Addr   string
	silent atomic.Bool
}

// Silence drops every byte of the server's from now on.
func (r *Relay) Silence() { r.silent.Store(true) }

// Forwarder is a Relay to target (host:port), closed when the test ends.
func Forwarder(t *testing.T, target string) *Relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{Addr: l.Addr().String()}
	if target == "" {
		r.Silence()
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
func (r *Relay) copyBack(client, server net.Conn) {
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

// Through is dsn (a URL) with its host replaced by addr.
func Through(t *testing.T, dsn, addr string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// Within fails the test when what took more than d: the deadline under
// test did not end it.
func Within(t *testing.T, what string, start time.Time, d time.Duration) {
	t.Helper()
	if took := time.Since(start); took > d {
		t.Errorf("%s took %s, want at most %s", what, took, d)
	}
}

// LongContext is a context that ends long after every deadline under test: a
// step without its deadline fails on it instead of hanging the test.
func LongContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// HostOf is the host:port of a URL DSN.
func HostOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
