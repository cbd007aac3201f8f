package followback

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// TableAPI is the DynamoDB calls follow-back makes on the table, with the
// SDK's signatures (*dynamodb.Client has them).
type TableAPI interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// StreamsAPI is the DynamoDB Streams calls follow-back makes
// (*dynamodbstreams.Client has them).
type StreamsAPI interface {
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var (
	_ TableAPI   = (*dynamodb.Client)(nil)
	_ StreamsAPI = (*dynamodbstreams.Client)(nil)
)

// Config is where the table and its stream are.
type Config struct {
	Profile, Region string
	Endpoint        string // DynamoDB's endpoint; DynamoDB Local serves the stream on it too
}

// Connect makes the clients of the table and of its stream from the AWS
// configuration (the profile, the region, an endpoint for both).
func Connect(ctx context.Context, c Config) (*dynamodb.Client, *dynamodbstreams.Client, error) {
	var opts []func(*config.LoadOptions) error
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("followback: loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, nil, fmt.Errorf("followback: no AWS region: give --region or set AWS_REGION")
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
	})
	st := dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
	})
	return db, st, nil
}
