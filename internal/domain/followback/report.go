package followback

import (
	"sort"
	"time"
)

// ReportVersion is the shape of the JSON report.
const ReportVersion = 1

// Report is what a follow-back run did.
type Report struct {
	Version        int       `json:"version"`
	Table          string    `json:"table"`
	Stream         string    `json:"stream"`
	Checkpoint     string    `json:"checkpoint"`
	DeadLetterFile string    `json:"dead_letter_file"`
	Resumed        bool      `json:"resumed"`
	Started        time.Time `json:"started"`
	Ended          time.Time `json:"ended"`
	Seconds        float64   `json:"seconds"`
	// Records are the stream records read after the start point; Applied
	// the item changes written back (AlreadyApplied of their rows were
	// found as written, by a run before a restart); Own the records of
	// follow-back's own lock item.
	Records        int64         `json:"records"`
	Applied        int64         `json:"applied"`
	Rows           int64         `json:"rows_written"`
	AlreadyApplied int64         `json:"already_applied"`
	DeadLetters    int64         `json:"dead_letters"`
	Deferred       int64         `json:"deferred"` // waiting at the stop: read again by --resume
	Own            int64         `json:"own_lock_records"`
	PerSecond      float64       `json:"per_second"`
	LagP50         float64       `json:"lag_p50_seconds"`
	LagP99         float64       `json:"lag_p99_seconds"`
	Entities       []EntityCount `json:"entities"`
	Notes          []string      `json:"notes,omitempty"`
	Stopped        bool          `json:"stopped"` // by a signal, as it should
	Error          string        `json:"error,omitempty"`
	OK             bool          `json:"ok"`
}

// EntityCount is what was done for one entity's items.
type EntityCount struct {
	Entity      string `json:"entity"`
	Applied     int64  `json:"applied"`
	Rows        int64  `json:"rows_written"`
	DeadLetters int64  `json:"dead_letters"`
}

// finish completes the report at the run's end.
func (r *Report) finish(f *follower, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r.Ended = time.Now().UTC()
	r.Seconds = r.Ended.Sub(r.Started).Seconds()
	for _, c := range f.per {
		r.Entities = append(r.Entities, *c)
		r.Applied += c.Applied
		r.Rows += c.Rows
	}
	sort.Slice(r.Entities, func(i, j int) bool { return r.Entities[i].Entity < r.Entities[j].Entity })
	if r.Seconds > 0 {
		r.PerSecond = float64(r.Applied) / r.Seconds
	}
	r.LagP50 = lagPercentile(f.lags, 0.50).Seconds()
	r.LagP99 = lagPercentile(f.lags, 0.99).Seconds()
	var deferredN int64
	for _, w := range f.waiting {
		deferredN += int64(len(w.recs))
	}
	r.Deferred = deferredN
	if err == nil {
		r.Stopped, r.OK = true, true
		return
	}
	r.Error = err.Error()
}
