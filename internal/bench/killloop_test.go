package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/golden"

	"github.com/remodel-dev/remodel/migrate"
)

// TestKillTargets: the kill points are n sorted shares of the job in
// [5%, 95%), and the same seed draws the same ones.
func TestKillTargets(t *testing.T) {
	a := killTargets(rand.New(rand.NewPCG(42, 0)), 50)
	b := killTargets(rand.New(rand.NewPCG(42, 0)), 50)
	c := killTargets(rand.New(rand.NewPCG(43, 0)), 50)
	if len(a) != 50 {
		t.Fatalf("%d targets, want 50", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("seed 42 drew %v, then %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 42 and 43 drew the same targets")
	}
	if !slices.IsSorted(a) {
		t.Errorf("targets not sorted: %v", a)
	}
	for _, f := range a {
		if f < 0.05 || f >= 0.95 {
			t.Errorf("target %v outside [0.05, 0.95)", f)
		}
	}
}

// TestCheckpointItems: the settled items are the sum over the entities (key
// ranges) of a checkpoint remodel migrate wrote (testdata/checkpoint.json,
// saved from a killed run of the bench, --ranges 4).
func TestCheckpointItems(t *testing.T) {
	n, err := checkpointItems(filepath.Join("testdata", "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n != checkpointSample {
		t.Errorf("checkpoint items = %d, want %d", n, checkpointSample)
	}
	if _, err := checkpointItems(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("no error for a missing checkpoint")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"entities": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkpointItems(bad); err == nil {
		t.Error("no error for a checkpoint that is not one")
	}
}

// TestJobProblems: a finished job is exact only when its last report counts
// every row as written, none rejected and no stray item, resumed after the
// last checkpoint's items, the checkpoint is gone and the table holds one
// item per row; each fault alone is named.
func TestJobProblems(t *testing.T) {
	const rows = 1000
	kills := []kill{{InTable: 300, Settled: 250}, {InTable: 700, Settled: 690}}
	exact := func() *migrate.Report {
		return &migrate.Report{RowsRead: rows, ItemsWritten: rows, Earlier: &migrate.EarlierRuns{Items: 690}}
	}
	if p := jobProblems(exact(), rows, kills, false, rows); len(p) != 0 {
		t.Errorf("an exact job: %v", p)
	}
	if p := jobProblems(&migrate.Report{RowsRead: rows, ItemsWritten: rows}, rows, nil, false, rows); len(p) != 0 {
		t.Errorf("an exact job never killed: %v", p)
	}
	for _, c := range []struct {
		name   string
		change func(r *migrate.Report, ckLeft *bool, items *int64)
		want   string
	}{
		{"an item lost", func(_ *migrate.Report, _ *bool, items *int64) { *items = rows - 1 }, "the table holds 999 items"},
		{"an item extra", func(_ *migrate.Report, _ *bool, items *int64) { *items = rows + 1 }, "the table holds 1001 items"},
		{"fewer written", func(r *migrate.Report, _ *bool, _ *int64) { r.ItemsWritten = rows - 1 }, "wrote 999 items"},
		{"fewer read", func(r *migrate.Report, _ *bool, _ *int64) { r.RowsRead = rows - 1 }, "remodel read 999 rows"},
		{"a reject", func(r *migrate.Report, _ *bool, _ *int64) { r.Rejected = 1 }, "rejected 1"},
		{"stray items", func(r *migrate.Report, _ *bool, _ *int64) { r.StrayItems = 2 }, "found 2 stray items"},
		{"not resumed", func(r *migrate.Report, _ *bool, _ *int64) { r.Earlier = nil }, "does not say it resumed"},
		{"resumed elsewhere", func(r *migrate.Report, _ *bool, _ *int64) { r.Earlier.Items = 680 }, "resumed after 680 items, the checkpoint settled 690"},
		{"checkpoint left", func(_ *migrate.Report, ckLeft *bool, _ *int64) { *ckLeft = true }, "checkpoint is still there"},
	} {
		r, ckLeft, items := exact(), false, int64(rows)
		c.change(r, &ckLeft, &items)
		p := jobProblems(r, rows, kills, ckLeft, items)
		if len(p) != 1 || !strings.Contains(p[0], c.want) {
			t.Errorf("%s: problems %q, want one saying %q", c.name, p, c.want)
		}
	}
}

// TestWriteKillsGolden: the kill loop's lines below the bench's table.
func TestWriteKillsGolden(t *testing.T) {
	runs := []killRun{
		{Ranges: 1, Attempts: 3, Wall: 80 * time.Second, CPU: 6 * time.Second, Items: 200000, Verify: 90 * time.Second, Verdict: "verify PASS: 15 of 15 checks passed",
			Kills: []kill{{Target: 0.21, At: 20 * time.Second, JobAt: 20 * time.Second, InTable: 41000, Settled: 39500},
				{Target: 0.6, At: 30 * time.Second, JobAt: 50 * time.Second, InTable: 120300, Settled: 118000}}},
		{Ranges: 4, Attempts: 2, Early: 1, Wall: 70 * time.Second, CPU: 5 * time.Second, Items: 200000, Verify: 85 * time.Second, Verdict: "verify PASS",
			Kills: []kill{{Target: 0.4, At: 25 * time.Second, JobAt: 25 * time.Second, InTable: 80500, Settled: 76000}}},
	}
	var b bytes.Buffer
	writeKills(&b, 42, runs, 200000, result{Name: "remodel -> DynamoDB Local", Items: 200000, Wall: 50 * time.Second, CPU: 4 * time.Second})
	golden.Check(t, "kills.txt", b.Bytes())
	if got := runs[0].Rewritten(); got != 1500+2300 {
		t.Errorf("rewritten = %d, want 3800", got)
	}
	b.Reset()
	writeKills(&b, 42, nil, 200000, result{})
	if b.Len() != 0 {
		t.Errorf("without a kill loop: %q", b.String())
	}
}

func TestParseRanges(t *testing.T) {
	if got, err := parseRanges("1, 4,8"); err != nil || !slices.Equal(got, []int{1, 4, 8}) {
		t.Errorf("parseRanges: %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "1,,4", "x", "-2"} {
		if _, err := parseRanges(bad); err == nil {
			t.Errorf("parseRanges(%q): no error", bad)
		}
	}
}

// checkpointSample is the items testdata/checkpoint.json settles.
const checkpointSample = 18250

// TestNextPoll: the wait before the next count is half the time the items
// left take at the attempt's rate so far, within 100 ms and 5 s.
func TestNextPoll(t *testing.T) {
	for _, c := range []struct {
		added, left int64
		elapsed     time.Duration
		want        time.Duration
	}{
		{0, 1000, 10 * time.Second, time.Second},            // no rate yet
		{1000, 200, 10 * time.Second, time.Second},          // 2 s to go
		{1000, 1, 10 * time.Second, 100 * time.Millisecond}, // at the target
		{1000, 10000, 10 * time.Second, 5 * time.Second},    // far from it
		{1000, 0, 10 * time.Second, 100 * time.Millisecond}, // past it (its added item still to come)
	} {
		if got := nextPoll(c.added, c.left, c.elapsed); got != c.want {
			t.Errorf("nextPoll(%d, %d, %s) = %s, want %s", c.added, c.left, c.elapsed, got, c.want)
		}
	}
}
