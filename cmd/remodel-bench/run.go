package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/remodel-dev/remodel/migrate"
)

// migrateRun is one `remodel migrate` process.
type migrateRun struct {
	bin    string   // the remodel binary (or the bench itself with profileArg)
	pre    []string // arguments before "migrate"
	env    []string // added to the environment
	source string
	mapPth string
	table  string
	endpt  string
	reads  int
	writes int
	work   string   // folder for the report, the rejects file and the log
	to     string   // --to (null: for the null sink, which keeps no checkpoint); "": into table
	extra  []string // more arguments of migrate (-key-check always)
	// embedExtra are more arguments of the kill loop's embedded job, after
	// extra (the tests slow it down: its items are fewer and larger).
	embedExtra []string
}

// run starts remodel migrate into an existing empty table, waits for it,
// and returns the measurement (wall time around the process, its rusage)
// and its report.
func (m migrateRun) run(ctx context.Context, name string) (result, *migrate.Report, error) {
	reportPath := filepath.Join(m.work, m.table+".report.json")
	logPath := filepath.Join(m.work, m.table+".log")
	args := append(append([]string{}, m.pre...), "migrate",
		"--source", m.source, "-m", m.mapPth,
		"--endpoint", m.endpt, "--table", m.table,
		"--readers", strconv.Itoa(m.reads), "--writers", strconv.Itoa(m.writes),
		"--rejects", filepath.Join(m.work, m.table+".rejects.jsonl"),
		"--output-file", "json="+reportPath, "--output", "json")
	if m.to != "" {
		args = append(args, "--to", m.to)
	} else {
		args = append(args, "--checkpoint", filepath.Join(m.work, m.table+".checkpoint.json")) // a failed run's is not left in the current folder
	}
	args = append(args, m.extra...)
	log, err := os.Create(logPath)
	if err != nil {
		return result{}, nil, fmt.Errorf("bench: %w", err)
	}
	defer log.Close()
	u, err := spawn(ctx, m.bin, args, append(os.Environ(), m.env...), log)
	if err != nil {
		tail, _ := os.ReadFile(logPath)
		if len(tail) > 4000 {
			tail = tail[len(tail)-4000:]
		}
		return result{}, nil, fmt.Errorf("bench: %s: remodel migrate: %w\n%s", name, err, tail)
	}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		return result{}, nil, fmt.Errorf("bench: %s: reading remodel's report: %w", name, err)
	}
	var rep migrate.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return result{}, nil, fmt.Errorf("bench: %s: remodel's report: %w", name, err)
	}
	return result{Name: name, Items: rep.ItemsWritten, Wall: u.Wall, CPU: u.User + u.Sys, MaxRSS: u.MaxRSS}, &rep, nil
}

// verifyRun is one `remodel verify` process, of the table an end-to-end
// run wrote.
type verifyRun struct {
	bin, source, mapPth, table, endpt, work string
	// files, when set, checks migrate --to's objects under this URL
	// (verify --files) instead of the table.
	files string
}

// verifyReport is what the bench reads of verify's JSON report.
type verifyReport struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Items []struct {
		Compared int64 `json:"compared"`
	} `json:"items"`
}

// run starts remodel verify (every item compared, patterns with a fixed
// seed), waits for it, and returns the measurement with the rows whose
// items it compared; a verify that does not pass is an error.
func (v verifyRun) run(ctx context.Context, name string) (result, error) {
	reportPath := filepath.Join(v.work, v.table+".verify.json")
	logPath := filepath.Join(v.work, v.table+".verify.log")
	args := []string{"verify", "--source", v.source, "-m", v.mapPth,
		"--endpoint", v.endpt, "--table", v.table, "--seed", "1", "--progress", "none",
		"--output-file", "json=" + reportPath}
	if v.files != "" {
		args = append(args, "--files", v.files)
	}
	log, err := os.Create(logPath)
	if err != nil {
		return result{}, fmt.Errorf("bench: %w", err)
	}
	defer log.Close()
	u, err := spawn(ctx, v.bin, args, os.Environ(), log)
	b, rerr := os.ReadFile(reportPath)
	var rep verifyReport
	if rerr == nil {
		rerr = json.Unmarshal(b, &rep)
	}
	if err != nil || rerr != nil || !rep.OK {
		tail, _ := os.ReadFile(logPath)
		if len(tail) > 4000 {
			tail = tail[len(tail)-4000:]
		}
		return result{}, fmt.Errorf("bench: %s: remodel verify did not pass (%v; report: %v %s):\n%s", name, err, rerr, rep.Error, tail)
	}
	var compared int64
	for _, ic := range rep.Items {
		compared += ic.Compared
	}
	return result{Name: name, Items: compared, Wall: u.Wall, CPU: u.User + u.Sys, MaxRSS: u.MaxRSS}, nil
}

// usage is what a spawned process cost.
type usage struct {
	Wall, User, Sys time.Duration
	MaxRSS          int64 // bytes
}

// spawnArg runs the bench as a small go-between that starts one command and
// reports its usage (see spawn).
const spawnArg = "__spawn"

// spawn runs bin with args through a fresh copy of the bench binary, which
// starts it, waits for it and reports its rusage. Started straight from the
// bench, the process's peak RSS would be wrong: Linux counts in a process's
// ru_maxrss the peak of the memory it had before exec, and a process
// started by Go's vfork-style clone has the parent's memory then — the
// bench's, which holds the raw sink's items. The go-between is small.
func spawn(ctx context.Context, bin string, args, env []string, out io.Writer) (usage, error) {
	self, err := os.Executable()
	if err != nil {
		return usage{}, fmt.Errorf("bench: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return usage{}, fmt.Errorf("bench: %w", err)
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, self, append([]string{spawnArg, bin}, args...)...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return usage{}, fmt.Errorf("bench: starting %s: %w", bin, err)
	}
	var u usage
	decErr := json.NewDecoder(r).Decode(&u)
	if err := cmd.Wait(); err != nil {
		return usage{}, err
	}
	if decErr != nil {
		return usage{}, fmt.Errorf("bench: reading the usage of %s: %w", bin, decErr)
	}
	return u, nil
}

// spawned is the go-between's side of spawn: it runs args[0] with the
// rest, writes its usage as JSON to file descriptor 3, and returns its exit
// status.
func spawned(args []string) int {
	report := os.NewFile(3, "usage")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	ps := cmd.ProcessState
	if err := json.NewEncoder(report).Encode(usage{Wall: wall, User: ps.UserTime(), Sys: ps.SystemTime(), MaxRSS: maxRSS(ps)}); err != nil {
		fmt.Fprintln(os.Stderr, "bench: reporting usage:", err)
		return 1
	}
	return ps.ExitCode()
}

// serve serves h on a free loopback port until the returned stop is called.
func serve(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("bench: listening for the null sink: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "bench: null sink:", err)
		}
	}()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// restartDynamoDB stops and starts DynamoDB Local with the project's script,
// so that a run that stores items starts on a fresh, empty emulator.
func restartDynamoDB(ctx context.Context, script string, port int) error {
	for _, verb := range []string{"stop", "start"} {
		cmd := exec.CommandContext(ctx, script, verb, strconv.Itoa(port))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("bench: %s %s %d: %w\n%s", script, verb, port, err, out)
		}
	}
	return nil
}
