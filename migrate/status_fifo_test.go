//go:build unix

package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStatusNotARegularFile: a checkpoint path that is a named pipe (which
// no writer opens), a directory or a device is refused at once, naming
// what it is; reading the pipe blocked status forever.
func TestStatusNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ck.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "is not a regular file (a named pipe)"},
		{dir, "is not a regular file (a directory)"},
		{os.DevNull, "is not a regular file (a device)"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadStatus([]string{c.path})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want an error with %q", c.path, err, c.want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: status still reads it after 30 s", c.path)
		}
	}
}
