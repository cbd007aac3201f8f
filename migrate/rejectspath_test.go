package migrate_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestRejectsPathNotRegular: Run removes an old rejects file before it
// starts and replaces its checkpoint by a rename; with RejectsPath
// /dev/null, run as root, that deleted /dev/null and left a regular file in
// its place. A named pipe stands in for /dev/null here: Run must refuse it,
// as the rejects file and as the checkpoint, before anything is done, and
// leave it a named pipe.
func TestRejectsPathNotRegular(t *testing.T) {
	eng := testenv.Engines[0]
	endpoint := testenv.DynamoDB(t)
	fx := load(t, eng, `CREATE TABLE things (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL);
INSERT INTO things VALUES (1, 'a'), (2, 'b');`, `version: 1
table: {name: things, key: {pk: PK, sk: SK}}
entities:
  thing: {from: things, pk: "T#{id}", sk: "T#"}
`)
	db := newDB(t, endpoint)
	fifo := filepath.Join(t.TempDir(), "rejects.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"rejects", "checkpoint"} {
		o := fx.options(db, tableName(t, db))
		o.CreateTable = true
		if field == "rejects" {
			o.RejectsPath = fifo
		} else {
			o.CheckpointPath = fifo
		}
		rep, err := migrate.Run(testContext(t), o)
		if err == nil || !strings.Contains(err.Error(), fifo+" is not a regular file") {
			t.Fatalf("%s: Run = %v, want it refused as not a regular file", field, err)
		}
		if rep.CreatedTable || rep.ItemsWritten != 0 {
			t.Errorf("%s: the refused run created the table or wrote items: %+v", field, rep)
		}
		fi, serr := os.Lstat(fifo)
		if serr != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: after Run the named pipe is gone or replaced: %v, %v", field, fi, serr)
		}
	}
}
