package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// --import: DynamoDB creates the table from the objects (ImportTable), with
// the definition the mapping gives (keys, attribute types, global indexes
// with multi-attribute keys, billing), reading the DynamoDB JSON lines of
// every object under the prefix; remodel waits for it (DescribeImport),
// and then enables TTL (UpdateTimeToLive), which ImportTable cannot set.
// ImportTable cannot run against DynamoDB Local: the tests check the
// request against a stand-in of the API.

// DefaultImportTimeout bounds the wait for an import.
const DefaultImportTimeout = 24 * time.Hour

// importPoll is how often the import's progress is asked for.
var importPoll = 15 * time.Second

// ImportReport is what ImportTable did: its ARN and final status, the
// counts DescribeImport gives, and, when items failed, the CloudWatch Logs
// group that names them.
type ImportReport struct {
	ARN            string `json:"arn"`
	Status         string `json:"status"`
	ProcessedItems int64  `json:"processed_items"`
	ImportedItems  int64  `json:"imported_items"`
	Errors         int64  `json:"errors"`
	ProcessedBytes int64  `json:"processed_bytes"`
	LogGroup       string `json:"cloudwatch_log_group,omitempty"`
	Failure        string `json:"failure,omitempty"`
	TTL            string `json:"ttl_enabled_on,omitempty"`
	// Attached says the import was started by an earlier run (found again
	// by its client token among the table's imports), not this one.
	Attached bool `json:"attached,omitempty"`
}

// checkNoTable refuses --import into a table that exists: ImportTable
// creates its table.
func checkNoTable(ctx context.Context, o Options) error {
	_, err := describeTableID(ctx, o.DB, o.Table, dynamo.AttemptTimeout(o.RequestTimeout))
	switch {
	case errors.Is(err, errNoTable):
		return nil
	case err != nil:
		return err
	}
	if o.Resume {
		// An interrupted run's import may have created it: importTable
		// finds that import by its client token once the objects are
		// known, and refuses a table no import of them created.
		return nil
	}
	return fmt.Errorf("migrate: --import: table %s already exists: ImportTable only creates a new table (delete it, or give another --table)", o.Table)
}

// importRequest is the ImportTable request for the job's objects.
func importRequest(o Options, def *tableCreation, manifest []byte) *dynamodb.ImportTableInput {
	sum := sha256.Sum256(manifest) // the same objects and table, the same import: a call repeated within 8 hours is the same import
	return &dynamodb.ImportTableInput{
		ClientToken:             aws.String(hex.EncodeToString(sum[:16])),
		S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String(o.To.Bucket), S3KeyPrefix: aws.String(o.To.Prefix)},
		InputFormat:             types.InputFormatDynamodbJson,
		InputCompressionType:    types.InputCompressionType(o.Compression.ImportType()),
		TableCreationParameters: &def.TableCreationParameters,
	}
}

// importTable runs the import and waits for it, then enables TTL.
func importTable(ctx context.Context, o Options, rep *Report) error {
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	in := importRequest(o, rep.S3.params, rep.S3.manifest)
	// An earlier run stopped while its import ran (the import goes on in
	// AWS): the table exists, and the import of these objects is found
	// again by its client token and waited for, never started twice.
	d, err := findImport(ctx, o, aws.ToString(in.ClientToken))
	if err != nil {
		return err
	}
	attached := d != nil
	if d == nil {
		// One attempt: a retried ImportTable is the same import (ClientToken),
		// but an answer lost is told apart from a refusal only by asking.
		out, err := o.DB.ImportTable(ctx, in, call)
		if err != nil {
			return fmt.Errorf("migrate: --import: ImportTable: %w", err)
		}
		d = out.ImportTableDescription
	}
	if d == nil || d.ImportArn == nil {
		return errors.New("migrate: --import: ImportTable did not name the import")
	}
	ir := &ImportReport{ARN: *d.ImportArn, Status: string(d.ImportStatus), Attached: attached}
	rep.S3.Import = ir
	timeout := o.ImportTimeout
	if timeout <= 0 {
		timeout = DefaultImportTimeout
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var processed atomic.Int64
	var phase *progress.Phase
	if o.Progress != nil {
		phase = o.Progress.Phase("import", "items", []progress.Task{{Name: "ImportTable", Total: rep.S3.items, Exact: true, Count: processed.Load}})
	}
	for {
		ir.describe(d)
		processed.Store(ir.ProcessedItems)
		switch d.ImportStatus {
		case types.ImportStatusCompleted, types.ImportStatusFailed, types.ImportStatusCancelled:
		default:
			select {
			case <-wctx.Done():
				phase.End(false)
				if ctx.Err() != nil {
					return importGoesOn(o, ir, ctx.Err())
				}
				return fmt.Errorf("migrate: --import: import %s is still %s after %s; it goes on: aws dynamodb describe-import --import-arn %s", ir.ARN, ir.Status, timeout, ir.ARN)
			case <-time.After(importPoll):
			}
			got, err := o.DB.DescribeImport(wctx, &dynamodb.DescribeImportInput{ImportArn: aws.String(ir.ARN)}, call)
			if err != nil {
				if ctx.Err() != nil {
					phase.End(false)
					return importGoesOn(o, ir, ctx.Err())
				}
				return fmt.Errorf("migrate: --import: DescribeImport %s: %w", ir.ARN, err)
			}
			if got.ImportTableDescription != nil {
				d = got.ImportTableDescription
			}
			continue
		}
		break
	}
	phase.End(d.ImportStatus == types.ImportStatusCompleted && ir.Errors == 0)
	logs := ""
	if ir.LogGroup != "" {
		logs = "; the CloudWatch Logs group " + ir.LogGroup + " names them"
	}
	switch {
	case d.ImportStatus != types.ImportStatusCompleted:
		return fmt.Errorf("migrate: --import: import %s ended %s: %s (%d items processed, %d imported, %d errors%s)", ir.ARN, ir.Status, ir.Failure, ir.ProcessedItems, ir.ImportedItems, ir.Errors, logs)
	case ir.Errors > 0:
		return fmt.Errorf("migrate: --import: import %s could not import %d items%s", ir.ARN, ir.Errors, logs)
	case ir.ImportedItems != rep.S3.items:
		return fmt.Errorf("migrate: --import: import %s imported %d items, but the objects hold %d", ir.ARN, ir.ImportedItems, rep.S3.items)
	}
	if t := o.Plan.Table.TTL; t != "" {
		_, err := o.DB.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(o.Table),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(t), Enabled: aws.Bool(true)},
		}, call)
		if err != nil {
			return fmt.Errorf("migrate: --import: enabling TTL on %s.%s: %w", o.Table, t, err)
		}
		ir.TTL = t
	}
	return nil
}

// describe takes DescribeImport's counts.
func (ir *ImportReport) describe(d *types.ImportTableDescription) {
	ir.Status = string(d.ImportStatus)
	ir.ProcessedItems = d.ProcessedItemCount
	ir.ImportedItems = d.ImportedItemCount
	ir.Errors = d.ErrorCount
	ir.ProcessedBytes = aws.ToInt64(d.ProcessedSizeBytes)
	ir.LogGroup = aws.ToString(d.CloudWatchLogGroupArn)
	if d.FailureCode != nil || d.FailureMessage != nil {
		ir.Failure = aws.ToString(d.FailureCode) + ": " + aws.ToString(d.FailureMessage)
	}
}

// importGoesOn is why a run stopped (a signal) while its import runs: an
// import cannot be cancelled, so it goes on in AWS, and running the same
// command again waits for it.
func importGoesOn(o Options, ir *ImportReport, err error) error {
	return fmt.Errorf("migrate: --import: stopped while import %s is %s: the import goes on in AWS (an import cannot be cancelled) and creates table %s; run migrate --to %s --import again (with --resume when a checkpoint is kept) to wait for it: it is found again by its client token, not started twice (aws dynamodb describe-import --import-arn %s): %w", ir.ARN, ir.Status, o.Table, o.To, ir.ARN, err)
}

// findImport is the import of the table whose client token is token, when
// the table exists (nil when it does not); a table that exists without
// such an import is refused (ImportTable only creates a new table).
func findImport(ctx context.Context, o Options, token string) (*types.ImportTableDescription, error) {
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	id, err := describeTableID(ctx, o.DB, o.Table, call)
	switch {
	case errors.Is(err, errNoTable):
		return nil, nil
	case err != nil:
		return nil, err
	}
	in := &dynamodb.ListImportsInput{TableArn: aws.String(id.ARN)}
	for {
		out, err := o.DB.ListImports(ctx, in, call)
		if err != nil {
			// Ask ImportTable itself: the same client token within 8
			// hours is the same import; otherwise it refuses the table.
			return nil, nil
		}
		for _, s := range out.ImportSummaryList {
			got, err := o.DB.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: s.ImportArn}, call)
			if err != nil {
				return nil, fmt.Errorf("migrate: --import: DescribeImport %s: %w", aws.ToString(s.ImportArn), err)
			}
			if d := got.ImportTableDescription; d != nil && aws.ToString(d.ClientToken) == token {
				return d, nil
			}
		}
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	return nil, fmt.Errorf("migrate: --import: table %s already exists, and no import of these objects created it: ImportTable only creates a new table (delete it, or give another --table)", o.Table)
}
