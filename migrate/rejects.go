package migrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Rejection is a source row that did not become an item.
type Rejection struct {
	Entity string `json:"entity"`
	Row    string `json:"row"` // the row's source primary key
	Reason string `json:"reason"`
}

// rejects records rejected rows: every one in a JSON-lines file (created
// when the run starts, empty while nothing is rejected: start) and the
// first few in the report. More than max
// rejections stop the run.
type rejects struct {
	mu    sync.Mutex
	path  string
	file  *os.File
	enc   *json.Encoder
	max   int64
	n     int64
	first []Rejection
	// earlier holds the rows an interrupted run of a resumed job already
	// wrote to the file (entity and row): the file is appended to, and a
	// row rejected again is not written twice (rejects_resume.go).
	earlier map[string]bool
	// settled holds the rows of earlier that the resumed run read as
	// settled (rejects_resume.go): the others' lines are dropped.
	settled map[string]bool
	// named holds the rows (entity and row) this run wrote to the file,
	// for addOnce.
	named map[string]bool
}

func (r *rejects) add(rej Rejection) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if len(r.first) < 20 {
		r.first = append(r.first, rej)
	}
	if r.path != "" && !r.earlier[rejectKey(rej)] {
		if r.file == nil {
			f, err := r.open()
			if err != nil {
				return err
			}
			r.file, r.enc = f, json.NewEncoder(f)
		}
		if err := r.enc.Encode(rej); err != nil {
			return fmt.Errorf("migrate: writing %s: %w", r.path, err)
		}
	}
	if r.named == nil {
		r.named = map[string]bool{}
	}
	r.named[rejectKey(rej)] = true
	if r.n > r.max {
		return &rejectsExceeded{n: r.n, max: r.max, last: rej}
	}
	return nil
}

// addOnce is add for a row this job may have rejected already: the diff
// pass of a followed migration reads every row of its entity again. A row
// the file names already is neither written nor counted again (false).
func (r *rejects) addOnce(rej Rejection) (bool, error) {
	r.mu.Lock()
	k := rejectKey(rej)
	known := r.earlier[k] || r.named[k]
	r.mu.Unlock()
	if known {
		return false, nil
	}
	return true, r.add(rej)
}

// rejectsExceeded is why a run stopped on its rejected rows: more than
// --max-rejects, with the last one rejected. It reaches Run through the
// source's read or a writer, each of which wraps it in what it was doing;
// run reports it alone, so the message does not blame the source.
type rejectsExceeded struct {
	n, max int64
	last   Rejection
}

func (e *rejectsExceeded) Error() string {
	return fmt.Sprintf("migrate: stopped: rejected rows exceeded --max-rejects %d (%d rejected; the last: entity %s, row %s: %s)", e.max, e.n, e.last.Entity, e.last.Row, e.last.Reason)
}

func (e *rejectsExceeded) Is(target error) bool { return target == errTooManyRejects }

// rejectsAlone returns the rejectsExceeded inside err without the wrapping
// of whoever met it, or err itself.
func rejectsAlone(err error) error {
	var ex *rejectsExceeded
	if errors.As(err, &ex) {
		return ex
	}
	return err
}

func (r *rejects) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	return r.file.Close()
}

// CheckReplaceable refuses a path that exists and is neither a regular file
// nor a symbolic link (/dev/null, a named pipe, a directory, a device):
// migrate removes and recreates its rejected-rows file and replaces its
// checkpoint by a rename, so such a path would be deleted (run as root,
// --rejects /dev/null deleted /dev/null and left a regular file in its
// place). A symbolic link is removed or replaced itself, never its target.
// "" and a path that does not exist are fine.
func CheckReplaceable(path string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	return fmt.Errorf("%s is not a regular file, and migrate removes and rewrites this file", path)
}
