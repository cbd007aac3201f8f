package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/mapping"
)

// CreateTable creates the table the mapping describes, under the given name,
// and waits until the table and its indexes are ACTIVE, for at most timeout.
// Every request has DefaultRequestTimeout to be answered.
func CreateTable(ctx context.Context, db dynamo.API, t *mapping.Table, name string, timeout time.Duration) error {
	return createTable(ctx, db, t, name, nil, false, timeout, DefaultRequestTimeout)
}

func createTable(ctx context.Context, db dynamo.API, t *mapping.Table, name string, warm *WarmThroughput, stream bool, timeout, requestTimeout time.Duration) error {
	in := createTableInput(t, name)
	warm.apply(in)
	if stream { // --stream: the stream follow-back reads, enabled with the table
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	}
	call := dynamo.AttemptTimeout(requestTimeout)
	if err := createOnce(ctx, db, in, call); err != nil {
		var inUse *types.ResourceInUseException
		var na *dynamo.NoAnswerError
		switch {
		case errors.As(err, &inUse):
			return fmt.Errorf("migrate: creating table %s: %w (leave out --create-table to write into it)", name, errTableExists)
		case errors.As(err, &na):
			return fmt.Errorf("migrate: creating table %s: %v (--request-timeout): the table may or may not have been created", name, na)
		case unanswered(err):
			return fmt.Errorf("migrate: creating table %s: %w: no answer came, the table may or may not have been created", name, err)
		}
		return fmt.Errorf("migrate: creating table %s: %w", name, err)
	}
	if err := WaitActive(ctx, db, name, timeout, call); err != nil {
		return err
	}
	if t.TTL != "" {
		_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(t.TTL), Enabled: aws.Bool(true)},
		}, call)
		if err != nil {
			return fmt.Errorf("migrate: enabling TTL on %s.%s: %w", name, t.TTL, err)
		}
	}
	return nil
}

// createOnce sends CreateTable. A CreateTable tried again after an
// attempt that got no answer would find the table that attempt created,
// and say so wrongly: it is sent again only after an answer that says the
// service failed (a 5xx, throttling) and a DescribeTable that finds no
// table, so that what an attempt did is known; three attempts at most.
func createOnce(ctx context.Context, db dynamo.API, in *dynamodb.CreateTableInput, call func(*dynamodb.Options)) error {
	for attempt := 1; ; attempt++ {
		_, err := db.CreateTable(ctx, in, dynamo.NoRetry, call)
		if err == nil || attempt == 3 || !serviceFailed(err) {
			return err
		}
		_, derr := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName}, dynamo.NoRetry, call)
		var nf *types.ResourceNotFoundException
		switch {
		case derr == nil: // the failed attempt may have made it
			return fmt.Errorf("%w; the table exists now: the failed attempt may have created it (check it, then run without --create-table, or delete it and run again)", err)
		case !errors.As(derr, &nf):
			return fmt.Errorf("%w; whether the failed attempt created the table is not known (DescribeTable: %v)", err, derr)
		}
		if err := backoff.Sleep(ctx, time.Duration(attempt)*time.Second); err != nil {
			return err
		}
	}
}

var throttles = retry.IsErrorThrottles(retry.DefaultThrottles)

// serviceFailed says whether DynamoDB answered that it failed or is
// throttling, rather than that the request is wrong.
func serviceFailed(err error) bool {
	var re *awshttp.ResponseError
	if !errors.As(err, &re) {
		return false
	}
	return re.HTTPStatusCode() >= 500 || throttles.IsErrorThrottle(err) == aws.TrueTernary
}

// unanswered says whether a request was sent and got no HTTP answer (the
// connection closed or reset): DynamoDB may have acted on it. A refused
// connection sent nothing.
func unanswered(err error) bool {
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == 0 && !errors.Is(err, syscall.ECONNREFUSED)
}

// tableKey is the table's own key as two lists of key attributes.
func tableKey(t *mapping.Table) (pk, sk []mapping.KeyAttr) {
	if t.SK != nil {
		sk = []mapping.KeyAttr{*t.SK}
	}
	return []mapping.KeyAttr{t.PK}, sk
}

// createTableInput is the mapping's table definition (mapping.Table.Definition)
// as CreateTable takes it.
func createTableInput(t *mapping.Table, name string) *dynamodb.CreateTableInput {
	d := t.Definition(name)
	return &dynamodb.CreateTableInput{
		TableName: d.TableName, KeySchema: d.KeySchema, AttributeDefinitions: d.AttributeDefinitions,
		BillingMode: d.BillingMode, ProvisionedThroughput: d.ProvisionedThroughput,
		GlobalSecondaryIndexes: d.GlobalSecondaryIndexes, LocalSecondaryIndexes: d.Local,
	}
}

// WaitActive polls until the table and all its global indexes are ACTIVE,
// for at most timeout; optFns apply to every DescribeTable.
func WaitActive(ctx context.Context, db dynamo.API, name string, timeout time.Duration, optFns ...func(*dynamodb.Options)) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	delay := 200 * time.Millisecond
	for {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, optFns...)
		if err != nil {
			if parent.Err() == nil && ctx.Err() != nil {
				return fmt.Errorf("migrate: table %s is not ACTIVE after %s (--table-timeout)", name, timeout)
			}
			return fmt.Errorf("migrate: waiting for table %s: %w", name, err)
		}
		ready := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			ready = ready && g.IndexStatus == types.IndexStatusActive
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return parent.Err()
			}
			return fmt.Errorf("migrate: table %s is not ACTIVE after %s (status %s; --table-timeout)", name, timeout, out.Table.TableStatus)
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// errTableExists is CreateTable's answer about a table that exists (or is
// being created).
var errTableExists = errors.New("it already exists")

// createShared is --create-table of a shard (Options.Shard): the shards
// start at once, and one of them creates the table; the others find it
// existing (or being created), wait until it is ACTIVE and check that its
// keys and indexes are the mapping's, as a run without --create-table
// does. created says whether this one created it.
func createShared(ctx context.Context, o Options) (created bool, err error) {
	err = createTable(ctx, o.DB, &o.Plan.Table, o.Table, o.WarmThroughput, o.Stream, o.TableTimeout, o.RequestTimeout)
	if !errors.Is(err, errTableExists) {
		return err == nil, err
	}
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	if err := WaitActive(ctx, o.DB, o.Table, o.TableTimeout, call); err != nil {
		return false, err
	}
	return false, CheckTable(ctx, o.DB, &o.Plan.Table, o.Table, call)
}

// errNoTable is DescribeTable's answer about a table that does not exist.
var errNoTable = errors.New("no such table")

// tableID names one incarnation of a table: a table deleted and created
// again under its name (or in an in-memory emulator that restarted) has
// another creation time.
type tableID struct {
	ARN     string
	Created time.Time
}

// describeTableID names the table called name; errNoTable when there is none.
func describeTableID(ctx context.Context, db dynamo.API, name string, optFns ...func(*dynamodb.Options)) (tableID, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, optFns...)
	var nf *types.ResourceNotFoundException
	switch {
	case errors.As(err, &nf):
		return tableID{}, fmt.Errorf("migrate: table %s: %w", name, errNoTable)
	case err != nil:
		return tableID{}, fmt.Errorf("migrate: describing table %s: %w", name, err)
	case out.Table == nil || out.Table.TableArn == nil || out.Table.CreationDateTime == nil:
		return tableID{}, fmt.Errorf("migrate: describing table %s: DynamoDB did not give its ARN and creation time", name)
	}
	return tableID{ARN: *out.Table.TableArn, Created: out.Table.CreationDateTime.UTC()}, nil
}

// CheckTable makes sure an existing table has the keys and indexes (their
// keys and projections) the mapping needs; optFns apply to the DescribeTable request.
func CheckTable(ctx context.Context, db dynamo.API, t *mapping.Table, name string, optFns ...func(*dynamodb.Options)) error {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, optFns...)
	if err != nil {
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return fmt.Errorf("migrate: table %s does not exist (add --create-table to create it)", name)
		}
		return fmt.Errorf("migrate: describing table %s: %w", name, err)
	}
	pk, sk := tableKey(t)
	if err := sameKeys("table "+name, out.Table.KeySchema, pk, sk); err != nil {
		return err
	}
	defined := map[string]string{}
	for _, d := range out.Table.AttributeDefinitions {
		defined[aws.ToString(d.AttributeName)] = string(d.AttributeType)
	}
	for attr, want := range t.KeyTypes() {
		if have, ok := defined[attr]; ok && have != want {
			return fmt.Errorf("migrate: key attribute %s of table %s has type %s but the mapping says %s", attr, name, have, want)
		}
	}
	type described struct {
		ks   []types.KeySchemaElement
		proj *types.Projection
	}
	have := map[string]described{}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		have[aws.ToString(g.IndexName)] = described{g.KeySchema, g.Projection}
	}
	for _, l := range out.Table.LocalSecondaryIndexes {
		have[aws.ToString(l.IndexName)] = described{l.KeySchema, l.Projection}
	}
	for _, ix := range t.Indexes {
		d, ok := have[ix.Name]
		if !ok {
			return fmt.Errorf("migrate: table %s has no index %s, which the mapping declares", name, ix.Name)
		}
		if err := sameKeys("index "+ix.Name+" of "+name, d.ks, ix.PK, ix.SK); err != nil {
			return err
		}
		// An index that projects less than the mapping says answers its
		// access patterns without attributes they need; one that projects
		// more costs write units the design did not count.
		if !ix.SameProjection(d.proj) {
			return fmt.Errorf("migrate: index %s of %s projects %s but the mapping says %s", ix.Name, name, mapping.ProjectionText(d.proj), ix.ProjectionText())
		}
	}
	return nil
}

// sameKeys compares a key schema with the mapping's key attributes, in
// order (a multi-attribute key is the same only with its attributes in the
// same order).
func sameKeys(what string, ks []types.KeySchemaElement, pk, sk []mapping.KeyAttr) error {
	var hash, rng []string
	for _, k := range ks {
		if k.KeyType == types.KeyTypeHash {
			hash = append(hash, aws.ToString(k.AttributeName))
		} else {
			rng = append(rng, aws.ToString(k.AttributeName))
		}
	}
	wantHash, wantRange := keyNames(pk), keyNames(sk)
	if !slices.Equal(hash, wantHash) || !slices.Equal(rng, wantRange) {
		return fmt.Errorf("migrate: %s has key (%s, %s) but the mapping says (%s, %s)", what,
			strings.Join(hash, " + "), orNone(strings.Join(rng, " + ")), strings.Join(wantHash, " + "), orNone(strings.Join(wantRange, " + ")))
	}
	return nil
}

func keyNames(k []mapping.KeyAttr) []string {
	var out []string
	for _, a := range k {
		out = append(out, a.Name)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "no sort key"
	}
	return s
}

// IsEmpty reports whether the table holds no item, its lock item aside;
// optFns apply to every Scan request.
func IsEmpty(ctx context.Context, db dynamo.API, t *mapping.Table, name string, optFns ...func(*dynamodb.Options)) (bool, error) {
	names := map[string]string{"#pk": t.PK.Name}
	proj := "#pk"
	if t.SK != nil {
		names["#sk"] = t.SK.Name
		proj += ", #sk"
	}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{
		TableName: aws.String(name), Limit: aws.Int32(2), ProjectionExpression: aws.String(proj), ExpressionAttributeNames: names,
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx, optFns...)
		if err != nil {
			return false, fmt.Errorf("migrate: checking whether %s is empty: %w", name, err)
		}
		for _, it := range out.Items {
			if !t.IsLock(it) {
				return false, nil
			}
		}
	}
	return true, nil
}
