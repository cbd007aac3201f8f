package migrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDropUnsettled: of the rows the interrupted run's file lists, only
// the ones the resumed run read as settled keep their lines; the others
// are decided again, and a row rejected again gets its line back (once),
// while a settled row rejected again is not written twice.
func TestDropUnsettled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rejects.jsonl")
	var lines []string
	for _, row := range []string{"id=1", "id=2", "id=3"} {
		b, _ := json.Marshal(Rejection{Entity: "e", Row: row, Reason: "r"})
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	r := &rejects{path: path, max: 100}
	if err := r.loadEarlier(); err != nil {
		t.Fatal(err)
	}
	for row, want := range map[string]bool{"id=1": true, "id=3": true, "id=9": false} {
		if got := r.settledRejected("e", row); got != want {
			t.Errorf("settledRejected(%s) = %v, want %v", row, got, want)
		}
	}
	if err := r.dropUnsettled(); err != nil {
		t.Fatal(err)
	}
	read := func() []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for l := range strings.Lines(string(b)) {
			var rej Rejection
			if err := json.Unmarshal([]byte(l), &rej); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, rej.Row)
		}
		return rows
	}
	if got := read(); !slices.Equal(got, []string{"id=1", "id=3"}) {
		t.Errorf("after the settled rows are read: %v, want id=1 and id=3", got)
	}
	for _, row := range []string{"id=2", "id=1"} {
		if err := r.add(Rejection{Entity: "e", Row: row, Reason: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, []string{"id=1", "id=3", "id=2"}) {
		t.Errorf("after the run: %v, want id=1, id=3, then id=2 rejected again", got)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left: %v", err)
	}
}
