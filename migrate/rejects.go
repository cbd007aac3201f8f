package migrate

import (
	"encoding/json"
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

// rejects records rejected rows: every one in a JSON-lines file (created on
// the first rejection) and the first few in the report. More than max
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
	if r.n > r.max {
		return fmt.Errorf("migrate: %w: %d, more than --max-rejects %d (entity %s, row %s: %s)", errTooManyRejects, r.n, r.max, rej.Entity, rej.Row, rej.Reason)
	}
	return nil
}

func (r *rejects) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	return r.file.Close()
}
