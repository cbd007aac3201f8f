package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/preview"
)

// errDiskFull is what fullDisk's writes fail with.
var errDiskFull = errors.New("write report: no space left on device")

// fullDisk takes room bytes, then fails as a full disk does: the write
// that crosses the limit writes what fits and fails, every later one
// fails.
type fullDisk struct{ room int }

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return len(p), nil
	}
	n := d.room
	d.room = 0
	return n, errDiskFull
}

// shortWriter writes less than it is given, without an error, once it
// has taken room bytes (a broken io.Writer).
type shortWriter struct{ room int }

func (s *shortWriter) Write(p []byte) (int, error) {
	n := min(len(p), s.room)
	s.room -= n
	return n, nil
}

// everyReport is one result of each kind Write renders, each written in
// parts enough to fail at any point of it.
func everyReport() map[string]any {
	out := map[string]any{
		"migrate":    migrateReports()["ok"],
		"migrate-s3": migrateReports()["s3shard"],
		"verify":     reports()["failed"],
		"status":     followedStatus(),
		"preview": &preview.Result{Table: preview.TableDef{Name: "shop", PK: "PK", SK: "SK", EntityAttr: "_type"},
			Entities: []preview.Entity{{Name: "user", From: "users", PK: "USER#{id}", SK: "USER#", Items: []json.RawMessage{json.RawMessage(`{"PK":{"S":"USER#1"}}`), json.RawMessage(`{"PK":{"S":"USER#2"}}`)}}}},
		"analysis": &analyze.Report{Table: "shop", Engine: "postgres", SampleRate: 1,
			Entities: []analyze.EntityStats{{Name: "user", Rows: 2, Items: 2}},
			Indexes:  []analyze.IndexStats{{Name: "shop", Kind: "table", PK: "PK", SK: "SK", Items: 2}},
			Warnings: []analyze.Warning{{Message: "a hot partition"}}},
		"follow-back": &followback.Report{Table: "shop", Stream: "arn:aws:dynamodb:stream", Checkpoint: "shop.remodel-follow-back.json", Records: 3, Applied: 3,
			Entities: []followback.EntityCount{{Entity: "order", Applied: 3, Rows: 3}}, Notes: []string{"a note"}, OK: true},
	}
	for _, name := range []string{"own", "sources"} { // "unreadable" prints nothing in text
		out["validate-"+name] = validations()[name]
	}
	return out
}

// TestWriteErrors: every report, in every format it renders in, returns
// the error of a writer that fails part way (a full disk), wherever it
// fails: at the first byte, the second, half way, the last; and a writer
// that writes less than it is given without saying why is an error too.
// Before, migrate's, status's and preview's text reports printed on
// without looking and returned nil.
func TestWriteErrors(t *testing.T) {
	for name, result := range everyReport() {
		for _, f := range report.Formats(result) {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				var whole bytes.Buffer
				if err := report.Write(&whole, f, result); err != nil {
					t.Fatal(err)
				}
				n := whole.Len()
				for _, room := range []int{0, 1, n / 2, n - 1} {
					if err := report.Write(&fullDisk{room: room}, f, result); !errors.Is(err, errDiskFull) {
						t.Errorf("a disk full after %d of its %d bytes: Write returned %v, want its error", room, n, err)
					}
				}
				if err := report.Write(&shortWriter{room: n / 2}, f, result); !errors.Is(err, io.ErrShortWrite) {
					t.Errorf("a writer that writes short after %d of %d bytes: Write returned %v, want io.ErrShortWrite", n/2, n, err)
				}
			})
		}
	}
}

// TestValidationWarningsWriteError: the warning lines validate prints on
// stderr return their writer's error too.
func TestValidationWarningsWriteError(t *testing.T) {
	v := validations()["own"]
	var whole bytes.Buffer
	if err := report.WriteValidationWarnings(&whole, v); err != nil || whole.Len() == 0 {
		t.Fatalf("%v, %d bytes", err, whole.Len())
	}
	for _, room := range []int{0, whole.Len() - 1} {
		if err := report.WriteValidationWarnings(&fullDisk{room: room}, v); !errors.Is(err, errDiskFull) {
			t.Errorf("a disk full after %d of %d bytes: %v, want its error", room, whole.Len(), err)
		}
	}
}
