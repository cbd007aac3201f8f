package testenv

import (
	"bytes"
	"io"
	"os/exec"
	"testing"
)

// Proc is a program a test runs in the background (remodel itself, killed
// or stopped by a signal): its stdout kept, its stderr handed to the test's
// writer as it comes, and killed when the test ends if it still runs.
type Proc struct {
	Cmd    *exec.Cmd
	Stdout bytes.Buffer // read once Done
	done   chan struct{}
	err    error // Cmd.Wait's, once done
}

// StartProc starts cmd, its stderr going to stderr.
func StartProc(t testing.TB, cmd *exec.Cmd, stderr io.Writer) *Proc {
	t.Helper()
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.Stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// Done is closed when the program has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the program has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Err is how the program exited (Cmd.Wait's error); nil while it runs.
func (p *Proc) Err() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}
