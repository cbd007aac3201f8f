package source_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// forward listens on a new local port and forwards every connection to
// addr, until the test ends; it returns the port's address.
func forward(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", addr)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(out, in); out.Close() }()
			go func() { defer wg.Done(); _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return ln.Addr().String()
}

// otherAddress is the DSN with its host and port replaced by a forwarder's.
func otherAddress(t *testing.T, engine, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	addr := u.Host
	if engine == "mysql" && !strings.Contains(addr, ":") {
		addr += ":3306"
	}
	u.Host = forward(t, addr)
	return u.String()
}

// TestServerID: the same database reached at another address (a proxy
// port) has the same ServerID, though its Identity differs; another
// database of the same server has another.
func TestServerID(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn, other := eng.Fresh(t), eng.Fresh(t)
			proxied := otherAddress(t, eng.Name, dsn)
			ids := map[string]string{}
			for name, d := range map[string]string{"direct": dsn, "proxied": proxied, "other": other} {
				src, err := source.Open(ctx, d)
				if err != nil {
					t.Fatalf("Open %s: %v", name, err)
				}
				id, err := source.ServerID(ctx, src)
				src.Close()
				if err != nil {
					t.Fatalf("ServerID %s: %v", name, err)
				}
				if id == "" {
					t.Fatalf("ServerID %s is empty: the test user may read it", name)
				}
				ids[name] = id
			}
			if ids["direct"] != ids["proxied"] {
				t.Errorf("one database at two addresses has two ids: %q and %q", ids["direct"], ids["proxied"])
			}
			if ids["direct"] == ids["other"] {
				t.Errorf("two databases have one id %q", ids["direct"])
			}
			a, _ := source.Identity(dsn)
			b, _ := source.Identity(proxied)
			if a == b {
				t.Errorf("the proxied DSN has the address identity of the direct one (%s): the test proves nothing", a)
			}
		})
	}
}
