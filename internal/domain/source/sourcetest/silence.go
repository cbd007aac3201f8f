package sourcetest

import (
	"context"
	"net/url"
	"testing"
	"time"
)

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
