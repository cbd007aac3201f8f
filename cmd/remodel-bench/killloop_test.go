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

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/mapping"
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

// TestReadCheckpoint: the settled items are the sum over the entities (key
// ranges) of a checkpoint remodel migrate wrote (testdata/checkpoint.json,
// saved from a killed run of the bench, --ranges 4: user's four ranges part
// done, the other entities' not begun), with the items of the entities of
// a shared read; the key ranges of entities with embedded rows that were
// part done are counted.
func TestReadCheckpoint(t *testing.T) {
	c, err := readCheckpoint(filepath.Join("testdata", "checkpoint.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.items != checkpointSample || c.midEmbed != 0 || c.embedRanges != 0 {
		t.Errorf("checkpoint: %+v, want %d items and no entity with embeds", c, checkpointSample)
	}
	// As if user and personal had embedded rows: user's 4 ranges part done,
	// personal's 4 not begun.
	c, err = readCheckpoint(filepath.Join("testdata", "checkpoint.json"), map[string]bool{"user": true, "personal": true})
	if err != nil {
		t.Fatal(err)
	}
	if c.items != checkpointSample || c.midEmbed != 4 || c.embedRanges != 8 {
		t.Errorf("checkpoint with embeds in user and personal: %+v, want %d items, 4 of 8 ranges mid-way", c, checkpointSample)
	}
	shared := filepath.Join(t.TempDir(), "shared.json")
	if err := os.WriteFile(shared, []byte(`{"entities": [
		{"name": "user", "done": true, "after": [{"t": "i", "v": "9"}], "rows": 9, "items": 9},
		{"name": "user", "done": false, "after": [{"t": "i", "v": "20"}], "rows": 11, "items": 10, "rejected": 1},
		{"name": "user", "done": false, "rows": 0, "items": 0},
		{"name": "a", "done": false, "after": [{"t": "i", "v": "5"}], "rows": 5, "items": 5, "also": [{"name": "b", "rows": 5, "items": 4}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err = readCheckpoint(shared, map[string]bool{"user": true}); err != nil {
		t.Fatal(err)
	}
	if c.items != 9+10+5+4 || c.midEmbed != 1 || c.embedRanges != 3 {
		t.Errorf("checkpoint with a shared read: %+v, want 28 items, 1 of 3 ranges mid-way (one done, one not begun)", c)
	}
	if _, err := readCheckpoint(filepath.Join(t.TempDir(), "none.json"), nil); err == nil {
		t.Error("no error for a missing checkpoint")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"entities": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCheckpoint(bad, nil); err == nil {
		t.Error("no error for a checkpoint that is not one")
	}
}

// TestKillEmbedMapping: the kill loop's default second mapping is in the
// repository and embeds child rows: two embeds in one entity (a key range
// of it takes two readers of the pool at once, which once hung migrate).
func TestKillEmbedMapping(t *testing.T) {
	f, err := mapping.ParseFile(filepath.Join("..", "..", defaultKillEmbed))
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, e := range f.Entities {
		most = max(most, len(e.Embed))
	}
	if most < 2 {
		t.Errorf("%s: at most %d embeds in an entity, want an entity with 2", defaultKillEmbed, most)
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

// TestWriteKillsGolden: the kill loop's lines below the bench's table,
// the main mapping's jobs and the embedded one's.
func TestWriteKillsGolden(t *testing.T) {
	main := &killMapping{label: "main", path: "examples/personalization/mapping.yaml", rows: 200000,
		entities: []string{"user", "service", "personal", "subscribe", "subscribe_user"}}
	emb := &killMapping{label: "embedded", path: defaultKillEmbed, rows: 39000,
		entities: []string{"user", "service", "subscribe"}, withEmbeds: map[string]bool{"user": true},
		embeds: []embedCount{{"user", "settings", "personal", 88000}, {"user", "subscriptions", "subscribe_user", 73000}}}
	runs := []killRun{
		{M: main, Ranges: 1, Attempts: 3, Wall: 80 * time.Second, CPU: 6 * time.Second, Items: 200000, Verify: 90 * time.Second, Verdict: "verify PASS: 15 of 15 checks passed",
			Kills: []kill{{Target: 0.21, At: 20 * time.Second, JobAt: 20 * time.Second, InTable: 41000, Settled: 39500},
				{Target: 0.6, At: 30 * time.Second, JobAt: 50 * time.Second, InTable: 120300, Settled: 118000}}},
		{M: main, Ranges: 4, Attempts: 2, Early: 1, Wall: 70 * time.Second, CPU: 5 * time.Second, Items: 200000, Verify: 85 * time.Second, Verdict: "verify PASS",
			Kills: []kill{{Target: 0.4, At: 25 * time.Second, JobAt: 25 * time.Second, InTable: 80500, Settled: 76000}}},
		{M: emb, Ranges: 1, Attempts: 2, Wall: 20 * time.Second, CPU: 3 * time.Second, Items: 39000, Verify: 30 * time.Second, Verdict: "verify PASS",
			Kills: []kill{{Target: 0.5, At: 10 * time.Second, JobAt: 10 * time.Second, InTable: 19600, Settled: 19200, MidEmbed: 1, EmbedRanges: 1}}},
		{M: emb, Ranges: 4, Attempts: 2, Wall: 22 * time.Second, CPU: 3 * time.Second, Items: 39000, Verify: 31 * time.Second, Verdict: "verify PASS",
			Kills: []kill{{Target: 0.9, At: 18 * time.Second, JobAt: 18 * time.Second, InTable: 35200, Settled: 34000, MidEmbed: 2, EmbedRanges: 4}}},
	}
	var b bytes.Buffer
	writeKills(&b, 42, runs, result{Name: "remodel -> DynamoDB Local", Items: 200000, Wall: 50 * time.Second, CPU: 4 * time.Second})
	golden.Check(t, "kills.txt", b.Bytes())
	if got := runs[0].Rewritten(); got != 1500+2300 {
		t.Errorf("rewritten = %d, want 3800", got)
	}
	b.Reset()
	writeKills(&b, 42, nil, result{})
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
