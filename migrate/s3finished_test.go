package migrate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// heldImporter is the ImportTable stand-in (importer) whose import stays
// IN_PROGRESS while held, with the table's imports listed (ListImports)
// and described with their client token, as DynamoDB does.
type heldImporter struct {
	*importer
	mu      sync.Mutex
	held    bool
	imports int
}

func (h *heldImporter) ImportTable(ctx context.Context, in *dynamodb.ImportTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.ImportTableOutput, error) {
	out, err := h.importer.ImportTable(ctx, in, opts...)
	h.mu.Lock()
	h.imports++
	h.mu.Unlock()
	return out, err
}

func (h *heldImporter) DescribeImport(context.Context, *dynamodb.DescribeImportInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeImportOutput, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := *h.done
	d.ClientToken = h.req.ClientToken
	if h.held {
		d.ImportStatus, d.ImportedItemCount = types.ImportStatusInProgress, 0
	}
	return &dynamodb.DescribeImportOutput{ImportTableDescription: &d}, nil
}

func (h *heldImporter) ListImports(context.Context, *dynamodb.ListImportsInput, ...func(*dynamodb.Options)) (*dynamodb.ListImportsOutput, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := &dynamodb.ListImportsOutput{}
	if h.done != nil {
		out.ImportSummaryList = []types.ImportSummary{{ImportArn: h.done.ImportArn}}
	}
	return out, nil
}

func (h *heldImporter) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.imports
}

// TestS3ImportFinished: "verify before you pay" for an unsharded run: the
// objects of a finished migrate --to (uncompressed: --compression none),
// are imported by migrate --to --import of the same prefix instead of the
// prefix being refused, copying nothing; a signal while the import runs
// says that it goes on in AWS, and running it again finds that import by
// its client token and waits for it (ImportTable called once); the report
// gives the rows and items imported.
func TestS3ImportFinished(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	defer migrate.SetImportPoll(time.Millisecond)()
	fx := personalization(t, testenv.Engines[0])
	db := newDB(t, endpoint)
	table := tableName(t, db)
	f := newFakeS3(t)
	o := fx.s3Options(f, "fin/")
	o.Compression = s3out.None
	if _, err := migrate.Run(testContext(t), o); err != nil {
		t.Fatal(err)
	}
	puts := len(f.putCounts())
	for k := range f.putCounts() {
		if strings.HasPrefix(k, "fin/") && !strings.HasSuffix(k, ".json") {
			t.Errorf("object %s: not named as uncompressed", k)
		}
	}
	// Checked before paying: verify --files reads the uncompressed objects.
	if v, err := verify.Run(testContext(t), verify.Options{Plan: fx.plan, Source: fx.src, Samples: 3, Seed: 1, Files: o.To, S3: f.store}); err != nil || !v.OK {
		t.Fatalf("verify --files: %v, %+v", err, v)
	}
	imp := &heldImporter{importer: &importer{API: db, t: t, f: f}, held: true}
	o = fx.s3Options(f, "fin/")
	o.DB, o.Table, o.Import = imp, table, true
	ctx, stop := context.WithCancel(testContext(t))
	go func() {
		for imp.count() == 0 {
			time.Sleep(time.Millisecond)
		}
		stop()
	}()
	_, err := migrate.Run(ctx, o)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the import goes on in AWS") || !strings.Contains(err.Error(), "found again by its client token") {
		t.Fatalf("a signal while the import runs: %v", err)
	}
	if r := imp.req; r == nil || r.InputCompressionType != types.InputCompressionTypeNone || aws.ToString(r.S3BucketSource.S3KeyPrefix) != "fin/" {
		t.Fatalf("ImportTable request: %+v", r)
	}
	imp.mu.Lock()
	imp.held = false
	imp.mu.Unlock()
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if n := imp.count(); n != 1 {
		t.Errorf("ImportTable called %d times: the second run did not find the first's import", n)
	}
	if i := rep.S3.Import; i == nil || !i.Attached || i.ImportedItems != fx.total {
		t.Errorf("import report: %+v", i)
	}
	if rep.ItemsWritten != fx.total || rep.RowsRead == 0 || len(rep.Entities) == 0 || rep.Entities[0].Items == 0 || rep.Seconds <= 0 {
		t.Errorf("report: %d items, %d rows, %.3fs, entities %+v", rep.ItemsWritten, rep.RowsRead, rep.Seconds, rep.Entities)
	}
	if n := len(f.putCounts()); n != puts {
		t.Errorf("the import runs wrote %d objects", n-puts)
	}
	verifyExact(t, fx, db, table)
}

// TestS3FinishedManifestMustFit: the objects of a finished run are loaded
// only when what is under the prefix is what its manifest lists: an
// object of another size and one the manifest does not list are each
// named, and nothing is imported (fails when either check is left out).
func TestS3FinishedManifestMustFit(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := personalization(t, testenv.Engines[0])
	db := newDB(t, endpoint)
	f := newFakeS3(t)
	o := fx.s3Options(f, "fit/")
	if _, err := migrate.Run(testContext(t), o); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	listed, err := f.store.List(ctx, f.bucket, "fit/")
	if err != nil || len(listed) == 0 {
		t.Fatalf("the objects: %v, %v", listed, err)
	}
	changed := listed[0].Key
	if err := f.store.Put(ctx, f.bucket, changed, []byte("shorter"), "application/octet-stream"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.Put(ctx, f.bucket, "fit/stray.json.gz", []byte("x"), "application/octet-stream"); err != nil {
		t.Fatal(err)
	}
	imp := &heldImporter{importer: &importer{API: db, t: t, f: f}}
	o = fx.s3Options(f, "fit/")
	o.DB, o.Table, o.Import = imp, tableName(t, db), true
	_, err = migrate.Run(testContext(t), o)
	if err == nil || !strings.Contains(err.Error(), "does not fit this one") ||
		!strings.Contains(err.Error(), changed+" has 7 bytes, the manifest says") ||
		!strings.Contains(err.Error(), "fit/stray.json.gz is under the prefix but not in the manifest") {
		t.Fatalf("a prefix unlike its manifest: %v", err)
	}
	if n := imp.count(); n != 0 {
		t.Errorf("ImportTable called %d times", n)
	}
}
