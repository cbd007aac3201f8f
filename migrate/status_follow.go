package migrate

import (
	"context"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// The phases of a followed migration (FollowStatus.Phase).
const (
	// PhaseCopy: the copy of the snapshot is not done.
	PhaseCopy = "copy"
	// PhaseImport and PhaseBulkPut: a followed copy into S3 is done, and
	// its objects are being loaded (ImportTable, bulk put) before the
	// follower starts.
	PhaseImport  = "import"
	PhaseBulkPut = "bulk put"
	// PhaseCatchUp: the copy is done and the follower runs, but the
	// source's log is past what it applied (known only when status asked
	// the source).
	PhaseCatchUp = "catch-up"
	// PhaseFollowing: the copy is done and the follower runs, at the
	// source's head when status asked the source.
	PhaseFollowing = "following"
	// PhaseStopped: the process that saved the checkpoint is gone (or the
	// follower stopped on a change it cannot follow: Refused).
	PhaseStopped = "stopped"
)

// FollowStatus is where a followed migration (migrate --follow) stands,
// from its checkpoint and, when status could ask it, from the source.
type FollowStatus struct {
	Phase    string `json:"phase"`
	CopyDone bool   `json:"copy_done"`
	// Slot and Publication are PostgreSQL's (a MySQL binlog keeps no
	// position for remodel: empty). Start is the copy's snapshot in the
	// source's log, Applied the last position whose changes are applied:
	// LSNs on PostgreSQL, binlog positions (FILE:OFFSET) on MySQL.
	Slot        string `json:"slot,omitempty"`
	Publication string `json:"publication,omitempty"`
	Start       string `json:"start,omitempty"`
	Applied     string `json:"applied,omitempty"`
	// Refused says why the follower stopped on a change it cannot follow:
	// --follow --resume is refused with it.
	Refused string `json:"refused,omitempty"`
	// Doubtful is how many copy rows are in doubt (written again from the
	// source at the follower's clean stop); Rejected the changed rows the
	// follower rejected, over every run.
	Doubtful int   `json:"doubtful"`
	Rejected int64 `json:"rejected"`
	// Source is what status read from the source (nil: not asked or not
	// reached: SourceNote says why).
	Source     *SourcePosition `json:"source,omitempty"`
	SourceNote string          `json:"source_note,omitempty"`
}

// SourcePosition is where the source stands against a followed migration,
// read by status.
type SourcePosition struct {
	// Head is where the source's log ends now; Behind how many bytes of
	// it are past Applied (-1: not known, as between two binlog files).
	Head   string `json:"head"`
	Behind int64  `json:"behind_bytes"`
	// SlotFound, SlotActive and SlotHeld are PostgreSQL's: whether the
	// slot exists, whether a process streams from it now, and the bytes
	// of WAL it holds back (pg_current_wal_lsn() - restart_lsn; -1: not
	// known).
	SlotFound  bool   `json:"slot_found"`
	SlotActive bool   `json:"slot_active"`
	SlotHeld   int64  `json:"slot_retained_wal_bytes"`
	Restart    string `json:"slot_restart_lsn,omitempty"`
}

// followStatus is a checkpoint's follow state for status; stopped says
// whether the process that saved it is gone.
func followStatus(ck *checkpointFile, stopped bool) *FollowStatus {
	fs := ck.Follow
	st := &FollowStatus{CopyDone: fs.CopyDone, Start: fs.Start, Applied: fs.Applied, Refused: fs.Refused,
		Doubtful: len(fs.Doubtful), Rejected: fs.Rejected}
	if introspect.Engine(ck.Engine).Dialect().KeepsStreamPosition() {
		st.Slot, st.Publication = fs.Slot, fs.Publication
	}
	switch {
	case stopped || fs.Refused != "":
		st.Phase = PhaseStopped
	case !fs.CopyDone && fs.Loading != "":
		st.Phase = fs.Loading
	case !fs.CopyDone:
		st.Phase = PhaseCopy
	default:
		st.Phase = PhaseFollowing
	}
	return st
}

// Followed says whether a checkpoint read is of a followed migration.
func (s *Status) Followed() bool {
	for _, c := range s.Checkpoints {
		if c.Follow != nil {
			return true
		}
	}
	return false
}

// FollowSourceOf is the source the first followed checkpoint names,
// without its password ("" when none names one).
func (s *Status) FollowSourceOf() string {
	for _, c := range s.Checkpoints {
		if c.Follow != nil && c.source != "" {
			return c.source
		}
	}
	return ""
}

// NoSource notes on every followed checkpoint why the source was not
// asked.
func (s *Status) NoSource(why string) {
	for _, c := range s.Checkpoints {
		if c.Follow != nil {
			c.Follow.SourceNote = why
		}
	}
}

// AskSource reads, for every followed checkpoint, where the source
// stands (source.FollowInspector): its head, how far that is past what
// was applied (a running follower behind it is in PhaseCatchUp) and,
// on PostgreSQL, the slot and the WAL it holds back (a follower after the
// copy whose slot no process streams from, or that is gone, is stopped,
// whatever its process). What cannot be read
// is noted on the checkpoint (SourceNote), not an error: the checkpoint
// says what it says without the source.
func (s *Status) AskSource(ctx context.Context, src source.Source) {
	ins, ok := src.(source.FollowInspector)
	if !ok {
		s.NoSource(fmt.Sprintf("the %s source cannot say where it stands", src.Engine()))
		return
	}
	for _, c := range s.Checkpoints {
		fs := c.Follow
		if fs == nil {
			continue
		}
		info, err := ins.FollowInfo(ctx, fs.Slot, source.Position(fs.Applied))
		if err != nil {
			fs.SourceNote = err.Error()
			continue
		}
		fs.Source = &SourcePosition{Head: string(info.Head), Behind: info.Behind, SlotFound: info.Slot, SlotActive: info.Active,
			SlotHeld: info.Retained, Restart: string(info.Restart)}
		switch {
		case fs.Phase == PhaseStopped || fs.Phase == PhaseCopy || fs.Phase == PhaseImport || fs.Phase == PhaseBulkPut: // nothing streams from the slot yet
		case fs.Slot != "" && (!info.Slot || !info.Active):
			fs.Phase = PhaseStopped // nothing streams from the slot
		case info.Ahead:
			fs.Phase = PhaseCatchUp
		}
	}
}
