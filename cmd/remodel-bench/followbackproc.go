package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// backArg runs the bench as follow-back's process: "bench __followback
// FLAGS" calls followback.Run, the code remodel follow-back runs, in a
// process of its own (so that its CPU time and peak memory are its own,
// not the workload's), and tells the bench on stdout when each record is
// done, with the moment: the bench's lag per change is that moment less
// the moment its application wrote the item.
//
// Its stdout lines: "ready" once the start point is recorded (from then
// on every change written to the table comes back), then "done UNIXNANO
// KEY" per record done, KEY being the table's KeyString of its item.
const backArg = "__followback"

// backChild are the flags of the __followback process.
type backChild struct {
	source, mapping, endpoint, table string
	checkpoint, deadLetter, report   string
	resume                           bool
	cpuprofile                       string
}

// followBackProcess is the __followback process: its exit status.
func followBackProcess(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c backChild
	fs := flag.NewFlagSet(backArg, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.source, "source", "", "the source DSN")
	fs.StringVar(&c.mapping, "mapping", "", "the mapping file")
	fs.StringVar(&c.endpoint, "endpoint", "", "DynamoDB's endpoint")
	fs.StringVar(&c.table, "table", "", "the table")
	fs.StringVar(&c.checkpoint, "checkpoint", "", "follow-back's checkpoint")
	fs.StringVar(&c.deadLetter, "dead-letter", "", "follow-back's dead-letter file")
	fs.StringVar(&c.report, "report", "", "where the JSON report goes at the stop")
	fs.BoolVar(&c.resume, "resume", false, "go on from the checkpoint")
	fs.StringVar(&c.cpuprofile, "cpuprofile", "", "a CPU profile of the process into this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.cpuprofile != "" {
		f, err := os.Create(c.cpuprofile)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if err := c.run(ctx, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// run follows the table back until ctx is done (SIGINT), then writes the
// report.
func (c backChild) run(ctx context.Context, stdout io.Writer) error {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	src, err := source.Open(sctx, c.source)
	if err != nil {
		cancel()
		return err
	}
	defer src.Close()
	schema, err := src.Inspect(sctx)
	cancel()
	if err != nil {
		return err
	}
	file, err := mapping.ParseFile(c.mapping)
	if err != nil {
		return err
	}
	plan, err := mapping.Compile(file, schema)
	if err != nil {
		return err
	}
	db, st, err := followback.Connect(ctx, followback.Config{Endpoint: c.endpoint})
	if err != nil {
		return err
	}
	out := &doneWriter{w: bufio.NewWriterSize(stdout, 64<<10), plan: plan}
	rep, runErr := followback.Run(ctx, followback.Options{
		Plan: plan, Source: src, DB: db, Streams: st, Table: c.table,
		CheckpointPath: c.checkpoint, Resume: c.resume, DeadLetterPath: c.deadLetter,
		Ready: out.ready, Done: out.done, Watch: func(followback.Status) { out.flush() },
	})
	out.flush()
	b, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("bench: follow-back's report: %w", err)
	}
	if err := os.WriteFile(c.report, b, 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return runErr
}

// doneWriter writes the process's lines.
type doneWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	plan *mapping.Plan
	buf  []byte
}

func (d *doneWriter) ready() {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _ = d.w.WriteString("ready\n")
	_ = d.w.Flush()
}

func (d *doneWriter) done(keys mapping.Item) {
	at := time.Now().UnixNano()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = append(d.buf[:0], "done "...)
	d.buf = strconv.AppendInt(d.buf, at, 10)
	d.buf = append(d.buf, ' ')
	d.buf = append(d.buf, d.plan.Table.KeyString(keys)...)
	d.buf = append(d.buf, '\n')
	_, _ = d.w.Write(d.buf)
}

// flush sends the lines so far (after every round of reads: the lag is
// measured by the moments in the lines, not by when they arrive).
func (d *doneWriter) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.w.Flush()
}
