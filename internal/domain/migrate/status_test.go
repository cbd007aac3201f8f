package migrate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStatusSplitPlans: status names each shard's split plan and --job,
// and says when the checkpoints it is given name more than one plan (not
// one job's).
func TestStatusSplitPlans(t *testing.T) {
	dir := t.TempDir()
	write := func(name, shard, split, job string) string {
		t.Helper()
		ck := checkpointFile{Version: checkpointVersion, Mapping: "m", Table: "t", TableARN: "arn:t", TableCreated: time.Unix(1, 0),
			Shard: shard, SplitDigest: split, Job: job, Saved: time.Unix(2, 0), Entities: []checkpointEntity{{Name: "orders", Done: true, Rows: 3, Items: 3}}}
		sum, err := ck.checksum()
		if err != nil {
			t.Fatal(err)
		}
		ck.Checksum = sum
		b, err := ck.encode()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	one, two, other := write("a.json", "1/3", "aaaa", "j"), write("b.json", "2/3", "aaaa", ""), write("c.json", "3/3", "bbbb", "")
	st, err := ReadStatus([]string{one, two})
	if err != nil || st.SplitsDiffer || st.Checkpoints[0].SplitDigest != "aaaa" || st.Checkpoints[1].SplitDigest != "aaaa" || st.Checkpoints[0].Job != "j" || st.Checkpoints[1].Job != "" {
		t.Fatalf("two shards of one plan: %+v, %v", st, err)
	}
	st, err = ReadStatus([]string{one, two, other})
	if err != nil || !st.SplitsDiffer || st.Checkpoints[2].SplitDigest != "bbbb" {
		t.Errorf("a third shard of another plan: %+v, %v", st, err)
	}
}
