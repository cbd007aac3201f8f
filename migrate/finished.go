package migrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A run that succeeds leaves its report as JSON in a finished record
// beside its checkpoint (orders.remodel-checkpoint.json:
// orders.remodel-finished.json) and then removes the checkpoint, so that
// remodel status can say that the run finished, when and with what, and a
// --resume after it (the finished run killed before it could say so, a
// job runner that starts it again) finds the job done rather than nothing
// to resume. In that order, a kill at any moment leaves one of the two.

// FinishedSuffix ends the name of a finished record of a default
// checkpoint name.
const FinishedSuffix = ".remodel-finished.json"

const checkpointSuffix = ".remodel-checkpoint.json"

// FinishedPath is the finished record of the checkpoint at path:
// <table>.remodel-finished.json for <table>.remodel-checkpoint.json (a
// shard's too), and FILE.finished.json for another --checkpoint FILE.json.
// It maps a glob of checkpoints to the glob of their records.
func FinishedPath(checkpoint string) string {
	if base, ok := strings.CutSuffix(checkpoint, checkpointSuffix); ok {
		return base + FinishedSuffix
	}
	return strings.TrimSuffix(checkpoint, ".json") + ".finished.json"
}

// IsFinishedPath says whether path is named as a finished record is.
func IsFinishedPath(path string) bool {
	return strings.HasSuffix(path, FinishedSuffix) || strings.HasSuffix(path, ".finished.json")
}

// WriteFinished writes rep, the report of a run that succeeded, as the
// finished record at path, whole or not at all.
func WriteFinished(path string, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("migrate: writing the finished record: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("migrate: writing the finished record: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("migrate: writing the finished record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("migrate: writing the finished record: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("migrate: writing the finished record: %w", err)
	}
	return nil
}

// RemoveFinished removes the finished record at path, if any: a run of
// the job starts.
func RemoveFinished(path string) error {
	if err := os.Remove(path); err != nil && !isNotExist(err) {
		return fmt.Errorf("migrate: removing the finished record of the last run: %w", err)
	}
	return nil
}

// FinishedRun is what a finished record says of its run (remodel status).
type FinishedRun struct {
	Path        string    `json:"file"`
	Table       string    `json:"table"`
	Shard       string    `json:"shard,omitempty"`
	Job         string    `json:"job,omitempty"`
	Finished    time.Time `json:"finished"`
	Seconds     float64   `json:"seconds"`
	Rows        int64     `json:"rows_read"`
	Items       int64     `json:"items_written"`
	Rejected    int64     `json:"rejected"`
	RejectsFile string    `json:"rejects_file,omitempty"`
}

// ReadFinished reads the finished record at path.
func ReadFinished(path string) (*FinishedRun, error) {
	rep, err := readFinishedReport(path)
	if err != nil {
		return nil, err
	}
	return &FinishedRun{Path: path, Table: rep.Table, Shard: rep.Shard, Job: rep.Job,
		Finished: rep.Started.Add(rep.Duration), Seconds: rep.Seconds,
		Rows: rep.RowsRead, Items: rep.ItemsWritten, Rejected: rep.Rejected, RejectsFile: rep.RejectsFile}, nil
}

// readFinishedReport reads the report a finished record at path holds.
func readFinishedReport(path string) (*Report, error) {
	if err := regularFile(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("migrate: reading the finished record %s: %w", path, err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil || rep.Version != ReportVersion || !rep.OK || rep.Table == "" {
		return nil, fmt.Errorf("migrate: %s is not a finished record of remodel migrate", path)
	}
	return &rep, nil
}

// AddFinished adds the finished records at paths to rep (nil: a status of
// no checkpoint) for the runs that have no checkpoint beside them: a
// shard of the job with one is no longer listed as without a checkpoint,
// and the job is done when every checkpoint is done and no shard is
// missing. Records of another table than the checkpoints' are refused.
func AddFinished(rep *Status, paths []string) (*Status, error) {
	if rep == nil {
		rep = &Status{Version: StatusVersion, Checkpoints: []*CheckpointStatus{}, Done: true}
	}
	for _, p := range paths {
		if _, err := os.Stat(checkpointOf(p)); !isNotExist(err) {
			continue // a run of the job started again (or is going on)
		}
		f, err := ReadFinished(p)
		if err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
		table := f.Table
		if len(rep.Checkpoints) > 0 {
			table = rep.Checkpoints[0].Table
		} else if len(rep.Finished) > 0 {
			table = rep.Finished[0].Table
		}
		if f.Table != table {
			return nil, fmt.Errorf("status: the files are of tables %s and %s (%s): give the checkpoints of one job", table, f.Table, p)
		}
		rep.Finished = append(rep.Finished, f)
		rep.Rows += f.Rows
		rep.Items += f.Items
		rep.Rejected += f.Rejected
		if f.Shard != "" {
			rep.Missing = slices.DeleteFunc(rep.Missing, func(s string) bool { return s == f.Shard })
			if s, err := ParseShard(f.Shard); err == nil && rep.Shards == 0 {
				rep.Shards = s.Count
				for i := 1; i <= s.Count; i++ {
					rep.Missing = append(rep.Missing, fmt.Sprintf("%d/%d", i, s.Count))
				}
			}
		}
	}
	// The shards of no checkpoint and no record are still missing.
	rep.Missing = slices.DeleteFunc(rep.Missing, func(s string) bool {
		return slices.ContainsFunc(rep.Finished, func(f *FinishedRun) bool { return f.Shard == s }) ||
			slices.ContainsFunc(rep.Checkpoints, func(c *CheckpointStatus) bool { return c.Shard == s })
	})
	slices.SortFunc(rep.Finished, func(a, b *FinishedRun) int { return shardIndex(a.Shard) - shardIndex(b.Shard) })
	return rep, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// checkpointOf is the checkpoint whose finished record is at path (the
// inverse of FinishedPath).
func checkpointOf(path string) string {
	if base, ok := strings.CutSuffix(path, FinishedSuffix); ok {
		return base + checkpointSuffix
	}
	return strings.TrimSuffix(path, ".finished.json") + ".json"
}

// finishedBefore is the report of a --resume whose checkpoint is gone and
// whose finished record is there: the job finished, nothing is left to
// do. nil: no such record (or one of another table or shard, or a
// followed run, which keeps its checkpoint until follow-cleanup): Run goes
// on, and refuses a checkpoint that is missing.
func finishedBefore(o Options) *Report {
	if !o.Resume || o.Follow || o.CheckpointPath == "" {
		return nil
	}
	if _, err := os.Stat(o.CheckpointPath); !isNotExist(err) {
		return nil
	}
	path := FinishedPath(o.CheckpointPath)
	rep, err := readFinishedReport(path)
	if err != nil || rep.Table != o.Table || rep.Shard != o.Shard.String() {
		return nil
	}
	rep.AlreadyFinished = path
	return rep
}
