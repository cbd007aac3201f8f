package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// API is the DynamoDB calls remodel makes, with the SDK's signatures:
// *dynamodb.Client has them, and so can a test's stand-in.
type API interface {
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	CancelBulkOperation(context.Context, *dynamodb.CancelBulkOperationInput, ...func(*dynamodb.Options)) (*dynamodb.CancelBulkOperationOutput, error)
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	DescribeBulkOperation(context.Context, *dynamodb.DescribeBulkOperationInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeBulkOperationOutput, error)
	DescribeImport(context.Context, *dynamodb.DescribeImportInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeImportOutput, error)
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	ImportTable(context.Context, *dynamodb.ImportTableInput, ...func(*dynamodb.Options)) (*dynamodb.ImportTableOutput, error)
	ListBulkOperations(context.Context, *dynamodb.ListBulkOperationsInput, ...func(*dynamodb.Options)) (*dynamodb.ListBulkOperationsOutput, error)
	ListImports(context.Context, *dynamodb.ListImportsInput, ...func(*dynamodb.Options)) (*dynamodb.ListImportsOutput, error)
	ListTables(context.Context, *dynamodb.ListTablesInput, ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	StartBulkPutItems(context.Context, *dynamodb.StartBulkPutItemsInput, ...func(*dynamodb.Options)) (*dynamodb.StartBulkPutItemsOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

var _ API = (*dynamodb.Client)(nil)

// Client is remodel's DynamoDB client, one value: the calls of API, and
// WriteBatch, migrate's BatchWriteItem, which a client Connect made sends
// on the direct path (direct.go) that this value holds.
type Client struct {
	API
	direct *direct // nil: every call goes through API
}

// New wraps api as a Client without a direct path: every call, WriteBatch
// too, goes through api. A Client is returned as it is.
func New(api API) *Client {
	if c, ok := api.(*Client); ok {
		return c
	}
	return &Client{API: api}
}

// WriteBatch is one attempt of a BatchWriteItem request with a deadline:
// on the direct path when the client has one (see direct.go), else through
// the API with no retry by the SDK (the caller retries) and the deadline
// per attempt.
func (c *Client) WriteBatch(ctx context.Context, in *dynamodb.BatchWriteItemInput, timeout time.Duration) (*dynamodb.BatchWriteItemOutput, error) {
	if c.direct != nil {
		if out, err, ok := c.direct.batchWrite(ctx, in, timeout); ok {
			return out, err
		}
	}
	opts := []func(*dynamodb.Options){NoRetry, AttemptTimeout(timeout)}
	if c.direct != nil {
		opts = append(opts, c.direct.capture(in))
	}
	return c.API.BatchWriteItem(ctx, in, opts...)
}

// DirectCalls is how many WriteBatch calls went on the direct path: for
// tests and diagnostics.
func (c *Client) DirectCalls() int64 {
	if c.direct == nil {
		return 0
	}
	return c.direct.calls.Load()
}

// Where names the endpoint api sends to, or the region when the SDK picks
// the endpoint: "http://127.0.0.1:8000 (region us-east-1)", "region
// eu-west-1"; "" for a client that is not the SDK's.
func Where(api API) string {
	if c, ok := api.(*Client); ok {
		api = c.API
	}
	db, ok := api.(*dynamodb.Client)
	if !ok {
		return ""
	}
	o := db.Options()
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		return *o.BaseEndpoint + " (region " + o.Region + ")"
	}
	return "region " + o.Region
}
