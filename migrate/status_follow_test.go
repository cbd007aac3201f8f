package migrate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// TestStatusFollowPhases: status reads a followed migration's checkpoint
// (written by hand) in each phase: its phase, slot (PostgreSQL's only),
// start and applied positions, refusal, rows in doubt, and the follower's
// rejects counted with the copy's.
func TestStatusFollowPhases(t *testing.T) {
	dir := t.TempDir()
	self := process.Self()
	doubt := []doubtRow{{Entity: "orders", Key: []keyValue{{T: "N", V: "1"}}}, {Entity: "orders", Key: []keyValue{{T: "N", V: "2"}}}}
	for _, c := range []struct {
		name     string
		engine   introspect.Engine
		pid      int64 // 0: a process gone
		follow   followState
		phase    string
		slot     string
		rejected int64
	}{
		{"in the copy", introspect.Postgres, self.PID, followState{Slot: "remodel_s", Publication: "remodel_p", Start: "0/1000"},
			PhaseCopy, "remodel_s", 1},
		{"importing its objects", introspect.Postgres, self.PID, followState{Slot: "remodel_s", Publication: "remodel_p", Start: "0/1000", Loading: PhaseImport},
			PhaseImport, "remodel_s", 1},
		{"bulk putting its objects", introspect.MySQL, self.PID, followState{Slot: "remodel_s", Start: "binlog.000002:400", Loading: PhaseBulkPut},
			PhaseBulkPut, "", 1},
		{"following", introspect.Postgres, self.PID, followState{Slot: "remodel_s", Publication: "remodel_p", Start: "0/1000", CopyDone: true, Applied: "0/2000", Rejected: 2, Doubtful: doubt},
			PhaseFollowing, "remodel_s", 3},
		{"stopped after the copy", introspect.MySQL, 0, followState{Slot: "remodel_s", Start: "binlog.000002:400", CopyDone: true, Applied: "binlog.000002:900", Rejected: 1},
			PhaseStopped, "", 2},
		{"stopped in the copy", introspect.Postgres, 0, followState{Slot: "remodel_s", Publication: "remodel_p", Start: "0/1000"},
			PhaseStopped, "remodel_s", 1},
		{"refused, the process still there", introspect.Postgres, self.PID, followState{Slot: "remodel_s", Publication: "remodel_p", Start: "0/1000", CopyDone: true, Applied: "0/2000", Refused: "source: column note of table orders was dropped"},
			PhaseStopped, "remodel_s", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := c.follow
			path := writeCheckpoint(t, filepath.Join(dir, "ck.json"), checkpointFile{Version: checkpointVersion, Mapping: "m", Table: "t", TableARN: "arn:t", TableCreated: time.Unix(1, 0),
				Engine: string(c.engine), Source: "postgres://app@db.example/shop", Host: self.Host, PID: c.pid, Saved: time.Unix(2, 0),
				Entities: []checkpointEntity{{Name: "orders", Done: true, Rows: 10, Items: 9, Rejected: 1}}, Follow: &fs})
			st, err := ReadStatus([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			f := st.Checkpoints[0].Follow
			if f == nil || f.Phase != c.phase || f.Slot != c.slot || f.Start != fs.Start || f.Applied != fs.Applied || f.CopyDone != fs.CopyDone ||
				f.Refused != fs.Refused || f.Doubtful != len(fs.Doubtful) || f.Rejected != fs.Rejected {
				t.Errorf("follow %+v; want phase %s, slot %q and the checkpoint's %+v", f, c.phase, c.slot, fs)
			}
			if st.Checkpoints[0].Rejected != c.rejected || st.Rejected != c.rejected || st.Done {
				t.Errorf("rejected %d (total %d), done %v; want %d, not done", st.Checkpoints[0].Rejected, st.Rejected, st.Done, c.rejected)
			}
			if !st.Followed() || st.FollowSourceOf() != "postgres://app@db.example/shop" {
				t.Errorf("followed %v, source %q", st.Followed(), st.FollowSourceOf())
			}
		})
	}
}

// inspector is a source that says where it stands (source.FollowInspector).
type inspector struct {
	source.Source
	info source.FollowInfo
	err  error
}

func (i inspector) FollowInfo(context.Context, string, source.Position) (source.FollowInfo, error) {
	return i.info, i.err
}

// TestStatusFollowSource: what the source says is kept on each followed
// checkpoint; a running follower behind the source's head is catching
// up, one at it following, one whose slot nothing streams from (or that is
// gone) stopped; a source that cannot be read is noted.
func TestStatusFollowSource(t *testing.T) {
	path := writeCheckpoint(t, filepath.Join(t.TempDir(), "ck.json"), checkpointFile{Version: checkpointVersion, Mapping: "m", Table: "t", TableARN: "arn:t", TableCreated: time.Unix(1, 0),
		Engine: string(introspect.Postgres), Host: process.Self().Host, PID: process.Self().PID, Saved: time.Unix(2, 0),
		Entities: []checkpointEntity{{Name: "orders", Done: true}}, Follow: &followState{Slot: "remodel_s", CopyDone: true, Start: "0/1000", Applied: "0/2000"}})
	for _, c := range []struct {
		name  string
		src   inspector
		phase string
		note  string
	}{
		{"behind", inspector{info: source.FollowInfo{Head: "0/3000", Ahead: true, Behind: 4096, Slot: true, Active: true, Retained: 8192}}, PhaseCatchUp, ""},
		{"at the head", inspector{info: source.FollowInfo{Head: "0/2000", Slot: true, Active: true, Retained: 4096}}, PhaseFollowing, ""},
		{"the slot not streamed from", inspector{info: source.FollowInfo{Head: "0/3000", Ahead: true, Behind: 4096, Slot: true, Retained: 8192}}, PhaseStopped, ""},
		{"the slot gone", inspector{info: source.FollowInfo{Head: "0/3000", Ahead: true, Behind: 4096, Retained: -1}}, PhaseStopped, ""},
		{"not read", inspector{err: errors.New("source: reading replication slot remodel_s: timeout")}, PhaseFollowing, "source: reading replication slot remodel_s: timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := ReadStatus([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			st.AskSource(context.Background(), c.src)
			f := st.Checkpoints[0].Follow
			if f.Phase != c.phase || f.SourceNote != c.note {
				t.Errorf("phase %s, note %q; want %s, %q", f.Phase, f.SourceNote, c.phase, c.note)
			}
			if c.note == "" && (f.Source == nil || f.Source.Head != string(c.src.info.Head) || f.Source.Behind != c.src.info.Behind || f.Source.SlotHeld != c.src.info.Retained || f.Source.SlotActive != c.src.info.Active) {
				t.Errorf("source %+v; want %+v", f.Source, c.src.info)
			}
		})
	}
}
