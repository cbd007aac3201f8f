package migrate_test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// TestReportPhasesAndBytes: migrate's report times each phase where it
// happens, in the order the run goes through them (the stray scan only
// for a table that held items), and gives each entity the bytes of its
// items, as the items in the table measure (mapping.ItemSize, DynamoDB's
// count), and its seconds, within the run's.
func TestReportPhasesAndBytes(t *testing.T) {
	eng := testenv.Engines[0]
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, eng)
	db := newDB(t, endpoint)
	table := tableName(t, db)
	ctx := testContext(t)
	o := fx.options(db, table)
	o.CreateTable = true
	o.RejectsPath = t.TempDir() + "/rejects.jsonl"
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := phaseNames(rep), []string{migrate.TimedTable, migrate.TimedSnapshot, migrate.TimedKeyCheck, migrate.TimedCopy}; !slices.Equal(got, want) {
		t.Errorf("phases %v, want %v", got, want)
	}
	var sum float64
	for _, p := range rep.Phases {
		if p.Seconds < 0 {
			t.Errorf("phase %s took %.3fs", p.Name, p.Seconds)
		}
		sum += p.Seconds
	}
	if sum > rep.Seconds || rep.Phases[len(rep.Phases)-1].Seconds <= 0 {
		t.Errorf("phases %+v add up to %.3fs of a %.3fs run", rep.Phases, sum, rep.Seconds)
	}
	// The bytes of each entity's items, as they are in the table.
	want := map[string]int64{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if e, ok := it["_type"].(*types.AttributeValueMemberS); ok {
				want[e.Value] += int64(mapping.ItemSize(it))
			}
		}
	}
	for _, e := range rep.Entities {
		if e.Bytes != want[e.Name] || e.Bytes == 0 {
			t.Errorf("entity %s: %d bytes reported, its items in the table hold %d", e.Name, e.Bytes, want[e.Name])
		}
		if e.Items > 0 && (e.Seconds <= 0 || e.Seconds > rep.Seconds) {
			t.Errorf("entity %s: %.3fs of a %.3fs run", e.Name, e.Seconds, rep.Seconds)
		}
	}

	// Into S3 objects: the same items, counted once their object is
	// uploaded; the manifest is a phase of its own, no table, no stray
	// scan.
	so := fx.s3Options(newFakeS3(t), "phases/")
	so.RejectsPath = t.TempDir() + "/rejects.jsonl"
	srep, err := migrate.Run(ctx, so)
	if err != nil {
		t.Fatalf("Run into S3: %v", err)
	}
	if got, want := phaseNames(srep), []string{migrate.TimedSnapshot, migrate.TimedKeyCheck, migrate.TimedCopy, migrate.TimedManifest}; !slices.Equal(got, want) {
		t.Errorf("phases into S3 %v, want %v", got, want)
	}
	for _, e := range srep.Entities {
		if e.Bytes != want[e.Name] {
			t.Errorf("entity %s into S3: %d bytes reported, its items in the table hold %d", e.Name, e.Bytes, want[e.Name])
		}
		if e.Items > 0 && (e.Seconds <= 0 || e.Seconds > srep.Seconds) {
			t.Errorf("entity %s into S3: %.3fs of a %.3fs run", e.Name, e.Seconds, srep.Seconds)
		}
	}

	// Into the table again, which holds items now: the stray scan runs.
	o.CreateTable, o.AllowNonEmpty = false, true
	rep, err = migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run again: %v", err)
	}
	if got, want := phaseNames(rep), []string{migrate.TimedTable, migrate.TimedSnapshot, migrate.TimedKeyCheck, migrate.TimedCopy, migrate.TimedStrayScan}; !slices.Equal(got, want) {
		t.Errorf("phases of the second run %v, want %v", got, want)
	}
}

func phaseNames(rep *migrate.Report) []string {
	var out []string
	for _, p := range rep.Phases {
		out = append(out, p.Name)
	}
	return out
}
