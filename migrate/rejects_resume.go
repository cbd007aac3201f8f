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
