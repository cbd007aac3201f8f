package migrate

import "fmt"

// followState is where a followed migration stands: its slot and
// publication (and whether remodel created the publication, so that
// follow-cleanup drops it), where the copy's snapshot is in the source's
// history, whether the copy is done, and the last position applied.
type followState struct {
	Slot               string `json:"slot"`
	Publication        string `json:"publication"`
	PublicationCreated bool   `json:"publication_created"`
	Start              string `json:"start,omitempty"`
	CopyDone           bool   `json:"copy_done"`
	Applied            string `json:"applied,omitempty"`
	// Doubtful are the rows of copy requests in doubt (followdoubt.go).
	Doubtful []doubtRow `json:"doubtful,omitempty"`
	// Refused says why the follower stopped on a change it cannot follow
	// (a source.StopError): --follow --resume is refused with it.
	Refused string `json:"refused,omitempty"`
	// Rejected counts the changed rows the follower rejected, over every
	// run of the job: the lines it added to the rejects file (a row an
	// interrupted run named there already is not counted again). The
	// copy's are the entities'.
	Rejected int64 `json:"rejected,omitempty"`
	// Loading is what loads the objects of a followed copy into S3 while it
	// runs ("import", "bulk put"; "": none yet): status names the phase.
	Loading string `json:"loading,omitempty"`
}

// restoreFollow takes the follower's state from checkpoint ck: a followed
// migration resumes only with --follow, and --follow only resumes one.
func (tr *tracker) restoreFollow(ck *checkpointFile, path string) error {
	switch {
	case ck.Follow != nil && tr.file.Follow == nil:
		return fmt.Errorf("migrate: --resume: checkpoint %s is of a migration that follows the source's changes (slot %s): resume it with --follow, or end it with remodel follow-cleanup", path, ck.Follow.Slot)
	case ck.Follow == nil && tr.file.Follow != nil:
		return fmt.Errorf("migrate: --resume --follow: checkpoint %s is of a migration that did not follow the source's changes: the changes since its snapshot were not kept; start over with --follow, without --resume", path)
	case ck.Follow != nil:
		fs := *ck.Follow
		tr.file.Follow = &fs
	}
	return nil
}

// followLoading records, and saves at once, that the objects of a
// followed copy are being loaded (what: PhaseImport or PhaseBulkPut), so
// that status says so rather than "copy"; nil tr or an unfollowed run:
// nothing to record.
func (tr *tracker) followLoading(what string) error {
	if tr == nil || tr.file.Follow == nil {
		return nil
	}
	tr.mu.Lock()
	tr.file.Follow.Loading = what
	tr.mu.Unlock()
	return tr.save()
}
