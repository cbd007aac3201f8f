package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// rejectKey names a rejected row: its entity and source key.
func rejectKey(r Rejection) string { return r.Entity + "\x00" + r.Row }

// open opens the rejected-rows file: a new one, or for a resumed job the
// earlier runs' file, appended to.
func (r *rejects) open() (*os.File, error) {
	if r.earlier == nil {
		f, err := os.Create(r.path)
		if err != nil {
			return nil, fmt.Errorf("migrate: creating the rejected-rows file: %w", err)
		}
		return f, nil
	}
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return nil, fmt.Errorf("migrate: opening the rejected-rows file: %w", err)
	}
	return f, nil
}

// start makes the rejected-rows file exist from the start of a run,
// empty while nothing is rejected, so that verify --rejects (which reads
// it) finds it after any run, and during a followed one. A new job's file
// replaces one an earlier run left (it would tell of rows this run did not
// reject): the old one is removed, never truncated through a symbolic link.
// A resumed job's file keeps its lines (loadEarlier read them); it is
// created if it is missing, and not kept open: dropUnsettled may replace
// it before anything is written.
func (r *rejects) start(resume bool) error {
	if r.path == "" {
		return nil
	}
	if !resume {
		if err := os.Remove(r.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("migrate: removing the old rejected-rows file: %w", err)
		}
	}
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return fmt.Errorf("migrate: creating the rejected-rows file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("migrate: creating the rejected-rows file: %w", err)
	}
	return nil
}

// loadEarlier reads the rows the file lists already, for a resumed job. A
// last line cut short (the run was killed while writing it) is cut off.
func (r *rejects) loadEarlier() error {
	r.earlier = map[string]bool{}
	if r.path == "" {
		return nil
	}
	b, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("migrate: reading the rejected-rows file of the interrupted run: %w", err)
	}
	whole := bytes.LastIndexByte(b, '\n') + 1
	if whole < len(b) {
		if err := os.Truncate(r.path, int64(whole)); err != nil {
			return fmt.Errorf("migrate: cutting the last, unfinished line of %s: %w", r.path, err)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b[:whole]))
	sc.Buffer(nil, 1<<30)
	for line := 1; sc.Scan(); line++ {
		var rej Rejection
		if err := json.Unmarshal(sc.Bytes(), &rej); err != nil {
			return fmt.Errorf("migrate: %s:%d: not a rejected row: %w", r.path, line, err)
		}
		r.earlier[rejectKey(rej)] = true
	}
	return sc.Err()
}

// settledRejected reports whether the file lists entity's row (its source
// key text) and notes that this row is settled (read before its entity's
// checkpoint key): its line stays. Called by the readers of a resumed
// run's settled rows, at once.
func (r *rejects) settledRejected(entity, row string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := entity + "\x00" + row
	if !r.earlier[k] {
		return false
	}
	if r.settled == nil {
		r.settled = map[string]bool{}
	}
	r.settled[k] = true
	return true
}

// namedBefore says whether an interrupted run of the job named rej's row
// in the file already (add does not write it again).
func (r *rejects) namedBefore(rej Rejection) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.earlier[rejectKey(rej)]
}

// hasEarlier says whether the file listed rows when the job resumed.
func (r *rejects) hasEarlier() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.earlier) > 0
}

// dropUnsettled removes from the file the lines of rows no earlier run
// settled, once every settled row has been read (settledRejected) and
// before anything is written: those rows are read and decided again, and
// the decision may differ (of two rows with one key in different key
// ranges, the one written is the first to reach the check, which may be
// the other this time; a row rejected then may be written now). Only the
// settled rows' lines stay; the file is replaced by a rename.
func (r *rejects) dropUnsettled() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.path == "" || len(r.settled) == len(r.earlier) {
		return nil
	}
	b, err := os.ReadFile(r.path)
	if err != nil {
		return fmt.Errorf("migrate: reading the rejected-rows file of the interrupted run: %w", err)
	}
	var keep bytes.Buffer
	for line := range bytes.Lines(b) {
		var rej Rejection
		if err := json.Unmarshal(line, &rej); err != nil {
			return fmt.Errorf("migrate: %s: not a rejected row: %w", r.path, err)
		}
		if r.settled[rejectKey(rej)] {
			keep.Write(line)
		}
	}
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, keep.Bytes(), 0o666); err != nil {
		return fmt.Errorf("migrate: rewriting %s without the rows to read again: %w", r.path, err)
	}
	if err := os.Rename(tmp, r.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("migrate: rewriting %s without the rows to read again: %w", r.path, err)
	}
	r.earlier, r.settled = r.settled, nil
	if r.earlier == nil {
		r.earlier = map[string]bool{}
	}
	return nil
}

// sync stores what was written to the file so far.
func (r *rejects) sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	if err := r.file.Sync(); err != nil {
		return fmt.Errorf("migrate: syncing %s: %w", r.path, err)
	}
	return nil
}
