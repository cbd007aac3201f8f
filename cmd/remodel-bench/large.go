package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/migrate"
)

// The large mode (make bench LARGE=1, issue 19 §4): at each size of
// LARGE_ROWS, scripts/bench.sh loads the rows and runs the bench with
// -large FILE, which measures three remodel processes on them and appends
// one JSON line to FILE: migrate into the null sink, migrate --to a local
// directory (gzip), and verify --files of those objects (the item check,
// whose key set spills to disk: internal/domain/keyset). Then -large-table FILE
// prints every size side by side: peak RSS should stay flat as the rows
// grow. For --to it also prints what its key collision check held (its
// report's key_check.memory_bytes: outside Go's heap, all of
// --key-check-memory from the start) and the peak less that.

// largeLine is one size's figures.
type largeLine struct {
	Rows int64     `json:"rows"`
	Note string    `json:"note"`
	Load string    `json:"load"`
	Date time.Time `json:"date"`
	Null result    `json:"null"`
	Dir  result    `json:"dir"`
	// DirKeyCheck is the bytes the --to run's key collision check held
	// (0: not recorded, in lines from before it was).
	DirKeyCheck int64  `json:"dir_key_check_bytes,omitempty"`
	Verify      result `json:"verify"`
}

func runLarge(ctx context.Context, o options, stderr io.Writer) error {
	work, err := os.MkdirTemp("", "remodel-bench-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(work)
	o.pool = min(o.pool, 1000) // the raw sink is not run: a few items for the header's sizes
	b := &bench{o: o, stderr: stderr, round: 1}
	if err := b.setUp(ctx, work); err != nil {
		return err
	}
	defer b.src.Close()
	load0 := loadAverage()
	line := largeLine{Rows: b.total, Note: o.note, Date: time.Now().UTC()}
	if line.Null, err = b.nullSink(ctx); err != nil {
		return err
	}
	m := s3Measure{"remodel -> objects (local dir, gzip)", true, s3out.Gzip}
	b.step("%s", m.name)
	var dir string
	var rep *migrate.Report
	if line.Dir, rep, dir, _, err = b.s3Run(ctx, m); err != nil {
		return err
	}
	if rep.KeyCheck == nil {
		return fmt.Errorf("bench: %s: the report has no key collision check", m.name)
	}
	line.DirKeyCheck = rep.KeyCheck.MemoryBytes
	defer os.RemoveAll(dir)
	b.step("remodel verify --files of those objects")
	v := verifyRun{bin: o.remodel, source: o.source, mapPth: o.mapping, table: "bench_large", endpt: o.endpoint, work: work, files: "file://" + dir + "/items/"}
	if line.Verify, err = v.run(ctx, "remodel verify --files (local dir)"); err != nil {
		return err
	}
	if line.Verify.Items != b.total {
		return fmt.Errorf("bench: remodel verify --files compared %d items, the source has %d rows", line.Verify.Items, b.total)
	}
	line.Load = load0 + " at start, " + loadAverage() + " at end"
	f, err := os.OpenFile(o.large, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	if err := json.NewEncoder(f).Encode(line); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return f.Close()
}

// printLarge prints the large mode's table of the sizes in path.
func printLarge(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	var lines []largeLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l largeLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fmt.Errorf("bench: %s: %w", path, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("bench: %s: %w", path, err)
	}
	if len(lines) == 0 {
		return fmt.Errorf("bench: %s holds no size", path)
	}
	fmt.Fprintf(w, "remodel bench, large mode, %s\n", lines[0].Date.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "  machine   %s\n\n", thisMachine())
	fmt.Fprintf(w, "  %12s | %-26s | %-53s | %-26s\n", "", "migrate -> null sink", "migrate --to file:// (gzip)", "verify --files (items)")
	fmt.Fprintf(w, "  %12s | %8s %8s %8s | %8s %8s %8s %8s %8s %8s | %8s %8s %8s\n", "rows", "max RSS", "CPU s/M", "items/s", "max RSS", "key chk", "- kc", "CPU s/M", "items/s", "/ null", "max RSS", "CPU s/M", "items/s")
	for _, l := range lines {
		ratio := 0.0
		if l.Null.Rate() > 0 {
			ratio = l.Dir.Rate() / l.Null.Rate()
		}
		fmt.Fprintf(w, "  %12s | %8s %8.1f %8s | %8s %8s %8s %8.1f %8s %8.2f | %8s %8.1f %8s\n", thousands(float64(l.Rows)),
			mib(l.Null.MaxRSS), l.Null.CPUPerMillion(), thousands(l.Null.Rate()),
			mib(l.Dir.MaxRSS), mib(l.DirKeyCheck), lessKeyCheck(l), l.Dir.CPUPerMillion(), thousands(l.Dir.Rate()), ratio,
			mib(l.Verify.MaxRSS), l.Verify.CPUPerMillion(), thousands(l.Verify.Rate()))
	}
	first, last := lines[0], lines[len(lines)-1]
	if len(lines) > 1 && first.Null.MaxRSS > 0 && first.Dir.MaxRSS > 0 && first.Verify.MaxRSS > 0 {
		fmt.Fprintf(w, "\n  peak RSS at %s rows / at %s rows (%.0fx the rows): null sink %.2f, --to file:// %.2f, verify --files %.2f\n",
			thousands(float64(last.Rows)), thousands(float64(first.Rows)), float64(last.Rows)/float64(first.Rows),
			float64(last.Null.MaxRSS)/float64(first.Null.MaxRSS), float64(last.Dir.MaxRSS)/float64(first.Dir.MaxRSS), float64(last.Verify.MaxRSS)/float64(first.Verify.MaxRSS))
		if first.DirKeyCheck > 0 && last.DirKeyCheck > 0 {
			fmt.Fprintf(w, "  --to less its key collision check: %.2f\n", float64(last.Dir.MaxRSS-last.DirKeyCheck)/float64(first.Dir.MaxRSS-first.DirKeyCheck))
		}
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %s rows: %s; load average %s\n", thousands(float64(l.Rows)), l.Note, l.Load)
	}
	fmt.Fprintln(w, "  CPU s/M: user+sys CPU seconds of the remodel process per million items; max RSS: its peak.")
	fmt.Fprintln(w, "  key chk: what --to's key collision check held outside Go's heap (its report's key_check.memory_bytes,")
	fmt.Fprintln(w, "  all of --key-check-memory, held from the start); - kc: the peak less that.")
	return nil
}

// lessKeyCheck is the --to run's peak RSS less its key collision check's
// memory ("-" when either was not recorded).
func lessKeyCheck(l largeLine) string {
	if l.Dir.MaxRSS <= 0 || l.DirKeyCheck <= 0 {
		return "-"
	}
	return mib(l.Dir.MaxRSS - l.DirKeyCheck)
}
