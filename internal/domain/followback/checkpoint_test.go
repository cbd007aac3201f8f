package followback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckpointJournal: a record's place reaches the checkpoint through
// the journal between full saves; a reload sees the last place of every
// shard; lines of an older generation (a stop between the rename and the
// emptying of the journal) and a last line cut short are not applied; a
// damaged line before others is refused.
func TestCheckpointJournal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.remodel-followback.json")
	t0 := time.Now()
	ck := &checkpoint{Version: checkpointVersion, Table: "t", Shards: map[string]*shardState{"s1": {}, "s2": {Parent: "s1"}}, path: path}
	if err := ck.save(t0); err != nil {
		t.Fatal(err)
	}
	defer ck.close()
	ck.Shards["s1"].After = "100"
	ck.Shards["s1"].DoneAfter = []string{"105"}
	if err := ck.record(t0.Add(time.Millisecond), []string{"s1"}); err != nil {
		t.Fatal(err)
	}
	ck.Shards["s1"].After, ck.Shards["s1"].DoneAfter = "110", nil
	ck.Shards["s2"].After = "7"
	if err := ck.record(t0.Add(2*time.Millisecond), []string{"s1", "s2"}); err != nil {
		t.Fatal(err)
	}
	if saved := readFile(t, path); strings.Contains(saved, `"110"`) {
		t.Fatalf("a record within %s wrote the whole checkpoint, want a journal line:\n%s", fullSaveEvery, saved)
	}
	got := load(t, path)
	if s1, s2 := got.Shards["s1"], got.Shards["s2"]; s1.After != "110" || len(s1.DoneAfter) != 0 || s2.After != "7" || s2.Parent != "s1" {
		t.Fatalf("reloaded: s1 %+v, s2 %+v; want s1 after 110, s2 after 7 (parent s1)", s1, s2)
	}

	// A stop after the checkpoint was renamed, before the journal was
	// emptied: its lines are of the generation before, and are past.
	stale := readFile(t, JournalPath(path))
	ck.Shards["s1"].After = "120"
	if err := ck.save(t0.Add(fullSaveEvery)); err != nil {
		t.Fatal(err)
	}
	ck.Shards["s1"].After = "90" // what the stale lines would not say; the file says 120
	writeFile(t, JournalPath(path), stale)
	if s1 := load(t, path).Shards["s1"]; s1.After != "120" {
		t.Fatalf("stale journal lines were applied: s1 after %s, want 120", s1.After)
	}

	// A last line cut short by a stop: the record is read again.
	ck.Shards["s1"].After = "130"
	if err := ck.record(t0.Add(fullSaveEvery+time.Millisecond), []string{"s1"}); err != nil {
		t.Fatal(err)
	}
	whole := readFile(t, JournalPath(path))
	writeFile(t, JournalPath(path), whole+`{"gen":`)
	if s1 := load(t, path).Shards["s1"]; s1.After != "130" {
		t.Fatalf("with a cut last line: s1 after %s, want 130", s1.After)
	}
	writeFile(t, JournalPath(path), `{"gen":`+"\n"+whole)
	if _, err := loadCheckpoint(path, "t"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a damaged first line: %v, want an error naming line 1", err)
	}

	// A full save after fullSaveEvery empties the journal.
	if err := ck.record(t0.Add(3*fullSaveEvery), nil); err != nil {
		t.Fatal(err)
	}
	if j := readFile(t, JournalPath(path)); j != "" || !strings.Contains(readFile(t, path), `"130"`) {
		t.Fatalf("after %s: journal %q, checkpoint without s1's place 130", fullSaveEvery, j)
	}
}

func load(t *testing.T, path string) *checkpoint {
	t.Helper()
	ck, err := loadCheckpoint(path, "t")
	if err != nil {
		t.Fatal(err)
	}
	return ck
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
