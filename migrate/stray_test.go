package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestAllowNonEmpty migrates into a table that already holds items: two of
// no source row (stray) and one an old version of a row's item. The report
// counts the items there before and the stray ones after, naming them;
// --delete-stale then deletes exactly those (also when DynamoDB leaves
// deletes unprocessed), and the table holds the source's items only.
func TestAllowNonEmpty(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	direct := newDB(t, endpoint)
	table := tableName(t, direct)
	ctx := testContext(t)
	if err := migrate.CreateTable(ctx, direct, &fx.plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	putItems(t, direct, table, "OLD#1", "OLD#2")
	_, err := direct.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#1"}, "SK": &types.AttributeValueMemberS{Value: "USER#"},
		"_type": &types.AttributeValueMemberS{Value: "user"}, "email": &types.AttributeValueMemberS{Value: "old@example.org"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	strays := []string{"PK=OLD#1 SK=X", "PK=OLD#2 SK=X"}

	o := fx.options(direct, table)
	o.AllowNonEmpty = true
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	keys := slices.Sorted(slices.Values(rep.StrayKeys))
	if rep.ItemsBefore != 3 || rep.StrayItems != 2 || rep.StrayDeleted != 0 || !slices.Equal(keys, strays) {
		t.Errorf("report: %d items before, %d stray %v, %d deleted; want 3, 2 %v, 0", rep.ItemsBefore, rep.StrayItems, keys, rep.StrayDeleted, strays)
	}
	var text strings.Builder
	report.Write(&text, report.Text, rep)
	for _, line := range []string{
		"  the table held 3 items before the run\n",
		"  2 items match no source row (not written by this run; --delete-stale deletes them)\n",
		"  stray: PK=OLD#1 SK=X\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the text report lacks %q:\n%s", line, text.String())
		}
	}
	if n, _ := scan(t, direct, table); n != fx.total+2 {
		t.Errorf("the table holds %d items, want the %d rows' and the 2 stray ones", n, fx.total+2)
	}

	// --delete-stale, through a proxy that leaves half of half the
	// BatchWriteItem requests unprocessed.
	p, _, db := proxy(t, endpoint, 3, faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 0.5, Keep: 0.5})
	o = fx.options(db, table)
	o.AllowNonEmpty, o.DeleteStale = true, true
	rep, err = migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run with DeleteStale: %v", err)
	}
	keys = slices.Sorted(slices.Values(rep.StrayKeys))
	if rep.ItemsBefore != fx.total+2 || rep.StrayItems != 2 || rep.StrayDeleted != 2 || !slices.Equal(keys, strays) {
		t.Errorf("report: %d items before, %d stray %v, %d deleted; want %d, 2 %v, 2", rep.ItemsBefore, rep.StrayItems, keys, rep.StrayDeleted, fx.total+2, strays)
	}
	text.Reset()
	report.Write(&text, report.Text, rep)
	if line := "  2 items matched no source row (not written by this run); --delete-stale deleted 2 of them\n"; !strings.Contains(text.String(), line) {
		t.Errorf("the text report lacks %q:\n%s", line, text.String())
	}
	checkLanded(t, fx, rep, direct, table)
	checkNoLock(t, direct, fx, table)
	if s := p.Stats(); s.UnprocessedItems == 0 {
		t.Error("the proxy left nothing unprocessed")
	}
	got, err := direct.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#1"}, "SK": &types.AttributeValueMemberS{Value: "USER#"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if e := testenv.AttrText(got.Item, "email"); e == "old@example.org" || e == "" {
		t.Errorf("USER#1 has email %q: the old item was not replaced", e)
	}
}

// TestEmptyTableCounts: with --allow-non-empty and --delete-stale into an
// empty table nothing was there before and nothing is stray.
func TestEmptyTableCounts(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[1%len(testenv.Engines)])
	db := newDB(t, endpoint)
	table := tableName(t, db)
	o := fx.options(db, table)
	o.CreateTable, o.AllowNonEmpty, o.DeleteStale = true, true, true
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ItemsBefore != 0 || rep.StrayItems != 0 || rep.StrayDeleted != 0 {
		t.Errorf("report: %d before, %d stray, %d deleted", rep.ItemsBefore, rep.StrayItems, rep.StrayDeleted)
	}
	checkLanded(t, fx, rep, db, table)
}

// scanSpy records the TotalSegments of the Scans made through it.
type scanSpy struct {
	dynamo.API
	mu       sync.Mutex
	segments []int32
}

func (s *scanSpy) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if in.TotalSegments != nil && in.ProjectionExpression != nil { // the stray scan reads keys only
		s.mu.Lock()
		s.segments = append(s.segments, *in.TotalSegments)
		s.mu.Unlock()
	}
	return s.API.Scan(ctx, in, optFns...)
}

// TestStrayScanSize: the stray-item scan is cut into segments by what the
// table holds, the items written by the run included (they were left out:
// a table of 1.7 million items written by a resumed run was scanned in 4
// segments, as if it were empty), and it is a phase of the progress.
func TestStrayScanSize(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	direct := newDB(t, endpoint)
	table := tableName(t, direct)
	ctx := testContext(t)
	if err := migrate.CreateTable(ctx, direct, &fx.plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	putItems(t, direct, table, "OLD#1")
	spy := &scanSpy{API: direct}
	o := fx.options(spy, table)
	o.AllowNonEmpty = true
	tracker := progress.New("migrate")
	o.Progress = tracker
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	held := rep.ItemsBefore + rep.ItemsWritten
	want := int32(dynamo.ScanSegments(held))
	if len(spy.segments) == 0 || spy.segments[0] != want {
		t.Errorf("the stray scan of a table of %d items used %v segments, want %d", held, spy.segments, want)
	}
	var phase *progress.PhaseState
	final := tracker.Snapshot()
	for i := range final.Phases {
		if final.Phases[i].Name == "stray scan" {
			phase = &final.Phases[i]
		}
	}
	if phase == nil || !phase.Ended || phase.Sum().Done != held {
		t.Fatalf("stray scan phase %+v, want one that ended after %d items", phase, held)
	}
}

// TestResumeForgedCheckpoint: a checkpoint edited by hand and its checksum
// recomputed, so that it counts rows as settled whose items were never
// written (an entity marked done, counts raised), passes every check of
// the file; the resumed run's stray scan then finds fewer items in the
// table than the job counts, and the run fails with both numbers instead
// of reporting the forged counts as migrated.
func TestResumeForgedCheckpoint(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	for _, c := range []struct {
		name string
		edit func(e map[string]any) bool // false: not an entity to edit
	}{
		{"key moved to the end", func(e map[string]any) bool {
			name := e["name"].(string)
			if e["done"] == true || e["also"] != nil || e["range_up_to"] != nil || int64(e["rows"].(float64)) >= fx.rows[name] {
				return false
			}
			e["done"], e["rows"], e["items"] = true, fx.rows[name], fx.rows[name]
			delete(e, "after") // a done entity has no key to resume after
			delete(e, "after_row")
			return true
		}},
		{"counts raised", func(e map[string]any) bool {
			if e["rows"].(float64) == 0 {
				return false
			}
			e["rows"], e["items"] = e["rows"].(float64)+1000, e["items"].(float64)+1000
			return true
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, db, table, ck := stoppedJob(t, fx, endpoint)
			doc := checkpointOf(t, ck)
			edited := false
			for _, e := range doc["entities"].([]any) {
				if edited = c.edit(e.(map[string]any)); edited {
					break
				}
			}
			if !edited {
				t.Skipf("the stopped run left no entity to edit this way:\n%s", readFile(t, ck))
			}
			b, _ := json.Marshal(doc)
			if err := os.WriteFile(ck, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := migrate.ResealCheckpoint(ck); err != nil {
				t.Fatal(err)
			}
			rep, err := migrate.Run(testContext(t), o)
			held, _ := scan(t, db, table)
			if err == nil || !errors.Is(err, migrate.ErrItemsMissing) || rep.OK {
				t.Fatalf("resume with a forged checkpoint: %v (ok %v, %d items reported, the table holds %d)", err, rep.OK, rep.ItemsWritten, held)
			}
			claimed := fmt.Sprintf("counts %d as written", rep.ItemsWritten)
			if !strings.Contains(err.Error(), fmt.Sprintf("holds %d items", held)) || !strings.Contains(err.Error(), claimed) || rep.ItemsInTable != held {
				t.Errorf("the error does not name the table's %d items and the job's %d: %v (items_in_table %d)", held, rep.ItemsWritten, err, rep.ItemsInTable)
			}
		})
	}
}
