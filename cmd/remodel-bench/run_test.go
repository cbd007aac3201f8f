//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/cli"
)

// TestMain lets the test binary stand in for the bench binary as spawn's
// go-between, for a child that holds BENCH_TEST_ALLOC_MB of memory, and,
// with BENCH_TEST_REMODEL=1 (remodelEnv), for remodel itself (the kill
// loop's test).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == spawnArg {
		os.Exit(spawned(os.Args[2:]))
	}
	if os.Getenv(remodelEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if mb, err := strconv.Atoi(os.Getenv("BENCH_TEST_ALLOC_MB")); err == nil {
		hold(mb)
		os.Stdout.WriteString("held " + strconv.Itoa(mb) + " MB\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSpawnMeasuresTheChildAlone: the peak RSS spawn reports is the
// child's, not the parent's, even when the parent is much larger.
func TestSpawnMeasuresTheChildAlone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss semantics checked on Linux")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	release := hold(600) // the bench holds the raw sink's items
	defer release()
	var out bytes.Buffer
	u, err := spawn(context.Background(), self, nil, append(os.Environ(), "BENCH_TEST_ALLOC_MB=60"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "held 60 MB\n" {
		t.Errorf("the child's output: %q", out.String())
	}
	if u.MaxRSS < 60<<20 || u.MaxRSS > 300<<20 {
		t.Errorf("max RSS %d MiB, want the child's 60 MiB and its runtime's, far from the parent's 600", u.MaxRSS>>20)
	}
	if u.User+u.Sys <= 0 || u.Wall <= 0 {
		t.Errorf("usage %+v", u)
	}
}

// hold maps mb MiB of memory outside the Go heap (so the race detector's
// shadow memory does not multiply it) and touches every page.
func hold(mb int) (release func()) {
	b, err := syscall.Mmap(-1, 0, mb<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	return func() { _ = syscall.Munmap(b) }
}

func TestSpawnPassesTheExitStatus(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	var out bytes.Buffer
	_, err = spawn(context.Background(), sh, []string{"-c", "echo oops >&2; exit 3"}, os.Environ(), &out)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("err = %v, want exit status 3", err)
	}
	if out.String() != "oops\n" {
		t.Errorf("output %q", out.String())
	}
	if _, err := spawn(context.Background(), "/nonexistent/remodel", nil, os.Environ(), &out); err == nil {
		t.Error("a missing binary gave no error")
	}
}
