package migrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// bulkAPI stands in for DynamoDB's bulk put from S3 (StartBulkPutItems,
// DescribeBulkOperation, ListBulkOperations, CancelBulkOperation), which
// DynamoDB Local does not have, as the API reference documents it: a
// request is validated (an existing table, DYNAMODB_JSON, the compression,
// an ERROR output, MaxWriteRequestUnits of 1024 or more); the same client
// token with the same request is the same operation, with another request
// an IdempotentParameterMismatchException. Each DescribeBulkOperation
// (unless paused) processes one more object under the input prefix, read
// from the test's S3 (gofakes3) with the strict reader, into DynamoDB
// Local by BatchWriteItem, so that progress shows; an item refuse names is
// not written but reported, as a line of the error report it writes under
// the output prefix (with a summary object beside, which is no record).
// Cancel makes it CANCELLING, then CANCELLED at the next Describe.
type bulkAPI struct {
	dynamo.API
	f *fakeS3

	mu      sync.Mutex
	ops     []*bulkOp
	starts  []*dynamodb.StartBulkPutItemsInput
	cancels int
	paused  bool
	// refuse, when set, gives the reason an item is refused ("": written).
	refuse func(mapping.Item) string
}

type bulkOp struct {
	in      *dynamodb.StartBulkPutItemsInput
	d       types.BulkOperationDescription
	objects []string // left to process
	report  bytes.Buffer
}

func (a *bulkAPI) StartBulkPutItems(ctx context.Context, in *dynamodb.StartBulkPutItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.StartBulkPutItemsOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.starts = append(a.starts, in)
	req, _ := json.Marshal(in)
	for _, op := range a.ops {
		if aws.ToString(op.in.ClientToken) == aws.ToString(in.ClientToken) {
			was, _ := json.Marshal(op.in)
			if !bytes.Equal(was, req) {
				return nil, &types.IdempotentParameterMismatchException{Message: aws.String("the token names another request")}
			}
			d := op.d
			return &dynamodb.StartBulkPutItemsOutput{BulkOperationDescription: &d}, nil
		}
	}
	ic, oc := in.InputS3Configuration, in.OutputS3Configuration
	switch {
	case ic == nil || oc == nil || in.TableName == nil:
		return nil, validation("InputS3Configuration, OutputS3Configuration and TableName are required")
	case ic.InputFormat != types.BulkOperationInputFormatDynamodbJson:
		return nil, validation("this stand-in reads DYNAMODB_JSON only")
	case len(oc.OutputType) == 0:
		return nil, validation("OutputType needs ERROR or CONDITION_CHECK_FAILURE")
	case in.MaxWriteRequestUnits != nil && *in.MaxWriteRequestUnits < 1024:
		return nil, validation("MaxWriteRequestUnits must be at least 1024")
	case in.PerformanceTier != "" && in.PerformanceTier != types.BulkOperationPerformanceTierStandard && in.PerformanceTier != types.BulkOperationPerformanceTierAccelerated:
		return nil, validation("PerformanceTier: STANDARD or ACCELERATED")
	}
	if _, err := a.API.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName}); err != nil {
		return nil, err
	}
	listed, err := a.f.store.List(ctx, *ic.S3Bucket, aws.ToString(ic.S3KeyPrefix))
	if err != nil {
		return nil, err
	}
	op := &bulkOp{in: in}
	for _, l := range listed {
		op.objects = append(op.objects, l.Key)
	}
	now := time.Now()
	tier := in.PerformanceTier
	if tier == "" {
		tier = types.BulkOperationPerformanceTierStandard
	}
	op.d = types.BulkOperationDescription{
		BulkOperationArn:    aws.String(fmt.Sprintf("arn:aws:dynamodb:us-east-1:1:table/%s/bulk-operation/%d", *in.TableName, len(a.ops)+1)),
		BulkOperationStatus: types.BulkOperationStatusInProgress, ClientToken: in.ClientToken, StartTime: &now,
		InputS3Configuration: ic, OutputS3Configuration: oc, MaxWriteRequestUnits: in.MaxWriteRequestUnits, PerformanceTier: tier,
		ProcessedInputBytes: aws.Int64(0),
	}
	a.ops = append(a.ops, op)
	d := op.d
	return &dynamodb.StartBulkPutItemsOutput{BulkOperationDescription: &d}, nil
}

func validation(msg string) error { return &smithyValidation{msg} }

type smithyValidation struct{ msg string }

func (e *smithyValidation) Error() string { return "ValidationException: " + e.msg }

func (a *bulkAPI) op(arn *string) (*bulkOp, error) {
	for _, op := range a.ops {
		if aws.ToString(op.d.BulkOperationArn) == aws.ToString(arn) {
			return op, nil
		}
	}
	return nil, &types.ResourceNotFoundException{Message: aws.String("no bulk operation " + aws.ToString(arn))}
}

func (a *bulkAPI) DescribeBulkOperation(ctx context.Context, in *dynamodb.DescribeBulkOperationInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeBulkOperationOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	op, err := a.op(in.BulkOperationArn)
	if err != nil {
		return nil, err
	}
	switch {
	case op.d.BulkOperationStatus == types.BulkOperationStatusCancelling:
		op.d.BulkOperationStatus = types.BulkOperationStatusCancelled
		op.d.FailureCode, op.d.FailureMessage = aws.String("UserCancelled"), aws.String("cancelled by CancelBulkOperation")
		op.d.EndTime = aws.Time(time.Now())
	case op.d.BulkOperationStatus == types.BulkOperationStatusInProgress && !a.paused:
		if err := a.step(ctx, op); err != nil {
			return nil, err
		}
	}
	d := op.d
	return &dynamodb.DescribeBulkOperationOutput{BulkOperationDescription: &d}, nil
}

// step processes the operation's next object, and ends it after the last.
func (a *bulkAPI) step(ctx context.Context, op *bulkOp) error {
	ic := op.in.InputS3Configuration
	if len(op.objects) == 0 {
		oc := op.in.OutputS3Configuration
		prefix := aws.ToString(oc.S3KeyPrefix)
		if op.report.Len() > 0 {
			if err := a.f.store.Put(ctx, *oc.S3Bucket, prefix+"data/errors-00001.json", op.report.Bytes(), "application/json"); err != nil {
				return err
			}
		}
		summary := fmt.Sprintf(`{"processedItemCount":%d,"failedItemCount":%d}`, op.d.ProcessedItemCount, op.d.FailedItemCount)
		if err := a.f.store.Put(ctx, *oc.S3Bucket, prefix+"manifest-summary.json", []byte(summary), "application/json"); err != nil {
			return err
		}
		op.d.BulkOperationStatus = types.BulkOperationStatusCompleted
		if op.d.FailedItemCount > 0 {
			op.d.BulkOperationStatus = types.BulkOperationStatusCompletedWithErrors
		}
		op.d.EndTime = aws.Time(time.Now())
		op.d.TotalInputBytes = op.d.ProcessedInputBytes
		return nil
	}
	key := op.objects[0]
	op.objects = op.objects[1:]
	b, err := a.f.store.Get(ctx, *ic.S3Bucket, key)
	if err != nil {
		return err
	}
	comp, _ := s3out.CompressionOfImportType(string(ic.InputCompressionType))
	if ic.InputCompressionType == "" {
		comp = s3out.None
	}
	zr, err := comp.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	*op.d.ProcessedInputBytes += int64(len(b))
	table := aws.ToString(op.in.TableName)
	var batch []types.WriteRequest
	flush := func() error {
		for len(batch) > 0 {
			out, err := a.API.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: batch}})
			if err != nil {
				return err
			}
			batch = out.UnprocessedItems[table]
		}
		return nil
	}
	for i, line := range strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n") {
		item, err := av.ParseImportLine([]byte(line))
		if err != nil {
			return err
		}
		op.d.ProcessedItemCount++
		if why := a.reason(item); why != "" {
			op.d.FailedItemCount++
			var l struct{ Item json.RawMessage }
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				return err
			}
			rec, _ := json.Marshal(map[string]any{"Item": l.Item, "ErrorCode": "ValidationException", "ErrorMessage": why, "S3Key": key, "LineNumber": i + 1})
			op.report.Write(append(rec, '\n'))
			continue
		}
		if batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}); len(batch) == 25 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

func (a *bulkAPI) reason(item mapping.Item) string {
	if a.refuse == nil {
		return ""
	}
	return a.refuse(item)
}

func (a *bulkAPI) ListBulkOperations(context.Context, *dynamodb.ListBulkOperationsInput, ...func(*dynamodb.Options)) (*dynamodb.ListBulkOperationsOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := &dynamodb.ListBulkOperationsOutput{}
	for _, op := range a.ops {
		out.BulkOperationsSummaryList = append(out.BulkOperationsSummaryList, types.BulkOperationSummary{BulkOperationArn: op.d.BulkOperationArn, BulkOperationStatus: op.d.BulkOperationStatus, StartTime: op.d.StartTime, EndTime: op.d.EndTime})
	}
	return out, nil
}

func (a *bulkAPI) CancelBulkOperation(_ context.Context, in *dynamodb.CancelBulkOperationInput, _ ...func(*dynamodb.Options)) (*dynamodb.CancelBulkOperationOutput, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	op, err := a.op(in.BulkOperationArn)
	if err != nil {
		return nil, err
	}
	if op.d.BulkOperationStatus != types.BulkOperationStatusInProgress {
		return nil, validation("the operation is " + string(op.d.BulkOperationStatus))
	}
	a.cancels++
	op.d.BulkOperationStatus = types.BulkOperationStatusCancelling
	return &dynamodb.CancelBulkOperationOutput{BulkOperationArn: op.d.BulkOperationArn, BulkOperationStatus: types.BulkOperationStatusCancelling}, nil
}

func (a *bulkAPI) counts() (starts, ops, cancels int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.starts), len(a.ops), a.cancels
}

// bulkFixture is a table created beforehand (with a local index: bulk put
// keeps it, ImportTable could not create it) and a bulk put stand-in in
// front of DynamoDB Local.
func bulkFixture(t *testing.T) (*fixture, *bulkAPI, dynamo.API, string) {
	t.Helper()
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	plan := *fx.plan
	plan.Table.Indexes = append(append([]*mapping.Index(nil), plan.Table.Indexes...), &mapping.Index{Name: "LSI1", PK: []mapping.KeyAttr{plan.Table.PK}, SK: []mapping.KeyAttr{{Name: "data", Type: "S"}}, Local: true})
	fx.plan = &plan
	db := newDB(t, endpoint)
	table := tableName(t, db)
	if err := migrate.CreateTable(testContext(t), db, &plan.Table, table, time.Minute); err != nil {
		t.Fatal(err)
	}
	return fx, &bulkAPI{API: db, f: newFakeS3(t)}, db, table
}

// TestBulkPut: migrate --to --bulk-put into a table created beforehand
// with a local index: the request is the one documented (the prefix, the
// format and compression, the error report beside the prefix, the tier,
// --rate-limit as MaxWriteRequestUnits), the table passes verify, and
// what the bulk put cannot take is refused before anything is written (a
// rate under 1024, a missing table, --import beside it).
func TestBulkPut(t *testing.T) {
	defer migrate.SetImportPoll(time.Millisecond)()
	fx, api, db, table := bulkFixture(t)
	ctx := migrate.WithBulkPut(testContext(t), migrate.BulkPut{Tier: "accelerated"})
	o := fx.s3Options(api.f, "bulk/")
	o.DB, o.Table, o.RateLimit = api, table, 2000
	for _, tc := range []struct {
		what string
		set  func(*migrate.Options)
		want string
	}{
		{"a rate under 1024", func(o *migrate.Options) { o.RateLimit = 500 }, "--rate-limit 500 with --bulk-put: the rate limit becomes the bulk put's MaxWriteRequestUnits, which DynamoDB takes from 1024"},
		{"no table", func(o *migrate.Options) { o.Table += "_missing" }, "StartBulkPutItems writes into an existing table"},
		{"--import", func(o *migrate.Options) { o.Import = true }, "--bulk-put and --import are two ways"},
	} {
		o := o
		tc.set(&o)
		if _, err := migrate.Run(ctx, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.what, err, tc.want)
		}
	}
	if n := len(api.f.putCounts()); n != 0 {
		t.Fatalf("refused runs wrote %d objects", n)
	}
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	starts, _, _ := api.counts()
	if starts != 1 {
		t.Fatalf("StartBulkPutItems called %d times", starts)
	}
	in := api.starts[0]
	ic, oc := in.InputS3Configuration, in.OutputS3Configuration
	if aws.ToString(in.TableName) != table || aws.ToString(ic.S3Bucket) != bucket || aws.ToString(ic.S3KeyPrefix) != "bulk/" ||
		ic.InputFormat != types.BulkOperationInputFormatDynamodbJson || ic.InputCompressionType != types.InputCompressionTypeGzip ||
		aws.ToString(oc.S3Bucket) != bucket || !strings.HasPrefix(aws.ToString(oc.S3KeyPrefix), "bulk.remodel-bulk-report/") ||
		len(oc.OutputType) != 1 || oc.OutputType[0] != types.OutputTypeEnumError ||
		in.PerformanceTier != types.BulkOperationPerformanceTierAccelerated || aws.ToInt64(in.MaxWriteRequestUnits) != 2000 || len(aws.ToString(in.ClientToken)) != 32 {
		b, _ := json.Marshal(in)
		t.Errorf("StartBulkPutItems request: %s", b)
	}
	if b := rep.S3.Bulk; b == nil || b.Status != "COMPLETED" || b.ProcessedItems != fx.total || b.FailedItems != 0 || b.Attached || b.Tier != "ACCELERATED" {
		t.Errorf("bulk put report: %+v", b)
	}
	verifyExact(t, fx, db, table)
}

// TestBulkPutRejects: a bulk put whose error report names two refused
// items ends with those two rows as rejects (entity, source key, the
// reason), counted in the report; verify with the rejects file passes, and
// without it fails (the two items are missing).
func TestBulkPutRejects(t *testing.T) {
	defer migrate.SetImportPoll(time.Millisecond)()
	fx, api, db, table := bulkFixture(t)
	refused := map[string]bool{"USER#1": true, "USER#2": true} // the items of two users: PK and SK USER#
	api.refuse = func(it mapping.Item) string {
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		sk, _ := it["SK"].(*types.AttributeValueMemberS)
		if pk != nil && sk != nil && refused[pk.Value] && sk.Value == "USER#" {
			return "One or more parameter values were invalid: the test refuses " + pk.Value
		}
		return ""
	}
	rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
	o := fx.s3Options(api.f, "rej/")
	o.DB, o.Table, o.RejectsPath, o.MaxRejects = api, table, rejects, 10
	rep, err := migrate.Run(migrate.WithBulkPut(testContext(t), migrate.BulkPut{}), o)
	if err != nil {
		t.Fatal(err)
	}
	if b := rep.S3.Bulk; b == nil || b.Status != "COMPLETED_WITH_ERRORS" || b.FailedItems != 2 || b.Rejected != 2 || rep.Rejected != 2 || rep.ItemsWritten != fx.total-2 {
		t.Fatalf("report: rejected %d, written %d of %d; bulk %+v", rep.Rejected, rep.ItemsWritten, fx.total, b)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, rejects)), "\n")
	if len(lines) != 2 {
		t.Fatalf("rejects file: %q", lines)
	}
	for _, l := range lines {
		var r migrate.Rejection
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Entity != "user" || !strings.HasPrefix(r.Row, "user_id=") || !strings.Contains(r.Reason, "the test refuses USER#") || !strings.Contains(r.Reason, "refused by the bulk put") {
			t.Errorf("reject %s (%v)", l, err)
		}
	}
	rj, err := verify.ReadRejects(rejects, fx.plan)
	if err != nil {
		t.Fatal(err)
	}
	vo := verify.Options{Plan: fx.plan, Source: fx.src, DB: db, Table: table, Samples: 3, Seed: 1, Settle: 30 * time.Second}
	if v, err := verify.Run(testContext(t), vo); err == nil && v.OK {
		t.Error("verify without the rejects passed: the two refused items are not in the table")
	}
	vo.Rejects = rj
	if v, err := verify.Run(testContext(t), vo); err != nil || !v.OK {
		t.Errorf("verify with the rejects: %v, %+v", err, v)
	}
}

// TestBulkPutResume: a run stopped while its bulk put runs (its wait cut
// short, as a kill would leave it) keeps the operation's token and ARN in
// the checkpoint, and --resume waits for that operation, never starting a
// second; a run stopped by a signal cancels its operation
// (CancelBulkOperation), and --resume starts another of its own token.
func TestBulkPutResume(t *testing.T) {
	defer migrate.SetImportPoll(time.Millisecond)()
	fx, api, db, table := bulkFixture(t)
	ck := filepath.Join(t.TempDir(), "job.checkpoint.json")
	o := fx.s3Options(api.f, "res/")
	o.DB, o.Table, o.CheckpointPath = api, table, ck
	o.ImportTimeout = 100 * time.Millisecond
	api.paused = true
	ctx := migrate.WithBulkPut(testContext(t), migrate.BulkPut{})
	_, err := migrate.Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "it goes on") || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("a wait cut short: %v", err)
	}
	if b := readFile(t, ck); !strings.Contains(b, `"bulk_put"`) || !strings.Contains(b, "bulk-operation/1") {
		t.Fatalf("the checkpoint does not name the bulk put: %s", b)
	}
	api.mu.Lock()
	api.paused = false
	api.mu.Unlock()
	o.Resume, o.ImportTimeout = true, 0
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if starts, ops, _ := api.counts(); starts != 1 || ops != 1 {
		t.Errorf("StartBulkPutItems called %d times, %d operations: the resumed run did not wait for the first", starts, ops)
	}
	if b := rep.S3.Bulk; b == nil || !b.Attached || b.Status != "COMPLETED" || !strings.HasSuffix(b.ARN, "/bulk-operation/1") {
		t.Errorf("resumed bulk put report: %+v", b)
	}
	if _, err := os.Stat(ck); !os.IsNotExist(err) {
		t.Errorf("the finished job's checkpoint is still there: %v", err)
	}
	verifyExact(t, fx, db, table)

	// A signal: the operation is cancelled, and --resume starts another.
	api.mu.Lock()
	api.paused = true
	api.mu.Unlock()
	o = fx.s3Options(api.f, "sig/")
	o.DB, o.Table, o.CheckpointPath, o.AllowNonEmpty = api, table, ck, true
	sctx, stop := context.WithCancel(ctx)
	go func() {
		for {
			if _, ops, _ := api.counts(); ops == 2 {
				stop()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err = migrate.Run(sctx, o)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("a signal: %v", err)
	}
	if _, _, cancels := api.counts(); cancels != 1 {
		t.Fatalf("CancelBulkOperation called %d times", cancels)
	}
	api.mu.Lock()
	api.paused = false
	api.mu.Unlock()
	o.Resume = true
	rep, err = migrate.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	starts, ops, _ := api.counts()
	if ops != 3 || aws.ToString(api.starts[starts-1].ClientToken) == aws.ToString(api.starts[starts-2].ClientToken) {
		t.Errorf("%d operations; the last two tokens %s, %s: the cancelled one was not replaced by one of its own", ops, aws.ToString(api.starts[starts-2].ClientToken), aws.ToString(api.starts[starts-1].ClientToken))
	}
	if b := rep.S3.Bulk; b == nil || b.Attempt != 2 || b.Status != "COMPLETED" || len(rep.Warnings) == 0 {
		t.Errorf("the bulk put after the cancelled one: %+v, warnings %q", b, rep.Warnings)
	}
}
