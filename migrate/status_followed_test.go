package migrate_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestStatusFollowedRun: status of a real followed run whose follower
// rejected one change (below --max-rejects) counts that reject (it showed
// 0: only the copy's were counted), says the run follows from the slot
// (PostgreSQL) with its start and applied positions, and, asked, where the
// source stands and the WAL the slot holds back.
func TestStatusFollowedRun(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE tags (id int PRIMARY KEY, name varchar(3000) NOT NULL);\nINSERT INTO tags VALUES (1, 'one'), (2, 'two');\n"+eng.FullRows("tags"))
			fx := open(t, dsn, "mapping.yaml", `version: 1
table: {name: tags, key: {pk: PK, sk: SK}}
entities:
  tag: {from: tags, pk: "TAG#{name}", sk: "T#{id}"}
`)
			conn := eng.Connect(t, dsn)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.Follow, o.CreateTable, o.MaxRejects = true, true, 5
			dir := t.TempDir()
			o.CheckpointPath, o.RejectsPath, o.MappingDigest, o.SourceID = filepath.Join(dir, "c.json"), filepath.Join(dir, "rejects.jsonl"), "digest-1", "source-1"
			f := startFollow(t, testContext(t), o)
			f.following(t)
			if err := conn.Exec(context.Background(), "UPDATE tags SET name = '"+strings.Repeat("x", 2100)+"' WHERE id = 1"); err != nil {
				t.Fatal(err)
			}
			var st *migrate.Status
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
				var err error
				if st, err = migrate.ReadStatus([]string{o.CheckpointPath}); err != nil {
					t.Fatal(err)
				}
				if st.Rejected == 1 {
					break
				}
				if f.ended() || time.Now().After(deadline) {
					t.Fatalf("status counts %d rejected (the run ended: %v, %v); want the follower's 1", st.Rejected, f.ended(), f.err)
				}
			}
			fs := st.Checkpoints[0].Follow
			keeps := eng.Name == "postgres"
			if fs == nil || !fs.CopyDone || fs.Phase != migrate.PhaseFollowing || fs.Start == "" || fs.Applied == "" || fs.Rejected != 1 || (fs.Slot != "") != keeps {
				t.Fatalf("the follow state: %+v", fs)
			}
			src, err := source.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			st.AskSource(context.Background(), src)
			s := fs.Source
			if s == nil || s.Head == "" || s.Behind < 0 || fs.SourceNote != "" {
				t.Fatalf("the source: %+v (%s)", s, fs.SourceNote)
			}
			if keeps && (!s.SlotFound || !s.SlotActive || s.SlotHeld < 0 || s.Restart == "") {
				t.Errorf("the slot: %+v", s)
			}
			t.Logf("%s: %+v, source %+v", eng.Name, *fs, *s)
			f.stop(t)
			if st, err = migrate.ReadStatus([]string{o.CheckpointPath}); err != nil || st.Rejected != 1 || st.Checkpoints[0].Follow.Rejected != 1 {
				t.Errorf("after the stop: %+v, %v; want 1 rejected", st, err)
			}
		})
	}
}
