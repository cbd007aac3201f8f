package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/process"
)

// TestStatusSplitPlans: status names each shard's split plan and --job,
// says when the checkpoints it is given name more than one plan or more
// than one --job, or mix a sharded run with one that is not (not one
// job's), and refuses checkpoints of more than one table.
func TestStatusSplitPlans(t *testing.T) {
	dir := t.TempDir()
	write := func(name, table, shard, split, job string) string {
		t.Helper()
		return writeCheckpoint(t, filepath.Join(dir, name), checkpointFile{Version: checkpointVersion, Mapping: "m", Table: table, TableARN: "arn:" + table, TableCreated: time.Unix(1, 0),
			Shard: shard, SplitDigest: split, Job: job, Saved: time.Unix(2, 0), Entities: []checkpointEntity{{Name: "orders", Done: true, Rows: 3, Items: 3}}})
	}
	one, two := write("a.json", "t", "1/3", "aaaa", "j"), write("b.json", "t", "2/3", "aaaa", "j")
	st, err := ReadStatus([]string{one, two})
	if err != nil || st.SplitsDiffer || st.JobsDiffer || st.Checkpoints[0].SplitDigest != "aaaa" || st.Checkpoints[1].SplitDigest != "aaaa" || st.Checkpoints[0].Job != "j" {
		t.Fatalf("two shards of one plan: %+v, %v", st, err)
	}
	for _, c := range []struct {
		name                  string
		path                  string
		splitsDiffer, jobsDif bool
	}{
		{"a third shard of another plan", write("c.json", "t", "3/3", "bbbb", "j"), true, false},
		{"a third shard of another --job", write("d.json", "t", "3/3", "aaaa", "k"), false, true},
		{"a third shard of no --job", write("e.json", "t", "3/3", "aaaa", ""), false, true},
		{"an unsharded run's", write("f.json", "t", "", "", ""), false, true},
	} {
		st, err := ReadStatus([]string{one, two, c.path})
		if err != nil || st.SplitsDiffer != c.splitsDiffer || st.JobsDiffer != c.jobsDif || len(st.Checkpoints) != 3 {
			t.Errorf("%s: %+v, %v; want split plans differ %v, jobs differ %v", c.name, st, err, c.splitsDiffer, c.jobsDif)
		}
	}
	if _, err := ReadStatus([]string{one, write("g.json", "u", "2/3", "aaaa", "j")}); err == nil || !strings.Contains(err.Error(), "the checkpoints are of tables t (") {
		t.Errorf("checkpoints of two tables: %v", err)
	}
}

// TestStatusStopped: a checkpoint saved by a process of this host that is
// gone is stopped; one saved by a live process, or on another host (which
// cannot be asked), is not known to be.
func TestStatusStopped(t *testing.T) {
	dir := t.TempDir()
	self := process.Self()
	for _, c := range []struct {
		name    string
		host    string
		pid     int64
		stopped bool
	}{
		{"a gone process of this host", self.Host, 0, true},
		{"this process", self.Host, self.PID, false},
		{"another host's process", "elsewhere.example", 1, false},
	} {
		path := writeCheckpoint(t, filepath.Join(dir, "ck.json"), checkpointFile{Version: checkpointVersion, Mapping: "m", Table: "t", TableARN: "arn:t", TableCreated: time.Unix(1, 0),
			Host: c.host, PID: c.pid, Saved: time.Unix(2, 0), Entities: []checkpointEntity{{Name: "orders"}}})
		st, err := ReadCheckpointStatus(path)
		if err != nil || st.Stopped != c.stopped || st.Done {
			t.Errorf("%s: %+v, %v; want stopped %v", c.name, st, err, c.stopped)
		}
	}
}

// writeCheckpoint writes ck, with its checksum, to path.
func writeCheckpoint(t *testing.T, path string, ck checkpointFile) string {
	t.Helper()
	sum, err := ck.checksum()
	if err != nil {
		t.Fatal(err)
	}
	ck.Checksum = sum
	b, err := ck.encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
