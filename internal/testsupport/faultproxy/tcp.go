package faultproxy

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Relay is a TCP forwarder in front of a server (a database): a test
// points a client at Addr, and Freeze makes it a network that has gone
// silent: connections stay open, new ones are accepted, and no byte more
// reaches either side (what arrives is held back, never delivered). It is
// what a server cannot be made to do: stop answering without closing
// anything.
type Relay struct {
	Addr   string
	frozen atomic.Bool
}

// Freeze stops every byte, on the connections open and those to come.
func (r *Relay) Freeze() { r.frozen.Store(true) }

// NewRelay starts a relay to target (host:port) on 127.0.0.1; it is closed,
// with its connections, when the test ends.
func NewRelay(t testing.TB, target string) *Relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{Addr: l.Addr().String()}
	var mu sync.Mutex
	var conns []net.Conn
	keep := func(cs ...net.Conn) {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, cs...)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.DialTimeout("tcp", target, 10*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			keep(c, s)
			wg.Go(func() { r.pipe(s, c) })
			wg.Go(func() { r.pipe(c, s) })
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

// pipe copies from src to dst until either closes; once frozen it reads
// and drops.
func (r *Relay) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !r.frozen.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			if !r.frozen.Load() {
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
			}
			return
		}
	}
}
