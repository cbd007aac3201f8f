package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// statusLine is one line of remodel migrate --follow --progress json that
// the follow bench reads, with the moment it arrived: the copy phase's end
// line, or a line of the follower's lag.
type statusLine struct {
	At time.Time
	// CopyEnd: the copy phase ended, after CopyElapsed, with CopyDone rows
	// written or rejected.
	CopyEnd     bool
	CopyDone    int64
	CopyElapsed time.Duration
	// Follow: a lag line ({"follow": ...}).
	Follow           bool
	Source, Applied  string
	Behind           time.Duration
	Changes          int64 // applied since this follower process started
	ChangesPerSecond float64
}

// caughtUp says whether the line shows every one of want changes applied
// and nothing received waiting: the follower's lag is 0.
func (s statusLine) caughtUp(want int64) bool {
	return s.Follow && s.Changes >= want && s.Behind == 0
}

// parseStatus reads one line of remodel's stderr: false for a line the
// bench does not use (another phase, a progress line, text).
func parseStatus(line []byte, at time.Time) (statusLine, bool, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return statusLine{}, false, nil
	}
	var v struct {
		Event        string   `json:"event"`
		Phase        string   `json:"phase"`
		PhaseElapsed *float64 `json:"phase_elapsed_s"`
		Done         int64    `json:"done"`
		Follow       *struct {
			Source      *string  `json:"source"`
			Applied     *string  `json:"applied"`
			Behind      *float64 `json:"behind_s"`
			Changes     *int64   `json:"changes"`
			ChangesPerS float64  `json:"changes_per_s"`
		} `json:"follow"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return statusLine{}, false, fmt.Errorf("bench: a JSON line of remodel's that does not parse: %w: %s", err, line)
	}
	switch {
	case v.Follow != nil:
		f := v.Follow
		if f.Source == nil || f.Applied == nil || f.Behind == nil || f.Changes == nil || *f.Behind < 0 {
			return statusLine{}, false, fmt.Errorf("bench: a follow line of remodel's without source, applied, behind_s or changes: %s", line)
		}
		return statusLine{At: at, Follow: true, Source: *f.Source, Applied: *f.Applied,
			Behind: time.Duration(*f.Behind * float64(time.Second)), Changes: *f.Changes, ChangesPerSecond: f.ChangesPerS}, true, nil
	case v.Phase == "copy" && v.Event == "end":
		if v.PhaseElapsed == nil {
			return statusLine{}, false, fmt.Errorf("bench: the copy's end line has no phase_elapsed_s: %s", line)
		}
		return statusLine{At: at, CopyEnd: true, CopyDone: v.Done, CopyElapsed: time.Duration(*v.PhaseElapsed * float64(time.Second))}, true, nil
	}
	return statusLine{}, false, nil
}

// follower is one remodel migrate --follow process whose stderr the bench
// reads as it comes: every line goes to its log, the status lines to
// lines, which the bench waits on.
type follower struct {
	cmd   *exec.Cmd
	start time.Time
	log   string
	exit  chan struct{} // closed when the process has ended
	err   error         // cmd.Wait's, once exit is closed

	mu     sync.Mutex
	lines  []statusLine
	bad    error         // the first line that did not parse
	notify chan struct{} // a token when a line came or the stream ended
	eof    bool
}

// startFollower starts bin with args (and env besides the bench's own), its
// stdout and stderr into logPath.
func startFollower(bin string, args, env []string, logPath string) (*follower, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	f := &follower{cmd: exec.Command(bin, args...), log: logPath, exit: make(chan struct{}), notify: make(chan struct{}, 1)}
	f.cmd.Stdout, f.cmd.Stderr = log, pw
	if len(env) > 0 {
		f.cmd.Env = append(os.Environ(), env...)
	}
	f.start = time.Now()
	err = f.cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		log.Close()
		return nil, fmt.Errorf("bench: starting %s: %w", bin, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer pr.Close()
		f.read(pr, log)
	}()
	go func() {
		<-done // every line read first: the last ones count
		f.err = f.cmd.Wait()
		log.Close()
		close(f.exit)
		f.wake()
	}()
	return f, nil
}

// read copies r to log line by line, keeping the status lines.
func (f *follower) read(r io.Reader, log io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		at := time.Now()
		_, _ = log.Write(append(sc.Bytes(), '\n'))
		s, ok, err := parseStatus(sc.Bytes(), at)
		f.mu.Lock()
		if err != nil && f.bad == nil {
			f.bad = err
		}
		if ok {
			f.lines = append(f.lines, s)
		}
		f.mu.Unlock()
		f.wake()
	}
	f.mu.Lock()
	f.eof = true
	f.mu.Unlock()
}

func (f *follower) wake() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// wait returns the first status line from the from-th on that ok accepts,
// and its index; an error when the process ends first, a line did not
// parse, or limit passes.
func (f *follower) wait(ctx context.Context, from int, limit time.Duration, what string, ok func(statusLine) bool) (statusLine, int, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		for i := from; i < len(f.lines); i++ {
			if ok(f.lines[i]) {
				s := f.lines[i]
				f.mu.Unlock()
				return s, i, nil
			}
		}
		from = len(f.lines)
		bad, eof := f.bad, f.eof
		var last string
		if n := len(f.lines); n > 0 {
			last = fmt.Sprintf("; the last status line: %+v", f.lines[n-1])
		}
		f.mu.Unlock()
		if bad != nil {
			return statusLine{}, 0, bad
		}
		if eof {
			<-f.exit
			return statusLine{}, 0, fmt.Errorf("bench: waiting for %s: remodel ended first (%v)%s\n%s", what, f.err, last, tail(f.log))
		}
		select {
		case <-f.notify:
		case <-ctx.Done():
			return statusLine{}, 0, ctx.Err()
		case <-deadline.C:
			return statusLine{}, 0, fmt.Errorf("bench: waiting for %s: not within %s%s", what, limit, last)
		}
	}
}

// since is the status lines from the from-th on.
func (f *follower) since(from int) []statusLine {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]statusLine(nil), f.lines[min(from, len(f.lines)):]...)
}

// count is the number of status lines so far.
func (f *follower) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.lines)
}

// stop sends SIGINT, which stops the follower cleanly, and waits up to
// limit for the process to end; it must end with status 0.
func (f *follower) stop(limit time.Duration) error {
	if err := f.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("bench: stopping remodel: %w", err)
	}
	select {
	case <-f.exit:
	case <-time.After(limit):
		_ = f.cmd.Process.Kill()
		<-f.exit
		return fmt.Errorf("bench: remodel did not stop within %s of SIGINT; killed\n%s", limit, tail(f.log))
	}
	if f.err != nil {
		return fmt.Errorf("bench: remodel migrate --follow, stopped by SIGINT: %w\n%s", f.err, tail(f.log))
	}
	return nil
}

// kill ends the process, if it still runs (a bench that failed).
func (f *follower) kill() {
	select {
	case <-f.exit:
	default:
		_ = f.cmd.Process.Kill()
		<-f.exit
	}
}

// cpu is the process's user+sys CPU time so far (while it runs; after,
// from its rusage).
func (f *follower) cpu() time.Duration {
	select {
	case <-f.exit:
		return f.cmd.ProcessState.UserTime() + f.cmd.ProcessState.SystemTime()
	default:
	}
	c, _ := processCPU(f.cmd.Process.Pid)
	return c
}

// peakRSS is the process's peak resident memory so far, in bytes: VmHWM
// of /proc/PID/status, which counts from its exec (0 where there is no
// /proc, or once it has ended).
func (f *follower) peakRSS() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(f.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	return vmHWM(string(b))
}

// vmHWM reads the VmHWM line ("VmHWM:   123456 kB") of a /proc/PID/status.
func vmHWM(status string) int64 {
	for l := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(l, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// runCommand runs bin with args within limit, its output into logPath;
// an exit status other than 0 is an error with the log's tail.
func runCommand(ctx context.Context, limit time.Duration, bin string, args []string, logPath string) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	log, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("not done within %s: %w", limit, err)
		}
		return fmt.Errorf("bench: %s %s: %w\n%s", bin, args[0], err, tail(logPath))
	}
	return nil
}
