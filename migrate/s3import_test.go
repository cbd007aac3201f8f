package migrate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/mapping"
)

// importTable builds its table definition from a mapping with a global
// index of multi-attribute keys (number sort key), provisioned billing and
// TTL.
func importTestTable() *mapping.Table {
	return &mapping.Table{
		Name: "games", PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"},
		Billing: mapping.Billing{Provisioned: true, Read: 5, Write: 7}, TTL: "expires",
		Indexes: []*mapping.Index{{Name: "ByScore",
			PK: []mapping.KeyAttr{{Name: "game", Type: "S"}, {Name: "region", Type: "S"}},
			SK: []mapping.KeyAttr{{Name: "score", Type: "N"}, {Name: "at", Type: "S"}}}},
	}
}

// TestS3ImportRequest: the ImportTable request is exactly the one the
// API documents for these objects: the bucket and prefix, DYNAMODB_JSON,
// the compression, the table's keys, attribute types, billing and global
// index with its multi-attribute keys, and a client token from the
// manifest (the same objects, the same import).
func TestS3ImportRequest(t *testing.T) {
	tb := importTestTable()
	o := Options{To: &s3out.Location{Bucket: "bkt", Prefix: "games/"}, Compression: s3out.Zstd}
	in := importRequest(o, importDefinition(tb, "games_2"), []byte("manifest"))
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"S3BucketSource":{"S3Bucket":"bkt","S3BucketOwner":null,"S3KeyPrefix":"games/"},"InputFormat":"DYNAMODB_JSON","TableCreationParameters":{"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"at","AttributeType":"S"},{"AttributeName":"game","AttributeType":"S"},{"AttributeName":"region","AttributeType":"S"},{"AttributeName":"score","AttributeType":"N"}],"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"TableName":"games_2","BillingMode":"PROVISIONED","GlobalSecondaryIndexes":[{"IndexName":"ByScore","KeySchema":[{"AttributeName":"game","KeyType":"HASH"},{"AttributeName":"region","KeyType":"HASH"},{"AttributeName":"score","KeyType":"RANGE"},{"AttributeName":"at","KeyType":"RANGE"}],"Projection":{"NonKeyAttributes":null,"ProjectionType":"ALL"},"OnDemandThroughput":null,"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":7},"WarmThroughput":null}],"OnDemandThroughput":null,"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":7},"SSESpecification":null},"ClientToken":"` + "a0dbb0b3a0f9b8f5b6a7e3d0dd57d28b" + `","InputCompressionType":"ZSTD","InputFormatOptions":null}`
	// Compared as JSON values without the nulls (fields the SDK adds do
	// not change the request).
	got := strings.Replace(string(b), *in.ClientToken, "a0dbb0b3a0f9b8f5b6a7e3d0dd57d28b", 1)
	if g, w := withoutNulls(t, got), withoutNulls(t, want); g != w {
		t.Errorf("ImportTable request:\n%s\nwant\n%s", g, w)
	}
	if again := importRequest(o, importDefinition(tb, "games_2"), []byte("manifest")); *again.ClientToken != *in.ClientToken || len(*in.ClientToken) != 32 {
		t.Errorf("client token %q, then %q: not one per manifest", *in.ClientToken, *again.ClientToken)
	}
	if other := importRequest(o, importDefinition(tb, "games_2"), []byte("other")); *other.ClientToken == *in.ClientToken {
		t.Error("two manifests, one client token")
	}
}

// importAPI stands in for DynamoDB: ImportTable starts an import that
// DescribeImport reports IN_PROGRESS once, then as final.
type importAPI struct {
	dynamo.API
	final     types.ImportTableDescription
	described int
	ttl       *dynamodb.UpdateTimeToLiveInput
}

func (a *importAPI) ImportTable(context.Context, *dynamodb.ImportTableInput, ...func(*dynamodb.Options)) (*dynamodb.ImportTableOutput, error) {
	return &dynamodb.ImportTableOutput{ImportTableDescription: &types.ImportTableDescription{ImportArn: aws.String("arn:import"), ImportStatus: types.ImportStatusInProgress}}, nil
}

// DescribeTable: the table does not exist until the import creates it.
func (a *importAPI) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
}

func (a *importAPI) DescribeImport(context.Context, *dynamodb.DescribeImportInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeImportOutput, error) {
	a.described++
	if a.described == 1 {
		return &dynamodb.DescribeImportOutput{ImportTableDescription: &types.ImportTableDescription{ImportArn: aws.String("arn:import"), ImportStatus: types.ImportStatusInProgress, ProcessedItemCount: 5}}, nil
	}
	d := a.final
	return &dynamodb.DescribeImportOutput{ImportTableDescription: &d}, nil
}

func (a *importAPI) UpdateTimeToLive(_ context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	a.ttl = in
	return &dynamodb.UpdateTimeToLiveOutput{}, nil
}

// TestS3ImportWait: --import waits for the import's end and reports its
// counts; a completed import enables TTL; a failed one, one with item
// errors (naming the CloudWatch Logs group) and one that imported fewer
// items than the objects hold are errors, and enable no TTL.
func TestS3ImportWait(t *testing.T) {
	defer SetImportPoll(time.Millisecond)()
	tb := importTestTable()
	done := func(status types.ImportStatus, processed, imported, errs int64) types.ImportTableDescription {
		return types.ImportTableDescription{ImportArn: aws.String("arn:import"), ImportStatus: status, ProcessedItemCount: processed, ImportedItemCount: imported, ErrorCount: errs,
			CloudWatchLogGroupArn: aws.String("arn:logs:group"), ProcessedSizeBytes: aws.Int64(1000)}
	}
	failed := done(types.ImportStatusFailed, 3, 0, 0)
	failed.FailureCode, failed.FailureMessage = aws.String("InvalidFormat"), aws.String("bad line")
	for _, tc := range []struct {
		name  string
		final types.ImportTableDescription
		err   string
	}{
		{"completed", done(types.ImportStatusCompleted, 10, 10, 0), ""},
		{"failed", failed, "ended FAILED: InvalidFormat: bad line"},
		{"item errors", done(types.ImportStatusCompleted, 10, 8, 2), "could not import 2 items; the CloudWatch Logs group arn:logs:group names them"},
		{"items missing", done(types.ImportStatusCompleted, 9, 9, 0), "imported 9 items, but the objects hold 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &importAPI{final: tc.final}
			o := Options{Plan: &mapping.Plan{Table: *tb}, DB: api, Table: "games_2", To: &s3out.Location{Bucket: "bkt", Prefix: "games/"}, Compression: s3out.Gzip, RequestTimeout: time.Second}
			rep := &Report{S3: &S3Report{params: importDefinition(tb, "games_2"), manifest: []byte("m"), items: 10}}
			err := importTable(context.Background(), o, rep)
			switch {
			case tc.err == "" && err != nil, tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("importTable: %v, want %q", err, tc.err)
			case api.described < 2:
				t.Errorf("DescribeImport asked %d times: it did not wait", api.described)
			case rep.S3.Import == nil || rep.S3.Import.ProcessedItems != tc.final.ProcessedItemCount || rep.S3.Import.Status != string(tc.final.ImportStatus):
				t.Errorf("import report %+v", rep.S3.Import)
			case tc.err == "" && (api.ttl == nil || aws.ToString(api.ttl.TimeToLiveSpecification.AttributeName) != "expires" || rep.S3.Import.TTL != "expires"):
				t.Errorf("TTL: %+v", api.ttl)
			case tc.err != "" && api.ttl != nil:
				t.Error("TTL enabled after a failed import")
			}
		})
	}
}

// withoutNulls is a JSON text with its null members left out, names
// sorted.
func withoutNulls(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var drop func(any) any
	drop = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if e == nil {
					delete(x, k)
				} else {
					x[k] = drop(e)
				}
			}
		case []any:
			for i := range x {
				x[i] = drop(x[i])
			}
		}
		return v
	}
	b, err := json.Marshal(drop(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
