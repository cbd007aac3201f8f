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
// points a client at Addr and makes the network go silent in one of three
// ways, which a server cannot be made to do (stop answering without
// closing anything): Freeze (no byte more reaches either side, on every
// connection), Mute (the server's bytes no longer reach the client; the
// client's still reach the server) or FreezeOpen (the connections open
// now freeze both ways; those opened later are forwarded). Connections
// stay open, and what arrives on a silenced side is read and dropped. A
// relay to no server (target "") accepts connections and never answers.
type Relay struct {
	Addr   string
	frozen atomic.Bool
	muted  atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
	open  []*atomic.Bool // each connection's own freeze (FreezeOpen)
}

// Freeze stops every byte, on the connections open and those to come.
func (r *Relay) Freeze() { r.frozen.Store(true) }

// Mute drops every byte of the server's, on the connections open and those
// to come.
func (r *Relay) Mute() { r.muted.Store(true) }

// FreezeOpen stops every byte of the connections open now.
func (r *Relay) FreezeOpen() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.open {
		f.Store(true)
	}
}

// NewRelay starts a relay to target (host:port; "" for none) on
// 127.0.0.1; it is closed, with its connections, when the test ends.
func NewRelay(t testing.TB, target string) *Relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{Addr: l.Addr().String()}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if target == "" {
				r.keep(c)
				wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
				continue
			}
			s, err := net.DialTimeout("tcp", target, 10*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			frozen := r.keep(c, s)
			wg.Go(func() { r.pipe(s, c, frozen, false) })
			wg.Go(func() { r.pipe(c, s, frozen, true) })
		}
	})
	t.Cleanup(func() {
		l.Close()
		r.mu.Lock()
		for _, c := range r.conns {
			c.Close()
		}
		r.mu.Unlock()
		wg.Wait()
	})
	return r
}

// keep records a connection's sockets, to be closed at the end, and
// returns its own freeze.
func (r *Relay) keep(cs ...net.Conn) *atomic.Bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conns = append(r.conns, cs...)
	f := &atomic.Bool{}
	r.open = append(r.open, f)
	return f
}

// silenced says whether the bytes of one side of a connection (frozen
// its own freeze; fromServer: the server's) are dropped now.
func (r *Relay) silenced(frozen *atomic.Bool, fromServer bool) bool {
	return r.frozen.Load() || frozen.Load() || fromServer && r.muted.Load()
}

// pipe copies from src to dst until either closes; once silenced it reads
// and drops.
func (r *Relay) pipe(dst, src net.Conn, frozen *atomic.Bool, fromServer bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !r.silenced(frozen, fromServer) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			if !r.silenced(frozen, fromServer) {
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
			}
			return
		}
	}
}
