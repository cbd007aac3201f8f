package faultproxy_test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
)

// echoServer answers each line it reads with the line, and records the
// lines it read.
func echoServer(t *testing.T) (addr string, got chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got = make(chan string, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					got <- sc.Text()
					if _, err := c.Write([]byte(sc.Text() + "\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String(), got
}

// exchange sends line through c and says whether its echo came back
// within wait.
func exchange(t *testing.T, c net.Conn, line string, wait time.Duration) bool {
	t.Helper()
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	back, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.TrimSpace(back) == line
}

// received says whether the server read line within wait.
func received(got chan string, line string, wait time.Duration) bool {
	for deadline := time.After(wait); ; {
		select {
		case l := <-got:
			if l == line {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRelay: each way of going silent stops what it says and nothing
// else. Mute drops the server's bytes while the client's still arrive;
// FreezeOpen stops the connections open then, not later ones; Freeze stops
// both ways on every connection; a relay to no server never answers.
func TestRelay(t *testing.T) {
	const long, short = 10 * time.Second, 300 * time.Millisecond
	t.Run("mute", func(t *testing.T) {
		addr, got := echoServer(t)
		r := faultproxy.NewRelay(t, addr)
		c := dial(t, r.Addr)
		if !exchange(t, c, "before", long) {
			t.Fatal("no echo before the relay was muted")
		}
		r.Mute()
		if exchange(t, c, "muted", short) {
			t.Error("the server's answer came through a muted relay")
		}
		if !received(got, "muted", long) {
			t.Error("the client's line did not reach the server through a muted relay")
		}
	})
	t.Run("freeze open", func(t *testing.T) {
		addr, got := echoServer(t)
		r := faultproxy.NewRelay(t, addr)
		old := dial(t, r.Addr)
		if !exchange(t, old, "before", long) {
			t.Fatal("no echo before the freeze")
		}
		r.FreezeOpen()
		if exchange(t, old, "frozen", short) || received(got, "frozen", short) {
			t.Error("a byte crossed a connection frozen by FreezeOpen")
		}
		if !exchange(t, dial(t, r.Addr), "later", long) {
			t.Error("a connection opened after FreezeOpen is not forwarded")
		}
	})
	t.Run("freeze", func(t *testing.T) {
		addr, got := echoServer(t)
		r := faultproxy.NewRelay(t, addr)
		r.Freeze()
		if exchange(t, dial(t, r.Addr), "frozen", short) || received(got, "frozen", short) {
			t.Error("a byte crossed a frozen relay")
		}
	})
	t.Run("no server", func(t *testing.T) {
		r := faultproxy.NewRelay(t, "")
		if exchange(t, dial(t, r.Addr), "anyone", short) {
			t.Error("a relay to no server answered")
		}
	})
}
