package migrate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFinishedBeforeCheckpointGoes: a job that finished leaves its finished
// record before its checkpoint goes, so that a kill at any moment leaves
// one of the two. A record that cannot be written leaves the checkpoint
// (fails when the checkpoint is removed first); a record written makes a
// later --resume of the job, and only of that job, report it finished.
func TestFinishedBeforeCheckpointGoes(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "orders"+checkpointSuffix)
	if err := os.WriteFile(ck, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := &Report{Version: ReportVersion, Table: "orders", Started: time.Now(), RowsRead: 7, ItemsWritten: 7}
	tr := &tracker{path: ck, removed: true, finished: true}

	if err := os.Mkdir(FinishedPath(ck), 0o700); err != nil { // the record cannot be written there
		t.Fatal(err)
	}
	if err := tr.removeFinished(rep, nil); err == nil {
		t.Fatal("removeFinished: no error although the finished record could not be written")
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("the checkpoint went although no finished record was written: %v", err)
	}
	if err := os.Remove(FinishedPath(ck)); err != nil {
		t.Fatal(err)
	}

	if err := tr.removeFinished(rep, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ck); !isNotExist(err) {
		t.Fatalf("the checkpoint of the finished job is still there: %v", err)
	}
	for _, c := range []struct {
		name string
		o    Options
		want bool
	}{
		{"--resume of the job", Options{Resume: true, CheckpointPath: ck, Table: "orders"}, true},
		{"a new run", Options{CheckpointPath: ck, Table: "orders"}, false},
		{"another table", Options{Resume: true, CheckpointPath: ck, Table: "invoices"}, false},
		{"a shard", Options{Resume: true, CheckpointPath: ck, Table: "orders", Shard: Shard{Index: 1, Count: 2}}, false},
		{"--follow --resume", Options{Resume: true, Follow: true, CheckpointPath: ck, Table: "orders"}, false},
	} {
		got := finishedBefore(c.o)
		if (got != nil) != c.want {
			t.Errorf("%s: finishedBefore %v, want a report: %v", c.name, got, c.want)
			continue
		}
		if got != nil && (!got.OK || got.RowsRead != 7 || got.AlreadyFinished != FinishedPath(ck)) {
			t.Errorf("%s: the report %+v is not the finished run's", c.name, got)
		}
	}

	// A run that failed after it settled everything keeps its checkpoint
	// (and leaves no record).
	if err := os.WriteFile(ck, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(FinishedPath(ck)); err != nil {
		t.Fatal(err)
	}
	if err := tr.removeFinished(rep, os.ErrDeadlineExceeded); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("the checkpoint of a run that failed went: %v", err)
	}
	if _, err := os.Stat(FinishedPath(ck)); !isNotExist(err) {
		t.Fatalf("a run that failed left a finished record: %v", err)
	}
}
