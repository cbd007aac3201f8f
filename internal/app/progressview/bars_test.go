//go:build linux

package progressview

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// openPTY opens a pseudo-terminal of 120 columns: the program's end (a
// terminal) and the controller's end that reads what was drawn.
func openPTY(t *testing.T) (controller, term *os.File) {
	t.Helper()
	c, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(c.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	p, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(p.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatalf("sizing the pseudo-terminal: %v", err)
	}
	return c, p
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// TestBarsOnTerminal: on a terminal, auto mode draws bars: a bar per task
// with its phase and name, counts, percent ("?%" without a total) and ETA,
// and at the end the complete phase's bars full at 100%. On a file, auto
// mode prints lines.
func TestBarsOnTerminal(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if IsTerminal(file) {
		t.Fatal("a file is taken for a terminal")
	}
	if p, _, _ := New(Auto, file, time.Second); fmt.Sprintf("%T", p) != "*progressview.Lines" {
		t.Errorf("auto on a file prints %T, want lines", p)
	}

	ctl, term := openPTY(t)
	defer ctl.Close()
	if !IsTerminal(term) {
		t.Fatal("a pseudo-terminal is not taken for a terminal")
	}
	pr, every, err := New(Auto, term, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pr.(*BarsPrinter); !ok || every != BarRefresh {
		t.Fatalf("auto on a terminal: %T every %s, want bars every %s", pr, every, BarRefresh)
	}
	var drawn lockedBuffer
	read := make(chan error)
	go func() {
		_, err := io.Copy(&drawn, ctl)
		read <- err
	}()

	pr.Print(copyState(6*time.Second, 1000, 200))
	mid := []string{
		"copy personal", "copy subscribe", "1000 of 1200 rows", "83.3%", "ETA 1s",
		"200 of ~3800 rows", "5.3%", "ETA 54s", "6 rows", "?%", "6 rows/s",
	}
	for _, want := range mid { // drawn before the end: mpb draws on its own ticks
		drawn.waitFor(t, want, func(s string) string { return ansi.ReplaceAllString(s, "") })
	}
	pr.Close(ended(copyState(25*time.Second, 1200, 3790)))
	term.Close()
	if err := <-read; err != nil && !errors.Is(err, syscall.EIO) { // EIO: the terminal end closed
		t.Fatalf("reading the pseudo-terminal: %v", err)
	}
	out := ansi.ReplaceAllString(drawn.String(), "")
	for _, want := range append(mid, "1200 of 1200 rows", "100.0%", "3790 of 3790 rows", "25s") {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
}

// TestFollowBarsOnTerminal: on a terminal, a follower's phase is a live
// line of its lag under the copy's bars, redrawn as it changes: source
// and applied positions, seconds behind, changes and changes/s, rejected
// rows; at the end its final lag stays on the screen.
func TestFollowBarsOnTerminal(t *testing.T) {
	ctl, term := openPTY(t)
	defer ctl.Close()
	pr, _, err := New(Auto, term, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var drawn lockedBuffer
	read := make(chan error)
	go func() {
		_, err := io.Copy(&drawn, ctl)
		read <- err
	}()
	// shows waits until the terminal shows want (mpb draws on its own
	// ticks).
	shows := func(want string) {
		t.Helper()
		drawn.waitFor(t, want, func(s string) string { return ansi.ReplaceAllString(s, "") })
	}
	pr.Print(followState(time.Second, 0, "0/2443CA8", "0/2443CA8", 0, 0, false))
	shows("applied 0/2443CA8, source at 0/2443CA8, 0.0s behind, 0 changes (0/s), 0 rejected")
	pr.Print(followState(6*time.Second, 61, "0/24476A0", "0/24475E0", 345*time.Millisecond, 58.04, false))
	shows("behind: applied 0/24475E0, source at 0/24476A0, 0.3s behind, 61 changes (58/s), 0 rejected")
	stalled := followState(9*time.Second, 61, "0/24476A0", "0/24475E0", 9*time.Second, 0, false)
	lag := stalled.Phases[len(stalled.Phases)-1].Lag
	lag.State, lag.Cause = progress.LagStalled, "source silent"
	pr.Print(stalled)
	shows("stalled: applied 0/24475E0, source at 0/24476A0, 9.0s behind, 61 changes (0/s) (source silent)")
	pr.Close(followState(65*time.Second, 130, "0/2449A10", "0/2449A10", 0, 0, true))
	term.Close()
	if err := <-read; err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatalf("reading the pseudo-terminal: %v", err)
	}
	out := ansi.ReplaceAllString(drawn.String(), "")
	for _, want := range []string{"copy personal", "1200 of 1200 rows", "follow stream",
		"applied 0/2449A10, source at 0/2449A10, 0.0s behind, 130 changes (0/s), 1 rejected"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "follow stream") && (strings.Contains(line, "[") || strings.Contains(line, "?%")) {
			t.Errorf("the follower's line is drawn as a bar: %q", line)
		}
	}
}
