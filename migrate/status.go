package migrate

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/process"
)

// CheckpointStatus is what a checkpoint file says of its run (remodel
// status): whose it is, and how far it got. A run that succeeds removes
// its checkpoint, so a checkpoint is of a run that is going on, or that
// stopped (to --resume), or one whose last save had every range done
// (Done) but which has not removed it yet.
type CheckpointStatus struct {
	Path  string `json:"checkpoint"`
	Table string `json:"table"`
	Shard string `json:"shard,omitempty"`
	// SplitDigest is a shard's: the digest of the job's split plan it
	// reads by (splitplan.go).
	SplitDigest string `json:"split_digest,omitempty"`
	// Job is the shard's --job, when given.
	Job   string    `json:"job,omitempty"`
	S3    string    `json:"s3,omitempty"`
	Host  string    `json:"host"`
	PID   int64     `json:"pid"`
	Saved time.Time `json:"saved"`
	// Rows, Items and Rejected are the settled rows, their items
	// acknowledged (written, or uploaded in an object), and the rows
	// rejected, over every run of the job.
	Rows       int64 `json:"rows_settled"`
	Items      int64 `json:"items_written"`
	Rejected   int64 `json:"rejected"`
	Ranges     int   `json:"ranges"`
	RangesDone int   `json:"ranges_done"`
	Objects    int   `json:"objects,omitempty"`
	Done       bool  `json:"done"`
	// Stopped is true when the process that saved it last is known to be
	// gone: it ran on this host, and its pid is gone or another
	// process's (of another host it cannot be known: false).
	Stopped bool `json:"stopped"`
	// Running is true when the process that saved it last runs on this
	// host (of another host it cannot be known: false, and not Stopped).
	Running bool `json:"running"`
	// Follow is where a followed migration stands (migrate --follow;
	// status_follow.go). Rejected counts its follower's rejects too.
	Follow *FollowStatus `json:"follow,omitempty"`
	source string        // the checkpoint's source, without its password
}

// ReadCheckpointStatus reads a checkpoint file (checked like --resume
// checks it: its checksum and format) for remodel status.
func ReadCheckpointStatus(path string) (*CheckpointStatus, error) {
	if err := regularFile(path); err != nil {
		return nil, err
	}
	ck, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := ck.sane(); err != nil {
		return nil, fmt.Errorf("migrate: checkpoint %s: %w", path, err)
	}
	st := &CheckpointStatus{Path: path, Table: ck.Table, Shard: ck.Shard, SplitDigest: ck.SplitDigest, Job: ck.Job, Host: ck.Host, PID: ck.PID, Saved: ck.Saved, Ranges: len(ck.Entities)}
	if ck.S3 != nil {
		st.S3, st.Objects = ck.S3.URL, len(ck.S3.Objects)
	}
	for _, e := range ck.Entities {
		st.Rows += e.Rows
		st.Items += e.Items
		st.Rejected += e.Rejected
		for _, a := range e.Also {
			st.Rows += a.Rows
			st.Items += a.Items
			st.Rejected += a.Rejected
		}
		if e.Done {
			st.RangesDone++
		}
	}
	st.Done = st.RangesDone == st.Ranges && ck.Follow == nil
	st.Stopped = !(process.ID{Host: ck.Host, PID: ck.PID, Start: ck.PIDStart}).Running()
	st.Running = !st.Stopped && ck.Host == process.Self().Host
	if ck.Follow != nil {
		st.Follow, st.source = followStatus(ck, st.Stopped), ck.Source
		st.Rejected += ck.Follow.Rejected
	}
	return st, nil
}

// StatusVersion is the version of status's JSON shape; it changes only when
// a field changes meaning or goes.
const StatusVersion = 1

// Status is remodel status's result: every checkpoint found, the
// shards of the job that have none, and the totals.
type Status struct {
	Version     int                 `json:"version"` // StatusVersion
	Checkpoints []*CheckpointStatus `json:"checkpoints"`
	// Shards is the n of a sharded job's checkpoints; Missing the shards
	// (i/n) of it without one: finished (a run that succeeds removes its
	// checkpoint) or not started.
	Shards  int      `json:"shards,omitempty"`
	Missing []string `json:"shards_without_checkpoint,omitempty"`
	// SplitsDiffer is true when the shards' checkpoints name more than one
	// split plan: they are not all of one job (a job begun again with
	// another --ranges or mapping beside an earlier one's checkpoint).
	SplitsDiffer bool `json:"split_plans_differ,omitempty"`
	// JobsDiffer is true when the checkpoints name more than one --job, or
	// are of a sharded run and of one that is not: not one job's either.
	JobsDiffer bool  `json:"jobs_differ,omitempty"`
	Rows       int64 `json:"rows_settled"`
	Items      int64 `json:"items_written"`
	Rejected   int64 `json:"rejected"`
	Done       bool  `json:"done"`

	// Finished are the runs of the job whose checkpoint a success removed,
	// from the finished records they left (finished.go).
	Finished []*FinishedRun `json:"finished,omitempty"`
}

// ReadStatus reads the checkpoint files at paths (at least one) of one
// table and totals them (remodel status): the shards of a sharded job
// without a checkpoint are listed as Missing.
func ReadStatus(paths []string) (*Status, error) {
	rep := &Status{Version: StatusVersion, Done: true}
	have := map[int]bool{}
	split := "" // the split plan a checkpoint named last
	for i, p := range paths {
		st, err := ReadCheckpointStatus(p)
		if err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
		if i > 0 {
			first := rep.Checkpoints[0]
			if st.Table != first.Table {
				return nil, fmt.Errorf("status: the checkpoints are of tables %s (%s) and %s (%s): give the checkpoints of one job", first.Table, first.Path, st.Table, p)
			}
			if st.Job != first.Job || (st.Shard == "") != (first.Shard == "") {
				rep.JobsDiffer = true
			}
		}
		rep.Checkpoints = append(rep.Checkpoints, st)
		rep.Rows += st.Rows
		rep.Items += st.Items
		rep.Rejected += st.Rejected
		rep.Done = rep.Done && st.Done
		if st.Shard != "" {
			s, err := ParseShard(st.Shard)
			if err != nil {
				return nil, fmt.Errorf("status: checkpoint %s: shard %w", p, err)
			}
			if rep.Shards != 0 && rep.Shards != s.Count {
				return nil, fmt.Errorf("status: the checkpoints are of shards of %d and of %d: give the checkpoints of one job", rep.Shards, s.Count)
			}
			rep.Shards = s.Count
			have[s.Index] = true
		}
		if st.SplitDigest != "" {
			if split != "" && split != st.SplitDigest {
				rep.SplitsDiffer = true
			}
			split = st.SplitDigest
		}
	}
	slices.SortFunc(rep.Checkpoints, func(a, b *CheckpointStatus) int {
		if c := strings.Compare(a.Table, b.Table); c != 0 {
			return c
		}
		return shardIndex(a.Shard) - shardIndex(b.Shard)
	})
	for i := 1; i <= rep.Shards; i++ {
		if !have[i] {
			rep.Missing = append(rep.Missing, strconv.Itoa(i)+"/"+strconv.Itoa(rep.Shards))
		}
	}
	return rep, nil
}

func shardIndex(s string) int {
	sh, err := ParseShard(s)
	if err != nil {
		return 0
	}
	return sh.Index
}

// regularFile refuses a path that is not a regular file before it is read:
// reading a named pipe blocks until a writer comes (status would wait
// forever, deaf to SIGTERM), a device may never end. It opens the path
// without blocking (O_NONBLOCK: opening a pipe with no writer returns at
// once) and checks what it opened, so that a path swapped in between is
// checked too.
func regularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("migrate: reading checkpoint %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("migrate: checkpoint %s is not a regular file (%s): a checkpoint is a file migrate wrote", path, fileKind(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("migrate: reading checkpoint %s: %w", path, err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return fmt.Errorf("migrate: reading checkpoint %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("migrate: checkpoint %s is not a regular file (%s): a checkpoint is a file migrate wrote", path, fileKind(st.Mode()))
	}
	return nil
}

// fileKind names what a path that is not a regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
