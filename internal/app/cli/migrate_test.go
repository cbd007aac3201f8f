package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// bigTiny is tiny with 3000 rows.
func bigTiny(t *testing.T) (dsn, mappingPath string) {
	t.Helper()
	dsn, mappingPath = tiny(t, "postgres")
	testenv.ExecPostgres(t, dsn, "INSERT INTO items SELECT g, 'k' || g FROM generate_series(4, 3000) g")
	return dsn, mappingPath
}

// lateEndpoint is DynamoDB Local behind a proxy that holds every
// BatchWriteItem answer back for delay after DynamoDB acted on it.
func lateEndpoint(t *testing.T, delay time.Duration) string {
	t.Helper()
	p, err := faultproxy.New(testenv.DynamoDB(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(faultproxy.NewLate(p, delay, faultproxy.BatchWriteItem))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); p.Close() })
	return srv.URL
}

func count(t *testing.T, db dynamo.API, table string) int64 {
	t.Helper()
	var n int64
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += int64(out.Count)
	}
	return n
}

// interruptMidway runs migrate and cancels it, as SIGINT does, once the
// table holds more than more items.
func interruptMidway(t *testing.T, db dynamo.API, table string, more int64, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		defer cancel(fmt.Errorf("interrupt signal received"))
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var n int64
			p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				if err != nil {
					n = -1
					break
				}
				n += int64(out.Count)
			}
			if n > more+1 { // the lock item aside
				return
			}
		}
	}()
	return remodelCtx(t, ctx, args...)
}

// TestMigrateInterrupted: SIGINT in the middle of the writes. remodel
// exits 130, prints the report headed INTERRUPTED (never "migrated") with
// the items DynamoDB acknowledged, exactly the items in the table, says the
// table is partial, and removes its lock; with --output json the report
// says ok false, interrupted true.
func TestMigrateInterrupted(t *testing.T) {
	awsEnv(t)
	dsn, m := bigTiny(t)
	endpoint := lateEndpoint(t, 100*time.Millisecond)
	db, table := testenv.DynamoDBTable(t)
	ck := filepath.Join(t.TempDir(), "tiny.checkpoint.json")
	// One render worker: its batches reach the writers in row order, so the
	// first items acknowledged are the first rows' and the checkpoint has
	// a settled prefix to record however early the signal comes. With
	// several workers, a run stopped within its first batches may have
	// acknowledged later rows only; it then leaves no checkpoint and says
	// to migrate again (TestReportPartialText), which this test would see
	// now and then.
	args := []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--render-workers", "1", "--checkpoint", ck, "--writers", "2", "--create-table"}
	code, out, errOut := interruptMidway(t, db, table, 0, args...)
	if code != exitInterrupted || !strings.HasSuffix(errOut, "remodel: interrupted (interrupt signal received)\n") || strings.Count(errOut, "remodel: ") != 1 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	n := count(t, db, table)
	want := regexp.MustCompile(`^migration of postgres into DynamoDB table ` + table + ` INTERRUPTED \(created\)
  the table is partial: (\d+) items are written; the checkpoint ` + regexp.QuoteMeta(ck) + ` records how far: migrate --resume --checkpoint ` + regexp.QuoteMeta(ck) + ` --table ` + regexp.QuoteMeta(table) + ` continues from there \(the same mapping, source and table\)
`)
	got := want.FindStringSubmatch(out)
	if got == nil {
		t.Fatalf("stdout:\n%s\nwant it to start with\n%s", out, want)
	}
	if written, _ := strconv.ParseInt(got[1], 10, 64); written != n || n == 0 || n >= 3000 {
		t.Errorf("the report says %d items were written, the table holds %d (of 3000 rows)", written, n)
	}
	if !regexp.MustCompile(`(?m)^  total +\d+ +` + strconv.FormatInt(n, 10) + ` +0( |$)`).MatchString(out) {
		t.Errorf("the report's total line does not count %d items:\n%s", n, out)
	}

	// Again with --output json into the partial table.
	args = append(args[:len(args)-3], "--allow-non-empty", "--output", "json")
	code, out, _ = interruptMidway(t, db, table, n, args...)
	var rep struct {
		OK           bool   `json:"ok"`
		Error        string `json:"error"`
		Interrupted  bool   `json:"interrupted"`
		Partial      bool   `json:"partial"`
		ItemsBefore  int64  `json:"items_before"`
		ItemsWritten int64  `json:"items_written"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, out)
	}
	if code != exitInterrupted || rep.OK || !rep.Interrupted || !rep.Partial || !strings.Contains(rep.Error, "context canceled") || rep.ItemsBefore != n || rep.ItemsWritten == 0 {
		t.Errorf("exit %d, report %+v (the table held %d items)", code, rep, n)
	}
	if out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "#remodel#lock"}}, ConsistentRead: aws.Bool(true)}); err != nil || out.Item != nil {
		t.Errorf("the lock item after the interrupted run: %v, %v", out, err)
	}
}

// TestMigrateFailedAndLocked: a run that fails is headed FAILED with its
// error, never "migrated"; a table another run holds the lock of is
// refused with exit status 3, naming that run; --rate-limit and
// --delete-stale work end to end.
func TestMigrateFailedAndLocked(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	db, table := testenv.DynamoDBTable(t)
	dyn := []string{"--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--rejects", writeFile(t, "rejects.jsonl", "")}

	// Rate-limited, into a new table.
	code, out, errOut := remodel(t, append([]string{"migrate", "--create-table", "--rate-limit", "50"}, dyn...)...)
	if code != exitOK || !strings.HasPrefix(out, "migrated postgres into DynamoDB table "+table+" (created)\n") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// A stray item, deleted.
	ctx := context.Background()
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ITEM#gone"}}})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = remodel(t, append([]string{"migrate", "--allow-non-empty", "--delete-stale"}, dyn...)...)
	for _, line := range []string{"  the table held 4 items before the run\n", "  1 items matched no source row (not written by this run); --delete-stale deleted 1 of them\n", "  stray: PK=ITEM#gone\n"} {
		if code != exitOK || !strings.Contains(out, line) {
			t.Errorf("exit %d, stdout lacks %q:\n%s\nstderr:\n%s", code, line, out, errOut)
		}
	}
	if n := count(t, db, table); n != 3 {
		t.Errorf("the table holds %d items, want the 3 rows'", n)
	}

	// A failed run.
	testenv.ExecPostgres(t, dsn, "INSERT INTO items VALUES (4, NULL)")
	stopped := "migrate: stopped: rejected rows exceeded --max-rejects 0 (1 rejected; the last: entity item, row id=4: rendering PK: {k}: column k is NULL (add |default:X to the placeholder to allow it))"
	reportFile := filepath.Join(t.TempDir(), "report.json")
	code, out, _ = remodel(t, append([]string{"migrate", "--allow-non-empty", "--output-file", reportFile}, dyn...)...)
	if code != exitFailed || !strings.HasPrefix(out, "migration of postgres into DynamoDB table "+table+" FAILED\n  error: "+stopped+"\n") || strings.Contains(out, "migrated") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
	var failed struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if raw, err := os.ReadFile(reportFile); err != nil || json.Unmarshal(raw, &failed) != nil || failed.OK || failed.Error != stopped {
		t.Errorf("the JSON report: %+v (%v), want error %q", failed, err, stopped)
	}

	// Locked by a live run.
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"PK":                &types.AttributeValueMemberS{Value: "#remodel#lock"},
		"remodel_owner":     &types.AttributeValueMemberS{Value: "feedfacefeedface"},
		"remodel_host":      &types.AttributeValueMemberS{Value: "builder-7"},
		"remodel_pid":       &types.AttributeValueMemberN{Value: "99"},
		"remodel_started":   &types.AttributeValueMemberS{Value: "2025-01-02T03:04:05Z"},
		"remodel_heartbeat": &types.AttributeValueMemberN{Value: now},
	}})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = remodel(t, append([]string{"migrate", "--allow-non-empty"}, dyn...)...)
	want := regexp.MustCompile(`^remodel: migrate: table ` + table + ` is locked by another migrate run: owner feedfacefeedface on host builder-7 \(pid 99\), started 2025-01-02T03:04:05Z, last heartbeat \ds ago; refusing to write into it at the same time \(a lock whose heartbeat is older than 2m0s is taken over; if that run was interrupted, migrate --resume takes its lock over at once\)\n$`)
	if code != exitError || out != "" || !want.MatchString(errOut) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 3 and %s", code, out, errOut, want)
	}
}
