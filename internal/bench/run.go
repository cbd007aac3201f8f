package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	work   string // folder for the report, the rejects file and the log
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
		"--report-json", reportPath, "--format", "json")
	log, err := os.Create(logPath)
	if err != nil {
		return result{}, nil, fmt.Errorf("bench: %w", err)
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, m.bin, args...)
	cmd.Env = append(os.Environ(), m.env...)
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
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
	ps := cmd.ProcessState
	return result{
		Name:   name,
		Items:  rep.ItemsWritten,
		Wall:   wall,
		CPU:    ps.UserTime() + ps.SystemTime(),
		MaxRSS: maxRSS(ps),
	}, &rep, nil
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
