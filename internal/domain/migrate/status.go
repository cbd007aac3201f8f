package migrate

import (
	"fmt"
	"time"
)

// CheckpointStatus is what a checkpoint file says of its run (remodel
// status): whose it is, and how far it got. A run that succeeds removes
// its checkpoint, so a checkpoint is of a run that is going on, or that
// stopped (to --resume), or one whose last save had every range done
// (Done) but which has not removed it yet.
type CheckpointStatus struct {
	Path  string    `json:"checkpoint"`
	Table string    `json:"table"`
	Shard string    `json:"shard,omitempty"`
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
}

// ReadCheckpointStatus reads a checkpoint file (checked like --resume
// checks it: its checksum and format) for remodel status.
func ReadCheckpointStatus(path string) (*CheckpointStatus, error) {
	ck, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := ck.sane(); err != nil {
		return nil, fmt.Errorf("migrate: checkpoint %s: %w", path, err)
	}
	st := &CheckpointStatus{Path: path, Table: ck.Table, Shard: ck.Shard, Host: ck.Host, PID: ck.PID, Saved: ck.Saved, Ranges: len(ck.Entities)}
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
	return st, nil
}
