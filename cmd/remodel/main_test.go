package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestMain runs main itself when the test binary is started as remodel
// (by TestSignals).
func TestMain(m *testing.M) {
	if os.Getenv("REMODEL_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestSignals sends SIGINT and SIGTERM to a remodel waiting for its source
// (a server that accepts the connection and never answers): remodel stops,
// says why, and exits 130.
func TestSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGINT, "remodel: interrupted (interrupt signal received)\n"},
		{syscall.SIGTERM, "remodel: interrupted (terminated signal received)\n"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				if c, err := l.Accept(); err == nil {
					accepted <- c
					_, _ = io.Copy(io.Discard, c)
				}
			}()
			cmd := exec.Command(os.Args[0], "introspect", "--source", "postgres://u@"+l.Addr().String()+"/db")
			cmd.Env = append(os.Environ(), "REMODEL_TEST_RUN_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case c := <-accepted:
				defer c.Close()
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("remodel did not connect to the source")
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("remodel did not stop after %s", tc.sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 || stderr.String() != tc.want {
				t.Fatalf("after %s: %v, stderr %q; want exit status 130 and %q", tc.sig, err, stderr.String(), tc.want)
			}
		})
	}
}
