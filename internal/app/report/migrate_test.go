package report_test

import (
	"bytes"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/migrate"
)

// migrateReports are hand-built migrate reports: a run that succeeded, one
// that failed part way, with rejected rows, an interrupted shard of a job
// named with --job (its resume hint names the shard and the job), and a
// shard into S3 (whose key collision check always runs).
func migrateReports() map[string]*migrate.Report {
	ents := []migrate.EntityReport{{Name: "order", Rows: 100, Items: 98, Rejected: 2, Bytes: 1_234_567, Seconds: 1.25}, {Name: "customer", Rows: 10, Items: 10, Bytes: 940, Seconds: 0.5}}
	return map[string]*migrate.Report{
		"ok": {Version: migrate.ReportVersion, Table: "shop", Engine: "postgres", OK: true, CreatedTable: true,
			Concurrency: &migrate.ConcurrencyReport{Writers: 16, Peak: 12, Cuts: 3, Pauses: 2, Paused: 1.25},
			Seconds:     1.5, RowsRead: 110, ItemsWritten: 108, Rejected: 2, ItemsPerSecond: 72, WriteUnits: 108, Entities: ents,
			Phases: []migrate.Phase{{Name: migrate.TimedSchema, Seconds: 0.04}, {Name: migrate.TimedTable, Seconds: 0.12}, {Name: migrate.TimedSnapshot, Seconds: 0.01},
				{Name: migrate.TimedKeyCheck, Seconds: 0.02}, {Name: migrate.TimedCopy, Seconds: 1.3}},
			Rejections:  []migrate.Rejection{{Entity: "order", Row: "id=7", Reason: "rendering PK: column customer_id is NULL"}, {Entity: "order", Row: "id=9", Reason: "the item is over 400 KB | ``` <b>"}},
			RejectsFile: "shop.remodel-rejects.jsonl", KeysDistinct: true,
			KeyProof: []string{"entity order: the primary key (id) is rendered whole into a key that can be read back", "entity customer: the primary key (id) is rendered whole into a key that can be read back",
				"entity address: the primary key (id) is rendered whole into a key that can be read back", "entity item: the primary key (id) is rendered whole into a key that can be read back",
				"the entities' keys differ in their constant prefixes"}},
		"failed": {Version: migrate.ReportVersion, Table: "shop", Engine: "mysql", Error: "migrate: 25 items still not written after retrying for 2m0s", Partial: true,
			Checkpoint: "shop.remodel-checkpoint.json", Seconds: 130, RowsRead: 60, ItemsWritten: 50, Entities: ents[:1]},
		"shard": {Version: migrate.ReportVersion, Table: "shop", TableFlag: "shop", Engine: "postgres", Shard: "2/3", Job: "nightly '7'", SplitDigest: "5d6250dfb146aa00",
			Interrupted: true, Partial: true, Checkpoint: "shop.shard-2-of-3.remodel-checkpoint.json", Seconds: 10, RowsRead: 60, ItemsWritten: 50, Entities: ents[:1]},
		"s3shard": {Version: migrate.ReportVersion, Table: "shop", Engine: "mysql", Shard: "1/3", Job: "j1", SplitDigest: "5d6250dfb146aa00", OK: true,
			Seconds: 2, RowsRead: 110, ItemsWritten: 108, Rejected: 2, ItemsPerSecond: 54, Entities: ents, RejectsFile: "remodel-rejects.shard-1-of-3.jsonl",
			S3:             &migrate.S3Report{URL: "s3://bucket/shop/", Compression: "gzip", Manifest: "s3://bucket/shop.shard-1-of-3.remodel-manifest.json", Objects: 2, Bytes: 4096, Uncompressed: 20480},
			KeyCheckForced: true, KeyProof: []string{"entity order: the primary key (id) is rendered whole into a key that can be read back"},
			KeyCheck: &migrate.KeyCheckStats{Keys: 108, MemoryBytes: 17 << 20, DiskBytes: 4096}},
		// Followed runs: a PostgreSQL follower drained at the stop, with
		// copy rows in doubt written again; a MariaDB follower stopped
		// short of the source (no slot to drop); a copy that failed before
		// the follower started (the slot keeps the changes); the table gone
		// while following (no --resume to advise).
		"follow-stopped": {Version: migrate.ReportVersion, Table: "shop", Engine: "postgres", OK: true, Seconds: 70, RowsRead: 110, ItemsWritten: 108, Rejected: 2, Entities: ents,
			Checkpoint: "shop.remodel-checkpoint.json", FollowSlot: "remodel_shop_0a1b2c3d", FollowKeeps: true, Interrupted: true,
			Follow: &migrate.FollowReport{Slot: "remodel_shop_0a1b2c3d", Publication: "remodel_shop_0a1b2c3d", Start: "0/2443CA8", Applied: "0/24475E0", Transactions: 3, Changes: 61, Puts: 59, Deletes: 2,
				Entities: []migrate.FollowEntity{{Name: "order", Changes: 61, Puts: 59, Deletes: 2}}, Stopped: true, CaughtUp: true, Redone: 25}},
		"follow-behind": {Version: migrate.ReportVersion, Table: "shop", Engine: "mysql", Error: "migrate: --follow stopped before every change committed before the stop was applied", Seconds: 70, RowsRead: 110, ItemsWritten: 108, Entities: ents,
			Checkpoint: "shop.remodel-checkpoint.json", FollowSlot: "remodel_shop_0a1b2c3d", Interrupted: true,
			Follow: &migrate.FollowReport{Slot: "remodel_shop_0a1b2c3d", Start: "binlog.000001:1321030 gtid 0-1-3", Applied: "binlog.000001:2113441 gtid 0-1-2095", Transactions: 2095, Changes: 2308, Puts: 2100, Deletes: 208,
				Entities: []migrate.FollowEntity{{Name: "order", Changes: 2308, Puts: 2100, Deletes: 208}}, Stopped: true}},
		"follow-copy-failed": {Version: migrate.ReportVersion, Table: "shop", Engine: "postgres", Error: "migrate: 25 items still not written after retrying for 2m0s", Partial: true,
			Checkpoint: "shop.remodel-checkpoint.json", FollowSlot: "remodel_shop_0a1b2c3d", FollowKeeps: true, Seconds: 130, RowsRead: 60, ItemsWritten: 50, Entities: ents[:1]},
		"follow-table-gone": {Version: migrate.ReportVersion, Table: "shop", Engine: "postgres", Error: "migrate: --follow: writing: ResourceNotFoundException", TableGone: true,
			Checkpoint: "shop.remodel-checkpoint.json", FollowSlot: "remodel_shop_0a1b2c3d", FollowKeeps: true, Seconds: 30, RowsRead: 110, ItemsWritten: 108, Entities: ents,
			Follow: &migrate.FollowReport{Slot: "remodel_shop_0a1b2c3d", Publication: "remodel_shop_0a1b2c3d", Start: "0/2443CA8", Applied: "0/24475E0", Entities: []migrate.FollowEntity{{Name: "order"}}}},
	}
}

// TestMigrateGolden pins migrate's report in text and Markdown, and in
// JSON the successful run's (its entities' bytes and seconds, its phases).
func TestMigrateGolden(t *testing.T) {
	for name, rep := range migrateReports() {
		formats := map[report.Format]string{report.Text: "txt", report.Markdown: "md"}
		if name == "ok" {
			formats[report.JSON] = "json"
		}
		for f, ext := range formats {
			var b bytes.Buffer
			if err := report.Write(&b, f, rep); err != nil {
				t.Fatalf("%s as %s: %v", name, f, err)
			}
			golden.Check(t, "migrate."+name+".golden."+ext, b.Bytes())
		}
	}
}

// TestFormats: what each result renders in, and a format it has not is an
// error, not an empty output.
func TestFormats(t *testing.T) {
	var b bytes.Buffer
	if err := report.Write(&b, report.JUnit, migrateReports()["ok"]); err == nil || b.Len() > 0 {
		t.Errorf("migrate's report as JUnit: %v, %q; want an error and nothing written", err, b.String())
	}
	if got := report.Formats(migrateReports()["ok"]); len(got) != 3 || got[2] != report.Markdown {
		t.Errorf("migrate's formats %v", got)
	}
}
