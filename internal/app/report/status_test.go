package report_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/migrate"
)

// followedStatus is remodel status of followed migrations, one checkpoint
// per phase: a PostgreSQL copy going on, a PostgreSQL follower catching
// up (the source asked: its head, the WAL the slot holds), a MariaDB
// follower at the source's head, one stopped on a change it cannot follow
// with copy rows in doubt and a rejected change, and one whose source was
// not reached.
func followedStatus() *migrate.Status {
	saved := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	ck := func(path, engine string, rejected int64, stopped bool, f *migrate.FollowStatus) *migrate.CheckpointStatus {
		return &migrate.CheckpointStatus{Path: path, Table: "shop", Host: "db-runner", PID: 4242, Saved: saved, Rows: 110, Items: 108,
			Rejected: rejected, Ranges: 2, RangesDone: 2, Stopped: stopped, Follow: f}
	}
	pg := func(f migrate.FollowStatus) *migrate.FollowStatus {
		f.Slot, f.Publication, f.Start = "remodel_shop_0a1b2c3d", "remodel_shop_0a1b2c3d", "0/2443CA8"
		return &f
	}
	return &migrate.Status{Version: migrate.StatusVersion, Rows: 550, Items: 540, Rejected: 4, Checkpoints: []*migrate.CheckpointStatus{
		ck("copy.json", "postgres", 0, false, pg(migrate.FollowStatus{Phase: migrate.PhaseCopy})),
		ck("catchup.json", "postgres", 0, false, pg(migrate.FollowStatus{Phase: migrate.PhaseCatchUp, CopyDone: true, Applied: "0/24475E0",
			Source: &migrate.SourcePosition{Head: "0/2C475E0", Behind: 128 << 20, SlotFound: true, SlotActive: true, SlotHeld: 130 << 20, Restart: "0/2443C70"}})),
		ck("following.json", "mysql", 1, false, &migrate.FollowStatus{Phase: migrate.PhaseFollowing, CopyDone: true, Start: "binlog.000001:1321030 gtid 0-1-3", Applied: "binlog.000001:2113441 gtid 0-1-2095", Rejected: 1,
			Source: &migrate.SourcePosition{Head: "binlog.000001:2113441", SlotHeld: -1}}),
		ck("refused.json", "postgres", 3, true, pg(migrate.FollowStatus{Phase: migrate.PhaseStopped, CopyDone: true, Applied: "0/24475E0", Doubtful: 25, Rejected: 1,
			Refused: "source: table orders changed while followed: column note was dropped",
			Source:  &migrate.SourcePosition{Head: "0/24480A8", Behind: 2760, SlotFound: true, SlotHeld: 17544, Restart: "0/2443C70"}})),
		ck("unreached.json", "postgres", 0, true, pg(migrate.FollowStatus{Phase: migrate.PhaseStopped, Applied: "0/2443CA8",
			SourceNote: "source: connecting to 10.0.0.5:5432: connection refused"})),
	}}
}

// TestStatusFollowGolden pins status of followed migrations in text, and
// the JSON of their follow objects (--output json).
func TestStatusFollowGolden(t *testing.T) {
	st := followedStatus()
	var b bytes.Buffer
	if err := report.Write(&b, report.Text, st); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "status.follow.golden.txt", b.Bytes())
	b.Reset()
	var follows []*migrate.FollowStatus
	for _, c := range st.Checkpoints {
		follows = append(follows, c.Follow)
	}
	if err := report.WriteJSON(&b, follows); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "status.follow.golden.json", b.Bytes())
}
