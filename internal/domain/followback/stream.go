package followback

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/remodel-dev/remodel/mapping"
)

// Retention is how long DynamoDB Streams keeps a record.
const Retention = 24 * time.Hour

// lateStream is how much later than the table's creation its stream may
// have been enabled and still count as enabled with the table
// (CreateTable with a StreamSpecification gives them the same moment).
const lateStream = time.Minute

// streamInfo is the table's stream as DescribeTable tells it.
type streamInfo struct {
	ARN, Label string
	ViewType   dtypes.StreamViewType
	Enabled    bool
	Created    time.Time // the table's creation
}

// describeStream reads the table's stream.
func describeStream(ctx context.Context, db TableAPI, table string) (streamInfo, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return streamInfo{}, fmt.Errorf("followback: describing table %s: %w", table, err)
	}
	t := out.Table
	si := streamInfo{ARN: aws.ToString(t.LatestStreamArn), Label: aws.ToString(t.LatestStreamLabel), Created: aws.ToTime(t.CreationDateTime)}
	if s := t.StreamSpecification; s != nil {
		si.Enabled = aws.ToBool(s.StreamEnabled)
		si.ViewType = s.StreamViewType
	}
	return si, nil
}

// EnableStream turns on the table's stream with NEW_AND_OLD_IMAGES (a
// table whose stream is on already is left as it is, and checked) and
// waits until the table is ACTIVE again.
func EnableStream(ctx context.Context, db TableAPI, table string) error {
	si, err := describeStream(ctx, db, table)
	if err != nil {
		return err
	}
	if si.Enabled {
		if si.ViewType != dtypes.StreamViewTypeNewAndOldImages {
			return fmt.Errorf("followback: the stream of table %s has view type %s; follow-back needs NEW_AND_OLD_IMAGES (disable the stream and run follow-back --enable-stream)", table, si.ViewType)
		}
		return nil
	}
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:           aws.String(table),
		StreamSpecification: &dtypes.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: dtypes.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		return fmt.Errorf("followback: enabling the stream of table %s: %w", table, err)
	}
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return fmt.Errorf("followback: waiting for table %s: %w", table, err)
		}
		if out.Table.TableStatus == dtypes.TableStatusActive && out.Table.LatestStreamArn != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// checkStream refuses a stream follow-back cannot trust: none, one
// without both images, one enabled later than the table was created
// (writes before it are not in it) unless late is allowed (the user
// enabled it, before the switch: --enable-stream), or, on --resume, not
// the stream of the checkpoint (the stream was turned off and on again:
// the changes between are lost).
func checkStream(si streamInfo, table string, late bool, ck *checkpoint) error {
	switch {
	case !si.Enabled || si.ARN == "":
		return fmt.Errorf("followback: table %s has no stream: create it with migrate --create-table --stream, or enable one before the switch with follow-back --enable-stream", table)
	case si.ViewType != dtypes.StreamViewTypeNewAndOldImages:
		return fmt.Errorf("followback: the stream of table %s has view type %s; follow-back needs NEW_AND_OLD_IMAGES, the old image to guard every update and the new one to apply", table, si.ViewType)
	}
	if ck != nil {
		if ck.StreamARN != si.ARN {
			return fmt.Errorf("followback: the checkpoint follows stream %s, table %s now has stream %s: the stream was disabled and enabled again, and the changes between are lost; bring the source up to date another way and start again without --resume", ck.StreamARN, table, si.ARN)
		}
		return nil
	}
	label, err := time.Parse("2006-01-02T15:04:05.000", si.Label)
	if err != nil {
		return nil // a label that is no time says nothing about when
	}
	if !late && label.Sub(si.Created) > lateStream {
		return fmt.Errorf("followback: the stream of table %s was enabled at %s, after the table was created at %s: writes before it are not in it. If the application has not written to the table yet (the switch is still to come), give --enable-stream to start with this stream",
			table, label.UTC().Format(time.RFC3339), si.Created.UTC().Format(time.RFC3339))
	}
	return nil
}

// shards lists the stream's shards.
func listShards(ctx context.Context, st StreamsAPI, arn string) ([]stypes.Shard, error) {
	var out []stypes.Shard
	var from *string
	for {
		d, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: from})
		if err != nil {
			return nil, fmt.Errorf("followback: describing stream %s: %w", arn, err)
		}
		out = append(out, d.StreamDescription.Shards...)
		from = d.StreamDescription.LastEvaluatedShardId
		if from == nil {
			return out, nil
		}
	}
}

// errLost is a position of the checkpoint the stream no longer keeps.
var errLost = errors.New("the stream no longer keeps the records after the checkpoint (DynamoDB Streams keeps them 24 hours): changes are lost")

// item converts a stream image into a DynamoDB item.
func item(img map[string]stypes.AttributeValue) mapping.Item {
	if img == nil {
		return nil
	}
	out := make(mapping.Item, len(img))
	for k, v := range img {
		out[k] = value(v)
	}
	return out
}

// value converts a stream attribute value into a DynamoDB one.
func value(v stypes.AttributeValue) dtypes.AttributeValue {
	switch x := v.(type) {
	case *stypes.AttributeValueMemberS:
		return &dtypes.AttributeValueMemberS{Value: x.Value}
	case *stypes.AttributeValueMemberN:
		return &dtypes.AttributeValueMemberN{Value: x.Value}
	case *stypes.AttributeValueMemberB:
		return &dtypes.AttributeValueMemberB{Value: x.Value}
	case *stypes.AttributeValueMemberBOOL:
		return &dtypes.AttributeValueMemberBOOL{Value: x.Value}
	case *stypes.AttributeValueMemberNULL:
		return &dtypes.AttributeValueMemberNULL{Value: x.Value}
	case *stypes.AttributeValueMemberSS:
		return &dtypes.AttributeValueMemberSS{Value: x.Value}
	case *stypes.AttributeValueMemberNS:
		return &dtypes.AttributeValueMemberNS{Value: x.Value}
	case *stypes.AttributeValueMemberBS:
		return &dtypes.AttributeValueMemberBS{Value: x.Value}
	case *stypes.AttributeValueMemberL:
		l := make([]dtypes.AttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = value(e)
		}
		return &dtypes.AttributeValueMemberL{Value: l}
	case *stypes.AttributeValueMemberM:
		m := make(map[string]dtypes.AttributeValue, len(x.Value))
		for k, e := range x.Value {
			m[k] = value(e)
		}
		return &dtypes.AttributeValueMemberM{Value: m}
	}
	return nil
}
